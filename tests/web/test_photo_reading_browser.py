"""A photo a player can read on a 390 x 844 phone screen: labels sized to their tiles and never
on top of one another, a full-size view to zoom into (tap a tile there to fix it), a box marked
"Not a tile" drawn crossed out with no "?", problems in plain words with the reader's numbers
under "Why".

Real server, real detector, a real cluttered desk photo at full size (the shared photo
``metr4202-G-7-C.png``, 1920 x 1080; without the shared folder, the repository's 640 px sample
photo enlarged to 1920 x 1920).
Chromium: ``/usr/bin/chromium`` (never `playwright install`).
"""

from __future__ import annotations

import itertools

import pytest

from companion import services

from .conftest import SAMPLES
from .test_browser import ARTIFACTS, new_draw_table, shot, wait_until_ready
from .test_browser import server as server  # noqa: F401 - the same server fixture
from .test_uploads import REAL_PHOTOS
from .test_uploads_browser import SCREEN
from .test_uploads_browser import browser as browser  # noqa: F401 - the 390x844 phone
from .test_uploads_browser import page as page  # noqa: F401

pytestmark = pytest.mark.browser

CLUTTERED = REAL_PHOTOS / "metr4202-G-7-C.png"


def label_boxes(page, root: str = "#overlay") -> list[dict]:
    """The screen boxes of the value labels and number badges drawn on the photo."""
    return page.evaluate(
        f"""[...document.querySelectorAll('{root} text.tile-label, {root} text.tile-number-text')]
        .map((t) => {{ const r = t.getBoundingClientRect();
          return {{ text: t.textContent, tile: t.dataset.tile, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom }}; }})"""
    )


def overlap(a: dict, b: dict) -> float:
    ix = max(0.0, min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]))
    iy = max(0.0, min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]))
    smaller = min(
        (a["x1"] - a["x0"]) * (a["y1"] - a["y0"]), (b["x1"] - b["x0"]) * (b["y1"] - b["y0"])
    )
    return ix * iy / max(smaller, 1e-9)


def test_a_cluttered_real_photo_reads_on_a_phone(server, page, tmp_path):  # noqa: F811
    if not services.availability()["detector"]["ok"]:
        pytest.skip("the detector model is not in this checkout")
    photo = CLUTTERED
    if not photo.is_file():  # the repository's 640 px sample, at a phone photo's 1920 px
        import cv2

        photo = tmp_path / "vintage-games-game-night-1920.jpg"
        small = cv2.imread(str(SAMPLES / "vintage-games-game-night.jpg"))
        cv2.imwrite(str(photo), cv2.resize(small, (1920, 1920), interpolation=cv2.INTER_CUBIC))
    t = new_draw_table(server)
    page.goto(f"{server}/join/{t['code']}")
    wait_until_ready(page)
    page.set_input_files("#photo-input", str(photo))
    page.wait_for_selector("#overlay polygon.tile")
    page.wait_for_function("document.getElementById('photo').complete")
    assert "'Your hand' box" not in page.text_content("#photo-card")  # no seat: no such box

    # labels: one per tile (value, or its number with the value in the key), none on another
    boxes = label_boxes(page)
    assert boxes
    for a, b in itertools.combinations(boxes, 2):
        assert overlap(a, b) <= 0.05, (a, b)
    n = page.locator("#overlay polygon.tile").count()
    assert (
        len([b for b in boxes if b["tile"] is not None])
        + (page.text_content("#label-key").count("tile ") if page.is_visible("#label-key") else 0)
        >= n
    )

    # problems in plain words; the reader's numbers (confidences, overlaps) only under "Why"
    problems = page.locator(".problems > li")
    if problems.count():
        for i in range(problems.count()):
            li = problems.nth(i)
            said = li.evaluate("(e) => e.firstChild.textContent")
            assert "%" not in said and "confidence" not in said and "classifier" not in said, said
        whys = page.locator(".problems details.why")
        if whys.count():
            assert not whys.first.locator("p").is_visible()
            whys.first.locator("summary").click()
            assert whys.first.locator("p").is_visible()
    shot(page, "43-cluttered-photo")

    # the photo full size: zoomed in, the labels are bigger on screen; tap a tile to fix it
    small = max(b["y1"] - b["y0"] for b in boxes)
    page.click("#zoom-button")
    page.wait_for_selector("#zoom-dialog[open]")
    assert page.evaluate("document.getElementById('zoom-inner').clientWidth") >= 2 * SCREEN["width"]
    zoomed = label_boxes(page, "#zoom-overlay")
    assert max(b["y1"] - b["y0"] for b in zoomed) >= 2 * small
    page.screenshot(path=str(ARTIFACTS / "44-zoomed.png"))  # the screen, not the page under it
    first = page.locator("#zoom-overlay polygon.tile").first
    first.scroll_into_view_if_needed()
    first.click()
    page.wait_for_selector("#fix-dialog[open]")
    assert page.evaluate("!document.getElementById('zoom-dialog').open")
    # the reader's details of the box are behind "Why" in the fix dialog
    assert page.is_visible("#fix-why summary") and not page.is_visible("#fix-why-text")
    page.click("#fix-why summary")
    assert "confidence" in page.text_content("#fix-why-text")

    # "Not a tile": the box is crossed out, with no "?" or value on it
    index = int(first.get_attribute("data-index"))
    page.click("#fix-not-tile")
    page.wait_for_selector(f"#overlay polygon.tile.removed[data-index='{index}']")
    assert page.locator(f"#overlay text.tile-label[data-tile='{index}']").count() == 0
    assert page.locator("#overlay line.removed-cross").count() == 2
    assert "crossed out" in page.text_content("#tiles-line")
    shot(page, "45-not-a-tile")
