#!/usr/bin/env python
"""Benchmark other Big Clock hint designs against the shipped hint on the same deals.

The shipped hint (``engine.big_clock.hints.hint``) races the candidate actions over sampled
stock orders, each judged by the perfect-information solver. Two other designs are played here,
both without knowledge of the stock order:

- ``mcts``: Monte Carlo tree search with chance nodes for the draws (the information-set
  search of the issue: every iteration samples an order of the unseen tiles, descends by UCB1
  over the candidates of ``hints._candidates`` and branches on the tile actually drawn next),
  one new node per iteration, then a greedy playout to the end; the most visited root action
  is played. ``--iters`` iterations per call, exploration constant ``--c``.
- ``rollout-tiebreak``: the shipped hint's race; where several candidates share the best
  result of the race, greedy playouts on ``--orders`` sampled stock orders choose among them
  (the race at the size's default settings; its nodes per search are part of the file name).

Each deal (seed ``s``, hint seed ``s * 1000 + len(history)`` per call like
``scripts/bench_solitaires.py``) is appended as a JSON line to
``<out-dir>/big-clock-double-<N>-<variant>-<settings>.jsonl`` and reused when the same command
runs again. The report compares with the shipped hint's per-deal results of
``scripts/bench_solitaires.py`` (``--base``, default ``data/bench/big-clock-double-6-hint.jsonl``)
on the same seeds, played with the default settings of the size or, with
``--base-node-limit N``, with those settings but ``N`` nodes per search: win rates with 95%
Wilson intervals, the paired counts (deals only one of
the two won) with an exact two-sided McNemar p, and the CPU time per call (ms).

Example (docs/big-clock.md, "Other designs measured")::

    .venv/bin/python scripts/bench_big_clock_variants.py --variant mcts --deals 60 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import mcnemar, wilson_interval  # noqa: E402
from engine.big_clock import hints as bc_hints  # noqa: E402
from engine.big_clock.game import BigClockGame, BigClockState  # noqa: E402
from engine.big_clock.policy import greedy_action  # noqa: E402
from engine.big_clock.rules import BigClockAction  # noqa: E402
from engine.solitaire import percentile, play_out  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_solitaires import policy_config  # noqa: E402

VARIANTS = ("mcts", "rollout-tiebreak")


def sampled_orders(state: BigClockState, n: int, rng: random.Random) -> list[list[int]]:
    """``n`` random orders of the unseen stock (tile indices, ``state._stock`` reshuffled)."""
    return [state.determinize(random.Random(rng.getrandbits(64)))._stock for _ in range(n)]


class _Node:
    """A decision node: its candidates and, per action played from it, ``[visits, wins,
    children by the next drawn tile]``."""

    __slots__ = ("cands", "edges", "visits")

    def __init__(self) -> None:
        self.cands: list[BigClockAction] | None = None
        self.edges: dict[BigClockAction, list[Any]] = {}
        self.visits = 0


def mcts_action(state: BigClockState, iters: int, seed: int, c: float) -> BigClockAction:
    """The most visited root action after ``iters`` iterations of chance-node MCTS (module
    docstring). Raises ValueError on a terminal state."""
    cands = bc_hints._candidates(state)
    if not cands:
        raise ValueError("no legal action: the game is over")
    if len(cands) == 1:
        return cands[0]
    rng = random.Random(seed)
    root = _Node()
    root.cands = cands
    for _ in range(iters):
        s = state.determinize(rng)
        node, path = root, []
        while not s.is_terminal():
            if node.cands is None:
                node.cands = bc_hints._candidates(s)
            pick: BigClockAction | None = None
            best = -1.0
            for a in node.cands:
                e = node.edges.get(a)
                if e is None:
                    pick = a
                    break
                v = e[1] / e[0] + c * math.sqrt(math.log(node.visits + 1) / e[0])
                if v > best:
                    best, pick = v, a
            assert pick is not None
            edge = node.edges.get(pick)
            fresh = edge is None
            if edge is None:
                edge = node.edges[pick] = [0, 0.0, {}]
            s.apply_action(pick)
            path.append((node, edge))
            if fresh or s.is_terminal():
                break
            child = edge[2].get(s._drawn)
            if child is None:
                edge[2][s._drawn] = _Node()
                break
            node = child
        won = 1.0 if play_out(s, greedy_action) else 0.0
        for n, e in path:
            n.visits += 1
            e[0] += 1
            e[1] += won
    return max(cands, key=lambda a: (root.edges[a][0] if a in root.edges else 0, -cands.index(a)))


def tiebreak_action(state: BigClockState, seed: int, orders: int) -> BigClockAction:
    """The shipped hint's race; ties for its best result broken by greedy playouts on
    ``orders`` sampled stock orders (the candidate order breaks what is left). Raises
    ValueError on a terminal state."""
    cands = bc_hints._candidates(state)
    if not cands:
        raise ValueError("no legal action: the game is over")
    if len(cands) == 1:
        return cands[0]
    outcomes, _ = bc_hints.race(state, cands, bc_hints.HINT_SETTINGS[state._tab.n], seed)
    rank = bc_hints.ranked(outcomes)
    b = rank[0]
    top = [
        i
        for i in rank
        if len(outcomes[i]) == len(outcomes[b])
        and bc_hints._score(outcomes[i]) == bc_hints._score(outcomes[b])
    ]
    if len(top) == 1 or len(state._stock) <= 1:
        return cands[b]
    stocks = sampled_orders(state, orders, random.Random(seed))
    wins = {}
    for i in top:
        w = 0
        for order in stocks:
            s = state.clone()
            s._stock = list(order)
            s.apply_action(cands[i])
            w += play_out(s, greedy_action)
        wins[i] = w
    return cands[max(top, key=lambda i: (wins[i], -i))]


def play_deal(job: tuple) -> dict:
    """One deal: ``job`` = (variant, max_pip, seed, settings dict). Returns ``{"seed", "won",
    "cpu_ms"}`` (the CPU time of every call, ms)."""
    variant, max_pip, seed, cfg = job
    s = BigClockGame(max_pip).new_initial_state(seed)
    cpu: list[float] = []
    while not s.is_terminal():
        c0 = time.process_time()
        call_seed = seed * 1000 + len(s.history)
        if variant == "mcts":
            a = mcts_action(s, cfg["iters"], call_seed, cfg["c"])
        else:
            a = tiebreak_action(s, call_seed, cfg["orders"])
        cpu.append((time.process_time() - c0) * 1000)
        s.apply_action(a)
    return {"seed": seed, "won": s.is_won(), "cpu_ms": cpu}


def _rate(k: int, n: int) -> str:
    lo, hi = wilson_interval(k, n)
    return f"{100 * k / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] (n={n})" if n else "-"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", choices=VARIANTS, required=True)
    ap.add_argument("--max-pip", type=int, default=6, choices=(6, 9, 12))
    ap.add_argument("--deals", type=int, default=60, help="seeds 0..N-1")
    ap.add_argument("--iters", type=int, default=1000, help="mcts: iterations per call")
    ap.add_argument("--c", type=float, default=0.6, help="mcts: UCB1 exploration constant")
    ap.add_argument("--orders", type=int, default=64, help="rollout-tiebreak: sampled orders")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--out-dir", type=Path, default=Path("data/bench-variants"))
    ap.add_argument("--base", type=Path, default=None, help="the shipped hint's per-deal results")
    ap.add_argument(
        "--base-node-limit",
        type=int,
        default=None,
        help="compare with the hint results made with this many nodes per search (default: "
        "the size's default settings)",
    )
    args = ap.parse_args(argv)
    cfg: dict[str, Any] = (
        {"iters": args.iters, "c": args.c}
        if args.variant == "mcts"
        else {"orders": args.orders, "race": bc_hints.HINT_SETTINGS[args.max_pip].node_limit}
    )
    tag = "-".join(f"{k}{v}" for k, v in cfg.items())
    path = args.out_dir / f"big-clock-double-{args.max_pip}-{args.variant}-{tag}.jsonl"
    done: dict[int, dict] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by an interrupted run
            done[r["seed"]] = r
    jobs = [(args.variant, args.max_pip, s, cfg) for s in range(args.deals) if s not in done]
    path.parent.mkdir(parents=True, exist_ok=True)
    with Pool(args.jobs) as pool, path.open("a") as out:
        for r in pool.imap_unordered(play_deal, jobs, chunksize=1):
            out.write(json.dumps(r) + "\n")
            out.flush()
            done[r["seed"]] = r
    rows = [done[s] for s in range(args.deals) if s in done]
    cpu = [t for r in rows for t in r["cpu_ms"]]
    wins = sum(r["won"] for r in rows)
    print(f"{args.variant} {cfg} double-{args.max_pip}: {_rate(wins, len(rows))}")
    print(
        f"  CPU ms per call median {percentile(cpu, 0.5):.0f} / p95 {percentile(cpu, 0.95):.0f}"
        f" / max {max(cpu):.0f}; {sum(cpu) / 1000 / len(rows):.1f} CPU-s per deal"
    )
    base_path = args.base or Path(f"data/bench/big-clock-double-{args.max_pip}-hint.jsonl")
    if base_path.exists():
        want = bc_hints.HINT_SETTINGS[args.max_pip]
        if args.base_node_limit is not None:
            want = want._replace(node_limit=args.base_node_limit)
        base_config = policy_config(
            bc_hints, "hint", None, 0, {"max_pip": args.max_pip}, hint_settings=want
        )
        base = {}
        for line in base_path.read_text().splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by an interrupted run
            if r.get("config") == base_config:
                base[r["seed"]] = r
        pair = [r for r in rows if r["seed"] in base]
        b = [bool(base[r["seed"]]["won"]) for r in pair]
        x, y, p = mcnemar([bool(r["won"]) for r in pair], b)
        bcpu = [t for r in pair for t in base[r["seed"]]["hint_cpu_ms"]]
        print(
            f"  hint {tuple(want)} on the same {len(pair)} deals: {_rate(sum(b), len(pair))}; "
            f"won only by {args.variant} {x}, only by the hint {y}, McNemar p {p:.3f}; "
            f"hint CPU ms per call p95 {percentile(bcpu, 0.95):.0f}, "
            f"{sum(bcpu) / 1000 / max(len(pair), 1):.1f} CPU-s per deal"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
