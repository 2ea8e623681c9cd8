"""Sharp light on tile faces: cast shadows with a crisp edge and highlight bands (specular glare)
laid across chosen halves, for the pip reader's training data and its benchmark
(``scripts/bench_pip_light.py``).

A real tile under a lamp or a window shows two things that the soft effects of
:func:`vision.render.augment.photo_effects` rarely make: the edge of a shadow (a hand, a phone, a
neighbouring tile, a rack) cutting across a face, and a narrow band of reflected light on a glossy
face. On a blank half either can look like ink to the pip reader (the body colour is the median
of the face, so the shadowed or lit part differs from it).

:func:`light_scene` renders a scene of face-up tiles (blank halves drawn often) and lays 1-3 such
effects across halves, each through a point on a random half (a blank one half of the time);
:func:`half_touched` tells which halves an effect crosses.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from .augment import photo_effects
from .scene import RenderedScene, random_placements, render_scene
from .styles import random_style
from .views import face_mask, owned_style

#: Effects of :func:`light_scene`.
LIGHT_EFFECTS = ("shadow-edge", "shadow-band", "highlight")


@dataclass
class LightScene:
    """A rendered scene with sharp light effects.

    Attributes:
        scene: the render (labels as :func:`vision.render.render_scene` gives them).
        shade: ``(H, W) float32`` multiplicative light of the shadows (1 = untouched).
        glow: ``(H, W) float32`` added brightness of the highlight bands (0 = untouched).
        effects: the effects laid, in order (names of :data:`LIGHT_EFFECTS`).
    """

    scene: RenderedScene
    shade: np.ndarray
    glow: np.ndarray
    effects: list[str] = field(default_factory=list)


def _line_distance(shape: tuple[int, int], point: np.ndarray, angle: float) -> np.ndarray:
    """Signed distance (pixels) of every pixel from the line through ``point`` at ``angle``."""
    H, W = shape
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    return (xx - point[0]) * np.sin(angle) - (yy - point[1]) * np.cos(angle)


def shadow_edge(
    shape: tuple[int, int],
    point: np.ndarray,
    rng: np.random.Generator,
    tile_w: float,
    band: bool = False,
) -> np.ndarray:
    """A cast shadow whose edge crosses ``point``: one side of a straight edge (``band`` False:
    a hand or a phone) or a dark stripe 0.1-0.6 tile widths wide (``band`` True: a pen, a rack's
    rail, a finger), darkening 25-60%, the edge blurred by 0.3 px to 8% of the tile width.

    Returns:
        ``(H, W) float32`` light factor in (0, 1] (1 where no shadow falls).
    """
    d = _line_distance(shape, point, float(rng.uniform(0, np.pi)))
    sigma = float(rng.uniform(0.3, max(0.31, 0.08 * tile_w)))
    if band:
        half = rng.uniform(0.05, 0.3) * tile_w
        d = np.abs(d + rng.uniform(-1, 1) * half) - half  # negative inside the stripe
    inside = 0.5 * (1 - np.tanh(d / (sigma * 1.2)))  # ~ a Gaussian-blurred step
    return (1 - rng.uniform(0.25, 0.6) * inside).astype(np.float32)


def highlight_band(
    shape: tuple[int, int],
    point: np.ndarray,
    rng: np.random.Generator,
    tile_w: float,
    faces: np.ndarray,
) -> np.ndarray:
    """A band of reflected light (a window, a lamp) through ``point``: 0.05-0.5 tile widths
    wide, flat-topped or peaked, 50-230 levels brighter at its core on the tiles' faces
    (``faces``, ``(H, W)`` in [0, 1]) and a fifth of that on the table.

    Returns:
        ``(H, W) float32`` added brightness (0..230).
    """
    d = _line_distance(shape, point, float(rng.uniform(0, np.pi)))
    width = float(rng.uniform(0.05, 0.5)) * tile_w
    if rng.random() < 0.5:
        prof = np.exp(-0.5 * (d / width) ** 2)
    else:  # flat top, soft edges
        soft = max(0.5, float(rng.uniform(0.05, 0.3)) * width)
        prof = 0.5 * (1 - np.tanh((np.abs(d) - width) / soft))
    peak = float(rng.uniform(50, 230))
    m = cv2.GaussianBlur(faces, (0, 0), 1.0)
    return (prof * peak * (0.2 + 0.8 * m)).astype(np.float32)


def _half_polygon(corners: np.ndarray, half: int) -> np.ndarray:
    """``(4, 2)`` corners of one half of a label box (half 0 at corners 0 and 3)."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    m01, m32 = (c[0] + c[1]) / 2, (c[3] + c[2]) / 2
    return np.array([c[0], m01, m32, c[3]] if half == 0 else [m01, c[1], c[2], m32])


def _point_on_half(corners: np.ndarray, half: int, rng: np.random.Generator) -> np.ndarray:
    """A random point well inside one half of a label box."""
    p = _half_polygon(corners, half)
    a, b = rng.uniform(0.2, 0.8, 2)
    top = p[0] + a * (p[1] - p[0])
    bottom = p[3] + a * (p[2] - p[3])
    return top + b * (bottom - top)


def half_touched(ls: LightScene, corners: np.ndarray, half: int) -> str:
    """Which effect crosses one half of a tile: ``"shadow"`` (the shadow light varies by more
    than 0.15 over the half's inner face), ``"highlight"`` (the added light varies by more than
    25 levels), ``"both"`` or ``""``."""
    H, W = ls.shade.shape
    p = _half_polygon(corners, half)
    ctr = p.mean(0)
    inner = ctr + 0.8 * (p - ctr)  # the face inside the tile's rim
    m = np.zeros((H, W), np.uint8)
    cv2.fillConvexPoly(m, np.round(inner).astype(np.int32), 1)
    sel = m.astype(bool)
    if not sel.any():
        return ""
    s = float(np.ptp(ls.shade[sel])) > 0.15
    g = float(np.ptp(ls.glow[sel])) > 25.0
    return "both" if s and g else ("shadow" if s else ("highlight" if g else ""))


def light_scene(
    rng: np.random.Generator | int | None,
    max_pip: int | None = None,
    scale: float = 1.0,
    effects: tuple[str, ...] = LIGHT_EFFECTS,
) -> LightScene:
    """Face-up tiles (blank halves often: ``low_pip_bias`` 0.7) with 1-3 sharp light effects
    across their halves, then the usual photo effects at half strength.

    Args:
        rng: numpy Generator or int seed (the same seed gives the same scene).
        max_pip: the set (None: the renderer's mix).
        scale: image size multiple of 640x480 / 480x640 / 640x640.
        effects: the effects to draw from (:data:`LIGHT_EFFECTS`).
    Returns:
        :class:`LightScene`.
    Raises:
        ValueError: an unknown effect.
    """
    bad = [e for e in effects if e not in LIGHT_EFFECTS]
    if bad or not effects:
        raise ValueError(f"unknown light effects {bad}; use {LIGHT_EFFECTS}")
    rng = np.random.default_rng(rng)
    base = ((640, 480), (480, 640), (640, 640))[int(rng.integers(3))]
    W, H = int(base[0] * scale), int(base[1] * scale)
    style = owned_style(rng, max_pip) if rng.random() < 0.4 else random_style(rng, max_pip=max_pip)
    style = replace(style, gloss=float(rng.uniform(0.3, 1.0)))
    layout = str(rng.choice(["line", "scatter", "rows", "single", "grid"]))
    placements, _ = random_placements(rng, layout, style.max_pip, low_pip_bias=0.7)
    placements = [replace(p, face_down=False) for p in placements if p.tile is not None]
    px = min(W, H) / 480
    sc = render_scene(
        placements,
        rng,
        style=style,
        image_size=(W, H),
        effects=0.0,
        clutter=0,
        tile_px=float(rng.uniform(22, 70)) * px,
    )
    img = sc.image.astype(np.float32)
    shade = np.ones((H, W), np.float32)
    glow = np.zeros((H, W), np.float32)
    faces = face_mask(sc)
    laid: list[str] = []
    ups = [d for d in sc.labels if not d.face_down and d.pips is not None]
    for _ in range(int(rng.integers(1, 4)) if ups else 0):
        d = ups[int(rng.integers(len(ups)))]
        blanks = [i for i, p in enumerate(d.pips or ()) if p == 0]
        half = int(rng.choice(blanks)) if blanks and rng.random() < 0.5 else int(rng.integers(2))
        point = _point_on_half(d.corners, half, rng)
        tile_w = float(min(d.size))
        kind = str(rng.choice(list(effects)))
        if kind == "highlight":
            glow += highlight_band((H, W), point, rng, tile_w, faces)
        else:
            shade *= shadow_edge((H, W), point, rng, tile_w, band=kind == "shadow-band")
        laid.append(kind)
    img = np.clip(img * shade[..., None] + glow[..., None], 0, 255)
    sc.image = photo_effects(img, rng, 0.5)
    sc.kind = "light"
    return LightScene(sc, shade, glow, laid)
