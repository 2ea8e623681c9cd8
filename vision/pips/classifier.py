"""Small learned half classifier (pips 0..12 on one half), ONNX via onnxruntime, no torch.

Trained on rendered tiles by ``scripts/train_pip_classifier.py``; input: the ``(N, 1, 32, 32)``
ink maps of :func:`vision.pips.counter.half_images`; output: ``(N, 13)`` logits.
The pip counter uses it for small tiles and for doubtful classical readings
(:func:`vision.pips.counter.read_pips` says when).
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np

DEFAULT_CLASSIFIER = Path(__file__).resolve().parents[2] / "models" / "pip-halves.onnx"

_CACHE: dict[str, object] = {}
_LOCK = threading.Lock()


def _session(path: Path):
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


def classify_halves(halves: np.ndarray, path: str | os.PathLike | None = None) -> np.ndarray:
    """Probabilities of 0..12 pips for each half.

    Args:
        halves: ``(N, 32, 32)`` or ``(N, 1, 32, 32) float32`` ink maps in [0, 1].
        path: ONNX model (default ``$DOMINO_PIP_CLASSIFIER`` or ``models/pip-halves.onnx``).
    Returns:
        ``(N, 13) float32`` softmax probabilities (averaged over the half and its mirror image).
    Raises:
        FileNotFoundError: no model file.
        ValueError: wrong input shape.
    """
    p = Path(path or os.environ.get("DOMINO_PIP_CLASSIFIER") or DEFAULT_CLASSIFIER)
    if not p.is_file():
        raise FileNotFoundError(f"pip classifier not found: {p}")
    x = np.asarray(halves, np.float32)
    if x.ndim == 3:
        x = x[:, None]
    if x.ndim != 4 or x.shape[1:] != (1, 32, 32):
        raise ValueError(f"expected (N, 1, 32, 32) half images, got {x.shape}")
    if len(x) == 0:
        return np.zeros((0, 13), np.float32)
    s = _session(p)
    name = s.get_inputs()[0].name
    both = np.concatenate([x, x[..., ::-1]]).astype(np.float32)
    logits = s.run(None, {name: np.ascontiguousarray(both)})[0]
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    prob = e / e.sum(axis=1, keepdims=True)
    return ((prob[:len(x)] + prob[len(x):]) / 2).astype(np.float32)
