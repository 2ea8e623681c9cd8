"""Browser tests of live reading: two phones at one Tableaux table. Phone A sends the frames of a
rendered game (with one illegal tile put down and taken back) through the endpoint its page
films with; phone B, never reloaded, shows each play, the flag and the running score as they
come. And the page's own filming loop, with Chromium's fake camera.

The detector is replaced by the renderer's labels of each frame (``test_live.fake_eyes``); the
page, the server, the follower, the score sheet and the feed are real. Chromium:
``/usr/bin/chromium`` (fails with the install command when missing; never `playwright install`).
"""

from __future__ import annotations

import base64

import pytest

from .test_browser import PHONE, launch_chromium
from .test_browser import server as server  # noqa: F401 - the same server fixture
from .test_live import fake_eyes, frame_jpeg, solitaire_stream, tableaux_stream

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    # a fake camera (a moving test pattern) that the page may open without asking
    yield from launch_chromium(
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"
    )


def phone(browser):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    pg = ctx.new_page()
    pg.set_default_timeout(15_000)
    return ctx, pg


def start_tableaux(pg, server) -> str:
    """Phone A starts a Tableaux table for Ana and Ben; returns the table code."""
    pg.goto(server + "/")
    pg.select_option("#game", "tableaux")
    pg.fill("#players", "Ana\nBen")
    pg.click("#start")
    pg.wait_for_selector("body[data-ready='true']", state="attached")
    pg.click("#seat-buttons button:text('Ana')")
    pg.wait_for_selector("#live-card[data-live='ready']", state="attached")
    return pg.inner_text("#table-code").strip()


POST_FRAME = """async ([url, code, b64]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const fd = new FormData();
  fd.append('frame', new Blob([bytes], { type: 'image/jpeg' }), 'frame.jpg');
  fd.append('camera', 'phone-a');
  const r = await fetch(url, { method: 'POST', headers: { 'X-Table-Code': code }, body: fd });
  return [r.status, await r.json()];
}"""


def totals(pg) -> list[int]:
    return [int(x) for x in pg.locator("#totals td.pts").all_inner_texts()]


def test_phone_b_sees_each_play_the_flag_and_the_score_without_reloading(
    server, browser, monkeypatch
):
    stream, _params = tableaux_stream()
    frames = [item[1] for item in stream if item[0] == "frame"]
    fake_eyes(monkeypatch, frames)
    ctx_a, a = phone(browser)
    ctx_b, b = phone(browser)
    try:
        code = start_tableaux(a, server)
        table_id = a.url.rstrip("/").rsplit("/", 1)[1]
        b.goto(f"{server}/join/{code}")
        b.wait_for_selector("body[data-ready='true']", state="attached")
        b.click("#seat-buttons button:text('Ben')")
        b.wait_for_selector("#live-card[data-live='ready']", state="attached")
        b.evaluate("window.__notReloaded = true")
        url = f"{server}/api/tables/{table_id}/live/frames"
        running = [0, 0]
        plays = flags = 0
        k = 0
        for item in stream:
            if item[0] == "tap":  # phone A's buttons: who is to move, the end of a turn
                if item[1] == "player":
                    a.select_option("#live-turn", str(item[2]))
                else:
                    a.click(f"#live-{item[1]}")
                continue
            b64 = base64.b64encode(frame_jpeg(k, frames[k])).decode()
            status, answer = a.evaluate(POST_FRAME, [url, code, b64])
            k += 1
            assert status == 200, answer
            for rec in answer["records"]:
                if rec["type"] == "play":
                    plays += 1
                    b.wait_for_selector(
                        f"#live-log li.live-play:has-text('played {rec['tile']}')", state="attached"
                    )
                elif rec["type"] == "flag":
                    flags += 1
                    b.wait_for_selector("#live-flag:not([hidden])")
                    assert rec["message"] in b.inner_text("#live-flag")
                    assert "2-2" in b.text_content("#live-log li.live-flag")  # in the folded log
                elif rec["type"] == "score":
                    running[rec["player"]] += rec["points"]
                    b.wait_for_function(
                        "want => [...document.querySelectorAll('#totals td.pts')]"
                        ".map((e) => +e.textContent).join() === want",
                        arg=",".join(map(str, running)),
                    )
        assert plays >= 4 and flags == 1 and sum(running) > 0
        assert totals(b) == running
        assert "(camera)" in b.inner_text("#history")
        # the position after a play became the table's photo: phone B shows its tiles
        b.wait_for_selector("#photo-card:not([hidden]) #overlay polygon", state="attached")
        assert b.evaluate("window.__notReloaded === true")
        b.screenshot(path=str(_artifacts() / "live-phone-b.png"), full_page=True)
    finally:
        ctx_a.close()
        ctx_b.close()


def test_a_solitaire_result_reaches_the_other_phone_and_undo_removes_it(
    server, browser, monkeypatch
):
    game, script, stream = solitaire_stream()
    frames = [item[1] for item in stream]
    fake_eyes(monkeypatch, frames)
    ctx_a, a = phone(browser)
    ctx_b, b = phone(browser)
    try:
        a.goto(server + "/")
        body = {"game": game, "players": ["Me"]}
        if script.params.get("max_pip"):
            body["max_pip"] = script.params["max_pip"]
        t = a.evaluate(
            """async (body) => (await fetch('/api/tables', { method: 'POST',
              headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json()""",
            body,
        )
        b.goto(f"{server}/join/{t['code']}")
        b.wait_for_selector("#live-card[data-live='ready']", state="attached")
        url = f"{server}/api/tables/{t['id']}/live/frames"
        for k in range(len(frames)):
            b64 = base64.b64encode(frame_jpeg(k, frames[k])).decode()
            status, answer = a.evaluate(POST_FRAME, [url, t["code"], b64])
            assert status == 200, answer
        kind = "won" if script.final["won"] else "lost"
        b.wait_for_selector(f"#history li:has-text('{kind} (camera)')", state="attached")
        assert f"{script.final['removed']} removed" in b.inner_text("#history")
        b.click("#undo")
        b.wait_for_selector("#history li.undone:has-text('(undone)')", state="attached")
    finally:
        ctx_a.close()
        ctx_b.close()


def test_the_page_films_frame_after_frame_and_draws_outlines(server, browser, monkeypatch):
    frames = [item[1] for item in tableaux_stream()[0] if item[0] == "frame"]
    # the fake camera's picture carries no frame number: show it the last position every time
    fake_eyes(monkeypatch, [frames[-1]] * 1024)
    ctx, pg = phone(browser)
    try:
        start_tableaux(pg, server)
        pg.click("#live-card summary")  # the live camera is folded below the score sheet
        pg.click("#live-follow")
        pg.wait_for_function("window.dominoLive.frames() >= 4")
        assert pg.inner_text("#live-view") in ("steady", "moving")
        assert pg.locator("#live-overlay polygon").count() == len(frames[-1])
        pg.wait_for_selector("#live-log li.live-hand_start", state="attached")
        pg.locator("#live-card").screenshot(path=str(_artifacts() / "live-filming.png"))
        pg.click("#live-stop")
        n = pg.evaluate("window.dominoLive.frames()")
        pg.wait_for_timeout(600)
        assert pg.evaluate("window.dominoLive.frames()") <= n + 1  # at most the one in flight
        assert pg.inner_text("#live-view") == "camera off"
    finally:
        ctx.close()


def _artifacts():
    from .conftest import ROOT

    d = ROOT / "test-artifacts" / "web"
    d.mkdir(parents=True, exist_ok=True)
    return d
