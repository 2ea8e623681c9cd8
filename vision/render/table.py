"""Procedural table surfaces (wood, felt, leather, cloth, paper, plain) and clutter.

Everything is drawn with numpy/OpenCV from random numbers; nothing is downloaded.
Images are ``(H, W, 3) float32`` BGR in 0..255.
"""

from __future__ import annotations

import cv2
import numpy as np

SURFACES = ("wood", "felt", "leather", "cloth", "paper", "plain", "stone")


def smooth_noise(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """``(h, w) float32`` smooth noise of zero mean and unit-ish std with features ~``cell`` px."""
    gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def _rand_colour(rng, lo=30, hi=230):
    return np.array(rng.integers(lo, hi, 3), np.float32)


def table_surface(rng: np.random.Generator, h: int, w: int, kind: str | None = None) -> np.ndarray:
    """A random table texture.

    Args:
        rng: numpy random generator.
        h, w: size in pixels.
        kind: one of :data:`SURFACES` or None for random.
    Returns:
        ``(h, w, 3) float32`` BGR image in 0..255.
    Raises:
        ValueError: unknown ``kind``.
    """
    if kind is None:
        kind = str(rng.choice(SURFACES, p=[0.3, 0.15, 0.08, 0.12, 0.12, 0.15, 0.08]))
    if kind not in SURFACES:
        raise ValueError(f"unknown surface {kind!r}; use one of {SURFACES}")
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = np.array(
            [rng.uniform(40, 140), rng.uniform(80, 170), rng.uniform(110, 210)], np.float32
        )
        if rng.random() < 0.2:  # grey weathered wood
            base = np.full(3, rng.uniform(90, 170), np.float32) + rng.normal(0, 8, 3).astype(
                np.float32
            )
        ang = rng.uniform(0, np.pi)
        u = xx * np.cos(ang) + yy * np.sin(ang)
        v = -xx * np.sin(ang) + yy * np.cos(ang)
        warp = smooth_noise(rng, h, w, rng.uniform(40, 160)) * rng.uniform(5, 25)
        grain = np.sin((v + warp) * rng.uniform(0.15, 0.6)) * 0.5 + 0.5 * np.sin(
            (v + warp * 0.5) * 0.05
        )
        streak = smooth_noise(rng, h, w, 6) * 0.3
        f = 1 + 0.12 * grain + 0.05 * streak
        img = base * f[..., None]
        plank = rng.uniform(60, 300)
        seams = np.abs(((v + 1000) % plank) - plank / 2) > plank / 2 - rng.uniform(0.8, 2.5)
        img[seams] *= rng.uniform(0.3, 0.7)
        _ = u
    elif kind == "felt":
        base = np.array(
            rng.choice([(40, 110, 30), (110, 60, 20), (40, 40, 140), (60, 60, 60), (90, 20, 80)]),
            np.float32,
        ) + rng.normal(0, 15, 3).astype(np.float32)
        n = rng.standard_normal((h, w)).astype(np.float32)
        n = cv2.GaussianBlur(n, (0, 0), 0.8)
        img = base * (1 + 0.08 * n + 0.05 * smooth_noise(rng, h, w, 80))[..., None]
    elif kind == "leather":
        base = np.array(
            [rng.uniform(20, 80), rng.uniform(30, 90), rng.uniform(50, 140)], np.float32
        )
        n1 = smooth_noise(rng, h, w, 4)
        n2 = smooth_noise(rng, h, w, 60)
        img = base * (1 + 0.1 * np.tanh(n1) + 0.1 * n2)[..., None]
    elif kind == "cloth":
        c1, c2 = _rand_colour(rng), _rand_colour(rng, 150, 255)
        period = rng.uniform(2.5, 6)
        weave = 0.5 + 0.25 * (np.sin(xx * 2 * np.pi / period) + np.sin(yy * 2 * np.pi / period))
        img = c1 * (0.85 + 0.2 * weave)[..., None]
        if rng.random() < 0.5:  # gingham / checks
            cell = rng.uniform(15, 60)
            chk = ((xx // cell) % 2).astype(np.float32) + ((yy // cell) % 2).astype(np.float32)
            img = img * (1 - chk[..., None] * 0.3) + c2 * chk[..., None] * 0.3
    elif kind == "paper":
        base = np.array([rng.uniform(200, 255)] * 3, np.float32) + rng.normal(0, 5, 3).astype(
            np.float32
        )
        n = rng.standard_normal((h, w)).astype(np.float32)
        img = base * (1 + 0.015 * n + 0.02 * smooth_noise(rng, h, w, 100))[..., None]
    elif kind == "stone":
        base = _rand_colour(rng, 80, 220)
        n = smooth_noise(rng, h, w, rng.uniform(8, 30)) + 0.5 * smooth_noise(rng, h, w, 3)
        img = base * (1 + 0.08 * n)[..., None]
        for _ in range(int(rng.integers(0, 6))):
            pts = np.cumsum(rng.normal(0, 15, (30, 2)), 0) + rng.uniform(0, [w, h])
            cv2.polylines(
                img,
                [pts.astype(np.int32)],
                False,
                tuple(float(v) * 0.8 for v in base),
                1,
                cv2.LINE_AA,
            )
    else:  # plain: grey/colour surface with faint texture (card table, countertop)
        base = _rand_colour(rng, 40, 240)
        if rng.random() < 0.5:
            base[:] = base.mean()
        n = rng.standard_normal((h, w)).astype(np.float32)
        img = base * (1 + 0.03 * n + 0.04 * smooth_noise(rng, h, w, 120))[..., None]
    return np.clip(img, 0, 255).astype(np.float32)


def add_clutter(
    img: np.ndarray, rng: np.random.Generator, n: int | None = None, avoid: np.ndarray | None = None
) -> None:
    """Draw random objects (shapes, boxes with text, playing cards, dice, pens) onto ``img``.

    Args:
        img: ``(H, W, 3) float32`` image, modified in place.
        rng: numpy random generator.
        n: number of objects (None: random 0..5).
        avoid: optional ``(H, W) bool`` mask where nothing may be drawn (tiles' area).
    """
    h, w = img.shape[:2]
    if n is None:
        n = int(rng.integers(0, 6))
    for _ in range(n):
        layer = np.zeros((h, w, 3), np.uint8)
        mask = np.zeros((h, w), np.uint8)
        kind = rng.choice(["poly", "ellipse", "box", "card", "die", "pen", "text"])
        col = tuple(int(v) for v in rng.integers(0, 256, 3))
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sz = rng.uniform(0.05, 0.4) * min(h, w)
        ang = rng.uniform(0, 180)
        if kind == "poly":
            k = int(rng.integers(3, 8))
            pts = np.stack(
                [
                    cx
                    + sz * rng.uniform(0.3, 1, k) * np.cos(np.sort(rng.uniform(0, 2 * np.pi, k))),
                    cy
                    + sz * rng.uniform(0.3, 1, k) * np.sin(np.sort(rng.uniform(0, 2 * np.pi, k))),
                ],
                1,
            )
            cv2.fillPoly(layer, [pts.astype(np.int32)], col, cv2.LINE_AA)
            cv2.fillPoly(mask, [pts.astype(np.int32)], 255, cv2.LINE_AA)
        elif kind == "ellipse":
            axes = (int(sz), int(sz * rng.uniform(0.3, 1)))
            cv2.ellipse(layer, (int(cx), int(cy)), axes, ang, 0, 360, col, -1, cv2.LINE_AA)
            cv2.ellipse(mask, (int(cx), int(cy)), axes, ang, 0, 360, 255, -1, cv2.LINE_AA)
        elif kind in ("box", "card", "die", "pen"):
            if kind == "box":
                wh = (sz * 2, sz * rng.uniform(0.4, 0.8))
                col = tuple(int(v) for v in rng.uniform([60, 120, 160], [140, 190, 230]))
            elif kind == "card":
                wh = (sz * 0.7, sz)
                col = (240, 240, 240) if rng.random() < 0.7 else col
            elif kind == "die":
                wh = (sz * 0.3, sz * 0.3)
                col = (240, 240, 240) if rng.random() < 0.6 else col
            else:
                wh = (sz * 2, sz * 0.08)
            box = cv2.boxPoints(((cx, cy), wh, ang)).astype(np.int32)
            cv2.fillPoly(layer, [box], col, cv2.LINE_AA)
            cv2.fillPoly(mask, [box], 255, cv2.LINE_AA)
            dark = tuple(int(c * 0.5) for c in col)
            cv2.polylines(layer, [box], True, dark, max(1, int(sz * 0.03)), cv2.LINE_AA)
            if kind == "box" or (kind == "card" and rng.random() < 0.7):
                txt = "".join(rng.choice(list("DOMINOESCARDPLAY"), size=int(rng.integers(2, 9))))
                cv2.putText(
                    layer,
                    txt,
                    (int(cx - sz * 0.6), int(cy)),
                    cv2.FONT_HERSHEY_DUPLEX,
                    max(0.3, sz / 90),
                    (20, 20, 20) if kind == "box" else (30, 30, 200),
                    max(1, int(sz / 50)),
                    cv2.LINE_AA,
                )
            if kind == "die":
                for _k in range(int(rng.integers(1, 7))):
                    px, py = cx + rng.uniform(-0.1, 0.1) * sz, cy + rng.uniform(-0.1, 0.1) * sz
                    cv2.circle(
                        layer,
                        (int(px), int(py)),
                        max(1, int(sz * 0.03)),
                        (20, 20, 20),
                        -1,
                        cv2.LINE_AA,
                    )
        else:  # text
            txt = "".join(
                rng.choice(
                    list("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "), size=int(rng.integers(3, 12))
                )
            )
            font = int(rng.integers(0, 7))
            cv2.putText(
                layer,
                txt,
                (int(cx), int(cy)),
                font,
                max(0.4, sz / 60),
                col,
                max(1, int(sz / 40)),
                cv2.LINE_AA,
            )
            cv2.putText(
                mask,
                txt,
                (int(cx), int(cy)),
                font,
                max(0.4, sz / 60),
                255,
                max(1, int(sz / 40)),
                cv2.LINE_AA,
            )
            mask = cv2.dilate(mask, np.ones((3, 3), np.uint8))
        m = mask.astype(np.float32) / 255
        if avoid is not None:
            m[avoid] = 0
        # drop shadow
        sh = cv2.GaussianBlur(
            np.roll(m, (int(sz * 0.05) + 1, int(sz * 0.05) + 1), (0, 1)), (0, 0), 2 + sz * 0.03
        )
        img *= (1 - 0.35 * sh * (1 - m))[..., None]
        img[:] = img * (1 - m[..., None]) + layer.astype(np.float32) * m[..., None]
