"""ONNX YOLO-OBB tile detector (onnxruntime, numpy, OpenCV; no torch).

Output of an ultralytics OBB export (``end2end`` off): one tensor ``(1, 4 + nc + 1, N)``; for each
of the ``N`` anchor points: ``cx, cy, w, h`` in letterboxed input pixels, ``nc`` class scores
(already sigmoid, 0..1) and the box angle in radians (ultralytics' range [-pi/4, 3pi/4)).
"""

from __future__ import annotations

import ast
import hashlib
import os
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.filters import MAX_COVERED, suppress_covered
from vision.types import TileDetection

_MODELS = Path(__file__).resolve().parents[2] / "models"
#: The trained fp32 detector (``scripts/train_detector.py`` exports it).
FP32_MODEL = _MODELS / "tiles-obb.onnx"
#: Its int8 quantisation (``scripts/quantize_detector.py``): the detector loaded by default when
#: it was made from :data:`FP32_MODEL` as that file is now, when asked for (:func:`default_model`).
INT8_MODEL = _MODELS / "tiles-obb.int8.onnx"
#: ONNX metadata key of a quantised model: the SHA-256 of the fp32 file it was made from.
SOURCE_KEY = "source_sha256"

FACE_UP, FACE_DOWN = 0, 1


@dataclass
class RawDetections:
    """Decoded boxes before they become :class:`TileDetection` s.

    Attributes:
        xywhr: ``(M, 5) float32``: centre x, centre y, length, width (pixels, length >= width) and
            the angle of the long side in radians, in the image the coordinates refer to.
        scores: ``(M, nc) float32`` class scores in [0, 1].
    """

    xywhr: np.ndarray
    scores: np.ndarray

    @property
    def confidence(self) -> np.ndarray:
        """``(M,) float32``: the best class score of each box."""
        return self.scores.max(axis=1) if len(self.scores) else np.zeros(0, np.float32)

    @property
    def cls(self) -> np.ndarray:
        """``(M,) int``: the best class of each box."""
        return self.scores.argmax(axis=1) if len(self.scores) else np.zeros(0, int)

    def take(self, idx: np.ndarray) -> RawDetections:
        """The boxes at ``idx`` (an index array)."""
        return RawDetections(self.xywhr[idx], self.scores[idx])


#: How :func:`letterbox` shrinks a photo to the network input: ``"halve"`` (:func:`shrink`) or
#: ``"area"`` (OpenCV ``INTER_AREA`` in one step).
SHRINK = "halve"


def shrink(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``image`` scaled down to ``size`` = ``(width, height)`` pixels.

    With :data:`SHRINK` ``"halve"``: halved with 2x2 means (``INTER_AREA`` at a factor of
    exactly 2: OpenCV's fast path) while it stays at least twice ``size``, then bilinear for
    the factor left (under 2; ultralytics' letterbox resizes bilinearly in training too). One
    ``INTER_AREA`` step at a factor that is not a whole number (1280 -> 384 px) costs 10-20
    times as long (docs/vision.md, "Speed").

    Args:
        image: ``(H, W, C) uint8``.
        size: ``(width, height)``, each at most the image's.
    Returns:
        ``(height, width, C) uint8``.
    """
    tw, th = size
    if SHRINK == "halve":
        h, w = image.shape[:2]
        while w >= 2 * tw and h >= 2 * th:
            w, h = w // 2, h // 2
            image = cv2.resize(image[: 2 * h, : 2 * w], (w, h), interpolation=cv2.INTER_AREA)
        if (w, h) == (tw, th):
            return image
        return cv2.resize(image, (tw, th), interpolation=cv2.INTER_LINEAR)
    return cv2.resize(image, (tw, th), interpolation=cv2.INTER_AREA)


def letterbox(
    image: np.ndarray, size: int | tuple[int, int]
) -> tuple[np.ndarray, float, tuple[float, float]]:
    """Resize keeping the aspect ratio and pad to ``size`` like ultralytics (grey 114, centred).

    Args:
        image: ``(H, W, 3) uint8`` BGR.
        size: model input side in pixels, or ``(height, width)``.
    Returns:
        ``(blob, scale, (pad_x, pad_y))``: ``blob`` is the ``(1, 3, h, w) float32`` RGB network
        input in [0, 1]; an input pixel ``p`` maps back to ``(p - pad) / scale`` in ``image``.
    Raises:
        ValueError: not an ``(H, W, 3)`` image.
    """
    if image.ndim != 3 or image.shape[2] != 3 or image.shape[0] < 1 or image.shape[1] < 1:
        raise ValueError(f"expected an (H, W, 3) image, got shape {image.shape}")
    th, tw = (size, size) if isinstance(size, int) else size
    h, w = image.shape[:2]
    r = min(th / h, tw / w)
    nw, nh = int(round(w * r)), int(round(h * r))
    dw, dh = (tw - nw) / 2, (th - nh) / 2
    if (nw, nh) != (w, h):
        image = shrink(image, (nw, nh)) if r < 1 else cv2.resize(image, (nw, nh))
    top, left = int(round(dh - 0.1)), int(round(dw - 0.1))
    bottom, right = th - nh - top, tw - nw - left
    padded = cv2.copyMakeBorder(
        image, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(114, 114, 114)
    )
    blob = cv2.dnn.blobFromImage(padded, 1 / 255.0, swapRB=True)
    return blob, r, (float(left), float(top))


def decode_obb(
    output: np.ndarray, conf_threshold: float = 0.25, max_candidates: int = 3000
) -> RawDetections:
    """Decode a raw ultralytics OBB output.

    Args:
        output: ``(1, 4 + nc + 1, N)`` or ``(4 + nc + 1, N)`` float32 network output.
        conf_threshold: keep boxes whose best class score is at least this.
        max_candidates: keep at most this many boxes (highest scores first).
    Returns:
        :class:`RawDetections` in network-input pixels, long side first (``w >= h``, angle of the
        long side in [0, pi)).
    Raises:
        ValueError: the output has fewer than 6 rows.
    """
    out = np.asarray(output, np.float32)
    if out.ndim == 3:
        out = out[0]
    if out.ndim != 2 or out.shape[0] < 6:
        raise ValueError(f"expected an OBB output (4 + nc + 1, N), got shape {np.shape(output)}")
    out = out.T  # (N, 4 + nc + 1)
    scores = out[:, 4:-1]
    best = scores.max(axis=1)
    keep = np.nonzero(best >= conf_threshold)[0]
    if len(keep) > max_candidates:
        keep = keep[np.argsort(-best[keep])[:max_candidates]]
    sel = out[keep]
    cx, cy, w, h, ang = sel[:, 0], sel[:, 1], sel[:, 2], sel[:, 3], sel[:, -1]
    swap = h > w
    length = np.where(swap, h, w)
    width = np.where(swap, w, h)
    ang = np.mod(np.where(swap, ang + np.pi / 2, ang), np.pi)
    xywhr = np.stack([cx, cy, length, width, ang], axis=1).astype(np.float32)
    return RawDetections(xywhr, scores[keep].astype(np.float32))


def obb_corners(xywhr: np.ndarray) -> np.ndarray:
    """Corners of oriented boxes in :class:`TileDetection` order (``corners[0] -> corners[1]`` is a
    long side).

    Args:
        xywhr: ``(M, 5)``: cx, cy, length, width, angle of the long side (radians).
    Returns:
        ``(M, 4, 2) float32`` pixel corners.
    """
    b = np.asarray(xywhr, np.float64).reshape(-1, 5)
    u = np.stack([np.cos(b[:, 4]), np.sin(b[:, 4])], axis=1)  # along the long side
    v = np.stack([-u[:, 1], u[:, 0]], axis=1)  # across
    c, hl, hw = b[:, None, :2], b[:, 2, None, None] / 2, b[:, 3, None, None] / 2
    signs = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
    pts = c + signs[None, :, :1] * hl * u[:, None, :] + signs[None, :, 1:] * hw * v[:, None, :]
    return pts.astype(np.float32)


def rotated_nms(
    xywhr: np.ndarray, scores: np.ndarray, iou_threshold: float = 0.5, max_det: int = 300
) -> np.ndarray:
    """Class-agnostic non-maximum suppression of oriented boxes (OpenCV ``NMSBoxesRotated``).

    Agnostic on purpose: one tile is face up or face down, never both.

    Args:
        xywhr: ``(M, 5)`` boxes (pixels, radians).
        scores: ``(M,)`` confidences.
        iou_threshold: suppress a box overlapping a better one by more than this rotated IoU.
        max_det: keep at most this many.
    Returns:
        ``(K,) int`` indices of kept boxes, best first.
    """
    if len(xywhr) == 0:
        return np.zeros(0, int)
    rects = [
        ((float(x), float(y)), (float(w), float(h)), float(np.degrees(a)))
        for x, y, w, h, a in xywhr
    ]
    idx = cv2.dnn.NMSBoxesRotated(rects, [float(s) for s in scores], 0.0, float(iou_threshold))
    kept = np.asarray(idx, int).reshape(-1)
    order = np.argsort(-np.asarray(scores)[kept], kind="stable")
    return kept[order][:max_det]


def file_sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _metadata(session) -> tuple[tuple[int, int] | None, dict[int, str]]:
    meta = session.get_modelmeta().custom_metadata_map
    imgsz, names = None, {}
    try:
        v = ast.literal_eval(meta.get("imgsz", "None"))
        if isinstance(v, (list, tuple)) and len(v) == 2:
            imgsz = (int(v[0]), int(v[1]))
        elif isinstance(v, int):
            imgsz = (v, v)
    except (ValueError, SyntaxError):
        pass
    try:
        n = ast.literal_eval(meta.get("names", "{}"))
        names = {int(k): str(s) for k, s in dict(n).items()}
    except (ValueError, SyntaxError, TypeError):
        pass
    return imgsz, names


#: Second pass (dynamic models): when the first pass at the model's own size finds no tile or
#: tiles whose median width is under SMALL_TILE_PX network pixels, run again at FINE_IMGSZ.
SMALL_TILE_PX = 28.0
FINE_IMGSZ = 640


#: Dynamic models are run on a rectangular input (:func:`rect_size`) instead of a square one.
RECT_INPUT = False
#: ... and the second pass (:data:`FINE_IMGSZ`) likewise.
RECT_FINE_INPUT = False


def rect_size(shape: tuple[int, ...], side: int, stride: int = 32) -> tuple[int, int]:
    """Network input ``(height, width)`` for a photo of ``shape`` at ``side`` px on the long side:
    the short side only as long as the photo needs, rounded up to a multiple of ``stride``
    (ultralytics' rectangular letterbox), so a 4:3 or 16:9 photo costs 3/4 or 9/16 of a square
    pass.

    Args:
        shape: the photo's ``(H, W, ...)``.
        side: long side of the network input in pixels (a multiple of ``stride``).
    Returns:
        ``(height, width)`` in pixels, multiples of ``stride``.
    """
    h, w = int(shape[0]), int(shape[1])
    r = side / max(h, w)
    return (
        min(side, int(np.ceil(h * r / stride)) * stride),
        min(side, int(np.ceil(w * r / stride)) * stride),
    )


class TileDetector:
    """An ONNX OBB tile detector.

    Args:
        path: the ``.onnx`` file.
        threads: onnxruntime intra-op threads (None: onnxruntime's default).
    Raises:
        FileNotFoundError: no model file at ``path``.
        ValueError: the model is not an OBB model with at least 2 classes.
    Attributes:
        imgsz: ``(height, width)`` of the network input, from the model (metadata or input shape).
        dynamic: the model takes any input size (then :meth:`raw` may run a second, larger pass).
        names: class names from the model metadata (``{0: ..., 1: ...}``).
        source_sha256: for a quantised model, the SHA-256 of the fp32 file it was made from
            (metadata :data:`SOURCE_KEY`); None otherwise.
    """

    def __init__(self, path: str | os.PathLike, threads: int | None = None):
        import onnxruntime as ort

        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(
                f"detector model not found: {path} (train it with scripts/train_detector.py)"
            )
        opts = ort.SessionOptions()
        if threads:
            opts.intra_op_num_threads = int(threads)
        # no busy-waiting between operators: on the shared 2 cores spinning threads cost CPU
        # time that other requests need (docs/vision.md, "Speed")
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.log_severity_level = 3
        self.path = path
        self.session = ort.InferenceSession(
            str(path), sess_options=opts, providers=["CPUExecutionProvider"]
        )
        inp = self.session.get_inputs()[0]
        self.input_name = inp.name
        imgsz, self.names = _metadata(self.session)
        self.source_sha256: str | None = self.session.get_modelmeta().custom_metadata_map.get(
            SOURCE_KEY
        )
        shape = inp.shape
        #: True when the network takes any input size (exported with ``dynamic=True``)
        self.dynamic = not (isinstance(shape[2], int) and isinstance(shape[3], int))
        if imgsz is None:
            if isinstance(shape[2], int) and isinstance(shape[3], int):
                imgsz = (shape[2], shape[3])
            else:
                imgsz = (640, 640)
        self.imgsz = imgsz
        out_shape = self.session.get_outputs()[0].shape
        rows = out_shape[1] if len(out_shape) == 3 and isinstance(out_shape[1], int) else None
        if rows is not None and rows < 7:
            raise ValueError(
                f"{path}: output {out_shape} is not a 2-class OBB output (4 + nc + 1 rows)"
            )
        self._lock = threading.Lock()

    def raw(
        self,
        image: np.ndarray,
        conf_threshold: float = 0.25,
        iou_threshold: float = 0.5,
        max_det: int = 300,
        imgsz: int | None = None,
        max_covered: float | None = MAX_COVERED,
    ) -> RawDetections:
        """Run the network and NMS; boxes in ``image`` pixels.

        With a model of dynamic input size and ``imgsz`` None the photo is run at
        :attr:`imgsz` first; when that finds no tile, or tiles narrower than
        :data:`SMALL_TILE_PX` network pixels (median), it is run again at :data:`FINE_IMGSZ` and
        that result is returned (small, far tiles are found far more often at the larger size,
        while large tiles are split less at the smaller one; docs/vision.md).

        Args:
            image: ``(H, W, 3) uint8`` BGR.
            conf_threshold: minimum best-class score.
            iou_threshold: rotated-NMS IoU.
            max_det: most boxes returned.
            imgsz: network input side in pixels (a multiple of 32; dynamic models only), or None.
            max_covered: :func:`suppress_covered` threshold after NMS; None keeps the covered
                boxes (for a reader that sorts out overlapping boxes itself).
        Returns:
            :class:`RawDetections` (best first).
        Raises:
            ValueError: ``imgsz`` given for a model with a fixed input size, or not a multiple of 32.
        """
        if imgsz is not None:
            if not self.dynamic:
                raise ValueError(f"{self.path.name} has a fixed input size {self.imgsz}")
            if imgsz % 32 or imgsz < 32:
                raise ValueError(f"imgsz must be a positive multiple of 32, got {imgsz}")
            return self._run(
                image, (imgsz, imgsz), conf_threshold, iou_threshold, max_det, max_covered
            )[0]
        rect = self.dynamic and RECT_INPUT
        first = rect_size(image.shape, max(self.imgsz)) if rect else self.imgsz
        rect_fine = self.dynamic and RECT_FINE_INPUT
        det, width = self._run(image, first, conf_threshold, iou_threshold, max_det, max_covered)
        if (
            self.dynamic
            and FINE_IMGSZ > max(self.imgsz)
            and (width is None or width < SMALL_TILE_PX)
        ):
            fine = rect_size(image.shape, FINE_IMGSZ) if rect_fine else (FINE_IMGSZ, FINE_IMGSZ)
            det = self._run(image, fine, conf_threshold, iou_threshold, max_det, max_covered)[0]
        return det

    def _run(
        self,
        image: np.ndarray,
        size: tuple[int, int],
        conf_threshold: float,
        iou_threshold: float,
        max_det: int,
        max_covered: float | None = MAX_COVERED,
    ) -> tuple[RawDetections, float | None]:
        """One pass at ``size``; also the median box width in network pixels (None: no box)."""
        blob, r, (px, py) = letterbox(image, size)
        with self._lock:  # one onnxruntime session shared by web request threads
            out = self.session.run(None, {self.input_name: blob})[0]
        det = decode_obb(out, conf_threshold)
        keep = rotated_nms(det.xywhr, det.confidence, iou_threshold, max_det)
        det = det.take(keep)
        if max_covered is not None:
            det = det.take(suppress_covered(det.xywhr, det.confidence, max_covered))
        width = float(np.median(det.xywhr[:, 3])) if len(det.xywhr) else None
        xywhr = det.xywhr.copy()
        xywhr[:, 0] = (xywhr[:, 0] - px) / r
        xywhr[:, 1] = (xywhr[:, 1] - py) / r
        xywhr[:, 2:4] /= r
        return RawDetections(xywhr, det.scores), width

    def detect(
        self,
        image: np.ndarray,
        conf_threshold: float = 0.25,
        iou_threshold: float = 0.5,
        max_det: int = 300,
    ) -> list[TileDetection]:
        """Tiles in ``image`` (pips not read: ``pips`` None, ``face_down`` from the class).

        Args:
            image: ``(H, W, 3) uint8`` BGR.
            conf_threshold, iou_threshold, max_det: see :meth:`raw`.
        Returns:
            list of :class:`TileDetection`, best confidence first.
        """
        det = self.raw(image, conf_threshold, iou_threshold, max_det)
        corners = obb_corners(det.xywhr)
        cls, conf = det.cls, det.confidence
        return [
            TileDetection(
                corners=corners[i], confidence=float(conf[i]), face_down=bool(cls[i] == FACE_DOWN)
            )
            for i in range(len(det.xywhr))
        ]


_CACHE: dict[tuple[str, float], TileDetector] = {}
_CACHE_LOCK = threading.Lock()
_SHA_CACHE: dict[tuple[str, float, int], str] = {}


def _cached_sha256(path: Path) -> str:
    st = path.stat()
    key = (str(path), st.st_mtime, st.st_size)
    if key not in _SHA_CACHE:
        _SHA_CACHE[key] = file_sha256(path)
    return _SHA_CACHE[key]


def default_model(
    fp32: Path = FP32_MODEL, int8: Path = INT8_MODEL, prefer_int8: bool = False
) -> Path:
    """The detector file loaded when no file is named: ``fp32``; with ``prefer_int8``
    (``DOMINO_DETECTOR_MODEL=int8``) ``int8`` when it exists and was made from ``fp32`` as that
    file is now (its metadata :data:`SOURCE_KEY` is the SHA-256 of ``fp32``), else ``fp32``. A
    stale ``int8`` (``fp32`` retrained and not quantised again) or one that onnxruntime cannot
    load gives a ``RuntimeWarning`` and is not used. The int8 file halves the detector's CPU
    time but reads fewer rendered game layouts, so it is not the default (docs/vision.md,
    "Speed").

    Args:
        fp32, int8: the two files (default :data:`FP32_MODEL`, :data:`INT8_MODEL`).
        prefer_int8: take ``int8`` where it is current.
    Returns:
        one of the two paths (``fp32`` also when neither exists: loading it then raises).
    """
    if not prefer_int8 or not int8.is_file():
        return fp32
    if not fp32.is_file():
        return int8
    try:
        source = _load(int8.resolve()).source_sha256
    except Exception as e:  # an unreadable file (onnxruntime's own error types)
        why = f"cannot be loaded ({type(e).__name__})"
    else:
        if source == _cached_sha256(fp32.resolve()):
            return int8
        why = f"was not made from the present {fp32.name}"
    warnings.warn(
        f"{int8.name} {why}: using {fp32.name} (make it again with scripts/quantize_detector.py)",
        RuntimeWarning,
        stacklevel=2,
    )
    return fp32


def load_detector(path: str | os.PathLike | None = None) -> TileDetector:
    """The detector for ``path`` (default: ``$DOMINO_DETECTOR_MODEL``, a file or ``int8``: the
    int8 file where it matches the fp32 one, :func:`default_model`; else the fp32 file), loaded
    once and cached (reloaded when the file changes).

    Raises:
        FileNotFoundError: no model file.
    """
    named = str(path or os.environ.get("DOMINO_DETECTOR_MODEL") or "")
    if not named or named == "int8":
        return _load(default_model(prefer_int8=named == "int8").resolve())
    return _load(Path(named).resolve())


def _load(p: Path) -> TileDetector:
    if not p.is_file():
        raise FileNotFoundError(
            f"detector model not found: {p} (train it with scripts/train_detector.py)"
        )
    key = (str(p), p.stat().st_mtime)
    with _CACHE_LOCK:
        det = _CACHE.get(key)
        if det is None:
            det = TileDetector(p)
            for k in [k for k in _CACHE if k[0] == key[0]]:  # an older version of this file
                del _CACHE[k]
            _CACHE[key] = det
    return det
