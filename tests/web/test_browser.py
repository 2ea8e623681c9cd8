"""Browser tests: Playwright drives Debian's Chromium at a phone viewport (360x740) against a
real server on 127.0.0.1. Screenshots go to test-artifacts/web/ (git-ignored).

If /usr/bin/chromium is missing these tests FAIL with a message (CI installs chromium);
never run `playwright install`.
"""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from companion import services
from companion.app import create_app

from .conftest import ROOT, SAMPLES

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts" / "web"
PHONE = {"width": 360, "height": 740}

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The companion on a free loopback port in a thread; yields its base URL."""
    from werkzeug.serving import make_server
    d = tmp_path_factory.mktemp("instance")
    app = create_app({"SECRET_KEY": "browser-test", "DATABASE": str(d / "db.sqlite"), "PHOTO_DIR": str(d / "photos")},
                     instance_path=str(d))
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    yield f"http://127.0.0.1:{srv.port}"
    srv.shutdown()
    th.join(5)


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: install it with `apt-get install -y chromium chromium-driver` "
                    "(never `playwright install`)", pytrace=False)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu",
                                                               "--disable-background-networking"])
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    ctx.close()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def wait_until_ready(page) -> None:
    """Wait until the table page's deferred script has attached its listeners (``body[data-ready]``):
    a file set on the photo input before that is never uploaded."""
    page.wait_for_selector("body[data-ready='true']", state="attached")


def draw_table_with_hand_and_photo(page, server: str, hand: str, photo: str) -> None:
    """Start a two-player draw table, type ``hand``, upload ``sample_images/photo`` and wait
    until the page lists the moves."""
    page.goto(server + "/")
    page.select_option("#game", "draw100")
    page.fill("#players", "Ana\nBen")
    page.click("#start")
    wait_until_ready(page)
    page.fill("#hand-input", hand)
    page.set_input_files("#photo-input", str(SAMPLES / photo))
    page.wait_for_selector("#moves li", timeout=30_000)


def test_phone_starts_a_table_reads_a_photo_fixes_a_tile_and_keeps_score(server, page, request):
    """The whole phone flow. Uses the real vision pipeline when it is installed; without it the
    detector is replaced by fixed boxes (conftest.fake_detector) so the tile drawing and the
    correction are still driven through the browser, and the test says so."""
    detector_ok = services.availability()["detector"]["ok"]
    layout_ok = services.availability()["layout"]["ok"]
    if not detector_ok:
        request.getfixturevalue("fake_detector")
        print("vision.pipeline missing: tiles come from conftest.fake_detector")
    page.goto(server + "/")
    assert no_sideways_scroll(page)
    page.select_option("#game", "draw100")
    page.fill("#players", "Ana\nBen")
    assert page.input_value("#target") == "100"
    shot(page, "01-start")
    page.click("#start")
    wait_until_ready(page)
    assert len(page.text_content("#table-code").strip()) == 6
    assert page.locator(".qr svg").count() == 1
    shot(page, "02-table")

    # upload a real photo (the page shrinks it on a canvas and posts it to the API)
    page.set_input_files("#photo-input", str(SAMPLES / "vintage-games-game-night.jpg"))
    page.wait_for_selector("#photo-card:not([hidden])")
    page.wait_for_function("document.getElementById('photo').complete")
    page.wait_for_selector("#overlay polygon.tile")
    n = page.locator("#overlay polygon.tile").count()
    assert n >= 1
    assert page.locator("#overlay text.tile-label").count() == n
    # without a hand typed in, draw100 has no moves: the page says what to do (or what is wrong)
    assert page.text_content("#analysis").strip() != ""
    if not layout_ok:
        assert "not available" in page.text_content("#analysis")
    shot(page, "03-photo")
    assert no_sideways_scroll(page)

    # correct the first tile by hand
    page.locator("#overlay polygon.tile").last.click()  # drawn last: the smallest, on top
    page.wait_for_selector("#fix-dialog[open]")
    page.select_option("#fix-a", "6")
    page.select_option("#fix-b", "6")
    shot(page, "04-fix")
    page.click("#fix-ok")
    page.wait_for_selector("#overlay polygon.tile.corrected")
    assert "6-6" in page.text_content("#overlay")

    # record two hands, see the running score, undo one
    page.fill("#round-inputs input >> nth=0", "35")
    page.click("#record")
    page.wait_for_selector("#history li")
    page.fill("#round-inputs input >> nth=1", "20")
    page.click("#record")
    page.wait_for_function("document.querySelectorAll('#history li').length === 2")
    totals = page.locator("#totals td.pts").all_text_contents()
    assert totals == ["35", "20"]
    assert "Ana 35" in page.text_content("#status-line")
    shot(page, "05-score")
    page.click("#undo")
    page.wait_for_selector("#history li.undone")
    assert page.locator("#totals td.pts").all_text_contents() == ["35", "0"]
    # reach the target: the winner is shown and recording is closed
    page.fill("#round-inputs input >> nth=0", "70")
    page.click("#record")
    page.wait_for_selector("#winner")
    assert "Ana wins with 105" in page.text_content("#winner")
    assert page.is_disabled("#record")
    shot(page, "06-winner")
    assert no_sideways_scroll(page)


def test_phone_sees_legal_moves_and_the_hint_drawn_on_the_photo(server, page, lead_double_detector):
    """The lead 6-6 on the photo (detector output fixed by the fixture; layout reader and
    engine real) and a hand typed in: the legal moves, the hint, and where to play it."""
    if not services.availability()["layout"]["ok"]:
        pytest.fail("vision.layout is missing: " + services.availability()["layout"]["message"], pytrace=False)
    draw_table_with_hand_and_photo(page, server, "4-6 1-2 0-0 3-5 2-6", "IMG_0350.jpg")
    moves = page.locator("#moves li").all_text_contents()
    assert any("4-6" in m for m in moves) and any("2-6" in m for m in moves)
    assert not any("1-2" in m or "3-5" in m for m in moves)  # no 6 on them: not playable on 6-6
    hint = page.text_content("#hint")
    assert "Hint: play" in hint
    page.wait_for_selector("#overlay polygon.tile.hinted")
    assert "here" in page.text_content("#hint-where")
    shot(page, "09-moves-hint")
    # change the hand: read again, the moves follow
    page.fill("#hand-input", "1-2 3-5")
    page.click("#hand-save")
    page.wait_for_function("document.querySelectorAll('#moves li').length === 0 || "
                           "!document.getElementById('moves').textContent.includes('4-6')")
    assert "4-6" not in page.text_content("#analysis")


def test_phone_reads_the_real_line_of_play_with_the_real_detector(server, page):
    """No stand-in: the committed detector reads the vintage photo's line of play (open ends 0, 0,
    1, 1, 2, 3, 3, 4, 5, 6) and, with a hand typed in, the page lists its moves and the hint."""
    if not (services.availability()["detector"]["ok"] and services.availability()["layout"]["ok"]):
        pytest.fail("vision pipeline missing: " + str(services.availability()), pytrace=False)
    draw_table_with_hand_and_photo(page, server, "1-1 2-2 5-6 6-6", "vintage-games-game-night.jpg")
    assert page.locator("#overlay polygon.tile").count() == 12
    moves = page.locator("#moves li").all_text_contents()
    # 1-1 fits the two open 1s, 5-6 and 6-6 the open 5 and 6, 2-2 the open 2
    assert sum("1-1" in m for m in moves) == 2
    assert any("2-2" in m for m in moves) and any("5-6" in m for m in moves) and any("6-6" in m for m in moves)
    assert "Hint: play" in page.text_content("#hint")
    shot(page, "10-real-detector-moves")
    assert no_sideways_scroll(page)


def test_phone_is_told_clearly_about_a_bad_upload_and_a_wrong_code(server, page, tmp_path):
    page.goto(server + "/")
    page.select_option("#game", "luzon")
    page.click("#start")
    wait_until_ready(page)
    bad = tmp_path / "notes.txt"
    bad.write_text("not a photo at all")
    page.set_input_files("#photo-input", str(bad))
    page.wait_for_selector("#message:not([hidden])")
    assert "not an image" in page.text_content("#message")
    shot(page, "07-bad-upload")
    page.goto(server + "/join?code=WRONG1")
    assert "no table has the code" in page.text_content("main")
    shot(page, "08-wrong-code")


def test_a_lost_answer_to_record_is_resent_and_scored_once(server, page):
    """The server stores the entry but the answer never reaches the phone: the page resends the
    request with the same Idempotency-Key and the entry is stored once."""
    import json
    import urllib.request
    req = urllib.request.Request(f"{server}/api/tables", data=json.dumps({"game": "draw100", "players": ["Ana", "Ben"]}).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        t = json.load(r)
    keys: list[str] = []

    def lose_first_answer(route):
        keys.append(route.request.headers.get("idempotency-key", ""))
        if len(keys) == 1:
            route.fetch()                    # the server stores the entry ...
            route.abort("connectionreset")   # ... and the answer is lost on the way back
        else:
            route.continue_()
    page.route("**/api/tables/*/rounds", lose_first_answer)
    page.goto(f"{server}/join/{t['code']}")
    page.fill("#round-inputs input >> nth=0", "12")
    page.click("#record")
    page.wait_for_selector("#history li")
    assert page.locator("#totals td.pts").all_text_contents() == ["12", "0"]
    assert len(keys) == 2 and keys[0] == keys[1] and len(keys[0]) >= 8
    with urllib.request.urlopen(f"{server}/api/tables/{t['id']}", timeout=30) as r:
        stored = json.load(r)
    assert len(stored["rounds"]) == 1 and stored["players"][0]["total"] == 12
