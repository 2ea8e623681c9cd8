"""The Big Clock (RULES.md section 2): the ring of slots and the top tile of each pile.

Layout convention (rendered by ``vision/render/layouts.py``): N slots (N = 12, 9 or 6, the
set's top number) evenly around a ring, slot N at the top of the clock and 1..N-1 clockwise;
0-0 in the centre with its long axis pointing at slot N. Piles lie across the radius; a pile
whose double came home is turned to radiate out (long axis along the radius). Only the top tile
of a pile is seen; a slot with no tile is a blank slot.

Method: the 0-0 (else the tile nearest the middle of the layout, when clearly inside the
ring) is the centre tile; an ellipse fitted to the other tiles' centres (the ring in perspective) is mapped to a
circle; slot N is the direction the centre tile's long axis points to (of its two ends, the one
nearer the photo's top), otherwise the slot direction nearest the photo's top; each tile takes
the nearest slot angle clockwise from there.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from engine.big_clock import BigClockGame
from engine.tiles import Tile

from .common import GameReading, Problem, Seen, check_set, tile_json


def _normaliser(pts: np.ndarray):
    """Affine map taking the ellipse through ``pts`` to a unit circle (no reflection)."""
    if len(pts) >= 5:
        (cx, cy), (a, b), ang = cv2.fitEllipse(pts.astype(np.float32))
        t = math.radians(ang)
        R = np.array([[math.cos(t), math.sin(t)], [-math.sin(t), math.cos(t)]])
        S = np.diag([2.0 / max(a, 1e-6), 2.0 / max(b, 1e-6)])
        M = S @ R
        c = np.array([cx, cy])
    else:
        c = pts.mean(0)
        M = np.eye(2) / max(float(np.linalg.norm(pts - c, axis=1).mean()), 1e-6)
    return c, M


def _face_down_centre(
    seen: list[Seen], mid: np.ndarray, radius: float, problems: list[Problem]
) -> Seen | None:
    """A face-down tile in the middle of the ring (within 0.4 of the ring's median radius of the
    face-up tiles' mean), taken as the centre 0-0 (RULES.md section 2: the 0-0 lies in the
    centre; a blank double without a divider looks like a back). Reported, not blocking."""
    down = [s for s in seen if s.det.face_down]
    if not down or radius <= 0:
        return None
    dist = [float(np.linalg.norm(s.centre - mid)) for s in down]
    j = int(np.argmin(dist))
    if dist[j] >= 0.4 * radius:
        return None
    problems.append(
        Problem(
            down[j].index,
            "face_down",
            "the tile in the centre of the clock looks "
            "face down (a blank 0-0 without a divider looks like a back): taken "
            "as the 0-0, pointing to 12 o'clock",
        )
    )
    return down[j]


def read_big_clock(
    seen: list[Seen],
    problems: list[Problem],
    max_pip: int | None = None,
    seed: int | None = None,
    drawn: str | Tile | None = None,
) -> GameReading:
    """Rebuild a Big Clock position from the top tiles of the piles.

    Args:
        seen: the table's tiles (face-down tiles, e.g. the stock, are ignored).
        problems: list to append to.
        max_pip: 12, 9 or 6 (None: 12 if a pip above 9 is seen, else 9 if above 6, else the
            number of ring tiles decides: more than 6 -> 9, else 6).
        seed: seed of the unseen stock order in the state.
        drawn: the tile the player drew and holds (typed, or read from a photo of it); None:
            not given, reported as ``no_drawn`` (the engine's hint needs it).
    Returns:
        :class:`GameReading` with a ``BigClockState`` (or None); layout: per slot the top tile,
        whether it is home or a double in trouble, the centre tile.
    """
    tiles = [s for s in seen if not s.det.face_down]
    if len(tiles) < 3:
        problems.append(
            Problem(None, "no_layout", f"{len(tiles)} face-up tiles: too few for a clock")
        )
        return GameReading(None, {"slots": {}}, problems)
    top = max((max(s.value) for s in tiles if s.value is not None), default=0)
    C = np.array([s.centre for s in tiles])
    mid = C.mean(0)
    d = np.linalg.norm(C - mid, axis=1)
    zero = [k for k, s in enumerate(tiles) if s.tile == Tile(0, 0)]
    i0 = zero[0] if zero else int(np.argmin(d))
    others = np.delete(d, i0)
    centre = tiles[i0] if zero or d[i0] < 0.4 * float(np.median(others)) else None
    if centre is None:
        centre = _face_down_centre(seen, mid, float(np.median(d)), problems)
    ring = [s for s in tiles if s is not centre]
    n = max_pip or (12 if top > 9 else 9 if top > 6 else (9 if len(ring) > 6 else 6))
    step = 2 * math.pi / n
    P = np.array([s.centre for s in ring])
    c, M = _normaliser(P)
    if centre is not None:
        c = centre.centre  # the clock's middle
    q = (P - c) @ M.T
    ang = np.arctan2(q[:, 1], q[:, 0])  # image y down: increasing angle = clockwise

    def img_dir_angle(vec: np.ndarray) -> float:
        w = M @ vec
        return math.atan2(w[1], w[0])

    if centre is not None:
        ax = centre.axis if centre.axis @ np.array([0.0, -1.0]) >= 0 else -centre.axis
        phi0 = img_dir_angle(ax)
    else:
        phi0 = img_dir_angle(np.array([0.0, -1.0]))
    # align phi0 to the slot lattice of the ring tiles (mean residual)
    res = np.angle(np.mean(np.exp(1j * n * (ang - phi0)))) / n
    phi_fit = phi0 + res
    if centre is None:  # the slot direction nearest the photo's top
        up = img_dir_angle(np.array([0.0, -1.0]))
        cands = [phi_fit + m * step for m in range(n)]
        phi_fit = min(cands, key=lambda p: abs(math.remainder(p - up, 2 * math.pi)))
    k = np.round(((ang - phi_fit) % (2 * math.pi)) / step).astype(int) % n
    slots = np.where(k == 0, n, k)
    if centre is not None and centre.tile is not None and centre.tile != Tile(0, 0):
        problems.append(
            Problem(
                centre.index,
                "impossible",
                f"the centre tile reads {centre.tile}; the clock's centre holds 0-0",
            )
        )
    check_set([("table", tiles)], n, problems, limit=n + 1)
    by_slot: dict[int, Seen] = {}
    for s, k_ in zip(ring, slots):
        k_ = int(k_)
        if k_ in by_slot:
            problems.append(
                Problem(
                    s.index,
                    "ambiguous",
                    f"table tile {by_slot[k_].index} and table tile {s.index} both read as "
                    f"the top of slot {k_}; a pile shows one top tile",
                )
            )
        else:
            by_slot[k_] = s
    slot_json = {}
    for k_ in range(1, n + 1):
        pile = by_slot.get(k_)
        if pile is None:
            slot_json[str(k_)] = {"top": None, "blank": True}
            continue
        radial = (pile.centre - c) / max(float(np.linalg.norm(pile.centre - c)), 1e-6)
        rec = tile_json(pile)
        rec.update(blank=False, radial=bool(abs(float(pile.axis @ radial)) > 0.707))
        t = pile.tile
        rec["home"] = bool(t is not None and t == Tile(k_, k_))
        rec["double_in_trouble"] = bool(t is not None and t.is_double and t != Tile(k_, k_))
        slot_json[str(k_)] = rec
    layout = {
        "set": f"double-{n}",
        "max_pip": n,
        "slots": slot_json,
        "centre": None if centre is None else tile_json(centre),
    }
    state = None
    if drawn is None:
        problems.append(
            Problem(
                None,
                "no_drawn",
                "which tile did you draw? The hint is about "
                "the drawn tile: type it or photograph it",
            )
        )
    if not any(p.blocking for p in problems):
        piles = {k_: (by_slot[k_].tile if k_ in by_slot else None) for k_ in range(1, n + 1)}
        try:
            state = BigClockGame(max_pip=n).state_from_position(piles, seed=seed, drawn=drawn)
        except ValueError as e:
            problems.append(Problem(None, "impossible", str(e)))
    return GameReading(state, layout, problems)
