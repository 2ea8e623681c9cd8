"""One table, one flow: a recorded hand or "new hand" clears the photo, hint and hands for the
next hand; a rematch is made once and every phone moves on to it, keeping its seat."""

from __future__ import annotations

import sqlite3

from companion.app import create_app

from .conftest import new_table, sit
from .test_api import JPEG, upload


def code_of(t: dict) -> dict:
    return {"X-Table-Code": t["code"]}


def test_a_recorded_hand_clears_the_photo_hint_and_hands(app, client, lead_double_detector):
    t = new_table(client)
    ana = sit(client, t)
    base = f"/api/tables/{t['id']}"
    client.put(f"{base}/hand", json={"hand": "4-6 1-2"}, headers=code_of(t))
    p = upload(client, t, JPEG).json
    assert client.get(base).json["latest_photo_id"] == p["id"]
    r = client.post(
        f"{base}/rounds", json={"scores": {ana: 10}, "kind": "domino"}, headers=code_of(t)
    )
    assert r.status_code == 201
    after = r.json
    assert after["latest_photo_id"] is None and after["photo_count"] == 1  # kept in the history
    assert client.get(f"{base}/hand", headers=code_of(t)).json["hand"] == []
    assert client.get(f"/t/{t['id']}").status_code == 200
    # the next photo is the new hand's
    p2 = upload(client, t, JPEG).json
    assert client.get(base).json["latest_photo_id"] == p2["id"]


def test_new_hand_clears_every_phone_and_a_demo_table_keeps_its_sample(app, client, fake_detector):
    t = new_table(client, "tableaux")
    sit(client, t)
    base = f"/api/tables/{t['id']}"
    client.put(f"{base}/hand", json={"hand": "1-1"}, headers=code_of(t))
    upload(client, t, JPEG)
    assert client.post(f"{base}/new-hand").status_code == 403  # the code is needed
    r = client.post(f"{base}/new-hand", headers=code_of(t))
    assert r.status_code == 200 and r.json["latest_photo_id"] is None
    assert client.get(f"{base}/hand", headers=code_of(t)).json["hand"] == []
    events = client.get(f"{base}/live/events?after=0&wait=0").json["records"]
    assert any(e["type"] == "table" and e["table"]["latest_photo_id"] is None for e in events)

    from companion.db import get_db, transaction
    from companion.store import create_table

    with app.app_context():
        with transaction(get_db()) as db:
            demo = create_table(db, "tableaux", ["Ana", "Ben"], demo=True)
    upload(client, demo, JPEG)
    r = client.post(f"/api/tables/{demo['id']}/new-hand", headers=code_of(demo))
    assert r.status_code == 200 and r.json["latest_photo_id"] is not None


def test_a_rematch_is_made_once_and_every_phone_moves_on_with_its_seat(app, client):
    t = new_table(client, "draw100", ["Ana", "Ben"], target=10)
    base = f"/api/tables/{t['id']}"
    ana, ben = client, app.test_client()
    sit(ana, t, 0)
    sit(ben, t, 1)
    assert ben.post(f"{base}/next", headers=code_of(t)).status_code == 404  # none yet
    ana.post(f"{base}/rounds", json={"scores": {t["players"][0]["id"]: 12}}, headers=code_of(t))
    first = ana.post(f"{base}/rematch", headers=code_of(t))
    assert first.status_code == 201
    new = first.json
    assert new["id"] != t["id"] and [p["name"] for p in new["players"]] == ["Ana", "Ben"]
    # Ben's phone pressed Rematch too: the same table, not a second one
    second = ben.post(f"{base}/rematch", headers=code_of(t))
    assert second.status_code == 200 and second.json["id"] == new["id"]
    assert client.get(base).json["next_id"] == new["id"]
    # each phone holds its own seat at the new table, and knows its code (the page works)
    for phone, name in ((ana, "Ana"), (ben, "Ben")):
        got = phone.get(f"/api/tables/{new['id']}/seat", headers=code_of(new)).json
        seat = next(p for p in new["players"] if p["id"] == got["player_id"])
        assert seat["name"] == name
        page = phone.get(f"/t/{new['id']}").get_data(as_text=True)
        assert new["code"] in page
    # the other phones hear of it through the old table's feed
    events = client.get(f"{base}/live/events?after=0&wait=0").json["records"]
    assert {"type": "moved", "table_id": new["id"]}.items() <= next(
        e for e in events if e["type"] == "moved"
    ).items()
    # a phone that arrives later is moved on by "next" (no seat held: none given)
    late = app.test_client()
    r = late.post(f"{base}/next", headers=code_of(t))
    assert r.status_code == 200 and r.json["id"] == new["id"]
    assert late.get(f"/api/tables/{new['id']}/seat", headers=code_of(new)).json["player_id"] is None


def test_an_older_database_gets_the_hand_and_rematch_columns(tmp_path):
    db = tmp_path / "old.sqlite"
    cfg = {"SECRET_KEY": "t", "DATABASE": str(db), "PHOTO_DIR": str(tmp_path / "p")}
    t = new_table(create_app(cfg, instance_path=str(tmp_path)).test_client())
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE tables DROP COLUMN hand_from")
    conn.execute("ALTER TABLE tables DROP COLUMN next_id")
    conn.commit()
    conn.close()
    c = create_app(cfg, instance_path=str(tmp_path)).test_client()
    got = c.get(f"/api/tables/{t['id']}").json
    assert got["latest_photo_id"] is None and got["next_id"] is None
    assert c.post(f"/api/tables/{t['id']}/new-hand", headers=code_of(t)).status_code == 200


def test_a_request_that_changes_no_code_sends_no_session_cookie(client):
    """A long poll that started before a rematch must not answer with the older session (the
    codes this browser joined) and so drop the new table's code."""
    t = new_table(client)
    joined = client.get(f"/join/{t['code']}")
    assert "session=" in joined.headers.get("Set-Cookie", "")
    polled = client.get(f"/api/tables/{t['id']}/live/events?after=0&wait=0")
    assert polled.status_code == 200 and "session=" not in polled.headers.get("Set-Cookie", "")
