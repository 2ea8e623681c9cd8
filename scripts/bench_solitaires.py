#!/usr/bin/env python
"""Benchmark the solitaire policies: random-legal, greedy, hint and the perfect-information solver.

For each game (good-neighbors, luzon and big-clock when ``engine/big_clock.py`` exists) and each
size in its module's ``GAME_SIZES``, over seeded deals 0..N-1:

- random: ``random_action`` with ``random.Random(seed)``, played to the end;
- greedy: ``greedy_action`` played to the end;
- solver: ``solve(state)`` on the deal, knowing the stock order (the ceiling); deals where it hit
  its node limit are counted as not won and reported;
- hint: ``hint(state, samples=..., seed=...)`` played to the end (the player's view: the stock
  order is unknown), on the first ``--hint-deals`` deals (the hint is the expensive policy);
  the time of every hint call is recorded (ms).

Win rates come with 95% Wilson intervals (``engine.game.wilson_interval``); the gap to the ceiling
is the solver's rate minus the hint's on the same deals.

Example (what docs/solitaires.md reports)::

    nice -n 10 .venv/bin/python scripts/bench_solitaires.py --deals 2000 --hint-deals 300 --jobs 2
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from importlib import import_module
from multiprocessing import Pool
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import GAMES, make_game, wilson_interval  # noqa: E402
from engine.solitaire import percentile, play_out  # noqa: E402

SOLITAIRES = ("good-neighbors", "big-clock", "luzon")


def available_games() -> list[str]:
    """The solitaires whose engine module can be imported now."""
    out = []
    for name in SOLITAIRES:
        try:
            import_module(GAMES[name].partition(":")[0])
        except ModuleNotFoundError:
            continue
        out.append(name)
    return out


def run_deal(job: tuple) -> dict:
    """Play one deal with every policy. ``job`` = (game name, params, seed, do_hint, samples,
    solver node limit). Returns the results as a dict (hint times in ms)."""
    name, params, seed, do_hint, samples, node_limit = job
    mod = import_module(GAMES[name].partition(":")[0])
    game = make_game(name, **params)
    deal = game.new_initial_state(seed)
    rng = random.Random(seed)
    out = {"seed": seed,
           "random": play_out(deal.clone(), lambda s: mod.random_action(s, rng)),
           "greedy": play_out(deal.clone(), mod.greedy_action)}
    t0 = time.perf_counter()
    out["solver"] = mod.solve(deal.clone(), node_limit=node_limit)
    out["solver_ms"] = (time.perf_counter() - t0) * 1000
    if do_hint:
        times: list[float] = []
        kw = {} if samples is None else {"samples": samples}

        def policy(s):
            h = mod.hint(s, seed=seed * 1000 + len(s.history), **kw)
            times.append(h.elapsed_ms)
            return h.action

        out["hint"] = play_out(deal.clone(), policy)
        out["hint_ms"] = times
    return out


def rate_cell(k: int, n: int) -> str:
    lo, hi = wilson_interval(k, n)
    return f"{100 * k / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] (n={n})" if n else "-"


def summarise(name: str, label: str, rows: list[dict]) -> dict:
    """Counts, rates and Wilson intervals of one game size."""
    n = len(rows)
    hinted = [r for r in rows if "hint" in r]
    times = [t for r in hinted for t in r["hint_ms"]]
    s = {"game": name, "size": label, "deals": n, "hint_deals": len(hinted)}
    for pol in ("random", "greedy"):
        s[pol] = sum(bool(r[pol]) for r in rows)
    s["solver"] = sum(r["solver"] is True for r in rows)
    s["solver_unknown"] = sum(r["solver"] is None for r in rows)
    s["hint"] = sum(bool(r["hint"]) for r in hinted)
    s["greedy_on_hint_deals"] = sum(bool(r["greedy"]) for r in hinted)
    s["solver_on_hint_deals"] = sum(r["solver"] is True for r in hinted)
    s["hint_calls"] = len(times)
    s["hint_median_ms"] = statistics.median(times) if times else float("nan")
    s["hint_p95_ms"] = percentile(times, 0.95)
    s["solver_median_ms"] = statistics.median(r["solver_ms"] for r in rows)
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(available_games()),
                    help="comma list of solitaires (default: every one whose engine exists)")
    ap.add_argument("--deals", type=int, default=2000, help="seeded deals per size (seeds 0..N-1)")
    ap.add_argument("--hint-deals", type=int, default=None,
                    help="play the hint on the first K deals only (default: all)")
    ap.add_argument("--samples", type=int, default=None,
                    help="hint samples (sampled stock orders); default: the module's default")
    ap.add_argument("--node-limit", type=int, default=500_000, help="solver node limit per deal")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--sizes", default=None, help="comma list of size labels to run (default all)")
    ap.add_argument("--json", default=None, help="also write the summaries to this JSON file")
    args = ap.parse_args(argv)

    hint_deals = args.deals if args.hint_deals is None else min(args.hint_deals, args.deals)
    summaries = []
    print("| game | size | random | greedy | hint | solver (ceiling) | hint - greedy | "
          "ceiling - hint | hint ms median / p95 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in [g.strip() for g in args.games.split(",") if g.strip()]:
        if name not in SOLITAIRES:
            ap.error(f"unknown solitaire {name!r}; choose from {SOLITAIRES}")
        mod = import_module(GAMES[name].partition(":")[0])
        for label, params in mod.GAME_SIZES:
            if args.sizes and label not in args.sizes.split(","):
                continue
            jobs = [(name, params, seed, seed < hint_deals, args.samples, args.node_limit)
                    for seed in range(args.deals)]
            t0 = time.time()
            with Pool(args.jobs) as pool:
                rows = list(pool.imap_unordered(run_deal, jobs, chunksize=4))
            rows.sort(key=lambda r: r["seed"])
            s = summarise(name, label, rows)
            s["wall_s"] = round(time.time() - t0, 1)
            summaries.append(s)
            n, h = s["deals"], s["hint_deals"]
            hint_rate = s["hint"] / h if h else float("nan")
            print(f"| {name} | {label} | {rate_cell(s['random'], n)} | {rate_cell(s['greedy'], n)}"
                  f" | {rate_cell(s['hint'], h)} | {rate_cell(s['solver'], n)}"
                  f"{' (' + str(s['solver_unknown']) + ' unknown)' if s['solver_unknown'] else ''}"
                  f" | {100 * (hint_rate - s['greedy_on_hint_deals'] / h):+.1f} pts"
                  f" | {100 * (s['solver_on_hint_deals'] / h - hint_rate):+.1f} pts"
                  f" | {s['hint_median_ms']:.1f} / {s['hint_p95_ms']:.1f} |", flush=True)
            if args.json:
                Path(args.json).write_text(json.dumps(summaries, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
