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

With ``--extend-stored`` the results on disk are later deals of the run the stored table was
made from (e.g. a bench run with ``--hint-from``, when the earlier per-deal results are gone):
it takes those whose seeds go on without a gap from the stored table's last one, first prints
the stored chances beside the realised rate of the new deals' hints (deals the table was not
made from) and whether it lies inside the interval the page quotes beside the chance, then adds
the new counts to the stored ones tenth by tenth and decides again which tenths are shown; the Brier scores of the
whole come from the counts (shown chance, base rate) and from the stored mean and hint count
(raw rate).

Hints of one deal are correlated (the same game), so the intervals, which treat hints as
independent, are narrower than the truth; the deal counts are printed beside them.

    .venv/bin/python scripts/calibrate_solitaires.py --write
    .venv/bin/python scripts/calibrate_solitaires.py --games big-clock --sizes double-6
    .venv/bin/python scripts/calibrate_solitaires.py --sizes double-12 --extend-stored --write
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import import_module
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import GAMES, wilson_interval  # noqa: E402
from engine.calibration import (  # noqa: E402
    BINS,
    MIN_DEALS,
    MIN_HINTS,
    TABLE_PATH,
    TOLERANCE,
    bin_chance,
    bin_of,
)

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
        b["shown"] = is_shown(b)
    return {"bins": bins}


def is_shown(b: dict) -> bool:
    """Whether a tenth's chance is shown: both halves hold ``MIN_HINTS`` hints from
    ``MIN_DEALS`` deals and the check rate lies within ``TOLERANCE`` of the fit rate."""
    ok = (
        min(b["fit_n"], b["check_n"]) >= MIN_HINTS
        and min(b["fit_deals"], b["check_deals"]) >= MIN_DEALS
    )
    return bool(
        ok and abs(b["fit_won"] / b["fit_n"] - b["check_won"] / b["check_n"]) <= TOLERANCE + 1e-12
    )


def bin_brier(bins: list[dict]) -> dict:
    """Brier scores on the check hints computed from the tenths' counts alone: of the shown
    chance (a tenth's fit rate, over the check hints of shown tenths) and of the base rate
    (all fit hints' win rate). Equal to :func:`brier`'s, which also needs every raw rate."""
    fit_n = sum(b["fit_n"] for b in bins)
    base = sum(b["fit_won"] for b in bins) / fit_n if fit_n else 0.0

    def sq(p: float, b: dict) -> float:  # sum of (p - won)^2 over the tenth's check hints
        return b["check_won"] * (1 - p) ** 2 + (b["check_n"] - b["check_won"]) * p**2

    shown = [b for b in bins if b["shown"]]
    n_shown = sum(b["check_n"] for b in shown)
    n = sum(b["check_n"] for b in bins)
    return {
        "shown": sum(sq(b["fit_won"] / b["fit_n"], b) for b in shown) / n_shown
        if n_shown
        else float("nan"),
        "base_rate": sum(sq(base, b) for b in bins) / n if n else float("nan"),
        "hints": n,
        "hints_shown": n_shown,
        "base": base,
    }


def held_out(stored: dict, rows: list[dict]) -> list[dict]:
    """The stored table's shown chances checked on deals it was not made from: per tenth, the
    stored chance (its fit rate) with the 95% interval the page quotes beside it (Wilson over
    the fit deals, ``engine.calibration.shown_chance``) and the hints of ``rows`` (both seed
    halves) in that tenth, ``{"tenth", "shown", "chance", "low", "high", "n", "won", "deals"}``
    (``chance``, ``low``, ``high`` None for a tenth without fit hints)."""
    n, won = [0] * BINS, [0] * BINS
    deals: list[set] = [set() for _ in range(BINS)]
    for r in rows:
        for raw, _ in r["quotes"]:
            if raw is not None:
                i = bin_of(raw)
                n[i] += 1
                won[i] += bool(r["won"])
                deals[i].add(r["seed"])
    out = []
    for i, b in enumerate(stored["bins"]):
        chance = low = high = None
        if b["fit_n"]:
            chance, low, high = bin_chance(b)[:3]
        out.append(
            {
                "tenth": i,
                "shown": b["shown"],
                "chance": chance,
                "low": low,
                "high": high,
                "n": n[i],
                "won": won[i],
                "deals": len(deals[i]),
            }
        )
    return out


def extend(stored: dict, new: dict, new_sc: dict, new_deals: int) -> tuple[dict, dict]:
    """``stored`` (a table of earlier deals whose per-deal results are gone) plus ``new``
    (bins of later deals): counts added tenth by tenth, ``shown`` decided again, Brier scores
    of the whole (the raw rate's from both tables' means and hint counts, the others from the
    bins). Returns ``(table, brier)``.

    Raises:
        ValueError: ``stored`` lacks the raw Brier score or its hint count."""
    old_sc = stored.get("brier") or {}
    if "raw" not in old_sc or "hints" not in old_sc:
        raise ValueError("the stored table has no raw Brier score to extend")
    keys = ("fit_n", "fit_won", "check_n", "check_won", "fit_deals", "check_deals")
    bins = []
    for a, b in zip(stored["bins"], new["bins"]):
        c = {k: a.get(k, 0) + b[k] for k in keys}
        c["shown"] = is_shown(c)
        bins.append(c)
    sc = bin_brier(bins)
    sc["raw"] = (old_sc["raw"] * old_sc["hints"] + new_sc["raw"] * new_sc["hints"]) / max(
        1, old_sc["hints"] + new_sc["hints"]
    )
    return {"bins": bins, "deals": stored["deals"] + new_deals}, sc


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
        "--extend-stored",
        action="store_true",
        help="the results in --out-dir are later deals of the stored table's run (whose "
        "per-deal results are gone): check its shown chances on them, then add them to it",
    )
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
            if args.extend_stored:
                old = stored.get(key)
                # a table without "seeds" came from a run that began at seed 0
                old_seeds = (old or {}).get("seeds") or [0, (old or {}).get("deals", 0) - 1]
                if old is None or old.get("settings") != hint_settings(mod, params):
                    ap.error(f"{key}: no stored table of the current hint settings to extend")
                by_seed = {r["seed"]: r for r in rows}
                nxt = old_seeds[1] + 1
                run = []
                while nxt + len(run) in by_seed:
                    run.append(by_seed[nxt + len(run)])
                if not run:
                    ap.error(
                        f"{key}: the stored table holds seeds {old_seeds[0]}-{old_seeds[1]}; "
                        f"no results go on from seed {nxt}"
                    )
                if len(run) < len(rows):
                    print(
                        f"\n{name} {label}: {len(rows) - len(run)} results after a gap in the "
                        f"seeds are left out (they count once the seeds before them are in)"
                    )
                rows = run
            rel = reliability(rows)
            sc = brier(rows, rel)
            deals = len(rows)
            won = sum(bool(r["won"]) for r in rows)
            seeds = [rows[0]["seed"], rows[-1]["seed"]]
            print(
                f"\n{name} {label}: {deals} deals (seeds {seeds[0]}-{seeds[1]},"
                f" {won} won), {sc['hints']} check hints with a raw rate"
            )
            if args.extend_stored:
                print(
                    f"The stored chances (seeds {old_seeds[0]}-{old_seeds[1]}) on these deals:\n"
                    "| raw rate | stored chance [95%, over deals] | shown | hints (deals) | "
                    "realised | gap | inside |\n"
                    "|---|---|---|---|---|---|---|"
                )
                for h in held_out(old, rows):
                    if not h["n"] or h["chance"] is None:
                        continue
                    real = h["won"] / h["n"]
                    print(
                        f"| {10 * h['tenth']}-{10 * h['tenth'] + 10}% | "
                        f"{100 * h['chance']:.1f}% [{100 * h['low']:.1f}, {100 * h['high']:.1f}]"
                        f" | {'yes' if h['shown'] else 'no'} | "
                        f"{h['n']} ({h['deals']}) | {pct(h['won'], h['n'])} | "
                        f"{100 * (real - h['chance']):+.1f} | "
                        f"{'yes' if h['low'] <= real <= h['high'] else 'no'} |"
                    )
                rel, sc = extend(old, rel, sc, deals)
                deals = rel["deals"]
                seeds = [old_seeds[0], seeds[1]]
                print(f"\nTogether: {deals} deals (seeds {seeds[0]}-{seeds[1]})")
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
                "seeds": seeds,
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
