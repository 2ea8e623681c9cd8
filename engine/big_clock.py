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

Internally tiles are indices into ``DominoSet(max_pip).tiles`` and the clock is a tuple of
``N + 1`` piles (index 0 unused), each a tuple of tile indices bottom to top; the solver memoises
proven results on the pile tops (and the deeper tiles a result depended on) and the stock
position (:class:`_Search`).

Module interface: see ``engine/solitaire.py``.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from .game import TERMINAL, Game, Hint, State
from .solitaire import NodeBudget, SearchLimit, clone_rng, determinized_hint, random_legal_action
from .tiles import DominoSet, Tile

#: House limit on tile moves between two draws (the seed sets none; see docs/big-clock.md).
MAX_MOVES_PER_DRAW = 30

GAME_SIZES = [
    ("double-12", {"max_pip": 12}),
    ("double-9", {"max_pip": 9}),
    ("double-6", {"max_pip": 6}),
]

Piles = tuple  # tuple[tuple[int, ...], ...] of length N + 1; index 0 unused


# --- actions ----------------------------------------------------------------------------------


@dataclass(frozen=True, order=True)
class Place:
    """Put the drawn tile on the pile of ``slot`` (1..N): on a matching top, home, or a blank."""

    slot: int


@dataclass(frozen=True, order=True)
class Move:
    """Move the top tile of the pile at ``src`` onto the pile at ``dst`` (only while a double is
    in trouble)."""

    src: int
    dst: int


@dataclass(frozen=True, order=True)
class SetAside:
    """Set the drawn non-double aside for good (only when it fits nowhere)."""


@dataclass(frozen=True, order=True)
class GiveUp:
    """Stop moving: the drawn double cannot come home, so the game is lost."""


BigClockAction = Place | Move | SetAside | GiveUp
SET_ASIDE = SetAside()
GIVE_UP = GiveUp()


# --- fast internals on tile indices ---------------------------------------------------------


class _Tables:
    """Per-size lookup tables on tile indices."""

    def __init__(self, max_pip: int):
        ds = DominoSet(max_pip)
        self.n = max_pip
        self.ds = ds
        self.tiles = ds.tiles
        self.lo = [t.low for t in ds.tiles]
        self.hi = [t.high for t in ds.tiles]
        self.dbl = [t.is_double for t in ds.tiles]
        self.share = [[a.shares_number(b) for b in ds.tiles] for a in ds.tiles]
        self.double_of = [ds.index(Tile(k, k)) for k in range(max_pip + 1)]
        self.slots = tuple(range(1, max_pip + 1))
        self.deal_order = (12,) + tuple(range(1, 12)) if max_pip == 12 else self.slots

    def has(self, t: int, k: int) -> bool:
        return self.lo[t] == k or self.hi[t] == k


@cache
def _tables(max_pip: int) -> _Tables:
    return _Tables(max_pip)


def _is_home(tab: _Tables, piles: Piles, k: int) -> bool:
    p = piles[k]
    return bool(p) and p[-1] == tab.double_of[k]


def _all_home(tab: _Tables, piles: Piles) -> bool:
    dof = tab.double_of
    for k in tab.slots:
        p = piles[k]
        if not p or p[-1] != dof[k]:
            return False
    return True


def _accepts(tab: _Tables, piles: Piles, k: int, t: int) -> bool:
    """May tile ``t`` go on pile ``k`` by the matching rule (blank: only its own double)?"""
    p = piles[k]
    if not p:
        return t == tab.double_of[k]
    top = p[-1]
    return not tab.dbl[top] and tab.share[top][t]


def _in_trouble(tab: _Tables, piles: Piles, drawn: int) -> bool:
    """Is there a double in trouble: on top of a wrong slot, or drawn with no match anywhere?"""
    dbl, dof = tab.dbl, tab.double_of
    for k in tab.slots:
        p = piles[k]
        if p and dbl[p[-1]] and p[-1] != dof[k]:
            return True
    return drawn >= 0 and dbl[drawn] and _matches_none(tab, piles, drawn)


def _matches_none(tab: _Tables, piles: Piles, drawn: int) -> bool:
    """The drawn double n-n matches no top tile: slot n is not blank and no open pile's top
    (a non-double) shows n."""
    if not piles[tab.lo[drawn]]:
        return False
    dbl, share = tab.dbl, tab.share
    for k in tab.slots:
        p = piles[k]
        if p and not dbl[p[-1]] and share[p[-1]][drawn]:
            return False
    return True


def _drawn_in_trouble(tab: _Tables, piles: Piles, drawn: int) -> bool:
    """Is the drawn tile a double that matches no top tile (a rescue for it may begin)?"""
    return drawn >= 0 and tab.dbl[drawn] and _matches_none(tab, piles, drawn)


def _place_targets(tab: _Tables, piles: Piles, drawn: int) -> list[int]:
    """Slots where the drawn tile may be placed now (RULES.md 2 and the blank-slot rule)."""
    blanks = [k for k in tab.slots if not piles[k]]
    if blanks:
        if tab.dbl[drawn]:
            n = tab.lo[drawn]
            if not piles[n]:
                return [n]
            if _accepts(tab, piles, n, drawn):
                return sorted(blanks + [n])
        return blanks
    return [k for k in tab.slots if _accepts(tab, piles, k, drawn)]


def _moves(tab: _Tables, piles: Piles) -> list[tuple[int, int]]:
    """Every (src, dst) top-tile move by the matching rule (ignores the trouble condition)."""
    out = []
    dof = tab.double_of
    for i in tab.slots:
        p = piles[i]
        if not p or p[-1] == dof[i]:
            continue
        m = p[-1]
        for j in tab.slots:
            if j != i and _accepts(tab, piles, j, m):
                out.append((i, j))
    return out


def _put(piles: Piles, k: int, t: int) -> Piles:
    return piles[:k] + (piles[k] + (t,),) + piles[k + 1 :]


def _move(piles: Piles, i: int, j: int) -> Piles:
    lst = list(piles)
    lst[j] = lst[j] + (lst[i][-1],)
    lst[i] = lst[i][:-1]
    return tuple(lst)


def _place_score(tab: _Tables, piles: Piles, k: int, t: int) -> int:
    """Preference of putting tile ``t`` on slot ``k`` (higher first): home beats all; keep each
    slot showing its own number (the seed's 6-10 on 4-6 at 10 o'clock)."""
    if tab.dbl[t] and tab.lo[t] == k:
        return 100
    p = piles[k]
    score = 2 * tab.has(t, k)
    if p:
        score -= 2 * tab.has(p[-1], k)
    if tab.dbl[t]:
        score -= 1
    return score


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

    def lookup(self, piles: Piles, pos: int):
        """The memoised ``(win, dep)`` for this clock at ``pos``, or None."""
        entries = self.memo.get((tuple(p[-1:] for p in piles), pos))
        if entries:
            for dep, cut, win in entries:
                for d, p, c in zip(dep, piles, cut):
                    if d > 1 and p[-d:] != c:
                        break
                else:
                    return win, dep
        return None

    def store(self, piles: Piles, pos: int, win: bool, dep: tuple) -> None:
        key = (tuple(p[-1:] for p in piles), pos)
        cut = tuple(p[-d:] if d > 1 else () for d, p in zip(dep, piles))
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
            for j, dj in enumerate(d):
                if j == k:
                    dj -= 1
                if dj > dep[j]:
                    dep[j] = dj
        if not targets and not tab.dbl[drawn]:
            w, d = self.episode(piles, pos + 1)
            if w:
                dep, win = list(d), True
            else:
                dep = [max(a, b) for a, b in zip(dep, d)]
        if not win and used < MAX_MOVES_PER_DRAW and (rescuing or _in_trouble(tab, piles, drawn)):
            dd = drawn if tab.dbl[drawn] else -1
            rescuing = rescuing or _drawn_in_trouble(tab, piles, drawn)
            found, bfs = _rescue_search(
                tab.n, piles, dd, min(RESCUE_DEPTH, MAX_MOVES_PER_DRAW - used), rescuing
            )
            dep = [max(a, b) for a, b in zip(dep, bfs)]
            for path, layout in found:
                w, d = self.episode(layout, pos, used + len(path), rescuing)
                pd = _path_depth(path, d)
                if w:
                    dep = [max(a, b) for a, b in zip(bfs, pd)]
                    dep[0] = 0
                    win = True
                    break
                dep = [max(a, b) for a, b in zip(dep, pd)]
        dep[0] = 0
        dep = tuple(dep)
        if used == 0:
            self.store(piles, pos, win, dep)
        return win, dep


# --- the game -------------------------------------------------------------------------------

TileLike = Tile | str


def _as_tile(x: TileLike) -> Tile:
    if isinstance(x, Tile):
        return x
    if isinstance(x, str):
        return Tile.parse(x)
    raise ValueError(f"not a tile: {x!r} (give a Tile or text such as '3-5')")


class BigClockGame(Game):
    """The Big Clock on a double-``max_pip`` set (12: slots 12, 1..11; 9: slots 1..9;
    6: slots 1..6). 0-0 is out of play in the centre in every size.

    Raises:
        ValueError: ``max_pip`` is not 12, 9 or 6.
    """

    name = "big-clock"
    num_players = 1

    def __init__(self, max_pip: int | None = 12):
        max_pip = 12 if max_pip is None else max_pip
        if max_pip not in (12, 9, 6):
            raise ValueError(
                f"The Big Clock is played with double-12, double-9 or double-6, "
                f"not double-{max_pip}"
            )
        self.max_pip = max_pip
        self.domino_set = DominoSet(max_pip)
        self.slots = tuple(range(1, max_pip + 1))
        self.deal_order = _tables(max_pip).deal_order

    def new_initial_state(self, seed: int | None = None) -> BigClockState:
        """Take out 0-0, shuffle the rest with ``seed``, deal one tile per slot in deal order
        (double-12: slot 12 first, then 1..11), then draw the first tile."""
        return BigClockState(self, seed)

    def state_from_position(
        self,
        piles: Mapping[int, Sequence[TileLike] | TileLike | None],
        home: Iterable[int] | None = None,
        stock: Sequence[TileLike] | None = None,
        drawn: TileLike | None = None,
        set_aside: Sequence[TileLike] = (),
        seed: int | None = None,
        shuffle: bool = True,
    ) -> BigClockState:
        """A position seen on the table (e.g. rebuilt from a photo).

        Args:
            piles: every slot 1..N -> its pile bottom to top (a list of tiles), or only the top
                tile (a Tile; the tiles under it are then unknown and counted as unseen), or
                None / [] for a blank slot. Tiles may be given as text such as ``"3-5"``.
            home: slots the player reports as home (optional check: each must hold its own
                double on top; a double on its own slot is home anyway).
            stock: tiles still face down, any order (shuffled with ``seed``); None means every
                tile not seen elsewhere (0-0 excluded). With an explicit stock, tiles found
                nowhere are counted as set aside.
            drawn: the tile drawn and not yet placed. None: the drawn tile is unknown; a tile
                is drawn from the (seed-shuffled) stock so that the state is complete, but
                ``state.drawn_known`` is False and :func:`hint` gives no advice: the hint is
                about the drawn tile, so it needs it.
            set_aside: tiles set aside for good.
            seed: seed of the stock order and of later chance.
            shuffle: False keeps ``stock`` in the given order (next draw first), e.g. to
                replay a known order in tests.

        Raises:
            ValueError: a slot outside 1..N or missing, a tile outside the set or twice, 0-0 on
                the clock (it stays in the centre), a tile lying on a double (doubles are never
                covered) or on a tile it shares no number with, a home slot without its double.
        """
        n = self.max_pip
        ds = self.domino_set
        bad = [k for k in piles if not isinstance(k, int) or not 1 <= k <= n]
        if bad:
            raise ValueError(f"slot(s) {bad} out of range: double-{n} slots are 1..{n}")
        missing = [k for k in self.slots if k not in piles]
        if missing:
            raise ValueError(
                f"slot(s) {missing} missing: give every slot 1..{n} (None or [] for a blank slot)"
            )
        clock: dict[int, list[Tile]] = {}
        for k in self.slots:
            v = piles[k]
            if v is None:
                clock[k] = []
            elif isinstance(v, (Tile, str)):
                clock[k] = [_as_tile(v)]
            else:
                clock[k] = [_as_tile(x) for x in v]
        for k, pile in clock.items():
            for below, above in zip(pile, pile[1:]):
                if below.is_double:
                    raise ValueError(
                        f"slot {k}: {above} lies on the double {below}; "
                        "a double is never covered (RULES.md 2)"
                    )
                if not below.shares_number(above):
                    raise ValueError(
                        f"slot {k}: {above} lies on {below} but they share no number (RULES.md 2)"
                    )
        for k in home or ():
            if k not in clock:
                raise ValueError(f"home slot {k} out of range 1..{n}")
            if not clock[k] or clock[k][-1] != Tile(k, k):
                raise ValueError(
                    f"slot {k} is reported home but {Tile(k, k)} is not on top of its pile"
                )
        drawn_t = None if drawn is None else _as_tile(drawn)
        aside = [_as_tile(x) for x in set_aside]
        seen = [t for p in clock.values() for t in p] + aside + ([drawn_t] if drawn_t else [])
        if Tile(0, 0) in seen:
            raise ValueError("0-0 is out of play in the centre of the clock (RULES.md 2)")
        ds.check_tiles(seen)
        if stock is None:
            used = set(seen)
            stock_t = [t for t in ds.tiles if t != Tile(0, 0) and t not in used]
        else:
            stock_t = [_as_tile(x) for x in stock]
            if Tile(0, 0) in stock_t:
                raise ValueError("0-0 is out of play in the centre of the clock (RULES.md 2)")
            ds.check_tiles(seen + stock_t)
        state = BigClockState(self, seed, deal=False)
        if shuffle:
            state.rng.shuffle(stock_t)
        state._piles = tuple([()] + [tuple(ds.index(t) for t in clock[k]) for k in self.slots])
        state._stock = [ds.index(t) for t in stock_t]
        known = set(seen) | set(stock_t)
        aside += [t for t in ds.tiles if t != Tile(0, 0) and t not in known]
        state._set_aside = [ds.index(t) for t in aside]
        if drawn_t is not None:
            state._drawn = ds.index(drawn_t)
        elif not _all_home(state._tab, state._piles):
            state._draw()
            state.drawn_known = False
        return state

    def __repr__(self) -> str:
        return f"BigClockGame(max_pip={self.max_pip})"


class BigClockState(State):
    """A Big Clock position.

    Read it through :attr:`piles` (slot -> tiles bottom to top), :attr:`drawn`, :attr:`stock`
    (draw order, next first), :attr:`set_aside`, :meth:`home_slots`, :meth:`blank_slots`,
    :meth:`doubles_in_trouble`, :attr:`moves_used` (moves since the last draw),
    :attr:`rescuing` (True once a move was made while the drawn double matched no top tile:
    moves may then go on until the drawn tile is placed, even when a move made it match a wrong
    pile; docs/big-clock.md, choice 4), :attr:`drawn_known` (False when a position was given
    without its drawn tile: the one shown is a stand-in drawn from the stock, until it is
    placed).
    """

    def __init__(self, game: BigClockGame, seed: int | None, deal: bool = True):
        super().__init__(game, seed)
        self._tab = _tables(game.max_pip)
        self._piles: Piles = tuple(() for _ in range(game.max_pip + 1))
        self._stock: list[int] = []
        self._drawn = -1
        self._set_aside: list[int] = []
        self.moves_used = 0
        self.rescuing = False
        self.drawn_known = True
        self._gave_up = False
        self._legal: list | None = None
        if deal:
            ds = game.domino_set
            tiles = [t for t in ds.tiles if t != Tile(0, 0)]
            self.rng.shuffle(tiles)
            ids = [ds.index(t) for t in tiles]
            piles = [()] * (game.max_pip + 1)
            for slot, t in zip(game.deal_order, ids):
                piles[slot] = (t,)
            self._piles = tuple(piles)
            self._stock = ids[game.max_pip :]
            if not _all_home(self._tab, self._piles):
                self._draw()

    # --- readings ---
    @property
    def piles(self) -> dict[int, list[Tile]]:
        """Slot (1..N) -> its pile, bottom to top ([] for a blank slot)."""
        tiles = self._tab.tiles
        return {k: [tiles[t] for t in self._piles[k]] for k in self._tab.slots}

    @property
    def drawn(self) -> Tile | None:
        """The drawn tile waiting to be placed (None when the stock is exhausted)."""
        return None if self._drawn < 0 else self._tab.tiles[self._drawn]

    @property
    def stock(self) -> list[Tile]:
        """The face-down stock in draw order (next first)."""
        return [self._tab.tiles[t] for t in self._stock]

    @property
    def set_aside(self) -> list[Tile]:
        """Tiles set aside for good, in order."""
        return [self._tab.tiles[t] for t in self._set_aside]

    def top(self, slot: int) -> Tile | None:
        """Top tile of ``slot``'s pile (None for a blank slot)."""
        p = self._piles[slot]
        return self._tab.tiles[p[-1]] if p else None

    def home_slots(self) -> list[int]:
        """Slots whose own double is home (closed)."""
        return [k for k in self._tab.slots if _is_home(self._tab, self._piles, k)]

    def blank_slots(self) -> list[int]:
        """Slots emptied by moves (only their own double may go there)."""
        return [k for k in self._tab.slots if not self._piles[k]]

    def doubles_in_trouble(self) -> list[Tile]:
        """Doubles lying on a wrong slot, plus the drawn double if it matches no top tile."""
        tab = self._tab
        out = [
            tab.tiles[p[-1]]
            for k, p in enumerate(self._piles)
            if k and p and tab.dbl[p[-1]] and p[-1] != tab.double_of[k]
        ]
        if (
            self._drawn >= 0
            and tab.dbl[self._drawn]
            and _matches_none(tab, self._piles, self._drawn)
        ):
            out.append(tab.tiles[self._drawn])
        return out

    def is_won(self) -> bool:
        """Every double n-n (n >= 1) is home."""
        return _all_home(self._tab, self._piles)

    # --- State interface ---
    def _draw(self) -> None:
        self._drawn = self._stock.pop(0) if self._stock else -1
        self.moves_used = 0
        self.rescuing = False
        self.drawn_known = True

    def current_player(self) -> int:
        return TERMINAL if self.is_terminal() else 0

    def legal_actions(self) -> list[BigClockAction]:
        """Places (best first by the slot rule), then SetAside, moves and GiveUp; empty when
        the game is over."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[BigClockAction]:
        tab, piles, drawn = self._tab, self._piles, self._drawn
        if self._gave_up or drawn < 0 or _all_home(tab, piles):
            return []
        out: list[BigClockAction] = [Place(k) for k in _place_targets(tab, piles, drawn)]
        placed = bool(out)
        if not placed and not tab.dbl[drawn]:
            out.append(SET_ASIDE)
        moves = []
        if self.moves_used < MAX_MOVES_PER_DRAW and (
            self.rescuing or _in_trouble(tab, piles, drawn)
        ):
            moves = [Move(i, j) for i, j in _moves(tab, piles)]
        out.extend(moves)
        if not placed and tab.dbl[drawn] and moves:
            out.append(GIVE_UP)
        return out

    def _apply(self, action: BigClockAction) -> None:
        tab = self._tab
        if isinstance(action, Place):
            self._piles = _put(self._piles, action.slot, self._drawn)
            if _all_home(tab, self._piles):
                self._drawn = -1
            else:
                self._draw()
        elif isinstance(action, SetAside):
            self._set_aside.append(self._drawn)
            self._draw()
        elif isinstance(action, Move):
            if _drawn_in_trouble(tab, self._piles, self._drawn):
                self.rescuing = True
            self._piles = _move(self._piles, action.src, action.dst)
            self.moves_used += 1
        else:
            self._gave_up = True
        self._legal = None

    def is_terminal(self) -> bool:
        return not self.legal_actions()

    def returns(self) -> list[float]:
        return [1.0 if self.is_won() else 0.0]

    def clone(self) -> BigClockState:
        c = BigClockState.__new__(BigClockState)
        c.game, c.seed, c.rng = self.game, self.seed, clone_rng(self.rng)
        c.history = list(self.history)
        c._tab, c._piles, c._stock = self._tab, self._piles, list(self._stock)
        c._drawn, c._set_aside = self._drawn, list(self._set_aside)
        c.moves_used, c._gave_up, c._legal = self.moves_used, self._gave_up, self._legal
        c.rescuing, c.drawn_known = self.rescuing, self.drawn_known
        return c

    def determinize(self, rng: random.Random) -> BigClockState:
        """A clone with the face-down stock reshuffled by ``rng`` (clock and drawn tile kept)."""
        c = self.clone()
        rng.shuffle(c._stock)
        return c

    def action_to_string(self, action: BigClockAction) -> str:
        d = self.drawn
        if isinstance(action, Place):
            k = action.slot
            if d is not None and d == Tile(k, k):
                return f"bring {d} home to slot {k}"
            top = self.top(k)
            if top is None:
                return f"fill blank slot {k} with {d}"
            return f"put {d} on slot {k} (on {top})"
        if isinstance(action, Move):
            m = self.top(action.src)
            if m is not None and m == Tile(action.dst, action.dst):
                return f"move {m} from slot {action.src} home to slot {action.dst}"
            return (
                f"move {m} from slot {action.src} to slot {action.dst} (on {self.top(action.dst)})"
            )
        if isinstance(action, SetAside):
            return f"set {d} aside (it fits nowhere)"
        if isinstance(action, GiveUp):
            return f"give up: {d} cannot come home"
        return str(action)

    def action_to_json(self, action: BigClockAction):
        kind = type(action).__name__.lower()
        out = {
            "type": {
                "place": "place",
                "move": "move",
                "setaside": "set_aside",
                "giveup": "give_up",
            }[kind]
        }
        if isinstance(action, Place):
            out["slot"] = action.slot
        elif isinstance(action, Move):
            out.update(src=action.src, dst=action.dst)
        return out

    def __str__(self) -> str:
        tab = self._tab
        lines = []
        for k in self.game.deal_order:
            p = self._piles[k]
            if not p:
                what = "blank (only its double may go here)"
            elif _is_home(tab, self._piles, k):
                what = f"HOME {tab.tiles[p[-1]]}"
            else:
                top = tab.tiles[p[-1]]
                what = f"{top}" + ("  <- double in trouble" if top.is_double else "")
                if len(p) > 1:
                    what += f"   ({len(p)} tiles)"
            lines.append(f"{k:>2} o'clock: {what}")
        d = self.drawn
        lines.append(
            f"drawn: {d if d is not None else '-'}   stock: {len(self._stock)}   "
            f"set aside: {len(self._set_aside)}   home: {len(self.home_slots())}/"
            f"{tab.n}   moves this draw: {self.moves_used}/{MAX_MOVES_PER_DRAW}"
        )
        return "\n".join(lines)


# --- module interface -----------------------------------------------------------------------


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


def _evaluate(det: BigClockState, actions: Sequence[BigClockAction], node_limit: int) -> list:
    """For each action: does it still win in this determinized state? (shared memo)."""
    memo: dict = {}
    tab, piles, drawn = det._tab, det._piles, det._drawn
    out = []
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
    return out


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
