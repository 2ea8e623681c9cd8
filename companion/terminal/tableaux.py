"""Terminal front end: ``domino-companion play tableaux [--seed S] [--max-pip 6|9] [--hint]``.

You are P0 against the hint player (``engine.tableaux.hint``) as P1. The tableau is drawn as a
grid: one digit per half-tile, ``-`` or ``|`` joins the two halves of a tile, ``.`` is an empty
cell; row numbers run down the left (row grows downwards), column numbers along the top.
Each of your moves lists the legal plays, numbered, as ``tile at (row, col)=n (row, col)=m``
with their kind and points. Type a number to play, ``e`` to end a turn that could go on, ``h``
for the hint (the best whole turn), ``q`` to quit. A forced pass is played for you and
reported. End of input (Ctrl-D) quits cleanly; bad input gets a message and the prompt again.
Rules: RULES.md section 5 and docs/tableaux-rules.md.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import TextIO

from engine.tableaux import END_TURN, PASS, TableauxGame, hint

from .prompt import choose_action

HUMAN = 0


def _print_events(state, seen: int, out: TextIO) -> int:
    for line in state.events[seen:]:
        print(f"== {line}", file=out)
    return len(state.events)


def _menu(state) -> list:
    """Legal actions in menu order: plays by points (best first), then end turn / pass."""
    places = sorted(
        (a for a in state.legal_actions() if a not in (PASS, END_TURN)),
        key=lambda a: (-state.placement_of(a).points, str(a.tile), a.low_cell),
    )
    rest = [a for a in state.legal_actions() if a in (PASS, END_TURN)]
    return places + rest


def _hint_text(state) -> str:
    h = hint(state)
    return f"hint: {h.explanation} ({h.elapsed_ms:.0f} ms)"


def play(
    args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Play one game of Tableaux in the terminal. Returns 0 (finished or quit).

    ``args``: ``seed`` (None: random, printed for replay), ``max_pip`` (6 default, or 9),
    ``hint`` (show the hint before each of your moves). ``stdin``/``stdout`` default to the
    process streams.

    Raises:
        ValueError: ``--max-pip`` other than 6 or 9 (the CLI prints it as an error message).
    """
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    max_pip = getattr(args, "max_pip", None) or 6
    game = TableauxGame(max_pip)
    seed = args.seed if getattr(args, "seed", None) is not None else random.randrange(10**9)
    print(
        f"Tableaux, double-{max_pip}, hands of {game.hand_size}, first to {game.target} "
        f"points, seed {seed}. You are P0, the hint player is P1.",
        file=out,
    )
    state = game.new_initial_state(seed)
    seen = 0
    while not state.is_terminal():
        seen = _print_events(state, seen, out)
        if state.player != HUMAN:
            a = hint(state).action
            print(f"P1: {state.action_to_string(a)}", file=out)
            state.apply_action(a)
            continue
        actions = _menu(state)
        if actions == [PASS]:
            print("", file=out)
            print(str(state), file=out)
            print("your hand: " + "  ".join(str(t) for t in state.hands[HUMAN]), file=out)
            print("you have no legal play: pass (-3 points)", file=out)
            state.apply_action(PASS)
            continue
        print("", file=out)
        print(str(state), file=out)
        print("your hand: " + "  ".join(str(t) for t in state.hands[HUMAN]), file=out)
        for i, a in enumerate(actions, 1):
            print(f"  {i}. {state.action_to_string(a)}", file=out)
        if getattr(args, "hint", False):
            print(_hint_text(state), file=out)
        extra = {"e": ("end turn", END_TURN)} if END_TURN in actions else {}
        a = choose_action(actions, lambda: _hint_text(state), inp, out, extra)
        if a is None:
            return 0
        print(f"you: {state.action_to_string(a)}", file=out)
        state.apply_action(a)
    _print_events(state, seen, out)
    print(str(state), file=out)
    assert state.winner is not None  # the loop ends when the game does
    print(
        f"game over: P{state.winner} wins with {state.scores[state.winner]} points"
        + (" -- you win!" if state.winner == HUMAN else "."),
        file=out,
    )
    return 0
