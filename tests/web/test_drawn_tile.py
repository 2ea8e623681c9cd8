"""The Big Clock's drawn tile on a new table (issue 33), through the API: typed before or after
the photo, or photographed (the photo of the one tile drawn), and the hint follows; a photo of
several tiles is refused in words. The table photo is ``sample_images/rendered/big-clock.jpg``
read by the real detector (0-3 is in the stock)."""

from __future__ import annotations

import io

from companion import services

from .conftest import SAMPLES, new_table

CLOCK = (SAMPLES / "rendered" / "big-clock.jpg").read_bytes()


def post(client, t, route, data, name="p.jpg"):
    return client.post(
        f"/api/tables/{t['id']}/{route}",
        data={"photo": (io.BytesIO(data), name)},
        headers={"X-Table-Code": t["code"]},
        content_type="multipart/form-data",
    )


def test_a_new_big_clock_table_takes_the_drawn_tile_typed_or_photographed(client, monkeypatch):
    t = new_table(client, "big-clock", ("You",))
    code = {"X-Table-Code": t["code"]}  # a table of one player needs only the code
    r = post(client, t, "photos", CLOCK)
    assert r.status_code == 201 and not r.json["analysis"].get("advice")
    assert "which tile did you draw" in str(r.json["analysis"]["problems"])
    r = client.put(f"/api/tables/{t['id']}/hand", json={"hand": "0-3"}, headers=code)
    assert r.status_code == 200 and r.json["hand"] == ["0-3"]
    assert r.json["photo"]["analysis"]["advice"]["text"]
    # photographed: the one tile read becomes the drawn tile, the hint follows
    monkeypatch.setattr(services, "detect_hand", lambda image: [{"pips": [6, 2]}])
    r = post(client, t, "hand-photo", CLOCK, "tile.jpg")
    assert r.status_code == 200, r.json
    assert r.json["hand"] == ["2-6"] and r.json["message"] == "Read the tile you drew: 2-6."
    assert r.json["photo"]["analysis"]["advice"]["text"]
    assert "2-6" in str(r.json["photo"]["analysis"]["legal_moves"])
    # a photo of several tiles, or of none, is refused in words; the drawn tile stays
    monkeypatch.setattr(services, "detect_hand", lambda image: [{"pips": [6, 2]}, {"pips": [1, 1]}])
    r = post(client, t, "hand-photo", CLOCK, "tiles.jpg")
    assert r.status_code == 400
    assert r.json["error"]["message"].startswith("this photo shows 2 tiles (2-6, 1-1)")
    monkeypatch.setattr(services, "detect_hand", lambda image: [])
    r = post(client, t, "hand-photo", CLOCK, "none.jpg")
    assert (
        r.status_code == 400 and "the tile you drew could not be read" in r.json["error"]["message"]
    )
    assert client.get(f"/api/tables/{t['id']}/hand", headers=code).json["hand"] == ["2-6"]
