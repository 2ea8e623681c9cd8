"""Luzon, a one-player double-6 solitaire (RULES.md section 3; seed ``003_*.txt``).

Deal: shuffle the 28 tiles and lay the first 25 face up in 5 columns of 5, row by row (tile k goes
to column k mod 5, top to bottom); the last 3 are the face-up reserve. Only the bottom tile of a
column is *free*. Actions:

- :class:`RemovePair`: two tiles whose pips total 12, either two free tiles of different columns
  or one free tile and one reserve tile (reserve tiles never pair with each other). Two tiles of
  the same column never pair: only one tile of a column is free at a time, so a pair always
  spans two columns as they stand now. A tile moved to a new column belongs to that column, so
  it may pair with the tile it used to cover: the seed gives this as the reason for the move
  rule (6-5 and 0-1 in one column).
- :class:`NewColumn`: while fewer than 5 columns exist, move a free tile to start a new column
  (never more than 5 columns). Moving the only tile of a column would change nothing, so a
  column must hold at least 2 tiles to give one away; reserve tiles never start a column.

Variant ``"sixes"``: a pair must also match end to end with ends summing to 6 each (a-b with
(6-a)-(6-b)); the four tiles of 6 pips (0-6, 1-5, 2-4, 3-3) are exempt and pair among themselves
by the 12 total (seed, "Variation").

Won when all 28 tiles are removed. Lost when no pair can be made now or after new-column moves
alone ("no pair and no useful move is left"); such a state is terminal with no legal actions.
Every tile is face up, so Luzon has perfect information: the hint is the exact solver.

Module interface: see ``engine/solitaire.py``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Union

from . import actions
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

COLUMNS = 5
DEPTH = 5
RESERVE = 3
VARIANTS = (None, "sixes")

GAME_SIZES = [("standard", {"variant": None}), ("sixes", {"variant": "sixes"})]


@dataclass(frozen=True, order=True)
class RemovePair:
    """Remove two tiles whose pips total 12 (``a <= b``; use :meth:`of`)."""

    a: Tile
    b: Tile

    @classmethod
    def of(cls, x: Tile, y: Tile) -> RemovePair:
        return cls(*sorted((x, y)))

    def __str__(self) -> str:
        return f"remove {self.a} + {self.b}"


@dataclass(frozen=True, order=True)
class NewColumn:
    """Move the free tile ``tile`` to start a new column."""

    tile: Tile

    def __str__(self) -> str:
        return f"move {self.tile} to a new column"


LuzonAction = Union[RemovePair, NewColumn]  # noqa: UP007 (PyPy 3.9 runs the benchmarks, docs/solitaires.md)


@cache
def _pair_table(variant: str | None) -> tuple[tuple[bool, ...], ...]:
    """ok[i][j]: tiles i and j (double-6 indices) may be removed together."""
    tiles = DominoSet(6).tiles
    ok = []
    for x in tiles:
        row = []
        for y in tiles:
            good = x != y and x.pips + y.pips == 12
            if good and variant == "sixes" and not (x.pips == 6 and y.pips == 6):
                good = y == Tile(6 - x.low, 6 - x.high)
            row.append(good)
        ok.append(tuple(row))
    return tuple(ok)


def tiles_pair(x: Tile, y: Tile, variant: str | None = None) -> bool:
    """True when ``x`` and ``y`` may be removed together (pips, and the "sixes" ends rule)."""
    ds = DominoSet(6)
    return _pair_table(variant)[ds.index(x)][ds.index(y)]


def removable_in_pairs(tiles: Sequence[Tile], variant: str | None = None) -> bool:
    """True when ``tiles`` (double-6) split into pairs that may be removed together
    (:func:`tiles_pair`; RULES.md section 3: pips total 12; "sixes": also end to end, the four
    6-pip tiles among themselves). Which column each tile came from is not checked.

    Counting suffices: with totals only, tiles of t pips pair with tiles of 12 - t pips, so the
    counts must match and the 6-pip tiles be even; in "sixes" each other tile has one partner,
    a-b with (6-a)-(6-b), which must be there too.
    """
    tiles = list(tiles)
    six = [t for t in tiles if t.pips == 6]
    if len(six) % 2:
        return False
    if variant == "sixes":
        have = set(tiles)
        return all(Tile(6 - t.low, 6 - t.high) in have for t in tiles if t.pips != 6)
    counts = Counter(t.pips for t in tiles)
    return all(counts[p] == counts[12 - p] for p in counts if p != 6)


# --- fast internals: columns as tuples of tile indices, reserve as a sorted tuple -------------


def _key(cols: tuple[tuple[int, ...], ...], res: tuple[int, ...]):
    return (tuple(sorted(cols)), res)


def _successors(cols: tuple[tuple[int, ...], ...], res: tuple[int, ...], ok):
    """Positions after each action, pairs first (column+column, then column+reserve), then moves.

    Yields ``(kind, x, y, cols2, res2)`` with kind "pair" (tile ids x, y) or "move" (tile x).
    """
    n = len(cols)
    for i in range(n):
        fi = cols[i][-1]
        for j in range(i + 1, n):
            fj = cols[j][-1]
            if ok[fi][fj]:
                c2 = [c for k, c in enumerate(cols) if k not in (i, j)]
                for k in (i, j):
                    if len(cols[k]) > 1:
                        c2.append(cols[k][:-1])
                yield "pair", fi, fj, tuple(c2), res
    for i in range(n):
        fi = cols[i][-1]
        for r in set(res):
            if ok[fi][r]:
                c2 = (
                    list(cols[:i])
                    + ([cols[i][:-1]] if len(cols[i]) > 1 else [])
                    + list(cols[i + 1 :])
                )
                r2 = list(res)
                r2.remove(r)
                yield "pair", fi, r, tuple(c2), tuple(r2)
    if n < COLUMNS:
        for i in range(n):
            if len(cols[i]) > 1:
                c2 = list(cols)
                c2[i] = cols[i][:-1]
                c2.append((cols[i][-1],))
                yield "move", cols[i][-1], None, tuple(c2), res


def _has_pair(cols, res, ok) -> bool:
    frees = [c[-1] for c in cols]
    if any(ok[f][r] for f in frees for r in res):
        return True
    return any(ok[a][b] for i, a in enumerate(frees) for b in frees[i + 1 :])


def _pair_reachable(cols, res, ok) -> bool:
    """A pair exists now or after new-column moves alone (at most 5 - columns moves)."""
    if _has_pair(cols, res, ok):
        return True
    for kind, _, _, c2, r2 in _successors(cols, res, ok):
        if kind == "move" and _pair_reachable(c2, r2, ok):
            return True
    return False


def _solve_ids(cols, res, ok, memo: dict, budget: NodeBudget) -> bool:
    """Perfect-information search with memo on the canonical position; may raise SearchLimit."""
    if not cols and not res:
        return True
    key = _key(cols, res)
    r = memo.get(key)
    if r is not None:
        return r
    budget.spend()
    r = False
    for _, _, _, c2, r2 in _successors(cols, res, ok):
        if _solve_ids(c2, r2, ok, memo, budget):
            r = True
            break
    memo[key] = r
    return r


# --- the game -------------------------------------------------------------------------------


class LuzonGame(Game):
    """Luzon on a double-6 set; ``variant`` None (pips total 12) or ``"sixes"``.

    Raises:
        ValueError: unknown variant, or a ``max_pip`` other than 6.
    """

    num_players = 1

    def __init__(self, variant: str | None = None, max_pip: int | None = None):
        if variant not in VARIANTS:
            raise ValueError(f"unknown Luzon variant {variant!r}; use none or 'sixes'")
        if max_pip not in (None, 6):
            raise ValueError(f"Luzon is played with a double-6 set, not double-{max_pip}")
        self.variant = variant
        self.domino_set = DominoSet(6)

    def new_initial_state(self, seed: int | None = None) -> LuzonState:
        """Shuffle with ``seed``; 5 columns of 5 dealt row by row, the last 3 tiles the reserve."""
        return LuzonState(self, seed)

    def state_from_position(
        self,
        columns: Sequence[Sequence[Tile]],
        reserve: Sequence[Tile],
        seed: int | None = None,
        check_removed: bool = True,
    ) -> LuzonState:
        """A position seen on the table (e.g. rebuilt from a photo).

        Args:
            columns: up to 5 columns, each listed top to bottom (the last tile is free); empty
                columns are dropped.
            reserve: the reserve tiles still unused (at most 3).
            seed: seed of the state's RNG (Luzon has no later chance).
            check_removed: check that the tiles missing from the table split into pairs of the
                rules (:func:`removable_in_pairs`); False for made-up puzzle positions.

        Raises:
            ValueError: more than 5 columns or 3 reserve tiles, a tile twice or outside the set,
                an odd number of removed tiles (tiles go in pairs), or removed tiles that do not
                split into pairs of the rules (:func:`removable_in_pairs`: totals of 12; a misread
                tile shows here: the pips on the table always add up to a multiple of 12).
        """
        cols = [list(c) for c in columns if len(c)]
        if len(cols) > COLUMNS:
            raise ValueError(f"Luzon never has more than {COLUMNS} columns; got {len(cols)}")
        if len(reserve) > RESERVE:
            raise ValueError(f"the reserve holds at most {RESERVE} tiles; got {len(reserve)}")
        on_table = [t for c in cols for t in c] + list(reserve)
        self.domino_set.check_tiles(on_table)
        removed = [t for t in self.domino_set.tiles if t not in set(on_table)]
        if len(removed) % 2:
            raise ValueError(
                f"{len(removed)} tiles are missing; tiles are removed in pairs, "
                "so the count must be even"
            )
        if check_removed and not removable_in_pairs(removed, self.variant):
            rule = "with ends totalling 6 each" if self.variant == "sixes" else "totalling 12 pips"
            raise ValueError(
                f"the {len(removed)} tiles missing from the table ({' '.join(map(str, removed))}) "
                f"cannot all have been removed in pairs {rule}; a tile may be misread"
            )
        state = LuzonState(self, seed, deal=False)
        state.columns, state.reserve, state.removed = cols, list(reserve), removed
        return state

    def __repr__(self) -> str:
        return f"LuzonGame(variant={self.variant!r})"


class LuzonState(SolitaireState[LuzonAction]):
    """A Luzon position.

    Attributes:
        columns: the columns, each a list of tiles top to bottom (the last one is free).
        reserve: unused reserve tiles.
        removed: tiles removed so far, in removal order.
    """

    COPIED = ("reserve", "removed")
    game: LuzonGame

    def __init__(self, game: LuzonGame, seed: int | None, deal: bool = True):
        super().__init__(game, seed)
        self.columns: list[list[Tile]] = []
        self.reserve: list[Tile] = []
        self.removed: list[Tile] = []
        if deal:
            tiles = game.domino_set.shuffled(self.rng)
            self.columns = [tiles[c : COLUMNS * DEPTH : COLUMNS] for c in range(COLUMNS)]
            self.reserve = tiles[COLUMNS * DEPTH :]

    def _ok(self):
        return _pair_table(self.game.variant)

    def _ids(self):
        ix = self.game.domino_set.index
        cols = tuple(tuple(ix(t) for t in c) for c in self.columns)
        return cols, tuple(sorted(ix(t) for t in self.reserve))

    def free_tiles(self) -> list[Tile]:
        """The bottom tile of each column, left to right."""
        return [c[-1] for c in self.columns]

    def is_won(self) -> bool:
        return not self.columns and not self.reserve

    # --- State interface ---
    def _compute_legal(self) -> list[LuzonAction]:
        """Pairs (column+column, column+reserve) then new-column moves; [] when the game is over."""
        cols, res = self._ids()
        ok = self._ok()
        if self.is_won() or not _pair_reachable(cols, res, ok):
            return []
        tiles = self.game.domino_set.tiles
        out: list[LuzonAction] = []
        for kind, x, y, _, _ in _successors(cols, res, ok):
            a = RemovePair.of(tiles[x], tiles[y]) if kind == "pair" else NewColumn(tiles[x])
            if a not in out:
                out.append(a)
        return out

    def _apply(self, action: LuzonAction) -> None:
        if isinstance(action, NewColumn):
            col = next(c for c in self.columns if c[-1] == action.tile)
            col.pop()
            self.columns.append([action.tile])
        else:
            for t in (action.a, action.b):
                if t in self.reserve:
                    self.reserve.remove(t)
                else:
                    col = next(c for c in self.columns if c[-1] == t)
                    col.pop()
                    self.columns = [c for c in self.columns if c]
                self.removed.append(t)

    def _copy_into(self, c: LuzonState) -> None:
        c.columns = [list(col) for col in self.columns]

    def action_to_string(self, action: LuzonAction) -> str:
        return str(action)

    def action_record(self, action: LuzonAction) -> ActionRecord:
        """``remove`` with the two tiles, or ``move`` of a free tile to a new column."""
        if isinstance(action, NewColumn):
            return ActionRecord("move", (str(action.tile),), actions.NewColumn())
        return ActionRecord("remove", (str(action.a), str(action.b)))

    def __str__(self) -> str:
        depth = max((len(c) for c in self.columns), default=0)
        lines = ["  ".join(f"{'col ' + str(i + 1):^10}" for i in range(len(self.columns)))]
        for r in range(depth):
            cells = []
            for c in self.columns:
                if r < len(c):
                    mark = "*" if r == len(c) - 1 else " "
                    cells.append(f"[{str(c[r]):^5}]{mark}  ")
                else:
                    cells.append(" " * 10)
            lines.append("  ".join(cells).rstrip())
        lines.append(
            "reserve: "
            + (" ".join(f"[{t}]" for t in self.reserve) or "(empty)")
            + f"   removed: {len(self.removed)} of 28   (* = free)"
            + ("   variant: sixes" if self.game.variant == "sixes" else "")
        )
        return "\n".join(lines)


# --- module interface -----------------------------------------------------------------------


def random_action(state: LuzonState, rng: random.Random) -> LuzonAction:
    """A uniformly random legal action."""
    return random_legal_action(state, rng)


def greedy_action(state: LuzonState) -> LuzonAction:
    """Simple rule: pair two free column tiles (tallest columns first, to dig out deep tiles),
    else a free tile with a reserve tile (tallest column first), else move the bottom of the
    tallest column to a new column.

    Raises:
        ValueError: the game is over.
    """
    actions = state.legal_actions()
    if not actions:
        raise ValueError("no legal action: the game is over")
    height = {c[-1]: len(c) for c in state.columns}

    def score(a: LuzonAction):
        if isinstance(a, NewColumn):
            return (0, height[a.tile])
        if a.a in height and a.b in height:
            return (2, height[a.a] + height[a.b])
        return (1, height.get(a.a, 0) + height.get(a.b, 0))

    return max(actions, key=score)


def solve(state: LuzonState, node_limit: int = 500_000) -> bool | None:
    """Can ``state`` still be won? Exact (nothing is hidden); None when ``node_limit`` was hit."""
    cols, res = state._ids()
    try:
        return _solve_ids(cols, res, state._ok(), {}, NodeBudget(node_limit))
    except SearchLimit:
        return None


def solve_line(state: LuzonState, node_limit: int = 500_000) -> list[LuzonAction] | None:
    """A winning list of actions from ``state``, or None (no win, or the limit was hit)."""
    ok = state._ok()
    memo: dict = {}
    budget = NodeBudget(node_limit)
    line: list[LuzonAction] = []
    s = state.clone()
    try:
        while not s.is_won():
            for a in s.legal_actions():
                c = s.clone()
                c.apply_action(a)
                cols, res = c._ids()
                if _solve_ids(cols, res, ok, memo, budget):
                    break
            else:
                return None
            line.append(a)
            s = c
    except SearchLimit:
        return None
    return line


def _evaluate(det: LuzonState, actions: Sequence[LuzonAction], node_limit: int) -> list:
    ok = det._ok()
    memo: dict = {}
    out: list[bool | None] = []
    for a in actions:
        c = det.clone()
        c.apply_action(a)
        cols, res = c._ids()
        try:
            out.append(_solve_ids(cols, res, ok, memo, NodeBudget(node_limit)))
        except SearchLimit:
            out.append(None)
    return out


def hint(
    state: LuzonState, samples: int = 1, seed: int | None = 0, node_limit: int = 200_000
) -> Hint:
    """The exact best action: every action is solved (all tiles are face up, so ``samples`` and
    ``seed`` are unused). Rates are 1.0 (keeps a winning line) or 0.0; ties keep the greedy
    preference (:func:`greedy_action`'s order).
    """
    actions = sorted(state.legal_actions(), key=lambda a: a != _greedy_or_none(state))
    return determinized_hint(
        state,
        evaluate=_evaluate,
        samples=1,
        seed=seed,
        node_limit=node_limit,
        actions=actions,
        perfect_information=True,
    )


def _greedy_or_none(state: LuzonState):
    return greedy_action(state) if state.legal_actions() else None
