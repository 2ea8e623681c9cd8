"""Tableaux, the 2-player positional domino game (RULES.md section 5, seed ``002_*.txt``).

Public API:

- :class:`TableauxGame` ``(max_pip=6|9)``: double-6, hands of 4, to 121 points; or double-9,
  hands of 5, to 361. ``new_initial_state(seed)``, ``replay(seed, actions)`` and
  ``state_from_position(placed, hand, ...)`` for the camera side.
- Actions: :class:`Place` ``(tile, low_cell, high_cell)``, :data:`PASS`, :data:`END_TURN`.
- :class:`~engine.tableaux.board.Board`: the grid of half-tile cells ``(row, col)`` (row grows
  downwards) and the move generator.
- :func:`hint` / :func:`best_turn` (the best whole turn plus a defensive term) and
  :func:`greedy_action` (one tile at a time, most points now).

The rules as implemented, with every choice the seed leaves open: ``docs/tableaux-rules.md``.
"""

from .board import CENTRE, CORNER, SIDE, Board, Cell, Placement, Slot
from .game import (
    END_TURN,
    PASS,
    PASS_PENALTY,
    SIZES,
    STARTER_CELLS,
    EndTurn,
    Pass,
    Place,
    TableauxGame,
    TableauxState,
)
from .hint import ThreatModel, TurnPlan, best_turn, greedy_action, hint, threat

__all__ = [
    "CENTRE",
    "CORNER",
    "SIDE",
    "Board",
    "Cell",
    "Placement",
    "Slot",
    "END_TURN",
    "PASS",
    "PASS_PENALTY",
    "SIZES",
    "STARTER_CELLS",
    "EndTurn",
    "Pass",
    "Place",
    "TableauxGame",
    "TableauxState",
    "ThreatModel",
    "TurnPlan",
    "best_turn",
    "greedy_action",
    "hint",
    "threat",
]
