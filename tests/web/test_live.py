"""Live reading on the server: frames in, plays, flags and camera score entries out, the change
feed (long polling), taps, the laptop webcam's feeder, and bad frames.

The frames are a rendered Tableaux game (``vision.render.games.play_game``, engine self-play)
with one illegal tile put down and taken back. The detector is replaced by the renderer's own
labels of each frame (:func:`fake_eyes`; the frame's number is drawn into its corner), so the
endpoint, the decoding, the follower, the score sheet and the feed are real and the test does
not depend on the detector's accuracy.
"""

from __future__ import annotations

import io
import json
import random
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion import db as dbmod
from companion import services
from companion.blueprints import live
from companion.follow import Follower
from engine.tiles import Tile
from vision.render.games import camera_labels, play_game
from vision.render.scene import make_camera
from vision.types import TileDetection

from .conftest import ROOT, new_table

#: Frame size of the test stream, px.
SIZE = (640, 480)
#: Bits of the frame number drawn into the top-left corner (blocks of 16 px).
BITS = 10


def tableaux_stream(seed: int = 2, steps: int = 8, illegal: str = "0-6", bad: str = "2-2"):
    """The first ``steps`` steps of a rendered Tableaux game as ``[("frame", labels) * 3 per
    position | ("tap", kind, seat)]``; before the position showing ``illegal``, the same
    position with that tile replaced by ``bad`` (not a legal play there). Also returns the
    script's Follower arguments."""
    script = play_game("tableaux", random.Random(seed))
    shown = [st for st in script.steps[:steps] if st.kind == "show"]
    cam = make_camera(
        np.random.default_rng(0), shown[-1].placements, SIZE, fill=0.7, rotation_deg=0.0, tilt=0.0
    )

    def labels(placements):
        return camera_labels(cam, placements)

    out: list[tuple] = []
    for st in script.steps[:steps]:
        if st.kind == "tap":
            out.append(("tap", st.tap, st.player))
            continue
        if st.plays == [illegal]:
            wrong = [
                replace(p, tile=Tile.parse(bad)) if str(p.tile) == illegal else p
                for p in st.placements
            ]
            out += [("frame", labels(wrong))] * 3
        out += [("frame", labels(st.placements))] * 3
    return out, dict(script.params)


def expected(stream, params) -> dict:
    """What a Follower makes of the stream by itself: the records and the summary."""
    f = Follower("tableaux", **params)
    recs: list[dict] = []
    for item in stream:
        recs += f.feed(item[1]) if item[0] == "frame" else f.tap(item[1], item[2])
    return {"records": recs, "summary": f.summary()}


def frame_jpeg(index: int, labels: list[TileDetection]) -> bytes:
    """A picture of the labels (white tiles on green) with ``index`` drawn in the corner."""
    img = np.full((SIZE[1], SIZE[0], 3), (40, 110, 40), np.uint8)
    for d in labels:
        cv2.fillPoly(img, [np.round(d.corners).astype(np.int32)], (235, 235, 235))
    for k in range(BITS):
        colour = 255 if (index >> k) & 1 else 0
        img[0:16, 16 * k : 16 * k + 16] = colour
    ok, buf = cv2.imencode(".jpg", img, [int(cv2.IMWRITE_JPEG_QUALITY), 85])
    assert ok
    return buf.tobytes()


def frame_index(image: np.ndarray) -> int:
    """The number :func:`frame_jpeg` drew into ``image``."""
    return sum((1 << k) for k in range(BITS) if image[2:14, 16 * k + 2 : 16 * k + 14].mean() > 127)


def fake_eyes(monkeypatch, frames: list[list[TileDetection]]):
    """Replace ``services.detect``: the renderer's labels of the frame whose number is drawn in
    the picture (everything else of the request stays real)."""
    seen: list[int] = []

    def detect(image, game=None, options=None):
        k = frame_index(image)
        seen.append(k)
        return [d.to_json() for d in frames[k]]

    monkeypatch.setattr(services, "detect", detect)
    return seen


def send_stream(client, tid, code, stream, camera="phone-a") -> list[dict]:
    """Post the stream's frames (and taps) like the page does; every answer's records."""
    frames = [item[1] for item in stream if item[0] == "frame"]
    out: list[dict] = []
    k = 0
    for item in stream:
        if item[0] == "tap":
            body = {"kind": item[1]} | ({"player": item[2]} if item[1] == "player" else {})
            r = client.post(
                f"/api/tables/{tid}/live/tap", json=body, headers={"X-Table-Code": code}
            )
        else:
            r = client.post(
                f"/api/tables/{tid}/live/frames",
                data={"frame": (io.BytesIO(frame_jpeg(k, frames[k])), "f.jpg"), "camera": camera},
                headers={"X-Table-Code": code},
                content_type="multipart/form-data",
            )
            k += 1
        assert r.status_code == 200, r.json
        out += r.json["records"]
    return out


@pytest.fixture()
def game():
    stream, params = tableaux_stream()
    return stream, params, expected(stream, params)


def _strip(recs):
    keep = ("type", "player", "tile", "points", "message")
    return [{k: r.get(k) for k in keep} for r in recs if r["type"] != "stable"]


def test_frames_become_plays_flags_and_camera_score_entries(client, monkeypatch, game):
    stream, params, want = game
    fake_eyes(monkeypatch, [item[1] for item in stream if item[0] == "frame"])
    t = new_table(client, "tableaux", ("Ana", "Ben"))
    got = send_stream(client, t["id"], t["code"], stream)
    assert _strip([r for r in got if r["type"] != "view"]) == _strip(want["records"])
    flags = [r for r in got if r["type"] == "flag"]
    assert len(flags) == 1 and flags[0]["tile"] == "2-2"
    scores = [r for r in got if r["type"] == "score"]
    assert scores and all(r["stored"] for r in scores)
    # the score sheet holds them as ordinary entries from the camera
    table = client.get(f"/api/tables/{t['id']}").json
    seat_of = {p["id"]: p["seat"] for p in table["players"]}
    totals = [0, 0]
    for p in table["players"]:
        totals[p["seat"]] = p["total"]
    assert totals == want["summary"]["scores"]
    assert [r["source"] for r in table["rounds"]] == ["camera"] * len(scores)
    assert [
        (seat_of[int(pid)], pts) for r in table["rounds"] for pid, pts in r["scores"].items()
    ] == [(r["player"], r["points"]) for r in scores]
    # undo works on a camera entry like on any other
    rid = table["rounds"][-1]["id"]
    r = client.post(
        f"/api/tables/{t['id']}/undo", json={"round_id": rid}, headers={"X-Table-Code": t["code"]}
    )
    assert r.status_code == 200 and r.json["rounds"][-1]["undone"]
    assert sum(p["total"] for p in r.json["players"]) == sum(totals) - scores[-1]["points"]


def settle(app, table_id: int) -> None:
    """Wait until the table's frames kept as photos are stored."""
    deadline = time.time() + 20
    with app.app_context():
        while time.time() < deadline and live.hub().get(table_id).photo_busy:
            time.sleep(0.05)


def test_the_feed_carries_every_record_and_other_phones_changes(app, client, monkeypatch, game):
    stream, _, _ = game
    fake_eyes(monkeypatch, [item[1] for item in stream if item[0] == "frame"])
    t = new_table(client, "tableaux", ("Ana", "Ben"))
    got = send_stream(client, t["id"], t["code"], stream)
    feed = client.get(f"/api/tables/{t['id']}/live/events?after=0&wait=0").json
    assert [r["seq"] for r in feed["records"]] == list(range(1, feed["last"] + 1))
    # the frames' records in order; the frames after a change also become the table's photo
    # (stored in the background, announced as "photo" records)
    assert [r["type"] for r in feed["records"] if r["type"] != "photo"] == [r["type"] for r in got]
    assert feed["summary"]["plays"] == sum(r["type"] == "play" for r in got)
    settle(app, t["id"])
    feed = client.get(f"/api/tables/{t['id']}/live/events?after=0&wait=0").json
    photos = [r["photo_id"] for r in feed["records"] if r["type"] == "photo"]
    assert photos
    photo = client.get(f"/api/tables/{t['id']}/photos/{photos[-1]}").json
    assert len(photo["tiles"]) >= 2 and (photo["width"], photo["height"]) == SIZE
    # a phone that is up to date waits; a score typed on another phone wakes it at once
    ana = t["players"][0]["id"]
    answer: dict = {}

    def wait():
        t0 = time.perf_counter()
        answer["feed"] = client.get(f"/api/tables/{t['id']}/live/events?after={feed['last']}").json
        answer["s"] = time.perf_counter() - t0

    settle(app, t["id"])  # the last photo is stored and announced
    feed = client.get(f"/api/tables/{t['id']}/live/events?after=0&wait=0").json
    th = threading.Thread(target=wait)
    th.start()
    time.sleep(0.3)
    r = client.post(
        f"/api/tables/{t['id']}/rounds",
        json={"scores": {str(ana): 5}, "kind": "play"},
        headers={"X-Table-Code": t["code"]},
    )
    assert r.status_code == 201
    th.join(10)
    recs = answer["feed"]["records"]
    assert [r["type"] for r in recs] == ["table"]
    assert recs[0]["table"]["rounds"][-1]["source"] == "hand"
    assert 0.25 < answer["s"] < 3.0
    # nothing new: the wait ends after the time asked for, empty
    quiet = client.get(f"/api/tables/{t['id']}/live/events?after={recs[0]['seq']}&wait=1").json
    assert quiet["records"] == [] and quiet["last"] == recs[0]["seq"]


def test_taps_score_a_pass_and_refuse_nonsense(client):
    t = new_table(client, "tableaux", ("Ana", "Ben"))
    h = {"X-Table-Code": t["code"]}
    url = f"/api/tables/{t['id']}/live/tap"
    r = client.post(url, json={"kind": "player", "player": 1}, headers=h)
    assert r.status_code == 200 and r.json["records"][0] == r.json["records"][0] | {
        "type": "turn",
        "player": 1,
    }
    r = client.post(url, json={"kind": "pass"}, headers=h)
    assert r.status_code == 200
    score = [x for x in r.json["records"] if x["type"] == "score"]
    assert [(x["player"], x["points"]) for x in score] == [(1, -3)]
    table = client.get(f"/api/tables/{t['id']}").json
    assert [(p["name"], p["total"]) for p in table["players"]] == [("Ana", 0), ("Ben", -3)]
    assert table["rounds"][-1]["kind"] == "pass" and table["rounds"][-1]["source"] == "camera"
    for body in ({"kind": "jump"}, {"kind": "player", "player": 7}, {"kind": "player"}, []):
        assert client.post(url, json=body, headers=h).status_code == 400
    assert client.post(url, json={"kind": "pass"}).status_code == 403
    # the draw game has no "done"
    d = new_table(client, "draw100", ("Ana", "Ben", "Cleo"))
    r = client.post(
        f"/api/tables/{d['id']}/live/tap",
        json={"kind": "done"},
        headers={"X-Table-Code": d["code"]},
    )
    assert r.status_code == 400 and "done" in r.json["error"]["message"]


def test_a_retried_tap_with_its_idempotency_key_is_taken_once(client):
    t = new_table(client, "tableaux", ("Ana", "Ben"))
    url = f"/api/tables/{t['id']}/live/tap"
    h = {"X-Table-Code": t["code"]}
    assert client.post(url, json={"kind": "player", "player": 1}, headers=h).status_code == 200
    keyed = {**h, "Idempotency-Key": "tap-0001-abcdef"}
    first = client.post(url, json={"kind": "pass"}, headers=keyed)
    again = client.post(url, json={"kind": "pass"}, headers=keyed)
    assert first.status_code == again.status_code == 200
    assert again.json["repeated"] and again.json["records"] == []
    assert again.json["last"] == first.json["last"]
    table = client.get(f"/api/tables/{t['id']}").json
    assert [p["total"] for p in table["players"]] == [0, -3]  # one pass, not two
    feed = client.get(f"/api/tables/{t['id']}/live/events?after=0&wait=0").json
    assert sum(r["type"] == "score" for r in feed["records"]) == 1
    # a new key is a new tap; a key used for a score entry is a conflict
    r = client.post(url, json={"kind": "pass"}, headers={**h, "Idempotency-Key": "tap-0002-abcdef"})
    assert r.status_code == 200 and not r.json.get("repeated")
    r = client.post(
        f"/api/tables/{t['id']}/rounds",
        json={"scores": {str(t["players"][0]["id"]): 1}, "kind": "play"},
        headers=keyed,
    )
    assert r.status_code == 409


def _post(client, tid, code, data: bytes, camera="phone-a"):
    return client.post(
        f"/api/tables/{tid}/live/frames",
        data={"frame": (io.BytesIO(data), "f.jpg"), "camera": camera},
        headers={"X-Table-Code": code} if code else {},
        content_type="multipart/form-data",
    )


def test_bad_frames_are_refused_with_a_clear_message(client, monkeypatch):
    frames = [[]]
    fake_eyes(monkeypatch, frames)
    t = new_table(client, "tableaux", ("Ana", "Ben"))
    good = frame_jpeg(0, [])
    assert _post(client, t["id"], None, good).status_code == 403
    assert _post(client, t["id"], "WRONG1", good).status_code == 403
    r = _post(client, t["id"], t["code"], b"not an image at all")
    assert r.status_code == 400 and "JPEG" in r.json["error"]["message"]
    r = _post(client, t["id"], t["code"], good[: len(good) // 2])
    assert r.status_code == 400
    # a header declaring 4000 x 3000 pixels: refused before decoding
    big = cv2.imencode(".jpg", np.zeros((8, 8, 3), np.uint8))[1].tobytes()
    i = big.index(b"\xff\xc0") + 5
    big = big[:i] + (3000).to_bytes(2, "big") + (4000).to_bytes(2, "big") + big[i + 4 :]
    r = _post(client, t["id"], t["code"], big)
    assert r.status_code == 413 and "megapixels" in r.json["error"]["message"]
    r = client.post(
        f"/api/tables/{t['id']}/live/frames",
        data={"camera": "x"},
        headers={"X-Table-Code": t["code"]},
        content_type="multipart/form-data",
    )
    assert r.status_code == 400
    assert _post(client, t["id"], t["code"], good, camera="bad id!").status_code == 400
    # one camera at a time: a second phone's frames are refused while the first films
    assert _post(client, t["id"], t["code"], good).status_code == 200
    r = _post(client, t["id"], t["code"], good, camera="phone-b")
    assert r.status_code == 409 and "another phone" in r.json["error"]["message"]
    # The Big Clock is followed too (the tile that appears on a pile is the drawn one)
    b = new_table(client, "big-clock", ("You",))
    r = _post(client, b["id"], b["code"], good)
    assert r.status_code == 200 and r.json["summary"]["game"] == "big-clock"
    assert client.get(f"/api/tables/{t['id']}/live/events?after=-1").status_code == 400
    assert client.get("/api/tables/999/live/events").status_code == 404


def test_too_many_waiting_phones_are_told_to_come_back(app, client):
    t = new_table(client, "draw100", ("Ana", "Ben"))
    with app.app_context():
        live.hub().max_waiters = 0
    r = client.get(f"/api/tables/{t['id']}/live/events?after=0&wait=5")
    assert r.status_code == 200 and r.json["retry_ms"] == 1000 and r.json["records"] == []


def test_a_deleted_table_wakes_its_phones_and_forgets_the_follower(app, client, monkeypatch):
    fake_eyes(monkeypatch, [[]])
    t = new_table(client, "tableaux", ("Ana", "Ben"))
    assert _post(client, t["id"], t["code"], frame_jpeg(0, [])).status_code == 200
    with app.app_context():
        assert live.hub().get(t["id"]) is not None
    r = client.delete(f"/api/tables/{t['id']}", headers={"X-Table-Code": t["code"]})
    assert r.status_code == 200
    with app.app_context():
        assert live.hub().get(t["id"]) is None


class FakeCapture:
    """``cv2.VideoCapture`` stand-in giving the stream's pictures, then nothing."""

    def __init__(self, pictures, opened=True):
        self.pictures = list(pictures)
        self.opened = opened
        self.released = False

    def isOpened(self):  # noqa: N802 - OpenCV's name
        return self.opened

    def read(self):
        if not self.pictures:
            return False, None
        return True, self.pictures.pop(0)

    def release(self):
        self.released = True


def test_laptop_camera_feeds_a_table_and_a_missing_one_is_a_message(
    app, client, monkeypatch, game, capsys
):
    from companion.commands.serve import start_laptop_camera

    stream, _, want = game
    frames = [item[1] for item in stream if item[0] == "frame"]
    seen = fake_eyes(monkeypatch, frames)
    taps_free = [item for item in stream if item[0] == "frame"]
    pictures = [
        cv2.imdecode(np.frombuffer(frame_jpeg(k, f[1]), np.uint8), cv2.IMREAD_COLOR)
        for k, f in enumerate(taps_free)
    ]
    app.config["LIVE_KEEP_PHOTOS"] = False  # only the feeder's frames are read
    # no camera: the server runs on, with a clear message
    app.config["CAMERA_INDEX"] = 3
    assert not start_laptop_camera(app, 3, capture=lambda i: FakeCapture([], opened=False))
    assert "Laptop camera 3 cannot be opened" in capsys.readouterr().out
    assert app.config["CAMERA_INDEX"] is None
    t = new_table(client, "tableaux", ("Ana", "Ben"))
    r = client.post(
        f"/api/tables/{t['id']}/live/laptop", json={"on": True}, headers={"X-Table-Code": t["code"]}
    )
    assert r.status_code == 404
    # a camera: it follows the table asked for
    cams: list[FakeCapture] = []

    def capture(i):
        cams.append(FakeCapture(pictures if len(cams) == 1 else []))
        return cams[-1]

    assert start_laptop_camera(app, 0, capture=capture)
    try:
        r = client.post(
            f"/api/tables/{t['id']}/live/laptop",
            json={"on": True},
            headers={"X-Table-Code": t["code"]},
        )
        assert r.status_code == 200 and r.json["on"]
        r = client.post(
            f"/api/tables/{t['id']}/live/laptop",
            json={"on": "no"},
            headers={"X-Table-Code": t["code"]},
        )
        assert r.status_code == 400
        deadline = time.time() + 20
        feeder = app.extensions["camera"]
        while feeder.table_id is not None and time.time() < deadline:
            time.sleep(0.05)
        assert seen == list(range(len(pictures)))  # every picture read, in order
        assert "gives no picture" in (feeder.error or "")
        feed = client.get(f"/api/tables/{t['id']}/live/events?after=0&wait=0").json
        plays = [r["tile"] for r in feed["records"] if r["type"] == "play"]
        assert plays == [r["tile"] for r in want["records"] if r["type"] == "play" and r["tile"]]
        assert feed["records"][-1]["type"] == "note"
        assert all(c.released for c in cams)
    finally:
        app.extensions["camera"].stop()


def test_old_databases_take_camera_entries(tmp_path):
    old = (
        (ROOT / "companion" / "schema.sql")
        .read_text()
        .replace(
            "CHECK (source IN ('hand', 'photo', 'camera'))", "CHECK (source IN ('hand', 'photo'))"
        )
    )
    conn = dbmod.connect(str(tmp_path / "old.sqlite"))
    conn.executescript(old)
    conn.execute("INSERT INTO tables (code, game, target) VALUES ('ABCDEF', 'draw100', 100)")
    conn.execute("INSERT INTO players (table_id, seat, name) VALUES (1, 0, 'Ana')")
    conn.execute("INSERT INTO rounds (table_id, number, kind) VALUES (1, 1, 'domino')")
    conn.execute("INSERT INTO score_events (round_id, player_id, points) VALUES (1, 1, 12)")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute(
            "INSERT INTO rounds (table_id, number, kind, source) VALUES (1, 2, 'x', 'camera')"
        )
    dbmod.init_schema(conn)
    conn.execute(
        "INSERT INTO rounds (table_id, number, kind, source) VALUES (1, 2, 'domino', 'camera')"
    )
    assert [tuple(r) for r in conn.execute("SELECT round_id, points FROM score_events")] == [
        (1, 12)
    ]
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert conn.execute("SELECT COUNT(*) FROM rounds").fetchone()[0] == 2
    dbmod.init_schema(conn)  # once more: nothing to do
    assert conn.execute("SELECT COUNT(*) FROM rounds").fetchone()[0] == 2


def test_a_draw_game_hand_scored_from_the_shown_hands_is_a_camera_entry(client, monkeypatch):
    """The first hand of a rendered two-player draw game, to the hands shown and the table
    cleared: the hand's points (RULES.md section 4) are stored as the engine scored them."""
    script = play_game("draw100", random.Random(4), players=2)
    end = next(i for i, st in enumerate(script.steps) if st.kind == "show" and not st.placements)
    steps = script.steps[: end + 1]
    widest = max((st for st in steps if st.kind == "show"), key=lambda st: len(st.placements))
    cam = make_camera(
        np.random.default_rng(0), widest.placements, SIZE, fill=0.8, rotation_deg=0.0, tilt=0.0
    )
    stream: list[tuple] = []
    for st in steps:
        if st.kind == "tap":
            stream.append(("tap", st.tap, st.player))
        else:
            stream += [("frame", camera_labels(cam, st.placements))] * 3
    fake_eyes(monkeypatch, [item[1] for item in stream if item[0] == "frame"])
    t = new_table(client, "draw100", ("Ana", "Ben"))
    got = send_stream(client, t["id"], t["code"], stream)
    kind, winner, points = script.final["hands"][0]
    scored = [r for r in got if r["type"] == "hand_scored"]
    assert [(r["kind"], r["winner"], r["points"]) for r in scored] == [(kind, winner, points)]
    table = client.get(f"/api/tables/{t['id']}").json
    assert [(r["kind"], r["source"]) for r in table["rounds"]] == [(kind, "camera")]
    assert [p["total"] for p in table["players"]] == [
        points if seat == winner else 0 for seat in range(2)
    ]


def test_serve_keeps_threads_free_for_frames_while_phones_wait(tmp_path):
    """A real ``serve`` (waitress, 6 threads: 2 may wait on the feed) with a webcam index that
    does not exist: it says so and serves; two phones wait, a third is told to come back, a score
    entry is answered at once and wakes the two."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.commands.serve", "--local", "--no-https", "--no-demo"]
        + ["--port", str(port), "--instance", str(tmp_path), "--threads", "6", "--camera", "99"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )

    def call(method, path, body=None, headers=None, timeout=30):
        req = urllib.request.Request(
            base + path,
            data=None if body is None else json.dumps(body).encode(),
            method=method,
            headers={"Content-Type": "application/json", **(headers or {})},
        )
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.load(r)

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                call("GET", "/api/status", timeout=2)
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "serve did not start"
                time.sleep(0.3)
        t = call("POST", "/api/tables", {"game": "tableaux", "players": ["Ana", "Ben"]})
        answers: list[dict] = []
        waiting = [
            threading.Thread(
                target=lambda: answers.append(
                    call("GET", f"/api/tables/{t['id']}/live/events?after=0")
                )
            )
            for _ in range(2)
        ]
        for th in waiting:
            th.start()
        time.sleep(1.0)
        third = call("GET", f"/api/tables/{t['id']}/live/events?after=0&wait=5", timeout=3)
        assert third["retry_ms"] == 1000
        t0 = time.perf_counter()
        call(
            "POST",
            f"/api/tables/{t['id']}/rounds",
            {"scores": {str(t["players"][0]["id"]): 4}, "kind": "play"},
            {"X-Table-Code": t["code"]},
        )
        assert time.perf_counter() - t0 < 5
        for th in waiting:
            th.join(10)
        assert [[r["type"] for r in a["records"]] for a in answers] == [["table"], ["table"]]
    finally:
        proc.terminate()
        out = proc.communicate(timeout=10)[0]
    assert "Laptop camera 99 cannot be opened" in out


def solitaire_stream(seed: int = 3):
    """A whole rendered game of the first solitaire followed live (``engine.GAMES`` traits):
    its name, its ``TableScript`` and ``[("frame", labels) * 3 per position]``."""
    from companion.follow import FOLLOW_GAMES
    from engine import GAMES

    game = next(g for g in FOLLOW_GAMES if not GAMES[g].scored)
    script = play_game(game, random.Random(seed))
    shown = [st for st in script.steps if st.kind == "show"]
    cam = make_camera(
        np.random.default_rng(0), shown[0].placements, SIZE, fill=0.8, rotation_deg=0.0, tilt=0.0
    )
    return (
        game,
        script,
        [("frame", camera_labels(cam, st.placements)) for st in shown for _ in range(3)],
    )


def test_a_solitaire_result_is_a_stored_camera_entry_that_undo_removes(
    app, client, monkeypatch, tmp_path
):
    """A rendered solitaire played to its end: the result (won or lost, tiles removed and left)
    is an entry of the table's history from the camera, kept over a server restart, reaching
    the feed, and undone like any entry."""
    from companion.app import create_app

    game, script, stream = solitaire_stream()
    fake_eyes(monkeypatch, [item[1] for item in stream])
    app.config["LIVE_KEEP_PHOTOS"] = False
    extra = {"max_pip": script.params["max_pip"]} if script.params.get("max_pip") else {}
    t = new_table(client, game, ["Me"], **extra)
    got = send_stream(client, t["id"], t["code"], stream)
    results = [r for r in got if r["type"] == "result"]
    won, removed = script.final["won"], script.final["removed"]
    assert [(r["won"], r["removed"], r["stored"]) for r in results] == [(won, removed, True)]
    left = results[0]["left"]
    assert left == next(r for r in reversed(got) if r["type"] == "progress")["left"]
    assert results[0]["table"]["rounds"][-1]["id"] == results[0]["round_id"]
    # the feed carries it with the table after it, for the other phones
    feed = client.get(f"/api/tables/{t['id']}/live/events?after=0&wait=0").json["records"]
    assert [r["round_id"] for r in feed if r["type"] == "result"] == [results[0]["round_id"]]

    # a new server on the same instance folder still has it
    again = create_app(dict(app.config), instance_path=app.instance_path).test_client()
    table = again.get(f"/api/tables/{t['id']}").json
    entry = {
        "kind": "won" if won else "lost",
        "source": "camera",
        "note": f"{removed} removed, {left} left",
        "undone": False,
    }
    assert [{k: r[k] for k in entry} for r in table["rounds"]] == [entry]
    r = again.post(
        f"/api/tables/{t['id']}/undo",
        json={"round_id": table["rounds"][0]["id"]},
        headers={"X-Table-Code": t["code"]},
    )
    assert r.status_code == 200 and [x["undone"] for x in r.json["rounds"]] == [True]
    r = again.post(
        f"/api/tables/{t['id']}/undo",
        json={"round_id": table["rounds"][0]["id"]},
        headers={"X-Table-Code": t["code"]},
    )
    assert r.status_code == 409


def test_the_big_clock_live_card_offers_its_two_taps(client):
    """The clock's live card has the set-aside and give-up taps (what the camera cannot see)
    and no seat picker; a scored game's card has Pass and the seat picker instead."""
    t = new_table(client, "big-clock", ("Ana",))
    client.get(f"/join/{t['code']}")
    page = client.get(f"/t/{t['id']}").get_data(as_text=True)
    assert 'id="live-card"' in page
    assert 'id="live-pass">Drawn tile set aside<' in page and 'id="live-done">Give up<' in page
    assert 'id="live-turn"' not in page
    d = new_table(client, "draw100", ("Ana", "Ben"))
    client.get(f"/join/{d['code']}")
    page = client.get(f"/t/{d['id']}").get_data(as_text=True)
    assert 'id="live-pass">Pass<' in page and 'id="live-turn"' in page
    assert "Give up" not in page
    # the draw game's hand-over tap, and a seat picker that says "not known yet" until the
    # follower knows (it does not claim the first seat)
    assert 'id="live-done">Hand over<' in page
    assert '<option value="" disabled selected>who?</option>' in page


def _live_summary(client, tid) -> dict:
    r = client.get(f"/api/tables/{tid}/live/events?after=0&wait=0")
    assert r.status_code == 200
    return r.json["summary"]


def test_the_follower_takes_the_sheet_after_an_entry_is_typed_or_undone(client):
    """The score sheet is what counts: an undone camera score leaves the follower's tally, a
    typed entry that ends the game stops the following, and undoing it reopens the game for
    the camera too."""
    t = new_table(client, "tableaux", ("Ana", "Ben"))
    tid, h = t["id"], {"X-Table-Code": t["code"]}
    r = client.post(f"/api/tables/{tid}/live/tap", json={"kind": "pass"}, headers=h)
    assert r.status_code == 200 and r.json["summary"]["scores"] == [-3, 0]
    camera_entry = r.json["records"][-1]["round_id"]
    r = client.post(f"/api/tables/{tid}/undo", json={"round_id": camera_entry}, headers=h)
    assert r.status_code == 200
    assert _live_summary(client, tid)["scores"] == [0, 0]
    # the next pass (Ben is to move now) counts from the sheet's totals, not twice
    r = client.post(f"/api/tables/{tid}/live/tap", json={"kind": "pass"}, headers=h)
    assert r.json["summary"]["scores"] == [0, -3]

    d = new_table(client, "draw100", ("Ana", "Ben", "Cleo"))
    did, dh = d["id"], {"X-Table-Code": d["code"]}
    assert (
        client.post(
            f"/api/tables/{did}/live/tap", json={"kind": "player", "player": 2}, headers=dh
        ).status_code
        == 200
    )
    ana = d["players"][0]["id"]
    r = client.post(
        f"/api/tables/{did}/rounds", json={"scores": {ana: 105}, "kind": "domino"}, headers=dh
    )
    assert r.status_code == 201 and r.json["status"] == "finished"
    s = _live_summary(client, did)
    assert (s["scores"], s["over"], s["winner"]) == ([105, 0, 0], True, 0)
    last = r.json["rounds"][-1]["id"]
    assert (
        client.post(f"/api/tables/{did}/undo", json={"round_id": last}, headers=dh).status_code
        == 200
    )
    s = _live_summary(client, did)
    assert (s["scores"], s["over"], s["winner"]) == ([0, 0, 0], False, None)


def test_joining_a_draw_game_in_progress_asks_who_is_to_move(client, monkeypatch):
    """The live endpoint does not assume seat 0 when the first view shows a hand in progress:
    it asks, holds the plays, and credits them from the seat tapped. Photos sent with
    ``still=1`` are each one view."""
    from vision.render.real_layouts import VINTAGE

    by_tile = {Tile(*d.pips): d for d in VINTAGE.detections()}
    order = [Tile(*p) for p in ((5, 5), (2, 5), (4, 5), (3, 5), (4, 4), (3, 3))]
    frames = [[by_tile[t] for t in order[:k]] for k in (5, 6)]
    fake_eyes(monkeypatch, frames)
    t = new_table(client, "draw100", ("Ana", "Ben", "Cleo"))
    r = client.post(
        f"/api/tables/{t['id']}/live/frames",
        data={"frame": (io.BytesIO(frame_jpeg(0, frames[0])), "f.jpg"), "still": "1"},
        headers={"X-Table-Code": t["code"]},
        content_type="multipart/form-data",
    )
    assert r.status_code == 200
    assert [x for x in r.json["records"] if x.get("ask") == "player"]
    assert r.json["summary"]["player"] is None
    r = client.post(
        f"/api/tables/{t['id']}/live/frames",
        data={"frame": (io.BytesIO(frame_jpeg(1, frames[1])), "f.jpg"), "still": "1"},
        headers={"X-Table-Code": t["code"]},
        content_type="multipart/form-data",
    )
    assert not [x for x in r.json["records"] if x["type"] == "play"]
    r = client.post(
        f"/api/tables/{t['id']}/live/tap",
        json={"kind": "player", "player": 2},
        headers={"X-Table-Code": t["code"]},
    )
    assert [(x["player"], x["tile"]) for x in r.json["records"] if x["type"] == "play"] == [
        (2, "3-3")
    ]
    bad = client.post(
        f"/api/tables/{t['id']}/live/frames",
        data={"frame": (io.BytesIO(frame_jpeg(1, frames[1])), "f.jpg"), "still": "yes"},
        headers={"X-Table-Code": t["code"]},
        content_type="multipart/form-data",
    )
    assert bad.status_code == 400 and "still" in bad.json["error"]["message"]
