"""Browser tests: Playwright drives Debian's Chromium at a phone viewport (360x740) against a
real server on 127.0.0.1. Screenshots go to test-artifacts/web/ (git-ignored).

If /usr/bin/chromium is missing these tests FAIL with a message (CI installs chromium);
never run `playwright install`.
"""

from __future__ import annotations

import os
import re
import threading

import pytest

from companion import services, store
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
    app = create_app(
        {
            "SECRET_KEY": "browser-test",
            "DATABASE": str(d / "db.sqlite"),
            "PHOTO_DIR": str(d / "photos"),
        },
        instance_path=str(d),
    )
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    yield f"http://127.0.0.1:{srv.port}"
    srv.shutdown()
    th.join(5)


def launch_chromium(*extra_args: str):
    """Debian's Chromium under Playwright, headless (a generator for a fixture to yield from);
    fails the test with the install command when /usr/bin/chromium is missing."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(
            f"{CHROMIUM} is missing: install it with `apt-get install -y chromium chromium-driver` "
            "(never `playwright install`)",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                *extra_args,
            ],
        )
        yield b
        b.close()


@pytest.fixture(scope="module")
def browser():
    yield from launch_chromium()


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
    """Nothing is wider than the 360 px screen (a wider page makes a phone zoom out)."""
    return page.evaluate(f"document.documentElement.scrollWidth <= {PHONE['width']} + 1")


def wait_until_ready(page) -> None:
    """Wait until the table page's deferred script has attached its listeners (``body[data-ready]``):
    a file set on the photo input before that is never uploaded."""
    page.wait_for_selector("body[data-ready='true']", state="attached")


def new_draw_table(server: str) -> dict:
    """A draw-game table for Ana and Ben made through the API (no page): its JSON."""
    import json
    import urllib.request

    req = urllib.request.Request(
        f"{server}/api/tables",
        data=json.dumps({"game": "draw100", "players": ["Ana", "Ben"]}).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.load(r)


def start_table(
    page,
    server: str,
    game: str,
    players: str = "",
    target: str | None = None,
    seat: str | None = None,
) -> None:
    """Start a table with the start form and wait for the table page; ``seat``: the seat
    button to press ("watch" for Just watching, else a player's name)."""
    page.goto(server + "/")
    page.select_option("#game", game)
    if players:
        page.fill("#players", players)
    if target is not None:
        page.fill("#target", target)
    page.click("#start")
    wait_until_ready(page)
    if seat == "watch":
        page.click("#seat-watch")
    elif seat:
        page.click(f"#seat-buttons button:text('{seat}')")


def draw_table_with_hand_and_photo(page, server: str, hand: str, photo: str) -> None:
    """Start a two-player draw table, type ``hand``, upload ``sample_images/photo`` and wait
    until the page lists the moves."""
    start_table(page, server, "draw100", "Ana\nBen", seat="Ana")  # this phone is Ana
    page.fill("#hand-input", hand)
    page.set_input_files("#photo-input", str(SAMPLES / photo))
    page.wait_for_selector("#moves li", state="attached", timeout=30_000)


def test_phone_starts_a_table_reads_a_photo_fixes_a_tile_and_keeps_score(server, page, request):
    """The whole phone flow. Uses the real vision pipeline when it is installed; without it the
    detector is replaced by fixed boxes (conftest.fake_detector) so the tile drawing and the
    correction are still driven through the browser, and the test says so."""
    detector_ok = services.availability()["detector"]["ok"]
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
    assert len(page.text_content("#table-code").strip()) == store.CODE_LENGTH
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
    # without a seat chosen there is no hand box yet: the page asks who this phone is first
    assert "Choose who you are" in page.text_content("#analysis-message")
    assert "Your hand" not in page.text_content("#analysis-message")
    assert "no hand given" not in page.text_content("#photo-card")
    shot(page, "03-photo")
    assert no_sideways_scroll(page)

    # correct a tile by hand: tap it, tap 6, tap 6
    page.locator("#overlay polygon.tile").last.click()
    page.wait_for_selector("#fix-dialog[open]")
    page.click("#fix-grid button[data-value='6']")
    shot(page, "04-fix")
    page.click("#fix-grid button[data-value='6']")
    page.wait_for_selector("#overlay polygon.tile.corrected")
    assert "6-6" in page.text_content("#overlay")

    # record two hands, see the running score, undo one
    page.fill("#round-inputs input.points >> nth=0", "35")
    page.click("#record")
    page.wait_for_selector("#history li")
    page.fill("#round-inputs input.points >> nth=1", "20")
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
    page.fill("#round-inputs input.points >> nth=0", "70")
    page.click("#record")
    page.wait_for_selector("#winner")
    assert "Ana wins with 105" in page.text_content("#winner")
    assert page.is_disabled("#record") and not page.is_visible(
        "#record"
    )  # no active Record after a win
    assert page.is_visible("#rematch")
    shot(page, "06-winner")
    assert no_sideways_scroll(page)


def test_phone_sees_legal_moves_and_the_hint_drawn_on_the_photo(server, page, lead_double_detector):
    """The lead 6-6 on the photo (detector output fixed by the fixture; layout reader and
    engine real) and a hand typed in: the legal moves, the hint, and where to play it."""
    draw_table_with_hand_and_photo(page, server, "4-6 1-2 0-0 3-5 2-6", "IMG_0350.jpg")
    moves = page.locator("#moves li").all_text_contents()
    assert any("4-6" in m for m in moves) and any("2-6" in m for m in moves)
    assert not any("1-2" in m or "3-5" in m for m in moves)  # no 6 on them: not playable on 6-6
    hint = page.text_content("#hint-text")
    assert re.match(r"Play (4-6|2-6) on the 6 at the (top|bottom|left|right) end", hint), hint
    page.wait_for_selector("#overlay polygon.tile.hinted")
    # the tile to play is outlined in the hand; the photo outlines the 6-6 it goes on
    assert page.locator("#hand-tiles .hand-tile.hinted").all_text_contents() == [hint.split()[1]]
    assert hinted_on_photo(page) == ["6-6"]
    page.wait_for_selector("#overlay #ghost")
    assert "here" in page.text_content("#hint-where")
    shot(page, "09-moves-hint")
    # change the hand: read again, the moves follow
    page.fill("#hand-input", "1-2 3-5")
    page.click("#hand-save")
    page.wait_for_function(
        "document.querySelectorAll('#moves li').length <= 1 || "
        "!document.getElementById('moves').textContent.includes('4-6')"
    )
    assert "4-6" not in page.text_content("#analysis")


def test_phone_reads_the_real_line_of_play_with_the_real_detector(server, page):
    """No stand-in: the committed detector reads the vintage photo's line of play (open ends 0, 0,
    1, 1, 2, 3, 3, 4, 5, 6) and, with a hand typed in, the page lists its moves and the hint."""
    if not services.availability()["detector"]["ok"]:
        pytest.fail("vision pipeline missing: " + str(services.availability()), pytrace=False)
    draw_table_with_hand_and_photo(page, server, "1-1 2-2 5-6 6-6", "vintage-games-game-night.jpg")
    assert page.locator("#overlay polygon.tile").count() == 12
    moves = page.locator("#moves li").all_text_contents()
    # 1-1 fits the two open 1s, 5-6 and 6-6 the open 5 and 6, 2-2 the open 2
    assert sum("1-1" in m for m in moves) == 2
    assert (
        any("2-2" in m for m in moves)
        and any("5-6" in m for m in moves)
        and any("6-6" in m for m in moves)
    )
    assert page.text_content("#hint-text").startswith("Play ")
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

    t = new_draw_table(server)
    keys: list[str] = []

    def lose_first_answer(route):
        keys.append(route.request.headers.get("idempotency-key", ""))
        if len(keys) == 1:
            route.fetch()  # the server stores the entry ...
            route.abort("connectionreset")  # ... and the answer is lost on the way back
        else:
            route.continue_()

    page.route("**/api/tables/*/rounds", lose_first_answer)
    page.goto(f"{server}/join/{t['code']}")
    page.fill("#round-inputs input.points >> nth=0", "12")
    page.click("#record")
    page.wait_for_selector("#history li")
    # the live feed may show the stored entry before the page has resent its request
    for _ in range(100):
        if len(keys) >= 2:
            break
        page.wait_for_timeout(100)
    assert page.locator("#totals td.pts").all_text_contents() == ["12", "0"]
    assert len(keys) == 2 and keys[0] == keys[1] and len(keys[0]) >= 8
    with urllib.request.urlopen(f"{server}/api/tables/{t['id']}", timeout=30) as r:
        stored = json.load(r)
    assert len(stored["rounds"]) == 1 and stored["players"][0]["total"] == 12


def test_points_typed_while_an_entry_is_stored_are_kept(server, page):
    """The answer to Record comes late (the change feed may show the entry first): the points
    typed for the next entry meanwhile stay; only what was sent is cleared."""

    t = new_draw_table(server)
    held: list = []
    page.route("**/api/tables/*/rounds", lambda route: held.append(route))  # it waits here
    page.goto(f"{server}/join/{t['code']}")
    page.fill("#round-inputs input.points >> nth=0", "35")
    page.click("#record")
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    page.fill("#round-inputs input.points >> nth=1", "20")  # the next entry, typed meanwhile
    held[0].continue_()
    page.wait_for_function("document.querySelectorAll('#history li').length === 1")
    page.wait_for_function("document.querySelector('#round-inputs input.points').value === ''")
    assert page.input_value("#round-inputs input.points >> nth=1") == "20"
    assert page.locator("#totals td.pts").all_text_contents() == ["35", "0"]


# --- a page a player can use at the table (all at 360x740) ----------------------------------------

NOTATION = re.compile(
    r"\[\d+\.(end|side)_[ab]\]|\(-?\d+, -?\d+\)=\d+|node limit|RULES\.md|\bslot \d|table tile \d"
)
TOUR = ROOT / "test-artifacts" / "tour"


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory):
    """The companion with the demo tables ``serve`` makes (real pipeline), on a loopback port:
    ``(base URL, {game: table id})``."""
    from werkzeug.serving import make_server

    from companion.commands import serve

    d = tmp_path_factory.mktemp("demo")
    app = create_app(
        {
            "SECRET_KEY": "demo-test",
            "DATABASE": str(d / "db.sqlite"),
            "PHOTO_DIR": str(d / "photos"),
        },
        instance_path=str(d),
    )
    serve.create_demo_tables(app, log=lambda _line: None)
    tables = {t["game"]: t["id"] for t in app.test_client().get("/api/tables").json}
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    yield f"http://127.0.0.1:{srv.port}", tables
    srv.shutdown()
    th.join(5)


def new_context_page(browser):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    return ctx, pg


def inside(inner: dict, outer: dict, slack: float = 1.0) -> bool:
    return (
        inner["x"] >= outer["x"] - slack
        and inner["y"] >= outer["y"] - slack
        and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
        and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack
    )


@pytest.mark.parametrize("game", ["draw100", "tableaux", "good-neighbors", "big-clock", "luzon"])
def test_demo_table_of_every_game_shows_the_hint_drawn_on_the_photo(demo_server, page, game):
    """Each demo table opens without an error; the hint is a sentence in players' words, drawn on
    the photo (a ghost tile at its place, or the pair to remove outlined and joined), its label
    inside the photo; details open on demand; rendered pictures say so."""
    base, tables = demo_server
    page.goto(f"{base}/t/{tables[game]}")
    if game in ("draw100", "tableaux"):
        page.click(
            "#seat-buttons button[data-player] >> nth=0"
        )  # the demo hand is the first seat's
    wait_until_ready(page)
    page.wait_for_selector("#hint-text")
    page.wait_for_function("document.getElementById('photo').complete")
    assert not page.is_visible("#analysis-message") and page.locator(".problems li").count() == 0
    text = page.text_content("#hint-text")
    assert not NOTATION.search(page.text_content("main")), page.text_content("main")
    assert page.is_visible("#rendered-note") == (game != "draw100")
    if game in ("draw100", "tableaux", "big-clock"):
        assert page.locator("#overlay #ghost").count() == 1, text
    else:
        assert page.locator("#overlay line.pair-line").count() >= 1
        assert page.locator("#overlay polygon.tile.hinted").count() >= 2
    # every tile the hint handles is outlined: on the photo or in the player's hand
    tiles = page.get_attribute("#hint", "data-tiles").split()
    in_hand = page.locator("#hand-tiles .hand-tile.hinted").all_text_contents()
    assert tiles and set(tiles) <= set(hinted_on_photo(page)) | set(in_hand), (text, tiles)
    label = page.locator("#hint-label-bg").bounding_box()
    assert inside(label, page.locator("#overlay").bounding_box()), "the hint label leaves the photo"
    covered = page.evaluate("""(() => { const r = document.getElementById('hint-label-bg');
        const [x, y, w, h] = ['x', 'y', 'width', 'height'].map((k) => +r.getAttribute(k));
        return [...document.querySelectorAll('#overlay text.tile-label')].filter((t) =>
          +t.getAttribute('x') > x && +t.getAttribute('x') < x + w && +t.getAttribute('y') > y && +t.getAttribute('y') < y + h)
          .map((t) => t.textContent); })()""")
    assert not covered, f"the hint label covers the tile(s) {covered}"
    details = page.locator("#hint-details")
    if details.count():
        assert not page.is_visible("#hint-details li")
        page.click("#hint-details summary")
        assert page.is_visible("#hint-details li")
    assert no_sideways_scroll(page)
    TOUR.mkdir(parents=True, exist_ok=True)
    page.locator("#photo-card").screenshot(path=str(TOUR / f"{game}.png"))
    shot(page, f"20-demo-{game}")


def hinted_on_photo(page) -> list[str]:
    """The tiles ("low-high") of the photo boxes the page outlines for the hint."""
    labels = page.evaluate(
        "[...document.querySelectorAll('#overlay polygon.tile.hinted')]"
        ".map((p) => p.getAttribute('aria-label'))"
    )
    out = []
    for lab in labels:
        a, b = re.search(r"tile \d+: (\d+)-(\d+)", lab).groups()
        out.append("-".join(sorted((a, b), key=int)))
    return sorted(out)


def test_a_good_neighbors_hint_outlines_the_tiles_it_removes(demo_server, page):
    """The hint names the neighbours to remove; exactly those boxes are outlined on the photo."""
    base, tables = demo_server
    page.goto(f"{base}/t/{tables['good-neighbors']}")
    wait_until_ready(page)
    page.wait_for_selector("#hint-text")
    text = page.text_content("#hint-text")
    named = sorted(re.findall(r"\d+-\d+", text))
    assert text.startswith("Remove the neighbours") and len(named) >= 2, text
    page.wait_for_selector("#overlay polygon.tile.hinted")
    # the tiles as their labels on the photo write them ("2-0" stays "2-0")
    labels = page.evaluate(
        "[...document.querySelectorAll('#overlay polygon.tile.hinted')]"
        ".map((p) => p.getAttribute('aria-label').match(/tile \\d+: (\\d+-\\d+)/)[1])"
    )
    assert sorted(labels) == named
    assert page.locator("#overlay line.pair-line").count() == len(named) // 2


def test_a_tableaux_hint_outlines_the_hand_tile_it_plays(demo_server, page):
    """The player's hand is shown under the hint with the tile the hint plays outlined, and only
    that one; the photo outlines the placed tile the new one goes next to, not a hand tile."""
    base, tables = demo_server
    page.goto(f"{base}/t/{tables['tableaux']}")
    page.click("#seat-buttons button[data-player] >> nth=0")  # the demo hand is the first seat's
    wait_until_ready(page)
    page.wait_for_selector("#hand-tiles .hand-tile")
    text = page.text_content("#hint-text")
    played = re.match(r"Play (\d+-\d+)", text).group(1)
    hand = page.locator("#hand-tiles .hand-tile").all_text_contents()
    assert played in hand and len(hand) >= 2, (text, hand)
    outlined = page.locator("#hand-tiles .hand-tile.hinted").all_text_contents()
    assert outlined == [played]
    assert played not in hinted_on_photo(page)
    near = re.search(r"next to the (\d+)-(\d+)", text)  # written as the photo labels it
    if near:
        assert "-".join(sorted(near.groups(), key=int)) in hinted_on_photo(page)
    page.locator("#analysis").screenshot(path=str(ARTIFACTS / "21-tableaux-hand-hint.png"))


def test_each_phone_keeps_its_own_hand_and_a_watcher_sees_none(
    server, browser, lead_double_detector
):
    """Two players' phones and a watcher at one draw table: each phone picks its seat, types its
    hand and sees the moves for its own hand only; the watcher sees no hand and no hand box."""

    t = new_draw_table(server)
    phones = [new_context_page(browser) for _ in range(3)]
    try:
        (_, ana), (_, ben), (_, watcher) = phones
        for pg, name, hand in ((ana, "Ana", "4-6 1-2"), (ben, "Ben", "2-6 3-3")):
            pg.goto(f"{server}/join/{t['code']}")
            wait_until_ready(pg)
            pg.click(f"#seat-buttons button:text('{name}')")
            pg.fill("#hand-input", hand)
            pg.click("#hand-save")
        ana.set_input_files("#photo-input", str(SAMPLES / "IMG_0350.jpg"))
        ana.wait_for_selector("#hint-text")
        assert ana.text_content("#hint-text").startswith("Play 4-6")
        assert no_sideways_scroll(ana)
        shot(ana, "21-hand-ana")
        ben.reload()
        wait_until_ready(ben)
        ben.wait_for_selector("#hint-text")
        assert (
            ben.text_content("#hint-text").startswith("Play 2-6")
            and ben.input_value("#hand-input") == "2-6 3-3"
        )
        assert "playing as Ben" in ben.text_content("#seat-now")
        ana.reload()
        wait_until_ready(ana)
        assert ana.input_value("#hand-input") == "4-6 1-2"  # Ben's hand did not overwrite Ana's
        watcher.goto(f"{server}/t/{t['id']}")
        wait_until_ready(watcher)
        assert (
            watcher.locator("#hand-input").count() == 0
            and watcher.locator("#hint-text").count() == 0
        )
        assert "4-6" not in watcher.text_content("main") and "2-6" not in watcher.text_content(
            "main"
        ).replace("2-6", "", 0)
        shot(watcher, "22-watcher")
    finally:
        for ctx, _pg in phones:
            ctx.close()


def test_fix_dialog_two_taps_not_a_tile_face_down_and_add_a_tile(server, page, fake_detector):
    start_table(page, server, "luzon")
    page.set_input_files("#photo-input", str(SAMPLES / "IMG_0350.jpg"))
    page.wait_for_selector("#overlay polygon.tile >> nth=2")
    page.wait_for_function("document.getElementById('photo').complete")
    # a tap near (not on) a small tile opens it: every tile answers a 44 px target
    # (tile box relative to the photo, measured in one frame: the page may still be scrolling)
    box = page.evaluate("""(() => { const o = document.getElementById('overlay').getBoundingClientRect();
        const t = document.querySelectorAll('#overlay polygon.tile')[1].getBoundingClientRect();
        return {x: t.left - o.left, y: t.top - o.top, width: t.width, height: t.height}; })()""")
    assert box["width"] < 44  # the boxes are small on a 360 px screen
    page.locator("#overlay").click(
        position={"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] + 12}
    )
    page.wait_for_selector("#fix-dialog[open]")
    assert "Tile 2: read as 5-5" in page.text_content("#fix-title")
    assert (
        page.evaluate(
            "Math.max(document.getElementById('fix-preview').getBoundingClientRect().width, "
            "document.getElementById('fix-preview').getBoundingClientRect().height)"
        )
        >= 150
    )  # the tile, big
    sizes = page.evaluate(
        "[...document.querySelectorAll('#fix-dialog button')].filter(b => b.offsetParent)"
        ".map(b => [b.getBoundingClientRect().width, b.getBoundingClientRect().height])"
    )
    assert sizes and all(w >= 44 and h >= 44 for w, h in sizes), sizes
    assert no_sideways_scroll(page)
    shot(page, "23-fix-picker")
    page.click("#fix-grid button[data-value='1']")
    page.click("#fix-grid button[data-value='4']")  # two taps: saved
    page.wait_for_selector("#overlay polygon.tile.corrected")
    assert "1-4" in page.text_content("#overlay")
    page.locator("#overlay polygon.tile >> nth=0").click()
    page.click("#fix-not-tile")
    page.wait_for_function(
        "document.querySelectorAll('#overlay polygon.tile.corrected').length === 2"
    )
    page.locator("#overlay polygon.tile >> nth=2").click()
    page.click("#fix-face-down")
    page.wait_for_function(
        "document.querySelectorAll('#overlay polygon.tile.corrected').length === 3"
    )
    # add a missed tile: the button, a tap on the photo, two numbers
    page.click("#add-tile")
    ov = page.locator("#overlay").bounding_box()
    page.locator("#overlay").click(position={"x": ov["width"] * 0.8, "y": ov["height"] * 0.7})
    page.wait_for_selector("#fix-dialog[open]")
    assert page.text_content("#fix-title") == "Add a tile here"
    page.click("#fix-grid button[data-value='2']")
    page.click("#fix-grid button[data-value='3']")
    page.wait_for_function("document.querySelectorAll('#overlay polygon.tile').length === 4")
    assert "2-3" in page.text_content("#overlay")
    shot(page, "24-fixed")


def test_problem_tiles_are_numbered_on_the_photo(server, page, lead_double_detector):
    """A hand tile that is also on the table: the message names "tile 1" and the number 1 is drawn."""
    start_table(page, server, "draw100", "Ana\nBen", seat="Ana")
    page.fill("#hand-input", "6-6 1-2")
    page.set_input_files("#photo-input", str(SAMPLES / "IMG_0350.jpg"))
    page.wait_for_selector("#analysis-message")
    assert "tile 1" in page.text_content("#analysis-message")
    assert no_sideways_scroll(page)
    assert page.locator("#overlay text[data-tile-number='1']").count() == 1
    shot(page, "25-numbered-problem")


def test_start_form_shows_only_what_the_game_takes_and_keeps_input_on_error(server, page):
    page.goto(server + "/")
    visible = lambda sel: page.is_visible(sel)  # noqa: E731
    page.select_option("#game", "luzon")
    assert (
        visible("#variant-row")
        and not visible("#players-row")
        and not visible("#target-row")
        and not visible("#set-row")
    )
    page.select_option("#game", "good-neighbors")
    assert not visible("#variant-row") and not visible("#players-row") and visible("#set-row")
    page.select_option("#game", "draw100")
    assert (
        not visible("#variant-row")
        and visible("#players-row")
        and visible("#target-row")
        and not visible("#set-row")
    )
    page.select_option("#game", "tableaux")
    assert visible("#set-row") and visible("#target-row") and not visible("#variant-row")
    assert no_sideways_scroll(page)
    shot(page, "26-start-tableaux")
    # two names the same: refused, the form comes back as typed with the reason
    page.select_option("#game", "draw100")
    page.fill("#players", "Ana\nana")
    page.fill("#target", "150")
    page.click("#start")
    page.wait_for_selector("#form-error")
    assert "two players are called" in page.text_content("#form-error")
    assert page.input_value("#players") == "Ana\nana" and page.input_value("#target") == "150"
    assert page.input_value("#game") == "draw100"
    shot(page, "27-start-error")
    assert page.locator("link[rel=icon]").count() == 1


def test_scores_pass_minus_blocked_rematch_and_delete(server, page):
    start_table(page, server, "tableaux", "Ana\nBen", seat="watch")
    page.select_option("#round-kind", "pass")  # Ana's turn: -3 filled in
    assert page.locator("#round-inputs input.points").evaluate_all("l => l.map(i => i.value)") == [
        "-3",
        "",
    ]
    page.click("#record")
    page.wait_for_selector("#history li")
    page.select_option("#round-kind", "play")
    page.fill("#round-inputs input.points >> nth=1", "4")
    page.click("#round-inputs button.minus >> nth=1")  # the minus key numeric keyboards lack
    assert page.input_value("#round-inputs input.points >> nth=1") == "-4"
    page.click("#round-inputs button.minus >> nth=1")
    assert page.input_value("#round-inputs input.points >> nth=1") == "4"
    assert page.locator("#totals td.pts").all_text_contents() == ["-3", "0"]
    shot(page, "28-tableaux-pass")
    page.once("dialog", lambda d: d.accept())
    if not page.is_visible("#delete-table"):
        page.click("details.share summary")  # open the invite card
    page.click("#delete-table")
    page.wait_for_url(server + "/")
    # draw to 100: the points of a blocked hand come from the tiles left in each hand
    start_table(page, server, "draw100", "Ana\nBen\nCleo", "20", seat="watch")
    lefts = page.locator("#round-inputs input.left")
    lefts.nth(0).fill("1-2")  # 3 pips: fewest
    lefts.nth(1).fill("6-6 0-4")  # 16
    lefts.nth(2).fill("5-5")  # 10
    assert page.input_value("#round-kind") == "blocked"
    assert page.locator("#round-inputs input.points").evaluate_all("l => l.map(i => i.value)") == [
        "23",
        "",
        "",
    ]
    assert "26 - 3 = 23" in page.text_content("#count-note")
    assert no_sideways_scroll(page)
    shot(page, "29-blocked")
    page.click("#record")
    page.wait_for_selector("#winner")
    assert not page.is_visible("#record") and page.is_visible("#rematch")
    shot(page, "30-won")
    page.click("#rematch")
    page.wait_for_function(
        "document.getElementById('status-line') && document.body.dataset.ready === 'true' "
        "&& !document.getElementById('winner')"
    )
    assert "Ana 0 \u00b7 Ben 0 \u00b7 Cleo 0 (to 20)" in page.text_content("#status-line")
    assert page.is_visible("#record")


def test_domino_points_are_the_pips_left_in_the_other_hands(server, page, monkeypatch):
    """Ben's tiles left come from a photo of them (read, not stored); Ana went out: domino."""
    monkeypatch.setattr(services, "detect_hand", lambda image: [{"pips": [6, 6]}, {"pips": [4, 0]}])
    start_table(page, server, "draw100", "Ana\nBen", seat="watch")
    page.locator("#round-inputs input.left-file").nth(1).set_input_files(
        str(SAMPLES / "IMG_0350.jpg")
    )
    page.wait_for_function(
        "document.querySelectorAll('#round-inputs input.left')[1].value === '6-6 0-4'"
    )
    assert page.input_value("#round-kind") == "domino"
    assert page.locator("#round-inputs input.points").evaluate_all("l => l.map(i => i.value)") == [
        "16",
        "",
    ]
    shot(page, "31-domino-from-photo")
    page.click("#record")
    page.wait_for_selector("#history li")
    assert "(photo)" in page.text_content("#history") and page.locator("#photo-card").is_hidden()
