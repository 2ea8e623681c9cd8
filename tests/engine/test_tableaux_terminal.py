"""The Tableaux terminal front end (companion/terminal/tableaux.py) with scripted input."""

from __future__ import annotations

import argparse
import io

import pytest

from companion.terminal.tableaux import play


def args(seed=3, max_pip=6, hint=False):
    return argparse.Namespace(
        game="tableaux", seed=seed, max_pip=max_pip, hint=hint, players=2, variant=None
    )


def run(text, **kw):
    out = io.StringIO()
    rc = play(args(**kw), stdin=io.StringIO(text), stdout=out)
    return rc, out.getvalue()


def test_bad_input_then_quit():
    rc, out = run("x\n0\n999\ne\nq\n", hint=True)
    assert rc == 0 and out.count("please type a number") == 4 and out.rstrip().endswith("bye.")
    assert "hint: Best turn" in out and "starter 0-6" in out


def test_end_of_input_leaves_cleanly():
    rc, out = run("")
    assert rc == 0 and "end of input" in out


def test_a_whole_game_by_always_taking_the_first_play():
    rc, out = run("1\n" * 3000, seed=5)
    assert rc == 0 and "game over: P" in out
    assert "hand 2:" in out  # several hands were played


def test_double_9_and_bad_set():
    rc, out = run("h\nq\n", max_pip=9)
    assert rc == 0 and "double-9, hands of 5, first to 361" in out and "hint:" in out
    with pytest.raises(ValueError, match="double-6 or double-9"):
        run("q\n", max_pip=12)
