"""Browser test of the score sheet's entries (issue 33) on a 390 x 844 screen: a Tableaux pass
is charged to the player to move (or the one chosen under "Whose turn"), never to this phone's
seat; points that are not a number are refused in words naming the player, and the server's
refusals name the player, never an internal id.

Chromium: ``/usr/bin/chromium`` (never `playwright install`).
"""

from __future__ import annotations

import re

import pytest

from .test_browser import server as server  # noqa: F401 - the same server fixture
from .test_browser import start_table
from .test_uploads_browser import browser as browser  # noqa: F401 - Chromium
from .test_uploads_browser import page as page  # noqa: F401 - a 390 x 844 phone

pytestmark = pytest.mark.browser


def points(page) -> list[str]:
    return page.locator("#round-inputs input.points").evaluate_all("l => l.map(i => i.value)")


def test_a_pass_goes_to_the_player_to_move_not_this_phones_seat(server, page):
    start_table(page, server, "tableaux", "Ana\nBen", seat="Ben")  # this phone is Ben
    assert page.input_value("#round-player") == page.get_attribute(
        "#round-inputs input.points >> nth=0", "data-player"
    )  # Ana moves first
    page.select_option("#round-kind", "pass")
    assert points(page) == ["-3", ""]
    page.click("#record")
    page.wait_for_selector("#history li")
    assert page.text_content("#history li") == "pass: Ana -3"
    # the next turn is Ben's: the pass kind stays, the -3 moves on
    page.wait_for_function(
        "document.querySelectorAll('#round-inputs input.points')[1].value === '-3'"
    )
    assert points(page) == ["", "-3"]
    # the one chosen on the page: Ana again
    page.select_option("#round-player", label="Ana")
    assert points(page) == ["-3", ""]
    page.click("#record")
    page.wait_for_function("document.querySelectorAll('#history li').length === 2")
    assert page.locator("#totals td.pts").all_text_contents() == ["-6", "0"]
    # "To move" at the top of the page (the live camera's) chosen: the form follows it
    page.wait_for_function(
        "document.querySelectorAll('#round-inputs input.points')[0].value === '-3'"
    )
    page.select_option("#live-turn", label="Ben")
    assert points(page) == ["", "-3"]
    assert page.input_value("#round-player") == page.get_attribute(
        "#round-inputs input.points >> nth=1", "data-player"
    )


def test_points_that_are_not_a_number_or_too_many_are_refused_naming_the_player(server, page):
    start_table(page, server, "tableaux", "Ana\nBen", seat="Ana")
    page.fill("#round-inputs input.points >> nth=1", "abc")
    page.click("#record")
    page.wait_for_selector("#message:not([hidden])")
    assert page.text_content("#message") == (
        'Points for Ben must be a whole number like 12 or -3, not "abc".'
    )
    page.fill("#round-inputs input.points >> nth=1", "1234")
    page.click("#record")
    page.wait_for_function("document.getElementById('message').textContent.includes('between')")
    message = page.text_content("#message")
    assert message == "points for Ben must be between -3 and 999, got 1234"
    assert not re.search(r"player \d", message)
    assert page.locator("#history li").count() == 0
