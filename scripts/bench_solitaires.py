#!/usr/bin/env python
"""Benchmark the solitaire policies: random-legal, greedy, hint and the perfect-information solver.

For each game (good-neighbors, luzon and big-clock when ``engine/big_clock/`` exists) and each
size in its module's ``GAME_SIZES``, over seeded deals 0..N-1:

- random: ``random_action`` with ``random.Random(seed)``, played to the end;
- greedy: ``greedy_action`` played to the end;
- solver: ``solve(state)`` on the deal, knowing the stock order (the ceiling); deals where it hit
  its node limit are counted as not won and reported;
- hint: ``hint(state, samples=..., seed=...)`` played to the end (the player's view: the stock
  order is unknown), on the first ``--hint-deals`` deals (the hint is the expensive policy);
  the time of every hint call is recorded (ms), as wall-clock time and as the CPU time of
  the worker process (``time.process_time``: on a machine shared with other jobs the wall
  clock counts the waiting too, the CPU time is what the hint itself costs on one core).

The engine is pure Python, so the long Big Clock runs may use PyPy (``apt-get install pypy3``,
then ``pypy3 scripts/bench_solitaires.py --games big-clock ...``: about twice as fast): its
hint plays the same moves and quotes the same rates as on CPython (``tests/engine/test_pypy.py``;
the other solitaires are refused, see ``SAME_ON_PYPY``). Each result records its interpreter
(``"python"``), and the hint and solver timings are summarised over the CPython results only:
the companion runs on CPython, and those times are the ones it promises.

Every deal and policy is a separate task; its result is appended as a JSON line to
``<out-dir>/<game>-<size>-<policy>.jsonl`` (default ``data/bench/``, git-ignored) and reused when
the same command runs again with the same settings, so a long run can be cut (Ctrl-C) and
continued. Sizes run in the order given by ``--sizes``.

Win rates come with 95% Wilson intervals (``engine.game.wilson_interval``); the gap to the ceiling
is the solver's rate minus the hint's on the same deals.

Example (what docs/solitaires.md reports)::

    nice -n 10 .venv/bin/python scripts/bench_solitaires.py --deals 2000 --hint-deals 300 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import platform
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

SOLITAIRES = tuple(name for name, g in GAMES.items() if g.solitaire)
#: Solitaires whose hint plays the same on PyPy as on CPython (``tests/engine/test_pypy.py``).
#: Not Good Neighbors: its search orders ties by set iteration order, which PyPy does not
#: share; Luzon is not checked.
SAME_ON_PYPY = ("big-clock",)


def available_games() -> list[str]:
    """The solitaires whose engine module can be imported now."""
    out = []
    for name in SOLITAIRES:
        try:
            import_module(GAMES[name].module)
        except ModuleNotFoundError:
            continue
        out.append(name)
    return out


POLICIES = ("random", "greedy", "solver", "hint")


def run_task(job: tuple) -> dict:
    """Play one deal with one policy. ``job`` = (game name, params, seed, policy, hint samples
    or None, solver node limit[, hint nodes per search or None[, hint settings values or None:
    see :func:`settings_of`]]). Returns ``{"seed", "policy", "won"}`` plus, for the solver,
    ``"solver"`` (True / False / None when the node limit was hit) and ``"solver_ms"``, and for
    the hint, ``"hint_ms"`` and ``"hint_cpu_ms"`` (the wall-clock and CPU time of every hint
    call, ms) and ``"quotes"``: for every hint
    call that searched a choice, ``[raw rate or None, shown win chance or None]`` (what
    ``scripts/calibrate_solitaires.py`` reads)."""
    name, params, seed, policy, samples, node_limit = job[:6]
    hint_nodes = job[6] if len(job) > 6 else None
    hint_settings = job[7] if len(job) > 7 else None
    mod = import_module(GAMES[name].module)
    deal = make_game(name, **params).new_initial_state(seed)
    out: dict = {"seed": seed, "policy": policy, "python": platform.python_implementation()}
    if policy == "random":
        rng = random.Random(seed)
        out["won"] = play_out(deal, lambda s: mod.random_action(s, rng))
    elif policy == "greedy":
        out["won"] = play_out(deal, mod.greedy_action)
    elif policy == "solver":
        t0 = time.perf_counter()
        r = mod.solve(deal, node_limit=node_limit)
        out.update(won=r is True, solver=r, solver_ms=(time.perf_counter() - t0) * 1000)
    elif policy == "hint":
        times: list[float] = []
        cpu: list[float] = []
        quotes: list = []
        kw = {} if samples is None else {"samples": samples}
        if hint_nodes is not None:
            kw["node_limit"] = hint_nodes
        if hint_settings is not None:
            kw["settings"] = settings_of(mod, params, hint_settings)

        def policy_fn(s):
            c0 = time.process_time()
            h = mod.hint(s, seed=seed * 1000 + len(s.history), **kw)
            cpu.append((time.process_time() - c0) * 1000)
            times.append(h.elapsed_ms)
            search = getattr(h, "search", None)
            if search is not None:  # a real choice was searched: [raw rate, shown chance]
                quotes.append([search["raw"], h.win_chance])
            return h.action

        out.update(won=play_out(deal, policy_fn), hint_ms=times, hint_cpu_ms=cpu, quotes=quotes)
    else:
        raise ValueError(f"unknown policy {policy!r}; choose from {POLICIES}")
    return out


def settings_of(mod, params: dict, values: tuple[int, ...]):
    """The hint settings record of ``mod`` (the type of its ``HINT_SETTINGS`` entry for this
    size, e.g. ``engine.big_clock.HintSettings``) holding ``values`` in field order.

    Raises:
        ValueError: the module has no per-size settings record, or ``values`` has the wrong
            number of fields."""
    table = getattr(mod, "HINT_SETTINGS", None)
    if not isinstance(table, dict) or params.get("max_pip") not in table:
        raise ValueError(f"{mod.__name__} has no per-size HINT_SETTINGS to replace")
    kind = type(table[params["max_pip"]])
    fields = getattr(kind, "_fields", ())
    if len(values) != len(fields):
        raise ValueError(f"{kind.__name__} takes {len(fields)} values ({', '.join(fields)})")
    return kind(*values)


def merge_rows(results: list[dict]) -> list[dict]:
    """Per-policy results -> one row per seed: ``{"seed", "random", "greedy", "solver",
    "solver_ms", "hint", "hint_ms", "hint_cpu_ms"}`` (keys of the policies that ran), sorted by
    seed. Timings (``solver_ms``, ``hint_ms``, ``hint_cpu_ms``) are kept from CPython results
    only (a result without ``"python"`` is CPython's): None / empty lists for the others."""
    rows: dict[int, dict] = {}
    for r in results:
        row = rows.setdefault(r["seed"], {"seed": r["seed"]})
        timed = r.get("python", "CPython") == "CPython"
        if r["policy"] == "solver":
            row["solver"], row["solver_ms"] = r["solver"], r["solver_ms"] if timed else None
        else:
            row[r["policy"]] = r["won"]
            if r["policy"] == "hint":
                row["hint_ms"] = r["hint_ms"] if timed else []
                row["hint_cpu_ms"] = r.get("hint_cpu_ms", []) if timed else []
                row["hint_timed"] = timed
    return [rows[k] for k in sorted(rows)]


class ResultLog:
    """Per-deal results of one (game, size, policy), appended as JSON lines to
    ``<out_dir>/<game>-<size>-<policy>.jsonl`` and reused on a rerun, so a long run can be cut
    and continued. Each line carries its ``config`` (hint samples, solver node limit, and the
    policy's own settings); lines of another config are ignored (and kept in the file)."""

    def __init__(self, out_dir: Path, game: str, size: str, policy: str, config: dict):
        self.path = out_dir / f"{game}-{size}-{policy}.jsonl"
        self.config = config
        self.done: dict[int, dict] = {}
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                try:
                    r = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by an interrupted run
                if r.get("config") == config:
                    self.done[r["seed"]] = r

    def add(self, result: dict) -> None:
        result = dict(result, config=self.config)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as f:
            f.write(json.dumps(result) + "\n")
        self.done[result["seed"]] = result


def policy_config(
    mod,
    policy: str,
    samples: int | None,
    node_limit: int,
    params: dict | None = None,
    hint_nodes: int | None = None,
    hint_settings: object | None = None,
) -> dict:
    """What a stored result of ``policy`` depends on besides game, size and seed: the command's
    settings and the module's ``SOLVER_SETTINGS`` / ``HINT_SETTINGS`` (the entry of this size
    when the table is keyed by ``max_pip``) and ``HINT_VERSION``; change those and the old
    results are no longer reused. This is the one test of which stored results count: the
    calibration script and the Big Clock variants bench compare a line's ``config`` with it
    whole. ``hint_settings`` stands for the module's entry, to find results made while those
    settings were the module's (the variants bench's ``--base-node-limit``)."""
    if policy == "solver":
        return {"node_limit": node_limit, "settings": repr(getattr(mod, "SOLVER_SETTINGS", None))}
    if policy == "hint":
        table = getattr(mod, "HINT_SETTINGS", None)
        key = (params or {}).get("max_pip")
        if isinstance(table, dict) and key in table:
            table = table[key]
        if hint_settings is not None:
            table = hint_settings
        out = {"samples": samples, "settings": repr(table), "record": "quotes"}
        if hasattr(mod, "HINT_VERSION"):
            out["version"] = mod.HINT_VERSION
        if hint_nodes is not None:
            out["hint_node_limit"] = hint_nodes
        return out
    return {}


def rate_cell(k: int, n: int) -> str:
    lo, hi = wilson_interval(k, n)
    return f"{100 * k / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] (n={n})" if n else "-"


def summarise(name: str, label: str, rows: list[dict]) -> dict:
    """Counts, rates and Wilson intervals of one game size."""
    n = len(rows)
    hinted = [r for r in rows if "hint" in r]
    times = [t for r in hinted for t in r["hint_ms"]]
    cpu = [t for r in hinted for t in r.get("hint_cpu_ms", [])]
    s = {"game": name, "size": label, "deals": n, "hint_deals": len(hinted)}
    s["hint_timed_deals"] = sum(bool(r.get("hint_timed", True)) for r in hinted)
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
    s["hint_cpu_median_ms"] = statistics.median(cpu) if cpu else float("nan")
    s["hint_cpu_p95_ms"] = percentile(cpu, 0.95)
    s["hint_cpu_max_ms"] = max(cpu) if cpu else float("nan")
    timed = s["hint_timed_deals"]
    s["hint_cpu_s_per_deal"] = sum(cpu) / 1000 / timed if timed else float("nan")
    solver_ms = [r["solver_ms"] for r in rows if r.get("solver_ms") is not None]
    s["solver_median_ms"] = statistics.median(solver_ms) if solver_ms else float("nan")
    s["solver_p95_ms"] = percentile(solver_ms, 0.95)
    s["solver_max_ms"] = max(solver_ms) if solver_ms else float("nan")
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--games",
        default=",".join(available_games()),
        help="comma list of solitaires (default: every one whose engine exists)",
    )
    ap.add_argument("--deals", type=int, default=2000, help="seeded deals per size (seeds 0..N-1)")
    ap.add_argument(
        "--hint-deals",
        type=int,
        default=None,
        help="play the hint on the first K deals only (default: all)",
    )
    ap.add_argument(
        "--hint-from",
        type=int,
        default=0,
        help="play the hint from seed F on (seeds F..K-1 of --hint-deals K; default 0): to "
        "extend a hint run whose earlier results are reported elsewhere",
    )
    ap.add_argument(
        "--samples",
        type=int,
        default=None,
        help="hint samples (sampled stock orders); default: the module's default",
    )
    ap.add_argument("--node-limit", type=int, default=500_000, help="solver node limit per deal")
    ap.add_argument(
        "--hint-node-limit",
        type=int,
        default=None,
        help="hint nodes per search (default: the module's default); with --samples "
        "this makes a costlier reference hint",
    )
    ap.add_argument(
        "--hint-settings",
        type=lambda v: tuple(int(x) for x in v.split(",")),
        default=None,
        help="the hint's whole settings record for every size, comma-separated in field order "
        "(Big Clock: samples,min_samples,node_limit,node_budget), in place of the module's "
        "HINT_SETTINGS: the reference hint that spends far more time",
    )
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--sizes", default=None, help="comma list of size labels to run (default all)")
    ap.add_argument("--json", default=None, help="also write the summaries to this JSON file")
    ap.add_argument(
        "--out-dir",
        default="data/bench",
        help="per-deal results, one JSONL file per game, size and policy; reused "
        "on a rerun with the same settings (default data/bench)",
    )
    args = ap.parse_args(argv)

    hint_deals = args.deals if args.hint_deals is None else min(args.hint_deals, args.deals)
    summaries = []
    print(
        "| game | size | random | greedy | hint | solver (ceiling) | hint - greedy | "
        "ceiling - hint | hint ms median / p95 | hint CPU ms median / p95 |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in [g.strip() for g in args.games.split(",") if g.strip()]:
        if name not in SOLITAIRES:
            ap.error(f"unknown solitaire {name!r}; choose from {SOLITAIRES}")
        if platform.python_implementation() != "CPython" and name not in SAME_ON_PYPY:
            ap.error(
                f"{name} does not play the same on {platform.python_implementation()} "
                f"(only {', '.join(SAME_ON_PYPY)} does): run it with CPython"
            )
        mod = import_module(GAMES[name].module)
        sizes = mod.GAME_SIZES
        if args.sizes:
            wanted = args.sizes.split(",")
            sizes = sorted((x for x in sizes if x[0] in wanted), key=lambda x: wanted.index(x[0]))
        for label, params in sizes:
            logs = {}
            seeds: dict[str, range] = {}  # the seeds each policy plays
            jobs = []
            try:
                own = settings_of(mod, params, args.hint_settings) if args.hint_settings else None
            except ValueError as e:
                ap.error(f"--hint-settings for {name} {label}: {e}")
            for pol in POLICIES:
                seeds[pol] = (
                    range(args.hint_from, hint_deals) if pol == "hint" else range(args.deals)
                )
                logs[pol] = ResultLog(
                    Path(args.out_dir),
                    name,
                    label,
                    pol,
                    policy_config(
                        mod,
                        pol,
                        args.samples,
                        args.node_limit,
                        params,
                        args.hint_node_limit,
                        own,
                    ),
                )
                jobs += [
                    (
                        name,
                        params,
                        seed,
                        pol,
                        args.samples,
                        args.node_limit,
                        args.hint_node_limit,
                        args.hint_settings,
                    )
                    for seed in seeds[pol]
                    if seed not in logs[pol].done
                ]
            # the hint last: when a long run has to be cut, the other policies are complete and
            # the hint rows done so far are kept for the next run
            jobs.sort(key=lambda j: (j[3] == "hint", j[2]))
            print(
                f"<!-- {name} {label}: {len(jobs)} deal-policy runs to do, the rest reused "
                f"from {args.out_dir} -->",
                file=sys.stderr,
                flush=True,
            )
            t0 = time.time()
            with Pool(args.jobs) as pool:
                for r in pool.imap_unordered(run_task, jobs, chunksize=1):
                    logs[r["policy"]].add(r)
            done = [
                r for pol in POLICIES for seed, r in logs[pol].done.items() if seed in seeds[pol]
            ]
            rows = merge_rows(done)
            s = summarise(name, label, rows)
            s["wall_s"] = round(time.time() - t0, 1)
            summaries.append(s)
            n, h = s["deals"], s["hint_deals"]
            hint_rate = s["hint"] / h if h else float("nan")
            print(
                f"| {name} | {label} | {rate_cell(s['random'], n)} | {rate_cell(s['greedy'], n)}"
                f" | {rate_cell(s['hint'], h)} | {rate_cell(s['solver'], n)}"
                f"{' (' + str(s['solver_unknown']) + ' unknown)' if s['solver_unknown'] else ''}"
                f" | {100 * (hint_rate - s['greedy_on_hint_deals'] / max(h, 1)):+.1f} pts"
                f" | {100 * (s['solver_on_hint_deals'] / max(h, 1) - hint_rate):+.1f} pts"
                f" | {s['hint_median_ms']:.1f} / {s['hint_p95_ms']:.1f}"
                f" | {s['hint_cpu_median_ms']:.1f} / {s['hint_cpu_p95_ms']:.1f} |",
                flush=True,
            )
            if h:
                print(
                    f"<!-- {name} {label}: {s['hint_calls']} hint calls, CPU ms median "
                    f"{s['hint_cpu_median_ms']:.0f} / p95 {s['hint_cpu_p95_ms']:.0f} / max "
                    f"{s['hint_cpu_max_ms']:.0f}; hint CPU {s['hint_cpu_s_per_deal']:.2f} s "
                    f"per deal (timed on CPython: {s['hint_timed_deals']} of {h} deals) -->",
                    file=sys.stderr,
                    flush=True,
                )
            if args.json:
                Path(args.json).write_text(json.dumps(summaries, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
