"""Training scenes on real surfaces: rendered tiles pasted on background photos, procedural hard
surfaces with tile-like objects, and background photos with no tile at all.

Used by both trained stages that must learn what is *not* a tile: the detector's dataset
(:func:`vision.render.dataset.write_obb_dataset` with ``surface_mix``) and the verifier's crops
(``scripts/train_verifier.py``). The background photos (``../shared/backgrounds``: real
surfaces and cluttered rooms without dominoes) are read from a folder given by the caller and
never committed. Every fifth photo by name is held out (:func:`holdout_photos`) for measuring
false boxes on surfaces no stage was trained on.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .augment import photo_effects
from .hard_negatives import (
    add_dark_objects,
    add_printed_cards,
    add_tile_like_objects,
    hard_surface,
)
from .scene import RenderedScene, make_camera, random_placements, render_scene
from .styles import random_style

#: Image sizes (W, H) of pasted scenes.
PASTE_SIZES = ((640, 640), (640, 480), (480, 640), (1024, 768))
#: Image sizes (W, H) of procedural hard surfaces.
HARD_SIZES = ((640, 640), (640, 480), (480, 640))


def background_photos(folder: Path) -> list[Path]:
    """The background photos (``*.jpg``, ``*.jpeg``, ``*.png``) of ``folder``, sorted by name.

    Raises:
        FileNotFoundError: ``folder`` does not exist.
    """
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))


def holdout_photos(photos: list[Path]) -> set[str]:
    """Names of the held-out background photos: every fifth of ``photos`` by position."""
    return {p.name for i, p in enumerate(photos) if i % 5 == 2}


def augment_background(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """A random view of a background photo.

    Crop (40-100% of each side), scale to a long side of 400-1600 px, turn by a multiple of 90
    degrees, mirror, brightness / colour change, blur and JPEG at random.

    Args:
        rng: random source.
        img: ``HxWx3 uint8`` BGR.
    Returns:
        ``hxwx3 uint8`` BGR, contiguous.
    """
    h, w = img.shape[:2]
    f = rng.uniform(0.4, 1.0)
    ch, cw = max(32, int(h * f)), max(32, int(w * f * rng.uniform(0.8, 1.25)))
    ch, cw = min(ch, h), min(cw, w)
    y0, x0 = int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1))
    out = img[y0 : y0 + ch, x0 : x0 + cw]
    side = rng.uniform(400, 1600)
    s = side / max(out.shape[:2])
    out = cv2.resize(
        out, None, fx=s, fy=s, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC
    )
    out = np.rot90(out, int(rng.integers(4)))
    if rng.random() < 0.5:
        out = out[:, ::-1]
    out = out.astype(np.float32) * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30)
    out *= rng.uniform(0.85, 1.15, 3).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 2.0))
    if rng.random() < 0.5:
        ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        decoded = cv2.imdecode(enc, cv2.IMREAD_COLOR)
        if ok and decoded is not None:
            out = decoded
    return np.ascontiguousarray(out)


def _table(rng: np.random.Generator, background: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A random view of ``background`` (:func:`augment_background`) resized to ``size`` = (W, H),
    as the ``HxWx3 float32`` table :func:`vision.render.scene.render_scene` draws on."""
    view = augment_background(rng, background)
    return cv2.resize(view, size, interpolation=cv2.INTER_AREA).astype(np.float32)


def pasted_scene(rng: np.random.Generator, background: np.ndarray) -> RenderedScene:
    """Rendered tiles on a random view of a background photo (cut-paste), no clutter.

    Image size one of :data:`PASTE_SIZES`; tiles 14-110 px wide (scaled with the image) in 60% of
    scenes, else a camera that fills 40-150% of the frame with the tiles (close-ups cut by the
    border included).

    Args:
        rng: random source.
        background: ``HxWx3 uint8`` BGR photo without dominoes.
    Returns:
        The scene, ``kind`` "paste".
    """
    W, H = PASTE_SIZES[int(rng.integers(len(PASTE_SIZES)))]
    style = random_style(rng)
    placements, _ = random_placements(rng, None, style.max_pip)
    cam_kw = (
        {"tile_px": rng.uniform(14, 110) * min(W, H) / 640}
        if rng.random() < 0.6
        else {"fill": rng.uniform(0.4, 1.5)}
    )
    cam = make_camera(rng, placements, (W, H), **cam_kw)
    table = _table(rng, background, (W, H))
    scene = render_scene(
        placements, rng, style=style, image_size=(W, H), camera=cam, background=table, clutter=0
    )
    scene.kind = "paste"
    return scene


def hard_scene(rng: np.random.Generator) -> tuple[np.ndarray, RenderedScene | None, list]:
    """A procedural hard surface (:func:`vision.render.hard_negatives.hard_surface`) with
    tile-sized objects that are not tiles, and rendered tiles on it half of the time.

    Args:
        rng: random source.
    Returns:
        ``(image, scene, objects)``: the ``HxWx3 uint8`` BGR image (size one of
        :data:`HARD_SIZES`); the scene with the tiles' labels, or None when the surface has no
        tile; the not-a-tile objects as ``(4, 2)`` float corner arrays in px.
    """
    W, H = HARD_SIZES[int(rng.integers(len(HARD_SIZES)))]
    table = hard_surface(rng, H, W)
    objs = add_tile_like_objects(table, rng, size_px=rng.uniform(10, 70))
    style = random_style(rng)
    placements = random_placements(rng, None, style.max_pip)[0] if rng.random() < 0.5 else []
    cam = make_camera(rng, placements, (W, H), tile_px=rng.uniform(14, 70))
    if not placements:
        return photo_effects(table, rng, 1.0), None, objs
    scene = render_scene(
        placements,
        rng,
        style=style,
        image_size=(W, H),
        camera=cam,
        background=table,
        clutter=None,
    )
    scene.kind = "hard"
    return scene.image, scene, objs


def _tiles_on(
    rng, table: np.ndarray, style, placements, tile_px: float, kind: str
) -> RenderedScene:
    """``placements`` rendered in ``style`` on ``table`` (``HxWx3 float32``, drawn over) by a
    camera that shows a tile ``tile_px`` wide, no clutter; the scene's ``kind`` set."""
    H, W = table.shape[:2]
    cam = make_camera(rng, placements, (W, H), tile_px=tile_px)
    scene = render_scene(
        placements, rng, style=style, image_size=(W, H), camera=cam, background=table, clutter=0
    )
    scene.kind = kind
    return scene


def card_scene(
    rng: np.random.Generator, background: np.ndarray
) -> tuple[np.ndarray, RenderedScene | None, list]:
    """Printed cards that are not tiles (:func:`vision.render.hard_negatives.add_printed_cards`:
    dot grids, checkerboard targets, stripes) on a random view of a background photo, with
    rendered tiles of about the cards' size half of the time.

    Args:
        rng: random source.
        background: ``HxWx3 uint8`` BGR photo without dominoes.
    Returns:
        ``(image, scene, cards)`` as :func:`hard_scene`: the ``HxWx3 uint8`` BGR image (size
        one of :data:`PASTE_SIZES`); the scene with the tiles' labels, or None when there is no
        tile; the cards' ``(4, 2)`` float corner arrays in px.
    """
    W, H = PASTE_SIZES[int(rng.integers(len(PASTE_SIZES)))]
    table = _table(rng, background, (W, H))
    size = rng.uniform(14, 80) * min(W, H) / 640
    cards = add_printed_cards(table, rng, size_px=size)
    style = random_style(rng)
    placements = random_placements(rng, None, style.max_pip)[0] if rng.random() < 0.5 else []
    if not placements:
        return photo_effects(table, rng, 1.0), None, cards
    scene = _tiles_on(rng, table, style, placements, size, "cards")
    return scene.image, scene, cards


def dark_scene(
    rng: np.random.Generator, background: np.ndarray
) -> tuple[np.ndarray, RenderedScene | None, list]:
    """Dark objects larger than a tile (:func:`vision.render.hard_negatives.add_dark_objects`:
    screens, phones, tins, seats, books, cables) on a random view of a background photo, with
    rendered tiles 2-6 times narrower than the objects half of the time.

    Args:
        rng: random source.
        background: ``HxWx3 uint8`` BGR photo without dominoes.
    Returns:
        ``(image, scene, objects)`` as :func:`hard_scene`: the ``HxWx3 uint8`` BGR image (size
        one of :data:`PASTE_SIZES`); the scene with the tiles' labels, or None when there is no
        tile; the objects' ``(4, 2)`` float corner arrays in px.
    """
    W, H = PASTE_SIZES[int(rng.integers(len(PASTE_SIZES)))]
    table = _table(rng, background, (W, H))
    with_tiles = rng.random() < 0.5
    tile_px = rng.uniform(14, 80) * min(W, H) / 640
    objects = add_dark_objects(table, rng, tile_px=tile_px if with_tiles else None)
    if not with_tiles:
        return photo_effects(table, rng, 1.0), None, objects
    style = random_style(rng)
    placements = random_placements(rng, None, style.max_pip)[0]
    scene = _tiles_on(rng, table, style, placements, tile_px, "dark")
    return scene.image, scene, objects


def closeup_scene(rng: np.random.Generator, background: np.ndarray | None = None) -> RenderedScene:
    """A close-up: one or two tiles 30-70% of the short side wide (the length up to 1.4 times it,
    so a tile often runs out of frame), perspective up to 0.25, on a view of ``background`` or on
    a procedural table.

    Args:
        rng: random source.
        background: ``HxWx3 uint8`` BGR photo without dominoes, or None for a procedural table.
    Returns:
        The scene (size one of :data:`HARD_SIZES`), ``kind`` "closeup".
    """
    W, H = HARD_SIZES[int(rng.integers(len(HARD_SIZES)))]
    style = random_style(rng)
    placements = random_placements(rng, "single", style.max_pip)[0][:2]
    cam = make_camera(
        rng,
        placements,
        (W, H),
        tile_px=rng.uniform(0.3, 0.7) * min(W, H),
        tilt=rng.uniform(0.0, 0.25),
    )
    table = _table(rng, background, (W, H)) if background is not None else None
    scene = render_scene(
        placements, rng, style=style, image_size=(W, H), camera=cam, background=table, clutter=0
    )
    scene.kind = "closeup"
    return scene
