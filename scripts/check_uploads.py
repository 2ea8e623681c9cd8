#!/usr/bin/env python
"""Uploads at a phone's size against a real server: how many of the shared real photos are
taken whole through the API and through the page, and how many 1440 px live frames.

Starts the server as its own process (``python -m companion.commands.serve``, waitress, a fresh
instance folder, 127.0.0.1 only, the real detector), then

1. API: every JPEG/PNG of ``--photos`` (default ``../shared/real_photos`` beside the
   repository) sent as it is, multipart field ``photo`` with its file name, to
   ``POST /api/tables/<id>/photos`` of a draw-to-100 table: the status of each.
2. Page: the same files chosen in the table page's "Take a photo" input in Chromium at
   390 x 844 (``/usr/bin/chromium``, Playwright; the page shrinks a photo to 1600 px before it
   sends it): taken when the page shows the new photo and no message.
3. Live frames: each photo scaled to 1080 x 1440 and to 1440 x 1920 (portrait or landscape as
   the photo), JPEG quality 95, posted to ``POST /api/tables/<id>/live/frames`` of a Tableaux
   table: the status of each.

    python scripts/check_uploads.py                 # prints one line per photo and the counts
    python scripts/check_uploads.py --no-page       # API and frames only (no Chromium)

Loopback only: it never talks to another machine. Exit status 1 when anything was refused.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from load_test import call, free_port, start_server  # noqa: E402

CHROMIUM = "/usr/bin/chromium"


def post_file(base: str, path: str, code: str, field: str, name: str, data: bytes, extra=None):
    """A multipart POST with one file part (and text fields); returns (status, JSON)."""
    import uuid

    boundary = uuid.uuid4().hex
    body = b""
    for k, v in (extra or {}).items():
        body += (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        )
    kind = "image/png" if name.lower().endswith(".png") else "image/jpeg"
    body += (
        f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{name}"\r\n'
        f"Content-Type: {kind}\r\n\r\n"
    ).encode()
    body += data + f"\r\n--{boundary}--\r\n".encode()
    headers = {
        "Content-Type": f"multipart/form-data; boundary={boundary}",
        "X-Table-Code": code,
    }
    return call(base, "POST", path, body, headers, timeout=120)


def new_table(base: str, game: str) -> dict:
    body = json.dumps({"game": game, "players": ["Ana", "Ben"]}).encode()
    status, t = call(base, "POST", "/api/tables", body, {"Content-Type": "application/json"})
    if status != 201:
        raise SystemExit(f"could not make a table: {status} {t}")
    return t


def frame(data: bytes, long_side: int) -> bytes:
    """The photo scaled to ``long_side`` x 3/4 of it (its own orientation), JPEG quality 95."""
    import cv2

    from companion.services import decode_upload

    img = decode_upload(data)  # upright (EXIF), 8-bit BGR
    h, w = img.shape[:2]
    short = long_side * 3 // 4
    size = (long_side, short) if w >= h else (short, long_side)
    out = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
    return cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()


def page_uploads(base: str, photos: list[Path]) -> dict[str, str]:
    """Each photo through the page at 390 x 844: "taken" or the page's message."""
    from playwright.sync_api import sync_playwright

    t = new_table(base, "draw100")
    out: dict[str, str] = {}
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        ctx = b.new_context(
            viewport={"width": 390, "height": 844},
            device_scale_factor=3,
            is_mobile=True,
            has_touch=True,
        )
        pg = ctx.new_page()
        pg.set_default_timeout(120_000)
        pg.goto(f"{base}/join/{t['code']}")
        pg.wait_for_selector("body[data-ready='true']", state="attached")
        pg.click("#seat-buttons button:text('Ana')")
        for path in photos:
            before = pg.get_attribute("#photo", "src") or ""
            pg.set_input_files("#photo-input", str(path))
            pg.wait_for_function(
                """(before) => !document.getElementById('message').hidden
                   || (document.getElementById('photo').getAttribute('src') || '') !== before""",
                arg=before,
            )
            msg = pg.locator("#message")
            out[path.name] = (msg.text_content() or "?") if msg.is_visible() else "taken"
        b.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--photos", type=Path, default=ROOT.parent / "shared" / "real_photos")
    ap.add_argument("--no-page", action="store_true", help="skip the page (no Chromium)")
    args = ap.parse_args(argv)
    photos = sorted(p for p in args.photos.iterdir() if p.suffix.lower() in (".jpg", ".png"))
    if not photos:
        raise SystemExit(f"no JPEG or PNG in {args.photos}")
    with tempfile.TemporaryDirectory() as instance:
        port = free_port()
        proc = start_server(port, instance)
        base = f"http://127.0.0.1:{port}"
        try:
            started = time.monotonic()
            draw, tab = new_table(base, "draw100"), new_table(base, "tableaux")
            api, frames = {}, {}
            for p in photos:
                data = p.read_bytes()
                tid = draw["id"]
                api[p.name], _ = post_file(
                    base, f"/api/tables/{tid}/photos", draw["code"], "photo", p.name, data
                )
                for side in (1440, 1920):
                    f = frame(data, side)
                    status, _ = post_file(
                        base,
                        f"/api/tables/{tab['id']}/live/frames",
                        tab["code"],
                        "frame",
                        "frame.jpg",
                        f,
                        {"camera": "check"},
                    )
                    frames[(p.name, side)] = (status, len(f))
            page = {} if args.no_page else page_uploads(base, photos)
            took = time.monotonic() - started
        finally:
            proc.terminate()
            proc.wait(30)
    print(f"{'photo':32} {'bytes':>9}  API  frames 1440/1920 (bytes)      page")
    for p in photos:
        f1, f2 = frames[(p.name, 1440)], frames[(p.name, 1920)]
        print(
            f"{p.name:32} {p.stat().st_size:9d}  {api[p.name]}  {f1[0]} ({f1[1]}) / {f2[0]} ({f2[1]})"
            f"  {page.get(p.name, '-')}"
        )
    n_api = sum(s == 201 for s in api.values())
    n_frames = sum(s == 200 for s, _ in frames.values())
    n_page = sum(v == "taken" for v in page.values())
    print(f"API: {n_api} of {len(photos)} photos taken whole (201)")
    print(f"live frames: {n_frames} of {len(frames)} taken (200)")
    if page:
        print(f"page (390x844): {n_page} of {len(photos)} photos taken")
    print(f"{took:.1f} s")
    bad = n_api < len(photos) or n_frames < len(frames) or (page and n_page < len(photos))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
