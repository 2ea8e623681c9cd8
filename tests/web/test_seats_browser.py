"""Two phones (two browser contexts, 390x844) at one draw table: a seat and its hand belong to
the phone that took it, until it leaves or a code holder frees it."""

from __future__ import annotations

import pytest

from .test_browser import (  # noqa: F401 - fixtures
    browser,
    new_draw_table,
    server,
    shot,
    wait_until_ready,
)

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def phone(browser):  # noqa: F811 - the fixture's value
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    pg.on("dialog", lambda d: d.accept())  # "Free Ana's seat?"
    return ctx, pg


def seat_button(pid: int, free: bool = True) -> str:
    return f"#seat-buttons button.seat[data-player='{pid}']" + (
        ":not([disabled])" if free else "[disabled]"
    )


def test_a_seat_and_its_hand_belong_to_one_phone(server, browser):  # noqa: F811
    t = new_draw_table(server)
    ana, ben = (p["id"] for p in t["players"])
    (ctx_a, a), (ctx_b, b) = phone(browser), phone(browser)
    try:
        a.goto(f"{server}/join/{t['code']}")
        wait_until_ready(a)
        a.click(seat_button(ana))
        a.wait_for_selector("#seat-now:not([hidden])")
        assert "playing as Ana" in a.text_content("#seat-now")
        a.fill("#hand-input", "4-6 1-2")
        a.click("#hand-save")
        a.wait_for_function("document.getElementById('message').textContent.includes('Hand kept')")

        # phone B knows the code, but Ana's seat is shown as held and cannot be taken
        b.goto(f"{server}/join/{t['code']}")
        wait_until_ready(b)
        b.wait_for_selector(seat_button(ana, free=False))
        assert "on another phone" in b.text_content("#seat-buttons")
        assert b.locator("#hand-input").is_hidden()
        assert "4-6" not in b.content()
        # nor can B's phone ask the API for Ana's hand with the code and X-Player
        status = b.evaluate(
            """async ([tid, code, pid]) => (await fetch(`/api/tables/${tid}/hand`,
                 { headers: { 'X-Table-Code': code, 'X-Player': String(pid) } })).status""",
            [t["id"], t["code"], ana],
        )
        assert status == 403
        taken = b.evaluate(
            """async ([tid, code, pid]) => (await fetch(`/api/tables/${tid}/seats/${pid}`,
                 { method: 'POST', headers: { 'X-Table-Code': code } })).status""",
            [t["id"], t["code"], ana],
        )
        assert taken == 409
        assert b.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shot(b, "40-seat-held-by-another-phone")

        # A leaves the seat; B's page hears of it and may take Ana now, with no hand in it
        a.click("#seat-change")
        a.wait_for_selector("#seat-choose:not([hidden])")
        b.click(seat_button(ana))
        b.wait_for_selector("#seat-now:not([hidden])")
        assert "playing as Ana" in b.text_content("#seat-now")
        assert b.input_value("#hand-input") == ""

        # B's phone is lost: A (who holds the code) frees Ana's seat and takes it back
        a.wait_for_selector(seat_button(ana, free=False))
        a.click(f"#seat-buttons button.seat-free[data-player='{ana}']")
        a.click(seat_button(ana))
        a.wait_for_selector("#seat-now:not([hidden])")
        assert "playing as Ana" in a.text_content("#seat-now")
        # B's page is told, through the change feed
        b.wait_for_selector("#seat-choose:not([hidden])")
        assert "freed" in b.text_content("#message")
        b.wait_for_selector(seat_button(ben))
        shot(a, "41-seat-freed-and-taken")
    finally:
        ctx_a.close()
        ctx_b.close()
