"""The companion under hostile or clumsy use: bad input is 4xx with a message (never a 500),
two phones writing at once keep both changes, retries store nothing twice, a crash leaves no
orphan file, a busy database is 503, and the browser-facing protections are in place."""

from __future__ import annotations

import io
import os
import sqlite3
import stat
import threading
from pathlib import Path

import pytest

from companion.app import create_app

from .conftest import SAMPLES, new_table, sit
from .test_api import count, form_token, photo_files, round_, upload

JPEG = (SAMPLES / "IMG_0350.jpg").read_bytes()


def raw_json(client, method, url, text, code=None):
    headers = {"Content-Type": "application/json"}
    if code:
        headers["X-Table-Code"] = code
    return client.open(url, method=method, data=text, headers=headers)


def assert_clear_4xx(r, status=None):
    assert 400 <= r.status_code < 500, (r.status_code, r.get_data(as_text=True)[:300])
    if status is not None:
        assert r.status_code == status, r.get_data(as_text=True)[:300]
    body = r.get_data(as_text=True)
    assert "Traceback" not in body
    if r.mimetype == "application/json":
        assert r.json["error"]["status"] == r.status_code and r.json["error"]["message"]


# --- bad input: 4xx, never 500 ----------------------------------------------------------------


@pytest.mark.parametrize(
    "code", ["ÄÖÜ²³", "\u0661\u0662\u0663", "😀" * 10, "A" * 5000, "\x00\x01", "AB CD-EF"]
)
def test_odd_table_codes_in_the_header_are_403(client, app, code):
    t = new_table(client)
    r = client.post(
        f"/api/tables/{t['id']}/rounds",
        json={"scores": {t["players"][0]["id"]: 1}, "kind": "domino"},
        headers={"X-Table-Code": code.encode("utf-8").decode("latin-1")},
    )
    assert_clear_4xx(r, 403)
    assert count(app, "SELECT COUNT(*) FROM rounds") == 0


@pytest.mark.parametrize("code", [123456, True, None, ["ABCDEF"], {"a": 1}, 1e400])
def test_table_codes_that_are_not_strings_are_403(client, code):
    t = new_table(client)
    r = client.post(
        f"/api/tables/{t['id']}/rounds",
        json={"scores": {t["players"][0]["id"]: 1}, "kind": "domino", "code": code},
    )
    assert_clear_4xx(r, 403)


@pytest.mark.parametrize(
    "value",
    [
        "Infinity",
        "-Infinity",
        "NaN",
        "1e400",
        "-1e400",
        "1" * 400,
        "1.5",
        "true",
        '"12"',
        "[1]",
        "{}",
    ],
)
def test_odd_numbers_in_points_and_ids_are_400(client, app, value):
    t = new_table(client)
    pid = t["players"][0]["id"]
    url = f"/api/tables/{t['id']}/rounds"
    for body in (
        f'{{"scores": {{"{pid}": {value}}}, "kind": "domino"}}',
        f'{{"scores": {{"{pid}": 5}}, "kind": "domino", "photo_id": {value}}}',
    ):
        r = raw_json(client, "POST", url, body, t["code"])
        if value == '"12"' and r.status_code == 201:  # a digit string is a number people typed
            continue
        assert_clear_4xx(r, 400)
    r = raw_json(
        client, "POST", f"/api/tables/{t['id']}/undo", f'{{"round_id": {value}}}', t["code"]
    )
    assert_clear_4xx(r)
    assert count(app, "SELECT COUNT(*) FROM rounds WHERE undone = 1") == 0


@pytest.mark.parametrize(
    "path",
    [
        "/api/tables/{big}",
        "/api/tables/{big}/rounds",
        "/api/tables/{big}/photos",
        "/api/tables/1/photos/{big}",
        "/api/tables/1/photos/{big}/image",
        "/t/{big}",
        "/api/tables/{big}/qr.svg",
    ],
)
def test_twenty_digit_ids_are_404(client, path):
    new_table(client)
    r = client.get(path.format(big="9" * 20))
    assert_clear_4xx(r, 404)


@pytest.mark.parametrize(
    "hand",
    [
        5,
        True,
        1e400,
        {"a": 1},
        [[1, 2, 3]],
        [True, 1],
        ["x" * 5000],
        ["1-2"] * 31,
        "1-2 " * 400,
        [[10**30, 1]],
    ],
)
def test_hands_of_the_wrong_kind_are_400(client, fake_detector, hand):
    t = new_table(client)
    p = upload(client, t, JPEG).json
    r = client.put(
        f"/api/tables/{t['id']}/photos/{p['id']}/hand",
        json={"hand": hand},
        headers={"X-Table-Code": t["code"]},
    )
    assert_clear_4xx(r, 400)


@pytest.mark.parametrize("depth", [33, 1000, 50_000])
def test_deeply_nested_json_is_400(client, app, depth):
    t = new_table(client)
    for text in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
        status = (
            400 if len(text) <= 256 * 1024 else 413
        )  # the 300 kB object form is over the body limit
        r = raw_json(client, "POST", "/api/tables", text)
        assert_clear_4xx(r, status)
        r = raw_json(client, "POST", f"/api/tables/{t['id']}/rounds", text, t["code"])
        assert_clear_4xx(r, status)
    assert count(app, "SELECT COUNT(*) FROM tables") == 1


def test_json_nested_a_little_is_fine(client):
    r = client.post("/api/tables", json={"game": "draw100", "players": ["A", "B"], "x": [[[[1]]]]})
    assert r.status_code == 201


@pytest.mark.parametrize(
    "field,value",
    [
        ("max_pip", "²"),
        ("max_pip", "٩٩"),
        ("max_pip", "1e400"),
        ("target", "²"),
        ("target", "Infinity"),
        ("game", "\u00ff"),
        ("max_pip", "9" * 5000),
    ],
)
def test_odd_start_form_values_are_400(client, app, field, value):
    form = {
        "game": "tableaux",
        "max_pip": "6",
        "players": "Ana\nBen",
        "target": "",
        "csrf_token": form_token(client),
    }
    form[field] = value
    r = client.post("/tables", data=form)
    assert_clear_4xx(r, 400)
    assert r.mimetype == "text/html"
    assert count(app, "SELECT COUNT(*) FROM tables") == 0


def test_invalid_utf8_in_the_start_form_is_kept_escaped(client, app):
    body = b"game=draw100&players=%ED%A0%80Ana%0A%FFBen&csrf_token=" + form_token(client).encode()
    r = client.post("/tables", data=body, content_type="application/x-www-form-urlencoded")
    assert r.status_code == 302
    conn = sqlite3.connect(app.config["DATABASE"])
    names = [n for (n,) in conn.execute("SELECT name FROM players ORDER BY seat")]
    conn.close()
    assert names == ["%ED%A0%80Ana", "%FFBen"]  # Werkzeug keeps undecodable bytes percent-escaped


def test_names_with_control_characters_and_surrogates_are_cleaned(client):
    r = client.post(
        "/api/tables",
        data='{"game": "draw100", "players": ["A\\u0000n\\u0007a", "\\ud800Ben"]}',
        content_type="application/json",
    )
    assert r.status_code == 201 and [p["name"] for p in r.json["players"]] == ["Ana", "Ben"]


# --- two phones at once -----------------------------------------------------------------------


def test_two_phones_fixing_two_tiles_at_once_both_fixes_are_kept(app, fake_detector):
    """50 tries: two clients fix tiles 0 and 1 of the same photo at the same moment."""
    owner = app.test_client()
    t = new_table(owner)
    hdr = {"X-Table-Code": t["code"]}
    phones = [app.test_client(), app.test_client()]
    lost = 0
    for _attempt in range(50):
        p = upload(owner, t, JPEG).json
        barrier = threading.Barrier(2)
        answers = [None, None]

        def fix(i: int) -> None:
            barrier.wait()
            url = f"/api/tables/{t['id']}/photos/{p['id']}/tiles/{i}"
            answers[i] = phones[i].put(url, json={"pips": [i, 4]}, headers=hdr).status_code

        threads = [threading.Thread(target=fix, args=(i,)) for i in range(2)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert answers == [200, 200]
        got = owner.get(f"/api/tables/{t['id']}/photos/{p['id']}", headers=hdr).json
        lost += got["corrections"] != {"0": [0, 4], "1": [1, 4]}
    assert lost == 0


def test_a_hand_and_a_fix_sent_at_once_are_both_kept(app, fake_detector):
    """20 tries: one phone sets the hand while another fixes a tile of the same photo."""
    owner = app.test_client()
    t = new_table(owner)
    hdr = {"X-Table-Code": t["code"]}
    phones = [app.test_client(), app.test_client()]
    sit(phones[0], t)  # the phone that sets its hand holds Ana's seat
    for attempt in range(20):
        p = upload(owner, t, JPEG).json
        base = f"/api/tables/{t['id']}/photos/{p['id']}"
        barrier = threading.Barrier(2)
        answers = [None, None]

        def send(i: int) -> None:
            barrier.wait()
            if i == 0:
                answers[0] = (
                    phones[0].put(base + "/hand", json={"hand": "1-2 3-4"}, headers=hdr).status_code
                )
            else:
                answers[1] = (
                    phones[1].put(base + "/tiles/2", json={"pips": [6, 6]}, headers=hdr).status_code
                )

        threads = [threading.Thread(target=send, args=(i,)) for i in range(2)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        got = (
            phones[0]
            .get(
                f"/api/tables/{t['id']}/photos/{p['id']}",
                headers={**hdr, "X-Player": str(t["players"][0]["id"])},
            )
            .json
        )
        assert answers == [200, 200]
        assert got["hand"] == ["1-2", "3-4"] and got["corrections"] == {"2": [6, 6]}, attempt


def test_a_stale_page_cannot_undo_a_newer_entry(client, app):
    t = new_table(client)
    a, b = (p["id"] for p in t["players"])
    first = round_(client, t, {a: 10}).json["rounds"][-1]["id"]
    second = round_(client, t, {b: 20}).json["rounds"][-1]["id"]  # recorded by the other phone
    url, hdr = f"/api/tables/{t['id']}/undo", {"X-Table-Code": t["code"]}
    r = client.post(url, json={"round_id": first}, headers=hdr)
    assert r.status_code == 409 and "reload" in r.json["error"]["message"]
    assert client.post(url, json={}, headers=hdr).status_code == 400
    assert client.post(url, json={"round_id": 99999}, headers=hdr).status_code == 404
    assert client.post(url, json={"round_id": second}, headers=hdr).status_code == 200
    r = client.post(url, json={"round_id": second}, headers=hdr)
    assert r.status_code == 409 and "undone already" in r.json["error"]["message"]
    assert [p["total"] for p in client.get(f"/api/tables/{t['id']}").json["players"]] == [10, 0]


# --- retries, crashes, a busy database ------------------------------------------------------------


def test_a_retried_score_entry_is_answered_with_the_first_result(client, app):
    t = new_table(client)
    pid = t["players"][0]["id"]
    hdr = {"X-Table-Code": t["code"], "Idempotency-Key": "entry-0001-abcdef"}
    url = f"/api/tables/{t['id']}/rounds"
    first = client.post(url, json={"scores": {pid: 7}, "kind": "domino"}, headers=hdr)
    again = client.post(url, json={"scores": {pid: 7}, "kind": "domino"}, headers=hdr)
    assert first.status_code == again.status_code == 201 and first.json == again.json
    assert count(app, "SELECT COUNT(*) FROM rounds") == 1
    assert client.get(f"/api/tables/{t['id']}").json["players"][0]["total"] == 7
    # a new key is a new entry; a malformed key is refused; a key reused on photos is a conflict
    assert (
        client.post(
            url,
            json={"scores": {pid: 7}, "kind": "domino"},
            headers={**hdr, "Idempotency-Key": "entry-0002-abcdef"},
        ).status_code
        == 201
    )
    r = client.post(
        url, json={"scores": {pid: 7}, "kind": "domino"}, headers={**hdr, "Idempotency-Key": "x y"}
    )
    assert_clear_4xx(r, 400)
    r = client.post(
        f"/api/tables/{t['id']}/photos",
        headers=hdr,
        data={"photo": (io.BytesIO(JPEG), "p.jpg")},
        content_type="multipart/form-data",
    )
    assert_clear_4xx(r, 409)
    assert count(app, "SELECT COUNT(*) FROM rounds") == 2


def database_bytes(app) -> int:
    """The database's size on disk (after moving the WAL into the main file), bytes."""
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return sum(p.stat().st_size for p in Path(app.config["DATABASE"]).parent.glob("*.sqlite*"))


def test_300_keyed_score_entries_keep_the_database_small_and_old_keys_expire(client, app):
    """An idempotency record keeps the id of the round it made, not the table's JSON (which
    grows with every entry: 300 entries once made 8 MB, 1,500 made 419 MB)."""
    t = new_table(client, target=100_00)
    pid, url = t["players"][0]["id"], f"/api/tables/{t['id']}/rounds"
    before = database_bytes(app)
    for i in range(300):
        hdr = {"X-Table-Code": t["code"], "Idempotency-Key": f"entry-{i:04d}-abcdef"}
        r = client.post(url, json={"scores": {pid: 1}, "kind": "domino"}, headers=hdr)
        assert r.status_code == 201
    growth = database_bytes(app) - before
    assert growth < 2 * 2**20, growth
    longest = count(app, "SELECT MAX(LENGTH(body_json)) FROM idempotency")
    assert longest < 40  # {"ref": round id}
    # a retry of the first entry is answered from the table as it is now, and stores nothing
    hdr = {"X-Table-Code": t["code"], "Idempotency-Key": "entry-0000-abcdef"}
    again = client.post(url, json={"scores": {pid: 1}, "kind": "domino"}, headers=hdr)
    assert again.status_code == 201 and again.json["players"][0]["total"] == 300
    assert count(app, "SELECT COUNT(*) FROM rounds") == 300
    # a key older than a day is forgotten: the same key is then a new entry
    conn = sqlite3.connect(app.config["DATABASE"])
    with conn:
        conn.execute("UPDATE idempotency SET created = '2000-01-01T00:00:00.000Z'")
    conn.close()
    hdr = {"X-Table-Code": t["code"], "Idempotency-Key": "entry-0001-abcdef"}
    r = client.post(url, json={"scores": {pid: 1}, "kind": "domino"}, headers=hdr)
    assert r.status_code == 201 and r.json["players"][0]["total"] == 301
    assert count(app, "SELECT COUNT(*) FROM idempotency") == 1  # the old ones were deleted


def test_a_retried_photo_is_stored_once(client, app, fake_detector):
    t = new_table(client)
    hdr = {"X-Table-Code": t["code"], "Idempotency-Key": "photo-0001-abcdef"}
    answers = [
        client.post(
            f"/api/tables/{t['id']}/photos",
            headers=hdr,
            data={"photo": (io.BytesIO(JPEG), "p.jpg")},
            content_type="multipart/form-data",
        )
        for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [201, 201] and answers[0].json == answers[1].json
    assert count(app, "SELECT COUNT(*) FROM photos") == 1 and len(photo_files(app)) == 1


def test_stored_photos_carry_no_exif(client, app, fake_detector):
    import cv2

    from .test_images import jpeg_with_orientation

    data = jpeg_with_orientation(cv2.imdecode(__import__("numpy").frombuffer(JPEG, "uint8"), 1), 6)
    assert b"Exif" in data
    t = new_table(client)
    p = upload(client, t, data).json
    stored = client.get(p["image_url"]).data
    assert stored[:3] == b"\xff\xd8\xff" and b"Exif" not in stored
    assert (p["width"], p["height"]) == (640, 640)


def test_photos_are_renamed_after_commit_and_a_crash_leaves_no_orphan(
    client, app, fake_detector, monkeypatch
):
    t = new_table(client)
    assert upload(client, t, JPEG).status_code == 201
    files = photo_files(app)
    assert len(files) == 1 and not files[0].name.endswith(".part")
    # a crash (SystemExit stands in for kill -9) after the commit, before the rename
    import companion.blueprints.api as api

    def die(*_a):
        raise SystemExit("killed")

    monkeypatch.setattr(api.os, "replace", die)
    with pytest.raises(SystemExit):
        upload(client, t, JPEG)
    monkeypatch.undo()
    parts = [f for f in photo_files(app) if f.name.endswith(".part")]
    assert len(parts) == 1 and count(app, "SELECT COUNT(*) FROM photos") == 2
    folder = Path(app.config["PHOTO_DIR"])
    (folder / f"t{t['id']}-{'a' * 32}.jpg.part").write_bytes(
        b"half written"
    )  # crash before the commit
    (folder / f"t{t['id']}-{'b' * 32}.jpg").write_bytes(b"no row")  # orphan
    (folder / "notes.txt").write_text("not ours")
    again = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test",
            "DATABASE": app.config["DATABASE"],
            "PHOTO_DIR": app.config["PHOTO_DIR"],
        },
        instance_path=app.instance_path,
    )
    assert again.config["PHOTO_SWEEP"] == {"completed": 1, "removed": 2}
    names = sorted(f.name for f in folder.iterdir())
    conn = sqlite3.connect(app.config["DATABASE"])
    rows = sorted(n for (n,) in conn.execute("SELECT filename FROM photos"))
    conn.close()
    assert names == sorted(rows + ["notes.txt"])
    c = again.test_client()
    for pid in (1, 2):
        assert c.get(f"/api/tables/{t['id']}/photos/{pid}/image").status_code == 200


def test_a_locked_database_is_503_with_retry_after(tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "t",
            "DATABASE": str(tmp_path / "d.sqlite"),
            "PHOTO_DIR": str(tmp_path / "p"),
            "DB_BUSY_TIMEOUT": 0.2,
        },
        instance_path=str(tmp_path),
    )
    client = app.test_client()
    t = new_table(client)
    other = sqlite3.connect(app.config["DATABASE"], isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another writer holds the lock
    try:
        r = round_(client, t, {t["players"][0]["id"]: 5})
        assert r.status_code == 503 and r.headers["Retry-After"] == "2"
        assert "try again" in r.json["error"]["message"]
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert count(app, "SELECT COUNT(*) FROM rounds") == 0
    assert round_(client, t, {t["players"][0]["id"]: 5}).status_code == 201


# --- browser-facing protections ---------------------------------------------------------------


def test_security_headers_and_cookie_flags(client):
    r = client.get("/")
    assert r.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    cookie = r.headers["Set-Cookie"]
    assert "SameSite=Lax" in cookie and "HttpOnly" in cookie and "Secure" not in cookie
    assert client.get("/api/tables").headers["X-Content-Type-Options"] == "nosniff"


def test_secure_cookie_under_https(tmp_path):
    app = create_app(
        {
            "SECRET_KEY": "t",
            "DATABASE": str(tmp_path / "d.sqlite"),
            "PHOTO_DIR": str(tmp_path / "p"),
            "SESSION_COOKIE_SECURE": True,
        },
        instance_path=str(tmp_path),
    )
    assert (
        "Secure" in app.test_client().get("/", base_url="https://localhost").headers["Set-Cookie"]
    )


@pytest.mark.parametrize(
    "host,ok",
    [
        ("localhost", True),
        ("127.0.0.1:5000", True),
        ("localhost:8080", True),
        ("evil.example", False),
        ("rebind.attacker.test:5000", False),
    ],
)
def test_only_trusted_hosts_are_served(client, host, ok):
    for path in ("/api/tables", "/"):
        r = client.get(path, headers={"Host": host})
        assert (r.status_code == 200) == ok, (path, host, r.status_code)
        if not ok:
            assert_clear_4xx(r, 400)
            assert "--trusted-host" in r.get_data(as_text=True)


def test_start_form_needs_its_csrf_token(client, app):
    form = {"game": "draw100", "players": "Ana\nBen"}
    r = client.post("/tables", data=form)
    assert_clear_4xx(r, 400)
    assert "reload the page" in r.get_data(as_text=True)
    assert client.post("/tables", data={**form, "csrf_token": "x" * 43}).status_code == 400
    assert count(app, "SELECT COUNT(*) FROM tables") == 0
    assert (
        client.post("/tables", data={**form, "csrf_token": form_token(client)}).status_code == 302
    )


def test_wrong_codes_are_rate_limited_per_client(client, app):
    t = new_table(client)
    pid = t["players"][0]["id"]
    wrong = "ABCDEF" if t["code"] != "ABCDEF" else "ABCDEG"
    statuses = [round_(client, t, {pid: 1}, code=wrong).status_code for _ in range(10)]
    assert statuses == [403] * 10
    r = round_(client, t, {pid: 1}, code=wrong)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    assert (
        round_(client, t, {pid: 1}).status_code == 429
    )  # even the right code: guessing stops here
    assert client.get("/join/" + t["code"]).status_code == 429
    other = app.test_client()
    r = other.post(
        f"/api/tables/{t['id']}/rounds",
        json={"scores": {pid: 1}, "kind": "domino"},
        headers={"X-Table-Code": t["code"]},
        environ_base={"REMOTE_ADDR": "10.0.0.7"},
    )
    assert r.status_code == 201  # another phone is not blocked


def test_1000_wrong_codes_from_100_addresses_are_throttled_per_table(client, app):
    """Wrong codes from many addresses together: a table takes TABLE_CODE_TRIES_PER_MINUTE
    (30), then every phone that did not join it before gets 429 with a clear message, even
    with the right code; phones that joined keep working, other tables are not touched."""
    t, other = new_table(client), new_table(client)
    pid = t["players"][0]["id"]
    joined = app.test_client()
    assert joined.get(f"/join/{t['code'].lower()}").status_code == 302  # the code in its session
    url = f"/api/tables/{t['id']}/rounds"
    statuses = []
    for a in range(100):
        for i in range(10):
            r = app.test_client().post(
                url,
                json={"scores": {pid: 1}, "kind": "domino"},
                headers={"X-Table-Code": f"WRONG{a:03d}{i}"},
                environ_base={"REMOTE_ADDR": f"10.1.{a}.9"},
            )
            statuses.append(r.status_code)
    assert statuses[:30] == [403] * 30 and statuses[30:] == [429] * 970
    assert (
        r.headers["Retry-After"]
        and "phones that joined it already keep working" in (r.json["error"]["message"])
    )
    new_phone = {"environ_base": {"REMOTE_ADDR": "10.2.0.1"}}
    r = app.test_client().post(
        url,
        json={"scores": {pid: 1}, "kind": "domino"},
        headers={"X-Table-Code": t["code"]},
        **new_phone,
    )
    assert r.status_code == 429  # the right code too: guessing learns nothing here
    assert round_(joined, t, {pid: 1}).status_code == 201  # a joined phone keeps playing
    assert round_(app.test_client(), other, {other["players"][0]["id"]: 1}).status_code == 201
    page = app.test_client().get(f"/t/{t['id']}", **new_phone)
    assert page.status_code == 200  # watching needs no code
    assert count(app, "SELECT COUNT(*) FROM rounds") == 2


def test_wrong_codes_at_the_join_form_from_many_addresses_are_throttled(client, app):
    t = new_table(client)
    statuses = [
        app.test_client()
        .get(f"/join/WRONG{a:03d}", environ_base={"REMOTE_ADDR": f"10.3.{a}.1"})
        .status_code
        for a in range(100)
    ]
    assert statuses[:60] == [403] * 60 and statuses[60:] == [429] * 40
    r = app.test_client().get(f"/join/{t['code']}", environ_base={"REMOTE_ADDR": "10.4.0.1"})
    assert r.status_code == 429 and "try again in" in r.get_data(as_text=True)  # the page says


def test_new_table_codes_are_8_characters_and_old_6_character_codes_work(client, app):
    t = new_table(client)
    assert len(t["code"]) == 8
    conn = sqlite3.connect(app.config["DATABASE"])
    with conn:
        conn.execute("UPDATE tables SET code = 'ABC234' WHERE id = ?", (t["id"],))
    conn.close()
    t["code"] = "abc-234"
    assert round_(client, t, {t["players"][0]["id"]: 1}).status_code == 201


def test_database_keys_and_photos_are_owner_only(client, app, fake_detector, tmp_path):
    from companion.commands import serve

    t = new_table(client)
    upload(client, t, JPEG)
    _, key = serve.self_signed_certificate(tmp_path, "127.0.0.1")
    reader = sqlite3.connect(app.config["DATABASE"])  # keeps the -wal file while open
    reader.execute("SELECT COUNT(*) FROM tables").fetchone()
    paths = [
        Path(app.config["DATABASE"]),
        Path(app.config["DATABASE"] + "-wal"),
        Path(key),
        *photo_files(app),
    ]
    app2 = create_app(
        {
            "SECRET_KEY": None,
            "DATABASE": str(tmp_path / "x.sqlite"),
            "PHOTO_DIR": str(tmp_path / "p2"),
        },
        instance_path=str(tmp_path / "inst"),
    )
    paths += [Path(app2.instance_path) / "secret_key", Path(app2.config["DATABASE"])]
    try:
        for p in paths:
            assert p.exists(), p
            assert stat.S_IMODE(os.stat(p).st_mode) == 0o600, p
    finally:
        reader.close()


@pytest.mark.parametrize(
    "text,depth",
    [
        ("[]", 1),
        ('{"a": "[[[[", "b": [1]}', 2),
        ('["a\\\\", [["]"]]]', 3),
        ('"[[["', 0),
        ("[" * 50_000 + "]" * 50_000, 50_000),
    ],
)
def test_json_depth_skips_strings(text, depth):
    from companion.guard import json_depth

    assert json_depth(text) == depth


def test_json_and_form_bodies_over_256_kb_are_413(client, app):
    t = new_table(client)
    big = '{"scores": {"1": 1}, "note": "' + "x" * (300 * 1024) + '"}'
    r = raw_json(client, "POST", f"/api/tables/{t['id']}/rounds", big, t["code"])
    assert_clear_4xx(r, 413)
    assert "256 kB" in r.json["error"]["message"]
    assert count(app, "SELECT COUNT(*) FROM rounds") == 0


# --- a full disk ---------------------------------------------------------------------------------


class FullDisk:
    """A connection whose writes fail as on a full disk: SQLite's ``SQLITE_FULL`` (it rolls the
    transaction back by itself, as SQLite does), raised by INSERT, UPDATE, DELETE and COMMIT."""

    WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE", "COMMIT")

    def __init__(self, conn):
        self._conn = conn

    def _check(self, sql: str) -> None:
        if sql.lstrip().upper().startswith(self.WRITES):
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise sqlite3.OperationalError("database or disk is full")

    def execute(self, sql, *args):
        self._check(sql)
        return self._conn.execute(sql, *args)

    def executemany(self, sql, *args):
        self._check(sql)
        return self._conn.executemany(sql, *args)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def test_a_full_disk_refuses_writes_clearly_keeps_reads_and_stores_nothing_half(
    client, app, monkeypatch, fake_detector
):
    import errno

    from companion import db, guard

    t = new_table(client)
    pid, code = sit(client, t), t["code"]
    photo = upload(client, t, JPEG).json
    assert round_(client, t, {pid: 5}).status_code == 201  # a hand recorded: hands cleared
    client.put(f"/api/tables/{t['id']}/hand", json={"hand": "1-2"}, headers={"X-Table-Code": code})
    conn = sqlite3.connect(app.config["DATABASE"])
    with conn:  # the player's reading is made again on the next look (as after a tile fix)
        conn.execute("UPDATE hands SET photo_id = NULL")
    conn.close()
    tables_before = count(app, "SELECT COUNT(*) FROM tables")
    files_before = sorted(os.listdir(app.config["PHOTO_DIR"]))

    real_connect = db.connect
    monkeypatch.setattr(db, "connect", lambda *a, **k: FullDisk(real_connect(*a, **k)))

    def no_space(path, data):
        Path(path).write_bytes(data[: len(data) // 2])  # half a file, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(guard, "write_private", no_space)
    writes = [
        client.post("/api/tables", json={"game": "draw100", "players": ["A", "B"]}),
        round_(client, t, {pid: 7}),
        upload(client, t, JPEG),
        client.delete(f"/api/tables/{t['id']}", headers={"X-Table-Code": code}),
    ]
    for r in writes:
        assert r.status_code == 507, (r.status_code, r.get_data(as_text=True)[:300])
        assert "disk is full" in r.json["error"]["message"]
        assert "free some space" in r.json["error"]["message"]
    page = client.post(
        "/tables",
        data={"game": "draw100", "players": "A\nB", "csrf_token": form_token(client)},
    )
    assert page.status_code == 507 and "free some space" in page.get_data(as_text=True)
    # reads keep working, the player's own reading too (it is just not kept)
    assert client.get("/").status_code == 200
    assert client.get(f"/t/{t['id']}").status_code == 200
    got = client.get(f"/api/tables/{t['id']}")
    assert got.status_code == 200 and got.json["players"][0]["total"] == 5
    mine = client.get(
        f"/api/tables/{t['id']}/photos/{photo['id']}",
        headers={"X-Table-Code": code, "X-Player": str(pid)},
    )
    assert mine.status_code == 200 and mine.json["hand"] == ["1-2"]
    # space returns: nothing was half stored, writes work again
    monkeypatch.undo()
    assert count(app, "SELECT COUNT(*) FROM tables") == tables_before
    assert count(app, "SELECT COUNT(*) FROM rounds") == 1
    assert sorted(os.listdir(app.config["PHOTO_DIR"])) == files_before  # no .part left
    conn = sqlite3.connect(app.config["DATABASE"])
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    assert round_(client, t, {pid: 7}).status_code == 201
    assert upload(client, t, JPEG).status_code == 201


# --- table spam ----------------------------------------------------------------------------------


def test_table_creation_is_limited_per_client_and_per_server(client, app):
    body = {"game": "draw100", "players": ["A", "B"]}
    statuses = [client.post("/api/tables", json=body).status_code for _ in range(21)]
    assert statuses == [201] * 20 + [429]
    r = client.post("/api/tables", json=body)
    assert r.headers["Retry-After"] and "started many tables" in r.json["error"]["message"]
    # the start form says so on the page, with the form kept
    page = client.post(
        "/tables", data={"game": "draw100", "players": "Ann\nBo", "csrf_token": form_token(client)}
    )
    assert page.status_code == 429
    text = page.get_data(as_text=True)
    assert "started many tables" in text and "Ann" in text
    # a bad form is not counted; another address may still start tables
    other = {"environ_base": {"REMOTE_ADDR": "10.5.0.1"}}
    assert app.test_client().post("/api/tables", json={"game": "?"}, **other).status_code == 400
    assert app.test_client().post("/api/tables", json=body, **other).status_code == 201
    # many addresses together stop at TABLES_PER_SERVER (200 in 10 minutes)
    made = 21
    for a in range(20):
        for _ in range(10):
            r = app.test_client().post(
                "/api/tables", json=body, environ_base={"REMOTE_ADDR": f"10.6.{a}.1"}
            )
            made += r.status_code == 201
    assert made == 200 and r.status_code == 429
    assert "many tables were started on this server" in r.json["error"]["message"]
    assert count(app, "SELECT COUNT(*) FROM tables") == 200


def test_the_start_page_lists_this_phones_and_the_demo_tables_and_finds_the_rest(app):
    from companion.commands import serve

    serve.create_demo_tables(app, log=lambda _line: None)
    spammer, phone = app.test_client(), app.test_client()
    for i in range(15):
        new_table(spammer, players=(f"Spam{i}", "Bot"))
    phone.post(
        "/tables", data={"game": "draw100", "players": "Zoe\nYan", "csrf_token": form_token(phone)}
    )
    ours = new_table(app.test_client(), players=("Quinn", "Rosa"))
    page = phone.get("/").get_data(as_text=True)
    mine = page[page.index('id="my-tables"') : page.index("</ul>", page.index('id="my-tables"'))]
    assert "Zoe, Yan" in mine and "Spam" not in mine
    demo = page[
        page.index('id="demo-tables"') : page.index("</ul>", page.index('id="demo-tables"'))
    ]
    assert demo.count("<li>") == len(serve.DEMOS)
    assert "Spam" not in page and "Quinn" not in page
    assert "16 other table(s)" in page  # 15 spam tables and Quinn's
    for q in ("quin", "ROSA", f"#{ours['id']}", str(ours["id"])):
        found = phone.get("/", query_string={"q": q}).get_data(as_text=True)
        assert "Quinn, Rosa" in found and "Spam" not in found, q
    assert phone.get("/?q=spam").get_data(as_text=True).count("Spam") == 15
    none = phone.get("/?q=%25").get_data(as_text=True)  # a LIKE wildcard matches nothing
    assert 'id="found-none"' in none and "Spam" not in none


# --- cookies per scheme, Origin checks ---------------------------------------------------------


def test_the_session_cookie_is_secure_under_https_even_beside_http(app):
    app.config["SECURE_URL"] = "https://localhost:5443"
    phone = app.test_client()
    t = new_table(phone)
    r = phone.get(f"/join/{t['code']}", base_url="https://localhost")
    cookie = r.headers["Set-Cookie"]
    assert cookie.startswith("__Secure-session=") and "Secure" in cookie and "HttpOnly" in cookie
    # learned over https: never sent over plain http
    page = phone.get(f"/t/{t['id']}").get_data(as_text=True)
    assert t["code"] not in page
    # learned over http: carried to https once, into the secure cookie
    other = app.test_client()
    u = new_table(other)
    r = other.get(f"/join/{u['code']}")
    assert (
        r.headers["Set-Cookie"].startswith("session=") and "Secure" not in r.headers["Set-Cookie"]
    )
    r = other.get(f"/t/{u['id']}", base_url="https://localhost")
    assert u["code"] in r.get_data(as_text=True)
    assert r.headers["Set-Cookie"].startswith("__Secure-session=")


@pytest.mark.parametrize(
    "headers, ok",
    [
        ({}, True),  # a script or curl: no Origin, no Referer
        ({"Origin": "http://localhost"}, True),
        ({"Referer": "http://localhost/t/1"}, True),
        ({"Origin": "https://localhost:5443"}, True),  # the secure address serve prints
        ({"Origin": "http://evil.example"}, False),
        ({"Origin": "http://localhost:8080"}, False),  # another port is another site
        ({"Origin": "null"}, False),
        ({"Referer": "http://evil.example/page"}, False),
        ({"Origin": "https://localhost"}, False),  # http page's host with another scheme
    ],
)
def test_state_changing_requests_from_another_site_are_refused(app, client, headers, ok):
    app.config["SECURE_URL"] = "https://localhost:5443"
    t = new_table(client)
    pid = t["players"][0]["id"]
    h = {"X-Table-Code": t["code"], **headers}
    r = client.post(
        f"/api/tables/{t['id']}/rounds", json={"scores": {pid: 1}, "kind": "domino"}, headers=h
    )
    r2 = client.post(
        "/tables",
        data={"game": "draw100", "players": "A\nB", "csrf_token": form_token(client)},
        headers=headers,
    )
    r3 = client.post("/api/tables", json={"game": "draw100"}, headers=headers)
    if ok:
        assert (r.status_code, r2.status_code, r3.status_code) == (201, 302, 201)
    else:
        for x in (r, r2, r3):
            assert_clear_4xx(x, 403)
            assert "came from another site" in x.get_data(as_text=True)
        assert count(app, "SELECT COUNT(*) FROM rounds") == 0
    assert client.get(f"/api/tables/{t['id']}", headers=headers).status_code == 200  # reads pass
