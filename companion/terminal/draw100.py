"""Terminal front end: ``domino-companion play draw100 [--players N] [--seed S] [--hint]``.

You are seat P0; the other seats are played by the hint player (``engine.draw100.hints``). Each
of your turns shows the scores, the line of play as a tree, its open ends, the boneyard size,
the opponents' hand sizes and your hand, then the numbered legal moves. Type a number to play,
``h`` for the hint, ``q`` to quit. A forced draw, pass or lead is played for you and reported.
End of input (Ctrl-D) quits cleanly; bad input gets a message and the prompt again.
Rules: RULES.md section 4.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import TextIO

from engine.draw100 import Draw100Game, Play
from engine.draw100.hints import hint

from .prompt import choose_action

HUMAN = 0


def _show(state, out: TextIO) -> None:
    print("", file=out)
    print(str(state), file=out)
    hand = "  ".join(str(t) for t in state.hands[HUMAN])
    pips = sum(t.pips for t in state.hands[HUMAN])
    print(f"your hand: {hand}  ({pips} pips)", file=out)


def _report_rounds(state, seen: int, out: TextIO) -> int:
    for r in state.rounds[seen:]:
        who = (
            "nobody scores (tie for fewest pips)"
            if r.winner is None
            else (f"P{r.winner} scores {r.points}")
        )
        pips = ", ".join(f"P{p}:{x}" for p, x in enumerate(r.hand_pips))
        print(f"== round {r.round_no} ends ({r.kind}): {who}; pips left {pips}", file=out)
        print("   totals: " + "  ".join(f"P{p}={s}" for p, s in enumerate(state.scores)), file=out)
    return len(state.rounds)


def play(
    args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Play a game to 100 in the terminal. Returns 0 (finished or quit).

    ``args``: ``players`` (2-4), ``seed`` (None: random, printed for replay), ``hint`` (show the
    hint before each of your moves). ``stdin``/``stdout`` default to the process streams.

    Raises:
        ValueError: bad ``--players`` (the CLI prints it as an error message).
    """
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    players = getattr(args, "players", None) or 2
    if getattr(args, "max_pip", None) not in (None, 6):
        raise ValueError("draw100 uses a double-six set; leave --max-pip out or use 6")
    game = Draw100Game(num_players=players)
    seed = args.seed if getattr(args, "seed", None) is not None else random.randrange(10**9)
    print(
        f"Double-six draw to {game.target}, {players} players, seed {seed}. You are P0; "
        f"play passes to the left (P0 -> P1 -> ...).",
        file=out,
    )
    state = game.new_initial_state(seed)
    bot_rng = random.Random(seed ^ 0x5EED)
    seen = 0
    while not state.is_terminal():
        seen = _report_rounds(state, seen, out)
        p = state.player
        actions = state.legal_actions()
        if p != HUMAN:
            a = hint(state, seed=bot_rng.getrandbits(32)).action
            print(f"P{p}: {state.action_to_string(a)}", file=out)
            state.apply_action(a)
            continue
        if len(actions) == 1 and not (isinstance(actions[0], Play) and actions[0].end):
            a = actions[0]
            before = set(state.hands[HUMAN])
            state.apply_action(a)
            drawn = [t for t in state.hands[HUMAN] if t not in before]
            extra = f" {drawn[0]}" if drawn else ""
            print(f"you: {state.action_to_string(a) if not drawn else 'draw'}{extra}", file=out)
            continue
        _show(state, out)
        for i, a in enumerate(actions, 1):
            print(f"  {i}. {state.action_to_string(a)}", file=out)
        if getattr(args, "hint", False):
            print("hint: " + hint(state, seed=seed + len(state.history)).explanation, file=out)
        a = choose_action(
            actions,
            lambda: "hint: " + hint(state, seed=seed + len(state.history)).explanation,
            inp,
            out,
        )
        if a is None:
            return 0
        print(f"you: {state.action_to_string(a)}", file=out)
        state.apply_action(a)
    _report_rounds(state, seen, out)
    assert state.winner is not None  # the loop ends when the game does
    print(
        f"game over: P{state.winner} wins with {state.scores[state.winner]} points"
        + (" -- you win!" if state.winner == HUMAN else "."),
        file=out,
    )
    return 0
