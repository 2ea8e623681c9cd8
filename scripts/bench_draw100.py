#!/usr/bin/env python3
"""Benchmark of the double-six draw game (RULES.md section 4): the hint player against baselines.

Plays ``--games`` games to 100 with ``--players`` seats (2-4; game ``i`` uses seed
``--seed + i``; the hint player sits in seat ``i % players``, so seats rotate) between
:func:`engine.draw100.hints.hint` with ``--samples`` samples (``--hint race``, the default: ranked
by the race to 100 near the end, ``race=True``; ``--hint margin``: by the round's point margin,
the engine's default) and ``--opponent`` in every
other seat: ``random`` legal actions, ``greedy`` (heaviest playable tile first) or ``margin`` (the
round-margin hint). Prints the hint player's game win rate with its 95% Wilson interval (a fair
share is 1 / players), the time per hint (ms, only hints with a real choice, i.e. more than one
distinct play), and the speed of random self-play (games/s).

    nice -n 10 .venv/bin/python scripts/bench_draw100.py            # 4,000 games
    nice -n 10 .venv/bin/python scripts/bench_draw100.py --players 3 --opponent margin --games 1000
    .venv/bin/python scripts/bench_draw100.py --games 200 --selfplay-games 200   # quick
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.draw100 import Draw100Game, Play  # noqa: E402
from engine.draw100.hints import hint  # noqa: E402
from engine.game import wilson_interval  # noqa: E402


def greedy_action(state):
    """Baseline: play the heaviest playable tile (first listed open end); else draw or pass."""
    actions = state.legal_actions()
    plays = [a for a in actions if isinstance(a, Play)]
    return max(plays, key=lambda a: a.tile.pips) if plays else actions[0]


def hint_vs_random(
    games: int,
    samples: int,
    seed: int,
    opponent: str = "random",
    players: int = 2,
    race: bool = True,
) -> dict:
    """Play ``games`` games of ``players`` seats: the hint (``race`` or the round-margin hint)
    in seat ``i % players``, every other seat ``opponent``: "random" legal actions, "greedy"
    (:func:`greedy_action`) or "margin" (the hint ranking by the round's point margin,
    ``race=False``, with the same samples). Returns counts and hint timings (ms)."""
    game = Draw100Game(num_players=players)
    wins = 0
    rounds = 0
    times: list[float] = []
    t0 = time.perf_counter()
    for i in range(games):
        state = game.new_initial_state(seed + i)
        rng = random.Random(10**9 + seed + i)
        hint_seat = i % players
        while not state.is_terminal():
            if state.player == hint_seat:
                h = hint(state, samples=samples, seed=rng.getrandbits(32), race=race)
                if "sampled deals" in h.explanation:  # a real choice (not a forced move)
                    times.append(h.elapsed_ms)
                action = h.action
            elif opponent == "greedy":
                action = greedy_action(state)
            elif opponent == "margin":
                action = hint(state, samples=samples, seed=rng.getrandbits(32), race=False).action
            else:
                action = rng.choice(state.legal_actions())
            state.apply_action(action)
        wins += state.winner == hint_seat
        rounds += len(state.rounds)
    elapsed = time.perf_counter() - t0
    lo, hi = wilson_interval(wins, games)
    times.sort()
    return {
        "games": games,
        "players": players,
        "hint": "race" if race else "margin",
        "opponent": opponent,
        "samples": samples,
        "hint_wins": wins,
        "win_rate": wins / games,
        "wilson95": [lo, hi],
        "rounds_per_game": rounds / games,
        "hints_timed": len(times),
        "hint_ms_mean": statistics.fmean(times) if times else float("nan"),
        "hint_ms_median": times[len(times) // 2] if times else float("nan"),
        "hint_ms_p95": times[int(0.95 * (len(times) - 1))] if times else float("nan"),
        "seconds": elapsed,
    }


def random_selfplay(games: int, players: int, seed: int) -> dict:
    """Random legal play of ``games`` full games to 100; returns games/s and actions/s."""
    game = Draw100Game(num_players=players)
    actions = 0
    t0 = time.perf_counter()
    for i in range(games):
        state = game.new_initial_state(seed + i)
        rng = random.Random(seed + i)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            actions += 1
    elapsed = time.perf_counter() - t0
    return {
        "games": games,
        "players": players,
        "games_per_s": games / elapsed,
        "actions_per_s": actions / elapsed,
        "seconds": elapsed,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    p.add_argument("--games", type=int, default=4000, help="hint-vs-random games (default 4000)")
    p.add_argument("--samples", type=int, default=32, help="hint samples (default 32)")
    p.add_argument(
        "--selfplay-games",
        type=int,
        default=1000,
        help="random self-play games per player count (default 1000)",
    )
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument(
        "--opponent",
        choices=["random", "greedy", "margin"],
        default="random",
        help="the hint player's opponents (default random legal moves; margin: the "
        "hint ranking by the round's point margin)",
    )
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="seats (default 2)")
    p.add_argument(
        "--hint",
        choices=["race", "margin"],
        default="race",
        help="the benchmarked hint: race=True (the race to 100 near the end; the "
        "default here) or margin (the engine's default, race=False)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = p.parse_args(argv)
    if args.games < 1 or args.samples < 1 or args.selfplay_games < 1:
        p.error("--games, --samples and --selfplay-games must be positive")
    duel = hint_vs_random(
        args.games, args.samples, args.seed, args.opponent, args.players, args.hint == "race"
    )
    selfplay = [random_selfplay(args.selfplay_games, n, args.seed) for n in (2, 4)]
    result = {
        "date_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": platform.python_version(),
        "hint_vs_random": duel,
        "random_selfplay": selfplay,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    lo, hi = duel["wilson95"]
    print(f"date: {result['date_utc']}  python {result['python']}")
    print(
        f"{duel['hint']} hint ({duel['samples']} samples) vs {duel['opponent']}, "
        f"{duel['players']} players, {duel['games']} games, "
        f"seats alternate: hint wins {duel['hint_wins']} = {100 * duel['win_rate']:.1f}% "
        f"(95% Wilson {100 * lo:.1f}-{100 * hi:.1f}%), {duel['rounds_per_game']:.2f} rounds/game"
    )
    print(
        f"hint time over {duel['hints_timed']} hints with a real choice: mean "
        f"{duel['hint_ms_mean']:.2f} ms, median {duel['hint_ms_median']:.2f} ms, p95 "
        f"{duel['hint_ms_p95']:.2f} ms; duel took {duel['seconds']:.0f} s"
    )
    for s in selfplay:
        print(
            f"random self-play, {s['players']} players: {s['games_per_s']:.1f} games/s "
            f"({s['actions_per_s']:.0f} actions/s, {s['games']} games in {s['seconds']:.1f} s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
