"""The Big Clock hint: determinized Monte Carlo over sampled stock orders with the solver of
:mod:`engine.big_clock.search`."""

from __future__ import annotations

from ..game import Hint
from ..solitaire import determinized_hint
from .game import BigClockState
from .policy import greedy_action
from .rescue import RESCUE_DEPTH, _rescues
from .rules import (
    MAX_MOVES_PER_DRAW,
    BigClockAction,
    GiveUp,
    Move,
    Place,
    SetAside,
    _place_score,
)
from .search import _evaluate


def _candidates(state: BigClockState) -> list[BigClockAction]:
    """The actions worth ranking: the greedy choice first, then the places (by the slot rule),
    set aside / give up, then the first moves of rescue sequences (:func:`_rescues`). Other
    moves are legal but lead nowhere by themselves; the hint does not rank them."""
    acts = state.legal_actions()
    if not acts:
        return []
    tab, piles, drawn = state._tab, state._piles, state._drawn
    out = [greedy_action(state)]
    places = sorted(
        (a for a in acts if isinstance(a, Place)),
        key=lambda a: -_place_score(tab, piles, a.slot, drawn),
    )
    out += [a for a in places if a not in out]
    out += [a for a in acts if isinstance(a, (SetAside, GiveUp)) and a not in out]
    if any(isinstance(a, Move) for a in acts):
        dd = drawn if tab.dbl[drawn] else -1
        depth = min(RESCUE_DEPTH, MAX_MOVES_PER_DRAW - state.moves_used)
        for path, _ in _rescues(tab.n, piles, dd, depth, state.rescuing):
            m = Move(*path[0])
            if m not in out:
                out.append(m)
    return out


#: Hint defaults per size (max_pip -> (samples, node limit per search, screen samples, keep,
#: node budget per sample or None)); see ``engine.solitaire.determinized_hint``. Sized so that
#: a hint call stays well under a second on a phone's server (docs/big-clock.md has timings).
HINT_SETTINGS = {12: (4, 150, 2, 2, 400), 9: (4, 200, 2, 2, 600), 6: (10, 400, 3, 2, None)}


def hint(
    state: BigClockState,
    samples: int | None = None,
    seed: int | None = 0,
    node_limit: int | None = None,
) -> Hint:
    """Best action by determinized Monte Carlo (see ``engine.solitaire.determinized_hint``):
    each candidate action is tried on sampled stock orders with the perfect-information
    search (``node_limit`` nodes per try; an unfinished search is left out of the rate, not
    counted as a win), the same orders for every candidate. Defaults per size in
    :data:`HINT_SETTINGS`: double-12 4 samples of 150 nodes (at most 400 nodes per sample
    shared by the live candidates; all candidates get 2 samples, the best 2 the rest),
    double-9 4 samples of 200 nodes (600 per sample, screen 2, keep 2), double-6 10 samples of
    400 nodes (screen 3, keep 2).

    ``win_chance`` is the calibrated chance (``engine.calibration``, table
    ``big-clock/double-N``) of the best action's raw rate, or None where that tenth of raw
    rates is not calibrated (the explanation then says how the search went and that no chance
    is shown); exact (1.0 / 0.0) once at most one stock tile is left. ``Hint.search`` holds the
    raw counts. Only the actions of :func:`_candidates` are ranked; when there is only one, it
    is returned at once with ``win_chance=None`` (nothing to choose). A position given without
    its drawn tile (``state.drawn_known`` False) gets no advice: ``Hint(None)`` whose
    explanation asks for the drawn tile.
    """
    if not state.drawn_known and not state.is_terminal():
        return Hint(
            None,
            [],
            "win_rate",
            None,
            "Which tile did you draw? The hint is about the drawn tile, so it needs it: "
            "type it (or photograph it) and ask again.",
            0.0,
        )
    cands = _candidates(state)
    if len(cands) == 1:
        return Hint(
            cands[0],
            [(cands[0], float("nan"))],
            "win_rate",
            None,
            f"{state.action_to_string(cands[0])}: the only sensible move",
            0.0,
        )
    d_samples, d_limit, screen, keep, budget = HINT_SETTINGS[state.game.max_pip]
    samples = d_samples if samples is None else samples
    node_limit = d_limit if node_limit is None else node_limit
    return determinized_hint(
        state,
        evaluate=_evaluate,
        samples=samples,
        seed=seed,
        node_limit=node_limit,
        actions=cands,
        screen_samples=screen,
        keep=keep,
        sample_node_budget=budget,
        perfect_information=len(state._stock) <= 1,
        calibration_key=f"big-clock/double-{state.game.max_pip}",
        settings=repr((samples, node_limit, screen, keep, budget)),
    )
