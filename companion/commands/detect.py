"""``domino-companion detect IMAGE [--json] [--annotate OUT.png] [--debug]``: tiles and pips in a photo.

``--debug`` also lists the boxes dropped after detection (JSON: ``"dropped"``), each with its
reason in ``note``.

Exit codes: 0 done (also when no tile is seen), 1 bad input or no model (one-line message).
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Arguments of ``detect``."""
    p.add_argument("image", help="photo file (JPEG, PNG, ...)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--annotate", metavar="OUT.png", help="write the photo with outlines and values drawn"
    )
    p.add_argument("--model", default=None, help="ONNX detector (default: models/tiles-obb.onnx)")
    p.add_argument(
        "--conf", type=float, default=0.25, help="minimum detector confidence (default 0.25)"
    )
    p.add_argument(
        "--debug",
        action="store_true",
        help="also list the boxes dropped after detection, each with its reason",
    )


def run(args: argparse.Namespace) -> int:
    """Detect tiles in ``args.image``; print a table or JSON. Returns the exit code.

    Raises:
        ValueError, OSError: bad input or missing model (the CLI prints one line, exit 1).
    """
    import cv2

    from vision.pipeline import annotate, detect, load_image
    from vision.types import TileDetection

    if not 0.0 < args.conf < 1.0:
        raise ValueError(f"--conf must be between 0 and 1, got {args.conf}")
    img = load_image(args.image)
    t0 = time.perf_counter()
    dropped: list[TileDetection] | None = [] if args.debug else None
    tiles = detect(img, model=args.model, conf_threshold=args.conf, dropped=dropped)
    elapsed = (time.perf_counter() - t0) * 1000
    if args.annotate:
        ok = cv2.imwrite(args.annotate, annotate(img, tiles))
        if not ok:
            raise ValueError(
                f"cannot write {args.annotate} (use a .png or .jpg name in a writable folder)"
            )
    h, w = img.shape[:2]
    if args.json:
        out = {
            "image": {"width": w, "height": h},
            "tiles": [t.to_json() for t in tiles],
            "elapsed_ms": round(elapsed, 1),
        }
        if dropped is not None:
            out["dropped"] = [t.to_json() for t in dropped]
        print(json.dumps(out))
        return 0
    up = [t for t in tiles if not t.face_down]
    print(
        f"{args.image}: {w}x{h}, {len(tiles)} tile(s): {len(up)} face up, {len(tiles) - len(up)} face down "
        f"({elapsed:.0f} ms)"
    )
    for t in tiles:
        cx, cy = t.centre
        val = (
            "face down" if t.face_down else ("?" if t.pips is None else f"{t.pips[0]}-{t.pips[1]}")
        )
        extra = f"  ({t.note})" if t.note else ""
        print(f"  {val:>9}  at ({cx:.0f}, {cy:.0f})  confidence {t.confidence:.2f}{extra}")
    for t in dropped or []:
        cx, cy = t.centre
        print(
            f"  {'dropped':>9}  at ({cx:.0f}, {cy:.0f})  confidence {t.confidence:.2f}  ({t.note})"
        )
    if args.annotate:
        print(f"annotated photo: {args.annotate}")
    sys.stdout.flush()
    return 0
