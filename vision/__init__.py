"""Vision: camera frame -> tiles with oriented boxes and pips -> game layout.

Stages (one sub-package each, in data-flow order):
``vision.render`` (synthetic training images), ``vision.detect`` (ONNX detector),
``vision.pips`` (pip counting per half), ``vision.layout`` (positions -> engine state).
The record passed between them is :class:`vision.types.TileDetection`.
"""
from .types import TileDetection, half_centres

__all__ = ["TileDetection", "half_centres"]
