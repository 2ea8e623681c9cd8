"""Render the demo table photos of the solitaires and Tableaux (``sample_images/rendered/``).

Until real photos of these layouts exist, ``domino-companion serve`` opens its Good Neighbors,
Big Clock, Luzon and Tableaux demo tables on photos drawn by ``vision/render`` (the game played
a few random legal moves by the engine, laid out as the game lays it, drawn with a set style,
table and camera; the Big Clock's drawn tile is a tile of the set not on the table, chosen by
the seed). A photo is kept only when the committed pipeline (``vision.pipeline.detect``
then ``vision.layout.read``) rebuilds its position exactly (``read_matches``) with no problem
and a hint (a solitaire's chance to win at least 20%), so the demo tables open without errors. The page marks these photos as rendered.

    .venv/bin/python scripts/render_demo_photos.py [--out sample_images/rendered] [--tries 40]

Prints, per game, the seed kept, tiles, read time (ms) and file size (kB); writes
``<game>.jpg`` and ``README.md`` (what the photos are) into ``--out``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import get_game_type  # noqa: E402
from engine.catalog import BIG_CLOCK, GOOD_NEIGHBORS, LUZON, TABLEAUX  # noqa: E402
from engine.tiles import DominoSet  # noqa: E402
from vision.layout import detect_options, read  # noqa: E402
from vision.pipeline import detect  # noqa: E402
from vision.render.layouts import make_layout, read_matches, render_layout  # noqa: E402

#: game -> (layout keyword arguments, camera roll in degrees, the reader's parameters)
GAMES = {
    TABLEAUX: ({"max_pip": 6}, 8.0, {}),
    GOOD_NEIGHBORS: ({"max_pip": 6}, 0.0, {}),
    BIG_CLOCK: ({"max_pip": 6}, 0.0, {}),
    LUZON: ({}, 0.0, {}),
}
SIZE = (960, 720)
QUALITY = 80


def keep(game: str, seed: int) -> tuple[bytes, dict] | None:
    """The JPEG of ``game`` rendered with ``seed`` if the pipeline reads it exactly, else None."""
    kw, roll, params = GAMES[game]
    sample = make_layout(game, random.Random(seed), **kw)
    if get_game_type(game).needs_hand and (sample.hand is None or len(sample.placements) < 4):
        return None
    render_layout(sample, np.random.default_rng(seed), image_size=SIZE, rotation_deg=roll)
    ok, buf = cv2.imencode(".jpg", sample.image, [int(cv2.IMWRITE_JPEG_QUALITY), QUALITY])
    image = cv2.imdecode(buf, cv2.IMREAD_COLOR)  # read what is stored, JPEG losses included
    started = time.perf_counter()
    dets = detect(image, **detect_options(game))
    hand = [str(t) for t in sample.hand] if sample.hand else None
    if hand is None and get_game_type(game).takes_hand:  # the Big Clock's drawn tile
        shown = {p.tile for p in sample.placements}
        hand = [
            str(
                random.Random(seed).choice([t for t in DominoSet(sample.max_pip) if t not in shown])
            )
        ]
    res = read(dets, game, hand=hand, **params)
    hint = None  # asked from the engine, as the companion does
    if res.state is not None and res.legal_moves:
        hint = get_game_type(game).hint(res.state)
    ms = (time.perf_counter() - started) * 1000
    if not read_matches(sample, res) or res.problems or hint is None or hint.action is None:
        return None
    if hint.win_chance is not None and hint.win_chance < 0.2:  # a demo the player can still win
        return None
    return buf.tobytes(), {"tiles": len(dets), "ms": ms, "hand": hand}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--out", default=str(Path(__file__).resolve().parents[1] / "sample_images" / "rendered")
    )
    ap.add_argument("--tries", type=int, default=40, help="seeds tried per game (default 40)")
    ap.add_argument("--games", nargs="*", default=list(GAMES))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for game in args.games:
        for seed in range(1, args.tries + 1):
            got = keep(game, seed)
            if got is None:
                continue
            data, info = got
            (out / f"{game}.jpg").write_bytes(data)
            print(
                f"{game}: seed {seed}, {info['tiles']} tiles, read in {info['ms']:.0f} ms, "
                f"{len(data) / 1024:.0f} kB, hand {info['hand']}",
                flush=True,
            )
            break
        else:
            print(f"{game}: no seed of {args.tries} was read exactly", flush=True)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
