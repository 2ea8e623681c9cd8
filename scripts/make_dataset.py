#!/usr/bin/env python
"""Render a synthetic ultralytics-OBB dataset of domino photos.

Usage: python scripts/make_dataset.py --out data/tiles-obb --train 2000 --val 200 --seed 0 -j 2
Real surfaces: ``--surface-mix 0.35 0.12 0.13 0`` (tiles on background photos, hard
procedural surfaces, background photos alone, close-ups) with ``--backgrounds DIR``.
Hard views (low angles, coloured bodies, close-ups, glare, hands, ...): ``--view-share 0.5``.
Classes: 0 = tile face up, 1 = tile face down. See vision/render/dataset.py for the format.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vision.render.dataset import write_obb_dataset  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--out", default="data/tiles-obb", help="output folder")
    ap.add_argument("--train", type=int, default=2000, help="training images")
    ap.add_argument("--val", type=int, default=200, help="validation images")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("-j", "--processes", type=int, default=2)
    ap.add_argument(
        "--low-pip-bias",
        type=float,
        default=0.0,
        help="chance per scene of drawing low-pip tiles (blanks) first",
    )
    ap.add_argument(
        "--set-weights",
        type=float,
        nargs=3,
        default=None,
        metavar=("D6", "D9", "D12"),
        help="chances of double-6 / 9 / 12 sets (default 0.6 0.25 0.15)",
    )
    ap.add_argument(
        "--layout-share",
        type=float,
        default=0.0,
        help="chance per image of a rendered game position (vision/render/layouts.py)",
    )
    ap.add_argument(
        "--surface-mix",
        type=float,
        nargs="+",
        default=(0.0, 0.0, 0.0, 0.0),
        metavar="SHARE",
        help="chances per image (4 to 6 shares) of tiles pasted on a background photo, a "
        "procedural hard surface with tile-like objects, a background photo alone, a close-up "
        "of one or two tiles, printed cards that are not tiles on a background photo, dark "
        "objects larger than a tile (screens, tins, seats) on a background photo "
        "(vision/render/surfaces.py)",
    )
    ap.add_argument(
        "--backgrounds",
        default=str(ROOT.parent / "shared" / "backgrounds"),
        help="background photos without dominoes (default: ../shared/backgrounds beside the "
        "repository); every fifth is held out",
    )
    ap.add_argument(
        "--view-share",
        type=float,
        default=0.0,
        help="chance per image (of those not drawn by --surface-mix) of a hard view: coloured "
        "bodies, low angles, close-ups, glare, crosswise doubles, hands, small web images, "
        "coloured backs (vision/render/views.py)",
    )
    ap.add_argument(
        "--view-kinds",
        default=None,
        help="comma-separated hard-view kinds to draw from (default: all of "
        "vision.render.views.VIEW_KINDS)",
    )
    a = ap.parse_args(argv)
    if sum(a.surface_mix) > 0 and not Path(a.backgrounds).is_dir():
        ap.error(f"--surface-mix needs background photos: no folder {a.backgrounds}")
    t = time.time()
    s = write_obb_dataset(
        a.out,
        a.train,
        a.val,
        a.seed,
        a.processes,
        a.low_pip_bias,
        a.set_weights,
        a.layout_share,
        tuple(a.surface_mix),
        a.backgrounds if sum(a.surface_mix) > 0 else None,
        a.view_share,
        tuple(a.view_kinds.split(",")) if a.view_kinds else None,
    )
    print(f"{s} in {time.time() - t:.1f} s -> {a.out}/data.yaml")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
