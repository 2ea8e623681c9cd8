"""The Big Clock's perfect-information solver (the stock order known): :func:`solve`,
:func:`solve_line` and the evaluator of the hint. The solver memoises proven results on the pile
tops (and the deeper tiles a result depended on) and the stock position (:class:`_Search`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..solitaire import NodeBudget, SearchLimit
from .game import BigClockState
from .rescue import RESCUE_DEPTH, RESCUE_LAYOUTS, _rescue_search
from .rules import (
    MAX_MOVES_PER_DRAW,
    BigClockAction,
    Move,
    Piles,
    Place,
    SetAside,
    _all_home,
    _drawn_in_trouble,
    _in_trouble,
    _move,
    _place_targets,
    _put,
    _Tables,
)


def _path_depth(path: tuple, dep: tuple) -> list:
    """Pile depths a result reached through the moves ``path`` depends on: the result looked at
    ``dep[k]`` tiles of the moved layout's pile ``k``, i.e. at most ``dep[k]`` plus the number
    of moves off ``k`` in the parent's pile."""
    out = list(dep)
    for src, _ in path:
        out[src] += 1
    return out


class _Search:
    """Perfect-information search over one known stock order.

    ``stock[pos]`` is the drawn tile; ``episode(piles, pos, used)`` returns ``(win, dep)``:
    whether the game can still be won with ``used`` moves already spent on that tile, and for
    every pile ``k`` how many tiles from its top the answer depends on (``dep[k] >= 1``: the top
    or the blank; deeper tiles only matter through rescue moves). Any clock whose piles agree
    with this one on those top tiles (same pile length where the pile is shorter than
    ``dep[k]``) has the same answer at the same stock position, so the memo is a table
    ``(tops, pos) -> [(dep, top tiles, win), ...]`` (episode starts, ``used == 0``), which finds
    transpositions: the same tops reached by placing covered tiles elsewhere.

    Raises SearchLimit when the budget is spent.
    """

    def __init__(self, tab: _Tables, stock: tuple[int, ...], memo: dict, budget: NodeBudget):
        self.tab, self.stock, self.memo, self.budget = tab, stock, memo, budget
        self.base = (0,) + (1,) * tab.n
        self.rng: random.Random | None = None  # set: random noise in the search order
        # when[k]: stock position of the double k-k (len(stock) + 1 when it is not in the stock)
        self.when = [len(stock) + 1] * (tab.n + 1)
        for i, t in enumerate(stock):
            if tab.dbl[t] and t != tab.double_of[0]:
                self.when[tab.lo[t]] = i

    def order(self, piles: Piles, pos: int, t: int) -> list[int]:
        """Placement targets for tile ``t``, most promising first (only the search order; every
        target is searched): home first; else the place that best keeps, for the doubles still
        to come (weighted by how soon each is drawn), their own slot showing their number
        (weight 2) and some open top showing it (weight 1)."""
        tab = self.tab
        targets = _place_targets(tab, piles, t)
        if len(targets) < 2:
            return targets
        lo, hi, dbl = tab.lo, tab.hi, tab.dbl
        if dbl[t]:
            n = lo[t]
            return sorted(targets, key=lambda k: (k != n, not piles[k], k))
        when = self.when
        weight = [0.0] * (tab.n + 1)
        for m in range(1, tab.n + 1):
            if when[m] >= pos and when[m] < len(self.stock):
                weight[m] = 1.0 + 16.0 / (1 + when[m] - pos)
        shown = [0] * (tab.n + 1)  # open non-double tops showing m
        for k in tab.slots:
            p = piles[k]
            if p and not dbl[p[-1]]:
                shown[lo[p[-1]]] += 1
                shown[hi[p[-1]]] += 1

        def score(k: int) -> float:
            p = piles[k]
            v = 0.0
            if lo[t] == k or hi[t] == k:
                v += 2 * weight[k]
            for m in (lo[t], hi[t]):
                if shown[m] == 0:
                    v += weight[m]
            if p:
                c = p[-1]
                if lo[c] == k or hi[c] == k:
                    v -= 2 * weight[k]
                for m in {lo[c], hi[c]}:
                    if shown[m] == 1 and lo[t] != m and hi[t] != m:
                        v -= weight[m]
            return v

        if self.rng is not None:
            noise = self.rng.random
            return sorted(targets, key=lambda k: score(k) + 6.0 * noise(), reverse=True)
        return sorted(targets, key=score, reverse=True)

    @staticmethod
    def _key(piles: Piles, pos: int) -> tuple:
        """The memo key: the top tile of every pile (empty for a blank slot) and ``pos``."""
        return tuple([p[-1:] for p in piles]), pos

    def lookup(self, piles: Piles, pos: int):
        """The memoised ``(win, dep)`` for this clock at ``pos``, or None."""
        entries = self.memo.get(self._key(piles, pos))
        if entries:
            for dep, cut, win in entries:
                for d, p, c in zip(dep, piles, cut):
                    if d > 1 and p[-d:] != c:
                        break
                else:
                    return win, dep
        return None

    def store(self, piles: Piles, pos: int, win: bool, dep: tuple) -> None:
        key = self._key(piles, pos)
        cut = tuple([p[-d:] if d > 1 else () for d, p in zip(dep, piles)])
        self.memo.setdefault(key, []).append((dep, cut, win))

    def episode(self, piles: Piles, pos: int, used: int = 0, rescuing: bool = False) -> tuple:
        tab, stock = self.tab, self.stock
        if _all_home(tab, piles):
            return True, self.base
        if pos >= len(stock):
            return False, self.base
        if used == 0:
            found = self.lookup(piles, pos)
            if found is not None:
                return found
        self.budget.spend()
        drawn = stock[pos]
        targets = self.order(piles, pos, drawn)
        dep = list(self.base)
        win = False
        for k in targets:
            w, d = self.episode(_put(piles, k, drawn), pos + 1)
            if w:
                dep = list(d)
                dep[k] = max(1, d[k] - 1)
                win = True
                break
            old = dep[k]
            dep = list(map(max, dep, d))
            dep[k] = max(old, d[k] - 1)
        if not targets and not tab.dbl[drawn]:
            w, d = self.episode(piles, pos + 1)
            if w:
                dep, win = list(d), True
            else:
                dep = list(map(max, dep, d))
        if not win and used < MAX_MOVES_PER_DRAW and (rescuing or _in_trouble(tab, piles, drawn)):
            dd = drawn if tab.dbl[drawn] else -1
            rescuing = rescuing or _drawn_in_trouble(tab, piles, drawn)
            found, bfs = _rescue_search(
                tab.n, piles, dd, min(RESCUE_DEPTH, MAX_MOVES_PER_DRAW - used), rescuing
            )
            dep = list(map(max, dep, bfs))
            for path, layout in found:
                w, d = self.episode(layout, pos, used + len(path), rescuing)
                pd = _path_depth(path, d)
                if w:
                    dep = list(map(max, bfs, pd))
                    dep[0] = 0
                    win = True
                    break
                dep = list(map(max, dep, pd))
        dep[0] = 0
        result = tuple(dep)
        if used == 0:
            self.store(piles, pos, win, result)
        return win, result


def _search_for(state: BigClockState, memo: dict, node_limit: int) -> _Search:
    stock = ((state._drawn,) if state._drawn >= 0 else ()) + tuple(state._stock)
    return _Search(state._tab, stock, memo, NodeBudget(node_limit))


#: Restart schedule of :func:`solve`: the first search gets this many nodes, each restart
#: (with a randomly perturbed search order, keeping the memo of proven results) twice as many.
FIRST_RESTART_NODES = 1_000

#: What the solver's answers depend on besides the deal and the node limit (the benchmark
#: reuses stored results only while this is unchanged).
SOLVER_SETTINGS = {
    "version": 4,
    "rescue_depth": RESCUE_DEPTH,
    "rescue_layouts": RESCUE_LAYOUTS,
    "first_restart_nodes": FIRST_RESTART_NODES,
}


def _solve_restarts(
    search: _Search, piles: Piles, used: int, node_limit: int, rescuing: bool = False
) -> bool | None:
    """Run ``search`` from ``piles`` (stock position 0) with restarts; None when
    ``node_limit`` nodes in all were spent first. Every run is a complete depth-first search
    but for its node cap, and proven results stay in the shared memo, so each restart starts
    where the previous ones' proofs end."""
    left, cap, attempt = node_limit, FIRST_RESTART_NODES, 0
    while left > 0:
        this = min(cap, left) if left - cap >= cap else left
        search.budget = NodeBudget(this)
        search.rng = random.Random(attempt) if attempt else None
        try:
            return search.episode(piles, 0, used, rescuing)[0]
        except SearchLimit:
            pass
        left -= this
        cap *= 2
        attempt += 1
    return None


def solve(state: BigClockState, node_limit: int = 100_000) -> bool | None:
    """Can ``state`` still be won, knowing the stock order? None when ``node_limit`` search nodes
    (positions expanded) were used up first.

    Exact over placements; moves are searched only as *rescues* (see :func:`_rescue_search`: at
    most :data:`RESCUE_DEPTH` moves ending with a double home), so True is always right while
    False means "no win with rescue-only moves" -- the solver is a lower bound on the true
    ceiling. Depth-first search with a memo of proven results on the pile tops (see
    :class:`_Search`) and restarts (:data:`FIRST_RESTART_NODES`) in a perturbed order.
    """
    if state.is_terminal():
        return state.is_won()
    search = _search_for(state, {}, node_limit)
    return _solve_restarts(search, state._piles, state.moves_used, node_limit, state.rescuing)


def solve_line(state: BigClockState, node_limit: int = 100_000) -> list[BigClockAction] | None:
    """A winning action list from ``state`` (stock order known), or None (lost or limit hit).

    ``node_limit`` applies to each of the solver calls made along the line.
    """
    s = state.clone()
    line: list[BigClockAction] = []
    if solve(s, node_limit) is not True:
        return None
    while not s.is_terminal():
        for a in sorted(s.legal_actions(), key=lambda a: isinstance(a, Move)):
            child = s.clone()
            child.apply_action(a)
            if solve(child, node_limit) is True:
                break
        else:
            return None
        line.append(a)
        s = child
    return line if s.is_won() else None


def evaluate_counted(
    det: BigClockState,
    actions: Sequence[BigClockAction],
    node_limit: int,
    memo: dict | None = None,
) -> tuple[list[bool | None], int]:
    """For each action: does it still win in the determinized state ``det`` (stock order
    known)? True / False, or None when the search hit ``node_limit`` nodes. The searches share
    one memo (a result proven for one action serves the others): ``memo``, or a fresh one;
    a memo holds proven results for one stock order (``det``'s drawn tile and stock) and may
    be passed again for any state with that same order. Returns the answers and the search
    nodes spent in all."""
    memo = {} if memo is None else memo
    tab, piles, drawn = det._tab, det._piles, det._drawn
    out: list[bool | None] = []
    spent = 0
    for a in actions:
        search = _search_for(det, memo, node_limit)
        try:
            if isinstance(a, Place):
                out.append(search.episode(_put(piles, a.slot, drawn), 1)[0])
            elif isinstance(a, SetAside):
                out.append(search.episode(piles, 1)[0])
            elif isinstance(a, Move):
                rescuing = det.rescuing or _drawn_in_trouble(tab, piles, drawn)
                out.append(
                    search.episode(_move(piles, a.src, a.dst), 0, det.moves_used + 1, rescuing)[0]
                )
            else:
                out.append(False)
        except SearchLimit:
            out.append(None)
        spent += min(search.budget.used, node_limit)
    return out, spent
