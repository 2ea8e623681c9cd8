#!/usr/bin/env python
"""Calibration of the solitaire hints' win chances: reliability tables and Brier scores.

Reads the per-deal hint results of ``scripts/bench_solitaires.py`` (``<out-dir>/<game>-<size>-
hint.jsonl``, made with the engine's current hint settings; run that first, e.g.
``scripts/bench_solitaires.py --games big-clock --sizes double-6 --deals 2000 --hint-deals 300``)
and, for every hint call that searched a choice, pairs its **raw rate** (share of sampled stock
orders, among finished searches, where the best action wins knowing the order) with whether the
game was then won. Hints are grouped by tenth of the raw rate. Deals with an even seed *fit*
each tenth's chance (its realised win rate), deals with an odd seed *check* it; a tenth is
**shown** when both halves hold at least ``engine.calibration.MIN_HINTS`` hints from at least
``MIN_DEALS`` deals and the checked rate lies within ``engine.calibration.TOLERANCE`` (5 points)
of the fitted one.

Prints, per game and size, the reliability table (tenth, hints and realised rate with 95%
Wilson intervals in each half, shown or not) and Brier scores on the check deals: of the raw
rate, of the shown chance (hints where one is shown) and of always quoting the base rate. With
``--write`` it stores the tables in ``engine/data/calibration.json`` (what the hints read).

Hints of one deal are correlated (the same game), so the intervals, which treat hints as
independent, are narrower than the truth; the deal counts are printed beside them.

    .venv/bin/python scripts/calibrate_solitaires.py --write
    .venv/bin/python scripts/calibrate_solitaires.py --games big-clock --sizes double-6
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import import_module
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import GAMES, wilson_interval  # noqa: E402
from engine.calibration import BINS, MIN_DEALS, MIN_HINTS, TABLE_PATH, TOLERANCE, bin_of  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_solitaires import policy_config  # noqa: E402

SOLITAIRES = tuple(name for name, g in GAMES.items() if g.solitaire)


def hint_settings(mod, params: dict) -> str:
    """The ``settings`` string the hint passes to ``engine.calibration.shown_chance`` when it
    runs with its defaults (the module's ``HINT_SETTINGS`` entry of this size)."""
    table = getattr(mod, "HINT_SETTINGS", None)
    if not isinstance(table, dict):
        return ""
    return repr(tuple(table[params["max_pip"]]))


def load_hints(path: Path, config: dict) -> list[dict]:
    """The hint results of ``path`` that carry quotes and were made with ``config`` (a line's
    whole ``config`` equal to it: ``bench_solitaires.policy_config`` of the hint at its default
    settings, so results of other settings or of a former ``HINT_VERSION`` are left out), one
    per seed (the last line wins)."""
    rows: dict[int, dict] = {}
    if not path.exists():
        return []
    for line in path.read_text().splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "quotes" in r and r.get("config") == config:
            rows[r["seed"]] = r
    return [rows[k] for k in sorted(rows)]


def reliability(rows: list[dict]) -> dict:
    """Bins of (raw rate, won) over the hint calls of ``rows``, split by seed parity."""
    bins = [
        {
            "fit_n": 0,
            "fit_won": 0,
            "check_n": 0,
            "check_won": 0,
            "fit_deals": set(),
            "check_deals": set(),
        }
        for _ in range(BINS)
    ]
    for r in rows:
        half = "fit" if r["seed"] % 2 == 0 else "check"
        for raw, _shown in r["quotes"]:
            if raw is None:
                continue
            b = bins[bin_of(raw)]
            b[f"{half}_n"] += 1
            b[f"{half}_won"] += bool(r["won"])
            b[f"{half}_deals"].add(r["seed"])
    for b in bins:
        b["fit_deals"], b["check_deals"] = len(b["fit_deals"]), len(b["check_deals"])
        ok = (
            min(b["fit_n"], b["check_n"]) >= MIN_HINTS
            and min(b["fit_deals"], b["check_deals"]) >= MIN_DEALS
        )
        b["shown"] = bool(
            ok
            and abs(b["fit_won"] / b["fit_n"] - b["check_won"] / b["check_n"]) <= TOLERANCE + 1e-12
        )
    return {"bins": bins}


def brier(rows: list[dict], table: dict) -> dict:
    """Brier scores on the check deals (odd seeds): raw rate, shown chance, base rate."""
    raw_sq, shown_sq, base_sq = [], [], []
    fit_n = sum(b["fit_n"] for b in table["bins"])
    base = sum(b["fit_won"] for b in table["bins"]) / fit_n if fit_n else 0.0
    for r in rows:
        if r["seed"] % 2 == 0:
            continue
        y = 1.0 if r["won"] else 0.0
        for raw, _ in r["quotes"]:
            if raw is None:
                continue
            raw_sq.append((raw - y) ** 2)
            base_sq.append((base - y) ** 2)
            b = table["bins"][bin_of(raw)]
            if b["shown"]:
                shown_sq.append((b["fit_won"] / b["fit_n"] - y) ** 2)

    def mean(xs):
        return sum(xs) / len(xs) if xs else float("nan")

    return {
        "raw": mean(raw_sq),
        "shown": mean(shown_sq),
        "base_rate": mean(base_sq),
        "hints": len(raw_sq),
        "hints_shown": len(shown_sq),
        "base": base,
    }


def pct(k: int, n: int) -> str:
    if not n:
        return "-"
    lo, hi = wilson_interval(k, n)
    return f"{100 * k / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default=",".join(SOLITAIRES))
    ap.add_argument("--sizes", default=None, help="comma list of size labels (default all)")
    ap.add_argument("--out-dir", default="data/bench", help="where bench_solitaires.py wrote")
    ap.add_argument(
        "--write",
        action="store_true",
        help=f"store the tables in {TABLE_PATH.relative_to(TABLE_PATH.parents[2])}",
    )
    args = ap.parse_args(argv)
    stored = json.loads(TABLE_PATH.read_text()) if TABLE_PATH.exists() else {}
    for name in [g.strip() for g in args.games.split(",") if g.strip()]:
        if name not in SOLITAIRES:
            ap.error(f"unknown solitaire {name!r}; choose from {SOLITAIRES}")
        mod = import_module(GAMES[name].module)
        for label, params in mod.GAME_SIZES:
            if args.sizes and label not in args.sizes.split(","):
                continue
            table = getattr(mod, "HINT_SETTINGS", None)
            bench_settings = None
            if isinstance(table, dict):
                bench_settings = repr(table[params["max_pip"]])
            rows = load_hints(
                Path(args.out_dir) / f"{name}-{label}-hint.jsonl",
                policy_config(mod, "hint", None, 0, params),
            )
            key = f"{name}/{label}"
            if not rows:
                print(f"\n{name} {label}: no hint results with quotes in {args.out_dir}")
                old = stored.get(key)
                if (
                    old is not None
                    and bench_settings
                    and old.get("settings") != (hint_settings(mod, params))
                ):
                    del stored[key]  # measured with other hint settings: never read again
                    print("(its stored table, for other hint settings, is dropped)")
                continue
            rel = reliability(rows)
            sc = brier(rows, rel)
            deals = len(rows)
            won = sum(bool(r["won"]) for r in rows)
            print(
                f"\n{name} {label}: {deals} deals (seeds {rows[0]['seed']}-{rows[-1]['seed']},"
                f" {won} won), {sc['hints']} check hints with a raw rate"
            )
            print(
                "| raw rate | fit hints (deals) | fit realised | check hints (deals) | "
                "check realised | gap | shown |"
            )
            print("|---|---|---|---|---|---|---|")
            for i, b in enumerate(rel["bins"]):
                if not b["fit_n"] and not b["check_n"]:
                    continue
                gap = (
                    100 * (b["check_won"] / b["check_n"] - b["fit_won"] / b["fit_n"])
                    if b["fit_n"] and b["check_n"]
                    else float("nan")
                )
                print(
                    f"| {10 * i}-{10 * i + 10}% | {b['fit_n']} ({b['fit_deals']}) | "
                    f"{pct(b['fit_won'], b['fit_n'])} | {b['check_n']} ({b['check_deals']}) | "
                    f"{pct(b['check_won'], b['check_n'])} | {gap:+.1f} | "
                    f"{'yes' if b['shown'] else 'no'} |"
                )
            print(
                f"Brier on check hints: raw rate {sc['raw']:.3f}, shown chance {sc['shown']:.3f}"
                f" ({sc['hints_shown']} of {sc['hints']} hints shown), base rate "
                f"{100 * sc['base']:.1f}% {sc['base_rate']:.3f}"
            )
            stored[key] = {
                "settings": hint_settings(mod, params) if bench_settings else None,
                "deals": deals,
                "bins": rel["bins"],
                "brier": sc,
            }
    if args.write:
        TABLE_PATH.parent.mkdir(parents=True, exist_ok=True)
        TABLE_PATH.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
        print(f"\nwrote {TABLE_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
