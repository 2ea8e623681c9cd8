"""Tests of the ONNX OBB detector wrapper (vision.detector): decoding, NMS, letterbox, the model."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detector import (
    decode_obb,
    default_model,
    letterbox,
    load_detector,
    obb_corners,
    rotated_nms,
    suppress_covered,
)


def _raw(boxes):
    """A fake ``(1, 4 + 2 + 1, N)`` output from rows (cx, cy, w, h, s_up, s_down, angle)."""
    return np.asarray(boxes, np.float32).T[None]


def test_decode_keeps_confident_boxes_long_side_first():
    out = _raw(
        [
            [100, 50, 80, 40, 0.9, 0.1, 0.0],  # long along x
            [200, 80, 30, 60, 0.2, 0.7, 0.0],  # long along y: swapped, angle + pi/2
            [10, 10, 20, 10, 0.05, 0.1, 0.3],
        ]
    )  # below threshold
    det = decode_obb(out, conf_threshold=0.25)
    assert det.xywhr.shape == (2, 5)
    np.testing.assert_allclose(det.xywhr[0], [100, 50, 80, 40, 0.0], atol=1e-5)
    np.testing.assert_allclose(det.xywhr[1], [200, 80, 60, 30, np.pi / 2], atol=1e-5)
    assert list(det.cls) == [0, 1]
    np.testing.assert_allclose(det.confidence, [0.9, 0.7], atol=1e-6)
    with pytest.raises(ValueError):
        decode_obb(np.zeros((1, 3, 10), np.float32))


def test_obb_corners_order_and_size():
    for ang in (0.0, 0.4, 1.2, 2.9):
        c = obb_corners(np.array([[50.0, 60.0, 40.0, 20.0, ang]]))[0]
        assert c.shape == (4, 2) and c.dtype == np.float32
        assert np.linalg.norm(c[1] - c[0]) == pytest.approx(40.0, abs=1e-3)  # long side first
        assert np.linalg.norm(c[2] - c[1]) == pytest.approx(20.0, abs=1e-3)
        np.testing.assert_allclose(c.mean(0), [50, 60], atol=1e-3)
        d = c[1] - c[0]
        assert np.arctan2(d[1], d[0]) % np.pi == pytest.approx(ang % np.pi, abs=1e-4)


def test_rotated_nms_suppresses_overlaps_across_classes():
    xywhr = np.array(
        [
            [100, 100, 80, 40, 0.3],
            [102, 101, 80, 40, 0.32],
            [300, 100, 80, 40, 0.3],
            [100, 100, 80, 40, 0.3 + np.pi / 2],
        ],
        np.float32,
    )
    scores = np.array([0.8, 0.9, 0.7, 0.6], np.float32)
    keep = rotated_nms(xywhr, scores, iou_threshold=0.5)
    # box 1 beats box 0 (same place); box 2 elsewhere; box 3 crosses box 1 (IoU < 0.5) and stays
    assert list(keep) == [1, 2, 3]
    assert len(rotated_nms(np.zeros((0, 5), np.float32), np.zeros(0))) == 0


def test_suppress_covered_drops_a_box_across_two_tiles_keeps_neighbours():
    # two tiles side by side (touching, boxes a little loose), a tilted box over the inner halves
    # of both (IoU with each < 0.5, so NMS keeps it), and a third tile a little apart
    xywhr = np.array(
        [
            [100, 100, 80, 40, 0.0],
            [100, 139, 80, 40, 0.0],
            [100, 120, 60, 50, 0.15],
            [200, 120, 80, 40, np.pi / 2],
        ],
        np.float32,
    )
    scores = np.array([0.9, 0.8, 0.85, 0.5], np.float32)
    assert list(rotated_nms(xywhr, scores, 0.5)) == [0, 2, 1, 3]
    assert list(suppress_covered(xywhr, scores, 0.8)) == [0, 1, 3]
    # a box only half covered by better ones stays
    half = np.array([[100, 100, 80, 40, 0.0], [140, 100, 80, 40, 0.0]], np.float32)
    assert list(suppress_covered(half, np.array([0.9, 0.8]), 0.8)) == [0, 1]
    assert len(suppress_covered(np.zeros((0, 5), np.float32), np.zeros(0))) == 0


def test_letterbox_maps_points_back():
    img = np.zeros((480, 640, 3), np.uint8)
    img[95:106, 195:206] = 255  # a white square centred at (200, 100)
    blob, r, (px, py) = letterbox(img, 384)
    assert blob.shape == (1, 3, 384, 384) and blob.dtype == np.float32
    assert r == pytest.approx(0.6) and px == 0 and py == pytest.approx(48, abs=1)
    assert blob[0, :, 0, 0].tolist() == pytest.approx([114 / 255] * 3)  # grey padding
    ys, xs = np.nonzero(blob[0, 0] > 0.5)
    assert ((xs.mean() - px) / r) == pytest.approx(200, abs=2) and (
        (ys.mean() - py) / r
    ) == pytest.approx(100, abs=2)
    with pytest.raises(ValueError):
        letterbox(np.zeros((10, 10), np.uint8), 64)


def test_committed_model_loads_once_with_two_classes():
    det = load_detector()
    assert det is load_detector(default_model())  # cached
    assert len(det.names) == 2 and det.imgsz[0] % 32 == 0
    out = det.session.run(None, {det.input_name: np.zeros((1, 3, *det.imgsz), np.float32)})[0]
    assert out.ndim == 3 and out.shape[1] == 4 + 2 + 1


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="not found"):
        load_detector(tmp_path / "none.onnx")


def _iou(a, b) -> float:
    import cv2

    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = cv2.contourArea(a.astype(np.float32)) + cv2.contourArea(b.astype(np.float32)) - inter
    return inter / union


def test_model_finds_rendered_tiles():
    """Rendered validation scenes (seeds outside the training range): most tiles found, face side right."""
    from vision.render import random_scene

    det = load_detector()
    gt_n = found = side_ok = 0
    for seed in range(10_000_000, 10_000_006):
        sc = random_scene(seed, image_size=(640, 480), kind=["rows", "line", "scatter"][seed % 3])
        tiles = det.detect(sc.image)
        for g, v in zip(sc.labels, sc.visible):
            if v < 0.9:
                continue
            gt_n += 1
            best = max(tiles, key=lambda t: _iou(g.corners, t.corners), default=None)
            if best is not None and _iou(g.corners, best.corners) >= 0.5:
                found += 1
                side_ok += int(best.face_down == g.face_down)
    assert gt_n >= 20
    assert found >= MIN_RECALL * gt_n, f"found {found}/{gt_n}"
    assert side_ok >= 0.7 * found  # 35 of 43 with the 22:10 model


#: recall floor for the committed model on the scenes above: the model of 2026-11-21 22:10 (23 CPU
#: epochs in three rounds, second pass at 640 px for small tiles) finds 43 of 45 (face side right
#: for 35); at 384 px only it found 27, the 20:30 model (8 epochs) 10, an epoch-1 model 0. Raise it
#: with a better model; scripts/bench_vision.py measures the real recall.
MIN_RECALL = 0.85


def test_dynamic_model_input_size_and_second_pass():
    from vision.detector import onnx_model

    det = load_detector()
    assert det.dynamic and det.imgsz == (384, 384)
    img = np.full((480, 640, 3), 90, np.uint8)  # an empty table: the second, finer pass runs too
    assert len(det.raw(img, imgsz=640).xywhr) == 0
    with pytest.raises(ValueError, match="multiple of 32"):
        det.raw(img, imgsz=500)
    calls = []
    run = det._run
    try:
        det._run = lambda image, size, *a: calls.append(size) or run(image, size, *a)
        det.raw(img)
    finally:
        del det._run
    assert calls == [(384, 384), (onnx_model.FINE_IMGSZ, onnx_model.FINE_IMGSZ)]


def test_shrink_halves_then_resizes_close_to_area_averaging():
    from vision.detector import onnx_model

    rng = np.random.default_rng(0)
    small = rng.integers(0, 256, (24, 32, 3), dtype=np.uint8)
    img = np.repeat(np.repeat(small, 40, axis=0), 40, axis=1)  # 960 x 1280, flat 40 px cells
    out = onnx_model.shrink(img, (384, 288))
    assert out.shape == (288, 384, 3) and out.dtype == np.uint8
    area = cv2.resize(img, (384, 288), interpolation=cv2.INTER_AREA)
    # the same picture: cells agree away from their edges
    assert np.abs(out[6::12, 6::12].astype(int) - area[6::12, 6::12]).max() <= 1
    # a factor of exactly 2 is exact area averaging
    assert np.array_equal(
        onnx_model.shrink(img, (640, 480)),
        cv2.resize(img, (640, 480), interpolation=cv2.INTER_AREA),
    )
    # odd sizes: one row or column left out when halving, the output size is still the one asked
    assert onnx_model.shrink(img[:877, :1279], (301, 207)).shape == (207, 301, 3)
