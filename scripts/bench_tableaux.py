#!/usr/bin/env python
"""Benchmark the Tableaux hint player against the greedy one-tile-at-a-time player.

Plays ``--games`` seeded games (seed = ``--seed-base`` + i); the hint player sits in seat
``i % 2`` (alternating), the greedy player (``engine.tableaux.greedy_action``) in the other.
Prints the hint player's win rate with its 95% Wilson interval and the time of a hint (median
and p95, milliseconds) over every position where the hint player moved.

    nice -n 10 .venv/bin/python scripts/bench_tableaux.py --games 1000
    .venv/bin/python scripts/bench_tableaux.py --games 50 --max-pip 9 --defence 0
    .venv/bin/python scripts/bench_tableaux.py --games 1000 --wins-out new.json --compare old.json

``--wins-out`` stores the per-game results (a JSON list, True where the hint player won, game
``i`` at index ``i``); ``--compare`` pairs them with such a list from another version of the
engine on the same seeds and prints the exact two-sided McNemar test on the discordant games.

Numbers are written into docs/tableaux-rules.md by hand, with the command and date.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.game import mcnemar, wilson_interval  # noqa: E402
from engine.tableaux import TableauxGame, greedy_action, hint  # noqa: E402


def play_game(
    game: TableauxGame,
    seed: int,
    hint_seat: int,
    defence: float,
    node_limit: int,
    times_ms: list[float],
) -> dict:
    """One game; appends each hint's time (ms) to ``times_ms``. Returns a small record."""
    s = game.new_initial_state(seed)
    while not s.is_terminal():
        if s.player == hint_seat:
            h = hint(s, defence=defence, node_limit=node_limit)
            times_ms.append(h.elapsed_ms)
            a = h.action
        else:
            a = greedy_action(s)
        s.apply_action(a)
    return {
        "seed": seed,
        "hint_seat": hint_seat,
        "winner": s.winner,
        "scores": s.scores,
        "hands": s.hand_number,
        "actions": len(s.history),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    ap.add_argument("--max-pip", type=int, default=6, choices=(6, 9), help="set (default 6)")
    ap.add_argument("--defence", type=float, default=0.5, help="hint defence weight")
    ap.add_argument(
        "--node-limit", type=int, default=5_000, help="hint search nodes (placements tried)"
    )
    ap.add_argument("--seed-base", type=int, default=0, help="seed of game 0")
    ap.add_argument("--json", type=Path, default=None, help="also write the summary here")
    ap.add_argument(
        "--wins-out",
        type=Path,
        default=None,
        help="write the per-game results (JSON list of hint-player wins)",
    )
    ap.add_argument(
        "--compare",
        type=Path,
        default=None,
        help="per-game results of another engine version on the same seeds: "
        "print the exact McNemar test",
    )
    a = ap.parse_args(argv)
    if a.games < 1:
        ap.error("--games must be at least 1")
    game = TableauxGame(a.max_pip)
    times: list[float] = []
    wins = 0
    t0 = time.perf_counter()
    records = []
    for i in range(a.games):
        r = play_game(game, a.seed_base + i, i % 2, a.defence, a.node_limit, times)
        records.append(r)
        wins += r["winner"] == r["hint_seat"]
        if (i + 1) % 100 == 0:
            print(
                f"  {i + 1} games, hint wins {wins}, {time.perf_counter() - t0:.0f} s",
                file=sys.stderr,
                flush=True,
            )
    lo, hi = wilson_interval(wins, a.games)
    times.sort()
    summary = {
        "games": a.games,
        "max_pip": a.max_pip,
        "defence": a.defence,
        "node_limit": a.node_limit,
        "seed_base": a.seed_base,
        "hint_wins": wins,
        "win_rate": wins / a.games,
        "wilson95": [lo, hi],
        "hints_timed": len(times),
        "hint_ms_median": statistics.median(times),
        "hint_ms_p95": times[min(len(times) - 1, int(0.95 * len(times)))],
        "hint_ms_max": times[-1],
        "mean_hands_per_game": statistics.mean(r["hands"] for r in records),
        "wall_s": time.perf_counter() - t0,
    }
    print(
        f"Tableaux double-{a.max_pip}: hint player (defence {a.defence}) vs greedy, "
        f"{a.games} games, seats alternating"
    )
    print(
        f"  hint wins {wins}/{a.games} = {100 * wins / a.games:.1f}% "
        f"(95% Wilson {100 * lo:.1f}-{100 * hi:.1f}%)"
    )
    print(
        f"  hint time over {len(times)} positions: median {summary['hint_ms_median']:.2f} ms, "
        f"p95 {summary['hint_ms_p95']:.2f} ms, max {summary['hint_ms_max']:.1f} ms"
    )
    print(f"  {summary['mean_hands_per_game']:.1f} hands per game, wall {summary['wall_s']:.0f} s")
    won = [r["winner"] == r["hint_seat"] for r in records]
    if a.wins_out:
        a.wins_out.write_text(json.dumps(won))
    if a.compare:
        other = json.loads(a.compare.read_text())
        b, c, p = mcnemar(other, won)
        summary["mcnemar"] = {"other_wins": sum(other), "only_other": b, "only_this": c, "p": p}
        print(
            f"  paired with {a.compare}: {sum(other)} wins there; won only there {b}, only "
            f"here {c}; exact McNemar p = {p:.3f}"
        )
    if a.json:
        a.json.write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
