"""Vision: camera frame -> tiles with oriented boxes and pips -> game layout.

Stages (one sub-package each, in data-flow order):
``vision.render`` (synthetic training images and layouts), ``vision.detector`` (ONNX YOLO-OBB
tile detector), ``vision.pips`` (pip counting per half), ``vision.layout`` (tile positions ->
engine state). ``vision.pipeline.detect(image)`` runs detector + pips.
The record passed between stages is :class:`vision.types.TileDetection`.
"""

from .types import TileDetection, half_centres


def detect(image, **kwargs):
    """Tiles in a photo with their pips: see :func:`vision.pipeline.detect` (imported lazily)."""
    from .pipeline import detect as _detect

    return _detect(image, **kwargs)


__all__ = ["TileDetection", "detect", "half_centres"]
