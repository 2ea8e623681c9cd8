"""The Big Clock, a one-player domino solitaire (RULES.md section 2; seed ``001_*.txt``).

Layout. 0-0 is taken out and lies in the centre (all three sizes: the seed removes it for the
double-12 game and says nothing else for the variations, and 0-0 has no slot). The other tiles
are shuffled; the first ``N`` go face up, one per *slot*: double-12 deals to slots 12, 1, 2, ...,
11 (clockwise from 12 o'clock), double-9 to slots 1..9, double-6 to slots 1..6. Each slot holds a
*pile*; the rest is the face-down *stock* (78, 45 or 21 tiles).

Turn structure (the action model; docs/big-clock.md lists every choice the rules leave open):

- The next tile is drawn automatically (chance, from the seeded stock order): every non-terminal
  state has one *drawn* tile waiting to be placed.
- :class:`Place` ``(slot)``: put the drawn tile on that slot's pile. Allowed when the pile's top
  tile is not a double and shares a number with the drawn tile (never cover a double). A double
  placed on its own slot is **home** and closes the pile. A double may also be placed on a wrong
  slot's matching pile (it is then a double in trouble lying there).
- Blank slots (piles emptied by moves): while one exists, the drawn tile must fill a blank slot
  (any tile, no matching needed) unless it is the double of a blank slot, which then may only go
  home there; a drawn double may also go home on its own non-blank slot instead.
- :class:`SetAside`: a drawn non-double with no legal place is set aside for good (forced, and
  only then).
- :class:`Move` ``(src, dst)``: while a *double in trouble* exists -- the drawn double has no
  matching top tile anywhere (its own slot neither blank nor showing its number), or a double
  lies on top of a wrong slot -- the top tile of any open pile may move onto another open pile
  under the same matching rule; onto a blank slot only its own double may move (home). At most
  :data:`MAX_MOVES_PER_DRAW` moves per drawn tile (a house limit so that every game ends).
- :class:`GiveUp`: offered when the drawn double has no place but moves are still possible; it
  ends the game as lost ("a drawn double that cannot be brought home, nor placed anywhere,
  loses"). With no place and no move left the state is terminal and lost at once.

A dealt double on its own slot is home at once. Won (``returns() == [1.0]``): every double n-n,
n >= 1, home. Lost: the drawn double is stuck, or the last tile of the stock was placed or set
aside before every double came home.

Package layout:

- :mod:`engine.big_clock.rules`: actions, per-size tables on tile indices (the clock is a tuple
  of ``N + 1`` piles, index 0 unused, each a tuple of tile indices bottom to top) and the
  placement and move tests.
- :mod:`engine.big_clock.rescue`: rescue move sequences (breadth-first, bounded).
- :mod:`engine.big_clock.game`: :class:`BigClockGame` and :class:`BigClockState`.
- :mod:`engine.big_clock.search`: the perfect-information solver (:func:`solve`,
  :func:`solve_line`), memoising proven results on the pile tops.
- :mod:`engine.big_clock.policy`: :func:`random_action` and :func:`greedy_action`.
- :mod:`engine.big_clock.hints`: :func:`hint` (determinized Monte Carlo).

Module interface: see ``engine/solitaire.py``.
"""

from .game import BigClockGame, BigClockState
from .hints import HINT_SETTINGS, HINT_VERSION, hint
from .policy import greedy_action, random_action
from .rescue import RESCUE_DEPTH, RESCUE_LAYOUTS
from .rules import (
    GAME_SIZES,
    GIVE_UP,
    MAX_MOVES_PER_DRAW,
    SET_ASIDE,
    BigClockAction,
    GiveUp,
    Move,
    Place,
    SetAside,
)
from .search import FIRST_RESTART_NODES, SOLVER_SETTINGS, solve, solve_line

__all__ = [
    "BigClockAction",
    "BigClockGame",
    "BigClockState",
    "FIRST_RESTART_NODES",
    "GAME_SIZES",
    "GIVE_UP",
    "GiveUp",
    "HINT_SETTINGS",
    "HINT_VERSION",
    "MAX_MOVES_PER_DRAW",
    "Move",
    "Place",
    "RESCUE_DEPTH",
    "RESCUE_LAYOUTS",
    "SET_ASIDE",
    "SOLVER_SETTINGS",
    "SetAside",
    "greedy_action",
    "hint",
    "random_action",
    "solve",
    "solve_line",
]
