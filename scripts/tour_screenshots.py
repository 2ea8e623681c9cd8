#!/usr/bin/env python
"""The screenshot tour of docs/companion.md: the table page on a 390 x 844 phone screen, on
real photos read by the real detector.

Starts the companion on a fresh temporary instance (127.0.0.1, a free port), drives Debian's
Chromium with Playwright (two phones where the tour needs two) and writes
``docs/img/tour-*.png`` (the screen as the phone shows it, 1 CSS px = 1 image px, PNG).

    .venv/bin/python scripts/tour_screenshots.py
    .venv/bin/python scripts/tour_screenshots.py --cluttered ../shared/real_photos/metr4202-G-7-C.png

The draw-game photo is ``sample_images/vintage-games-game-night.jpg`` (a real photo of a line of
play, as the demo table uses it, with the demo's hand 6-6 2-6 1-2 0-3); the cluttered desk photo
(``--cluttered``, default ``$DOMINO_REAL_PHOTOS/metr4202-G-7-C.png`` or
``../shared/real_photos/metr4202-G-7-C.png``) shows labels, zoom and problems. Chromium:
``/usr/bin/chromium`` (never `playwright install`).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SCREEN = {"width": 390, "height": 844}
PHOTO = ROOT / "sample_images" / "vintage-games-game-night.jpg"
HAND = "6-6 2-6 1-2 0-3"
REAL = Path(os.environ.get("DOMINO_REAL_PHOTOS", ROOT.parent / "shared" / "real_photos"))


#: Largest tour picture, bytes: a screen with a big photo on it is stored with 5 bits per
#: colour channel (photo gradients band a little, text stays sharp).
MAX_BYTES = 190 * 1024


def small_png(path: Path) -> None:
    """Re-encode the screenshot ``path`` at PNG's best compression, with fewer colour levels
    when it is still over :data:`MAX_BYTES`."""
    import cv2
    import numpy as np

    img = cv2.imread(str(path))
    if img is None:
        raise SystemExit(f"{path}: the screenshot could not be read back")
    pixels = np.asarray(img, np.uint8)
    cv2.imwrite(str(path), pixels, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if path.stat().st_size > MAX_BYTES:
        fewer = np.bitwise_or(np.bitwise_and(pixels, 0xF8), 0x04).astype(np.uint8)
        cv2.imwrite(str(path), fewer, [cv2.IMWRITE_PNG_COMPRESSION, 9])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cluttered", type=Path, default=REAL / "metr4202-G-7-C.png")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = ap.parse_args(argv)
    if not args.cluttered.is_file():
        ap.error(f"{args.cluttered} is not a file (give --cluttered PATH)")
    from playwright.sync_api import sync_playwright
    from werkzeug.serving import make_server

    from companion.app import create_app

    d = tempfile.mkdtemp(prefix="tour-")
    app = create_app(
        {"SECRET_KEY": "tour", "DATABASE": f"{d}/db.sqlite", "PHOTO_DIR": f"{d}/photos"},
        instance_path=d,
    )
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.port}"
    args.out.mkdir(parents=True, exist_ok=True)
    written = []

    def snap(page, name: str) -> None:
        path = args.out / f"tour-{name}.png"
        page.screenshot(path=str(path))
        small_png(path)
        written.append(path)

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )

        def phone():
            ctx = browser.new_context(
                viewport=SCREEN, device_scale_factor=1, is_mobile=True, has_touch=True
            )
            pg = ctx.new_page()
            pg.set_default_timeout(60_000)
            pg.on("dialog", lambda dlg: dlg.accept())
            return pg

        a = phone()
        a.goto(base + "/")
        a.select_option("#game", "draw100")
        a.fill("#players", "Ana\nBen\nCleo")
        a.click("#start")
        a.wait_for_selector("body[data-ready='true']", state="attached")
        snap(a, "1-who-are-you")
        code = a.inner_text("#table-code").strip()

        a.click("#seat-buttons button:text('Ana')")
        a.wait_for_selector("#hand-input", state="visible")
        a.fill("#hand-input", HAND)
        a.set_input_files("#photo-input", str(PHOTO))
        a.wait_for_selector("#hint-text")
        a.wait_for_function("document.getElementById('photo').complete")
        a.wait_for_timeout(900)  # the page's own scroll to the photo card has ended
        snap(a, "2-hint")

        a.click("#zoom-button")
        a.wait_for_selector("#zoom-dialog[open]")
        a.wait_for_function("document.getElementById('zoom-photo').complete")
        snap(a, "3-zoom")
        a.click("#zoom-close")

        b = phone()  # Ben's phone: Ana's seat is held by Ana's phone
        b.goto(f"{base}/join/{code}")
        b.wait_for_selector("body[data-ready='true']", state="attached")
        b.wait_for_selector("#seat-buttons button[disabled]")
        snap(b, "4-seat-held")

        # a cluttered desk seen from afar: labels sized to the tiles, problems in plain words
        a.click("#new-hand")
        a.wait_for_selector("#photo-card", state="hidden")
        a.set_input_files("#photo-input", str(args.cluttered))
        a.wait_for_selector("#overlay polygon.tile")
        a.wait_for_function("document.getElementById('photo').complete")
        why = a.locator(".problems details.why summary").first
        if why.count():
            why.click()
        a.locator("#photo").scroll_into_view_if_needed()
        a.evaluate(
            "window.scrollBy(0, document.getElementById('photo').getBoundingClientRect().top - 8)"
        )
        snap(a, "5-problems")
        a.click("#zoom-button")
        a.wait_for_selector("#zoom-dialog[open]")
        a.wait_for_function("document.getElementById('zoom-photo').complete")
        a.click("#zoom-in")
        a.wait_for_timeout(300)
        snap(a, "6-zoom-cluttered")
        tile = a.locator("#zoom-overlay polygon.tile.unread").first
        if not tile.count():
            tile = a.locator("#zoom-overlay polygon.tile").first
        tile.scroll_into_view_if_needed()
        tile.click()
        a.wait_for_selector("#fix-dialog[open]")
        a.click("#fix-why summary")
        snap(a, "7-fix")
        a.click("#fix-cancel")

        # the end of the page: the score sheet's history, invite and live camera folded below
        a.fill("#round-inputs input.points >> nth=0", "35")
        a.click("#record")
        a.wait_for_selector("#history li")
        a.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        snap(a, "8-folded")
        browser.close()
    srv.shutdown()
    for path in written:
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} kB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
