"""Issue 36: a seat's hand never reaches a phone that has only the table code and ``X-Player``
(or ``player_id``), on any route, read or write (the seat token itself: test_seats.py)."""

from __future__ import annotations

import io
import json

from .conftest import SAMPLES, new_table, sit

JPEG = (SAMPLES / "IMG_0350.jpg").read_bytes()


def hands_in(value) -> list:
    """Every non-empty value under a ``hand`` key anywhere in a JSON document."""
    found: list = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "hand" and v:
                found.append(v)
            found += hands_in(v)
    elif isinstance(value, list):
        for v in value:
            found += hands_in(v)
    return found


def test_no_route_gives_a_held_seats_hand_to_the_code_and_x_player(app, client, fake_detector):
    t = new_table(client)
    ana = sit(client, t, 0)
    base, code = f"/api/tables/{t['id']}", {"X-Table-Code": t["code"]}
    photo = client.post(
        f"{base}/photos",
        headers=code,
        data={"photo": (io.BytesIO(JPEG), "p.jpg"), "hand": "6-4 1-1"},
        content_type="multipart/form-data",
    ).json
    assert photo["hand"] == ["4-6", "1-1"]  # Ana's phone sees it
    other = app.test_client()  # knows the code and Ana's player id, holds no seat
    spy = {**code, "X-Player": str(ana)}
    p = f"{base}/photos/{photo['id']}"
    calls = [
        ("GET", "/api/tables", None),
        ("GET", base, None),
        ("GET", f"{base}/rounds", None),
        ("GET", f"{base}/photos", None),
        ("GET", p, None),
        ("GET", f"{base}/hand", None),
        ("GET", f"{base}/seat", None),
        ("GET", f"{base}/live/events?after=0&wait=0", None),
        ("PUT", f"{p}/tiles/0", {"pips": [2, 5]}),
        ("DELETE", f"{p}/tiles/0", None),
        ("POST", f"{p}/tiles", {"at": [10, 10], "pips": [0, 0]}),
        ("PUT", f"{p}/hand", {"hand": "2-2"}),
        ("PUT", f"{base}/hand", {"hand": "2-2"}),
        ("PUT", f"{base}/hand", {"hand": "2-2", "player_id": ana}),
        ("POST", f"{base}/live/tap", {"kind": "pass"}),
    ]
    for method, url, body in calls:
        for headers in (spy, code):
            r = other.open(url, method=method, json=body, headers=headers)
            assert r.status_code < 500, (method, url, r.status_code)
            text = r.get_data(as_text=True)
            if r.mimetype == "application/json":
                assert hands_in(json.loads(text)) == [], (method, url, text[:300])
                assert f'"player_id":{ana}' not in text.replace(" ", ""), (method, url)
    r = other.post(
        f"{base}/photos",
        headers=spy,
        data={"photo": (io.BytesIO(JPEG), "p.jpg")},
        content_type="multipart/form-data",
    )
    assert r.status_code in (201, 403) and hands_in(r.json) == []
    page = other.get(f"/t/{t['id']}", headers=spy).get_data(as_text=True)
    assert "4-6" not in page and "6-4" not in page
    # Ana's own phone still has her hand; nobody changed it
    assert client.get(f"{base}/hand", headers=code).json["hand"] == ["4-6", "1-1"]
    # recording a hand answers no hand either (it starts the next hand: every hand is cleared)
    r = other.post(f"{base}/rounds", json={"scores": {str(ana): 1}, "kind": "domino"}, headers=spy)
    assert r.status_code == 201 and hands_in(r.json) == []
