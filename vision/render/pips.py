"""Pip layouts of one half of a domino tile, for numbers 0-12.

Coordinates are in the unit square of one half: ``s`` runs along the tile's long axis
(0 = the end of the tile, 1 = the divider bar) and ``t`` across the tile (0..1).
0-6 follow the standard die-like patterns; 7-12 use the three-column grid that double-9 and
double-12 sets print (7 = 3+1+3, 8 = 3+2+3, 9 = 3+3+3, 10 = 4+2+4, 11 = 4+3+4, 12 = 4+4+4).
"""

from __future__ import annotations

import numpy as np

MAX_PIPS = 12

_A, _M, _B = 0.24, 0.5, 0.76  # low / middle / high positions in a 3-step grid


def _column(n: int, t: float) -> list[tuple[float, float]]:
    """``n`` pips spread along ``s`` at across-position ``t``."""
    if n == 0:
        return []
    if n == 1:
        return [(_M, t)]
    ss = np.linspace(0.2, 0.8, n) if n == 4 else np.linspace(_A, _B, n)
    return [(float(s), t) for s in ss]


def pip_layout(n: int, six_across: bool = False) -> np.ndarray:
    """Pip centres of the number ``n`` on one half.

    Args:
        n: pips on the half, 0..12.
        six_across: draw 6 (and the 6-pattern inside 7) as two rows of three across the tile
            instead of two rows of three along it (sets differ).
    Returns:
        ``(n, 2) float32`` array of ``(s, t)`` in [0, 1]: ``s`` along the tile's long axis,
        ``t`` across it.
    Raises:
        ValueError: ``n`` outside 0..12.
    """
    if not 0 <= int(n) <= MAX_PIPS:
        raise ValueError(f"pip count must be in 0..{MAX_PIPS}, got {n}")
    n = int(n)
    pts: list[tuple[float, float]]
    if n == 0:
        pts = []
    elif n == 1:
        pts = [(_M, _M)]
    elif n == 2:
        pts = [(_A, _A), (_B, _B)]
    elif n == 3:
        pts = [(_A, _A), (_M, _M), (_B, _B)]
    elif n == 4:
        pts = [(_A, _A), (_A, _B), (_B, _A), (_B, _B)]
    elif n == 5:
        pts = [(_A, _A), (_A, _B), (_M, _M), (_B, _A), (_B, _B)]
    elif n in (6, 7):
        if six_across:
            pts = [(s, t) for s in (_A, _B) for t in (_A, _M, _B)]
        else:
            pts = [(s, t) for s in (_A, _M, _B) for t in (_A, _B)]
        if n == 7:
            pts.append((_M, _M))
    else:  # 8..12: three columns across the tile
        side, mid = {8: (3, 2), 9: (3, 3), 10: (4, 2), 11: (4, 3), 12: (4, 4)}[n]
        pts = _column(side, _A) + _column(mid, _M) + _column(side, _B)
    return np.asarray(pts, dtype=np.float32).reshape(-1, 2)


def pip_radius(max_in_set: int) -> float:
    """Pip radius as a fraction of the half's side, for a set whose halves go up to ``max_in_set``."""
    return 0.095 if max_in_set <= 6 else (0.082 if max_in_set <= 9 else 0.07)
