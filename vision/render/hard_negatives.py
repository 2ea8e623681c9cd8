"""Procedural surfaces and objects that look a little like tiles but are not (hard negatives).

A detector trained on :mod:`vision.render.table` alone takes dark textured rectangles for
face-down tiles. These surfaces and objects teach the tile verifier (``scripts/train_verifier.py``)
what is not a tile: woven and carbon mats, knit, grained leather with glare, speckled laminate,
damask and floral cloth, checkerboards, tile-sized dark objects (books, phones, boxes), and
printed cards whose pattern covers the whole card (dot grids, checkerboard targets, stripes).
They use their own random draws, so the scenes of :func:`vision.render.random_scene` are
unchanged. Images are ``(H, W, 3) float32`` BGR in 0..255, like :mod:`vision.render.table`.
"""

from __future__ import annotations

import cv2
import numpy as np

from .table import smooth_noise

HARD_SURFACES = ("woven", "carbon", "knit", "leather_glare", "speckled", "damask", "checker")


def _colour(rng: np.random.Generator, lo: float, hi: float) -> np.ndarray:
    return rng.uniform(lo, hi, 3).astype(np.float32)


def hard_surface(rng: np.random.Generator, h: int, w: int, kind: str | None = None) -> np.ndarray:
    """A table texture of one of :data:`HARD_SURFACES`.

    Args:
        rng: numpy random generator.
        h, w: size in pixels (>= 1).
        kind: the surface (None: random).
    Returns:
        ``(h, w, 3) float32`` BGR in 0..255.
    Raises:
        ValueError: unknown ``kind``.
    """
    if kind is None:
        kind = str(rng.choice(HARD_SURFACES))
    if kind not in HARD_SURFACES:
        raise ValueError(f"unknown hard surface {kind!r}; use one of {HARD_SURFACES}")
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    ang = rng.uniform(0, np.pi)
    u = xx * np.cos(ang) + yy * np.sin(ang)
    v = -xx * np.sin(ang) + yy * np.cos(ang)
    if kind in ("woven", "carbon"):
        # basket weave: cells of parallel strands, alternating direction; carbon: twill, finer
        cell = rng.uniform(6, 40) if kind == "woven" else rng.uniform(4, 14)
        base = _colour(rng, 10, 90) if rng.random() < 0.75 else _colour(rng, 60, 200)
        iu, iv = np.floor(u / cell), np.floor(v / cell)
        par = ((iu + iv) % 2) if kind == "woven" else (((iu + np.floor(v / cell * 2)) % 4) < 2)
        par = par.astype(np.float32)
        strands = rng.integers(2, 5)
        fu = np.abs(np.sin(np.pi * u / cell * strands))
        fv = np.abs(np.sin(np.pi * v / cell * strands))
        shade = par * fu + (1 - par) * fv
        light = 0.55 + 0.6 * shade + 0.15 * (par - 0.5) * rng.uniform(-1, 1)
        img = base * light[..., None]
        img *= (1 + 0.12 * smooth_noise(rng, h, w, rng.uniform(60, 200)))[..., None]
    elif kind == "knit":
        base = _colour(rng, 30, 220)
        p = rng.uniform(5, 14)
        vee = np.abs(((u / p) % 1.0) - 0.5) * 2  # V columns
        rows = (v / (p * 0.7) + vee * 0.8) % 1.0
        shade = 0.6 + 0.5 * np.sin(np.pi * rows) * (0.6 + 0.4 * np.abs(np.sin(np.pi * u / p)))
        img = base * shade[..., None]
    elif kind == "leather_glare":
        base = _colour(rng, 15, 110)
        grain = cv2.GaussianBlur(
            rng.standard_normal((h, w)).astype(np.float32), (0, 0), rng.uniform(0.8, 2.0)
        )
        img = base * (1 + 0.18 * np.tanh(2 * grain) + 0.1 * smooth_noise(rng, h, w, 80))[..., None]
        for _ in range(int(rng.integers(1, 4))):  # soft specular glare
            cx, cy = rng.uniform(0, w), rng.uniform(0, h)
            sx, sy = rng.uniform(0.05, 0.4) * w, rng.uniform(0.03, 0.2) * h
            g = np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2))
            img += (rng.uniform(60, 200) * g)[..., None]
    elif kind == "speckled":
        base = _colour(rng, 60, 230)
        img = base * (1 + 0.04 * smooth_noise(rng, h, w, 50))[..., None]
        n = int(h * w * rng.uniform(0.002, 0.02))
        pts = rng.uniform([0, 0], [w, h], (n, 2)).astype(np.int32)
        cols = rng.uniform(0, 255, (n, 3))
        rad = rng.integers(1, 4, n)
        for (x, y), c, r in zip(pts, cols, rad):
            cv2.circle(img, (int(x), int(y)), int(r), tuple(float(k) for k in c), -1, cv2.LINE_AA)
    elif kind == "damask":
        c1, c2 = _colour(rng, 20, 200), _colour(rng, 20, 230)
        p = rng.uniform(20, 90)
        a = np.sin(2 * np.pi * u / p) * np.sin(2 * np.pi * v / p)
        b = np.cos(4 * np.pi * (u + v) / p) * np.cos(2 * np.pi * (u - v) / p)
        petal = (np.abs(a + 0.6 * b) > rng.uniform(0.3, 0.7)).astype(np.float32)
        petal = cv2.GaussianBlur(petal, (0, 0), 1.0)
        img = c1 * (1 - petal[..., None]) + c2 * petal[..., None]
    else:  # checker
        c1, c2 = _colour(rng, 0, 120), _colour(rng, 120, 255)
        cell = rng.uniform(8, 80)
        chk = ((np.floor(u / cell) + np.floor(v / cell)) % 2).astype(np.float32)
        chk = cv2.GaussianBlur(chk, (0, 0), 0.7)
        img = c1 * (1 - chk[..., None]) + c2 * chk[..., None]
    return np.clip(img, 0, 255).astype(np.float32)


def _ink(h: int, w: int, text: str, org: tuple[int, int], scale: float, thick: float) -> np.ndarray:
    """``text`` written at ``org`` (px) as an ``(h, w, 1) float32`` coverage in 0..1 (font
    ``scale`` at least 0.3, stroke ``thick`` px at least 1), to blend a colour through."""
    ink = np.zeros((h, w), np.uint8)  # putText draws on 8-bit images only
    cv2.putText(
        ink,
        text,
        org,
        cv2.FONT_HERSHEY_SIMPLEX,
        max(0.3, scale),
        255,
        max(1, int(thick)),
        cv2.LINE_AA,
    )
    return (ink.astype(np.float32) / 255)[..., None]


def add_tile_like_objects(
    img: np.ndarray, rng: np.random.Generator, n: int | None = None, size_px: float | None = None
) -> list[np.ndarray]:
    """Draw dark or plain rectangles about a tile's size and shape that are not tiles: books,
    phones, boxes, cards, rulers, remote controls (some with a screen, text, stitching or buttons).

    Args:
        img: ``(H, W, 3) float32`` image, modified in place.
        rng: numpy random generator.
        n: number of objects (None: random 1..6).
        size_px: typical object width in pixels (None: random).
    Returns:
        The ``(4, 2) float32`` corners of each object (long side first), image pixels.
    """
    h, w = img.shape[:2]
    n = int(rng.integers(1, 7)) if n is None else n
    out = []
    for _ in range(n):
        wid = size_px * rng.uniform(0.6, 1.6) if size_px else rng.uniform(0.03, 0.25) * min(h, w)
        aspect = rng.choice([rng.uniform(1.2, 3.5), rng.uniform(1.8, 2.2)])
        length = wid * aspect
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        ang = rng.uniform(0, 180)
        box = cv2.boxPoints(((cx, cy), (length, wid), ang)).astype(np.float32)
        dark = rng.random() < 0.7
        col = _colour(rng, 5, 70) if dark else _colour(rng, 90, 250)
        layer = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(layer, np.round(box * 4).astype(np.int32), 255, cv2.LINE_AA, 2)
        m = layer.astype(np.float32) / 255
        shade = 1 + 0.08 * smooth_noise(rng, h, w, max(4.0, wid / 3))
        img[:] = img * (1 - m[..., None]) + (col * shade[..., None]) * m[..., None]
        what = rng.choice(["plain", "screen", "text", "stitch", "buttons"])
        c = box.mean(axis=0)
        if what == "screen":  # an inner darker or lighter rectangle (a phone)
            inner = c + (box - c) * rng.uniform(0.7, 0.9)
            cv2.fillConvexPoly(
                img,
                np.round(inner).astype(np.int32),
                tuple(float(k) for k in _colour(rng, 0, 255)),
                cv2.LINE_AA,
            )
        elif what == "text":
            txt = "".join(rng.choice(list("ABCDEFGHIKLMNOPRSTUVW"), size=int(rng.integers(2, 7))))
            a = _ink(h, w, txt, (int(c[0] - wid / 2), int(c[1])), wid / 60, wid / 30)
            img[:] = img * (1 - a) + _colour(rng, 100, 255) * a
        elif what == "stitch":
            inner = c + (box - c) * 0.85
            cv2.polylines(
                img,
                [np.round(inner).astype(np.int32)],
                True,
                tuple(float(k) for k in _colour(rng, 80, 255)),
                1,
                cv2.LINE_AA,
            )
        elif what == "buttons":
            for _k in range(int(rng.integers(2, 9))):
                t = rng.uniform(-0.4, 0.4, 2)
                p = c + t[0] * (box[1] - box[0]) + t[1] * (box[3] - box[0])
                cv2.circle(
                    img,
                    (int(p[0]), int(p[1])),
                    max(1, int(wid * rng.uniform(0.05, 0.12))),
                    tuple(float(k) for k in _colour(rng, 0, 255)),
                    -1,
                    cv2.LINE_AA,
                )
        out.append(box)
    return out


#: Patterns of :func:`add_printed_cards`.
CARD_PATTERNS = ("dots", "checker", "stripes")


def add_printed_cards(
    img: np.ndarray, rng: np.random.Generator, n: int | None = None, size_px: float | None = None
) -> list[np.ndarray]:
    """Draw printed cards about a tile's size that are not tiles: a pale or coloured card whose
    one pattern runs over its whole face with no divider, a regular grid of dots (calibration
    targets, dice sheets; 1.1-1.55 times as long as wide, shorter than a tile), a checkerboard
    target or stripes. A tile shows two halves, each with its own pip pattern; these show one
    pattern end to end.

    Args:
        img: ``(H, W, 3) float32`` image, modified in place.
        rng: numpy random generator.
        n: number of cards (None: random 1..4).
        size_px: typical card width in pixels (None: random).
    Returns:
        The ``(4, 2) float32`` corners of each card (long side first), image pixels.
    """
    h, w = img.shape[:2]
    n = int(rng.integers(1, 5)) if n is None else n
    out = []
    for _ in range(n):
        wid = size_px * rng.uniform(0.6, 1.6) if size_px else rng.uniform(0.03, 0.2) * min(h, w)
        pattern = str(rng.choice(CARD_PATTERNS))
        # a dot grid as long as a tile (about 2:1) may be a tile without a divider: dot cards
        # are shorter (1.1-1.55), the others any length
        length = wid * (rng.uniform(1.1, 1.55) if pattern == "dots" else rng.uniform(1.1, 2.4))
        cx, cy = rng.uniform(0.1 * w, 0.9 * w), rng.uniform(0.1 * h, 0.9 * h)
        ang = rng.uniform(0, 180)
        box = cv2.boxPoints(((cx, cy), (length, wid), ang)).astype(np.float32)
        light = rng.random() < 0.75
        card = _colour(rng, 170, 255) if light else _colour(rng, 20, 160)
        ink = _colour(rng, 0, 70) if light else _colour(rng, 180, 255)
        # the card drawn flat in its own frame (length x width), then warped onto the image
        cw, ch = max(8, int(round(length))), max(4, int(round(wid)))
        face = np.empty((ch, cw, 3), np.float32)
        face[:] = card
        margin = rng.uniform(0.05, 0.15) * ch
        if pattern == "dots":
            rows = int(rng.integers(2, 7))
            cols = max(2, int(round(rows * cw / ch * rng.uniform(0.8, 1.25))))
            rad = max(1.0, min((cw - 2 * margin) / cols, (ch - 2 * margin) / rows) * 0.3)
            rad *= rng.uniform(0.7, 1.3)
            for i in range(rows):
                for j in range(cols):
                    x = margin + (j + 0.5) * (cw - 2 * margin) / cols
                    y = margin + (i + 0.5) * (ch - 2 * margin) / rows
                    cv2.circle(
                        face,
                        (int(x * 4), int(y * 4)),
                        int(rad * 4),
                        tuple(map(float, ink)),
                        -1,
                        cv2.LINE_AA,
                        2,
                    )
        elif pattern == "checker":
            rows = int(rng.integers(2, 8))
            cell = (ch - 2 * margin) / rows
            cols = max(2, int((cw - 2 * margin) / cell))
            for i in range(rows):
                for j in range(cols):
                    if (i + j) % 2:
                        continue
                    x0, y0 = margin + j * cell, margin + i * cell
                    cv2.rectangle(
                        face,
                        (int(x0), int(y0)),
                        (int(x0 + cell), int(y0 + cell)),
                        tuple(map(float, ink)),
                        -1,
                    )
        else:  # stripes
            k = int(rng.integers(3, 12))
            for i in range(k):
                x0 = margin + i * (cw - 2 * margin) / k
                cv2.rectangle(
                    face,
                    (int(x0), int(margin)),
                    (int(x0 + (cw - 2 * margin) / (2 * k)), int(ch - margin)),
                    tuple(map(float, ink)),
                    -1,
                )
        src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
        m = cv2.getPerspectiveTransform(src, box)
        warped = cv2.warpPerspective(face, m, (w, h), flags=cv2.INTER_LINEAR)
        mask = cv2.warpPerspective(np.ones((ch, cw), np.float32), m, (w, h))
        shade = 1 + 0.06 * smooth_noise(rng, h, w, max(4.0, wid / 2))
        img[:] = img * (1 - mask[..., None]) + (warped * shade[..., None]) * mask[..., None]
        out.append(box)
    return out


#: Kinds of :func:`add_dark_objects`.
DARK_OBJECTS = ("screen", "phone", "tin", "seat", "book", "cable")


def _quad(rng: np.random.Generator, centre, length: float, wid: float, tilt: float) -> np.ndarray:
    """A ``length x wid`` rectangle turned at random and foreshortened by up to ``tilt`` (one
    side shorter than the other, as a flat object seen at an angle): ``(4, 2) float32``."""
    ang = rng.uniform(0, np.pi)
    u = np.array([np.cos(ang), np.sin(ang)], np.float32)
    v = np.array([-u[1], u[0]], np.float32)
    k = rng.uniform(-tilt, tilt)
    hl, hw = length / 2, wid / 2
    return np.array(
        [
            centre - u * hl * (1 - k) - v * hw,
            centre + u * hl * (1 - k) - v * hw,
            centre + u * hl * (1 + k) + v * hw,
            centre - u * hl * (1 + k) + v * hw,
        ],
        np.float32,
    )


def _inside(h: int, w: int, quad: np.ndarray) -> np.ndarray:
    """``(h, w) float32`` coverage of the convex polygon ``quad`` (``(k, 2)`` px, rounded to
    whole pixels): 1 inside, anti-aliased edges, 0 outside."""
    m = np.zeros((h, w), np.float32)
    cv2.fillConvexPoly(m, np.round(quad).astype(np.int32), 1.0, cv2.LINE_AA)
    return m


def add_dark_objects(
    img: np.ndarray,
    rng: np.random.Generator,
    tile_px: float | None = None,
    n: int | None = None,
) -> list[np.ndarray]:
    """Draw dark objects that are not tiles and are larger than a tile: a screen or monitor (a
    bezel, a glossy sheen), a phone or tablet, a tin with a printed label, a chair seat or
    cushion, a book, a loop of black cable, each seen at an angle, often cut by the frame's
    edge, with a soft shadow. Near a set of tiles a dark rectangle 2-6 tiles wide is furniture,
    not a tile seen face down.

    Args:
        img: ``(H, W, 3) float32`` BGR image in 0..255, modified in place.
        rng: numpy random generator.
        tile_px: the width of a tile in this picture, px (None: no tile; objects 4-45% of the
            short side wide). Objects are 1.8-6 times as wide.
        n: number of objects (None: random 1..3).
    Returns:
        The ``(4, 2) float32`` corners of each object (long side first), image pixels.
    """
    h, w = img.shape[:2]
    n = int(rng.integers(1, 4)) if n is None else n
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    out = []
    for _ in range(n):
        kind = str(rng.choice(DARK_OBJECTS))
        base = rng.uniform(1.8, 6.0) * tile_px if tile_px else rng.uniform(0.04, 0.45) * min(h, w)
        aspect = {
            "screen": rng.uniform(1.3, 1.9),
            "phone": rng.uniform(1.8, 2.2),
            "tin": rng.uniform(1.2, 2.0),
            "seat": rng.uniform(1.0, 1.4),
            "book": rng.uniform(1.2, 1.6),
            "cable": rng.uniform(1.0, 3.0),
        }[kind]
        wid, length = base, base * aspect
        centre = rng.uniform([-0.1 * w, -0.1 * h], [1.1 * w, 1.1 * h]).astype(np.float32)
        quad = _quad(rng, centre, length, wid, 0.35)
        if kind == "cable":  # a loop of black cable: a thick dark curve, no body
            pts = quad.mean(0) + (quad - quad.mean(0)) * rng.uniform(0.4, 1.0, (4, 1))
            curve = cv2.approxPolyDP(pts.astype(np.float32), 1, True).reshape(-1, 2)
            thick = max(2, int(base * rng.uniform(0.03, 0.08)))
            loop = tuple(float(k) for k in _colour(rng, 5, 40))
            cv2.polylines(img, [np.round(curve).astype(np.int32)], True, loop, thick, cv2.LINE_AA)
            out.append(quad)
            continue
        off = rng.uniform(-0.08, 0.08, 2).astype(np.float32) * base
        soft = cv2.GaussianBlur(_inside(h, w, quad + off), (0, 0), max(1.0, 0.06 * base))
        img *= (1 - rng.uniform(0.2, 0.5) * soft)[..., None]
        fill = _inside(h, w, quad)
        # a seat's padded edges are rounded
        m = cv2.GaussianBlur(fill, (0, 0), max(1.0, 0.08 * base)) if kind == "seat" else fill
        col = _colour(rng, 8, 70) if kind != "tin" else _colour(rng, 90, 200)
        body = np.empty_like(img)
        body[:] = col
        if kind in ("screen", "phone", "tin"):  # glossy: a sheen across the face
            d = quad[1] - quad[0]  # g: 0..1 along the long side
            g = ((xx - quad[0, 0]) * d[0] + (yy - quad[0, 1]) * d[1]) / max(float(d @ d), 1.0)
            band = np.exp(-(((g - rng.uniform(0, 1)) / rng.uniform(0.08, 0.4)) ** 2))
            body += (rng.uniform(15, 90) * band)[..., None]
        if kind == "seat":
            fabric = cv2.GaussianBlur(
                rng.standard_normal((h, w)).astype(np.float32), (0, 0), rng.uniform(0.6, 1.5)
            )
            body *= (1 + 0.15 * fabric)[..., None]
        body *= (1 + 0.1 * smooth_noise(rng, h, w, max(4.0, base / 3)))[..., None]
        c = quad.mean(axis=0)
        if kind in ("screen", "phone"):  # a bezel: the glass inset, a shade apart
            inner = c + (quad - c) * rng.uniform(0.8, 0.94)
            body *= (1 + rng.uniform(-0.4, 0.3) * _inside(h, w, inner))[..., None]
        elif kind == "tin":  # a printed label on a metal lid
            inner = c + (quad - c) * rng.uniform(0.5, 0.85)
            label = _inside(h, w, inner)
            body = body * (1 - label[..., None]) + _colour(rng, 0, 255) * label[..., None]
            txt = "".join(rng.choice(list("ABDEGIMNORSTW"), size=int(rng.integers(4, 9))))
            a = _ink(h, w, txt, (int(c[0] - base / 2), int(c[1])), base / 140, base / 50)
            body = body * (1 - a) + _colour(rng, 0, 255) * a
        elif kind == "book":  # a spine line near one short side
            t = rng.uniform(0.05, 0.15)
            p0 = quad[0] + (quad[1] - quad[0]) * t
            p1 = quad[3] + (quad[2] - quad[3]) * t
            cv2.line(
                body,
                (int(p0[0]), int(p0[1])),
                (int(p1[0]), int(p1[1])),
                tuple(float(k) for k in _colour(rng, 40, 160)),
                max(1, int(base / 60)),
                cv2.LINE_AA,
            )
        img[:] = img * (1 - m[..., None]) + body * m[..., None]
        out.append(quad)
    np.clip(img, 0, 255, out=img)
    return out
