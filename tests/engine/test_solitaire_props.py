"""Property-based tests of the solitaires (hypothesis) and of the shared terminal front end.

Properties: tiles are conserved, no move breaks a rule (checked against the position before the
move with code independent of the engine), and replaying (seed, actions) reproduces the state.
The Big Clock joins the replay property once ``engine/big_clock/`` exists.
"""

from __future__ import annotations

import argparse
import io
import random
from collections import Counter
from importlib import import_module

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import GAMES, make_game
from engine import good_neighbors as gn
from engine import luzon as lz
from engine.luzon import NewColumn
from engine.tiles import DominoSet

SETTINGS = settings(max_examples=30, deadline=None)
seeds = st.integers(min_value=0, max_value=10**6)
choices = st.lists(st.integers(min_value=0, max_value=10**6), min_size=0, max_size=60)


def play(state, picks):
    """Apply actions picked by index from ``picks``; yields (before, action, after)."""
    for p in picks:
        if state.is_terminal():
            return
        before = state.clone()
        actions = state.legal_actions()
        action = actions[p % len(actions)]
        state.apply_action(action)
        yield before, action, state


@SETTINGS
@given(seed=seeds, picks=choices, max_pip=st.sampled_from([12, 9, 6]))
def test_good_neighbors_conserves_tiles_and_keeps_the_rules(seed, picks, max_pip):
    game = gn.GoodNeighborsGame(max_pip)
    state = game.new_initial_state(seed)
    full = Counter(DominoSet(max_pip).tiles)
    for before, action, after in play(state, picks):
        assert Counter(after.grid + after.stock + after.removed) == full
        # every pair touched (8-neighbourhood) and shared a number on the grid before the move
        where = {t: divmod(k, game.cols) for k, t in enumerate(before.grid)}
        used = [t for p in action.pairs for t in p]
        assert len(used) == len(set(used)) >= 2
        for a, b in action.pairs:
            (ra, ca), (rb, cb) = where[a], where[b]
            assert max(abs(ra - rb), abs(ca - cb)) == 1 and a.shares_number(b)
        # close-up keeps reading order, refill comes from the top of the stock
        kept = [t for t in before.grid if t not in set(used)]
        drawn = before.stock[: game.cells - len(kept)]
        assert after.grid == kept + drawn
        assert len(after.grid) == game.cells or not after.stock
    if state.is_terminal():
        won = len(state.grid) + len(state.stock) <= game.tiles_left_to_win
        assert state.returns() == [1.0 if won else 0.0]


@SETTINGS
@given(seed=seeds, picks=choices, variant=st.sampled_from([None, "sixes"]))
def test_luzon_conserves_tiles_and_keeps_the_rules(seed, picks, variant):
    game = lz.LuzonGame(variant)
    state = game.new_initial_state(seed)
    full = Counter(DominoSet(6).tiles)
    for before, action, after in play(state, picks):
        on_table = [t for c in after.columns for t in c] + after.reserve
        assert Counter(on_table + after.removed) == full
        assert len(after.columns) <= 5 and all(after.columns)
        free = {c[-1]: i for i, c in enumerate(before.columns)}
        if isinstance(action, NewColumn):
            assert len(before.columns) < 5 and action.tile in free
            assert len(before.columns[free[action.tile]]) >= 2
            assert [action.tile] in after.columns
            continue
        a, b = action.a, action.b
        assert a.pips + b.pips == 12
        if variant == "sixes" and not (a.pips == 6 and b.pips == 6):
            assert {a.low + b.high, a.high + b.low} == {6} or {a.low + b.low, a.high + b.high} == {
                6
            }
        in_reserve = [t for t in (a, b) if t in before.reserve]
        assert len(in_reserve) <= 1  # reserve tiles never pair together
        cols = [free[t] for t in (a, b) if t not in before.reserve]
        assert len(cols) == 2 - len(in_reserve)
        assert len(set(cols)) == len(cols)  # never two tiles of one column
    if state.is_terminal():
        assert state.returns() == [1.0 if not state.columns and not state.reserve else 0.0]


def solitaire_games():
    out = [("good-neighbors", {"max_pip": m}) for m in (12, 9, 6)]
    out += [("luzon", {"variant": v}) for v in (None, "sixes")]
    try:
        import_module(GAMES["big-clock"].module)
    except ModuleNotFoundError:
        pass
    else:
        out += [("big-clock", {"max_pip": m}) for m in (12, 9, 6)]
    return out


@SETTINGS
@given(seed=seeds, picks=choices, which=st.sampled_from(solitaire_games()))
def test_replay_from_seed_and_actions_reproduces_the_state(seed, picks, which):
    name, params = which
    game = make_game(name, **params)
    state = game.new_initial_state(seed)
    for _ in play(state, picks):
        pass
    again = game.replay(seed, state.history)
    assert str(again) == str(state)
    assert again.legal_actions() == state.legal_actions()
    assert again.returns() == state.returns()
    # determinize keeps what the player sees
    det = state.determinize(random.Random(seed))
    assert str(det) == str(state)


def run_terminal(argv_game: str, text: str, **kw) -> str:
    from companion.terminal import solitaire as term

    args = argparse.Namespace(
        game=argv_game,
        seed=kw.get("seed", 5),
        players=2,
        max_pip=kw.get("max_pip"),
        variant=kw.get("variant"),
        hint=kw.get("hint", False),
    )
    out = io.StringIO()
    assert term.play(args, stdin=io.StringIO(text), stdout=out) == 0
    return out.getvalue()


def test_terminal_handles_bad_input_hint_moves_and_eof():
    out = run_terminal("good-neighbors", "x\n99\nh\n1\n", max_pip=9)
    assert "type a move number" in out and "no move number 99" in out
    assert "hint:" in out and "win chance" in out
    assert "removed: 2" in out  # move 1 was played
    assert out.rstrip().endswith("end of input: bye")


def test_terminal_plays_luzon_to_the_end_and_rejects_bad_parameters():
    game = make_game("luzon")
    seed = next(s for s in range(50) if lz.solve(game.new_initial_state(s)))
    state = game.new_initial_state(seed)
    line = lz.solve_line(state)
    typed = []
    for a in line:  # type the solver's moves by their menu number
        typed.append(str(state.legal_actions().index(a) + 1))
        state.apply_action(a)
    out = run_terminal("luzon", "\n".join(typed) + "\n", seed=seed)
    assert "You won!" in out
    from companion.terminal import solitaire as term

    with pytest.raises(ValueError, match="only for luzon"):
        run_terminal("good-neighbors", "", variant="sixes")
    with pytest.raises(ValueError, match="double-6"):
        run_terminal("luzon", "", max_pip=9)
    assert term.load_module("luzon") is lz
