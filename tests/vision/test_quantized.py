"""The int8 detector (models/tiles-obb.int8.onnx, scripts/quantize_detector.py): the same boxes
as the fp32 model it was made from, loaded by default only while it matches that file."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detector import (
    FP32_MODEL,
    INT8_MODEL,
    TileDetector,
    default_model,
    load_detector,
    obb_corners,
)
from vision.detector.onnx_model import SOURCE_KEY, file_sha256

ROOT = Path(__file__).resolve().parents[2]
needs_int8 = pytest.mark.skipif(not INT8_MODEL.is_file(), reason="no int8 detector committed")


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32)) - inter
    return float(inter / union) if union > 0 else 0.0


@needs_int8
def test_int8_gives_the_fp32_boxes_on_rendered_scenes():
    """Validation seeds (outside the training and calibration data), 1280x960 like a phone
    photo: every confident fp32 box has an int8 box on it (rotated IoU >= 0.8, same class,
    confidence within 0.1) and the other way round."""
    from vision.render import random_scene

    fp32, int8 = load_detector(FP32_MODEL), load_detector(INT8_MODEL)
    assert int8.dynamic and int8.imgsz == fp32.imgsz and int8.names == fp32.names
    matched = 0
    for k in range(3):
        image = random_scene(np.random.default_rng(10_600_000 + k), image_size=(1280, 960)).image
        a, b = fp32.raw(image), int8.raw(image)
        ca, cb = obb_corners(a.xywhr), obb_corners(b.xywhr)
        for (cx, confx, clsx), (cy, confy, clsy) in (
            ((ca, a.confidence, a.cls), (cb, b.confidence, b.cls)),
            ((cb, b.confidence, b.cls), (ca, a.confidence, a.cls)),
        ):
            for i in np.nonzero(confx >= 0.5)[0]:
                ious = [_iou(cx[i], cy[j]) for j in range(len(cy))]
                assert ious, "a confident box with no box at all in the other model"
                j = int(np.argmax(ious))
                assert ious[j] >= 0.8, (k, i, ious[j])
                assert clsy[j] == clsx[i] and abs(confy[j] - confx[i]) <= 0.1, (k, i)
                matched += 1
    assert matched >= 10  # the scenes hold tiles: the comparison is not empty


@needs_int8
def test_the_runtime_loads_fp32_by_default_and_int8_when_asked(monkeypatch):
    monkeypatch.delenv("DOMINO_DETECTOR_MODEL", raising=False)
    assert default_model() == FP32_MODEL
    assert load_detector().path == FP32_MODEL.resolve()
    assert load_detector().source_sha256 is None
    monkeypatch.setenv("DOMINO_DETECTOR_MODEL", "int8")
    assert load_detector().path == INT8_MODEL.resolve()
    assert load_detector().source_sha256 == file_sha256(FP32_MODEL)
    monkeypatch.setenv("DOMINO_DETECTOR_MODEL", str(INT8_MODEL))  # any file can be named
    assert load_detector().path == INT8_MODEL.resolve()


@needs_int8
def test_a_stale_int8_model_is_not_loaded(tmp_path):
    """The fp32 model retrained (another file) and not quantised again: fp32 is loaded."""
    fp32, int8 = tmp_path / "d.onnx", tmp_path / "d.int8.onnx"
    shutil.copy(FP32_MODEL, fp32)
    shutil.copy(INT8_MODEL, int8)
    assert default_model(fp32, int8, prefer_int8=True) == int8
    assert default_model(fp32, int8) == fp32  # not asked for
    with open(fp32, "ab") as f:  # another fp32 file now
        f.write(b"\0")
    with pytest.warns(RuntimeWarning, match="not made from"):
        assert default_model(fp32, int8, prefer_int8=True) == fp32
    assert default_model(fp32, tmp_path / "none.onnx", prefer_int8=True) == fp32
    int8.write_bytes(b"version https://git-lfs.github.com/spec/v1\n")  # not a model
    with pytest.warns(RuntimeWarning, match="cannot be loaded"):
        assert default_model(fp32, int8, prefer_int8=True) == fp32


def test_quantize_script_writes_a_model_that_names_its_source(tmp_path):
    """scripts/quantize_detector.py end to end on two rendered images at 64 px (fast): the
    result is an int8 detector with the source's metadata and SHA-256."""
    pytest.importorskip("onnx")
    sys.path.insert(0, str(ROOT / "scripts"))
    import quantize_detector

    from vision.render import random_scene

    calib = tmp_path / "calib"
    calib.mkdir()
    for k in range(2):
        image = random_scene(np.random.default_rng(10_700_000 + k)).image
        cv2.imwrite(str(calib / f"{k}.png"), image)
    out = tmp_path / "q.onnx"
    rc = quantize_detector.main(
        [
            *("--model", str(FP32_MODEL), "--out", str(out), "--calib", str(calib)),
            *("--n", "2", "--sizes", "64", "--method", "minmax"),
        ]
    )
    assert rc == 0
    det = TileDetector(out)
    assert det.source_sha256 == file_sha256(FP32_MODEL)
    assert det.names == load_detector(FP32_MODEL).names and det.dynamic
    meta = det.session.get_modelmeta().custom_metadata_map
    assert meta[SOURCE_KEY] == det.source_sha256
    ops = {n.op_type for n in __import__("onnx").load(str(out)).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= ops
    assert out.stat().st_size < FP32_MODEL.stat().st_size / 2
