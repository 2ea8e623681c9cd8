"""Tableaux (RULES.md section 5): the grid of half-tile cells under the tableau.

Each tile covers two edge-adjacent cells of a square grid whose pitch is one tile width; tiles
lie both ways. Method: the dominant axis modulo 90 degrees gives the grid's column direction
``u`` (row direction ``v`` at right angles, image y down). Starting from the tile nearest the
middle (its half 0 on cell (0, 0)), each next tile -- the one nearest an already placed tile
-- is placed from that neighbour: the pixel offset between their nearest halves is expressed in
the neighbour's own cell vectors (its half-to-half vector and its width vector, which follow
the local perspective) and rounded to whole cells. Rows grow downwards and columns to the
right in the photo's frame of ``u``; the engine only needs the cells' adjacency, so the
tableau's rotation does not matter.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from engine.tableaux import TableauxGame
from engine.tiles import Tile

from .common import GameReading, Problem, Seen, check_set, dominant_axis, perp

Cell = tuple[int, int]


def _basis(s: Seen, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray, Cell]:
    """Pixel vectors of one cell step along columns and rows at tile ``s``, and the (row, col)
    step from half 0 to half 1."""
    long_vec = s.halves[1] - s.halves[0]
    across = perp(s.axis) * s.width
    if abs(float(s.axis @ u)) >= abs(float(s.axis @ v)):  # lies along the rows
        sg = 1 if long_vec @ u >= 0 else -1
        col_vec = long_vec * sg
        row_vec = across if across @ v >= 0 else -across
        step = (0, sg)
    else:
        sg = 1 if long_vec @ v >= 0 else -1
        row_vec = long_vec * sg
        col_vec = across if across @ u >= 0 else -across
        step = (sg, 0)
    return col_vec, row_vec, step


def tableau_cells(tiles: Sequence[Seen]) -> list[tuple[Cell, Cell]]:
    """``[(cell of half 0, cell of half 1), ...]`` per tile, cells as ``(row, col)`` ints."""
    u = dominant_axis(tiles, 90.0)
    v = perp(u)
    C = np.array([s.centre for s in tiles])
    bases = [_basis(s, u, v) for s in tiles]
    cells: list[tuple[Cell, Cell] | None] = [None] * len(tiles)
    start = int(np.argmin(np.linalg.norm(C - C.mean(0), axis=1)))
    st = bases[start][2]
    cells[start] = ((0, 0), st)
    done = [start]
    todo = set(range(len(tiles))) - {start}
    while todo:
        D = np.linalg.norm(C[list(todo)][:, None] - C[done][None], axis=2)
        a, b = np.unravel_index(int(np.argmin(D)), D.shape)
        q, p = list(todo)[a], done[b]
        hp, hq = tiles[p].halves, tiles[q].halves
        kp = int(np.argmin(np.linalg.norm(hp - hq[0], axis=1)))
        col_vec = (bases[p][0] + bases[q][0]) / 2
        row_vec = (bases[p][1] + bases[q][1]) / 2
        try:
            x = np.linalg.solve(np.c_[col_vec, row_vec], hq[0] - hp[kp])
        except np.linalg.LinAlgError:  # a degenerate box: fall back to the tile width
            w = max(tiles[p].width, 1e-6)
            x = np.array([(hq[0] - hp[kp]) @ u, (hq[0] - hp[kp]) @ v]) / w
        placed = cells[p]
        assert placed is not None  # ``p`` is in ``done``: placed
        r0, c0 = placed[kp]
        c1 = (r0 + int(round(x[1])), c0 + int(round(x[0])))
        sq = bases[q][2]
        cells[q] = (c1, (c1[0] + sq[0], c1[1] + sq[1]))
        done.append(q)
        todo.discard(q)
    return [c for c in cells if c is not None]  # all of them: every tile is placed by now


def read_tableaux(
    seen: list[Seen],
    problems: list[Problem],
    hand: Sequence[Tile] | None = None,
    max_pip: int = 6,
    scores: Sequence[int] = (0, 0),
    player: int = 0,
    opponent_hand_count: int | None = None,
    continuing: bool = False,
    seed: int | None = None,
) -> GameReading:
    """Rebuild a Tableaux position.

    Args:
        seen: the table's tiles.
        problems: list to append to.
        hand: the player's hand (None: no state, the tableau only).
        max_pip: 6 or 9.
        scores, player, opponent_hand_count, continuing, seed: passed to
            ``TableauxGame.state_from_position``.
    Returns:
        :class:`GameReading`; layout ``placed``: per tile its index, value and two cells
        ``[[row, col], [row, col]]`` (half 0 first), ready for the move generator.
    """
    tiles = [s for s in seen if not s.det.face_down]
    check_set([("table", tiles)], max_pip, problems)
    if not tiles:
        problems.append(Problem(None, "no_layout", "no face-up tile on the table"))
        return GameReading(None, {"placed": []}, problems)
    cells = tableau_cells(tiles)
    owner: dict[Cell, int] = {}
    for s, cs in zip(tiles, cells):
        for c in cs:
            if c in owner:
                problems.append(
                    Problem(
                        s.index,
                        "overlap",
                        f"table tile {owner[c]} and table tile {s.index} are read on the "
                        "same place of the tableau; one may hide the other",
                    )
                )
            owner[c] = s.index
    r0 = min(c[0] for cs in cells for c in cs)
    c0 = min(c[1] for cs in cells for c in cs)
    cells = [((a[0] - r0, a[1] - c0), (b[0] - r0, b[1] - c0)) for a, b in cells]
    layout = {
        "set": f"double-{max_pip}",
        "placed": [
            {
                "tile_index": s.index,
                "pips": None if s.value is None else list(s.value),
                "cells": [list(cs[0]), list(cs[1])],
            }
            for s, cs in zip(tiles, cells)
        ],
    }
    state = None
    if hand is None:
        problems.append(
            Problem(
                None,
                "no_hand",
                "no hand given: the tableau is read; the moves and hint need the player's hand",
                "hand",
            )
        )
    elif not any(p.blocking for p in problems):
        try:
            state = TableauxGame(max_pip).state_from_position(
                [(s.value, cs[0], cs[1]) for s, cs in zip(tiles, cells)],
                list(hand),
                scores=scores,
                player=player,
                opponent_hand_count=opponent_hand_count,
                seed=seed,
                continuing=continuing,
            )
        except ValueError as e:
            problems.append(Problem(None, "impossible", str(e)))
    return GameReading(state, layout, problems)
