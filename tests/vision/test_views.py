"""Tests of the hard views (vision.render.views): what each kind promises is drawn and labelled."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.tiles import Tile
from vision.render import Placement, render_scene
from vision.render.dataset import write_obb_dataset
from vision.render.views import (
    BODY_COLOURS,
    VIEW_KINDS,
    add_hand,
    crosswise_line,
    owned_style,
    tilted_camera,
    view_scene,
)


def test_every_kind_renders_labelled_tiles_the_same_for_a_seed():
    for i, kind in enumerate(VIEW_KINDS):
        sc = view_scene(500 + i, kind)
        assert sc.kind == kind and sc.image.dtype == np.uint8 and sc.labels
        assert len(sc.labels) == len(sc.visible) == len(sc.placements)
        again = view_scene(500 + i, kind)
        assert np.array_equal(sc.image, again.image)
    small = [view_scene(s, "small").image.shape for s in range(4)]
    assert all(400 <= max(h, w) <= 832 and min(h, w) >= 248 for h, w, _ in small)
    assert view_scene(3, "coloured", scale=2).image.shape[1] in (960, 1280)
    with pytest.raises(ValueError, match="unknown view kind"):
        view_scene(0, "upside-down")


def test_touching_kind_lays_a_dark_tableau_edge_to_edge():
    # a Tableaux tableau: every tile of a scene touches a neighbour (box centres at most about a
    # tile length apart, the tile width in pixels from the labels), and the faces are dark (the
    # body's grey level under the boxes, pips included; an ivory set reads 180 and more)
    import cv2

    for seed in range(700, 708):
        sc = view_scene(seed, "touching")
        grey = cv2.cvtColor(sc.image, cv2.COLOR_BGR2GRAY)
        faces = []
        for d in sc.labels:
            mask = np.zeros(grey.shape, np.uint8)
            cv2.fillPoly(mask, [d.corners.astype(np.int32)], 1)
            faces.append(float(np.median(grey[mask > 0])))
        assert np.median(faces) < 130
        if len(sc.labels) < 2:
            continue
        width = np.median([min(d.size) for d in sc.labels])
        centres = np.array([np.asarray(d.corners, np.float64).mean(0) for d in sc.labels])
        gaps = np.hypot(*(centres[:, None] - centres[None]).transpose(2, 0, 1))
        np.fill_diagonal(gaps, np.inf)
        assert np.all(gaps.min(1) <= 2.05 * width)


def test_owned_style_has_the_body_colour_and_contrasting_pips():
    for name, (body, _pip) in BODY_COLOURS.items():
        st = owned_style(np.random.default_rng(1), 6, body=name)
        assert np.abs(np.subtract(st.body, body)).max() < 50
        if not st.pip_colours:  # one pip colour: far from the body's
            assert np.abs(np.subtract(st.pip_colour, st.body)).sum() > 200
    with pytest.raises(ValueError, match="body colour"):
        owned_style(np.random.default_rng(0), body="plaid")


def test_low_camera_foreshortens_the_table_and_shows_the_sides_below_the_face():
    """At 25 degrees a step towards the camera's view is about sin(25) = 0.42 of a step across,
    and a tile's body (z down) shows below its top face."""
    pl = [Placement(Tile(1, 2), False, (0.0, 0.0), 0.0)]
    rng = np.random.default_rng(0)
    cam, depth = tilted_camera(rng, pl, (640, 480), 25.0, roll_deg=0.0, distance=30.0)
    o = cam.project(np.array([[0.0, 0.0]]))[0]
    steps = [
        cam.project(np.array([[np.cos(a), np.sin(a)]]))[0] - o for a in np.linspace(0, np.pi, 73)
    ]
    lengths = [float(np.linalg.norm(s)) for s in steps]
    assert 0.38 < min(lengths) / max(lengths) < 0.47
    down = cam.side_dir
    assert down[1] > 0 and abs(down[0]) < 0.05 * down[1]  # straight down the image
    assert depth.shape == (1,) and depth[0] > 30
    with pytest.raises(ValueError, match="elevation"):
        tilted_camera(rng, pl, (640, 480), 2.0)


def test_crosswise_line_lays_every_double_across_and_matches_ends():
    for seed in range(5):
        line = crosswise_line(np.random.default_rng(seed), 9, n=8)
        assert any(p.tile.is_double for p in line)
        heading = next(p.angle_deg for p in line if not p.tile.is_double)
        for a, b in zip(line, line[1:]):
            assert a.tile.shares_number(b.tile)  # ends match
        for p in line:
            turn = (p.angle_deg - heading) % 180
            assert turn == pytest.approx(90.0 if p.tile.is_double else 0.0)


def test_a_hand_over_a_tile_lowers_its_visible_share():
    pl = [Placement(Tile(3, 4), False, (0.0, 0.0), 0.0)]
    sc = render_scene(pl, 0, image_size=(320, 240), effects=0.0, clutter=0, tile_px=50.0)
    assert sc.visible[0] == pytest.approx(1.0, abs=0.02)
    img = add_hand(sc, sc.image.astype(np.float32), np.random.default_rng(0))
    assert img.shape == (240, 320, 3)
    assert 0.0 <= sc.visible[0] < 0.95
    assert np.abs(img - sc.image).max() > 50  # the hand is drawn


def test_dataset_view_share_writes_hard_views_and_leaves_old_datasets_alone(tmp_path):
    s = write_obb_dataset(tmp_path / "v", 4, 0, seed=3, view_share=1.0, view_kinds=("backs",))
    rows = [json.loads(ln) for ln in (tmp_path / "v" / "manifest.jsonl").read_text().splitlines()]
    assert {r["kind"] for r in rows} == {"view:backs"} and s["view_kinds"] == ["backs"]
    assert sum(r["face_down"] for r in rows) > 0
    write_obb_dataset(tmp_path / "a", 2, 0, seed=2)
    write_obb_dataset(tmp_path / "b", 2, 0, seed=2, view_share=0.0)
    for i in range(2):
        name = f"labels/train/{i:06d}.txt"
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()
    with pytest.raises(ValueError, match="unknown view kind"):
        write_obb_dataset(tmp_path / "c", 1, 0, view_share=0.5, view_kinds=("sideways",))


def test_bench_views_scores_a_kind_and_refuses_an_unknown_one():
    """bench_vision.py --kinds: the committed detector on one crosswise line (clean enough that
    it finds tiles); the figures count what was drawn."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import bench_vision

    res = bench_vision.bench_views(["crosswise"], 1, None, 0.25)
    fig = res["crosswise"]
    sc = view_scene(bench_vision.VAL_SEED0 + bench_vision.VIEW_SEED_OFFSET + 400_000, "crosswise")
    assert fig["gt_tiles"] == sum(1 for v in sc.visible if v >= 0.6) > 0
    assert 0 < fig["recall"] <= 1 and fig["face_down_tiles"] == 0
    with pytest.raises(ValueError, match="unknown view kind"):
        bench_vision.bench_views(["sideways"], 1, None, 0.25)
    missed = round(fig["gt_tiles"] * (1 - fig["recall"]))
    where = ("missed_dropped_on_tile", "missed_dropped_loose", "missed_not_boxed")
    assert sum(fig[k] for k in where) == missed


def test_bench_views_says_where_a_tile_the_verifier_drops_went(monkeypatch):
    """With the verifier made to drop every box, each tile the detector boxed is counted as
    missed with a dropped box on it (or a loose one), not as never boxed."""
    import sys
    from pathlib import Path

    import vision.verifier

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import bench_vision

    found = bench_vision.bench_views(["crosswise"], 1, None, 0.25)["crosswise"]
    boxed = round(found["gt_tiles"] * found["recall"])
    monkeypatch.setattr(vision.verifier, "NOT_TILE_THRESHOLD", 0.0)
    monkeypatch.setattr(vision.verifier, "SURE_BOX_NOT_TILE", 0.0)
    fig = bench_vision.bench_views(["crosswise"], 1, None, 0.25)["crosswise"]
    assert fig["recall"] == 0
    dropped = fig["missed_dropped_on_tile"] + fig["missed_dropped_loose"]
    assert dropped >= boxed > 0
    assert dropped + fig["missed_not_boxed"] == fig["gt_tiles"]


def test_verifier_shard_of_hard_views(tmp_path):
    """train_verifier.py data --mix 0 0 0 0 0 1: every scene a hard view, crops labelled from
    the committed detector's boxes and the true boxes."""
    import sys
    from pathlib import Path

    import cv2

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import train_verifier

    (tmp_path / "bg").mkdir()
    cv2.imwrite(str(tmp_path / "bg" / "a.jpg"), np.full((64, 64, 3), 90, np.uint8))
    out = tmp_path / "shard-0.npz"
    counts = train_verifier.make_shard(0, 2, tmp_path / "bg", out, False, (0, 0, 0, 0, 0, 1))
    data = np.load(out)
    assert all(str(s).startswith("view:") for s in data["src"])
    assert counts["face_up"] + counts["face_down"] > 0 and len(data["crops"]) == sum(
        counts.values()
    )
    # each crop's box shape (width over length) for the mask channel
    assert data["aspect"].shape == (len(data["crops"]),)
    assert ((data["aspect"] > 0.1) & (data["aspect"] <= 1)).all()


def test_verifier_shard_of_chosen_view_kinds(tmp_path):
    """train_verifier.py data --view-kinds: the sixth share draws only the kinds named, and an
    unknown kind is refused before anything is drawn."""
    import sys
    from pathlib import Path

    import cv2

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import train_verifier

    (tmp_path / "bg").mkdir()
    cv2.imwrite(str(tmp_path / "bg" / "a.jpg"), np.full((64, 64, 3), 90, np.uint8))
    out = tmp_path / "shard-0.npz"
    train_verifier.make_shard(
        0, 3, tmp_path / "bg", out, False, (0, 0, 0, 0, 0, 1), ("backs", "small")
    )
    kinds = {str(s) for s in np.load(out)["src"]}
    assert kinds and kinds <= {"view:backs", "view:small"}
    with pytest.raises(ValueError, match="unknown view kinds"):
        train_verifier.make_shard(
            1, 1, tmp_path / "bg", tmp_path / "x.npz", False, (0, 0, 0, 0, 0, 1), ("sideways",)
        )
    assert not (tmp_path / "x.npz").exists()


def _train_pip_classifier():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import train_pip_classifier

    return train_pip_classifier


def test_pip_labels_follow_the_halves_of_the_box_they_are_cut_from():
    """train_pip_classifier.pips_on_box: a box whose half 0 lies on the tile's half 1 gets the
    pips swapped; a box a little off keeps the order."""
    tp = _train_pip_classifier()
    sc = view_scene(1, "close-up")
    g = next(t for t in sc.labels if not t.face_down and t.pips[0] != t.pips[1])
    a, b = g.pips
    assert tp.pips_on_box(g, g.corners) == (a, b)
    assert tp.pips_on_box(g, g.corners[[2, 3, 0, 1]]) == (b, a)
    moved = tp.jitter_box(g.corners, np.random.default_rng(0), 0.03, 0.05, 0.05, 5.0)
    assert tp.pips_on_box(g, moved) == (a, b)


def test_pip_shard_from_the_detectors_boxes_on_hard_views(tmp_path):
    """train_pip_classifier.py data --det-views: halves cut from the committed detector's boxes
    on a close-up, labelled with the matched tile's pips."""
    tp = _train_pip_classifier()
    out = tmp_path / "det1.npz"
    n = tp.make_shard(1, 0, 0, out, det_kinds=["close-up"], n_det=1)
    d = np.load(out)
    sc = view_scene(tp.DETBOX_SEED0 + 100_000, "close-up", scale=1.0)
    values = {tuple(sorted(int(p) for p in t.pips)) for t in sc.labels if not t.face_down}
    assert n == len(d["X"]) > 0 and d["X"].shape[1:] == (2, 4, 32, 32)
    assert (d["source"] == 4).all() and set(d["jitter"]) == {0, 1}
    assert {tuple(sorted(y)) for y in d["y"].tolist()} <= values
    # a scene with no face-up tile to read gives no shard, and says so
    with pytest.raises(ValueError, match="no samples"):
        tp.make_shard(0, 0, 0, tmp_path / "det0.npz", det_kinds=["close-up"], n_det=1)
    assert not (tmp_path / "det0.npz").exists()


def test_verifier_tune_report_counts_hard_views_and_scores_todays_rule(tmp_path, capsys):
    """train_verifier.py tune --views: hard views join the tuning data, every rule of the grid
    is scored on the same boxes, and vision.verifier's own rule is scored last."""
    import re
    import sys
    from pathlib import Path

    import cv2

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
    import train_verifier

    root = Path(__file__).resolve().parents[2]
    (tmp_path / "bg").mkdir()
    for k in range(5):  # one of every five is held out: the one the report uses
        cv2.imwrite(str(tmp_path / "bg" / f"{k}.jpg"), np.full((96, 128, 3), 60 + k, np.uint8))
    train_verifier.tune_report([root / "models" / "tile-verifier.onnx"], 1, tmp_path / "bg", 1)
    out = capsys.readouterr().out
    head = re.search(
        r"boxes: (\d+) tiles, (\d+) rendered boxes on no tile \((\d+) in hard views\)", out
    )
    assert head and int(head[1]) > 0 and int(head[3]) <= int(head[2])
    rows = re.findall(
        r"errors (\d+) \(tiles lost (\d+), (\d+) in hard views; "
        r"rendered boxes kept (\d+), background boxes kept (\d+)\)",
        out,
    )
    assert len(rows) >= 12
    for err, lost, lost_v, kept_r, kept_b in rows:
        assert int(err) == int(lost) + int(kept_r) + int(kept_b) and int(lost_v) <= int(lost)
    errors = [int(r[0]) for r in rows[:-1]]
    assert len(errors) == 12 and errors == sorted(errors)  # the twelve best, best first
    assert out.count("vision.verifier.not_a_tile") == 1 and "not_a_tile" in out.splitlines()[-1]
