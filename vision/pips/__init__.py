"""Pip counting on detected tiles: a classical OpenCV counter combined with a small learned half
classifier (``models/pip-halves.onnx`` via onnxruntime, :mod:`vision.pips.classifier`).

Public API:

- :func:`rectify_tile` ``(image, corners, width=64) -> (2*width, width, 3) uint8``: the tile's top
  face warped upright, half 0 on top.
- :func:`read_tile` ``(image, detection) -> TileReading``: pips per half, divider, confidence.
- :func:`read_tiles` ``(image, boxes) -> list[TileReading]``: :func:`read_tile` on every box of a
  photo at once (the tiles on the threads of ``vision.workers``, one classifier call).
- :func:`read_pips` ``(image, detections) -> list[TileDetection]``: fills ``pips``,
  ``pip_confidence``, ``note`` (and ``face_down`` for pip-less, divider-less "face-up" boxes).
"""

from .counter import TileReading, read_pips, read_tile, read_tiles, rectify_tile

__all__ = ["TileReading", "read_pips", "read_tile", "read_tiles", "rectify_tile"]
