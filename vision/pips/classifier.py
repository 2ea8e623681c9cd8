"""Small learned half classifier (pips 0..12 on one half), ONNX via onnxruntime, no torch.

Trained on rendered tiles by ``scripts/train_pip_classifier.py``; input: ``(N, 4, 32, 32)`` halves
from :func:`half_inputs` (Lab difference from the body colour and the ink map); output:
``(N, 13)`` logits.
The pip counter (:func:`vision.pips.counter.read_tile`) combines it with the classical count; the
classifier decides most disagreements.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

from vision import workers

DEFAULT_CLASSIFIER = Path(__file__).resolve().parents[2] / "models" / "pip-halves.onnx"

_CACHE: dict[str, object] = {}
_LOCK = threading.Lock()


def onnx_session(path: Path):
    """One onnxruntime CPU session (one thread) per model file, created on first use and kept;
    shared by the half classifier and the tile verifier (``vision.verifier``)."""
    import onnxruntime as ort

    key = str(path)
    with _LOCK:
        s = _CACHE.get(key)
        if s is None:
            opts = ort.SessionOptions()
            opts.log_severity_level = 3
            opts.intra_op_num_threads = 1
            s = ort.InferenceSession(key, sess_options=opts, providers=["CPUExecutionProvider"])
            _CACHE[key] = s
    return s


def classifier_available(path: str | os.PathLike | None = None) -> bool:
    """True when the half classifier model file exists."""
    return Path(path or os.environ.get("DOMINO_PIP_CLASSIFIER") or DEFAULT_CLASSIFIER).is_file()


def classify_halves(
    halves: np.ndarray, path: str | os.PathLike | None = None, mirror: bool = False
) -> np.ndarray:
    """Probabilities of 0..12 pips for each half.

    Args:
        halves: ``(N, C, 32, 32) float32`` half inputs: ``C = 4`` from :func:`half_inputs` (the
            model's channels are taken from them; a one-channel model gets the ink map), or
            ``(N, 32, 32)`` / ``(N, 1, 32, 32)`` ink maps for a one-channel model.
        path: ONNX model (default ``$DOMINO_PIP_CLASSIFIER`` or ``models/pip-halves.onnx``).
        mirror: also classify the mirror images (across the tile) and average (costs twice the
            time; no better on held-out rendered tiles: 0.9849 with, 0.9847 without).
    Returns:
        ``(N, 13) float32`` softmax probabilities.
    Raises:
        FileNotFoundError: no model file.
        ValueError: wrong input shape, or fewer channels than the model needs.
    """
    p = Path(path or os.environ.get("DOMINO_PIP_CLASSIFIER") or DEFAULT_CLASSIFIER)
    if not p.is_file():
        raise FileNotFoundError(f"pip classifier not found: {p}")
    x = np.asarray(halves, np.float32)
    if x.ndim == 3:
        x = x[:, None]
    if x.ndim != 4 or x.shape[2:] != (32, 32) or x.shape[1] not in (1, N_CHANNELS):
        raise ValueError(
            f"expected (N, {N_CHANNELS}, 32, 32) or (N, 1, 32, 32) half images, got {x.shape}"
        )
    s = onnx_session(p)
    inp = s.get_inputs()[0]
    want = inp.shape[1] if isinstance(inp.shape[1], int) else x.shape[1]
    if want == 1 and x.shape[1] == N_CHANNELS:
        x = x[:, N_CHANNELS - 1 :]  # the ink map
    elif want != x.shape[1]:
        raise ValueError(f"the model {p.name} needs {want} channels per half, got {x.shape[1]}")
    if len(x) == 0:
        return np.zeros((0, 13), np.float32)
    both = np.concatenate([x, x[..., ::-1]]) if mirror else x
    # in parts on the shared threads of vision.workers (each part's result is the same as in
    # one call)
    parts = np.array_split(both, max(1, min(workers.THREADS, len(both) // SPLIT_HALVES)))
    logits = np.concatenate(
        workers.run_all(
            lambda part: s.run(None, {inp.name: np.ascontiguousarray(part, np.float32)})[0],
            parts,
        )
    )
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    prob = e / e.sum(axis=1, keepdims=True)
    if mirror:
        prob = (prob[: len(x)] + prob[len(x) :]) / 2
    return prob.astype(np.float32)


#: :func:`classify_halves` cuts its input into parts of at least this many halves, run at once
#: on the threads of ``vision.workers``.
SPLIT_HALVES = 16

#: channels of :func:`half_inputs`: Lab difference from the body colour (L, a, b) and the ink map.
N_CHANNELS = 4


def half_inputs(rect: np.ndarray, divider_pos: float, size: int = 32) -> np.ndarray:
    """Both halves of a rectified tile as classifier input.

    Args:
        rect: ``(2w, w, 3) uint8`` BGR rectified tile (half 0 on top, see
            :func:`vision.pips.counter.rectify_tile`).
        divider_pos: the divider's position along the tile as a fraction of its length (clamped
            to 0.4..0.6); the halves are cut there.
        size: output side in pixels.
    Returns:
        ``(2, 4, size, size) float32``: per half the signed Lab difference from the body colour
        (median of the inner face; L, a, b, each / 64, clipped to +-2) and the ink map (Lab
        distance from the body, chroma weighted 1.6x, divided by its 99th percentile on the inner
        face but at least 20, clipped to [0, 1]); half 1 turned so that both halves have the tile's end at row 0 and the divider
        at the last row.
    Raises:
        ValueError: ``rect`` is not a ``(H, W, 3)`` image.
    """
    import cv2

    if rect is None or rect.ndim != 3 or rect.shape[2] != 3:
        raise ValueError(
            f"expected a (2w, w, 3) rectified tile, got {None if rect is None else rect.shape}"
        )
    from .counter import median_u8

    L, w = rect.shape[:2]
    m = max(2, int(round(0.07 * w)))
    lab8 = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB)
    body = median_u8(lab8[m : L - m, m : w - m])
    diff = lab8.astype(np.float32) - body
    wd = diff.copy()
    wd[..., 1:] *= 1.6
    dist = np.sqrt((wd**2).sum(axis=2))
    dist = np.clip(dist / max(float(np.percentile(dist[m : L - m, m : w - m], 99)), 20.0), 0, 1)
    feat = np.concatenate([np.clip(diff / 64.0, -2, 2), dist[..., None]], axis=2)  # (L, w, 4)
    cut = int(round(np.clip(divider_pos, 0.4, 0.6) * L))
    h0 = cv2.resize(feat[:cut], (size, size), interpolation=cv2.INTER_AREA)
    h1 = cv2.resize(
        np.ascontiguousarray(feat[cut:][::-1, ::-1]), (size, size), interpolation=cv2.INTER_AREA
    )
    return np.stack([h0, h1]).transpose(0, 3, 1, 2).astype(np.float32)
