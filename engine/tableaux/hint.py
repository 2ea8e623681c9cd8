"""Tableaux hints: the best whole turn, with a defensive term (docs/tableaux-rules.md, "Hints").

The search sees what the player sees: the tableau, the player's own hand, the number of tiles
in the opponent's hand and the boneyard size; never the hidden tiles themselves.

Value of a turn (points): the points it scores, minus ``defence`` times the **threat** it leaves
(the seed: "Place your corner plays flush to existing tiles to deny your opponent a corner
play"), plus a large bonus when the turn reaches the target. The threat of a tableau is, over
every open corner or centre spot, the points a play there scores times the chance that the
opponent holds at least one tile that fits it (hypergeometric over the unseen tiles).

The search tries every ordered sequence of plays of the turn (depth first, highest-scoring
plays first), stopping voluntarily after any play that lets the turn go on. When a sequence
plays out the whole hand and the turn goes on, the fresh hand is unknown: the search counts the
points up to that redraw (and the threat at that moment) and stops there.
"""

from __future__ import annotations

import time
from math import comb
from typing import Any, NamedTuple

from ..game import Hint
from ..tiles import Tile
from .board import Board, Placement, flush_sum
from .game import END_TURN, PASS, PASS_PENALTY, Place, TableauxState

WIN_BONUS = 1000.0


class TurnPlan(NamedTuple):
    """The best whole turn found: ``actions`` in order (the last may be END_TURN), ``points``
    the turn scores, ``value`` the search value (points minus the defensive term), ``nodes``
    searched and ``complete`` False when ``node_limit`` cut the search short."""

    actions: list[Any]
    points: int
    value: float
    nodes: int
    complete: bool


class ThreatModel:
    """The defensive term: points the opponent may take at open corner/centre cells.

    For each empty cell where a corner or centre play is possible (a free cell for the other
    half included), ``total * P(opponent holds a fitting tile)``, with P hypergeometric:
    ``1 - C(U-k, n) / C(U, n)`` for ``U`` unseen tiles, ``k`` of them fitting and
    ``n = opponent_tiles`` (the opponent's hand size). 0 when the opponent holds no tile.
    A cell's value depends only on cells within two steps of it, so the search updates the
    total locally (:meth:`near`) after each placement.
    """

    def __init__(self, unseen: list[Tile], opponent_tiles: int):
        self.u = len(unseen)
        self.n = min(max(opponent_tiles, 0), self.u)
        self.denom = comb(self.u, self.n) if self.n else 1
        self.ends: dict[int, int] = {}
        self.sum_only: dict[int, int] = {}  # tiles fitting a centre only by X + Y
        for t in unseen:
            self.ends[t.low] = self.ends.get(t.low, 0) + 1
            if t.high != t.low:
                self.ends[t.high] = self.ends.get(t.high, 0) + 1
            if not t.has(t.pips):
                self.sum_only[t.pips] = self.sum_only.get(t.pips, 0) + 1
        self._p: dict[int, float] = {}

    def p_fit(self, k: int) -> float:
        """Chance that an ``n``-tile hand drawn from the ``U`` unseen tiles holds one of ``k``."""
        got = self._p.get(k)
        if got is None:
            got = self._p[k] = 1.0 - comb(self.u - k, self.n) / self.denom
        return got

    def cell(self, board: Board, e: tuple[int, int]) -> float:
        """Threat (points) of the empty cell ``e``; 0 for an occupied or harmless cell."""
        if self.n == 0:
            return 0.0
        count = board.adj.get(e, 0)
        if count < 2 or e in board.num:
            return 0.0
        adj = board.adj
        total, free = flush_sum(board.num, e)
        if total == 0:
            return 0.0
        if count == 2 and (free[0][0] == free[1][0] or free[0][1] == free[1][1]):
            return 0.0  # flush halves on opposite sides: no play
        if all(f in adj for f in free):
            return 0.0  # no free cell for the other half
        k = self.ends.get(total, 0)
        if count == 3:
            k += self.sum_only.get(total, 0)
        return total * self.p_fit(k) if k else 0.0

    def total(self, board: Board) -> float:
        """Threat of the whole tableau (points)."""
        if self.n == 0:
            return 0.0
        return sum(self.cell(board, e) for e, k in board.adj.items() if k >= 2)

    def near(self, board: Board, c1: tuple[int, int], c2: tuple[int, int]) -> float:
        """Threat of the cells within two steps of ``c1`` or ``c2`` (those a tile there can
        change)."""
        if self.n == 0:
            return 0.0
        adj = board.adj
        cells = {(r + dr, c + dc) for r, c in (c1, c2) for dr, dc in _NEAR}
        return sum(self.cell(board, e) for e in cells if adj.get(e, 0) >= 2)


_NEAR = [(dr, dc) for dr in range(-2, 3) for dc in range(-2, 3) if abs(dr) + abs(dc) <= 2]


def threat(board: Board, unseen: list[Tile], opponent_tiles: int) -> float:
    """Threat (points) of ``board`` for an opponent holding ``opponent_tiles`` of ``unseen``;
    see :class:`ThreatModel`."""
    return ThreatModel(unseen, opponent_tiles).total(board)


def best_turn(
    state: TableauxState, *, defence: float = 0.5, node_limit: int = 5_000
) -> tuple[TurnPlan, list[tuple[Any, float]]]:
    """Search the ordered plays of the current turn (see the module docstring).

    Args:
        state: the position (not modified); must not be terminal.
        defence: weight of the threat term (points of threat per point scored; 0 = greedy
            for the turn's own points).
        node_limit: most search nodes (placements tried) before the search stops expanding.

    Returns:
        ``(plan, ranking)``: the best :class:`TurnPlan` and ``[(first action, value)]`` for
        every legal first action, best first.

    Raises:
        ValueError: the state is terminal.
    """
    if state.is_terminal():
        raise ValueError("the game is over; no turn to plan")
    p = state.player
    board = state.board.copy()
    hand = list(state.hands[p])
    unseen = state.unseen_tiles(p)
    opp_n = len(state.hands[1 - p])
    base_score = state.scores[p]  # the game total, this turn's points so far included
    target = state.tgame.target
    nodes = [0]
    placed: list[tuple[Tile, tuple, tuple]] = []
    # transpositions: the same plays in another order reach the same tableau and hand
    memo: dict[tuple[frozenset, int], tuple[float, list[Any]]] = {}
    model = ThreatModel(unseen, opp_n if defence else 0)
    cur_threat = [model.total(board)]

    def leaf(points: int) -> float:
        v = points - defence * cur_threat[0]
        if base_score + points >= target and points > 0:
            v += WIN_BONUS
        return v

    def search(points: int, moves: list[Placement]) -> tuple[float, list[Any]]:
        """Best (value, actions) from a point where the turn may go on with ``moves``."""
        best_v, best_seq = leaf(points), [END_TURN]
        if not moves:
            return best_v, []  # the turn ends by itself
        for m in sorted(moves, key=lambda m: -m.points):
            if nodes[0] >= node_limit:
                break
            v, seq = play(points, m)
            if v > best_v:
                best_v, best_seq = v, [Place(m.tile, m.low_cell, m.high_cell)] + seq
        return best_v, best_seq

    def play(points: int, m: Placement) -> tuple[float, list[Any]]:
        nodes[0] += 1
        t = m.tile
        before_threat = cur_threat[0]
        local = model.near(board, m.low_cell, m.high_cell)
        board.place(m.low_cell, t.low, m.high_cell, t.high)
        cur_threat[0] += model.near(board, m.low_cell, m.high_cell) - local
        hand.remove(t)
        placed.append((t, m.low_cell, m.high_cell))
        pts = points + m.points
        try:
            if base_score + pts >= target and m.points > 0:
                return leaf(pts), []
            if not m.continues or not hand:
                # turn over, or the whole hand played out (redraw if the boneyard has tiles:
                # the fresh hand is unknown, so the search stops at the redraw)
                return leaf(pts), []
            key = (frozenset(placed), pts)
            got = memo.get(key)
            if got is None:
                got = memo[key] = search(pts, board.placements(hand))
            return got
        finally:
            placed.pop()
            board.remove(m.low_cell, m.high_cell)
            hand.append(t)
            cur_threat[0] = before_threat

    root_moves = state.placements()
    ranking: list[tuple[Any, float]] = []
    if not root_moves:
        # only PASS (or, mid-turn, nothing: the turn would already have ended)
        v = -PASS_PENALTY - defence * cur_threat[0]
        plan = TurnPlan([PASS], -PASS_PENALTY, v, 0, True)
        return plan, [(PASS, v)]
    for m in sorted(root_moves, key=lambda m: -m.points):
        v, seq = play(0, m)
        a = Place(m.tile, m.low_cell, m.high_cell)
        ranking.append((a, v, [a] + seq))
    if state.plays_this_turn:
        ranking.append((END_TURN, leaf(0), [END_TURN]))
    ranking.sort(key=lambda x: -x[1])
    first, v, seq = ranking[0]
    points = _points_of(state, seq)
    plan = TurnPlan(seq, points, v, nodes[0], nodes[0] < node_limit)
    return plan, [(a, val) for a, val, _s in ranking]


def _points_of(state: TableauxState, seq: list[Any]) -> int:
    """Points the placements of ``seq`` score when played in order from ``state``."""
    board = state.board.copy()
    total = 0
    for a in seq:
        if isinstance(a, Place):
            m = board.classify(a.low_cell, a.high_cell, a.tile)
            assert m is not None, a
            total += m.points
            board.place(a.low_cell, a.tile.low, a.high_cell, a.tile.high)
    return total


def hint(state: TableauxState, *, defence: float = 0.5, node_limit: int = 5_000) -> Hint:
    """The hint the phone shows: the first play of the best whole turn.

    ``Hint.action`` is that first action, ``Hint.ranking`` ``[(action, value)]`` for every
    legal first action (value in points: turn points minus ``defence`` x threat, see
    :func:`best_turn`), ``value_unit="points"``. The whole turn is ``Hint.plan`` (the actions of the
    best :class:`TurnPlan`, ``action`` first). ``elapsed_ms`` in milliseconds.

    Raises:
        ValueError: the state is terminal.
    """
    t0 = time.perf_counter()
    plan, ranking = best_turn(state, defence=defence, node_limit=node_limit)
    first = plan.actions[0]
    if first == PASS:
        text = "No legal play: pass (-3 points)."
    elif first == END_TURN:
        text = "Stop the turn here: going on would open scoring spots for the opponent."
    else:
        words = " then ".join(
            state.action_to_string(a) if i == 0 else str(a) for i, a in enumerate(plan.actions)
        )
        text = f"Best turn scores {plan.points} points: {words}."
    return Hint(
        first,
        ranking,
        value_unit="points",
        explanation=text,
        elapsed_ms=(time.perf_counter() - t0) * 1000.0,
        plan=list(plan.actions),
    )


def greedy_action(state: TableauxState) -> Any:
    """One tile at a time: the placement scoring most now (ties: one that lets the turn go on,
    then the first listed); always goes on when it can; PASS when nothing fits.

    Raises:
        ValueError: the state is terminal.
    """
    if state.is_terminal():
        raise ValueError("the game is over; no action")
    moves = state.placements()
    if not moves:
        return PASS if not state.plays_this_turn else END_TURN
    m = max(moves, key=lambda m: (m.points, m.continues))
    return Place(m.tile, m.low_cell, m.high_cell)


__all__ = ["ThreatModel", "TurnPlan", "threat", "best_turn", "hint", "greedy_action"]
