"""Browser test of the Big Clock's drawn tile on a NEW table (issue 33; not the demo, whose tile
is stored in advance), on a 390 x 844 screen: every phone with the code sees the box "The tile
you drew" (a solitaire has no seat card), the tile typed, picked (two taps) or photographed
brings the hint.

The photo is ``sample_images/rendered/big-clock.jpg`` read by the real detector (0-0, 3-3, 1-4,
4-4, 3-5, 4-5 and 0-6 on the clock; the tiles 2-6 and 0-3 are in the stock).
Chromium: ``/usr/bin/chromium`` (never `playwright install`).
"""

from __future__ import annotations

import cv2
import pytest

from engine.tiles import Tile
from vision.render.scene import Placement, render_scene

from .conftest import SAMPLES
from .test_browser import server as server  # noqa: F401 - the same server fixture
from .test_browser import shot, start_table
from .test_uploads_browser import SCREEN
from .test_uploads_browser import browser as browser  # noqa: F401 - Chromium

pytestmark = pytest.mark.browser


def phone(browser):
    ctx = browser.new_context(
        viewport=SCREEN, device_scale_factor=3, is_mobile=True, has_touch=True
    )
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    return ctx, pg


def one_tile_photo(path, tile: Tile) -> None:
    """A photo of one tile lying face up (``vision.render``; the real detector reads it)."""
    scene = render_scene(
        [Placement(tile, angle_deg=20)], 0, image_size=(960, 720), effects=0.5, clutter=0, fill=0.3
    )
    cv2.imwrite(str(path), scene.image)


def test_a_new_big_clock_table_takes_the_drawn_tile_typed_picked_or_photographed(
    server, browser, tmp_path
):
    ctx, page = phone(browser)
    ctx2, other = phone(browser)
    try:
        start_table(page, server, "big-clock")
        assert page.is_visible("#hand-form") and "The tile you drew" in page.text_content(
            "#hand-form"
        )
        assert page.locator("#seat-card").count() == 0  # a solitaire has no seat to choose
        # typed before any photo: kept, and sent with the photo
        page.fill("#hand-input", "2-6")
        page.click("#hand-save")
        page.wait_for_selector("#message:not([hidden])")
        assert "Tile kept" in page.text_content("#message")
        page.set_input_files("#photo-input", str(SAMPLES / "rendered" / "big-clock.jpg"))
        page.wait_for_selector("#hint-text")
        assert page.text_content("#hint-text").strip()
        assert page.text_content("#hand-tiles") == "The tile you drew: 2-6"
        assert "which tile did you draw" not in page.text_content("#analysis")
        # picked: two taps on the numbers, used at once
        page.click("#drawn-pick button[data-value='3']")
        page.click("#drawn-pick button[data-value='0']")
        page.wait_for_function(
            "(document.getElementById('hand-tiles') || {}).textContent === 'The tile you drew: 0-3'"
        )
        assert page.input_value("#hand-input") == "0-3"
        assert page.text_content("#hint-text").strip()
        # photographed: a photo of the one tile drawn
        one_tile_photo(tmp_path / "tile.jpg", Tile(2, 6))
        page.set_input_files("#hand-photo-input", str(tmp_path / "tile.jpg"))
        page.wait_for_function(
            "(document.getElementById('hand-tiles') || {}).textContent === 'The tile you drew: 2-6'"
        )
        assert page.input_value("#hand-input") == "2-6"
        assert page.text_content("#message") == "Read the tile you drew: 2-6."
        assert page.text_content("#hint-text").strip()
        shot(page, "33-big-clock-new-table-drawn-tile")
        # another phone with the code sees the box too
        code = page.inner_text("#table-code").strip()
        other.goto(f"{server}/join/{code}")
        other.wait_for_selector("body[data-ready='true']", state="attached")
        assert other.is_visible("#hand-form") and other.is_visible("#drawn-pick")
    finally:
        ctx.close()
        ctx2.close()
