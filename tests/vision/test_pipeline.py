"""Tests of vision.pipeline (load_image, detect, annotate) and ``domino-companion detect``."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.pipeline as pipeline
from companion.cli import main
from engine.tiles import Tile
from vision import detect, filters
from vision.pipeline import annotate, load_image
from vision.types import TileDetection

ROOT = Path(__file__).resolve().parents[2]
PHOTO = ROOT / "sample_images" / "boxed-set-row.jpg"


def test_load_image_from_path_and_bytes():
    a = load_image(PHOTO)
    b = load_image(PHOTO.read_bytes())
    assert a.shape == (640, 640, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    grey = cv2.imencode(".png", np.full((20, 30), 128, np.uint8))[1].tobytes()
    assert load_image(grey).shape == (20, 30, 3)


def test_load_image_bad_input(tmp_path, monkeypatch):
    with pytest.raises(FileNotFoundError):
        load_image(tmp_path / "missing.jpg")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        load_image(empty)
    with pytest.raises(ValueError, match="not an image"):
        load_image(b"this is not an image at all")
    with pytest.raises(ValueError, match="not a file"):
        load_image(tmp_path)
    monkeypatch.setattr(pipeline, "MAX_PIXELS", 100_000)
    with pytest.raises(ValueError, match="megapixels"):
        load_image(PHOTO)  # 640x640 = 409,600 pixels
    monkeypatch.setattr(pipeline, "MAX_FILE_BYTES", 1000)
    with pytest.raises(ValueError, match="limit"):
        load_image(PHOTO)


def test_detect_rejects_non_images():
    with pytest.raises(ValueError):
        detect(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ValueError):
        detect(np.zeros((100, 100, 3), np.float32))


def test_detect_returns_consistent_tiles():
    img = load_image(PHOTO)
    tiles = detect(img)
    assert tiles == sorted(tiles, key=lambda t: -t.confidence)
    for t in tiles:
        assert isinstance(t, TileDetection) and t.corners.shape == (4, 2)
        assert 0.25 <= t.confidence <= 1.0
        length, width = t.size
        assert np.linalg.norm(t.corners[1] - t.corners[0]) == pytest.approx(length, rel=1e-4)
        if t.face_down:
            assert t.pips is None
        elif t.pips is not None:
            assert all(0 <= p <= 12 for p in t.pips) and 0 < t.pip_confidence <= 1
        else:
            assert t.note  # unreadable halves say why
    # a plain table has no tiles
    assert detect(np.full((480, 640, 3), (60, 90, 120), np.uint8)) == []


def test_a_tile_cut_by_the_photo_border_is_marked_at_edge():
    # the vintage photo cut through its 6-1 (right) and, in another crop, its 1-4 (top): the
    # cut tile's box reaches the border, the tiles inside the picture do not
    img = load_image(ROOT / "sample_images" / "vintage-games-game-night.jpg")
    for crop, cut in ((img[:, :590], Tile(1, 6)), (img[60:, :], Tile(1, 4))):
        tiles = [t for t in detect(crop) if t.pips is not None]
        edge = {Tile(*t.pips) for t in tiles if t.at_edge}
        assert edge == {cut} and len(tiles) >= 9
        assert all(t.to_json()["at_edge"] == t.at_edge for t in tiles)


def test_annotate_draws_outlines():
    img = np.full((200, 300, 3), 50, np.uint8)
    t = TileDetection(
        np.array([[50, 50], [250, 50], [250, 150], [50, 150]], np.float32), 0.9, pips=(2, 5)
    )
    d = TileDetection(
        np.array([[10, 160], [90, 160], [90, 195], [10, 195]], np.float32), 0.9, face_down=True
    )
    out = annotate(img, [t, d])
    assert out.shape == img.shape and not np.array_equal(out, img)
    b, g, r = (int(v) for v in out[50, 150])
    assert g > 150 and b < 100 and r < 100  # green outline of the face-up tile
    b, g, r = (int(v) for v in out[160, 50])
    assert r > 150 and g < 100  # red outline of the face-down tile
    assert np.array_equal(img, np.full((200, 300, 3), 50, np.uint8))  # input untouched


def test_cli_json_and_annotate(tmp_path, capsys):
    out_png = tmp_path / "out.png"
    assert main(["detect", str(PHOTO), "--json", "--annotate", str(out_png)]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["image"] == {"width": 640, "height": 640}
    assert isinstance(res["elapsed_ms"], float) and res["elapsed_ms"] > 0
    for t in res["tiles"]:
        assert set(t) >= {"pips", "face_down", "corners", "confidence"} and len(t["corners"]) == 4
    assert cv2.imread(str(out_png)).shape == (640, 640, 3)


@pytest.mark.parametrize("content", [b"", b"GIF89a-broken", b"\x89PNG\r\n\x1a\n" + b"\x00" * 40])
def test_cli_bad_file_is_one_line_error(tmp_path, capsys, content):
    f = tmp_path / "bad.jpg"
    f.write_bytes(content)
    assert main(["detect", str(f)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("domino-companion detect: error:") and "\n" not in err


def test_cli_text_output_lists_tiles(capsys):
    assert main(["detect", str(ROOT / "sample_images" / "IMG_0359.jpg")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(str(ROOT / "sample_images" / "IMG_0359.jpg")) and "tile(s)" in out


def test_real_photos_read_by_the_committed_model():
    """Issue 5's bar on the six real photos (sample_images/, labels.json checked by eye): at least
    21 of the 23 face-up tiles read with the right value, the 7 face-down tiles reported face down.
    Measured with the 21:45 model: 23/23 and 7/7 (docs/vision.md)."""

    from collections import Counter

    labels = json.loads((ROOT / "sample_images" / "labels.json").read_text())["photos"]
    right = face_up = down_found = down = 0
    for name, lab in labels.items():
        tiles = detect(load_image(ROOT / "sample_images" / name))
        want = Counter(tuple(sorted(t)) for t in lab["tiles"])
        got = Counter(
            tuple(sorted(t.pips)) for t in tiles if not t.face_down and t.pips is not None
        )
        right += sum((want & got).values())
        face_up += sum(want.values())
        down += lab["face_down"]
        n_down = sum(t.face_down for t in tiles)
        assert n_down >= lab["face_down"], (
            f"{name}: {n_down} reported face down, {lab['face_down']} lie face down"
        )
        down_found += n_down
    assert face_up == 23 and down == 7
    assert right >= 21, f"{right}/23 face-up tiles read right"
    # every face-down tile reported face down (not read as a value); at most one stray back
    assert down_found <= 8, f"{down_found} tiles reported face down, 7 lie face down"


def _box(cx: float, cy: float, length: float = 100.0, width: float = 50.0) -> np.ndarray:
    return np.array(
        [
            [cx - length / 2, cy - width / 2],
            [cx + length / 2, cy - width / 2],
            [cx + length / 2, cy + width / 2],
            [cx - length / 2, cy + width / 2],
        ],
        np.float32,
    )


def test_overlap_fraction_of_the_smaller_box():
    a = TileDetection(_box(100, 100), 0.9)
    assert a.overlap(TileDetection(_box(100, 100), 0.5)) == pytest.approx(1.0)
    assert a.overlap(TileDetection(_box(150, 100), 0.5)) == pytest.approx(0.5, abs=0.01)
    assert a.overlap(TileDetection(_box(200, 100), 0.5)) == pytest.approx(0.0, abs=0.01)  # touching
    assert a.overlap(TileDetection(_box(500, 500), 0.5)) == 0.0
    small = TileDetection(_box(100, 100, 50, 25), 0.5)  # inside a: all of the smaller box
    assert a.overlap(small) == pytest.approx(1.0) and small.overlap(a) == pytest.approx(1.0)


def test_repeated_reading_of_one_tile_is_dropped():
    best = TileDetection(_box(100, 100), 0.9, pips=(3, 5), pip_confidence=1.0)
    shifted = TileDetection(_box(130, 100), 0.4, pips=(5, 3), pip_confidence=1.0)  # 70% on best
    other_value = TileDetection(_box(125, 100), 0.3, pips=(2, 5), pip_confidence=1.0)
    far = TileDetection(
        _box(400, 100), 0.8, pips=(3, 5), pip_confidence=1.0
    )  # a real duplicate elsewhere
    down = TileDetection(_box(110, 100), 0.5, face_down=True)
    kept = filters.drop_repeated_reads([shifted, best, other_value, far, down])
    assert kept == [best, other_value, far, down]


def test_tiny_unreadable_boxes_are_dropped():
    tiles = [
        TileDetection(_box(100 + 120 * i, 100), 0.9, pips=(i, 6), pip_confidence=0.95)
        for i in range(7)
    ]
    tiny_unread = TileDetection(_box(300, 400, 25, 12), 0.6, pips=None)
    tiny_doubtful = TileDetection(_box(350, 400, 25, 12), 0.6, pips=(6, 6), pip_confidence=0.3)
    tiny_read = TileDetection(
        _box(400, 400, 25, 12), 0.6, pips=(1, 2), pip_confidence=0.9
    )  # kept: it reads
    tiny_back = TileDetection(_box(450, 400, 25, 12), 0.3, face_down=True)
    small_unread = TileDetection(_box(500, 400, 60, 30), 0.6, pips=None)  # 0.6 of the others: kept
    got = filters.drop_tiny_unread(
        tiles + [tiny_unread, tiny_doubtful, tiny_read, tiny_back, small_unread]
    )
    assert got == tiles + [tiny_read, small_unread]
    few = [tiles[0], tiny_unread]  # too few boxes to say what size a tile is
    assert filters.drop_tiny_unread(few) == few


def test_tiny_boxes_are_measured_against_the_boxes_the_detector_is_sure_of():
    """Printed letters can give more small doubtful boxes than the photo has tiles: the size of a
    tile is then the median of the sure boxes (confidence >= 0.5), not of all of them."""
    tiles = [
        TileDetection(_box(100 + 120 * i, 100), 0.9, pips=(i, 6), pip_confidence=0.95)
        for i in range(5)
    ]
    letters = [
        TileDetection(_box(100 + 30 * i, 400, 25, 14), 0.3, pips=(1, i), pip_confidence=0.9)
        for i in range(7)
    ]  # read, but doubtful boxes a quarter of a tile long
    assert filters.drop_tiny_unread(tiles + letters) == tiles
    # with fewer than 4 sure boxes the median of all boxes stays the reference (nothing is tiny)
    assert filters.drop_tiny_unread(tiles[:3] + letters) == tiles[:3] + letters


def test_vintage_photo_turned_keeps_its_12_tiles_and_no_letter_of_the_box():
    """Turned by 233 degrees at 1280 px (``scripts/bench_vision.py --turned``), the letters DOMINO
    on the photo's wooden box gave nine small boxes read as tiles (7-7, 1-6, 2-2 ...) while the
    median box was one of them."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_vision", ROOT / "scripts" / "bench_vision.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    img = cv2.imread(str(ROOT / "sample_images" / "vintage-games-game-night.jpg"))
    tiles = detect(bench.turn(img, 233, 1280))
    up = sorted(tuple(sorted(t.pips)) for t in tiles if not t.face_down and t.pips is not None)
    want = sorted(
        tuple(sorted(t))
        for t in [
            [2, 5],
            [5, 5],
            [3, 5],
            [3, 3],
            [3, 6],
            [4, 5],
            [1, 4],
            [4, 4],
            [0, 4],
            [0, 0],
            [0, 6],
            [1, 6],
        ]
    )
    assert up == want
    assert sum(not t.face_down and t.pips is None for t in tiles) == 0


@pytest.mark.parametrize("quality", [85, 92])
def test_vintage_photo_after_a_browser_style_jpeg_re_encode_keeps_its_12_tiles(quality):
    """The phone page re-encodes photos as JPEG (quality 0.85); the vintage photo's small game
    pieces must not come back as tiles then (they did, as 8-8 and 6-7, before tiny unsure
    boxes of either side were dropped)."""
    img = cv2.imread(str(ROOT / "sample_images" / "vintage-games-game-night.jpg"))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    tiles = detect(cv2.imdecode(buf, cv2.IMREAD_COLOR))
    assert len(tiles) == 12 and all(
        not t.face_down and t.pips is not None and max(t.pips) <= 6 for t in tiles
    )
