"""companion.services: the thin layer over vision/ and engine/ (images, detections, reading)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from companion import services
from vision.layout import Problem, ReadResult

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
    img = services.decode_upload((SAMPLES / name).read_bytes())
    assert (
        img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8 and min(img.shape[:2]) > 100
    )


def test_png_decodes_and_noise_does_not():
    import cv2

    ok, png = cv2.imencode(".png", np.full((20, 30, 3), 200, np.uint8))
    assert services.decode_upload(png.tobytes()).shape == (20, 30, 3)
    with pytest.raises(services.ImageError, match="not an image"):
        services.decode_upload(b"GIF9 nonsense")


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


def test_read_table_passes_params_and_makes_plain_json(monkeypatch):
    calls = []

    def fake_read(dets, game, hand=None, **params):
        calls.append((game, [d.pips for d in dets], hand, params))
        problem = Problem(0, "doubtful", "pips read as 2-5 with confidence 0.40 only")
        return ReadResult(game, None, {"grid": np.arange(4).reshape(2, 2)}, [problem])

    monkeypatch.setattr(services, "read", fake_read)
    out = services.read_table([TILE, BACK], {"1": [6, 6]}, "good-neighbors", {"max_pip": 9})
    assert calls == [("good-neighbors", [(2, 5), (6, 6)], None, {"max_pip": 9})]
    assert out["layout"] == {"grid": [[0, 1], [2, 3]]}  # numpy -> JSON
    assert not out["ok"] and out["hint"] is None and out["legal_moves"] == []
    assert out["problems"][0]["tiles"] == [0] and out["problems"][0]["blocking"]
    # in plain words; the reader's sentence (its confidence) stays with the problem, for "Why"
    assert "tile 1 is hard to read" in out["message"] and "0.40" not in out["message"]
    assert "confidence 0.40" in out["problems"][0]["message"]
    assert out["problems"][0]["plain"].startswith("Tile 1 is hard to read")
    json.dumps(out)


def test_the_hint_is_asked_from_the_engine(monkeypatch):
    from vision.render.layouts import make_layout, project_layout

    asked = []
    real = services.hint_for

    def hint_for(gt, state):
        asked.append(gt.name)
        return real(gt, state)

    monkeypatch.setattr(services, "hint_for", hint_for)
    sample = project_layout(make_layout("luzon", random.Random(5)), np.random.default_rng(5))
    tiles = [d.to_json() for d in sample.labels]
    out = services.read_table(tiles, {}, "luzon", {"seed": 0})
    assert out["ok"] and asked == ["luzon"]
    hint = out["hint"]
    assert hint["action_json"] in [m["json"] for m in out["legal_moves"]]
    assert hint["action"] in [m["text"] for m in out["legal_moves"]]
    assert 0.0 <= hint["win_chance"] <= 1.0 and hint["ranking"][0]["action"] == hint["action"]


def test_a_photo_that_is_not_that_game_gives_a_message(monkeypatch):
    def fake_read(dets, game, hand=None, **params):
        raise ValueError("5 columns expected, found 1")

    monkeypatch.setattr(services, "read", fake_read)
    out = services.read_table([TILE], {}, "luzon", {})
    assert not out["ok"] and "5 columns expected" in out["message"] and out["legal_moves"] == []


def test_a_misspelt_reader_parameter_is_an_error_not_a_message():
    with pytest.raises(services.ParameterError, match="no parameter 'varient'.*variant"):
        services.read_table([TILE], {}, "luzon", {"varient": "sixes"})


def test_a_missing_detector_model_is_reported(monkeypatch, tmp_path):
    assert services.availability()["detector"] == {"ok": True, "message": ""}
    monkeypatch.setenv("DOMINO_DETECTOR_MODEL", str(tmp_path / "gone.onnx"))
    part = services.availability()["detector"]
    assert part["ok"] is False and "gone.onnx" in part["message"]
    with pytest.raises(services.Unavailable, match="gone.onnx"):
        services.detect(np.full((64, 64, 3), 200, np.uint8), "luzon")
