"""``domino-companion``: one console command with subcommands.

Each subcommand lives in ``companion/commands/<name>.py`` and provides
``add_arguments(parser)`` and ``run(args) -> int``. Modules are imported only when their
subcommand runs, so ``play`` never loads OpenCV and ``detect`` never loads Flask.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module

# subcommand -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("companion.commands.serve", "start the companion web server for phones"),
    "detect": ("companion.commands.detect", "find tiles in a photo and count their pips"),
    "read": ("companion.commands.read", "rebuild a game state from a photo"),
    "follow": ("companion.commands.follow", "follow a game through photos or a video, keep score"),
    "play": ("companion.commands.play", "play a game in the terminal against the hint player"),
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand's arguments."""
    parser = argparse.ArgumentParser(prog="domino-companion", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        try:
            import_module(module).add_arguments(p)
        except ImportError as exc:  # one broken subcommand must not take the others down
            p.set_defaults(unavailable=f"{exc}")
            p.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point. Returns the process exit code (0 ok, 1 runtime error, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "unavailable", None):
        print(
            f"domino-companion {args.command}: not available here ({args.unavailable})",
            file=sys.stderr,
        )
        return 1
    module = import_module(COMMANDS[args.command][0])
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        sys.stderr.close()
        return 0
    except (ValueError, OSError) as exc:  # clear message, no stack trace for users
        print(f"domino-companion {args.command}: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
