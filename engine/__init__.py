"""Game engines: pure rules, no I/O. See engine/game.py for the shared state interface.

Catalog: :data:`GAMES` (from :mod:`engine.catalog`) maps each game's short name to its
:class:`GameType` record (sets, players, targets, variants, hand, what the table shows, ...);
it is the one list of games. :func:`make_game` builds a game from its short name and keyword
parameters.
"""

from __future__ import annotations

from typing import Any

from .catalog import GAMES, GameType, Hand, Shape, Table, games_where, get_game_type
from .game import TERMINAL, Game, Hint, IllegalActionError, State, mcnemar, wilson_interval
from .tiles import DominoSet, Tile


def make_game(name: str, **params: Any) -> Game:
    """Build the game called ``name`` (a key of :data:`GAMES`) with its parameters
    (e.g. ``max_pip=9``).

    Raises:
        ValueError: unknown game name or bad parameters.
    """
    return get_game_type(name).make(**params)


__all__ = [
    "TERMINAL",
    "Game",
    "GameType",
    "Hand",
    "Hint",
    "IllegalActionError",
    "Shape",
    "State",
    "Table",
    "Tile",
    "DominoSet",
    "make_game",
    "get_game_type",
    "games_where",
    "GAMES",
    "mcnemar",
    "wilson_interval",
]
