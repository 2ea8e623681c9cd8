"""Tests of the tile verifier (vision.verifier) and how the pipeline uses it."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.pipeline as pipeline
from companion.cli import main
from engine.tiles import Tile
from vision import detect
from vision.detector import obb_corners
from vision.render import Placement, preset_style, render_scene
from vision.render.hard_negatives import HARD_SURFACES, add_tile_like_objects, hard_surface
from vision.verifier import (
    CROP,
    FACE_DOWN,
    FACE_UP,
    NOT_TILE,
    box_aspect,
    box_mask,
    crop_transform,
    verifier_available,
    verifier_crop,
    verifier_crops,
    verify,
)

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "sample_images" / "boxed-set-row.jpg"
needs_model = pytest.mark.skipif(not verifier_available(), reason="no models/tile-verifier.onnx")


def _box(cx, cy, length, width, deg):
    return obb_corners([cx, cy, length, width, np.deg2rad(deg)])[0]


@pytest.mark.parametrize("deg", [0, 30, 90, 145])
def test_crop_puts_the_box_upright_in_the_middle(deg):
    box = _box(200, 150, 80, 40, deg)
    A = crop_transform(box)
    pts = np.c_[box, np.ones(4)] @ A.T
    # the box spans 1 / CROP_SPAN of the crop down and half that across, centred
    assert np.allclose(pts.mean(axis=0), [CROP / 2, CROP / 2], atol=1e-3)
    d01 = pts[1] - pts[0]
    assert abs(d01[0]) < 1e-3 and abs(abs(d01[1]) - CROP / 1.3) < 1e-3  # long side runs down
    # a white tile-shaped patch drawn at the box comes out as an upright white bar
    img = np.zeros((300, 400, 3), np.uint8)
    cv2.fillConvexPoly(img, np.round(box).astype(np.int32), (255, 255, 255))
    crop = verifier_crop(img, box)
    assert crop.shape == (CROP, CROP, 3)
    col = crop[24:40, :, 0].mean(axis=0)  # across, middle rows
    row = crop[:, 28:36, 0].mean(axis=1)  # down, middle columns
    # the box is 64 / 1.3 = 49 px long (down) and 25 px wide (across), centred
    assert col[CROP // 2] > 240 and col[2] < 15 and col[-3] < 15
    assert (row[CROP // 2 - 20 : CROP // 2 + 20] > 240).all() and row[2] < 15 and row[-3] < 15


@pytest.mark.parametrize("deg,width", [(0, 40), (37, 22), (120, 55)])
def test_box_mask_covers_the_box_in_its_crop(deg, width):
    box = _box(200, 150, 80, width, deg)
    assert box_aspect(box) == pytest.approx(width / 80, abs=1e-4)
    img = np.zeros((300, 400, 3), np.uint8)
    cv2.fillConvexPoly(img, np.round(box).astype(np.int32), (255, 255, 255))
    drawn = verifier_crop(img, box)[..., 0] > 127
    mask = box_mask(np.array([box_aspect(box)]))[0]
    assert mask.shape == (CROP, CROP) and mask.min() == 0 and mask.max() == 1
    inside = mask > 0.5
    iou = (drawn & inside).sum() / (drawn | inside).sum()
    assert iou > 0.9
    x = verifier_crops(img, box[None], mask=True)
    assert x.shape == (1, 4, CROP, CROP) and np.array_equal(x[0, 3], mask)
    assert np.array_equal(x[:, :3], verifier_crops(img, box[None]))


def test_crop_of_a_large_box_is_averaged_not_aliased():
    # a fine checkerboard (1 px) inside a huge box: an area-averaged crop is flat grey
    yy, xx = np.mgrid[0:1200, 0:1600]
    img = np.repeat((((yy + xx) % 2) * 255).astype(np.uint8)[..., None], 3, axis=2)
    crop = verifier_crop(img, _box(800, 600, 900, 450, 10))
    assert abs(float(crop.mean()) - 127.5) < 10 and float(crop.std()) < 20


def test_hard_surfaces_and_tile_like_objects_draw():
    rng = np.random.default_rng(3)
    for kind in HARD_SURFACES:
        img = hard_surface(rng, 60, 90, kind)
        assert img.shape == (60, 90, 3) and img.dtype == np.float32
        assert 0 <= img.min() and img.max() <= 255 and img.std() > 1
    with pytest.raises(ValueError):
        hard_surface(rng, 10, 10, "velvet")
    img = np.full((200, 300, 3), 200, np.float32)
    boxes = add_tile_like_objects(img, rng, n=3, size_px=30)
    assert len(boxes) == 3 and all(b.shape == (4, 2) for b in boxes)
    assert np.abs(img - 200).max() > 50  # something was drawn


def test_verify_without_a_model_returns_none(monkeypatch):
    monkeypatch.setenv("DOMINO_VERIFIER_MODEL", "off")
    assert verify(np.zeros((50, 50, 3), np.uint8), np.zeros((1, 4, 2), np.float32)) is None


@needs_model
def test_verifier_tells_rendered_tiles_from_plain_boxes():
    rng = np.random.default_rng(11)
    style = preset_style("ivory", 6)
    places = [
        Placement(Tile(2, 5), False, (0.0, 0.0), 20.0),
        Placement(Tile(3, 3), True, (0.0, 2.5), 100.0),
    ]
    scene = render_scene(
        places,
        rng,
        style=style,
        image_size=(640, 480),
        tile_px=70,
        clutter=0,
        effects=0.3,
        surface="wood",
    )
    corners = np.stack([t.corners for t in scene.labels])
    # the same boxes moved onto bare table next to the tiles
    shifted = corners + np.array([250.0, 0.0], np.float32) * (
        1 if corners[:, :, 0].mean() < 320 else -1
    )
    p = verify(scene.image, np.concatenate([corners, shifted]))
    assert p.shape == (4, 3) and np.allclose(p.sum(axis=1), 1, atol=1e-4)
    assert p[0, FACE_UP] > 0.5 and p[1, FACE_DOWN] > 0.5
    assert (p[2:, NOT_TILE] > 0.5).all()


@needs_model
def test_photo_without_dominoes_gives_no_tile_and_dropped_boxes_keep_their_reason():
    rng = np.random.default_rng(5)
    table = hard_surface(rng, 480, 640, "woven")
    img = np.clip(table, 0, 255).astype(np.uint8)
    dropped = []
    tiles = detect(img, dropped=dropped)
    assert tiles == []
    for t in dropped:
        assert t.note.startswith("dropped: ") and t.flag.dropped


@needs_model
def test_cli_debug_lists_dropped_boxes(capsys):
    assert main(["detect", str(PHOTO), "--json", "--debug"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "dropped" in out and isinstance(out["dropped"], list)
    assert all(d["note"].startswith("dropped: ") for d in out["dropped"])
    assert (
        len(out["tiles"]) == 14 and sum(t["face_down"] for t in out["tiles"]) == 7
    )  # 7 face up, 7 backs


def test_big_photo_is_detected_on_a_small_copy_and_read_at_full_size(monkeypatch):
    img = cv2.imread(str(PHOTO))
    big = cv2.resize(img, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)  # 2560 px
    seen = []
    real_raw = pipeline.load_detector().raw

    class Spy:
        def raw(self, image, *a, **k):
            seen.append(image.shape)
            return real_raw(image, *a, **k)

    monkeypatch.setattr(pipeline, "load_detector", lambda model=None: Spy())
    small_tiles = detect(img)
    big_tiles = detect(big)
    assert seen[1][:2] == (pipeline.DETECT_MAX_SIDE, pipeline.DETECT_MAX_SIDE)
    assert sorted(map(str, (t.pips for t in big_tiles))) == sorted(
        map(str, (t.pips for t in small_tiles))
    )
    # the boxes are in the big photo's pixels
    for t in big_tiles:
        assert t.centre.max() > 100 and t.size[0] > 4 * 0.8 * min(s.size[0] for s in small_tiles)


def test_mask_model_grown_from_the_crop_model_reads_the_same(tmp_path):
    """train_verifier.py train --channels 4 --init <3-channel .onnx>: the mask channel starts with
    zero weights, so the grown network gives the probabilities of the file it grew from, and
    verify() feeds each model the input it takes."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    import train_verifier

    torch.manual_seed(5)
    three = train_verifier.build_model(3)
    with torch.no_grad():  # batch norm statistics that are not the identity
        for m in three.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.2, 0.2)
                m.running_var.uniform_(0.5, 2.0)
    train_verifier.export(three, tmp_path / "v3.onnx", 3)
    four = train_verifier.build_model(4)
    train_verifier.load_onnx_weights(four, tmp_path / "v3.onnx")
    train_verifier.export(four, tmp_path / "v4.onnx", 4)
    img = cv2.imread(str(PHOTO))
    boxes = np.stack([_box(120 + 60 * k, 200, 90, 45, 15 * k) for k in range(5)])
    p3 = verify(img, boxes, path=tmp_path / "v3.onnx")
    p4 = verify(img, boxes, path=tmp_path / "v4.onnx")
    assert p3 is not None and p4 is not None and p4.shape == (5, 3)
    assert np.allclose(p3, p4, atol=1e-4)
    with torch.no_grad():  # a mask weight: the reading now depends on the mask fed
        four[0].weight[:, 3] = 2.0
    train_verifier.export(four, tmp_path / "v4m.onnx", 4)
    p4m = verify(img, boxes, path=tmp_path / "v4m.onnx")
    assert p4m is not None and np.abs(p4m - p3).max() > 1e-2


def test_a_box_the_detector_is_sure_of_is_dropped_only_at_the_higher_bar():
    """vision.verifier.not_a_tile: below SURE_BOX_CONFIDENCE a box goes at NOT_TILE_THRESHOLD;
    at or above it only at SURE_BOX_NOT_TILE, the stricter bar. Backs have their own pair."""
    from vision import verifier as v

    lo, bar, sure = v.NOT_TILE_THRESHOLD, v.SURE_BOX_NOT_TILE, v.SURE_BOX_CONFIDENCE
    assert lo < bar <= 1 and 0 < sure < 1
    mid = (lo + bar) / 2
    not_tile = np.array([lo - 0.01, lo, mid, mid, bar - 0.01, bar, 1.0])
    confidence = np.array([0.3, 0.3, sure - 0.01, sure, sure, sure, 0.99])
    want = [
        False,  # under the threshold: kept
        True,  # at the threshold, an unsure box: dropped
        True,
        False,  # the same probability, a sure box: kept
        False,
        True,  # at the sure-box bar
        True,
    ]
    assert v.not_a_tile(not_tile, confidence).tolist() == want
    assert v.not_a_tile(not_tile, confidence, np.zeros(7, bool)).tolist() == want


def test_a_back_has_a_sure_box_confidence_and_bar_of_its_own():
    """A face-down box is sure at SURE_BACK_CONFIDENCE and then goes at SURE_BACK_NOT_TILE; the
    same numbers on a face-up box follow the face-up pair."""
    from vision import verifier as v

    lo, bar = v.NOT_TILE_THRESHOLD, v.SURE_BACK_NOT_TILE
    sure = v.SURE_BACK_CONFIDENCE
    assert lo < bar <= 1 and 0 < sure < 1
    mid = (lo + bar) / 2
    not_tile = np.array([mid, mid, bar - 0.01, bar])
    confidence = np.array([sure - 0.01, sure, sure, sure])
    down = np.ones(4, bool)
    assert v.not_a_tile(not_tile, confidence, down).tolist() == [True, False, False, True]
    up = v.not_a_tile(not_tile, confidence, ~down)
    face_up_rule = not_tile >= np.where(
        confidence >= v.SURE_BOX_CONFIDENCE, v.SURE_BOX_NOT_TILE, lo
    )
    assert up.tolist() == face_up_rule.tolist()
