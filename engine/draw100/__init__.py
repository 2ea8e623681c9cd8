"""Double-six draw to 100 (RULES.md section 4, seed ``004_*.txt``).

- :mod:`engine.draw100.line`: the line of play (a tree of placed tiles with open ends), public
  API shared with the camera side.
- :mod:`engine.draw100.game`: :class:`Draw100Game` and its states (rules, scoring).
- :mod:`engine.draw100.hints`: Monte Carlo hints for the player to move.
"""

from .game import DRAW, PASS, Draw, Draw100Game, Draw100State, Pass, Play, RoundResult
from .line import DIRECTIONS, LineOfPlay, Node, OpenEnd, parse_end_id

__all__ = [
    "DIRECTIONS",
    "LineOfPlay",
    "Node",
    "OpenEnd",
    "parse_end_id",
    "Draw100Game",
    "Draw100State",
    "Play",
    "Draw",
    "Pass",
    "DRAW",
    "PASS",
    "RoundResult",
    "hint",
]


def hint(state, samples: int = 32, seed: int | None = None):
    """See :func:`engine.draw100.hints.hint` (imported lazily)."""
    from .hints import hint as _hint

    return _hint(state, samples=samples, seed=seed)
