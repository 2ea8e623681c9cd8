"""Tile verifier: a second look at every detector box before it becomes a tile.

A small CNN (``models/tile-verifier.onnx``, trained by ``scripts/train_verifier.py``, run with
onnxruntime) looks at a square crop around each oriented box, turned so that the box's long
side runs down the crop, and says *face up*, *face down* or *not a tile*. A model with four input
channels also gets the box itself as a mask (:func:`box_mask`): the crop shows the box's length
but not its width, and in a tight row seen from a low angle the crop holds the neighbours too. A box whose
*not a tile* probability is at least :data:`NOT_TILE_THRESHOLD` is dropped (the pipeline keeps
it, with the reason, for the debug output). The detector finds tiles well but takes dark
textured rectangles (woven mats, curtains, book spines) for face-down tiles; the verifier is
trained on the detector's own boxes on real photos without dominoes and on rendered tiles. A box
the detector is sure of needs a surer verifier to be dropped (:func:`not_a_tile`).

Public API:

- :func:`verifier_crops` ``(image, corners, mask) -> (N, 3 or 4, CROP, CROP) float32``: the model
  input.
- :func:`verify` ``(image, corners) -> (N, 3) float32``: probabilities (face up, face down,
  not a tile); None when no model file exists.
- :func:`verifier_available`.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from vision import workers
from vision.pips.classifier import onnx_session
from vision.workers import run_all

DEFAULT_VERIFIER = Path(__file__).resolve().parents[1] / "models" / "tile-verifier.onnx"

#: Crop side in pixels (the network input is ``CROP x CROP``).
CROP = 64
#: The crop spans this multiple of the box's length on each side (the rest is context: a tile's
#: rim and what lies around it).
CROP_SPAN = 1.3
#: Class indices of the model output.
FACE_UP, FACE_DOWN, NOT_TILE = 0, 1, 2
#: A box whose "not a tile" probability is at least this is dropped ...
NOT_TILE_THRESHOLD = 0.35
#: ... and a face-up box the detector is sure of (confidence at least ``SURE_BOX_CONFIDENCE``)
#: only when the verifier is at least this sure. Chosen by the errors (tiles lost plus boxes
#: kept where there is none) on rendered tuning scenes (seeds 40 000 000+, 1280 px), the hard
#: views of ``vision.render.views`` (seeds 105 000 000+) and the held-out background photos,
#: never the real photos with dominoes (``scripts/train_verifier.py tune --views``;
#: models/MODEL_CARD.md).
SURE_BOX_NOT_TILE = 0.8
SURE_BOX_CONFIDENCE = 0.6
#: The same two for a face-down box (the detector's class), the class the detector also gives
#: fingers and white or printed rectangles: a back counts as sure only at a higher confidence
#: and then goes only at a higher bar (rendered hands: docs/vision.md, "The drop rule").
SURE_BACK_NOT_TILE = 0.9
SURE_BACK_CONFIDENCE = 0.8
#: Views of each crop whose probabilities are averaged (1-4: as is, turned 180 degrees, mirrored
#: across, mirrored along), all in one onnxruntime call.
VIEWS = 4
#: The network input is cut into parts of at least this many crops, run at once on the
#: threads of ``vision.workers`` (a part of fewer crops is not worth a thread).
SPLIT_CROPS = 16


def _model_path(path: str | os.PathLike | None) -> Path:
    return Path(path or os.environ.get("DOMINO_VERIFIER_MODEL") or DEFAULT_VERIFIER)


def verifier_available(path: str | os.PathLike | None = None) -> bool:
    """True when the verifier model file exists (``$DOMINO_VERIFIER_MODEL`` or the default);
    an empty ``$DOMINO_VERIFIER_MODEL`` does not turn it off, use ``"off"`` for that."""
    if (path or os.environ.get("DOMINO_VERIFIER_MODEL")) == "off":
        return False
    return _model_path(path).is_file()


def crop_transform(corners: np.ndarray, size: int = CROP, span: float = CROP_SPAN) -> np.ndarray:
    """The affine map from image pixels to the verifier crop of one box.

    Args:
        corners: ``(4, 2)`` pixel corners in :class:`vision.types.TileDetection` order
            (``corners[0] -> corners[1]`` a long side).
        size: crop side in pixels.
        span: crop side as a multiple of the box length.
    Returns:
        ``(2, 3) float64``: image -> crop; the box centre maps to the crop centre, the long side
        runs down the crop (half 0 on top).
    """
    c = np.asarray(corners, np.float64).reshape(4, 2)
    e01, e12 = c[1] - c[0], c[2] - c[1]
    along = e01 if np.linalg.norm(e01) >= np.linalg.norm(e12) else e12
    length = max(float(np.linalg.norm(along)), 1e-3)
    u = along / length
    v = np.array([-u[1], u[0]])
    side = span * length
    centre = c.mean(axis=0)
    # crop (x, y) <- image: x along v, y along u
    s = size / side
    A = np.array([[v[0] * s, v[1] * s, 0.0], [u[0] * s, u[1] * s, 0.0]])
    A[:, 2] = size / 2 - A[:, :2] @ centre
    return A


def verifier_crop(
    image: np.ndarray, corners: np.ndarray, size: int = CROP, span: float = CROP_SPAN
) -> np.ndarray:
    """The square crop the verifier looks at: ``span`` times the box length on a side, turned so
    that the long side runs down the crop, scaled to ``size`` px (large boxes are shrunk with
    area averaging first, so a close-up does not alias).

    Args:
        image: ``(H, W, 3) uint8`` BGR photo.
        corners: ``(4, 2)`` box corners in pixels.
    Returns:
        ``(size, size, 3) uint8`` BGR; parts outside the photo are replicated from its border.
    """
    A = crop_transform(corners, size, span)
    scale = float(np.hypot(A[0, 0], A[0, 1]))  # crop px per image px
    k = int(1.0 / scale) if scale < 0.5 else 1
    if k >= 2:  # shrink the region k times with area averaging first (integer factor: fast)
        c = np.asarray(corners, np.float64).reshape(4, 2)
        ctr = c.mean(axis=0)
        half = 0.75 * size / scale
        h, w = image.shape[:2]
        x0, y0 = int(max(0, np.floor(ctr[0] - half))), int(max(0, np.floor(ctr[1] - half)))
        x1, y1 = int(min(w, np.ceil(ctr[0] + half))), int(min(h, np.ceil(ctr[1] + half)))
        x1, y1 = x0 + (x1 - x0) // k * k, y0 + (y1 - y0) // k * k
        if x1 - x0 >= 2 * k and y1 - y0 >= 2 * k:
            patch = cv2.resize(
                image[y0:y1, x0:x1], ((x1 - x0) // k, (y1 - y0) // k), interpolation=cv2.INTER_AREA
            )
            # patch pixel q <-> image pixel k * q + (x0, y0) + (k - 1) / 2
            off = np.array([x0 + (k - 1) / 2, y0 + (k - 1) / 2])
            A = np.c_[A[:, :2] * k, A[:, :2] @ off + A[:, 2]]
            return cv2.warpAffine(
                patch, A, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            )
    return cv2.warpAffine(
        image, A, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def box_aspect(corners: np.ndarray) -> float:
    """Width over length of one box (``(4, 2)`` pixel corners): ``<= 1``."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    a, b = float(np.linalg.norm(c[1] - c[0])), float(np.linalg.norm(c[2] - c[1]))
    return min(a, b) / max(a, b, 1e-6)


def box_mask(aspects: np.ndarray, size: int = CROP, span: float = CROP_SPAN) -> np.ndarray:
    """Where the box lies in its verifier crop (:func:`crop_transform`: the box is centred, its
    length ``size / span`` px down the crop, its width ``aspect`` times that across).

    Args:
        aspects: ``(N,)`` width over length of each box (:func:`box_aspect`).
    Returns:
        ``(N, size, size) float32``: 1 inside the box, 0 outside, a linear ramp one pixel wide
        at its edges.
    """
    a = np.asarray(aspects, np.float32).reshape(-1, 1, 1)
    half_len = size / (2 * span)
    r = np.abs(np.arange(size, dtype=np.float32) + 0.5 - size / 2)
    down = np.clip(half_len - r + 0.5, 0, 1)[None, :, None]
    across = np.clip(half_len * a - r[None, None, :] + 0.5, 0, 1)
    return (down * across).astype(np.float32)


def crops_to_input(crops: np.ndarray, aspects: np.ndarray | None = None) -> np.ndarray:
    """``(N, S, S, 3) uint8`` BGR crops -> ``(N, 3, S, S) float32`` network input (RGB, /255);
    with ``aspects`` (``(N,)``, :func:`box_aspect`) ``(N, 4, S, S)``, the box mask
    (:func:`box_mask`) as the fourth channel."""
    x = np.asarray(crops, np.float32)[..., ::-1] / 255.0
    x = x.transpose(0, 3, 1, 2)
    if aspects is not None:
        x = np.concatenate([x, box_mask(aspects, x.shape[2])[:, None]], axis=1)
    return np.ascontiguousarray(x)


def verifier_crops(image: np.ndarray, corners: np.ndarray, mask: bool = False) -> np.ndarray:
    """Network input for boxes of one photo.

    Args:
        image: ``(H, W, 3) uint8`` BGR.
        corners: ``(N, 4, 2)`` box corners in pixels.
        mask: add the box mask as a fourth channel (:func:`box_mask`).
    Returns:
        ``(N, 3, CROP, CROP) float32``, ``(N, 4, CROP, CROP)`` with ``mask``.
    """
    cs = np.asarray(corners, np.float32).reshape(-1, 4, 2)
    if len(cs) == 0:
        return np.zeros((0, 4 if mask else 3, CROP, CROP), np.float32)
    crops = np.stack(run_all(lambda c: verifier_crop(image, c), list(cs)))
    return crops_to_input(crops, np.array([box_aspect(c) for c in cs]) if mask else None)


def input_channels(sess) -> int:
    """Input channels of a verifier model (an onnxruntime session): 3, or 4 with the box mask."""
    shape = sess.get_inputs()[0].shape
    return shape[1] if len(shape) == 4 and isinstance(shape[1], int) else 3


def verify(
    image: np.ndarray, corners: np.ndarray, path: str | os.PathLike | None = None
) -> np.ndarray | None:
    """Probabilities that each box is a face-up tile, a face-down tile or not a tile.

    Args:
        image: ``(H, W, 3) uint8`` BGR photo.
        corners: ``(N, 4, 2)`` box corners in pixels.
        path: ONNX model (default ``$DOMINO_VERIFIER_MODEL`` or ``models/tile-verifier.onnx``).
    Returns:
        ``(N, 3) float32`` softmax probabilities (columns :data:`FACE_UP`, :data:`FACE_DOWN`,
        :data:`NOT_TILE`), or None when there is no model (``$DOMINO_VERIFIER_MODEL=off`` turns it
        off).
    """
    if not verifier_available(path):
        return None
    sess = onnx_session(_model_path(path))
    x = verifier_crops(image, corners, mask=input_channels(sess) == 4)
    if len(x) == 0:
        return np.zeros((0, 3), np.float32)
    n = len(x)
    # the crop as it is, turned by 180 degrees and mirrored both ways (a tile looks the same):
    # the mean of the readings is steadier than one
    views = np.concatenate(
        [x, x[:, :, ::-1, ::-1], x[:, :, :, ::-1], x[:, :, ::-1, :]][: max(1, min(4, VIEWS))]
    )
    name = sess.get_inputs()[0].name
    # in parts on the shared threads (each part's result is the same as in one call)
    parts = np.array_split(views, max(1, min(workers.THREADS, len(views) // SPLIT_CROPS)))
    logits = np.concatenate(
        run_all(lambda x: sess.run(None, {name: np.ascontiguousarray(x)})[0], parts)
    ).astype(np.float64)
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return p.reshape(-1, n, 3).mean(axis=0).astype(np.float32)


def not_a_tile(
    not_tile: np.ndarray, confidence: np.ndarray, face_down: np.ndarray | None = None
) -> np.ndarray:
    """Which boxes the verifier rejects: "not a tile" probability at least
    :data:`NOT_TILE_THRESHOLD`, or at least :data:`SURE_BOX_NOT_TILE` for a face-up box the
    detector is sure of (confidence at least :data:`SURE_BOX_CONFIDENCE`), or at least
    :data:`SURE_BACK_NOT_TILE` for a face-down one (confidence at least
    :data:`SURE_BACK_CONFIDENCE`).

    Args:
        not_tile: ``(N,)`` the verifier's "not a tile" probabilities.
        confidence: ``(N,)`` the detector's confidences.
        face_down: ``(N,) bool`` the detector's class, or None (every box face up).
    Returns:
        ``(N,) bool``: True for a box to drop.
    """
    nt = np.asarray(not_tile, np.float64)
    down = np.zeros(nt.shape, bool) if face_down is None else np.asarray(face_down, bool)
    sure = np.asarray(confidence, np.float64) >= np.where(
        down, SURE_BACK_CONFIDENCE, SURE_BOX_CONFIDENCE
    )
    bar = np.where(down, SURE_BACK_NOT_TILE, SURE_BOX_NOT_TILE)
    return nt >= np.where(sure, bar, NOT_TILE_THRESHOLD)
