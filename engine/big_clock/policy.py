"""The Big Clock's simple players: :func:`random_action` and :func:`greedy_action`."""

from __future__ import annotations

import random

from ..solitaire import random_legal_action
from .game import BigClockState
from .rescue import RESCUE_DEPTH, _rescues
from .rules import (
    GIVE_UP,
    MAX_MOVES_PER_DRAW,
    SET_ASIDE,
    BigClockAction,
    Move,
    Piles,
    Place,
    _place_score,
    _Tables,
)


def _rescue_path(
    tab: _Tables, piles: Piles, drawn: int, max_depth: int, rescuing: bool = False
) -> list | None:
    """Shortest list of moves (see :func:`_rescues`) that brings a double home, or None."""
    found = _rescues(
        tab.n, piles, drawn if drawn >= 0 and tab.dbl[drawn] else -1, max_depth, rescuing
    )
    return list(found[0][0]) if found else None


def random_action(state: BigClockState, rng: random.Random) -> BigClockAction:
    """A uniformly random legal action (moves and giving up included)."""
    return random_legal_action(state, rng)


def greedy_action(state: BigClockState) -> BigClockAction:
    """The simple rule: bring a drawn double home when it can go; while a double is in trouble,
    play the first move of the shortest move sequence (at most :data:`RESCUE_DEPTH` moves)
    that brings a double home; else place the drawn tile where it keeps the most slots showing their own number
    (the seed's advice: 6-10 on the 4-6 at 10 o'clock); else set it aside, or give up.

    Raises:
        ValueError: the game is over.
    """
    acts = state.legal_actions()
    if not acts:
        raise ValueError("no legal action: the game is over")
    tab, piles, drawn = state._tab, state._piles, state._drawn
    if tab.dbl[drawn] and Place(tab.lo[drawn]) in acts:
        return Place(tab.lo[drawn])
    if any(isinstance(a, Move) for a in acts):
        path = _rescue_path(
            tab,
            piles,
            drawn,
            min(RESCUE_DEPTH, MAX_MOVES_PER_DRAW - state.moves_used),
            state.rescuing,
        )
        if path:
            return Move(*path[0])
    places = [a.slot for a in acts if isinstance(a, Place)]
    if places:
        return Place(max(places, key=lambda k: _place_score(tab, piles, k, drawn)))
    return SET_ASIDE if SET_ASIDE in acts else GIVE_UP if GIVE_UP in acts else acts[0]
