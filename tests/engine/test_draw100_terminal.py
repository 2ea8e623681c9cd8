"""The terminal front end ``domino-companion play draw100``."""

import argparse
import io

import pytest

from companion.terminal.draw100 import play


def run(text, **kw):
    args = argparse.Namespace(
        game="draw100",
        seed=kw.get("seed", 3),
        players=kw.get("players", 2),
        max_pip=kw.get("max_pip"),
        variant=None,
        hint=kw.get("hint", False),
    )
    out = io.StringIO()
    rc = play(args, stdin=io.StringIO(text), stdout=out)
    return rc, out.getvalue()


def test_full_game_always_first_move():
    rc, out = run("1\n" * 400)
    assert rc == 0
    assert "game over: P" in out and "round 1 ends" in out
    assert "open ends:" in out and "your hand:" in out and "#0 [" in out


def test_bad_input_then_eof_exits_cleanly():
    rc, out = run("x\n99\n0\n\n")
    assert rc == 0
    assert out.count("please type a number") == 4
    assert "end of input" in out


def test_hint_and_quit():
    rc, out = run("h\nq\n", hint=True)
    assert rc == 0 and out.count("hint: ") == 2 and "bye." in out


def test_three_players_and_replayable_seed():
    _, a = run("1\n" * 30, players=3, seed=8)
    _, b = run("1\n" * 30, players=3, seed=8)
    assert a == b and "P2" in a


@pytest.mark.parametrize("kw", [{"players": 5}, {"max_pip": 9}])
def test_bad_options_raise_value_error(kw):
    with pytest.raises(ValueError):
        run("", **kw)
