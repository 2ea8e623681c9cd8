"""What a player uses at the table, through the API and the server-rendered pages: demo tables
for every game read without errors, hints in players' words with what to draw, tile fixes
(value, not a tile, face down, a missed tile added), start-form errors that keep the form,
duplicate names, rematch, deleting a table, the favicon."""

from __future__ import annotations

import io
import re

import pytest

from companion import hints, services
from companion.app import create_app
from companion.commands import serve

from .conftest import SAMPLES, new_table, sit

JPEG = (SAMPLES / "IMG_0350.jpg").read_bytes()

#: engine notation that must not reach a player (open-end ids, cells, search limits, rule refs)
NOTATION = re.compile(
    r"\[\d+\.(end|side)_[ab]\]|\(-?\d+, -?\d+\)=\d+|node limit|RULES\.md|\bslot \d|table tile \d"
)


def player_texts(analysis: dict) -> list[str]:
    """Every text of a reading the page shows a player."""
    adv = analysis.get("advice") or {}
    out = [analysis.get("message") or "", adv.get("text") or "", *(adv.get("details") or [])]
    out += [
        p.get("message", "") if isinstance(p, dict) else str(p)
        for p in analysis.get("problems") or []
    ]
    out += [m.get("words", "") for m in analysis.get("legal_moves") or []]
    return out


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo tables ``serve`` makes, read by the real pipeline: {game: (client, table, photo)}."""
    d = tmp_path_factory.mktemp("demo")
    app = create_app(
        {"SECRET_KEY": "t", "DATABASE": str(d / "d.sqlite"), "PHOTO_DIR": str(d / "p")},
        instance_path=str(d),
    )
    serve.create_demo_tables(app, log=lambda _line: None)
    c = app.test_client()
    out = {}
    for t in c.get("/api/tables").json:
        page = c.get(f"/t/{t['id']}").get_data(as_text=True)  # demo tables hand out their code
        code = re.search(r'id="table-code">(\w+)<', page).group(1)
        full = c.get(f"/api/tables/{t['id']}").json
        me = {"X-Table-Code": code, "X-Player": str(full["players"][0]["id"])}
        sit(c, {**full, "code": code})  # the demo hand is the first seat's
        photo = c.get(f"/api/tables/{t['id']}/photos/{full['latest_photo_id']}", headers=me).json
        out[t["game"]] = (c, full, photo, me)
    return out


@pytest.mark.parametrize("game", ["draw100", "tableaux", "good-neighbors", "big-clock", "luzon"])
def test_every_demo_table_opens_with_a_hint_and_no_error(demo, game):
    _c, _t, photo, _me = demo[game]
    a = photo["analysis"]
    assert a["ok"] and not a["problems"] and not a["message"], a.get("message")
    assert photo["rendered"] == (game != "draw100")
    adv = a["advice"]
    assert adv and adv["text"] and a["legal_moves"]
    for text in player_texts(a):
        assert not NOTATION.search(text), text
    n = len(photo["tiles"])
    assert all(0 <= i < n for i in adv["outline"])
    if game in ("draw100", "tableaux"):
        assert (
            adv["ghost"] and len(adv["ghost"]["corners"]) == 4 and adv["text"].startswith("Play ")
        )
    if game in ("good-neighbors", "luzon"):
        assert adv["pairs"] and all(len(p) == 2 for p in adv["pairs"])
        assert adv["text"].startswith("Remove") or adv["text"].startswith("Move")
    if adv["anchor"]:
        x, y = adv["anchor"]
        assert 0 <= x <= photo["width"] and 0 <= y <= photo["height"]
    # one spelling of a move: each listed once, the alternatives never the hint again
    words = [m["words"] for m in a["legal_moves"] if m.get("words")]
    assert len(words) == len(set(words)), words
    also = [
        d.removeprefix("Also possible: ").rstrip(".").split("; ")
        for d in adv["details"]
        if d.startswith("Also possible: ")
    ]
    assert all(adv["text"][:1].lower() + adv["text"][1:] not in alts for alts in also)


def test_big_clock_page_asks_for_the_drawn_tile_and_the_hint_waits_for_it(demo):
    """The Big Clock hint is about the tile just drawn from the stock, which is not on the
    table: the page asks for it, a reading without it names what is missing and gives no hint,
    and typing it back brings a hint again (RULES.md section 2; the demo's drawn tile is 0-3;
    the hint keeps its samples and proofs between the calls of one draw, so a later call may
    choose another move)."""
    c, t, photo, me = demo["big-clock"]
    page = c.get(f"/t/{t['id']}").get_data(as_text=True)
    assert "The tile you drew" in page and "the hint needs it" in page
    url = f"/api/tables/{t['id']}/photos/{photo['id']}/hand"
    try:
        a = c.put(url, json={"hand": ""}, headers=me).json["analysis"]
        assert not a.get("advice")
        assert any("which tile did you draw" in text for text in player_texts(a)), a
        # one tile is drawn at a time
        b = c.put(url, json={"hand": "0-3 5-5"}, headers=me).json["analysis"]
        assert not b.get("advice") and "the one tile you drew" in b["message"]
    finally:
        back = c.put(url, json={"hand": "0-3"}, headers=me).json["analysis"]
    assert back["advice"] and back["advice"]["text"] and back["legal_moves"]
    assert not any("which tile did you draw" in text for text in player_texts(back))


def test_draw100_hint_ghost_lies_beside_the_tile_it_is_played_on(demo):
    _c, _t, photo, _me = demo["draw100"]
    adv = photo["analysis"]["advice"]
    parent = photo["tiles"][adv["outline"][0]]
    import numpy as np

    g = np.asarray(adv["ghost"]["corners"]).mean(axis=0)
    p = np.asarray(parent["corners"]).mean(axis=0)
    side = max(
        np.linalg.norm(np.subtract(parent["corners"][1], parent["corners"][0])),
        np.linalg.norm(np.subtract(parent["corners"][2], parent["corners"][1])),
    )
    assert 0.5 * side < np.linalg.norm(g - p) < 1.3 * side  # next to it, not on it, not far away
    assert re.match(
        r"Play \d-\d( crosswise)? on the \d at the (top|bottom|left|right) end|"
        r"Play \d-\d( crosswise)? on the \d at the side of the spinner",
        adv["text"],
    ), adv["text"]


def test_problem_messages_name_the_tiles_drawn_on_the_photo():
    text, named = hints.plain_problem(
        "1-4 is both in the hand and on the table, as table tile 0; see RULES.md section 4",
        labels=["4-1"],
    )
    # the photo's number and its label as written ("4-1": the half read first)
    assert text == "1-4 is both in the hand and on the table, as tile 1 (4-1)" and named == [0]
    assert (
        hints.plain_problem("slot 5 holds two tiles")[0] == "the pile at 5 o'clock holds two tiles"
    )
    # an unread tile or a face-down one: its number only (its label is "?" or a square)
    assert hints.plain_problem("table tile 0 and table tile 1", labels=["?", "\u25a0"])[0] == (
        "tile 1 and tile 2"
    )
    # numbering of the reader (boxes marked "not a tile" left out) mapped back to the photo's
    assert hints.plain_problem("table tile 1 is blurred", [0, 2, 3]) == ("tile 3 is blurred", [2])


def test_present_in_words_for_every_shape_of_action():
    tiles = [
        {
            "corners": [[100, 100], [160, 100], [160, 130], [100, 130]],
            "pips": [1, 2],
            "halves": [[115, 115], [145, 115]],
        }
    ]
    assert (
        hints.present("draw100", {"hint": {"action_json": {"type": "draw"}}, "layout": {}}, tiles)[
            "text"
        ]
        == "No tile of yours fits: draw one from the boneyard"
    )
    assert (
        "-3"
        in hints.present("tableaux", {"hint": {"action_json": {"type": "pass"}}}, tiles)["text"]
    )
    lead = hints.present(
        "draw100",
        {
            "hint": {"action_json": {"type": "play", "tiles": ["6-6"]}},
            "layout": {"line": [], "open_ends": []},
        },
        [],
    )
    assert lead["text"] == "Lead with the 6-6 (a double, laid crosswise)"
    clock = hints.present(
        "big-clock",
        {
            "hint": {
                "action_json": {
                    "type": "play",
                    "tiles": ["1-5"],
                    "place": {"kind": "pile", "pile": 4},
                },
                "action": "put 1-5 on slot 4 (on 3-5)",
            },
            "layout": {"slots": {"4": {"blank": False, "tile": "3-5", "tile_index": 0}}},
        },
        tiles,
    )
    assert clock["text"] == "Put 1-5 on the 3-5 at 4 o'clock" and clock["ghost"]["label"] == "1-5"
    assert clock["tiles"] == ["1-5"]
    # the hint's tiles are outlined wherever the photo shows them: both tiles of a pair removed
    pair_tiles = tiles + [
        {"corners": [[200, 100], [260, 100], [260, 130], [200, 130]], "pips": [5, 4]},
        {"corners": [[300, 100], [360, 100], [360, 130], [300, 130]], "pips": [0, 3]},
    ]
    gn = hints.present(
        "good-neighbors",
        {
            "hint": {"action_json": {"type": "remove", "tiles": ["1-2", "4-5"]}},
            "layout": {
                "cells": [{"tile": "1-2", "tile_index": 0}, {"tile": "4-5", "tile_index": 1}]
            },
        },
        pair_tiles,
    )
    assert gn["text"] == "Remove the neighbours: 1-2 + 5-4"  # as the photo labels it (5-4)
    assert sorted(gn["outline"]) == [0, 1] and gn["pairs"] == [[0, 1]]
    moved = hints.present(
        "big-clock",
        {
            "hint": {
                "action_json": {
                    "type": "move",
                    "tiles": ["0-3"],
                    "place": {"kind": "pile", "pile": 4},
                    "source": {"kind": "pile", "pile": 9},
                },
            },
            "layout": {"slots": {"4": {"blank": True, "centre": [50, 50]}, "9": {}}},
        },
        pair_tiles,
    )
    # a clock of one pile on the photo has no ring to tell places from: the piles' hours
    assert moved["text"] == "Move the 0-3 at 9 o'clock home, to the empty place at 4 o'clock"
    assert moved["outline"] == [2]  # found on the photo by its tile alone
    assert hints.present("luzon", {"hint": None}, tiles) is None


# --- fixing tiles -------------------------------------------------------------------------------


def luzon_photo(client) -> tuple[dict, dict, dict]:
    """A Luzon table with one photo (fake detector): ``(table, headers, photo)``."""
    t = new_table(client, "luzon", ["You"])
    hdr = {"X-Table-Code": t["code"]}
    p = client.post(
        f"/api/tables/{t['id']}/photos",
        headers=hdr,
        data={"photo": (io.BytesIO(JPEG), "p.jpg")},
        content_type="multipart/form-data",
    ).json
    return t, hdr, p


def test_a_box_marked_not_a_tile_or_face_down_is_read_so(client, fake_detector):
    t, hdr, p = luzon_photo(client)
    base = f"/api/tables/{t['id']}/photos/{p['id']}/tiles"
    r = client.put(base + "/0", json={"kind": "not_tile"}, headers=hdr)
    assert (
        r.status_code == 200
        and r.json["tiles"][0]["not_tile"]
        and r.json["corrections"] == {"0": "not_tile"}
    )
    r = client.put(base + "/1", json={"kind": "face_down"}, headers=hdr)
    assert r.json["tiles"][1]["face_down"] and r.json["tiles"][1]["pips"] is None
    assert client.put(base + "/1", json={"kind": "upside"}, headers=hdr).status_code == 400
    r = client.delete(base + "/0", headers=hdr)
    assert "0" not in r.json["corrections"] and not r.json["tiles"][0].get("not_tile")


def test_a_missed_tile_is_added_where_the_photo_was_tapped(client, fake_detector):
    t, hdr, p = luzon_photo(client)
    url = f"/api/tables/{t['id']}/photos/{p['id']}/tiles"
    r = client.post(url, json={"at": [400.5, 80], "pips": [1, 3]}, headers=hdr)
    assert r.status_code == 201
    new = r.json["tiles"][-1]
    assert len(r.json["tiles"]) == 4 and new["pips"] == [1, 3] and new["added"] and new["corrected"]
    cx = sum(c[0] for c in new["corners"]) / 4
    assert abs(cx - 400.5) < 1
    for bad in (
        {"at": [1e9, 2], "pips": [1, 3]},
        {"at": "here", "pips": [1, 3]},
        {"at": [1, 2], "pips": [1, 9]},
        {"at": [True, 2], "pips": [1, 3]},
    ):
        assert client.post(url, json=bad, headers=hdr).status_code == 400
    assert client.post(url, json={"at": [1, 2], "pips": [1, 3]}).status_code == 403


# --- tables -----------------------------------------------------------------------------------


def test_duplicate_names_are_refused(client):
    r = client.post("/api/tables", json={"game": "draw100", "players": ["Ana", "ana "]})
    assert r.status_code == 400 and "two players are called" in r.json["error"]["message"]


def test_a_refused_start_form_comes_back_filled_in(client):
    page = client.get("/").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    r = client.post(
        "/tables",
        data={
            "csrf_token": token,
            "game": "good-neighbors",
            "max_pip": "9",
            "players": "Ana\nBen",
            "target": "",
        },
    )
    assert r.status_code == 400
    html = r.get_data(as_text=True)
    assert "Start a table" in html and "is for 1 player(s), got 2" in html
    assert '<option value="good-neighbors" data-sets' in html and "selected>Good Neighbors" in html
    assert ">Ana\nBen</textarea>" in html and '<option value="9" selected>' in html
    # a variant sent for a game without variants is not held against the form
    r = client.post(
        "/tables",
        data={"csrf_token": token, "game": "draw100", "variant": "sixes", "players": "Ana\nBen"},
    )
    assert r.status_code == 302


def test_rematch_and_delete(client, fake_detector, app):
    t = new_table(client, "draw100", ["Ana", "Ben"], target=10)
    hdr = {"X-Table-Code": t["code"]}
    client.post(
        f"/api/tables/{t['id']}/photos",
        headers=hdr,
        data={"photo": (io.BytesIO(JPEG), "p.jpg")},
        content_type="multipart/form-data",
    )
    client.post(
        f"/api/tables/{t['id']}/rounds",
        json={"scores": {str(t["players"][0]["id"]): 12}},
        headers=hdr,
    )
    assert client.get(f"/api/tables/{t['id']}").json["status"] == "finished"
    r = client.post(f"/api/tables/{t['id']}/rematch", json={}, headers=hdr)
    assert r.status_code == 201 and [p["name"] for p in r.json["players"]] == ["Ana", "Ben"]
    assert (
        r.json["target"] == 10
        and r.json["status"] == "playing"
        and r.json["url"] == f"/t/{r.json['id']}"
    )
    assert client.delete(f"/api/tables/{t['id']}").status_code == 403
    files = list((__import__("pathlib").Path(app.config["PHOTO_DIR"])).iterdir())
    assert files
    r = client.delete(f"/api/tables/{t['id']}", headers=hdr)
    assert r.status_code == 200 and r.json == {"deleted": t["id"]}
    assert client.get(f"/api/tables/{t['id']}").status_code == 404
    assert not list((__import__("pathlib").Path(app.config["PHOTO_DIR"])).iterdir())
    assert (
        client.get(f"/api/tables/{r.json['deleted'] + 1}").status_code == 200
    )  # the rematch stays


def test_favicon(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 301
    assert client.get(r.headers["Location"]).status_code == 200
    assert 'rel="icon"' in client.get("/").get_data(as_text=True)


def test_hand_photo_sets_the_hand_and_keeps_the_table_reading(client, fake_detector, monkeypatch):
    t = new_table(client)
    me = {"X-Table-Code": t["code"], "X-Player": str(t["players"][1]["id"])}
    sit(client, t, 1)
    p = client.post(
        f"/api/tables/{t['id']}/photos",
        headers=me,
        data={"photo": (io.BytesIO(JPEG), "p.jpg")},
        content_type="multipart/form-data",
    ).json
    monkeypatch.setattr(
        services,
        "detect_hand",
        lambda image: [{"pips": [6, 4]}, {"pips": [1, 1]}, {"pips": None, "face_down": True}],
    )
    r = client.post(
        f"/api/tables/{t['id']}/hand-photo",
        headers=me,
        data={"photo": (io.BytesIO(JPEG), "h.jpg")},
        content_type="multipart/form-data",
    )
    assert (
        r.status_code == 200
        and r.json["hand"] == ["4-6", "1-1"]
        and "1 tile(s) could not be read" in r.json["message"]
    )
    assert (
        r.json["photo"]["id"] == p["id"] and len(r.json["photo"]["tiles"]) == 3
    )  # the table photo is still the latest
    assert client.get(f"/api/tables/{t['id']}").json["photo_count"] == 1
    assert client.get(f"/api/tables/{t['id']}/hand", headers=me).json["hand"] == ["4-6", "1-1"]
    ana = {**me, "X-Player": str(t["players"][0]["id"])}
    assert client.get(f"/api/tables/{t['id']}/hand", headers=ana).status_code == 403


def test_tiles_left_are_read_from_a_photo_and_nothing_is_stored(client, fake_detector, monkeypatch):
    t = new_table(client)
    hdr = {"X-Table-Code": t["code"]}
    monkeypatch.setattr(
        services,
        "detect_hand",
        lambda image: [{"pips": [5, 3]}, {"pips": [3, 5]}, {"pips": None, "face_down": True}],
    )
    r = client.post(
        f"/api/tables/{t['id']}/read-tiles",
        headers=hdr,
        data={"photo": (io.BytesIO(JPEG), "left.jpg")},
        content_type="multipart/form-data",
    )
    assert r.status_code == 200 and r.json == {"tiles": ["3-5"], "unread": 1}
    assert client.get(f"/api/tables/{t['id']}").json["photo_count"] == 0
    r = client.post(
        f"/api/tables/{t['id']}/read-tiles",
        data={"photo": (io.BytesIO(JPEG), "left.jpg")},
        content_type="multipart/form-data",
    )
    assert r.status_code == 403
