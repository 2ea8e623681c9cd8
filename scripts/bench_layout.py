"""Benchmark: rebuild each game's position from laid-out tiles.

Mode ``labels`` (geometry only, fast): each position is played by the engine, laid out as the
game lays it (vision/render/layouts.py), projected through a random camera (roll per game in
``ROTATION_RANGE``, perspective tilt 0..0.15 as the renderer) and every corner gets Gaussian
noise (``--noise`` px, on tiles ~40-90 px wide); then ``vision.layout.read`` rebuilds it.
Mode ``boxes``: the layout is rendered as a photo; the true boxes are kept but their values
are read from the photo by the pip counter (``vision.pips.counter.read_pips``).
Mode ``pipeline``: the layout is rendered as a photo and read by ``vision.pipeline.detect``
(detector + pip counter) before ``read``.

Prints, per game, the rate of positions rebuilt exactly (see ``read_matches``) with a 95%
Wilson interval, and the median read time.

    .venv/bin/python scripts/bench_layout.py --mode labels --n 200
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.game import wilson_interval  # noqa: E402
from vision.layout import detect_options, read  # noqa: E402
from vision.render.layouts import (  # noqa: E402
    GAMES,
    ROTATION_RANGE,
    make_layout,
    project_layout,
    read_matches,
    render_layout,
)
from vision.types import TileDetection  # noqa: E402


def _match_stats(labels, dets, stats: Counter) -> None:
    """Count true tiles, those found (a detection centre within half a tile width) and those
    found with the right value (pipeline mode diagnostics)."""
    used = set()
    for lab in labels:
        stats["_tiles"] += 1
        best = None
        for k, d in enumerate(dets):
            dist = float(np.linalg.norm(d.centre - lab.centre))
            if k not in used and dist < 0.5 * lab.size[1] and (best is None or dist < best[0]):
                best = (dist, k)
        if best is None:
            continue
        used.add(best[1])
        stats["_found"] += 1
        d = dets[best[1]]
        if d.pips is not None and lab.pips is not None and sorted(d.pips) == sorted(lab.pips):
            stats["_value_right"] += 1


def run_game(game: str, n: int, mode: str, noise: float, seed: int, verbose: bool):
    ok = 0
    times = []
    kinds: Counter = Counter()
    detect = None
    if mode == "pipeline":
        from vision.pipeline import detect
    for i in range(n):
        rng = random.Random(seed * 100003 + i)
        nrng = np.random.default_rng(seed * 100003 + i)
        s = make_layout(game, rng)
        lo, hi = ROTATION_RANGE[game]
        rot = float(nrng.uniform(lo, hi))
        if mode == "labels":
            project_layout(s, nrng, rotation_deg=rot, corner_noise_px=noise)
            dets = s.labels
        elif mode == "boxes":
            from vision.pips.counter import read_pips

            render_layout(s, nrng, rotation_deg=rot)
            truth_values = [d.pips for d in s.labels]
            dets = [TileDetection(d.corners, 1.0) for d in s.labels]
            dets = read_pips(s.image, dets)
            kinds["_tiles"] += len(dets)
            kinds["_found"] += len(dets)
            kinds["_value_right"] += sum(
                d.pips is not None and v is not None and sorted(d.pips) == sorted(v)
                for d, v in zip(dets, truth_values)
            )
        else:
            render_layout(s, nrng, rotation_deg=rot)
            dets = detect(s.image, **detect_options(game))
            _match_stats(s.labels, dets, kinds)
        t0 = time.perf_counter()
        try:
            r = read(dets, game, hand=s.hand, max_pip=s.max_pip, seed=0)
            good = read_matches(s, r)
            if not good:
                kinds.update(p.kind for p in r.problems if p.blocking)
                if not any(p.blocking for p in r.problems):
                    kinds["wrong"] += 1
                if verbose:
                    print(game, i, [p.message for p in r.problems][:3])
        except Exception as e:  # a crash counts as a failure and is shown
            good = False
            kinds[f"crash:{type(e).__name__}"] += 1
            if verbose:
                print(game, i, "crash", e)
        times.append((time.perf_counter() - t0) * 1000)
        ok += good
    return ok, times, kinds


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=("labels", "boxes", "pipeline"), default="labels")
    ap.add_argument("--n", type=int, default=200, help="positions per game")
    ap.add_argument("--noise", type=float, default=1.5, help="corner noise, px (labels mode)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", nargs="*", default=list(GAMES))
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args(argv)
    print(
        f"mode={a.mode} n={a.n} noise={a.noise}px seed={a.seed}  ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})"
    )
    total = 0
    for g in a.games:
        ok, times, kinds = run_game(g, a.n, a.mode, a.noise, a.seed, a.verbose)
        lo, hi = wilson_interval(ok, a.n)
        total += ok
        diag = ""
        if kinds["_tiles"]:
            diag = (
                f"  tiles found {kinds['_found'] / kinds['_tiles']:.1%}, found with the right "
                f"value {kinds['_value_right'] / kinds['_tiles']:.1%} of {kinds['_tiles']}"
            )
        fails = {k: v for k, v in kinds.items() if not k.startswith("_")}
        print(
            f"{g:15s} {ok:4d}/{a.n} = {ok / a.n:6.1%}  (95% CI {lo:.1%}-{hi:.1%})  "
            f"read median {statistics.median(times):6.1f} ms{diag}  failures {fails}"
        )
    print(f"all games       {total}/{a.n * len(a.games)} = {total / (a.n * len(a.games)):.1%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
