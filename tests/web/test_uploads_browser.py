"""Browser test of uploads at a phone's size (issue 33), on a 390 x 844 screen: a full-size
photo through the page is read; a photo the server refuses is said at the top of the screen in
words, and the photo still shown is marked as the previous one until a new one is read.

Real server, real detector; Chromium: ``/usr/bin/chromium`` (never `playwright install`).
"""

from __future__ import annotations

import cv2
import pytest

from .conftest import SAMPLES
from .test_browser import launch_chromium, shot, start_table
from .test_browser import server as server  # noqa: F401 - the same server fixture
from .test_uploads import noisy, real_photos

pytestmark = pytest.mark.browser

#: The phone of issue 33's tests (also imported by the other 390 x 844 browser tests).
SCREEN = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def browser():
    yield from launch_chromium()


@pytest.fixture()
def page(browser):
    ctx = browser.new_context(
        viewport=SCREEN, device_scale_factor=3, is_mobile=True, has_touch=True
    )
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    ctx.close()


def read_photo_id(page) -> str:
    """The id in the shown photo's URL (``/api/tables/<t>/photos/<id>/image``)."""
    return page.get_attribute("#photo", "src").rstrip("/").split("/")[-2]


def test_a_full_size_photo_is_read_and_a_refused_one_leaves_the_old_photo_marked(
    server, page, tmp_path
):
    photos = real_photos()
    if photos:  # the largest shared real photo, as the camera wrote it
        big = max(photos, key=lambda p: p.stat().st_size)
    else:  # a 12-megapixel JPEG of 3-5 MB made from a real photo
        big = tmp_path / "IMG_0001.jpg"
        cv2.imwrite(str(big), noisy(4032, 3024, 8.0), [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert big.stat().st_size > 2_000_000
    start_table(page, server, "draw100", "Ana\nBen", seat="Ana")
    page.set_input_files("#photo-input", str(big))
    page.wait_for_selector("#photo-card:not([hidden])")
    page.wait_for_function("document.getElementById('tiles-line').textContent.length > 0")
    assert page.is_hidden("#message") and page.is_hidden("#old-photo")
    first = read_photo_id(page)

    bad = tmp_path / "IMG_0002.jpg"  # what a broken camera app might hand over
    bad.write_bytes(b"not a photo at all")
    page.set_input_files("#photo-input", str(bad))
    page.wait_for_selector("#old-photo:not([hidden])")
    message = page.text_content("#message")
    assert message.startswith("The photo was not read:") and "not an image" in message
    at_top = "(() => { const r = document.getElementById('message').getBoundingClientRect();"
    at_top += f" return r.top >= 0 && r.bottom < {SCREEN['height'] / 3}; }})()"
    page.wait_for_function(at_top)
    page.wait_for_timeout(1000)  # and it stays there once the page has stopped scrolling
    assert page.evaluate(at_top)
    assert "previous photo" in page.text_content("#old-photo")
    assert read_photo_id(page) == first
    shot(page, "33-refused-photo-old-marked")

    page.set_input_files("#photo-input", str(SAMPLES / "IMG_0359.jpg"))
    page.wait_for_function(f"!document.getElementById('photo').src.includes('/photos/{first}/')")
    page.wait_for_selector("#old-photo", state="hidden")
    assert page.is_hidden("#message")


def test_the_page_shrinks_a_photo_upright_by_its_exif_orientation(server, page, tmp_path):
    """A 2400 x 1800 JPEG whose EXIF says "turn 90 degrees clockwise" (orientation 6, as a phone
    held upright writes it) is sent upright and shrunk to 1600 px on its long side."""
    from .test_images import jpeg_with_orientation

    photo = tmp_path / "IMG_0003.jpg"
    photo.write_bytes(jpeg_with_orientation(noisy(2400, 1800, 2.0), 6))
    start_table(page, server, "luzon")
    page.set_input_files("#photo-input", str(photo))
    page.wait_for_function("document.getElementById('photo').naturalWidth > 0")
    size = page.evaluate(
        "[document.getElementById('photo').naturalWidth, document.getElementById('photo').naturalHeight]"
    )
    assert size == [1200, 1600]
