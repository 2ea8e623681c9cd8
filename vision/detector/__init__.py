"""Tile detector: an ultralytics YOLO11n-OBB model exported to ONNX, run with onnxruntime.

No torch: letterbox preprocessing, decoding of the raw OBB output and rotated NMS are done here
with numpy and OpenCV. Classes: 0 = face-up tile, 1 = face-down tile.

Public API:

- :func:`load_detector` ``(path=None) -> TileDetector`` (cached: one session per model file);
  :func:`default_model`: :data:`FP32_MODEL`, or, asked for, the int8 quantisation
  :data:`INT8_MODEL` when it was made from the present fp32 file.
- :class:`TileDetector` ``.detect(image) -> list[TileDetection]`` (pips not yet read).
- :func:`letterbox`, :func:`decode_obb`, :func:`rotated_nms`, :func:`suppress_covered`, :func:`obb_corners`: the steps.
"""

from .onnx_model import (
    FP32_MODEL,
    INT8_MODEL,
    MAX_COVERED,
    RawDetections,
    TileDetector,
    decode_obb,
    default_model,
    letterbox,
    load_detector,
    obb_corners,
    rotated_nms,
    suppress_covered,
)

__all__ = [
    "FP32_MODEL",
    "INT8_MODEL",
    "MAX_COVERED",
    "RawDetections",
    "TileDetector",
    "decode_obb",
    "default_model",
    "letterbox",
    "load_detector",
    "obb_corners",
    "rotated_nms",
    "suppress_covered",
]
