"""Double-six draw to 100 (RULES.md section 4, seed ``004_*.txt``).

- :mod:`engine.draw100.line`: the line of play (a tree of placed tiles with open ends), public
  API shared with the camera side.
- :mod:`engine.draw100.game`: :class:`Draw100Game` and its states (rules, scoring).
- :mod:`engine.draw100.hints`: Monte Carlo hints for the player to move.
"""
from .line import DIRECTIONS, LineOfPlay, Node, OpenEnd, parse_end_id

__all__ = ["DIRECTIONS", "LineOfPlay", "Node", "OpenEnd", "parse_end_id"]
