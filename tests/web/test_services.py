"""companion.services: the thin layer over vision/ and engine/ (images, detections, reading)."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from companion import services

from .conftest import SAMPLES, labelled_tiles

TILE = {
    "pips": [2, 5],
    "face_down": False,
    "corners": [[0, 0], [0, 120], [60, 120], [60, 0]],
    "halves": [[30, 30], [30, 90]],
    "confidence": 0.9,
    "pip_confidence": 0.4,
    "note": "blurred",
}
BACK = {**TILE, "pips": None, "face_down": True, "pip_confidence": None, "note": ""}


@pytest.mark.parametrize("name", sorted(p.name for p in SAMPLES.glob("*.jpg")))
def test_every_sample_photo_decodes(name):
    img = services.load_image((SAMPLES / name).read_bytes())
    assert (
        img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8 and min(img.shape[:2]) > 100
    )


def test_png_decodes_and_noise_does_not():
    import cv2

    ok, png = cv2.imencode(".png", np.full((20, 30, 3), 200, np.uint8))
    assert services.load_image(png.tobytes()).shape == (20, 30, 3)
    with pytest.raises(services.ImageError, match="not an image"):
        services.load_image(b"GIF9 nonsense")


def test_corrections_replace_values_and_reach_the_reader():
    tiles = [TILE, BACK]
    shown = services.apply_corrections(tiles, {"1": [4, 4]})
    assert (
        shown[0] == TILE
        and shown[1]["pips"] == [4, 4]
        and shown[1]["corrected"]
        and not shown[1]["face_down"]
    )
    dets = services._to_detections(tiles, {"1": [4, 4]})
    assert dets[0].pips == (2, 5) and dets[0].pip_confidence == 0.4 and dets[0].note == "blurred"
    assert dets[1].pips == (4, 4) and dets[1].pip_confidence == 1.0 and not dets[1].face_down
    assert dets[1].corners.shape == (4, 2) and dets[1].corners.dtype == np.float32
    assert (
        services.pips_in_view(tiles, {}) == 7 and services.pips_in_view(tiles, {"1": [4, 4]}) == 15
    )


def test_pips_in_view_of_a_labelled_photo():
    tiles = [{**TILE, "pips": t} for t in labelled_tiles("vintage-games-game-night.jpg")]
    assert services.pips_in_view(tiles, {}) == sum(
        a + b for a, b in labelled_tiles("vintage-games-game-night.jpg")
    )


@pytest.fixture()
def fake_layout(monkeypatch):
    """A stand-in ``vision.layout`` module to test the adaptor's handling of what read() gives."""
    mod = types.ModuleType("vision.layout")
    calls = []

    class Result:
        def __init__(self, dets):
            self.dets = dets

        def to_json(self):
            return {
                "state": {"grid": np.arange(4).reshape(2, 2)},
                "problems": [],
                "legal_moves": [f"{d.pips[0]}-{d.pips[1]}" for d in self.dets if d.pips],
                "hint": {"win_chance": np.float64(0.25), "tiles": [np.int64(0)]},
            }

    def read(dets, game, hand=None, **params):
        calls.append((game, params))
        if game == "luzon":
            raise ValueError("5 columns expected, found 1")
        return Result(dets)

    mod.read = read
    monkeypatch.setitem(sys.modules, "vision.layout", mod)
    services.reset_cache()
    yield calls
    services.reset_cache()


def test_read_table_makes_plain_json_and_passes_params(fake_layout):
    out = services.read_table([TILE, BACK], {"1": [6, 6]}, "good-neighbors", {"max_pip": 9})
    assert out["ok"] and out["message"] == ""
    assert out["legal_moves"] == ["2-5", "6-6"]
    assert out["state"] == {"grid": [[0, 1], [2, 3]]} and out["hint"] == {
        "win_chance": 0.25,
        "tiles": [0],
    }
    assert fake_layout == [("good-neighbors", {"max_pip": 9})]


def test_a_photo_that_is_not_that_game_gives_a_message(fake_layout):
    out = services.read_table([TILE], {}, "luzon", {})
    assert not out["ok"] and "5 columns expected" in out["message"] and out["legal_moves"] == []


def test_missing_layout_reader_gives_a_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "vision.layout", None)  # import fails
    services.reset_cache()
    try:
        out = services.read_table([TILE], {}, "draw100", {})
        assert not out["ok"] and "not available" in out["message"]
        assert services.availability()["layout"]["ok"] is False
    finally:
        services.reset_cache()
