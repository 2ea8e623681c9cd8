#!/usr/bin/env python
"""Quantise the fp32 ONNX tile detector to int8 (onnxruntime static quantisation).

    nice -n 10 .venv/bin/python scripts/quantize_detector.py --model models/tiles-obb.onnx \
        --out models/tiles-obb.int8.onnx --calib DIR [DIR ...] [--n 128]
    # bare onnxruntime sessions, 384 and 640 px inputs, 50 alternated runs each
    nice -n 10 .venv/bin/python scripts/quantize_detector.py --time models/tiles-obb.onnx \
        models/tiles-obb.int8.onnx
    # class scores against the fp32 model's on 16 rendered scenes at 384 and 640 px
    nice -n 10 .venv/bin/python scripts/quantize_detector.py --agree models/tiles-obb.onnx \
        models/tiles-obb.int8.onnx [MORE.onnx ...]

Needs the ``onnx`` package (the ``train`` extra); running the result needs only onnxruntime.

Steps: (1) the opset is raised to 13 (per-channel ``DequantizeLinear``) and ``quant_pre_process``
runs (ONNX shape inference, graph optimisation; batch norm is already folded in the export);
(2) calibration: ``--n`` images taken evenly from the sorted image files of the ``--calib``
folders (RENDERED training images, e.g. ``data/tiles-obb-plain3/images/train`` and
``data/tiles-obb-real1/images/train``; never the real test photos), each letterboxed exactly
as at run time (:func:`vision.detector.letterbox`) at every ``--sizes`` side (the detector's two
passes, 384 and 640 px); activation ranges by ``--method`` (default ``percentile``: 99.999% of
the histogram of each activation); (3) ``quantize_static``, QDQ format (default) or QOperator,
per-channel symmetric int8 weights, asymmetric uint8 activations (onnxruntime's fast path on
x86: ``QLinearConv`` with VNNI). Left in fp32: the decoding part of the head (distribution focal
loss, angle, box assembly: every ``/model.23/`` node outside the ``cv2``/``cv3``/``cv4`` conv
branches) and the stem (:data:`STEM`, ``--exclude``); ``--keep-fp32 final`` also keeps the
head's last convs, ``--keep-fp32 head`` the whole head.

The result keeps the fp32 model's metadata (``imgsz``, ``names``) and records the SHA-256 of the
fp32 file (``source_sha256``): with ``DOMINO_DETECTOR_MODEL=int8`` the runtime loads
``models/tiles-obb.int8.onnx`` only while ``models/tiles-obb.onnx`` is that file
(:func:`vision.detector.default_model`; the fp32 file is the default), so a retrained fp32 model
is used as it is until this script runs again. ``--cache FILE`` keeps the
calibration ranges for trying other ``--exclude`` / ``--keep-fp32`` settings without
calibrating again. Accuracy and speed against the fp32 model: models/MODEL_CARD.md and
docs/vision.md ("Speed").
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.detector import FP32_MODEL, INT8_MODEL, TileDetector, letterbox  # noqa: E402
from vision.detector.onnx_model import SOURCE_KEY, file_sha256  # noqa: E402

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp"}
#: node name prefix of the ultralytics OBB head and of its conv branches (box, class, angle)
HEAD = "/model.23/"
BRANCHES = ("/model.23/cv2", "/model.23/cv3", "/model.23/cv4")
#: the stem (two strided convs and the first C3k2 block): left in fp32 by default, as it costs
#: little (few channels) and its int8 error grows through the whole network
STEM = ("/model.0/", "/model.1/", "/model.2/")


def calibration_files(dirs: list[Path], n: int) -> list[Path]:
    """``n`` image files taken evenly from the sorted files of ``dirs`` (about ``n / len(dirs)``
    from each folder).

    Raises:
        FileNotFoundError: a folder holds no image.
    """
    out: list[Path] = []
    for i, d in enumerate(dirs):
        files = sorted(p for p in Path(d).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise FileNotFoundError(f"no images in {d}")
        k = n // len(dirs) + (1 if i < n % len(dirs) else 0)
        idx = np.linspace(0, len(files) - 1, num=min(k, len(files))).round().astype(int)
        out += [files[j] for j in idx]
    return out


class LetterboxReader:
    """onnxruntime ``CalibrationDataReader``: each file letterboxed at each size, read lazily, in
    ranges (``set_range``: onnxruntime's strided calibration, which keeps at most a range's
    activations in memory at once).

    Args:
        files: image files (BGR, any size).
        sizes: network input sides in pixels.
        input_name: the model's input name.
    """

    def __init__(self, files: list[Path], sizes: list[int], input_name: str):
        # size by size: a histogram calibrator needs inputs of one shape within a range
        self._items = [(f, s) for s in sizes for f in files]
        self._input_name = input_name
        self._pos, self._end = 0, len(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def set_range(self, start_index: int, end_index: int) -> None:
        self._pos, self._end = start_index, min(end_index, len(self._items))

    def get_next(self) -> dict[str, np.ndarray] | None:
        if self._pos >= self._end:
            return None
        f, size = self._items[self._pos]
        self._pos += 1
        image = cv2.imread(str(f), cv2.IMREAD_COLOR)
        if image is None:
            raise ValueError(f"cannot read {f}")
        return {self._input_name: letterbox(image, size)[0]}


def excluded_nodes(model_path: Path, keep_fp32: str) -> list[str]:
    """Names of the nodes left in fp32.

    Args:
        keep_fp32: ``"decode"``: the head's decoding part (every ``/model.23/`` node outside the
            conv branches); ``"final"``: that and the branches' last convs (the raw box, class
            and angle outputs); ``"head"``: the whole head; ``"none"``: nothing.
    Raises:
        ValueError: unknown ``keep_fp32``.
    """
    import onnx

    if keep_fp32 not in ("none", "decode", "final", "head"):
        raise ValueError(f"unknown --keep-fp32 {keep_fp32!r}")
    names = [n.name for n in onnx.load(str(model_path), load_external_data=False).graph.node]
    head = [n for n in names if n.startswith(HEAD)]
    if keep_fp32 == "none":
        return []
    if keep_fp32 == "head":
        return head
    decode = [n for n in head if not n.startswith(BRANCHES)]
    if keep_fp32 == "decode":
        return decode
    # a branch's last conv has no activation after it: "/model.23/cv2.0/cv2.0.2/Conv"
    final = [
        n for n in head if n.startswith(BRANCHES) and n.endswith("/Conv") and "/conv/" not in n
    ]
    return decode + final


#: per-channel ``DequantizeLinear`` (its ``axis``) needs opset 13; ultralytics exports opset 12
MIN_OPSET = 13


def upgraded(model: Path, tmp: Path) -> Path:
    """``model``, or a copy converted to :data:`MIN_OPSET` in ``tmp`` when its opset is older."""
    import onnx
    from onnx import version_converter

    m = onnx.load(str(model))
    opset = max(o.version for o in m.opset_import if o.domain in ("", "ai.onnx"))
    if opset >= MIN_OPSET:
        return model
    out = tmp / "opset.onnx"
    onnx.save(version_converter.convert_version(m, MIN_OPSET), str(out))
    return out


def excluded_prefixes(model_path: Path, prefixes: list[str]) -> list[str]:
    """Names of the nodes of ``model_path`` whose name starts with one of ``prefixes``."""
    import onnx

    if not prefixes:
        return []
    graph = onnx.load(str(model_path), load_external_data=False).graph
    return [n.name for n in graph.node if n.name.startswith(tuple(prefixes))]


def calibration_options(method: str, count: int) -> dict[str, object]:
    """onnxruntime ``extra_options`` for ``method`` and ``count`` calibration images (per size).

    ``minmax``: the smallest and largest value seen (ranges only, little memory);
    ``minmax-avg``: the mean of each input's smallest and largest values (outliers count less);
    ``entropy`` and ``percentile`` (99.999%) keep a histogram of every activation and run the
    inputs in ranges of at most 16 (a range's activations are held in memory at once).
    """
    opts: dict[str, object] = {"ActivationSymmetric": False}
    if method == "minmax-avg":
        opts["CalibMovingAverage"] = True
    if method in ("entropy", "percentile"):
        opts["CalibStridedMinMax"] = max(d for d in range(1, 17) if count % d == 0)
    return opts


def copy_metadata(src: Path, dst: Path) -> None:
    """Copy the ONNX metadata (``imgsz``, ``names``, ...) of ``src`` into ``dst`` and record the
    SHA-256 of ``src`` (:data:`vision.detector.onnx_model.SOURCE_KEY`: the runtime loads ``dst``
    by default only while ``src`` is unchanged)."""
    import onnx

    props = {p.key: p.value for p in onnx.load(str(src), load_external_data=False).metadata_props}
    m = onnx.load(str(dst))
    props.update({p.key: p.value for p in m.metadata_props})
    props[SOURCE_KEY] = file_sha256(src)
    onnx.helper.set_model_props(m, props)
    m.doc_string = f"int8 static quantisation of {src.name} (scripts/quantize_detector.py)"
    onnx.save(m, str(dst))


def quantize(
    model: Path,
    out: Path,
    calib: list[Path],
    n: int,
    sizes: list[int],
    fmt: str = "qdq",
    keep_fp32: str = "decode",
    method: str = "percentile",
    activation: str = "quint8",
    op_types: list[str] | None = None,
    cache: Path | None = None,
    exclude: list[str] | None = None,
) -> None:
    """Write the int8 model of ``model`` to ``out`` (arguments: see the command line)."""
    import onnxruntime as ort
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    files = calibration_files(calib, n)
    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        quant_pre_process(str(upgraded(model, Path(tmp))), str(pre), skip_symbolic_shape=True)
        input_name = ort.InferenceSession(str(pre), providers=["CPUExecutionProvider"])
        reader = LetterboxReader(files, sizes, input_name.get_inputs()[0].name)
        t = time.perf_counter()
        quantize_static(
            str(pre),
            str(out),
            reader,
            quant_format=QuantFormat.QDQ if fmt == "qdq" else QuantFormat.QOperator,
            op_types_to_quantize=op_types,
            per_channel=True,
            activation_type=QuantType.QUInt8 if activation == "quint8" else QuantType.QInt8,
            weight_type=QuantType.QInt8,
            nodes_to_exclude=excluded_nodes(pre, keep_fp32) + excluded_prefixes(pre, exclude or []),
            calibrate_method={
                "minmax": CalibrationMethod.MinMax,
                "minmax-avg": CalibrationMethod.MinMax,
                "entropy": CalibrationMethod.Entropy,
                "percentile": CalibrationMethod.Percentile,
            }[method],
            extra_options=calibration_options(method, len(files)),
            calibration_cache_path=cache,
        )
        print(f"calibrated on {len(reader)} inputs in {time.perf_counter() - t:.0f} s")
    copy_metadata(model, out)


def time_sessions(models: list[Path], sizes: list[int], runs: int) -> list[dict[str, object]]:
    """Bare onnxruntime sessions (the runtime's options: default threads, no spinning) on one
    rendered 1280x960 scene letterboxed at each size: median wall and CPU ms per run over
    ``runs`` runs, the models alternated run by run (so a change of load hits them alike)."""
    from vision.render import random_scene

    image = random_scene(np.random.default_rng(10_900_000), image_size=(1280, 960)).image
    sessions = [TileDetector(m).session for m in models]
    rows: list[dict[str, object]] = []
    for size in sizes:
        feed = {sessions[0].get_inputs()[0].name: letterbox(image, size)[0]}
        wall: list[list[float]] = [[] for _ in models]
        cpu: list[list[float]] = [[] for _ in models]
        for s in sessions:
            s.run(None, feed)  # warm up
        for _ in range(runs):
            for i, s in enumerate(sessions):
                t, c = time.perf_counter(), time.process_time()
                s.run(None, feed)
                wall[i].append(1e3 * (time.perf_counter() - t))
                cpu[i].append(1e3 * (time.process_time() - c))
        for i, m in enumerate(models):
            rows.append(
                {
                    "model": m.name,
                    "size": size,
                    "wall_ms": round(float(np.median(wall[i])), 1),
                    "cpu_ms": round(float(np.median(cpu[i])), 1),
                }
            )
    return rows


#: seeds of the rendered scenes of :func:`score_error` (apart from training, calibration and the
#: benchmark's validation seeds)
AGREE_SEED0 = 32_000_000


def score_error(
    models: list[Path], sizes: list[int], scenes: int = 16, conf: float = 0.25
) -> list[dict[str, object]]:
    """How far each of ``models[1:]`` is from ``models[0]`` (the fp32 file) on rendered 1280x960
    scenes (seeds :data:`AGREE_SEED0` + k) letterboxed at each size: over the anchors where
    either model's best class score is above 0.15, the mean and 99th percentile of the score
    difference, and the number of anchors on different sides of ``conf``."""
    from vision.render import random_scene

    images = [
        random_scene(np.random.default_rng(AGREE_SEED0 + k), image_size=(1280, 960)).image
        for k in range(scenes)
    ]
    sessions = [TileDetector(m).session for m in models]
    name = sessions[0].get_inputs()[0].name
    feeds = [{name: letterbox(im, s)[0]} for im in images for s in sizes]
    ref = [sessions[0].run(None, f)[0][0, 4:-1].max(axis=0) for f in feeds]
    rows: list[dict[str, object]] = []
    for m, sess in zip(models[1:], sessions[1:], strict=True):
        diffs, flips = [], 0
        for f, a in zip(feeds, ref, strict=True):
            b = sess.run(None, f)[0][0, 4:-1].max(axis=0)
            diffs.append(np.abs(a - b)[(a > 0.15) | (b > 0.15)])
            flips += int(((a >= conf) != (b >= conf)).sum())
        d = np.concatenate(diffs)
        rows.append(
            {
                "model": m.name,
                "mean": round(float(d.mean()), 4),
                "p99": round(float(np.percentile(d, 99)), 3),
                "anchors_across_conf": flips,
            }
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", type=Path, default=FP32_MODEL)
    ap.add_argument("--out", type=Path, default=INT8_MODEL)
    ap.add_argument(
        "--calib",
        type=Path,
        nargs="+",
        help="folders of rendered training images (never the real test photos)",
    )
    ap.add_argument(
        "--time",
        type=Path,
        nargs="+",
        default=None,
        metavar="MODEL",
        help="only time bare sessions of these models (--sizes, --runs; alternated) and exit",
    )
    ap.add_argument("--runs", type=int, default=50, help="timed runs per model and size (--time)")
    ap.add_argument(
        "--agree",
        type=Path,
        nargs="+",
        default=None,
        metavar="MODEL",
        help="only compare the class scores of these models with the first (fp32) one on "
        "rendered scenes (score_error) and exit",
    )
    ap.add_argument("--n", type=int, default=128, help="calibration images in all")
    ap.add_argument(
        "--sizes", type=int, nargs="+", default=[384, 640], help="input sides to calibrate"
    )
    ap.add_argument("--format", choices=["qdq", "qop"], default="qdq")
    ap.add_argument(
        "--keep-fp32",
        choices=["none", "decode", "final", "head"],
        default="decode",
        help="head nodes left in fp32 (see the module docstring)",
    )
    ap.add_argument(
        "--method", choices=["minmax", "minmax-avg", "entropy", "percentile"], default="percentile"
    )
    ap.add_argument("--activation", choices=["quint8", "qint8"], default="quint8")
    ap.add_argument(
        "--ops", nargs="*", default=None, help="op types to quantise (default: all onnxruntime can)"
    )
    ap.add_argument(
        "--exclude",
        nargs="*",
        default=list(STEM),
        help="more node name prefixes left in fp32 (default: the stem, %(default)s; none: "
        "--exclude with no value)",
    )
    ap.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="calibration ranges: read from this JSON file when it exists, else written to it",
    )
    a = ap.parse_args(argv)
    if a.time:
        for row in time_sessions(a.time, a.sizes, a.runs):
            print(row)
        print(f"load average {os.getloadavg()}")
        return 0
    if a.agree:
        for row in score_error(a.agree, a.sizes):
            print(row)
        return 0
    if not a.calib:
        ap.error("--calib is required")
    if a.n < 1:
        ap.error("--n must be at least 1")
    quantize(
        a.model,
        a.out,
        a.calib,
        a.n,
        a.sizes,
        a.format,
        a.keep_fp32,
        a.method,
        a.activation,
        a.ops,
        a.cache,
        a.exclude,
    )
    print(f"{a.out}: {a.out.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
