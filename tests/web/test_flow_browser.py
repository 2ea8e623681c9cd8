"""One table, one flow, with two phones (two browser contexts at 390x844): a recorded hand
clears the photo, hint and hand on both; Rematch on one phone moves the other too, each keeping
its seat. The detector is ``conftest.lead_double_detector`` (a known hint)."""

from __future__ import annotations

import pytest

from .conftest import SAMPLES
from .test_browser import new_draw_table, shot, wait_until_ready
from .test_browser import server as server  # noqa: F401 - the same server fixture
from .test_seats_browser import browser as browser  # noqa: F401
from .test_seats_browser import phone, seat_button

pytestmark = pytest.mark.browser


def test_a_hand_recorded_and_a_rematch_move_every_phone(server, browser, lead_double_detector):  # noqa: F811
    t = new_draw_table(server)
    ana, ben = (p["id"] for p in t["players"])
    (ctx_a, a), (ctx_b, b) = phone(browser), phone(browser)
    try:
        for pg, pid in ((a, ana), (b, ben)):
            pg.goto(f"{server}/join/{t['code']}")
            wait_until_ready(pg)
            pg.click(seat_button(pid))
            pg.wait_for_selector("#seat-now:not([hidden])")
            pg.wait_for_selector("#live-card[data-live='ready']", state="attached")
        a.fill("#hand-input", "4-6 1-2")
        a.set_input_files("#photo-input", str(SAMPLES / "IMG_0350.jpg"))
        a.wait_for_selector("#hint-text")
        b.wait_for_selector("#photo-card:not([hidden])")  # Ben's phone shows the photo too

        # a hand is recorded on Ben's phone: both phones are ready for the next hand
        b.fill(f"#round-inputs input.points[data-player='{ana}']", "30")
        b.click("#record")
        for pg in (a, b):
            pg.wait_for_selector("#photo-card", state="hidden")
            assert pg.locator("#hint-text").count() == 0
        assert a.input_value("#hand-input") == ""
        assert "Ana 30" in a.text_content("#status-line")

        # Ana reaches the target on her phone; Ben presses Rematch: both move on, seats kept
        a.fill(f"#round-inputs input.points[data-player='{ana}']", "75")
        a.click("#record")
        b.wait_for_selector("#rematch", state="visible")
        b.click("#rematch")
        b.wait_for_url(lambda url: f"/t/{t['id']}" not in url)
        a.wait_for_url(lambda url: f"/t/{t['id']}" not in url)
        assert a.url == b.url
        for pg, name in ((a, "Ana"), (b, "Ben")):
            wait_until_ready(pg)
            assert f"playing as {name}" in pg.text_content("#seat-now")
            assert "Ana 0" in pg.text_content("#status-line")
        shot(a, "46-rematch-moved")
    finally:
        ctx_a.close()
        ctx_b.close()
