"""Good Neighbors (RULES.md section 1): the grid of tiles, rows and columns.

Layout convention (what a player lays, and what ``vision/render/layouts.py`` renders): the
tiles lie lengthwise along the rows, double-12 on 3 rows x 4, double-9 on 3 x 3, double-6 on
2 rows x 6, with small gaps between cells. The photo may be rotated and seen in perspective;
cells may be empty (closed up at the end, or gaps where a pair was just removed).

Method: the dominant long-axis direction ``u`` (length-weighted circular mean of the tiles'
angles, mod 180 degrees) and its normal ``v`` give a first frame; tile centres are clustered
into rows (along ``v``) and columns (along ``u``) by gaps; a homography from (column, row) to
the centres, refitted twice, absorbs perspective. Of the four quarter turns of that frame the
reader keeps the one where the grid fits the set's size, empty cells come last in reading
order, tiles lie along the rows and "up" is nearest the photo's top.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from engine.good_neighbors import GoodNeighborsGame
from engine.tiles import Tile

from .common import (
    GameReading,
    Problem,
    Seen,
    apply_h,
    check_set,
    cluster_1d,
    dominant_axis,
    fit_grid_homography,
    perp,
)

#: Grid size (rows, cols) per set (RULES.md section 1).
SHAPES = {12: (3, 4), 9: (3, 3), 6: (2, 6)}


def _index_clusters(proj: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Cluster labels -> integer lattice indices using the smallest gap between cluster means
    as the pitch (so missing rows/columns in between are kept)."""
    k = labels.max() + 1
    means = np.array([proj[labels == j].mean() for j in range(k)])
    if k == 1:
        return np.zeros(len(proj), int)
    diffs = np.diff(means)
    pitch = float(np.min(diffs))
    # step by step (perspective changes the pitch across the photo): a gap of about two
    # pitches or more between neighbouring clusters is a missing row / column
    idx = np.concatenate([[0], np.cumsum(np.maximum(1, np.round(diffs / pitch)))]).astype(int)
    return idx[labels]


def row_direction(centres: np.ndarray, u0: np.ndarray, length: float) -> np.ndarray:
    """The direction of the grid's rows from the tiles' centres (more exact than box angles).

    Neighbours in a row lie end to end: centre offsets of 0.8 to 1.6 tile lengths within 15
    degrees of the tiles' mean long axis ``u0``. Their mean direction (modulo 180 degrees) is
    returned; ``u0`` when no such pair exists.

    Args:
        centres: ``(N, 2)`` tile centres in pixels.
        u0: ``(2,)`` unit mean long axis of the boxes.
        length: median tile length in pixels.
    Returns:
        ``(2,) float64`` unit vector, the one closest to ``u0``.
    """
    d = (centres[None, :, :] - centres[:, None, :]).reshape(-1, 2)
    n = np.linalg.norm(d, axis=1)
    ok = (n > 0.8 * length) & (n < 1.6 * length)
    if not ok.any():
        return u0
    d, n = d[ok], n[ok]
    cos = np.abs(d @ u0) / n
    d = d[cos > np.cos(np.radians(15))]
    if not len(d):
        return u0
    d = d * np.sign(d @ u0)[:, None]  # all pointing along u0
    m = d.sum(0)
    return m / np.linalg.norm(m)


def grid_cells(seen: Sequence[Seen]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lattice coordinates of the tiles in the frame of their dominant axis.

    Args:
        seen: the tiles on the grid (at least one).
    Returns:
        ``(cols, rows, u)``: two ``(N,) int`` arrays, column along ``u`` and row along ``v``
        (min 0), and ``u`` the ``(2,)`` unit long-axis direction in pixels.
    """
    C = np.array([s.centre for s in seen])
    L = float(np.median([s.length for s in seen]))
    W = float(np.median([s.width for s in seen]))
    u = row_direction(C, dominant_axis(seen, 180.0), L)
    v = perp(u)
    pu, pv = C @ u, C @ v
    cols = _index_clusters(pu, cluster_1d(pu, 0.55 * L))
    rows = _index_clusters(pv, cluster_1d(pv, 0.6 * W))
    for _ in range(2):  # refine through a homography (perspective)
        H = fit_grid_homography(np.c_[cols, rows].astype(float), C)
        if H is None:
            break
        try:
            q = apply_h(np.linalg.inv(H), C)
        except np.linalg.LinAlgError:
            break
        if not np.all(np.isfinite(q)):
            break
        nc, nr = np.round(q[:, 0]).astype(int), np.round(q[:, 1]).astype(int)
        if len(set(zip(nc, nr))) < len(C):
            break
        cols, rows = nc - nc.min(), nr - nr.min()
    return cols, rows, u


def _frames(
    cols: np.ndarray, rows: np.ndarray, u: np.ndarray
) -> Iterator[tuple[str, np.ndarray, np.ndarray, np.ndarray, bool]]:
    """The four quarter turns: (name, col, row, up vector in the image, tiles along rows)."""
    v = perp(u)
    yield "0", cols, rows, -v, True
    yield "180", -cols, -rows, v, True
    yield "90", -rows, cols, u, False
    yield "270", rows, -cols, -u, False


def read_good_neighbors(
    seen: list[Seen],
    problems: list[Problem],
    max_pip: int | None = None,
    stock: Sequence[str] | None = None,
    removed: Sequence[str] | None = None,
    seed: int | None = None,
) -> GameReading:
    """Rebuild a Good Neighbors grid.

    Args:
        seen: the table's tiles (:func:`vision.layout.common.to_seen`).
        problems: list to append to.
        max_pip: 12, 9 or 6 (None: the smallest set whose grid and pips fit what is seen).
        stock: tiles still in the stock, as text ("3-5"); None: every tile neither on the grid
            nor removed (with empty cells at the end of the grid the stock is empty).
        removed: tiles already removed in pairs, as text; used when ``stock`` is None (the
            stock is then every tile neither on the grid nor removed). A photo cannot tell
            the stock from the removed tiles: without either, a full grid is taken as the
            start of a game (nothing removed).
        seed: seed of the stock order in the state.
    Returns:
        :class:`GameReading` with a ``GoodNeighborsState`` (or None) and the grid as layout.
    """
    tiles = [s for s in seen if not s.det.face_down]
    if not tiles:
        problems.append(Problem(None, "no_layout", "no face-up tile on the table"))
        return GameReading(None, {"grid": []}, problems)
    cols, rows, u = grid_cells(tiles)
    top = max((max(s.value) for s in tiles if s.value is not None), default=0)
    sets = [max_pip] if max_pip else [n for n in (6, 9, 12) if n >= top]
    best: tuple[tuple, int, str, np.ndarray, np.ndarray] | None = None
    for n in sets:
        R, Cn = SHAPES[n]
        for name, c, r, up, along in _frames(cols, rows, u):
            c, r = c - c.min(), r - r.min()
            fits = bool(c.max() < Cn and r.max() < R)
            order = r * Cn + c
            filled = set(order.tolist())
            holes = sum(1 for k in range(max(filled) + 1) if k not in filled) if fits else 99
            score = (
                fits,
                -holes,
                along,
                len(tiles) == R * Cn if max_pip is None else 0,
                -n if max_pip is None else 0,
                float(up @ np.array([0.0, -1.0])),
            )
            if best is None or score > best[0]:
                best = (score, n, name, c, r)
    assert best is not None  # ``sets`` is never empty: to_seen keeps pips within double-12
    score, n, name, c, r = best
    R, Cn = SHAPES[n]
    if not score[0]:
        problems.append(
            Problem(
                None,
                "impossible",
                f"the tiles do not fit a {R} x {Cn} grid (double-{n}) in any quarter turn",
            )
        )
    check_set([("table", tiles)], n, problems, limit=R * Cn)
    grid: list[list[Seen | None]] = [[None] * Cn for _ in range(R)]
    cells = []
    for s, cc, rr in zip(tiles, c, r):
        if rr < R and cc < Cn:
            there = grid[rr][cc]
            if there is not None:
                problems.append(
                    Problem(
                        s.index,
                        "overlap",
                        f"table tile {there.index} and table tile {s.index} are read "
                        "on the same place of the grid; one may hide the other",
                    )
                )
            grid[rr][cc] = s
        cells.append(
            {
                "tile_index": s.index,
                "row": int(rr),
                "col": int(cc),
                "tile": None if s.tile is None else str(s.tile),
            }
        )
    reading = [x for row in grid for x in row]
    last = max((k for k, x in enumerate(reading) if x is not None), default=-1)
    gaps = [k for k in range(last + 1) if reading[k] is None]
    if gaps:
        # each gap named by the tile after it in reading order (there is one: k < last)
        after = sorted({next(x.index for x in reading[k:] if x is not None) for k in gaps})
        problems.append(
            Problem(
                None,
                "gap",
                f"{len(gaps)} empty place{'s' if len(gaps) > 1 else ''} inside the grid, "
                f"just before {' and '.join(f'table tile {i}' for i in after)} (reading "
                "the rows in order): tiles were removed; closing up in reading order",
            )
        )
        if stock is None:
            problems.append(
                Problem(
                    None,
                    "mid_turn",
                    "the photo is from the middle of a turn: "
                    "close up and refill from the deck, then photograph again "
                    "(or give stock=[] when the deck is out)",
                )
            )
    layout = {
        "set": f"double-{n}",
        "max_pip": n,
        "rows": R,
        "cols": Cn,
        "turn": name,
        "grid": [
            [None if x is None else (x.label() if x.tile is None else str(x.tile)) for x in row]
            for row in grid
        ],
        "cells": cells,
        "gaps": [list(divmod(k, Cn)) for k in gaps],
    }
    state = None
    if not any(p.blocking for p in problems):
        packed: list[Tile | None] = [x.tile for x in reading if x is not None]
        packed += [None] * (R * Cn - len(packed))
        rows_t = [packed[i * Cn : (i + 1) * Cn] for i in range(R)]
        st = None if stock is None else [Tile.parse(str(t)) for t in stock]
        if st is None and removed:
            gone = {Tile.parse(str(t)) for t in removed} | {t for t in packed if t is not None}
            st = [t for t in GoodNeighborsGame(max_pip=n).domino_set.tiles if t not in gone]
        if st is None and len([x for x in packed if x is not None]) < R * Cn:
            st = []  # empty cells stay empty only once the stock is out (RULES.md s.1)
        try:
            state = GoodNeighborsGame(max_pip=n).state_from_position(rows_t, st, seed=seed)
        except ValueError as e:
            problems.append(Problem(None, "impossible", str(e)))
    return GameReading(state, layout, problems)
