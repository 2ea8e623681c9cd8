"""The Big Clock hint: a race of the candidate actions over sampled stock orders, each judged
by the perfect-information solver of :mod:`engine.big_clock.search` (docs/big-clock.md,
"Hint")."""

from __future__ import annotations

import math
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable
from typing import NamedTuple

from ..calibration import quote
from ..game import Hint
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
from .search import evaluate_counted


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


class HintSettings(NamedTuple):
    """How much the hint searches (``engine.big_clock.hints.hint``).

    Attributes:
        samples: most sampled stock orders.
        min_samples: samples every live candidate gets before one may be dropped, or the race
            stopped because no two candidates differed.
        node_limit: solver nodes per search (one candidate on one sampled order).
        node_budget: solver nodes per hint call, all searches together: the time limit (a
            node costs more on the larger sets; the per-size budgets of :data:`HINT_SETTINGS`
            keep a call under 1 s CPU at the 95th percentile, docs/big-clock.md).
    """

    samples: int
    min_samples: int
    node_limit: int
    node_budget: int


#: Hint defaults per size (max_pip -> :class:`HintSettings`), sized for 1 s p95 per hint call on
#: one core of the 2-core server (timings and the reference in docs/big-clock.md). Double-6
#: searches stop at 300 nodes: a win the solver does not find within them counts as not won,
#: and that won more deals than 2,000 nodes per search, paired on the same deals
#: (docs/big-clock.md, "Nodes per search").
HINT_SETTINGS = {
    12: HintSettings(samples=48, min_samples=6, node_limit=1500, node_budget=12_000),
    9: HintSettings(samples=48, min_samples=6, node_limit=1500, node_budget=14_000),
    6: HintSettings(samples=64, min_samples=8, node_limit=300, node_budget=35_000),
}

#: The hint's behaviour beyond :data:`HINT_SETTINGS`: raised whenever a change to the race, the
#: candidates or the solver makes the same settings choose differently, so the benchmark
#: (``scripts/bench_solitaires.py``) stops reusing results played by the former code.
HINT_VERSION = 1

#: Fewest nodes a search is given when the budget left is shared by many live candidates.
MIN_NODE_LIMIT = 100


def _beats(a: list, b: list) -> tuple[int, int]:
    """Paired counts over the samples both candidates saw: (a won and b did not, the reverse);
    an unfinished search (None) counts as not won."""
    x = y = 0
    for ra, rb in zip(a, b):
        if ra is True and rb is not True:
            x += 1
        elif rb is True and ra is not True:
            y += 1
    return x, y


def clearly_better(x: int, y: int) -> bool:
    """Is a candidate that won ``x`` paired samples its rival lost, and lost ``y`` its rival
    won, clearly the better one? A sign test in its normal form: ``x - y >= 2 + sqrt(x + y)``
    (4 to 0, 6 to 1, 10 to 3, ...)."""
    return x - y >= 2 + math.sqrt(x + y)


class _Pool:
    """The sampled stock orders of one draw and the solver's proven results on each:
    ``orders[k] = (order, memo)``; order ``k`` is the ``k``-th draw of ``rng`` (seeded by the
    first hint call of the draw), so it does not depend on which call asked for it first."""

    def __init__(self, seed: int | None):
        self.rng = random.Random(seed)
        self.orders: list[tuple[tuple[int, ...], dict]] = []


#: The sample pools of the recent draws: (size, drawn tile, unseen tiles in no order) ->
#: :class:`_Pool`. The hint calls of one draw (the moves of a rescue reveal nothing) search the
#: same orders and reuse each other's proofs; a memo holds for any clock with that stock order.
_SAMPLES: OrderedDict[Hashable, _Pool] = OrderedDict()
#: Draws whose samples are kept (oldest forgotten first).
SAMPLE_CACHE_SIZE = 2
_SAMPLES_LOCK = threading.Lock()


def _draw_key(state: BigClockState) -> Hashable:
    """What fixes the stock orders a hint may sample: the size, the drawn tile and the unseen
    tiles."""
    return (state._tab.n, state._drawn, tuple(sorted(state._stock)))


def race(
    state: BigClockState,
    cands: list[BigClockAction],
    settings: HintSettings,
    seed: int | None,
) -> tuple[list[list], int]:
    """Judge ``cands`` on sampled stock orders: ``(outcomes, nodes)`` where ``outcomes[i]`` holds
    candidate ``i``'s answer (True / False / None: search unfinished) on every sample it saw
    and ``nodes`` the solver nodes spent.

    Every live candidate is searched on the same sampled orders (paired samples, one memo per
    order). After ``settings.min_samples`` samples the race drops a candidate the leader is
    :func:`clearly_better` than on their paired samples, and stops when one candidate is left,
    or when no two live candidates gave a different answer on any sample so far (the choice
    does not matter to the search: the candidate order, greedy's choice first, decides), or
    when ``settings.node_budget`` is spent. With at most one stock tile left nothing is hidden:
    one sample is exact. The sampled orders and the proofs found on them are kept for the next
    calls of the same draw (:data:`_SAMPLES`): sample ``k`` of every call of one draw is the
    same order, the ``k``-th drawn with the ``seed`` of the first call (several server threads
    asking at once add each order once, under :data:`_SAMPLES_LOCK`).
    """
    outcomes: list[list] = [[] for _ in cands]
    live = list(range(len(cands)))
    n = 1 if len(state._stock) <= 1 else settings.samples
    spent = 0
    key = _draw_key(state)
    with _SAMPLES_LOCK:  # hint calls may come from several server threads
        pool = _SAMPLES.get(key)
        if pool is None:
            pool = _SAMPLES[key] = _Pool(seed)
            while len(_SAMPLES) > SAMPLE_CACHE_SIZE:
                _SAMPLES.popitem(last=False)
    for k in range(n):
        left = settings.node_budget - spent
        if left <= 0:
            break
        with _SAMPLES_LOCK:
            if k == len(pool.orders):
                order = state.determinize(random.Random(pool.rng.getrandbits(64)))._stock
                pool.orders.append((tuple(order), {}))
            sample, memo = pool.orders[k]
        det = state.clone()
        det._stock = list(sample)
        limit = min(settings.node_limit, max(MIN_NODE_LIMIT, left // len(live)))
        found, used = evaluate_counted(det, [cands[i] for i in live], limit, memo)
        spent += used
        for i, r in zip(live, found):
            outcomes[i].append(r)
        if k + 1 < settings.min_samples or len(live) == 1:
            continue
        # a live candidate was live from the first sample: its outcomes pair with the others'
        if all(outcomes[i] == outcomes[live[0]] for i in live):
            break
        lead = min(live, key=lambda i: (-_score(outcomes[i]), i))
        live = [
            i for i in live if i == lead or not clearly_better(*_beats(outcomes[lead], outcomes[i]))
        ]
        if len(live) == 1:
            break
    return outcomes, spent


def ranked(outcomes: list[list]) -> list[int]:
    """Candidate indices of a :func:`race`'s ``outcomes``, best first: those that raced
    longer (more samples) first, then by :func:`_score`, then in candidate order."""
    return sorted(range(len(outcomes)), key=lambda i: (-len(outcomes[i]), -_score(outcomes[i]), i))


def _score(results: list) -> float:
    """Ranking score of a candidate: ``(wins + 0.5) / (finished + 1)`` (an unfinished search is
    no win; a candidate whose searches never finished sits at one half)."""
    done = [r for r in results if r is not None]
    return (sum(r is True for r in done) + 0.5) / (len(done) + 1)


def hint(
    state: BigClockState,
    samples: int | None = None,
    seed: int | None = 0,
    node_limit: int | None = None,
    settings: HintSettings | None = None,
) -> Hint:
    """The best action by a race over sampled stock orders (:func:`race`): each candidate of
    :func:`_candidates` is searched with the perfect-information solver on the same sampled
    orders (an unfinished search is left out of the rate, never a win); candidates clearly
    worse than the leader drop out, and the race stops where the choice does not matter.
    ``settings`` (default :data:`HINT_SETTINGS` of the size) sets the search; ``samples`` and
    ``node_limit`` override its most samples and nodes per search.

    Returns a :class:`engine.game.Hint`: ``ranking`` ``[(action, raw rate)]`` best first (the
    raw rate: wins over finished searches, nan when none finished; candidates that raced
    longer first), ``win_chance`` the calibrated chance (``engine.calibration``, table
    ``big-clock/double-N``, measured with these settings) of the best action's raw rate, or
    None where that tenth of raw rates is not calibrated (the explanation then says how the
    search went and that no chance is shown); exact (1.0 / 0.0) once at most one stock tile is
    left. ``Hint.search`` holds the raw counts ``{"won", "finished", "unknown", "raw",
    "nodes"}``. When :func:`_candidates` has only one action it is returned at once with
    ``win_chance=None`` (nothing to choose). A position given without its drawn tile
    (``state.drawn_known`` False) gets no advice: ``Hint(None)`` whose explanation asks for the
    drawn tile. A terminal state: ``Hint(None, win_chance=1.0 or 0.0)``.
    """
    t0 = time.perf_counter()
    if state.is_terminal():
        won = state.returns()[0]
        return Hint(None, [], "win_rate", won, "the game is over: " + ("won" if won else "lost"))
    if not state.drawn_known:
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
    cfg = settings or HINT_SETTINGS[state._tab.n]
    if samples is not None:
        cfg = cfg._replace(samples=samples, min_samples=min(cfg.min_samples, samples))
    if node_limit is not None:
        cfg = cfg._replace(node_limit=node_limit)
    if samples is not None or node_limit is not None:
        cfg = cfg._replace(node_budget=max(cfg.node_budget, cfg.samples * cfg.node_limit))
    outcomes, nodes = race(state, cands, cfg, seed)
    order = ranked(outcomes)
    ranking: list[tuple[Hashable, float]] = []
    for i in order:
        done = [r for r in outcomes[i] if r is not None]
        ranking.append((cands[i], sum(done) / len(done) if done else float("nan")))
    b = order[0]
    best = cands[b]
    finished = [r for r in outcomes[b] if r is not None]
    won = sum(finished)
    unknown = len(outcomes[b]) - len(finished)
    raw = won / len(finished) if finished else None
    chance, why = quote(
        f"big-clock/double-{state._tab.n}",
        won,
        len(finished),
        len(outcomes[b]),
        repr(tuple(cfg)),
        exact=len(state._stock) <= 1,
    )
    return Hint(
        best,
        ranking,
        "win_rate",
        chance,
        f"{state.action_to_string(best)}: {why}",
        (time.perf_counter() - t0) * 1000,
        plan=[best],
        search={
            "won": won,
            "finished": len(finished),
            "unknown": unknown,
            "raw": raw,
            "nodes": nodes,
        },
    )
