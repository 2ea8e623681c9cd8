"""Seats that belong to one phone: the seat token (an HttpOnly cookie, its hash in SQLite) is
what gives a request a seat's hand; the table code and an ``X-Player`` header alone never do."""

from __future__ import annotations

import io
import json
import re
import sqlite3

from companion.app import create_app

from .conftest import SAMPLES, new_table, sit

JPEG = (SAMPLES / "IMG_0350.jpg").read_bytes()


def code_of(t: dict) -> dict:
    return {"X-Table-Code": t["code"]}


def seat_cookie(client, table_id: int):
    return client.get_cookie(f"seat_{table_id}")


def test_taking_a_seat_sets_an_httponly_cookie_and_stores_only_its_hash(app, client):
    t = new_table(client)
    ana = t["players"][0]["id"]
    r = client.post(f"/api/tables/{t['id']}/seats/{ana}", headers=code_of(t))
    assert r.status_code == 201 and r.json["player_id"] == ana
    header = r.headers["Set-Cookie"]
    assert header.startswith(f"seat_{t['id']}=") and "HttpOnly" in header
    assert "SameSite=Lax" in header and "Path=/" in header
    token = seat_cookie(client, t["id"]).value.split(".", 1)[1]
    assert len(token) >= 40
    assert [p["held"] for p in r.json["table"]["players"]] == [True, False]
    conn = sqlite3.connect(app.config["DATABASE"])
    rows = conn.execute("SELECT player_id, token_hash FROM seats").fetchall()
    dump = "\n".join(conn.iterdump())
    conn.close()
    assert [r_[0] for r_ in rows] == [ana] and len(rows[0][1]) == 64
    assert token not in dump  # only the hash is kept
    # taking it again from the same phone keeps it (no new token)
    again = client.post(f"/api/tables/{t['id']}/seats/{ana}", headers=code_of(t))
    assert again.status_code == 200 and seat_cookie(client, t["id"]).value.endswith(token)
    # the seat needs the code too
    assert client.post(f"/api/tables/{t['id']}/seats/{ana}").status_code == 403


def test_another_phone_with_the_code_cannot_take_read_or_set_a_held_seat(
    app, client, lead_double_detector
):
    t = new_table(client)
    ana, ben = (p["id"] for p in t["players"])
    sit(client, t, 0)
    base = f"/api/tables/{t['id']}"
    photo = client.post(
        f"{base}/photos",
        headers=code_of(t),
        data={"photo": (io.BytesIO(JPEG), "p.jpg"), "hand": "6-4 1-2"},
        content_type="multipart/form-data",
    ).json
    assert photo["hand"] == ["4-6", "1-2"] and photo["analysis"]["legal_moves"]
    b = app.test_client()  # phone B: knows the code, holds no seat
    as_ana = {**code_of(t), "X-Player": str(ana)}
    r = b.post(f"{base}/seats/{ana}", headers=code_of(t))
    assert r.status_code == 409 and "taken by another phone" in r.json["error"]["message"]
    for method, url, body in [
        ("GET", f"{base}/hand", None),
        ("PUT", f"{base}/hand", {"hand": "1-1"}),
        ("PUT", f"{base}/photos/{photo['id']}/hand", {"hand": "1-1"}),
        ("GET", f"{base}/photos/{photo['id']}", None),
    ]:
        r = b.open(url, method=method, json=body, headers=as_ana)
        assert r.status_code == 403, (method, url, r.json)
        assert "does not hold Ana's seat" in r.json["error"]["message"]
        assert "4-6" not in r.get_data(as_text=True)
    # player_id in the body is no way round, nor is a hand sent with a photo
    r = b.put(f"{base}/hand", json={"hand": "1-1", "player_id": ana}, headers=code_of(t))
    assert r.status_code == 403
    assert b.put(f"{base}/hand", json={"hand": "1-1"}, headers=code_of(t)).status_code == 403
    r = b.post(
        f"{base}/photos",
        headers=code_of(t),
        data={"photo": (io.BytesIO(JPEG), "p.jpg"), "hand": "1-1"},
        content_type="multipart/form-data",
    )
    assert r.status_code == 403 and "choose who you are" in r.json["error"]["message"]
    # a forged cookie for Ana's seat is no seat
    b.set_cookie(f"seat_{t['id']}", f"{ana}.{'x' * 43}")
    assert b.get(f"{base}/hand", headers=as_ana).status_code == 403
    seen = b.get(f"{base}/photos/{photo['id']}", headers=code_of(t)).json
    assert seen["hand"] == [] and seen["player_id"] is None  # watching: the table reading only
    assert not seen["analysis"]["legal_moves"]
    # Ana's hand is still Ana's
    assert client.get(f"{base}/hand", headers=code_of(t)).json["hand"] == ["4-6", "1-2"]
    # B takes the free seat and sees only its own hand
    b.delete_cookie(f"seat_{t['id']}")
    assert sit(b, t, 1) == ben
    assert b.get(f"{base}/hand", headers=code_of(t)).json == {"player_id": ben, "hand": []}


def test_the_holder_leaves_and_then_another_phone_may_take_the_seat(app, client):
    t = new_table(client)
    ana = t["players"][0]["id"]
    base = f"/api/tables/{t['id']}"
    sit(client, t, 0)
    assert client.put(f"{base}/hand", json={"hand": "3-5"}, headers=code_of(t)).status_code == 200
    b = app.test_client()
    sit(b, t, 1)
    assert b.post(f"{base}/seats/{ana}", headers=code_of(t)).status_code == 409
    r = client.delete(f"{base}/seats/{ana}", headers=code_of(t))
    assert r.status_code == 200 and r.json["left"] and r.json["player_id"] is None
    assert seat_cookie(client, t["id"]) is None  # the cookie is cleared
    assert client.get(f"{base}/hand", headers=code_of(t)).status_code == 403
    # B moves from Ben to Ana: Ben's seat is free again, Ana's hand was cleared on leaving
    r = b.post(f"{base}/seats/{ana}", headers=code_of(t))
    assert r.status_code == 201 and r.json["hand"] == []
    assert [p["held"] for p in r.json["table"]["players"]] == [True, False]


def test_a_code_holder_frees_the_seat_of_a_lost_phone(app, client):
    t = new_table(client)
    ana = t["players"][0]["id"]
    base = f"/api/tables/{t['id']}"
    lost = app.test_client()
    sit(lost, t, 0)
    lost.put(f"{base}/hand", json={"hand": "3-5 6-6"}, headers=code_of(t))
    new_phone = app.test_client()
    assert new_phone.delete(f"{base}/seats/{ana}").status_code == 403  # the code is needed
    r = new_phone.delete(f"{base}/seats/{ana}", headers=code_of(t))
    assert r.status_code == 200 and r.json["freed"] == ana and not r.json["left"]
    assert sit(new_phone, t, 0) == ana
    # the freed seat's hand is gone: the new phone does not see the lost phone's tiles
    assert new_phone.get(f"{base}/hand", headers=code_of(t)).json["hand"] == []
    # the lost phone's token no longer works
    assert lost.get(f"{base}/hand", headers=code_of(t)).status_code == 403


def test_a_table_of_one_player_needs_only_the_code(client):
    t = new_table(client, "big-clock", ["Solo"])
    r = client.put(f"/api/tables/{t['id']}/hand", json={"hand": "0-3"}, headers=code_of(t))
    assert r.status_code == 200 and r.json["hand"] == ["0-3"]


def test_https_keeps_the_seat_taken_on_http(app):
    """The phone opens the https address for the live camera: the seat comes with it."""
    phone = app.test_client()
    t = new_table(phone)
    assert phone.get(f"/join/{t['code']}").status_code == 302
    ana = sit(phone, t, 0)
    page = phone.get(f"/t/{t['id']}", base_url="https://localhost").get_data(as_text=True)
    boot = json.loads(re.search(r'id="boot">(.*?)</script>', page, re.S).group(1))
    assert boot["seat"] == ana and boot["code"] == t["code"]
    other = app.test_client()
    other.get(f"/join/{t['code']}")
    page = other.get(f"/t/{t['id']}").get_data(as_text=True)
    assert json.loads(re.search(r'id="boot">(.*?)</script>', page, re.S).group(1))["seat"] is None


def test_a_seat_taken_over_https_has_a_secure_cookie_never_read_over_http(app):
    phone = app.test_client()
    t = new_table(phone)
    ana = t["players"][0]["id"]
    seat, https = f"/api/tables/{t['id']}/seat", "https://localhost"
    r = phone.post(f"{seat}s/{ana}", headers=code_of(t), base_url=https)
    header = r.headers["Set-Cookie"]
    assert r.status_code == 201 and header.startswith(f"__Secure-seat_{t['id']}=")
    assert "; Secure" in header and "HttpOnly" in header and "SameSite=Lax" in header
    assert phone.get(seat, headers=code_of(t), base_url=https).json["player_id"] == ana
    assert phone.get(seat, headers=code_of(t)).json["player_id"] is None  # plain HTTP
    assert phone.get(f"/api/tables/{t['id']}/hand", headers=code_of(t)).status_code == 403
    # leaving over HTTPS clears both cookies
    r = phone.delete(f"{seat}s/{ana}", headers=code_of(t), base_url=https)
    cleared = sorted(c.split("=", 1)[0] for c in r.headers.getlist("Set-Cookie"))
    assert r.json["left"] and cleared == [f"__Secure-seat_{t['id']}", f"seat_{t['id']}"]
    assert phone.get_cookie(f"__Secure-seat_{t['id']}") is None


def test_a_seat_taken_over_http_carries_to_https_once_and_freeing_ends_both(app):
    phone = app.test_client()
    t = new_table(phone)
    ana = sit(phone, t, 0)
    seat, https = f"/api/tables/{t['id']}/seat", "https://localhost"
    r = phone.get(seat, headers=code_of(t), base_url=https)
    assert r.json["player_id"] == ana  # the HTTP seat, carried into the secure cookie
    assert r.headers["Set-Cookie"].startswith(f"__Secure-seat_{t['id']}=")
    assert "Set-Cookie" not in phone.get(seat, headers=code_of(t), base_url=https).headers
    # a seat taken over HTTPS afterwards does not go back to HTTP
    ben = t["players"][1]["id"]
    phone.post(f"{seat}s/{ben}", headers=code_of(t), base_url=https)
    assert phone.get(seat, headers=code_of(t), base_url=https).json["player_id"] == ben
    assert phone.get(seat, headers=code_of(t)).json["player_id"] is None
    # a code holder frees it (a lost phone): neither scheme holds it any more
    other = app.test_client()
    assert other.delete(f"{seat}s/{ben}", headers=code_of(t)).json["left"] is False
    for base in ("http://localhost", https):
        assert phone.get(seat, headers=code_of(t), base_url=base).json["player_id"] is None


def test_a_demo_seat_is_open_to_every_visitor(app, client):
    """Demo tables hand their code to everybody: a visitor takes any seat (a held one is taken
    over) and the demo hand stays for the next visitor."""
    from companion.db import get_db, transaction
    from companion.store import create_table

    with app.app_context():
        with transaction(get_db()) as db:
            t = create_table(db, "draw100", ["Ana", "Ben"], demo=True)
    base = f"/api/tables/{t['id']}"
    first, second = app.test_client(), app.test_client()
    sit(first, t, 0)
    first.put(f"{base}/hand", json={"hand": "3-5"}, headers=code_of(t))
    first.delete(f"{base}/seats/{t['players'][0]['id']}", headers=code_of(t))
    sit(first, t, 0)
    assert sit(second, t, 0) == t["players"][0]["id"]
    assert second.get(f"{base}/hand", headers=code_of(t)).json["hand"] == ["3-5"]


def test_an_older_database_gets_the_seats_table(tmp_path):
    db = tmp_path / "old.sqlite"
    cfg = {"SECRET_KEY": "t", "DATABASE": str(db), "PHOTO_DIR": str(tmp_path / "p")}
    app = create_app(cfg, instance_path=str(tmp_path))
    t = new_table(app.test_client())
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE seats")  # as a database made before seats were held
    conn.commit()
    conn.close()
    app = create_app(cfg, instance_path=str(tmp_path))
    phone = app.test_client()
    assert sit(phone, t, 1) == t["players"][1]["id"]
    assert phone.get(f"/api/tables/{t['id']}").json["players"][0]["name"] == "Ana"
