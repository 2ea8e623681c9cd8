"""Drawing one tile's top face (face up or face down) as a flat texture.

The texture is ``(S, 2S)`` pixels: x runs along the tile's long axis, the half at x < S is
half 0 (the end between label corners 0 and 3), the half at x >= S is half 1.
"""

from __future__ import annotations

import cv2
import numpy as np

from .pips import pip_layout, pip_radius
from .styles import TileStyle

_SHIFT = 4  # fixed-point bits for antialiased drawing
_F = 1 << _SHIFT


def _pt(x: float, y: float) -> tuple[int, int]:
    return int(round(x * _F)), int(round(y * _F))


def _circle(img: np.ndarray, x: float, y: float, r: float, colour, thickness: int = -1) -> None:
    cv2.circle(img, _pt(x, y), max(1, int(round(r * _F))), colour, thickness, cv2.LINE_AA, _SHIFT)


def rounded_rect_mask(h: int, w: int, radius: float) -> np.ndarray:
    """``(h, w) float32`` mask in [0, 1] of a rectangle with rounded corners of ``radius`` px."""
    m = np.zeros((h * 2, w * 2), np.uint8)  # draw at 2x then shrink for smooth edges
    r = max(0, int(radius * 2))
    cv2.rectangle(m, (r, 0), (w * 2 - 1 - r, h * 2 - 1), 255, -1)
    cv2.rectangle(m, (0, r), (w * 2 - 1, h * 2 - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w * 2 - 1 - r, r), (r, h * 2 - 1 - r), (w * 2 - 1 - r, h * 2 - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


def _draw_pip(img: np.ndarray, x: float, y: float, r: float, colour, body, look: str) -> None:
    if look == "engraved":
        _circle(img, x, y, r, tuple(int(c * 0.55) for c in colour))
        _circle(img, x + r * 0.12, y + r * 0.12, r * 0.72, colour)
    elif look == "raised":
        _circle(img, x + r * 0.18, y + r * 0.18, r, tuple(int(c * 0.5) for c in body))
        _circle(img, x, y, r, colour)
        hl = tuple(int(min(255, c * 0.5 + 128)) for c in colour)
        _circle(img, x - r * 0.3, y - r * 0.3, r * 0.3, hl)
    else:
        _circle(img, x, y, r, colour)


def pip_centres(pips: tuple[int, int], style: TileStyle, size: int) -> list[np.ndarray]:
    """Pixel centres of the pips of each half in a texture of side ``size``.

    Returns:
        ``[p0, p1]`` with ``p_i`` of shape ``(pips[i], 2) float32`` (x, y) texture pixels.
    """
    out = []
    for half, n in enumerate(pips):
        st = pip_layout(n, style.six_across)
        if half == 0:  # s = 0 at the tile's end (x = 0), 1 at the divider (x = S)
            xs = st[:, 0] * size
        else:
            xs = 2 * size - st[:, 0] * size
        ys = st[:, 1] * size
        out.append(np.stack([xs, ys], axis=1).astype(np.float32).reshape(-1, 2))
    return out


def draw_tile_texture(
    style: TileStyle, pips: tuple[int, int] | None, size: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Draw a tile's top face.

    Args:
        style: the set's look.
        pips: ``(a, b)`` pips on half 0 and half 1, or None for a face-down tile (its back).
        size: side of one half in pixels (the texture is ``size`` high, ``2 * size`` wide), >= 8.
        rng: numpy random generator (shading, wear, back-pattern placement).
    Returns:
        ``(texture, alpha)``: ``(size, 2*size, 3) float32`` BGR in 0..255 and ``(size, 2*size)
        float32`` coverage in [0, 1] (rounded corners are transparent).
    Raises:
        ValueError: ``size`` < 8 or a pip count outside 0..12.
    """
    if size < 8:
        raise ValueError(f"texture size must be >= 8 px, got {size}")
    S = int(size)
    h, w = S, 2 * S
    face = style.back if pips is None else style.body
    img = np.empty((h, w, 3), np.uint8)
    img[:] = face
    # gentle shading across the face and material noise
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = 1.0 + rng.uniform(-0.08, 0.08) * (xx / w - 0.5) + rng.uniform(-0.08, 0.08) * (yy / h - 0.5)
    if style.family == "wood":
        freq = rng.uniform(0.15, 0.4)
        g = g * (1.0 + 0.07 * np.sin(yy * freq * 24 / S + 3 * np.sin(xx * 2.5 / S)))
    if pips is None:
        _draw_back(img, style, rng)
    else:
        a, b = pips
        for n in (a, b):
            if not 0 <= n <= 12:
                raise ValueError(f"pip count must be in 0..12, got {n}")
        # divider bar across the middle
        bl = style.divider_len * S / 2
        if style.divider != "none":
            th = max(1.0, S * rng.uniform(0.03, 0.06))
            col = style.divider_colour
            if style.divider == "groove":
                col = tuple(int(c * 0.6) for c in face)
            p1, p2 = _pt(S, S / 2 - bl), _pt(S, S / 2 + bl)
            cv2.line(img, p1, p2, col, max(1, int(round(th))), cv2.LINE_AA, _SHIFT)
        if style.spinner:
            r = S * rng.uniform(0.055, 0.08)
            _circle(img, S, S / 2, r, (40, 110, 150))
            _circle(img, S - r * 0.25, S / 2 - r * 0.25, r * 0.65, (90, 185, 215))
            _circle(img, S - r * 0.35, S / 2 - r * 0.35, r * 0.25, (200, 240, 250))
        r = pip_radius(style.max_pip) * style.pip_scale * S
        for half, pts in enumerate(pip_centres((a, b), style, S)):
            n = pips[half]
            for x, y in pts:
                _draw_pip(img, float(x), float(y), r, style.pip_colour_of(n), face, style.pip_look)
    tex = img.astype(np.float32) * g[..., None]
    if style.gloss > 0 and rng.random() < 0.5:  # soft highlight
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        d2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / (S * rng.uniform(0.3, 0.9)) ** 2
        tex += (style.gloss * 90 * np.exp(-d2))[..., None]
    # darker rim near the edge (bevel)
    alpha = rounded_rect_mask(h, w, style.corner * S)
    rim = cv2.GaussianBlur(alpha, (0, 0), max(0.6, S * 0.04))
    tex *= (0.75 + 0.25 * np.clip(rim * 1.6 - 0.3, 0, 1))[..., None]
    return np.clip(tex, 0, 255), alpha


def _draw_back(img: np.ndarray, style: TileStyle, rng: np.random.Generator) -> None:
    h, w = img.shape[:2]
    S = h
    ink = style.back_ink
    pat = style.back_pattern
    if pat == "logo":
        font = int(
            rng.choice(
                [cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_TRIPLEX]
            )
        )
        text = style.logo
        vertical = rng.random() < 0.5
        # draw text on a canvas, fit to the tile, rotate 90 degrees sometimes
        scale = 2.0
        (tw, th), base = cv2.getTextSize(text, font, scale, 4)
        canvas = np.zeros((th + base + 8, tw + 8), np.uint8)
        cv2.putText(canvas, text, (4, th + 4), font, scale, 255, 4, cv2.LINE_AA)
        if vertical:
            canvas = cv2.rotate(canvas, cv2.ROTATE_90_CLOCKWISE)
        ch, cw = canvas.shape
        f = min(0.85 * w / cw, 0.6 * h / ch) * rng.uniform(0.6, 1.0)
        nw, nh = max(1, int(cw * f)), max(1, int(ch * f))
        small = cv2.resize(canvas, (nw, nh), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
        x0, y0 = (w - nw) // 2, (h - nh) // 2
        roi = img[y0 : y0 + nh, x0 : x0 + nw].astype(np.float32)
        roi = roi * (1 - small[..., None]) + np.array(ink, np.float32) * small[..., None]
        img[y0 : y0 + nh, x0 : x0 + nw] = roi.astype(np.uint8)
        if rng.random() < 0.5:  # underline with stars
            y = min(h - 2, y0 + nh + max(1, S // 20))
            cv2.line(img, (x0, y), (x0 + nw, y), ink, max(1, S // 30), cv2.LINE_AA)
    elif pat == "stripes":
        step = max(3, int(S * rng.uniform(0.12, 0.3)))
        for x in range(-h, w, step):
            cv2.line(img, (x, 0), (x + h, h), ink, max(1, step // 3), cv2.LINE_AA)
    elif pat == "dots":
        step = max(4, int(S * rng.uniform(0.15, 0.3)))
        for y in range(step // 2, h, step):
            for x in range(step // 2, w, step):
                cv2.circle(img, (x, y), max(1, step // 5), ink, -1, cv2.LINE_AA)
    elif pat == "frame":
        m = max(2, int(S * rng.uniform(0.08, 0.18)))
        cv2.rectangle(img, (m, m), (w - 1 - m, h - 1 - m), ink, max(1, S // 25), cv2.LINE_AA)
        if rng.random() < 0.5:
            cv2.circle(img, (w // 2, h // 2), int(S * 0.22), ink, max(1, S // 25), cv2.LINE_AA)
