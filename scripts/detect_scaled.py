#!/usr/bin/env python
"""``detect --json`` on a photo first scaled to a given long side, for checking that big
photos decoded reduced (``vision.image_io.READ_MIN_SIDE``) still read every pip.

The photo is resized (``cv2.INTER_CUBIC`` up, ``INTER_AREA`` down) so its long side is
``--long-side`` pixels (default 6000: the smallest photo decoded at 1/2, i.e. at 3000 px, the
least resolution the reduced decode ever leaves), saved as a JPEG (quality 92) and read by
``domino-companion detect --json`` (which decodes it reduced). Prints that command's JSON, plus
``decoded`` (the decoded width and height). For ``../shared/tools/score_real_photos.py``:

    ../shared/tools/score_real_photos.py --cmd '.venv/bin/python scripts/detect_scaled.py {image}'
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("image")
    ap.add_argument("--long-side", type=int, default=6000)
    args = ap.parse_args(argv)
    import cv2

    from companion.commands import detect

    img = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if img is None:
        raise SystemExit(f"{args.image}: cannot be read")
    h, w = img.shape[:2]
    f = args.long_side / max(h, w)
    size = (max(1, round(w * f)), max(1, round(h * f)))
    img = cv2.resize(img, size, interpolation=cv2.INTER_CUBIC if f > 1 else cv2.INTER_AREA)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scaled.jpg"
        cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        p = argparse.ArgumentParser()
        detect.add_arguments(p)
        return detect.run(p.parse_args([str(path), "--json"]))


if __name__ == "__main__":
    raise SystemExit(main())
