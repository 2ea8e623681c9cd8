"""Synthetic domino photos with exact labels (training data for the detector, test layouts).

Public API:

- :func:`render_scene` ``(placements, rng, style=None, image_size=(W, H), ...) -> RenderedScene``:
  draw the given :class:`Placement` s (tile value, face up/down, centre and angle on the table
  plane in tile-width units, flip) through a random phone-like camera; labels are
  :class:`vision.types.TileDetection` with corners/face_down/pips.
- :func:`random_scene` ``(rng, image_size=None, kind=None, style=None) -> RenderedScene``: random
  training scenes (lines, rows, grids, scatters, piles, close-ups, empty tables).
- :func:`random_style` / :func:`preset_style`: the look of a set (:class:`TileStyle`).
- :func:`vision.render.dataset.write_obb_dataset`: an ultralytics OBB dataset on disk.
"""

from .pips import pip_layout
from .scene import (
    SCENE_KINDS,
    Camera,
    Placement,
    RenderedScene,
    make_camera,
    random_placements,
    random_scene,
    render_scene,
)
from .styles import FAMILIES, TileStyle, preset_style, random_style

__all__ = [
    "Camera",
    "FAMILIES",
    "Placement",
    "RenderedScene",
    "SCENE_KINDS",
    "TileStyle",
    "make_camera",
    "pip_layout",
    "preset_style",
    "random_placements",
    "random_scene",
    "random_style",
    "render_scene",
]
