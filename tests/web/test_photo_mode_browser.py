"""Photo mode on the table page, on a 390 x 844 phone screen: a player with no live camera taps
"Snap after each play" and takes one photo of the table after each play; each photo goes to the
live endpoint as a still (``still=1``, one stable view), and the page shows the plays and the
score the follower makes of them.

The photos are a draw-game hand rebuilt from the real photo
``sample_images/vintage-games-game-night.jpg`` (``vision.render.real_sequences.hand_to_domino``:
tiles erased in reverse play order, the loser's tiles shown, taken back, the table cleared),
enlarged to 3024 x 3024 as a phone camera writes them. Real server, real detector, real
follower; Chromium: ``/usr/bin/chromium`` (never `playwright install`).
"""

from __future__ import annotations

import random

import cv2
import pytest

from vision.render.real_layouts import VINTAGE
from vision.render.real_sequences import hand_to_domino

from .test_browser import server as server  # noqa: F401 - the same server fixture
from .test_browser import shot, start_table
from .test_uploads_browser import SCREEN
from .test_uploads_browser import browser as browser  # noqa: F401 - Debian's Chromium

pytestmark = pytest.mark.browser


def photos() -> tuple[list[bytes], list[tuple[str, int]], list[int]]:
    """The hand as phone photos: JPEG bytes of each state, the plays ``(tile, seat)`` and the
    final scores the follower must report."""
    image = cv2.imread(str(VINTAGE.path))
    assert image is not None, VINTAGE.path
    # 3 plays by 2 players, then the loser's last 2 tiles shown, taken back, the table cleared
    seq = hand_to_domino(image, VINTAGE.detections(), random.Random(0), "photo mode", 2, 3, [2])
    assert seq.scores is not None
    out = []
    for state in seq.states:
        big = cv2.resize(state, (3024, 3024), interpolation=cv2.INTER_CUBIC)
        ok, buf = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 92])
        assert ok
        out.append(buf.tobytes())
    return out, seq.plays, seq.scores


def test_one_photo_after_each_play_gives_the_plays_and_the_score(server, browser):
    jpegs, plays, scores = photos()
    assert len(jpegs) == 6 and sum(scores) > 0
    ctx = browser.new_context(
        viewport=SCREEN, device_scale_factor=3, is_mobile=True, has_touch=True
    )
    page = ctx.new_page()
    page.set_default_timeout(30_000)
    try:
        start_table(page, server, "draw100", "Ana\nBen", seat="Ana")
        page.wait_for_selector("#live-card[data-live='ready']", state="attached")
        page.click("#live-card summary")  # the live card is folded below the score sheet
        assert page.is_visible("#live-still")
        assert page.inner_text("#live-still") == "Snap after each play"
        names = ["Ana", "Ben"]
        for k, jpeg in enumerate(jpegs):
            with page.expect_file_chooser() as chooser:  # the label opens the phone's camera
                page.click("#live-still")
            assert chooser.value.element.get_attribute("capture") == "environment"
            chooser.value.set_files(
                files=[{"name": f"IMG_{k:04d}.jpg", "mimeType": "image/jpeg", "buffer": jpeg}]
            )
            page.wait_for_function(f"window.dominoLive.stills() === {k + 1}")
            assert page.inner_text("#live-view").startswith(f"photo {k + 1} read")
            if k < len(plays):  # a photo after a play: that play, by that seat, on the page
                tile, seat = plays[k]
                page.wait_for_selector(
                    f"#live-log li.live-play:has-text('{names[seat]} played {tile}')",
                    state="attached",
                )
        want = ",".join(map(str, scores))
        page.wait_for_function(
            "want => [...document.querySelectorAll('#totals td.pts')]"
            ".map((e) => +e.textContent).join() === want",
            arg=want,
        )
        assert page.locator("#live-log li.live-play").count() == len(plays)
        assert page.locator("#live-log li.live-flag").count() == 0
        assert page.is_hidden("#message")
        assert "(camera)" in page.inner_text("#history")
        winner = names[max(range(len(scores)), key=lambda s: scores[s])]
        assert page.locator(f"#live-log li:has-text('{winner} +{max(scores)}')").count() == 1
        shot(page, "34-photo-mode")
    finally:
        ctx.close()
