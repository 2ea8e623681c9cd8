"""The companion's JSON API and pages through Flask's test client: tables, codes, scores,
photos, bad input and error handling (RULES.md sections 4 and 5 for the score sheets)."""

from __future__ import annotations

import io
import re
import sqlite3

import pytest

from companion import services, store
from companion.app import create_app

from .conftest import SAMPLES, new_table, sit

JPEG = (SAMPLES / "IMG_0350.jpg").read_bytes()


def count(app, sql: str) -> int:
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def photo_files(app) -> list:
    from pathlib import Path

    return sorted(Path(app.config["PHOTO_DIR"]).iterdir())


def upload(client, table, data: bytes, name="p.jpg", code=None):
    return client.post(
        f"/api/tables/{table['id']}/photos",
        headers={"X-Table-Code": code or table["code"]},
        data={"photo": (io.BytesIO(data), name)},
        content_type="multipart/form-data",
    )


def form_token(client) -> str:
    """The start form's CSRF token for this client (from the start page, as a browser gets it)."""
    page = client.get("/").get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def round_(client, table, scores, kind=None, code=None):
    kind = kind or ("domino" if table["game"] == "draw100" else "play")
    return client.post(
        f"/api/tables/{table['id']}/rounds",
        headers={"X-Table-Code": code or table["code"]},
        json={"scores": scores, "kind": kind},
    )


# --- tables ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "game,players,extra,target",
    [
        ("draw100", ["A", "B", "C", "D"], {}, 100),
        ("tableaux", ["A", "B"], {"max_pip": 9}, 361),
        ("tableaux", ["A", "B"], {"max_pip": 6}, 121),
        ("good-neighbors", ["Solo"], {"max_pip": 9}, None),
        ("big-clock", [], {"max_pip": 12}, None),
        ("luzon", ["Solo"], {"variant": "sixes"}, None),
    ],
)
def test_start_a_table_for_every_game(client, game, players, extra, target):
    t = new_table(client, game, players, **extra)
    assert t["target"] == target and t["status"] == "playing"
    assert len(t["code"]) == store.CODE_LENGTH and set(t["code"]) <= set(store.CODE_ALPHABET)
    assert t["join_url"].endswith(f"/join/{t['code']}")
    got = client.get(f"/api/tables/{t['id']}").json
    assert "code" not in got, "reading a table must not reveal its code"
    assert [p["total"] for p in got["players"]] == [0] * len(got["players"])


@pytest.mark.parametrize(
    "body,needle",
    [
        ({"game": "chess"}, "unknown game"),
        ({"game": "draw100", "players": ["A"]}, "2 to 4"),
        ({"game": "draw100", "players": list("ABCDE")}, "2 to 4"),
        ({"game": "tableaux", "players": ["A", "B"], "max_pip": 12}, "double-6/9"),
        ({"game": "luzon", "variant": "sevens"}, "no variant"),
        ({"game": "draw100", "players": ["A", "B"], "target": "lots"}, "whole number"),
    ],
)
def test_bad_table_is_refused_with_a_message(client, app, body, needle):
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400 and needle in r.json["error"]["message"]
    assert count(app, "SELECT COUNT(*) FROM tables") == 0


def test_start_form_and_join_link_remember_the_code(client):
    r = client.post(
        "/tables",
        data={
            "game": "tableaux",
            "max_pip": "9",
            "players": "Ana\nBen",
            "target": "",
            "csrf_token": form_token(client),
        },
    )
    assert r.status_code == 302
    page = client.get(r.headers["Location"]).get_data(as_text=True)
    assert (
        "<svg" in page and "Take a photo" in page
    )  # QR code inline, capture offered to the holder
    t = client.get("/api/tables").json[0]
    assert t["game"] == "tableaux"
    other = client.application.test_client()
    watcher = other.get(f"/t/{t['id']}").get_data(as_text=True)
    assert "Take a photo" not in watcher and "Enter the table code" in watcher


def test_join_with_a_wrong_code_is_403(client):
    t = new_table(client)
    r = client.get("/join/ZZZZZZ")
    assert r.status_code == 403 and "no table has the code" in r.get_data(as_text=True)
    r = client.get("/join/" + t["code"].lower())  # case does not matter
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/t/{t['id']}")


def test_qr_code_svg_needs_the_code(client):
    t = new_table(client)
    assert client.get(f"/api/tables/{t['id']}/qr.svg").status_code == 403
    r = client.get(f"/api/tables/{t['id']}/qr.svg", headers={"X-Table-Code": t["code"]})
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data


# --- scores ------------------------------------------------------------------------------


def test_draw100_running_totals_winner_finished_and_undo(client, app):
    t = new_table(client, "draw100", ["Ana", "Ben", "Cleo"])
    ana, ben, cleo = (p["id"] for p in t["players"])
    assert round_(client, t, {ana: 35}).status_code == 201
    assert round_(client, t, {ben: 40}, kind="blocked").status_code == 201
    r = round_(client, t, {str(ana): 70})
    data = r.json
    assert r.status_code == 201
    assert {p["name"]: p["total"] for p in data["players"]} == {"Ana": 105, "Ben": 40, "Cleo": 0}
    assert data["status"] == "finished" and data["winner"]["name"] == "Ana"
    # a score for a finished game: 409, nothing stored
    before = count(app, "SELECT COUNT(*) FROM score_events")
    r = round_(client, t, {cleo: 5})
    assert r.status_code == 409 and "finished" in r.json["error"]["message"]
    assert count(app, "SELECT COUNT(*) FROM score_events") == before
    # undo the deciding hand: the game reopens, the history keeps it marked undone
    last = data["rounds"][-1]["id"]
    r = client.post(
        f"/api/tables/{t['id']}/undo", headers={"X-Table-Code": t["code"]}, json={"round_id": last}
    )
    assert r.status_code == 200 and r.json["status"] == "playing" and r.json["winner"] is None
    assert [p["total"] for p in r.json["players"]] == [35, 40, 0]
    hist = client.get(f"/api/tables/{t['id']}/rounds").json
    assert [(h["number"], h["kind"], h["undone"]) for h in hist] == [
        (1, "domino", False),
        (2, "blocked", False),
        (3, "domino", True),
    ]
    assert round_(client, t, {cleo: 5}).status_code == 201


def test_tableaux_pass_scores_minus_three_but_draw100_refuses_negatives(client):
    tab = new_table(client, "tableaux", ["Ana", "Ben"])
    a = tab["players"][0]["id"]
    r = round_(client, tab, {a: -3}, kind="pass")
    assert r.status_code == 201 and r.json["players"][0]["total"] == -3
    assert round_(client, tab, {a: -4}, kind="pass").status_code == 400
    d = new_table(client)
    r = round_(client, d, {d["players"][0]["id"]: -3})
    assert r.status_code == 400 and "between 0 and 999" in r.json["error"]["message"]


@pytest.mark.parametrize(
    "scores,kind,needle",
    [
        ({}, "domino", "1 to 20"),
        ({"999": 5}, "domino", "does not sit"),
        ({"P": 5}, "domino", "whole number"),
        ({"@": 1000}, "domino", "between"),
        ({"@": 5}, "castle", "kind must be"),
    ],
)
def test_bad_scores_are_refused(client, app, scores, kind, needle):
    t = new_table(client)
    pid = str(t["players"][0]["id"])
    scores = {(pid if k == "@" else k): v for k, v in scores.items()}
    r = round_(client, t, scores, kind=kind)
    assert r.status_code == 400 and needle in r.json["error"]["message"]
    assert count(app, "SELECT COUNT(*) FROM rounds") == 0


def test_wrong_or_missing_code_is_403_and_changes_nothing(client, app):
    t = new_table(client)
    pid = t["players"][0]["id"]
    wrong = "ABCDEF" if t["code"] != "ABCDEF" else "ABCDEG"
    r = round_(client, t, {pid: 10}, code=wrong)
    assert r.status_code == 403 and "wrong table code" in r.json["error"]["message"]
    r = client.post(f"/api/tables/{t['id']}/rounds", json={"scores": {pid: 10}})
    assert r.status_code == 403 and "table code" in r.json["error"]["message"]
    assert upload(client, t, JPEG, code=wrong).status_code == 403
    assert (
        client.post(
            f"/api/tables/{t['id']}/undo", headers={"X-Table-Code": wrong}, json={"round_id": 1}
        ).status_code
        == 403
    )
    assert count(app, "SELECT COUNT(*) FROM rounds") == 0
    assert count(app, "SELECT COUNT(*) FROM photos") == 0 and photo_files(app) == []


def test_solitaire_has_no_score_sheet(client):
    t = new_table(client, "luzon", ["Me"])
    r = round_(client, t, {t["players"][0]["id"]: 1}, kind="play")
    assert r.status_code == 400 and "no score sheet" in r.json["error"]["message"]


def test_a_failure_half_way_stores_nothing(client, app, monkeypatch):
    t = new_table(client)
    pid = t["players"][0]["id"]

    def boom(*a, **k):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store, "_settle", boom)  # fails after the round and events were inserted
    r = round_(client, t, {pid: 10})
    assert r.status_code == 500
    body = r.get_data(as_text=True)
    assert "disk on fire" not in body and "Traceback" not in body
    assert count(app, "SELECT COUNT(*) FROM rounds") == 0
    assert count(app, "SELECT COUNT(*) FROM score_events") == 0


def test_restart_loses_nothing(app, client, tmp_path):
    t = new_table(client)
    round_(client, t, {t["players"][1]["id"]: 25})
    again = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test",
            "DATABASE": app.config["DATABASE"],
            "PHOTO_DIR": app.config["PHOTO_DIR"],
        },
        instance_path=str(tmp_path),
    )
    got = again.test_client().get(f"/api/tables/{t['id']}").json
    assert [p["total"] for p in got["players"]] == [0, 25] and len(got["rounds"]) == 1


def test_init_db_cli(app):
    result = app.test_cli_runner().invoke(args=["init-db"])
    assert result.exit_code == 0 and "Initialised" in result.output


# --- photos and bad uploads ----------------------------------------------------------------


def test_upload_stores_the_photo_and_serves_it(client, app, fake_detector):
    t = new_table(client)
    r = upload(client, t, JPEG)
    assert r.status_code == 201
    p = r.json
    assert (p["width"], p["height"]) == (640, 640)
    assert [tile["pips"] for tile in p["tiles"]] == [[2, 5], [5, 5], [3, 6]]
    assert (
        p["suggestion"]["points"] == 7 + 10 + 9
    )  # pips in view (RULES.md 4: the winner scores them)
    img = client.get(p["image_url"])
    assert img.status_code == 200 and img.data[:3] == b"\xff\xd8\xff"
    assert client.get(f"/api/tables/{t['id']}").json["latest_photo_id"] == p["id"]


def test_correct_a_tile_and_undo_the_correction(client, fake_detector):
    t = new_table(client)
    p = upload(client, t, JPEG).json
    url = f"/api/tables/{t['id']}/photos/{p['id']}/tiles/2"
    hdr = {"X-Table-Code": t["code"]}
    r = client.put(url, json={"pips": [3, 5]}, headers=hdr)
    assert r.status_code == 200
    assert r.json["tiles"][2]["pips"] == [3, 5] and r.json["tiles"][2]["corrected"]
    assert r.json["suggestion"]["points"] == 7 + 10 + 8
    again = client.get(f"/api/tables/{t['id']}/photos/{p['id']}").json  # stored, not just answered
    assert again["tiles"][2]["pips"] == [3, 5]
    assert client.put(url, json={"pips": [3, 7]}, headers=hdr).status_code == 400  # double-6 set
    assert client.put(url, json={"pips": [3]}, headers=hdr).status_code == 400
    assert (
        client.put(
            url.replace("/tiles/2", "/tiles/9"), json={"pips": [1, 1]}, headers=hdr
        ).status_code
        == 404
    )
    assert client.put(url, json={"pips": [1, 1]}).status_code == 403
    r = client.delete(url, headers=hdr)
    assert (
        r.status_code == 200
        and r.json["tiles"][2]["pips"] == [3, 6]
        and not r.json["tiles"][2].get("corrected")
    )


@pytest.mark.parametrize(
    "data,needle",
    [
        (b"%PDF-1.4 this is not a photo" * 20, "not an image"),
        (b"", "empty"),
        (JPEG[:2000], "cut off"),  # truncated in transfer
        (
            b"\xff\xd8\xff\xe0" + bytes(range(256)) * 40 + b"\xff\xd9",
            "corrupt",
        ),  # garbage inside a JPEG
    ],
)
def test_bad_uploads_get_400_and_nothing_is_stored(client, app, data, needle):
    t = new_table(client)
    r = upload(client, t, data)
    assert r.status_code == 400, r.json
    assert needle in r.json["error"]["message"]
    assert count(app, "SELECT COUNT(*) FROM photos") == 0 and photo_files(app) == []


def test_fifty_megabytes_is_413_as_json_and_as_a_page(client, app):
    t = new_table(client)
    big = b"\xff\xd8\xff" + b"\0" * (50 * 1024 * 1024)
    r = upload(client, t, big)
    assert r.status_code == 413 and "too large" in r.json["error"]["message"]
    r = client.post("/tables", data={"game": "draw100", "players": "x" * (50 * 1024 * 1024)})
    assert (
        r.status_code == 413
        and r.mimetype == "text/html"
        and "too large" in r.get_data(as_text=True)
    )
    assert (
        count(app, "SELECT COUNT(*) FROM photos") == 0
        and count(app, "SELECT COUNT(*) FROM tables") == 1
    )


def test_missing_vision_is_a_message_not_a_crash(client, monkeypatch):
    def gone(image, game=None):
        raise services.Unavailable("vision.pipeline is not available: test")

    monkeypatch.setattr(services, "detect", gone)
    t = new_table(client)
    r = upload(client, t, JPEG)
    assert r.status_code == 201 and r.json["tiles"] == []
    assert "Tiles cannot be found yet" in r.json["analysis"]["message"]


def test_a_table_parameter_its_reader_does_not_take_is_a_400(client, app, fake_detector):
    t = new_table(client, "luzon", ["Ana"])
    conn = sqlite3.connect(app.config["DATABASE"])
    try:  # a misspelt name in the stored parameters (the API itself stores only known ones)
        conn.execute(
            "UPDATE tables SET params_json = ? WHERE id = ?", ('{"varient": "sixes"}', t["id"])
        )
        conn.commit()
    finally:
        conn.close()
    r = upload(client, t, JPEG)
    assert r.status_code == 400, r.json
    assert "no parameter 'varient'" in r.json["error"]["message"]
    assert "variant" in r.json["error"]["message"]
    assert count(app, "SELECT COUNT(*) FROM photos") == 0


def test_laptop_camera_needs_serve_camera(client):
    t = new_table(client)
    r = client.post(f"/api/tables/{t['id']}/camera", headers={"X-Table-Code": t["code"]})
    assert r.status_code == 404 and "--camera" in r.json["error"]["message"]


# --- errors and the API document ---------------------------------------------------------


def test_unknown_paths_give_json_for_the_api_and_html_for_pages(client):
    r = client.get("/api/tables/999")
    assert r.status_code == 404 and r.json["error"]["message"] == "there is no table 999"
    r = client.get("/t/999")
    assert (
        r.status_code == 404
        and r.mimetype == "text/html"
        and "there is no table 999" in r.get_data(as_text=True)
    )
    assert client.delete("/api/tables").status_code == 405


def test_unexpected_errors_show_no_stack_trace(tmp_path):
    app = create_app(
        {
            "TESTING": False,
            "SECRET_KEY": "t",
            "DATABASE": str(tmp_path / "d.sqlite"),
            "PHOTO_DIR": str(tmp_path / "p"),
        },
        instance_path=str(tmp_path),
    )

    @app.get("/api/crash")
    def crash():
        raise KeyError("secret internals")

    r = app.test_client().get("/api/crash")
    assert r.status_code == 500
    assert "secret internals" not in r.get_data(as_text=True) and "Traceback" not in r.get_data(
        as_text=True
    )
    assert "logged" in r.json["error"]["message"]


def test_openapi_documents_every_api_route(app, client):
    doc = client.get("/api/openapi.json").json
    assert doc["openapi"].startswith("3.")
    documented = {
        (path, m.upper()) for path, ops in doc["paths"].items() for m in ops if m != "parameters"
    }
    served = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = rule.rule.replace("<int:", "{").replace(">", "}")
        for m in rule.methods - {"HEAD", "OPTIONS"}:
            served.add((path, m))
    assert served == documented


def test_status_says_whether_the_detector_runs(client, monkeypatch, tmp_path):
    status = client.get("/api/status").json
    assert status == {"parts": {"detector": {"ok": True, "message": ""}}, "camera": False}
    monkeypatch.setenv("DOMINO_DETECTOR_MODEL", str(tmp_path / "gone.onnx"))
    detector = client.get("/api/status").json["parts"]["detector"]
    assert detector["ok"] is False and "gone.onnx" in detector["message"]


# --- the player's hand and the real layout reader ---------------------------------------------


def test_hand_with_the_photo_gives_moves_and_hint(client, lead_double_detector):
    t = new_table(client)
    sit(client, t)
    r = client.post(
        f"/api/tables/{t['id']}/photos",
        headers={"X-Table-Code": t["code"]},
        data={"photo": (io.BytesIO(JPEG), "p.jpg"), "hand": "6-4, 1-2 3-5"},
        content_type="multipart/form-data",
    )
    assert r.status_code == 201
    p = r.json
    assert p["hand"] == ["4-6", "1-2", "3-5"]
    a = p["analysis"]
    assert a["ok"] and a["legal_moves"] and all("4-6" in m["text"] for m in a["legal_moves"])
    assert a["hint"]["action_json"]["tiles"] == ["4-6"]
    assert a["advice"]["tiles"] == ["4-6"]
    # without a hand the page is told to type it
    url = f"/api/tables/{t['id']}/photos/{p['id']}/hand"
    r = client.put(url, json={"hand": ""}, headers={"X-Table-Code": t["code"]})
    assert r.status_code == 200 and not r.json["analysis"]["legal_moves"]
    assert "Type your hand" in r.json["analysis"]["message"]
    r = client.put(url, json={"hand": ["1-2", "2-6"]}, headers={"X-Table-Code": t["code"]})
    assert [m["json"]["tiles"] for m in r.json["analysis"]["legal_moves"]] == [["2-6"]] * len(
        r.json["analysis"]["legal_moves"]
    )


@pytest.mark.parametrize(
    "hand,needle", [("3-7", "not in a double-6"), ("3-5 5-3", "twice"), ("banana", "bad hand tile")]
)
def test_bad_hand_is_400_and_keeps_the_old_one(client, lead_double_detector, hand, needle):
    t = new_table(client)
    p = upload(client, t, JPEG).json
    hdr = {"X-Table-Code": t["code"]}
    url = f"/api/tables/{t['id']}/photos/{p['id']}/hand"
    sit(client, t)
    assert client.put(url, json={"hand": "1-2"}, headers=hdr).status_code == 200
    r = client.put(url, json={"hand": hand}, headers=hdr)
    assert r.status_code == 400 and needle in r.json["error"]["message"]
    me = {**hdr, "X-Player": str(t["players"][0]["id"])}
    assert client.get(f"/api/tables/{t['id']}/photos/{p['id']}", headers=me).json["hand"] == ["1-2"]
    assert (
        client.get(f"/api/tables/{t['id']}/photos/{p['id']}").json["hand"] == []
    )  # a watcher sees no hand
    assert client.put(url, json={"hand": "1-2"}).status_code == 403


def test_an_older_database_gets_the_new_column(tmp_path):
    db = tmp_path / "old.sqlite"
    conn = sqlite3.connect(db)
    conn.executescript("""CREATE TABLE photos (id INTEGER PRIMARY KEY, table_id INTEGER, filename TEXT,
        width INTEGER, height INTEGER, detections_json TEXT, corrections_json TEXT, analysis_json TEXT,
        elapsed_ms REAL, created TEXT); INSERT INTO photos (id, filename) VALUES (1, 'a.jpg');""")
    conn.close()
    create_app(
        {"SECRET_KEY": "t", "DATABASE": str(db), "PHOTO_DIR": str(tmp_path / "p")},
        instance_path=str(tmp_path),
    )
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT filename, hand_json FROM photos").fetchall() == [("a.jpg", "[]")]
    conn.close()


def test_the_reader_is_told_how_many_play_draw100(client, lead_double_detector):
    t = new_table(client, "draw100", ["A", "B", "C", "D"])
    sit(client, t)
    r = client.post(
        f"/api/tables/{t['id']}/photos",
        headers={"X-Table-Code": t["code"]},
        data={"photo": (io.BytesIO(JPEG), "p.jpg"), "hand": "4-6 1-2"},
        content_type="multipart/form-data",
    )
    text = r.json["analysis"]["state_text"]
    assert "P3" in text and "P4" not in text  # seats 0..3


def test_each_player_keeps_their_own_hand_and_watchers_see_none(app, client, lead_double_detector):
    """Two phones at one draw table: Ana's hand does not overwrite Ben's; each gets moves for
    their own hand; a watcher (no code) gets the table reading without any hand."""
    t = new_table(client)
    ana, ben = (str(p["id"]) for p in t["players"])
    code = {"X-Table-Code": t["code"]}
    sit(client, t, 0)
    ben_phone = app.test_client()
    sit(ben_phone, t, 1)
    p = client.post(
        f"/api/tables/{t['id']}/photos",
        headers={**code, "X-Player": ana},
        data={"photo": (io.BytesIO(JPEG), "p.jpg"), "hand": "6-4 1-2"},
        content_type="multipart/form-data",
    ).json
    assert p["hand"] == ["4-6", "1-2"] and p["player_id"] == int(ana)
    r = ben_phone.put(
        f"/api/tables/{t['id']}/hand", json={"hand": "6-2 3-3"}, headers={**code, "X-Player": ben}
    )
    assert r.status_code == 200 and r.json["hand"] == ["2-6", "3-3"]
    assert {m["json"]["tiles"][0] for m in r.json["photo"]["analysis"]["legal_moves"]} == {"2-6"}
    url = f"/api/tables/{t['id']}/photos/{p['id']}"
    mine = client.get(url, headers={**code, "X-Player": ana}).json
    assert mine["hand"] == ["4-6", "1-2"]
    assert all(m["json"]["tiles"] == ["4-6"] for m in mine["analysis"]["legal_moves"])
    watcher = client.get(url).json
    assert (
        watcher["hand"] == []
        and watcher["player_id"] is None
        and not watcher["analysis"]["legal_moves"]
    )
    other = new_table(client)
    r = client.put(
        f"/api/tables/{t['id']}/hand",
        json={"hand": "1-1"},
        headers={**code, "X-Player": str(other["players"][0]["id"])},
    )
    assert r.status_code == 400 and "does not sit at this table" in r.json["error"]["message"]
