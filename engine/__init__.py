"""Game engines: pure rules, no I/O. See engine/game.py for the shared state interface.

Registry: :func:`make_game` builds a game from its short name (``draw100``, ``tableaux``,
``good-neighbors``, ``big-clock``, ``luzon``) and keyword parameters.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .game import TERMINAL, Game, Hint, IllegalActionError, State, wilson_interval
from .tiles import DominoSet, Tile

# short name -> "module:GameClass"; engines register here as they are added.
GAMES: dict[str, str] = {
    "draw100": "engine.draw100:Draw100Game",
    "tableaux": "engine.tableaux:TableauxGame",
    "good-neighbors": "engine.good_neighbors:GoodNeighborsGame",
    "big-clock": "engine.big_clock:BigClockGame",
    "luzon": "engine.luzon:LuzonGame",
}


def make_game(name: str, **params: Any) -> Game:
    """Build the game called ``name`` with its parameters (e.g. ``max_pip=9``).

    Raises:
        ValueError: unknown game name or bad parameters.
    """
    try:
        target = GAMES[name]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; choose one of {sorted(GAMES)}") from None
    module_name, _, cls_name = target.partition(":")
    cls = getattr(import_module(module_name), cls_name)
    return cls(**params)


__all__ = [
    "TERMINAL",
    "Game",
    "Hint",
    "IllegalActionError",
    "State",
    "Tile",
    "DominoSet",
    "make_game",
    "GAMES",
    "wilson_interval",
]
