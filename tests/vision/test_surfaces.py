"""Tests of the real-surface training scenes (vision.render.surfaces) and the detector dataset's
``surface_mix`` (vision.render.dataset)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.render.dataset import write_obb_dataset
from vision.render.hard_negatives import add_dark_objects, add_printed_cards
from vision.render.surfaces import (
    augment_background,
    background_photos,
    card_scene,
    closeup_scene,
    dark_scene,
    hard_scene,
    holdout_photos,
    pasted_scene,
)


def _backgrounds(folder, n=10):
    """``n`` small textured photos without tiles written to ``folder``."""
    rng = np.random.default_rng(0)
    folder.mkdir()
    for i in range(n):
        img = rng.integers(0, 255, (300, 400, 3), dtype=np.uint8)
        cv2.imwrite(str(folder / f"bg{i:02d}.jpg"), cv2.GaussianBlur(img, (0, 0), 3))
    (folder / "SOURCES.md").write_text("not a photo")
    return folder


def test_background_photos_skip_other_files_and_hold_out_every_fifth(tmp_path):
    photos = background_photos(_backgrounds(tmp_path / "bg"))
    assert [p.name for p in photos] == [f"bg{i:02d}.jpg" for i in range(10)]
    assert holdout_photos(photos) == {"bg02.jpg", "bg07.jpg"}


def test_augmented_background_has_the_promised_size_range():
    img = np.full((600, 800, 3), 128, np.uint8)
    for seed in range(8):
        out = augment_background(np.random.default_rng(seed), img)
        assert out.dtype == np.uint8 and out.ndim == 3
        assert 390 <= max(out.shape[:2]) <= 1610


def test_pasted_scene_labels_tiles_on_the_photo():
    bg = np.random.default_rng(1).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    scene = pasted_scene(np.random.default_rng(3), bg)
    H, W = scene.image.shape[:2]
    assert (W, H) in ((640, 640), (640, 480), (480, 640), (1024, 768))
    assert scene.kind == "paste" and len(scene.labels) == len(scene.visible) > 0
    a = pasted_scene(np.random.default_rng(3), bg)
    assert np.array_equal(a.image, scene.image)  # one seed, one scene


def test_hard_scene_gives_objects_and_sometimes_tiles():
    with_tiles = 0
    for seed in range(8):
        img, scene, objs = hard_scene(np.random.default_rng(seed))
        assert img.dtype == np.uint8 and img.shape[2] == 3
        assert all(np.asarray(o).shape == (4, 2) for o in objs)
        with_tiles += scene is not None and len(scene.labels) > 0
    assert 0 < with_tiles < 8


def test_printed_cards_are_drawn_inside_their_boxes():
    for seed in range(6):
        img = np.full((240, 320, 3), 40.0, np.float32)
        boxes = add_printed_cards(img, np.random.default_rng(seed), n=1, size_px=40)
        (box,) = boxes
        assert box.shape == (4, 2)
        inside = np.zeros((240, 320), np.uint8)
        cv2.fillConvexPoly(inside, np.round(box).astype(np.int32), 1)
        changed = np.abs(img - 40.0).max(axis=2) > 1
        # the card covers its box and nothing far outside it
        assert changed[inside > 0].mean() > 0.8
        grown = cv2.dilate(inside, np.ones((5, 5), np.uint8))
        assert not changed[grown == 0].any()
        sides = np.linalg.norm(box - np.roll(box, -1, axis=0), axis=1)
        assert 1.05 <= sides.max() / sides.min() <= 2.45


def test_card_scene_gives_cards_and_sometimes_tiles():
    bg = np.random.default_rng(2).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    with_tiles = 0
    for seed in range(8):
        img, scene, cards = card_scene(np.random.default_rng(seed), bg)
        assert img.dtype == np.uint8 and 1 <= len(cards) <= 4
        if scene is not None:
            with_tiles += 1
            assert scene.kind == "cards" and scene.image is img and len(scene.labels) > 0
    assert 0 < with_tiles < 8


def test_closeup_scene_has_one_or_two_big_tiles():
    bg = np.random.default_rng(2).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    fractions = []
    for seed in range(6):
        scene = closeup_scene(np.random.default_rng(seed), bg if seed % 2 else None)
        H, W = scene.image.shape[:2]
        assert scene.kind == "closeup" and 1 <= len(scene.labels) <= 2
        area = max(cv2.contourArea(d.corners.astype(np.float32)) for d in scene.labels)
        fractions.append(area / (W * H))
    assert min(fractions) > 0.08 and max(fractions) > 0.3  # a tile 30-70% of the short side wide


def test_dataset_surface_mix_writes_backgrounds_without_labels(tmp_path):
    bgs = _backgrounds(tmp_path / "bg")
    root = tmp_path / "ds"
    summary = write_obb_dataset(
        root, 12, 0, seed=4, surface_mix=(0.3, 0.1, 0.3, 0.3), backgrounds=bgs, processes=1
    )
    rows = [json.loads(line) for line in (root / "manifest.jsonl").read_text().splitlines()]
    kinds = {r["kind"] for r in rows}
    assert {"paste", "bg"} <= kinds and kinds <= {"paste", "hard", "bg", "closeup"}
    for r in rows:
        label = root / "labels" / r["image"].replace(".jpg", ".txt")
        lines = label.read_text().split("\n")[:-1] if label.read_text() else []
        assert len(lines) == r["labels"]
        if r["kind"] == "bg":
            assert r["labels"] == 0
    assert summary["surface_mix"] == [0.3, 0.1, 0.3, 0.3]
    assert sum(summary["train_kinds"].values()) == 12


def test_dataset_without_surface_mix_is_unchanged_and_bad_mix_is_refused(tmp_path):
    a = write_obb_dataset(tmp_path / "a", 3, 0, seed=2)
    b = write_obb_dataset(tmp_path / "b", 3, 0, seed=2, surface_mix=(0.0, 0.0, 0.0))
    assert a["train_kinds"] == b["train_kinds"]
    for i in range(3):
        name = f"labels/train/{i:06d}.txt"
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()
    with pytest.raises(ValueError, match="surface_mix"):
        write_obb_dataset(tmp_path / "c", 1, 0, surface_mix=(0.8, 0.0, 0.4))
    with pytest.raises(ValueError, match="surface_mix"):
        write_obb_dataset(tmp_path / "c", 1, 0, surface_mix=(0.5, 0.5))
    with pytest.raises(ValueError, match="no background photos"):
        write_obb_dataset(tmp_path / "d", 4, 0, seed=1, surface_mix=(1.0, 0.0, 0.0))


def test_dataset_card_share_writes_cards_without_labels_for_them(tmp_path):
    bgs = _backgrounds(tmp_path / "bg")
    root = tmp_path / "ds"
    write_obb_dataset(root, 6, 0, seed=9, surface_mix=(0, 0, 0, 0, 1.0), backgrounds=bgs)
    rows = [json.loads(line) for line in (root / "manifest.jsonl").read_text().splitlines()]
    assert {r["kind"] for r in rows} == {"cards"}
    assert any(r["labels"] == 0 for r in rows) and any(r["labels"] > 0 for r in rows)
    with pytest.raises(ValueError, match="background photos"):
        write_obb_dataset(tmp_path / "no", 1, 0, seed=9, surface_mix=(0, 0, 0, 0, 1.0))


def _sides(quad) -> np.ndarray:
    q = np.asarray(quad, np.float32)
    return np.linalg.norm(q - np.roll(q, -1, axis=0), axis=1)


def test_dark_objects_are_wider_than_the_tiles_and_drawn():
    for seed in range(8):
        img = np.full((480, 640, 3), 150.0, np.float32)
        quads = add_dark_objects(img, np.random.default_rng(seed), tile_px=20, n=3)
        assert len(quads) == 3
        for q in quads:
            assert q.shape == (4, 2)
            assert _sides(q).min() > 20  # 1.8-6 tiles wide, foreshortened by at most 35%
        assert np.abs(img - 150.0).max() > 30  # something dark was drawn
        assert img.min() >= 0 and img.max() <= 255


def test_dark_scene_puts_smaller_tiles_beside_dark_objects():
    bg = np.random.default_rng(2).integers(0, 255, (300, 400, 3), dtype=np.uint8)
    with_tiles = 0
    for seed in range(8):
        img, scene, objects = dark_scene(np.random.default_rng(seed), bg)
        assert img.dtype == np.uint8 and 1 <= len(objects) <= 3
        if scene is None:
            continue
        with_tiles += 1
        assert scene.kind == "dark" and scene.image is img and len(scene.labels) > 0
        tile_w = np.median([min(_sides(d.corners)) for d in scene.labels])  # a tile's width
        assert all(min(_sides(q)) > tile_w for q in objects)
    assert 0 < with_tiles < 8


def test_dataset_sixth_share_draws_dark_scenes(tmp_path):
    bgs = _backgrounds(tmp_path / "bg")
    summary = write_obb_dataset(
        tmp_path / "ds", 6, 0, seed=3, surface_mix=(0, 0, 0, 0, 0, 1.0), backgrounds=bgs
    )
    assert summary["train_kinds"] == {"dark": 6}
