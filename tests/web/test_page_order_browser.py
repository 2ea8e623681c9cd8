"""The table page in the order a player needs it, on a 390 x 844 phone screen: "who are you?"
first, then the photo with its hint (within the first screen once a photo is read), who is to
move and the totals at the top; invite and live camera folded below; the hand box asked for
only once it exists.

Chromium: ``/usr/bin/chromium`` (never `playwright install`). The detector is replaced by
``conftest.lead_double_detector`` (one 6-6 on the table) so the hint is known; the photo sent
is a full-size real photo when the shared folder is there.
"""

from __future__ import annotations

import cv2
import pytest

from .test_browser import new_draw_table, shot, wait_until_ready
from .test_browser import server as server  # noqa: F401 - the same server fixture
from .test_uploads import noisy, real_photos
from .test_uploads_browser import SCREEN
from .test_uploads_browser import browser as browser  # noqa: F401 - the 390x844 phone
from .test_uploads_browser import page as page  # noqa: F401

pytestmark = pytest.mark.browser


def full_size_photo(tmp_path):
    """The largest shared real photo as the camera wrote it, else a 12 MP JPEG of a real one."""
    photos = [p for p in real_photos() if p.suffix.lower() == ".jpg"]
    if photos:
        return max(photos, key=lambda p: p.stat().st_size)
    big = tmp_path / "IMG_0001.jpg"
    cv2.imwrite(str(big), noisy(4032, 3024, 8.0), [cv2.IMWRITE_JPEG_QUALITY, 92])
    return big


def top_of(page, selector: str) -> float:
    return page.evaluate(f"document.querySelector('{selector}').getBoundingClientRect().top")


def in_first_screen(page, selector: str) -> bool:
    """The element is wholly on the screen as it is now (not scrolled to by the test)."""
    box = page.evaluate(
        f"""(() => {{ const r = document.querySelector('{selector}').getBoundingClientRect();
        return [r.top, r.bottom, r.height]; }})()"""
    )
    return box[2] > 0 and box[0] >= 0 and box[1] <= SCREEN["height"]


def test_who_are_you_first_then_the_hint_within_the_first_screen(
    server, page, tmp_path, lead_double_detector
):
    t = new_draw_table(server)
    page.goto(f"{server}/join/{t['code']}")
    wait_until_ready(page)
    # a first visit asks who this phone is before anything else
    assert page.is_visible("#seat-choose") and in_first_screen(page, "#seat-choose")
    assert "Who are you?" in page.text_content("#seat-choose h2")
    for later in ("#capture-card", "#score-card", "#invite", "#live-card"):
        assert top_of(page, "#seat-card") < top_of(page, later), later
    # invite and the live camera with its log are folded below the score sheet
    assert page.evaluate("!document.getElementById('invite').open")
    assert page.evaluate("!document.getElementById('live-card').open")
    assert top_of(page, "#score-card") < top_of(page, "#invite")
    # who is to move and the totals sit in the head, above the photo
    assert page.is_visible("#live-turn") and "Ana 0" in page.text_content("#status-line")

    # a photo before the seat is chosen: no "Your hand" box exists, so none is asked for
    photo = full_size_photo(tmp_path)
    page.set_input_files("#photo-input", str(photo))
    page.wait_for_selector("#analysis-message")
    asked = page.text_content("#analysis-message")
    assert "Choose who you are" in asked and "Your hand" not in asked
    assert page.is_hidden("#hand-input")
    assert "no hand given" not in page.text_content("main")
    assert page.locator(".problems li").count() == 0  # a missing hand is not "wrong"

    page.click("#seat-buttons button:text('Ana')")
    page.wait_for_selector("#hand-input", state="visible")
    page.wait_for_function(
        "document.getElementById('analysis-message').textContent.includes(\"'Your hand' box\")"
    )
    page.fill("#hand-input", "4-6 1-2")
    page.click("#hand-save")
    page.wait_for_selector("#hint-text")
    page.evaluate("window.scrollTo(0, 0)")
    assert in_first_screen(page, "#hint"), "the hint is below the first screen"

    # a new photo: the page leaves the hint in sight once it is read
    page.set_input_files("#photo-input", str(photo))
    page.wait_for_function("document.getElementById('busy').hidden")
    page.wait_for_selector("#hint-text")
    page.wait_for_timeout(800)  # the page's own smooth scroll has ended
    assert in_first_screen(page, "#hint"), "the hint is off screen after the photo was read"
    assert top_of(page, "#hint") < top_of(page, "#photo")  # the hint above the photo it is on
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREEN["width"]
    shot(page, "42-hint-first-screen")

    # an error is said at the top of the screen, in words
    bad = tmp_path / "IMG_0002.jpg"
    bad.write_bytes(b"not a photo at all")
    page.set_input_files("#photo-input", str(bad))
    page.wait_for_selector("#message:not([hidden])")
    page.wait_for_timeout(800)
    assert in_first_screen(page, "#message") and top_of(page, "#message") < SCREEN["height"] / 3
    assert "not an image" in page.text_content("#message")
