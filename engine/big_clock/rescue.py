"""Rescues in The Big Clock: move sequences, made while a double is in trouble, that bring a
double home (RULES.md section 2; the rescue rule is in docs/big-clock.md).
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from .rules import Piles, _accepts, _matches_none, _Tables, _tables

#: Rescue search limits (moves deep, clock layouts visited) for the greedy rule and the solver.
RESCUE_DEPTH = 3
RESCUE_LAYOUTS = 400


@lru_cache(maxsize=50_000)
def _rescue_search(
    max_pip: int, piles: Piles, drawn_double: int, max_depth: int, rescuing: bool = False
) -> tuple:
    """Move sequences that bring a double home, shortest first, and what they depend on.

    Returns ``(rescues, dep)``: ``rescues`` is ``((moves, layout), ...)`` and ``dep[k]`` (per slot,
    index 0 unused) the number of tiles from the top of pile ``k`` that the search looked at
    (1 + the most moves off that pile along any explored sequence; see :class:`_Search`).

    Breadth-first over top-tile moves made while a double is in trouble, at most ``max_depth``
    moves and :data:`RESCUE_LAYOUTS` layouts. A goal layout has one more double home than
    ``piles`` (a wrong-slot double moved home) or lets ``drawn_double`` (-1: none) go home when
    it could not go home in ``piles``. The search stops at goal layouts (no moves after a rescue
    within the same sequence). Moves continue from any layout while a double is in trouble, and
    from every layout once the drawn double was in trouble (``rescuing``, or it matches no top
    in ``piles``): the seed's "continue making as many such moves as necessary" (a rescue of the
    drawn double goes on until it can go home, docs/big-clock.md).
    """
    tab = _tables(max_pip)
    dof, dbl, share, lo, hi = tab.double_of, tab.dbl, tab.share, tab.lo, tab.hi
    slots = tab.slots
    n = nd = lo[drawn_double] if drawn_double >= 0 else 0
    rescuing = rescuing or (nd > 0 and _matches_none(tab, piles, drawn_double))
    if n and (not piles[n] or _accepts(tab, piles, n, drawn_double)):
        n = 0  # the drawn double can already go home: only another double home is progress
    dep = [1] * (max_pip + 1)
    dep[0] = 0
    if not _rescue_possible(tab, piles, n, max_depth, dep):
        return (), tuple(dep)
    seen = {piles}
    queue = deque([(piles, ())])
    out = []
    while queue and len(seen) < RESCUE_LAYOUTS:
        layout, path = queue.popleft()
        offs = [0] * (max_pip + 1)
        for src, _ in path:
            offs[src] += 1
        if path:
            if n and 1 + offs[n] > dep[n]:
                dep[n] = 1 + offs[n]  # the goal test reads slot n's top
            j = path[-1][1]
            if layout[j][-1] == dof[j]:
                out.append((path, layout))  # a double moved home
                continue
            if n:
                p = layout[n]
                if not p or (not dbl[p[-1]] and (lo[p[-1]] == n or hi[p[-1]] == n)):
                    out.append((path, layout))  # the drawn double can go home now
                    continue
        if len(path) >= max_depth:
            continue
        for i in slots:  # the trouble test and the moves read every top of this layout
            if 1 + offs[i] > dep[i]:
                dep[i] = 1 + offs[i]
        tops = [p[-1] if p else -1 for p in layout]
        trouble = False
        shows_n = False
        for k in slots:
            c = tops[k]
            if c >= 0 and dbl[c]:
                if c != dof[k]:
                    trouble = True
                    break
            elif c >= 0 and nd and (lo[c] == nd or hi[c] == nd):
                shows_n = True
        if not rescuing and not trouble and not (nd and not shows_n and layout[nd]):
            continue
        last = len(path) + 1 == max_depth
        for i in slots:
            m = tops[i]
            if m < 0 or m == dof[i]:
                continue
            sm = share[m]
            m_n = n and (lo[m] == n or hi[m] == n)
            for j in slots:
                c = tops[j]
                if j == i or (c < 0 and m != dof[j]) or (c >= 0 and (dbl[c] or not sm[c])):
                    continue
                if last and m != dof[j] and i != n and not (j == n and m_n):
                    continue  # a last move that cannot reach a goal
                lst = list(layout)
                lst[j] = lst[j] + (m,)
                lst[i] = lst[i][:-1]
                nxt = tuple(lst)
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, path + ((i, j),)))
    return tuple(out), tuple(dep)


def _rescue_possible(tab: _Tables, piles: Piles, n: int, max_depth: int, dep: list) -> bool:
    """A necessary condition for a rescue within ``max_depth`` moves (so False proves there is
    none). A goal is slot ``g`` showing ``g`` (or blank) for a double g-g in trouble: the drawn
    double (``n``, 0: none) with ``max_depth`` moves, a wrong-slot double with one move fewer
    (it must still move home). Every move lifts one top tile, so within ``b`` moves slot ``g``
    can only show ``g`` when a tile with ``g`` lies within the top ``b + 1`` tiles of pile
    ``g``, or pile ``g`` has at most ``b`` tiles, or a tile with ``g`` lies within the top ``b``
    tiles of another open pile. Raises ``dep[k]`` to the pile depths read."""
    dof, dbl, lo, hi = tab.double_of, tab.dbl, tab.lo, tab.hi
    goals = {n: max_depth} if n else {}
    for k in tab.slots:
        p = piles[k]
        if p and dbl[p[-1]] and p[-1] != dof[k]:
            g = lo[p[-1]]
            goals[g] = max(goals.get(g, 0), max_depth - 1)
    if not goals:
        return False
    need = {}
    for g, b in goals.items():
        if len(piles[g]) <= b:
            return True
        need[g] = b
    reach = max(need.values()) + 1
    for k in tab.slots:
        p = piles[k]
        if not p or p[-1] == dof[k]:
            continue
        look = min(reach, len(p))
        if look > dep[k]:
            dep[k] = look
        for d in range(1, look + 1):
            t = p[-d]
            if dbl[t]:
                continue  # a double on top: it cannot make its slot show its number
            for g in (lo[t], hi[t]):
                b = need.get(g)
                if b is not None and d <= (b + 1 if k == g else b):
                    return True
    return False


def _rescues(
    max_pip: int, piles: Piles, drawn_double: int, max_depth: int, rescuing: bool = False
) -> tuple:
    """The rescue sequences of :func:`_rescue_search`: ``((moves, layout), ...)``, shortest
    first."""
    return _rescue_search(max_pip, piles, drawn_double, max_depth, rescuing)[0]
