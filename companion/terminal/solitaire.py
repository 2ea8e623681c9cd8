"""Terminal front end shared by the solitaires: ``domino-companion play good-neighbors|big-clock|luzon``.

Generic over the solitaire module interface of ``engine/solitaire.py``: the game module is found
by name in the registry ``engine.GAMES`` and used only through that interface, so The Big Clock
works here as soon as ``engine/big_clock/`` exists.

Each turn shows the layout (``str(state)``) and the numbered moves; the player types a number,
``h`` for the hint (best move and estimated win chance), ``q`` to quit. Modules with
``parse_action`` accept more (Good Neighbors: ``1+3`` removes pairs 1 and 3 in one turn). End of
input (Ctrl-D) quits cleanly; bad input is answered with a message and the prompt again.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from importlib import import_module
from types import ModuleType
from typing import TextIO

from engine import GAMES, get_game_type, make_game


def load_module(name: str) -> ModuleType:
    """The engine module of solitaire ``name`` (its catalog record's ``module``).

    Raises:
        ValueError: unknown game, or its engine module is not installed yet.
    """
    module_name = get_game_type(name).module
    try:
        return import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise ValueError(f"the {name} engine ({module_name}) is not available yet") from None
        raise


def game_params(args: argparse.Namespace) -> dict:
    """Keyword parameters for ``make_game`` from ``--max-pip`` and ``--variant`` (unset ones left out).

    Raises:
        ValueError: ``--variant`` given for a game without variants.
    """
    params = {}
    if getattr(args, "max_pip", None) is not None:
        params["max_pip"] = args.max_pip
    if getattr(args, "variant", None) is not None:
        if not get_game_type(args.game).variants:
            with_variants = ", ".join(
                f"{g.name} ({'/'.join(v for v in g.variants if v)})"
                for g in GAMES.values()
                if g.variants
            )
            raise ValueError(f"--variant is only for {with_variants}, not {args.game}")
        params["variant"] = args.variant
    return params


def play(
    args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Play one solitaire deal in the terminal. Returns 0 (won, lost or quit).

    ``args``: ``game``, ``seed`` (None: a random seed, printed so the deal can be replayed),
    ``max_pip``, ``variant``, ``hint`` (show the hint before every move). ``stdin``/``stdout``
    default to the process streams (tests pass StringIO).

    Raises:
        ValueError: unknown game or bad parameters (the CLI prints it as an error line).
    """
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout

    def say(text: str = "") -> None:
        print(text, file=stdout, flush=True)

    module = load_module(args.game)
    game = make_game(args.game, **game_params(args))
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    state = game.new_initial_state(seed)
    menu_of: Callable = getattr(module, "menu_actions", lambda s: s.legal_actions())
    parse: Callable | None = getattr(module, "parse_action", None)
    say(f"{args.game} {game_params(args) or ''} seed {seed}".replace(" {}", "").rstrip())
    hint_seed = 0
    while True:
        say()
        say(str(state))
        if state.is_terminal():
            won = state.returns()[0] == 1.0
            say("You won!" if won else "No move left: the game is lost.")
            say(f"replay: seed {seed}, {len(state.history)} moves")
            return 0
        menu = menu_of(state)
        for i, a in enumerate(menu, 1):
            say(f"  {i:>3}. {state.action_to_string(a)}")
        extra = "  (combine moves: 1+3)" if parse else ""
        if getattr(args, "hint", False):
            show_hint(module, state, menu, say, hint_seed)
        while True:
            stdout.write(f"move 1-{len(menu)}, h = hint, q = quit{extra}: ")
            stdout.flush()
            line = stdin.readline()
            if not line:
                say()
                say("end of input: bye")
                return 0
            text = line.strip().lower()
            if text in ("q", "quit", "exit"):
                say("bye")
                return 0
            if text in ("h", "hint", "?"):
                show_hint(module, state, menu, say, hint_seed)
                continue
            try:
                action = read_action(state, menu, parse, text)
            except ValueError as exc:
                say(f"  {exc}")
                continue
            state.apply_action(action)
            hint_seed += 1
            break


def read_action(state, menu: list, parse: Callable | None, text: str):
    """The action the player typed: a menu number, or what the module's ``parse_action`` reads.

    Raises:
        ValueError: with a message for the player (not a number on the menu, illegal move).
    """
    if parse is not None:
        action = parse(state, text)
        if action is not None:
            if action not in state.legal_actions():
                raise ValueError(f"{state.action_to_string(action)} is not a legal move now")
            return action
    if not text.isdigit():
        raise ValueError(f"type a move number 1-{len(menu)}, h or q (got {text!r})")
    k = int(text)
    if not 1 <= k <= len(menu):
        raise ValueError(f"no move number {k}; choose 1-{len(menu)}")
    return menu[k - 1]


def show_hint(module: ModuleType, state, menu: list, say: Callable[[str], None], seed: int) -> None:
    """Print the module's hint: the move (with its menu number), win chance and reason."""
    h = module.hint(state, seed=seed)
    if h.action is None:
        say("  hint: nothing to do")
        return
    typed = (
        menu.index(h.action) + 1
        if h.action in menu
        else getattr(module, "menu_text", lambda s, a: None)(state, h.action)
    )
    where = f" (type {typed})" if typed else ""
    chance = f", win chance {100 * h.win_chance:.0f}%" if h.win_chance is not None else ""
    say(f"  hint: {state.action_to_string(h.action)}{where}{chance} [{h.elapsed_ms:.0f} ms]")
    if h.explanation:
        say(f"        {h.explanation}")
