#!/usr/bin/env python
"""False boxes on photos without dominoes that no trained stage has seen.

The held-out background photos (every fifth of ``../shared/backgrounds`` by name,
``vision.render.surfaces.holdout_photos``; never in the detector's or the verifier's training
data) as they are and in ``--views`` random views each (crop, scale, turn, colour, blur, JPEG:
``vision.render.surfaces.augment_background``, seeds 0..views-1). Every box is false. Reported
per detector model: boxes of the detector alone (at the runtime confidence, 0.25) and tiles
returned by the whole pipeline (``vision.pipeline.detect``, the verifier included).

    python scripts/bench_negatives.py                       # the committed detector
    python scripts/bench_negatives.py --models models/tiles-obb.onnx data/runs/X/weights/best.onnx
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.detector import load_detector  # noqa: E402
from vision.pipeline import detect  # noqa: E402
from vision.render.surfaces import augment_background, background_photos, holdout_photos  # noqa: E402


def views(folder: Path, n_views: int) -> list[tuple[str, np.ndarray]]:
    """``(name, HxWx3 uint8 BGR)`` of every held-out photo as it is and in ``n_views`` views."""
    photos = background_photos(folder)
    held = holdout_photos(photos)
    out = []
    for p in photos:
        if p.name not in held:
            continue
        img = cv2.imread(str(p))
        if img is None:
            continue
        out.append((p.name, img))
        out += [
            (f"{p.name}#{v}", augment_background(np.random.default_rng(v), img))
            for v in range(n_views)
        ]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=[str(ROOT / "models/tiles-obb.onnx")])
    ap.add_argument(
        "--backgrounds",
        default=str(ROOT.parent / "shared" / "backgrounds"),
        help="background photos (default: ../shared/backgrounds beside the repository)",
    )
    ap.add_argument("--views", type=int, default=3, help="random views per photo besides itself")
    a = ap.parse_args(argv)
    images = views(Path(a.backgrounds), a.views)
    print(f"{len(images)} images without dominoes ({a.views} views + the photo, held-out photos)")
    print(
        "| detector | detector boxes (per image) | images with a box | pipeline tiles (per image) | images with a tile |"
    )
    print("|---|---|---|---|---|")
    for m in a.models:
        det = load_detector(m)
        raw = [len(det.detect(img)) for _, img in images]
        tiles = [len(detect(img, model=m)) for _, img in images]
        n = len(images)
        print(
            f"| {m} | {sum(raw)} ({sum(raw) / n:.2f}) | {sum(1 for r in raw if r)} | "
            f"{sum(tiles)} ({sum(tiles) / n:.2f}) | {sum(1 for t in tiles if t)} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
