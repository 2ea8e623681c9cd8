"""The photo's labels and problems as the page gets them: labels placed by the server (a box
marked "Not a tile" has none), problems in plain words with the reader's sentence kept."""

from __future__ import annotations

from companion import hints, services

from .conftest import SAMPLES, new_table
from .test_api import upload

JPEG = (SAMPLES / "IMG_0350.jpg").read_bytes()


def test_labels_come_with_the_photo_and_a_removed_box_has_none(client, fake_detector, monkeypatch):
    # as the real detector gives them: each box with the verifier's "not a tile" probability
    monkeypatch.setattr(
        services,
        "detect",
        lambda image, game=None: [{**d, "not_tile": 0.01} for d in fake_detector(image)],
    )
    t = new_table(client)
    hdr = {"X-Table-Code": t["code"]}
    p = upload(client, t, JPEG).json
    values = {lab["tile"]: lab["text"] for lab in p["labels"] if not lab["badge"]}
    assert values == {0: "2-5", 1: "5-5", 2: "3-6"}
    for lab in p["labels"]:  # inside the tile's 60 px wide box, on its centre
        assert lab["w"] <= 60 and lab["size"] > 0 and not lab["keyed"]
    r = client.put(
        f"/api/tables/{t['id']}/photos/{p['id']}/tiles/0", json={"kind": "not_tile"}, headers=hdr
    )
    assert r.status_code == 200
    assert 0 not in {lab["tile"] for lab in r.json["labels"] if not lab["badge"]}
    assert r.json["tiles"][0]["not_tile"] is True
    # the tiles the verifier found likely (a probability, not a mark) still count as tiles
    assert r.json["suggestion"]["points"] == 5 + 5 + 3 + 6


def test_problems_are_said_in_plain_words_and_keep_the_reader_sentence():
    reader = "this box lies 88% on the more confident box of tile 9: taken as that tile found twice"
    p = {"kind": "overlapping_box", "message": reader, "tile_index": 2, "source": "table"}
    said = hints.problem_in_words(p)
    assert said.startswith("Tile 3 ") and "%" not in said and "confident" not in said
    assert hints.problem_in_words({"kind": "doubtful", "tile_index": 0}).startswith(
        "Tile 1 is hard to read (maybe partly hidden)"
    )
    hand = {"kind": "duplicate", "message": "6-6 is both in the hand and on the table (tile 1)"}
    assert hints.problem_in_words({**hand, "source": "hand"}) == hand["message"]
    assert hints.problem_in_words({"kind": "impossible", "message": "no double"}) == "no double"
