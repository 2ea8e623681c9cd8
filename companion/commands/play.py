"""``domino-companion play GAME``: a game in the terminal, without a camera.

Each game's terminal front end is a module with ``play(args)``: the solitaires share
``companion/terminal/solitaire.py``; a game for several players has its own
``companion/terminal/<name>.py`` (name with ``_`` for ``-``). The games come from ``engine.GAMES``.
"""

from __future__ import annotations

import argparse
from importlib import import_module

from engine import GAMES, GameType


def front_end(g: GameType) -> str:
    """The module of the terminal front end of game ``g``."""
    return "companion.terminal." + ("solitaire" if g.solitaire else g.name.replace("-", "_"))


FRONT_ENDS = {name: front_end(g) for name, g in GAMES.items()}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", choices=sorted(FRONT_ENDS), help="which game to play")
    p.add_argument("--seed", type=int, default=None, help="seed of the deal (replayable)")
    p.add_argument(
        "--players",
        type=int,
        default=2,
        help="players: "
        + ", ".join(
            f"{n} {g.min_players}-{g.max_players}"
            for n, g in GAMES.items()
            if g.max_players > g.min_players
        ),
    )
    p.add_argument("--max-pip", type=int, default=None, help="set size: 6, 9 or 12")
    p.add_argument(
        "--variant",
        default=None,
        help="game variant: "
        + ", ".join(
            f"{n} {'/'.join(repr(v) for v in g.variants if v)}"
            for n, g in GAMES.items()
            if g.variants
        ),
    )
    p.add_argument("--hint", action="store_true", help="show the hint before each move")


def run(args: argparse.Namespace) -> int:
    return import_module(FRONT_ENDS[args.game]).play(args)
