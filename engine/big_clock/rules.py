"""The Big Clock's rules on tile indices: actions, per-size tables and the placement and
move tests (RULES.md section 2; seed ``001_*.txt``; choices in docs/big-clock.md).

Internally tiles are indices into ``DominoSet(max_pip).tiles`` and the clock is a tuple of
``N + 1`` piles (index 0 unused), each a tuple of tile indices bottom to top.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Union

from ..tiles import DominoSet, Tile

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


BigClockAction = Union[Place, Move, SetAside, GiveUp]  # noqa: UP007 (PyPy 3.9 runs the benchmarks, docs/solitaires.md)
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
    if () not in piles[1:]:  # no blank slot: the matching rule on every top
        dbl, share = tab.dbl, tab.share[drawn]
        return [k for k in tab.slots if not dbl[piles[k][-1]] and share[piles[k][-1]]]
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
