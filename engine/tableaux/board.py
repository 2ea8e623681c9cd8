"""The Tableaux grid: half-tile cells, contact patterns and the move generator.

Geometry (RULES.md section 5, seed ``002_*.txt``): the tableau lies on a square grid of
**cells** ``(row, col)``, row increasing downwards, col increasing to the right; both may be
negative (the starter sits at ``(0, 0)``-``(1, 0)``). Each tile covers two edge-adjacent cells,
one per half, and each cell carries that half's number (pips). Two halves are **flush** when
their cells share an edge.

A new tile goes on two empty cells. Exactly one of its halves (the *touching half*, cell ``e``)
may be flush with existing halves; the other half (cell ``f``) must touch nothing. The number of
existing halves flush with ``e`` decides the play (project choice, docs/tableaux-rules.md):

- 1 half, the new tile parallel to that half's tile and the contact along the long sides
  (staggered by one half): **side play**, the number on ``e`` must equal it, 0 points;
- 2 halves on perpendicular sides of ``e``: **corner play**, the number on ``e`` must equal
  their sum, scores that sum;
- 3 halves (a notch; ``f`` is the only free side): **centre play**, the number ``X`` on ``e``
  equals their sum, or ``X + Y`` (both ends) equals it; scores the sum;
- anything else (two halves on opposite sides, end-to-end contact, a perpendicular tile with
  one contact, both halves touching) is not a play.

A double doubles the points of a corner or centre play. The move generator keeps the
**frontier** (empty cells flush with the tableau, with their contact counts) up to date on every
placement and removal, so listing the plays never rescans the whole tableau.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..tiles import Tile

Cell = tuple[int, int]
"""A grid cell ``(row, col)``; row grows downwards, col to the right."""

DIRS: tuple[Cell, ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))

SIDE, CORNER, CENTRE = "side", "corner", "centre"


class Slot(NamedTuple):
    """A place where a tile may go: touching half on ``e``, free half on ``f``.

    ``kind`` is ``"side"``, ``"corner"`` or ``"centre"``; ``total`` is the number required on
    ``e`` for side plays (the matched half) and the sum of the flush halves (points) otherwise.
    """

    e: Cell
    f: Cell
    kind: str
    total: int


class Placement(NamedTuple):
    """One legal play: ``tile`` with ``low_cell`` showing ``tile.low`` and ``high_cell`` showing
    ``tile.high``; ``points`` it scores; ``continues`` whether the turn goes on after it."""

    tile: Tile
    low_cell: Cell
    high_cell: Cell
    kind: str
    points: int
    continues: bool


def flush_sum(num: dict[Cell, int], e: Cell) -> tuple[int, list[Cell]]:
    """``(sum of the numbers flush with cell e, [empty neighbour cells of e])``."""
    r, c = e
    total = 0
    free = []
    for dr, dc in DIRS:
        m = (r + dr, c + dc)
        n = num.get(m)
        if n is None:
            free.append(m)
        else:
            total += n
    return total, free


def are_adjacent(a: Cell, b: Cell) -> bool:
    """True when cells ``a`` and ``b`` share an edge."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


class Board:
    """The tableau: which number is on each occupied cell, and the frontier.

    Attributes:
        num: ``{cell: number}`` for every occupied cell (a half-tile).
        partner: ``{cell: cell}`` the other half of the same tile.
        adj: ``{empty cell: count}`` of occupied cells flush with it (count >= 1 only).
    """

    __slots__ = ("num", "partner", "adj")

    def __init__(self) -> None:
        self.num: dict[Cell, int] = {}
        self.partner: dict[Cell, Cell] = {}
        self.adj: dict[Cell, int] = {}

    def copy(self) -> Board:
        """An independent copy."""
        b = Board()
        b.num = dict(self.num)
        b.partner = dict(self.partner)
        b.adj = dict(self.adj)
        return b

    def __deepcopy__(self, memo: dict) -> Board:
        return self.copy()

    def __len__(self) -> int:
        """Number of tiles on the tableau."""
        return len(self.num) // 2

    # --- changing the tableau --------------------------------------------------------------
    def place(self, c1: Cell, n1: int, c2: Cell, n2: int) -> None:
        """Put a tile showing ``n1`` on ``c1`` and ``n2`` on ``c2`` (no rule check; the caller
        checked legality). Raises ValueError when a cell is taken or the cells are not flush."""
        if c1 in self.num or c2 in self.num:
            raise ValueError(f"cell {c1 if c1 in self.num else c2} is already covered")
        if not are_adjacent(c1, c2):
            raise ValueError(f"cells {c1} and {c2} are not edge-adjacent; a tile covers two")
        num, adj = self.num, self.adj
        for c, n in ((c1, n1), (c2, n2)):
            num[c] = n
            adj.pop(c, None)
            r, k = c
            for dr, dk in DIRS:
                nb = (r + dr, k + dk)
                if nb not in num:
                    adj[nb] = adj.get(nb, 0) + 1
        self.partner[c1] = c2
        self.partner[c2] = c1

    def remove(self, c1: Cell, c2: Cell) -> None:
        """Undo :meth:`place` of the tile on ``c1``/``c2`` (used by the hint search)."""
        num, adj = self.num, self.adj
        for c in (c2, c1):
            del num[c]
            del self.partner[c]
            r, k = c
            count = 0
            for dr, dk in DIRS:
                nb = (r + dr, k + dk)
                if nb in num:
                    count += 1
                else:
                    left = adj[nb] - 1
                    if left:
                        adj[nb] = left
                    else:
                        del adj[nb]
            if count:
                adj[c] = count

    # --- the move generator ----------------------------------------------------------------
    def slots(self, kinds: Iterable[str] = (SIDE, CORNER, CENTRE)) -> list[Slot]:
        """Every place a tile may legally go, by contact pattern, ignoring numbers.

        Only frontier cells are visited (``adj``), each with at most four partner cells.
        """
        want_side = SIDE in kinds
        want_corner = CORNER in kinds
        want_centre = CENTRE in kinds
        num, adj, partner = self.num, self.adj, self.partner
        out: list[Slot] = []
        for e, count in adj.items():
            r, c = e
            if count == 1:
                if not want_side:
                    continue
                for dr, dc in DIRS:
                    m = (r + dr, c + dc)
                    if m in num:
                        break
                p = partner[m]
                ar, ac = p[0] - m[0], p[1] - m[1]  # axis of the touched tile
                if ar * dr + ac * dc != 0:
                    continue  # end-to-end contact: not a side play
                for fr, fc in ((r + ar, c + ac), (r - ar, c - ac)):
                    f = (fr, fc)
                    if f not in num and f not in adj:
                        out.append(Slot(e, f, SIDE, num[m]))
            elif count == 2:
                if not want_corner:
                    continue
                total, free = flush_sum(num, e)
                (f1r, f1c), (f2r, f2c) = free
                if f1r == f2r or f1c == f2c:
                    continue  # the two flush halves are on opposite sides: not a corner
                for f in free:
                    if f not in adj:
                        out.append(Slot(e, f, CORNER, total))
            elif count == 3:
                if not want_centre:
                    continue
                total, (f,) = flush_sum(num, e)
                if f not in adj:
                    out.append(Slot(e, f, CENTRE, total))
        return out

    def placements(self, hand: Iterable[Tile], slots: list[Slot] | None = None) -> list[Placement]:
        """Every legal placement of every tile of ``hand`` (RULES.md section 5 geometry/sums).

        Returns one :class:`Placement` per distinct layout (a double in a given pair of cells
        is listed once, with ``low_cell < high_cell``).
        """
        if slots is None:
            slots = self.slots()
        by_number: dict[int, list[Tile]] = {}
        tiles = list(dict.fromkeys(hand))
        for t in tiles:
            by_number.setdefault(t.low, []).append(t)
            if t.high != t.low:
                by_number.setdefault(t.high, []).append(t)
        out: list[Placement] = []
        for e, f, kind, total in slots:
            if kind == CENTRE:  # X = total, or X + Y = total (either end on the notch)
                pts_single, pts_double = total, 2 * total
                for t in tiles:
                    pts = pts_double if t.is_double else pts_single
                    fits_sum = t.low + t.high == total
                    if t.low == total or fits_sum:
                        out.append(_oriented(t, e, f, t.low, kind, pts, True))
                    if not t.is_double and (t.high == total or fits_sum):
                        out.append(_oriented(t, e, f, t.high, kind, pts, True))
                continue
            for t in by_number.get(total, ()):
                pts = 0 if kind == SIDE else (2 * total if t.is_double else total)
                out.append(_oriented(t, e, f, total, kind, pts, kind != SIDE or t.is_double))
        return out

    def has_placement(self, hand: Iterable[Tile]) -> bool:
        """True when some tile of ``hand`` has a legal placement."""
        hand = list(hand)
        if not hand:
            return False
        numbers = {n for t in hand for n in t.ends}
        pips = {t.pips for t in hand}
        for _e, _f, kind, total in self.slots():
            if total in numbers or (kind == CENTRE and total in pips):
                return True
        return False

    def classify(self, low_cell: Cell, high_cell: Cell, tile: Tile) -> Placement | None:
        """The placement of ``tile`` (``low`` on ``low_cell``) if it is legal, else None."""
        for p in self.placements([tile]):
            if (p.low_cell, p.high_cell) == (low_cell, high_cell) or (
                tile.is_double and {p.low_cell, p.high_cell} == {low_cell, high_cell}
            ):
                return p
        return None

    # --- reading ---------------------------------------------------------------------------
    def tiles(self) -> list[tuple[Tile, Cell, Cell]]:
        """``[(tile, low_cell, high_cell), ...]`` for every tile on the tableau, sorted."""
        out = []
        for c, p in self.partner.items():
            if c < p:
                a, b = self.num[c], self.num[p]
                out.append((Tile(a, b), c, p) if a <= b else (Tile(a, b), p, c))
        return sorted(out)

    def bounds(self) -> tuple[int, int, int, int]:
        """``(row_min, row_max, col_min, col_max)`` of the occupied cells."""
        rows = [c[0] for c in self.num]
        cols = [c[1] for c in self.num]
        return min(rows), max(rows), min(cols), max(cols)

    def render(self, margin: int = 1) -> str:
        """The tableau as text: a digit per half, ``-`` / ``|`` join the halves of one tile,
        ``.`` an empty cell; row numbers on the left, column numbers on top."""
        if not self.num:
            return "(empty tableau)"
        r0, r1, c0, c1 = self.bounds()
        r0, r1, c0, c1 = r0 - margin, r1 + margin, c0 - margin, c1 + margin
        lines = ["     " + "".join(f"{c:>3}" for c in range(c0, c1 + 1))]
        for r in range(r0, r1 + 1):
            row = [f"{r:>4} "]
            for c in range(c0, c1 + 1):
                n = self.num.get((r, c))
                cell = "." if n is None else str(n)
                fill = "-" if self.partner.get((r, c)) == (r, c - 1) else " "
                row.append(cell.rjust(3, fill))
            lines.append("".join(row).rstrip())
            under = ["     "]
            for c in range(c0, c1 + 1):
                under.append("  |" if self.partner.get((r, c)) == (r + 1, c) else "   ")
            if r < r1:
                lines.append("".join(under).rstrip())
        return "\n".join(lines)


def _oriented(t: Tile, e: Cell, f: Cell, x: int, kind: str, pts: int, cont: bool) -> Placement:
    """The placement of ``t`` with the number ``x`` on ``e`` and its other end on ``f``."""
    if t.is_double:
        lo, hi = (e, f) if e < f else (f, e)
    elif x == t.low:
        lo, hi = e, f
    else:
        lo, hi = f, e
    return Placement(t, lo, hi, kind, pts, cont)


#: Tableaux :func:`can_be_built` looks at before it gives up (answer None): enough for every
#: rendered benchmark tableau; a real tableau of 30+ tiles may need more.
BUILD_SEARCH_LIMIT = 500


class _GiveUp(Exception):
    pass


def can_be_built(board: Board, limit: int = BUILD_SEARCH_LIMIT) -> bool | None:
    """Whether some order of legal plays (RULES.md section 5: side, corner, centre plays) builds
    ``board`` from one of its tiles as the starter: True, False, or None when the search looked
    at more than ``limit`` partial tableaux without an answer.

    Search: take off a tile whose placement would be legal on what remains, depth first, with a
    memory of the partial tableaux that cannot be built. A tableau read from a photo that fails
    this has a misread tile (or was built against the rules). ``board`` is left as it was.
    """
    failed: set[frozenset] = set()
    looked = [0]

    def rec() -> bool:
        if len(board) <= 1:
            return True
        key = frozenset(board.num.items())
        if key in failed:
            return False
        looked[0] += 1
        if looked[0] > limit:
            raise _GiveUp
        num = board.num
        for tile, lc, hc in board.tiles():
            # the last play touched the rest with one half only (the other lies free)
            touch = [
                sum(
                    (c[0] + dr, c[1] + dk) in num and (c[0] + dr, c[1] + dk) != other
                    for dr, dk in DIRS
                )
                for c, other in ((lc, hc), (hc, lc))
            ]
            if min(touch) != 0 or max(touch) == 0:
                continue
            board.remove(lc, hc)
            try:
                ok = board.classify(lc, hc, tile) is not None and rec()
            finally:
                board.place(lc, tile.low, hc, tile.high)
            if ok:
                return True
        failed.add(key)
        return False

    try:
        return rec()
    except _GiveUp:
        return None
