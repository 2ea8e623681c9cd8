"""Luzon (RULES.md section 3): five columns with their bottom (free) tiles, and the reserve.

Layout convention (rendered by ``vision/render/layouts.py``): each column runs from top to
bottom with its tiles lying crosswise to the column (long axis across), small gaps between
tiles; the reserve (up to 3 tiles) lies apart, below the columns, its tiles turned a quarter
turn from the column tiles. A column's last tile (nearest the reserve) is the free one.

Method: the dominant axis modulo 90 degrees splits the tiles into two families by direction;
the family with more than 3 tiles (else the one higher in the photo) are column tiles, the
other the reserve. "Down" is the direction from the columns toward the reserve (without a
reserve: the way
the columns' tops line up, as they are dealt from the top and shrink from the bottom; if both
ends line up alike, the column direction nearest the photo's bottom). Column tiles are clustered across
that direction into columns and ordered along it.
"""

from __future__ import annotations

import numpy as np

from engine.luzon import LuzonGame

from .common import (
    GameReading,
    Problem,
    Seen,
    check_set,
    cluster_1d,
    dominant_axis,
    perp,
    tile_json,
)


def _columns(col_tiles: list[Seen], down: np.ndarray) -> tuple[list[list[Seen]], np.ndarray]:
    """Column tiles clustered across ``down`` (left to right) and sorted top to bottom."""
    right = np.array([down[1], -down[0]])
    L = float(np.median([s.length for s in col_tiles]))
    across = np.array([s.centre @ right for s in col_tiles])
    labels = cluster_1d(across, 0.5 * L)
    columns: list[list[Seen]] = []
    for k in range(labels.max() + 1):
        col = [s for s, lab in zip(col_tiles, labels) if lab == k]
        columns.append(sorted(col, key=lambda s: float(s.centre @ down)))
    return columns, right


def read_luzon(
    seen: list[Seen],
    problems: list[Problem],
    variant: str | None = None,
    seed: int | None = None,
) -> GameReading:
    """Rebuild a Luzon position (double-6).

    Args:
        seen: the table's tiles.
        problems: list to append to.
        variant: None or "sixes" (RULES.md section 3).
        seed: seed of the state's RNG.
    Returns:
        :class:`GameReading` with a ``LuzonState`` (or None); layout: columns top to bottom
        (tile texts and indices), the free tiles, the reserve.
    """
    tiles = [s for s in seen if not s.det.face_down]
    if not tiles:
        problems.append(Problem(None, "no_layout", "no face-up tile on the table"))
        return GameReading(None, {"columns": [], "reserve": []}, problems)
    u = dominant_axis(tiles, 90.0)
    along = np.array([abs(float(s.axis @ u)) > 0.707 for s in tiles])
    fam = [[s for s, a in zip(tiles, along) if a], [s for s, a in zip(tiles, along) if not a]]
    fam.sort(key=lambda f: -len(f))
    if fam[1] and len(fam[0]) <= 3:
        # both small: the reserve lies below the columns
        fam.sort(key=lambda f: float(np.mean([s.centre[1] for s in f])))
    col_tiles, reserve = fam
    ucol = dominant_axis(col_tiles, 180.0)
    down = perp(ucol)
    cc = np.mean([s.centre for s in col_tiles], axis=0)
    if reserve:
        rc = np.mean([s.centre for s in reserve], axis=0)
        if float((rc - cc) @ down) < 0:
            down = -down
    elif down[1] < 0:
        down = -down
    columns, right = _columns(col_tiles, down)
    if not reserve:
        # columns are dealt from the top and shrink from the bottom: their tops line up
        W = float(np.median([s.width for s in col_tiles]))
        tops = [float(c[0].centre @ down) for c in columns]
        bottoms = [float(c[-1].centre @ down) for c in columns]
        if np.ptp(bottoms) < np.ptp(tops) - 0.5 * W:
            down = -down
            columns, right = _columns(col_tiles, down)
    reserve.sort(key=lambda s: float(s.centre @ right))
    if len(columns) > 5:
        problems.append(
            Problem(None, "impossible", f"{len(columns)} columns seen; Luzon never has more than 5")
        )
    if len(reserve) > 3:
        problems.append(
            Problem(
                None,
                "impossible",
                f"{len(reserve)} reserve tiles seen; the reserve holds at most 3",
            )
        )
    check_set([("table", tiles)], 6, problems, limit=28)
    layout = {
        "columns": [[tile_json(s) for s in col] for col in columns],
        "free": [tile_json(col[-1]) for col in columns],
        "reserve": [tile_json(s) for s in reserve],
    }
    state = None
    if not any(p.blocking for p in problems):
        try:
            state = LuzonGame(variant=variant).state_from_position(
                [[s.known for s in col] for col in columns], [s.known for s in reserve], seed=seed
            )
        except ValueError as e:
            problems.append(Problem(None, "impossible", str(e)))
    return GameReading(state, layout, problems)
