"""Good Neighbors, a one-player domino solitaire (RULES.md section 1; seed ``000_*.txt``).

Sizes: double-12 on 3 rows x 4, double-9 on 3 x 3, double-6 on 2 rows x 6. Two tiles on the grid
are *good neighbors* when their cells touch (8-neighbourhood, diagonals included) and they share
at least one number. A turn removes one or more disjoint good-neighbor pairs chosen on the same
grid (:class:`RemovePairs`). Then the grid *closes up*: the remaining tiles keep their reading
order (row by row, left to right) and are packed toward the top-left, and the empty cells at the
end are filled in reading order from the stock. Once the stock is empty the cells stay empty.
Won: double-12 and double-9 with at most one tile left, double-6 with none. Lost: no pair.

Because the grid is always packed, a position is the sequence of tiles in reading order plus
the stock; the solver and the hint work on tuples of tile indices with memoisation on
``(grid, stock position)``. Removing pairs A and B in one turn gives the same position as A then
B in two turns whenever B is still a pair after A's close-up; the multi-pair action matters when
the close-up would split B. The solver therefore branches over the distinct *sets of removed
cells* (all matchings of the good-neighbor graph, deduplicated), larger sets first.

Module interface: see ``engine/solitaire.py``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from .actions import ActionRecord
from .game import Game, Hint
from .solitaire import (
    NodeBudget,
    SearchLimit,
    SolitaireState,
    determinized_hint,
    random_legal_action,
)
from .tiles import DominoSet, Tile

#: max_pip -> (rows, columns, tiles that may be left at a win); RULES.md section 1.
SHAPES: dict[int, tuple[int, int, int]] = {12: (3, 4, 1), 9: (3, 3, 1), 6: (2, 6, 0)}

GAME_SIZES = [
    ("double-12", {"max_pip": 12}),
    ("double-9", {"max_pip": 9}),
    ("double-6", {"max_pip": 6}),
]


@dataclass(frozen=True)
class RemovePairs:
    """One turn: remove these disjoint good-neighbor pairs at once.

    ``pairs`` is a sorted tuple of ``(Tile, Tile)`` pairs, each pair sorted (use :meth:`of`).
    """

    pairs: tuple[tuple[Tile, Tile], ...]

    @classmethod
    def of(cls, pairs) -> RemovePairs:
        """Canonical action from an iterable of tile pairs (any order)."""
        return cls(tuple(sorted(tuple(sorted(p)) for p in pairs)))

    @property
    def tiles(self) -> frozenset[Tile]:
        """Every tile this action removes."""
        return frozenset(t for p in self.pairs for t in p)

    def __str__(self) -> str:
        return ", ".join(f"{a} + {b}" for a, b in self.pairs)


# --- fast internals on tile indices ---------------------------------------------------------


@cache
def _tables(max_pip: int):
    """(DominoSet, tile list, share[i][j] bool, neighbour lists of cells)."""
    ds = DominoSet(max_pip)
    tiles = ds.tiles
    share = [[a.shares_number(b) for b in tiles] for a in tiles]
    rows, cols, _ = SHAPES[max_pip]
    nbrs = []
    for k in range(rows * cols):
        r, c = divmod(k, cols)
        nbrs.append(
            tuple(
                rr * cols + cc
                for rr in range(r - 1, r + 2)
                for cc in range(c - 1, c + 2)
                if (rr, cc) != (r, c) and 0 <= rr < rows and 0 <= cc < cols
            )
        )
    return ds, tiles, share, tuple(nbrs)


def _matchings(grid: tuple[int, ...], max_pip: int) -> list[tuple[tuple[int, int], ...]]:
    """Every non-empty set of disjoint good-neighbor pairs, as tuples of cell-index pairs."""
    _, _, share, nbrs = _tables(max_pip)
    n = len(grid)
    adj = [[u for u in nbrs[k] if k < u < n and share[grid[k]][grid[u]]] for k in range(n)]
    out: list[tuple[tuple[int, int], ...]] = []
    pairs: list[tuple[int, int]] = []

    def rec(k: int, used: int) -> None:
        while k < n and (used >> k) & 1:
            k += 1
        if k >= n:
            if pairs:
                out.append(tuple(pairs))
            return
        rec(k + 1, used | (1 << k))
        for u in adj[k]:
            if not (used >> u) & 1:
                pairs.append((k, u))
                rec(k + 1, used | (1 << k) | (1 << u))
                pairs.pop()

    rec(0, 0)
    return out


@lru_cache(maxsize=300_000)
def _removal_masks(grid: tuple[int, ...], max_pip: int) -> tuple[int, ...]:
    """Distinct removed-cell bitmasks of all legal turns, most tiles first."""
    _, _, share, nbrs = _tables(max_pip)
    n = len(grid)
    masks = {0}
    for k in range(n):
        row = share[grid[k]]
        for u in nbrs[k]:
            if k < u < n and row[grid[u]]:
                e = (1 << k) | (1 << u)
                masks |= {m | e for m in masks if not m & e}
    masks.discard(0)
    return tuple(sorted(masks, key=lambda m: -m.bit_count()))


def _close_up(
    grid: tuple[int, ...], mask: int, stock: tuple[int, ...], pos: int, cells: int
) -> tuple[tuple[int, ...], int]:
    """Remove the cells in ``mask``, pack in reading order, fill from ``stock[pos:]``."""
    kept = tuple(g for k, g in enumerate(grid) if not (mask >> k) & 1)
    take = min(cells - len(kept), len(stock) - pos)
    return kept + stock[pos : pos + take], pos + take


def _solve_ids(
    grid: tuple[int, ...],
    stock: tuple[int, ...],
    pos: int,
    max_pip: int,
    memo: dict,
    budget: NodeBudget,
) -> bool:
    """Perfect-information search; raises SearchLimit when ``budget`` is spent."""
    rows, cols, left = SHAPES[max_pip]
    cells = rows * cols

    def win(g: tuple[int, ...], p: int) -> bool:
        if len(g) + len(stock) - p <= left:
            return True
        key = (g, p)
        r = memo.get(key)
        if r is not None:
            return r
        budget.spend()
        r = False
        for m in _removal_masks(g, max_pip):
            if win(*_close_up(g, m, stock, p, cells)):
                r = True
                break
        memo[key] = r
        return r

    return win(grid, pos)


# --- the game -------------------------------------------------------------------------------


class GoodNeighborsGame(Game):
    """Good Neighbors on a double-``max_pip`` set (12: 3x4 grid, 9: 3x3, 6: 2x6).

    Raises:
        ValueError: ``max_pip`` is not 12, 9 or 6.
    """

    num_players = 1

    def __init__(self, max_pip: int | None = 12):
        max_pip = 12 if max_pip is None else max_pip
        if max_pip not in SHAPES:
            raise ValueError(
                f"Good Neighbors is played with double-12, double-9 or double-6, "
                f"not double-{max_pip}"
            )
        self.max_pip = max_pip
        self.rows, self.cols, self.tiles_left_to_win = SHAPES[max_pip]
        self.cells = self.rows * self.cols
        self.domino_set = DominoSet(max_pip)

    def new_initial_state(self, seed: int | None = None) -> GoodNeighborsState:
        """Shuffle the set with ``seed`` and deal the first ``rows*cols`` tiles in reading order."""
        return GoodNeighborsState(self, seed)

    def state_from_position(
        self,
        grid: Sequence[Sequence[Tile | None]],
        stock: Sequence[Tile] | None = None,
        seed: int | None = None,
    ) -> GoodNeighborsState:
        """A position seen on the table (e.g. rebuilt from a photo).

        Args:
            grid: ``rows`` lists of ``cols`` cells, top row first, each a Tile or None (empty).
                Empty cells may only be at the end in reading order and only once the stock is
                empty (the grid is always closed up and filled).
            stock: the tiles still in the stock, in any order (shuffled with ``seed``); None
                means every tile not on the grid (the start of a game).
            seed: seed of the stock order and of later chance.

        Raises:
            ValueError: wrong grid size, a tile twice or outside the set, a gap in the grid, an
                empty cell while the stock has tiles, or an odd number of removed tiles (tiles
                go in pairs).
        """
        if len(grid) != self.rows or any(len(r) != self.cols for r in grid):
            raise ValueError(
                f"double-{self.max_pip} Good Neighbors uses {self.rows} rows of "
                f"{self.cols} cells; got rows of {[len(r) for r in grid]}"
            )
        cells = [c for row in grid for c in row]
        on_grid = [c for c in cells if c is not None]
        if any(c is not None for c in cells[len(on_grid) :]):
            raise ValueError(
                "the grid has a gap: tiles close up toward the top-left "
                "in reading order (RULES.md section 1)"
            )
        if stock is None:
            self.domino_set.check_tiles(on_grid)
            stock = [t for t in self.domino_set.tiles if t not in set(on_grid)]
        stock = list(stock)
        self.domino_set.check_tiles(on_grid + stock)
        if stock and len(on_grid) < self.cells:
            raise ValueError("an empty cell while the stock still has tiles: fill the grid first")
        removed = len(self.domino_set) - len(on_grid) - len(stock)
        if removed % 2:
            raise ValueError(
                f"{removed} tiles are missing from grid and stock; tiles are removed "
                "in pairs, so the count must be even"
            )
        state = GoodNeighborsState(self, seed, deal=False)
        state.rng.shuffle(stock)
        state.grid = on_grid
        state.stock = stock
        state.removed = [
            t for t in self.domino_set.tiles if t not in set(on_grid) and t not in set(stock)
        ]
        return state

    def __repr__(self) -> str:
        return f"GoodNeighborsGame(max_pip={self.max_pip})"


class GoodNeighborsState(SolitaireState):
    """A Good Neighbors position.

    Attributes:
        grid: tiles on the grid in reading order (always packed; length <= rows*cols).
        stock: the face-down stock in draw order (``stock[0]`` is drawn next).
        removed: tiles removed so far, in removal order.
    """

    COPIED = ("grid", "stock", "removed")
    STOCK = "stock"
    game: GoodNeighborsGame

    def __init__(self, game: GoodNeighborsGame, seed: int | None, deal: bool = True):
        super().__init__(game, seed)
        self.grid: list[Tile] = []
        self.stock: list[Tile] = []
        self.removed: list[Tile] = []
        if deal:
            self.stock = game.domino_set.shuffled(self.rng)
            self.grid, self.stock = self.stock[: game.cells], self.stock[game.cells :]

    # --- helpers ---
    def _ids(self, tiles: Sequence[Tile]) -> tuple[int, ...]:
        ds = self.game.domino_set
        return tuple(ds.index(t) for t in tiles)

    def cell(self, row: int, col: int) -> Tile | None:
        """The tile at (row, col) (0-based), or None for an empty cell."""
        k = row * self.game.cols + col
        return self.grid[k] if k < len(self.grid) else None

    def rows(self) -> list[list[Tile | None]]:
        """The grid as ``rows`` lists of ``cols`` cells (None = empty)."""
        g = self.game
        return [[self.cell(r, c) for c in range(g.cols)] for r in range(g.rows)]

    def is_won(self) -> bool:
        return len(self.grid) + len(self.stock) <= self.game.tiles_left_to_win

    # --- State interface ---
    def _compute_legal(self) -> list[RemovePairs]:
        """Every non-empty set of disjoint good-neighbor pairs (fewest pairs first)."""
        if self.is_won():
            return []
        grid = self.grid
        return sorted(
            (
                RemovePairs.of((grid[a], grid[b]) for a, b in m)
                for m in _matchings(self._ids(grid), self.game.max_pip)
            ),
            key=lambda a: (len(a.pairs), a.pairs),
        )

    def _apply(self, action: RemovePairs) -> None:
        gone = action.tiles
        self.removed.extend(t for t in self.grid if t in gone)
        self.grid = [t for t in self.grid if t not in gone]
        take = min(self.game.cells - len(self.grid), len(self.stock))
        self.grid += self.stock[:take]
        self.stock = self.stock[take:]

    def action_to_string(self, action: RemovePairs) -> str:
        return str(action)

    def action_record(self, action: RemovePairs) -> ActionRecord:
        """``remove`` with the tiles of every pair, pair by pair."""
        return ActionRecord("remove", tuple(str(t) for pair in action.pairs for t in pair))

    def __str__(self) -> str:
        width = max(5, len(str(Tile(self.game.max_pip, self.game.max_pip))) + 2)
        lines = []
        for row in self.rows():
            lines.append(" ".join(f"[{str(t) if t else '':^{width - 2}}]" for t in row))
        lines.append(
            f"stock: {len(self.stock)} tiles   removed: {len(self.removed)}   "
            f"win: at most {self.game.tiles_left_to_win} tile(s) left"
        )
        return "\n".join(lines)


# --- module interface -----------------------------------------------------------------------


def random_action(state: GoodNeighborsState, rng: random.Random) -> RemovePairs:
    """A uniformly random legal turn (any non-empty set of disjoint pairs)."""
    return random_legal_action(state, rng)


def greedy_action(state: GoodNeighborsState) -> RemovePairs:
    """Remove as many pairs as possible this turn (a maximum matching; first one found).

    Raises:
        ValueError: the game is over.
    """
    actions = state.legal_actions()
    if not actions:
        raise ValueError("no legal action: the game is over")
    return max(actions, key=lambda a: len(a.pairs))


def solve(state: GoodNeighborsState, node_limit: int = 200_000) -> bool | None:
    """Can ``state`` still be won, knowing the stock order? None when ``node_limit`` was hit."""
    try:
        return _solve_ids(
            state._ids(state.grid),
            state._ids(state.stock),
            0,
            state.game.max_pip,
            {},
            NodeBudget(node_limit),
        )
    except SearchLimit:
        return None


def solve_line(state: GoodNeighborsState, node_limit: int = 200_000) -> list[RemovePairs] | None:
    """A winning list of turns from ``state`` (stock order known), or None (lost or limit hit)."""
    max_pip, cells = state.game.max_pip, state.game.cells
    stock = state._ids(state.stock)
    grid, pos = state._ids(state.grid), 0
    memo: dict = {}
    budget = NodeBudget(node_limit)
    tiles = state.game.domino_set.tiles
    line: list[RemovePairs] = []
    try:
        if not _solve_ids(grid, stock, pos, max_pip, memo, budget):
            return None
        while len(grid) + len(stock) - pos > SHAPES[max_pip][2]:
            for m in _removal_masks(grid, max_pip):
                g2, p2 = _close_up(grid, m, stock, pos, cells)
                if _solve_ids(g2, stock, p2, max_pip, memo, budget):
                    break
            match = next(
                mt
                for mt in _matchings(grid, max_pip)
                if sum((1 << a) | (1 << b) for a, b in mt) == m
            )
            line.append(RemovePairs.of((tiles[grid[a]], tiles[grid[b]]) for a, b in match))
            grid, pos = g2, p2
    except SearchLimit:
        return None
    return line


def _candidates(state: GoodNeighborsState) -> list[RemovePairs]:
    """Legal turns with distinct removed-tile sets, most pairs first (greedy preference)."""
    seen: set[frozenset] = set()
    out = []
    for a in sorted(state.legal_actions(), key=lambda a: -len(a.pairs)):
        if a.tiles not in seen:
            seen.add(a.tiles)
            out.append(a)
    return out


def _evaluate(det: GoodNeighborsState, actions: Sequence[RemovePairs], node_limit: int) -> list:
    """For each action: does it win in this determinized state? (shared memo per sample)."""
    max_pip, cells = det.game.max_pip, det.game.cells
    ds = det.game.domino_set
    grid, stock = det._ids(det.grid), det._ids(det.stock)
    memo: dict = {}
    out = []
    for a in actions:
        gone = {ds.index(t) for t in a.tiles}
        mask = sum(1 << k for k, g in enumerate(grid) if g in gone)
        g2, p2 = _close_up(grid, mask, stock, 0, cells)
        try:
            out.append(_solve_ids(g2, stock, p2, max_pip, memo, NodeBudget(node_limit)))
        except SearchLimit:
            out.append(None)
    return out


#: max_pip -> hint settings (samples, node_limit, screen_samples, keep, sample_node_budget).
#: Double-6 has the most candidate turns (up to ~560 on a 2x6 grid), so it gets a larger
#: budget (benchmark numbers for both settings in docs/solitaires.md).
HINT_SETTINGS = {
    12: (16, 300, 2, 4, 20_000),
    9: (16, 300, 2, 4, 20_000),
    6: (24, 1_000, 3, 6, 60_000),
}


def hint(
    state: GoodNeighborsState,
    samples: int | None = None,
    seed: int | None = 0,
    node_limit: int | None = None,
) -> Hint:
    """Best turn by determinized Monte Carlo (see ``engine.solitaire.determinized_hint``).

    Candidates are the legal turns with distinct removed-tile sets; each is tried on sampled
    stock orders with the perfect-information solver. Defaults per size (:data:`HINT_SETTINGS`):
    double-12 and double-9 use 16 samples and 300 nodes per search (fewer when there are many
    candidates: 20,000 nodes per sample shared among them), all candidates get 2 samples and the
    best 4 get the rest; double-6 uses 24 samples, 1,000 nodes, 60,000 per sample, 3 and 6.
    ``win_chance``: the calibrated chance (``engine.calibration``) or None; exact (1.0 / 0.0)
    once at most one stock tile is left (nothing hidden in its order).
    """
    d_samples, d_limit, screen, keep, budget = HINT_SETTINGS[state.game.max_pip]
    samples = d_samples if samples is None else samples
    node_limit = d_limit if node_limit is None else node_limit
    return determinized_hint(
        state,
        evaluate=_evaluate,
        samples=samples,
        seed=seed,
        node_limit=node_limit,
        actions=_candidates(state),
        screen_samples=screen,
        keep=keep,
        sample_node_budget=budget,
        perfect_information=len(state.stock) <= 1,
        calibration_key=f"good-neighbors/double-{state.game.max_pip}",
        settings=repr((samples, node_limit, screen, keep, budget)),
    )


def menu_actions(state: GoodNeighborsState) -> list[RemovePairs]:
    """The single good-neighbor pairs (the terminal numbers these; combine with ``1+3``)."""
    return [a for a in state.legal_actions() if len(a.pairs) == 1]


def menu_text(state: GoodNeighborsState, action: RemovePairs) -> str | None:
    """What to type for ``action`` in the terminal, e.g. ``"1+4"`` (None if not on the menu)."""
    menu = menu_actions(state)
    nums = []
    for p in action.pairs:
        single = RemovePairs((p,))
        if single not in menu:
            return None
        nums.append(str(menu.index(single) + 1))
    return "+".join(nums)


def parse_action(state: GoodNeighborsState, text: str) -> RemovePairs | None:
    """Read ``"1+3"`` (menu numbers of pairs removed together) into one turn.

    Returns None when ``text`` is not of that form (the caller tries other readings).

    Raises:
        ValueError: a number is not on the menu, or the pairs share a tile.
    """
    parts = [p for p in text.replace(",", "+").replace(" ", "+").split("+") if p]
    if len(parts) < 2 or not all(p.isdigit() for p in parts):
        return None
    menu = menu_actions(state)
    chosen = []
    for p in parts:
        k = int(p)
        if not 1 <= k <= len(menu):
            raise ValueError(f"no pair number {k}; choose 1..{len(menu)}")
        chosen.extend(menu[k - 1].pairs)
    action = RemovePairs.of(chosen)
    if len(action.tiles) != 2 * len(action.pairs):
        raise ValueError("those pairs share a tile; pairs removed together must be disjoint")
    return action
