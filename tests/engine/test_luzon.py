"""Luzon engine (RULES.md section 3; seed 003_*.txt)."""

from __future__ import annotations

import random

import pytest

from engine import IllegalActionError, make_game
from engine import luzon as lz
from engine.luzon import LuzonGame, NewColumn, RemovePair
from engine.solitaire import exhaustive_win
from engine.tiles import DominoSet, Tile

T = Tile.parse


def test_deal_is_five_columns_of_five_and_a_reserve_of_three():
    state = make_game("luzon").new_initial_state(4)
    assert [len(c) for c in state.columns] == [5] * 5
    assert len(state.reserve) == 3
    everything = [t for c in state.columns for t in c] + state.reserve
    assert sorted(everything) == sorted(DominoSet(6).tiles)
    assert state.free_tiles() == [c[-1] for c in state.columns]
    with pytest.raises(ValueError):
        LuzonGame(variant="fives")
    with pytest.raises(ValueError):
        LuzonGame(max_pip=9)


def test_pair_rule_standard_and_sixes():
    assert lz.tiles_pair(T("0-0"), T("6-6"))
    assert lz.tiles_pair(T("0-1"), T("5-6"))
    assert lz.tiles_pair(T("1-2"), T("3-6"))  # 12 pips
    assert not lz.tiles_pair(T("1-2"), T("3-5"))  # 11 pips
    assert not lz.tiles_pair(T("1-2"), T("3-6"), "sixes")  # ends do not sum to 6
    assert lz.tiles_pair(T("1-2"), T("4-5"), "sixes")  # 1+5, 2+4
    assert lz.tiles_pair(T("0-6"), T("3-3"), "sixes")  # the 6-pip tiles are exempt
    assert lz.tiles_pair(T("1-5"), T("2-4"), "sixes")
    assert not lz.tiles_pair(T("3-3"), T("3-3"))  # a tile never pairs with itself


def test_same_column_needs_a_move_first():
    # 0-0 under 6-6 in one column (the seed's example): they cannot pair until 0-0 starts a
    # new column, which is allowed because fewer than 5 columns exist.
    game = LuzonGame()
    s = game.state_from_position([[T("6-6"), T("0-0")]], reserve=[])
    assert s.legal_actions() == [NewColumn(T("0-0"))]
    with pytest.raises(IllegalActionError):
        s.apply_action(RemovePair.of(T("0-0"), T("6-6")))
    s.apply_action(NewColumn(T("0-0")))
    assert len(s.columns) == 2
    assert RemovePair.of(T("0-0"), T("6-6")) in s.legal_actions()
    s.apply_action(RemovePair.of(T("0-0"), T("6-6")))
    assert s.is_terminal() and s.returns() == [1.0]


def test_five_columns_allow_no_move_and_reserve_tiles_never_pair_together():
    game = LuzonGame()
    cols = [
        [T("6-6"), T("0-0")],
        [T("5-6"), T("0-1")],
        [T("4-6"), T("0-2")],
        [T("3-6"), T("0-3")],
        [T("2-6"), T("0-4")],
    ]
    s = game.state_from_position(cols, reserve=[])
    assert s.legal_actions() == [] and s.is_terminal() and s.returns() == [0.0]
    assert lz.solve(s) is False
    # reserve 0-0 and 6-6 would total 12 but reserve tiles never pair with each other
    s = game.state_from_position(
        [[T("1-1"), T("2-2")]], reserve=[T("0-0"), T("6-6")], check_removed=False
    )
    assert s.is_terminal()
    with pytest.raises(IllegalActionError):
        s.apply_action(RemovePair.of(T("0-0"), T("6-6")))


def test_free_tile_pairs_with_reserve_and_columns_close():
    game = LuzonGame()
    s = game.state_from_position([[T("2-2"), T("1-5")], [T("4-4")]], reserve=[T("2-4")])
    legal = s.legal_actions()
    assert RemovePair.of(T("1-5"), T("2-4")) in legal  # free + reserve, 12 pips
    assert RemovePair.of(T("1-5"), T("4-4")) not in legal  # 10 pips
    assert NewColumn(T("1-5")) in legal
    assert NewColumn(T("4-4")) not in legal  # moving a lone tile changes nothing
    s.apply_action(RemovePair.of(T("1-5"), T("2-4")))
    assert s.columns == [[T("2-2")], [T("4-4")]] and s.reserve == []


def test_sixes_variant_restricts_pairs():
    cols = [[T("1-2")], [T("3-6")], [T("4-5")]]
    std = LuzonGame().state_from_position(cols, reserve=[T("0-0")], seed=0, check_removed=False)
    six = LuzonGame("sixes").state_from_position(
        cols, reserve=[T("0-0")], seed=0, check_removed=False
    )
    assert RemovePair.of(T("1-2"), T("3-6")) in std.legal_actions()
    assert RemovePair.of(T("1-2"), T("3-6")) not in six.legal_actions()
    assert RemovePair.of(T("1-2"), T("4-5")) in six.legal_actions()


def test_state_from_position_rejects_impossible_positions():
    game = LuzonGame()
    with pytest.raises(ValueError, match="5 columns"):
        game.state_from_position([[T("0-0")]] * 6, reserve=[])
    with pytest.raises(ValueError, match="twice"):
        game.state_from_position([[T("0-0")], [T("0-0")]], reserve=[])
    with pytest.raises(ValueError, match="double-6"):
        game.state_from_position([[T("0-7")], [T("0-1")]], reserve=[])
    with pytest.raises(ValueError, match="reserve"):
        game.state_from_position([], reserve=[T("0-0"), T("0-1"), T("0-2"), T("0-3")])
    with pytest.raises(ValueError, match="even"):
        game.state_from_position([[T("0-0")]], reserve=[])


def test_missing_tiles_must_pair_off_in_twelves():
    """RULES.md section 3: tiles leave the table in pairs of 12 pips ("sixes": also end to end),
    so a position whose missing tiles cannot be split so is refused (a misread tile shows
    here); every position reached by play passes."""
    every = [t for t in lz.DominoSet(6).tiles]
    for variant in (None, "sixes"):
        game = LuzonGame(variant)
        for seed in range(40):
            st = game.new_initial_state(seed)
            rng = random.Random(seed)
            while not st.is_terminal():
                st.apply_action(rng.choice(st.legal_actions()))
                assert lz.removable_in_pairs(st.removed, variant)
                again = game.state_from_position(st.columns, st.reserve)
                assert sorted(again.removed) == sorted(st.removed)
    table = [t for t in every if t not in (T("0-0"), T("6-6"), T("1-2"), T("4-5"))]
    cols = [table[i::5] for i in range(5)][:5]
    res = [t for t in table if not any(t in c for c in cols)]
    LuzonGame().state_from_position(cols, res)  # 0-0 + 6-6 and 1-2 + 4-5: both total 12
    LuzonGame("sixes").state_from_position(cols, res)  # and 1-2 / 4-5 end to end: 1+5, 2+4
    table = [t for t in every if t not in (T("0-0"), T("6-6"), T("1-2"), T("3-6"))]
    cols = [table[i::5] for i in range(5)]
    LuzonGame().state_from_position(cols, [])  # 1-2 + 3-6 total 12 ...
    with pytest.raises(ValueError, match="ends totalling 6"):
        LuzonGame("sixes").state_from_position(cols, [])  # ... but do not match end to end
    # 0-1 and 5-6 removed (1 + 11 pips) but 4-6 misread as 5-6: 0-1 and 4-6 seem missing
    table = [t for t in every if t not in (T("0-0"), T("6-6"), T("0-1"), T("4-6"))]
    with pytest.raises(ValueError, match="pairs totalling 12"):
        LuzonGame().state_from_position([table[i::5] for i in range(5)], [])
    LuzonGame().state_from_position([table[i::5] for i in range(5)], [], check_removed=False)


@pytest.mark.parametrize("variant", [None, "sixes"])
def test_solver_agrees_with_brute_force(variant):
    game = LuzonGame(variant)
    checked = 0
    depth = 14 if variant is None else 6  # random play rarely gets far in "sixes"
    for seed in range(60):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal() and len(state.removed) < depth:
            state.apply_action(lz.random_action(state, rng))
        if state.is_terminal():
            continue
        assert lz.solve(state) == exhaustive_win(state)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("variant", [None, "sixes"])
def test_solve_line_and_hint_follow_the_solver(variant):
    game = LuzonGame(variant)
    wins = 0
    for seed in range(30):
        state = game.new_initial_state(seed)
        verdict = lz.solve(state)
        line = lz.solve_line(state)
        assert (line is not None) == (verdict is True)
        h = lz.hint(state)
        assert h.win_chance == (1.0 if verdict else 0.0)
        if state.is_terminal():  # some deals offer no pair at all
            assert h.action is None and verdict is False
            continue
        assert h.action in state.legal_actions()
        if line is not None:
            wins += 1
            won = game.replay(seed, line)
            assert won.is_terminal() and won.returns() == [1.0]
            after = state.clone()
            after.apply_action(h.action)
            assert lz.solve(after) is True
    if variant is None:
        assert wins > 0


def test_greedy_prefers_two_column_tiles_over_the_reserve():
    game = LuzonGame()
    s = game.state_from_position(
        [[T("0-0"), T("2-4")], [T("1-1"), T("1-5")]],
        reserve=[T("3-3"), T("0-6")],
        check_removed=False,
    )
    a = lz.greedy_action(s)
    assert a == RemovePair.of(T("2-4"), T("1-5"))
