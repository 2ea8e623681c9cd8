"""Fixtures for the companion's web tests: an app on a temporary instance folder, a client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion import services
from companion.app import create_app

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_images"


def labelled_tiles(photo: str) -> list[list[int]]:
    """The tiles checked by eye in ``sample_images/labels.json`` for ``photo``."""
    return json.loads((SAMPLES / "labels.json").read_text())["photos"][photo]["tiles"]


@pytest.fixture()
def app(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test",
            "DATABASE": str(tmp_path / "db.sqlite"),
            "PHOTO_DIR": str(tmp_path / "photos"),
        },
        instance_path=str(tmp_path),
    )
    yield app


@pytest.fixture()
def client(app):
    return app.test_client()


def new_table(client, game="draw100", players=("Ana", "Ben"), **extra) -> dict:
    r = client.post("/api/tables", json={"game": game, "players": list(players), **extra})
    assert r.status_code == 201, r.json
    return r.json


def sit(client, table: dict, index: int = 0) -> int:
    """Take the seat of ``table``'s player ``index`` with this client (its phone): the answer
    sets the client's seat cookie. Returns the player id."""
    pid = table["players"][index]["id"]
    r = client.post(
        f"/api/tables/{table['id']}/seats/{pid}", headers={"X-Table-Code": table["code"]}
    )
    assert r.status_code in (200, 201), r.json
    return int(pid)


@pytest.fixture()
def fake_detector(monkeypatch):
    """Replace only the detector with a fixed set of tile boxes (for tests of the web side).

    The boxes are 3 upright tiles 100 px apart; their pips come from the labels of a real
    photo so corrections and scores work on known values.
    """

    def detect(image, game=None):
        tiles = []
        for i, (a, b) in enumerate([[2, 5], [5, 5], [3, 6]]):
            x = 20 + 100 * i
            tiles.append(
                {
                    "pips": [a, b],
                    "face_down": False,
                    "corners": [[x, 20], [x, 140], [x + 60, 140], [x + 60, 20]],
                    "halves": [[x + 30, 50], [x + 30, 110]],
                    "confidence": 0.9,
                    "pip_confidence": 0.5 if i == 2 else 0.95,
                    "note": "",
                }
            )
        return tiles

    monkeypatch.setattr(services, "detect", detect)
    return detect


@pytest.fixture()
def lead_double_detector(monkeypatch):
    """Replace only the detector: the photo shows one 6-6 laid crosswise (the lead of a hand of
    draw to 100, RULES.md section 4). The layout reader and the engine stay real, so with a
    hand typed in the page shows real legal moves and the engine's hint."""

    def detect(image, game=None):
        h, w = image.shape[:2]
        x, y = w / 2 - 30, h / 2 - 60
        return [
            {
                "pips": [6, 6],
                "face_down": False,
                "corners": [[x, y], [x, y + 120], [x + 60, y + 120], [x + 60, y]],
                "halves": [[x + 30, y + 30], [x + 30, y + 90]],
                "confidence": 0.95,
                "pip_confidence": 0.95,
                "note": "",
            }
        ]

    monkeypatch.setattr(services, "detect", detect)
    return detect
