"""Tableaux rules (RULES.md section 5, seed 002_*.txt, docs/tableaux-rules.md)."""

from __future__ import annotations

import random

import pytest

from engine import make_game
from engine.game import IllegalActionError
from engine.tableaux import (
    END_TURN,
    PASS,
    Board,
    Place,
    TableauxGame,
    best_turn,
    greedy_action,
    hint,
    threat,
)
from engine.tableaux.hint import WIN_BONUS
from engine.tiles import Tile

T = Tile.parse

# Seed example: starter 2-4 standing with 4 on top, then 2-3 staggered beside it (a side play).
#   row 0:  4 .        X at (2, 0) must be 2 + 3 = 5
#   row 1:  2 2        Y at (0, 1) must be 4 + 2 = 6
#   row 2:  . 3
STAGGERED = [((4, 2), (0, 0), (1, 0)), ((2, 3), (1, 1), (2, 1))]

# Seed example of a centre play: the notch (1, 1) is flush with 1 above, 2 left, 3 below (a
# made-up tableau: no order of legal plays builds it, so it is built with check_build=False).
NOTCH = [
    ((0, 1), (-1, 1), (0, 1)),
    ((0, 2), (1, -1), (1, 0)),
    ((3, 0), (2, 1), (3, 1)),
    ((4, 4), (0, -1), (0, 0)),
    ((5, 6), (2, 0), (2, -1)),
]


def position(placed, hand, **kw):
    return TableauxGame.state_from_position(
        placed, [T(h) for h in hand], seed=kw.pop("seed", 1), **kw
    )


def moves_at(state, cell):
    """{(tile, low_cell, high_cell): placement} of plays whose touching half is on ``cell``."""
    return {
        (str(m.tile), m.low_cell, m.high_cell): m
        for m in state.placements()
        if cell in (m.low_cell, m.high_cell)
    }


# --- the seed's examples ---------------------------------------------------------------------
def test_corner_examples_x5_y6():
    s = position(STAGGERED, ["1-5", "0-6", "2-5", "0-4"])
    x = moves_at(s, (2, 0))
    assert {k[0] for k in x} == {"1-5", "2-5"}  # the half on X must show 5
    assert all(m.kind == "corner" and m.points == 5 and m.continues for m in x.values())
    assert all(s.board.num.get(c) is None for k in x for c in k[1:])
    y = moves_at(s, (0, 1))
    assert {k[0] for k in y} == {"0-6"} and all(m.points == 6 for m in y.values())
    # 0-4 only fits as a side play beside the 4 of the starter
    assert {m.kind for m in s.placements() if m.tile == T("0-4")} == {"side"}


def test_centre_example_1_5_and_0_6_score_6():
    s = position(NOTCH, ["1-5", "0-6", "2-2", "1-1"], check_build=False)
    centre = [m for m in s.placements() if m.kind == "centre"]
    got = {(str(m.tile), s.board.num.get((1, 1)), m.low_cell, m.high_cell) for m in centre}
    # 1-5 both ways round (X + Y = 6), 0-6 both ways (X = 6 or X + Y = 6)
    assert {(t, lo, hi) for t, _n, lo, hi in got} == {
        ("1-5", (1, 1), (1, 2)),
        ("1-5", (1, 2), (1, 1)),
        ("0-6", (1, 1), (1, 2)),
        ("0-6", (1, 2), (1, 1)),
    }
    assert all(m.points == 6 and m.continues for m in centre)


def test_doublet_corner_5_5_scores_10():
    s = position(STAGGERED, ["5-5", "1-1", "0-1", "1-2"])
    m = moves_at(s, (2, 0))
    assert m and all(p.points == 10 and p.kind == "corner" for p in m.values())


def test_doublet_centre_3_3_scores_12():
    s = position(NOTCH, ["3-3", "1-1", "0-4", "4-5"], check_build=False)
    c = [m for m in s.placements() if m.kind == "centre"]
    assert [(str(m.tile), m.points) for m in c] == [("3-3", 12)]


def test_blank_corner_scores_0_and_continues():
    # starter 0-4 with 4 on top, 0-0 beside it: the corner under the starter needs 0 + 0 = 0
    s = position([((4, 0), (0, 0), (1, 0)), ((0, 0), (1, 1), (2, 1))], ["0-5", "1-4", "1-3", "2-3"])
    m = moves_at(s, (2, 0))
    assert m and all(p.kind == "corner" and p.points == 0 and p.continues for p in m.values())
    a = Place(T("0-5"), (2, 0), (3, 0))
    s.apply_action(a)
    assert s.player == 0 and s.scores == [0, 0] and s.plays_this_turn == 1
    assert END_TURN in s.legal_actions()  # 1-4 still fits the corner (0, 1) = 4 + 0


# --- geometry: every illegal contact pattern ----------------------------------------------------
def board_of(placed):
    b = Board()
    for (a, bb), c1, c2 in placed:
        b.place(c1, a, c2, bb)
    return b


def test_side_play_needs_stagger_parallel_and_equal_number():
    b = board_of([((3, 5), (0, 0), (1, 0))])  # vertical: 3 on (0,0), 5 on (1,0)
    ok = b.classify((0, 1), (-1, 1), T("3-6"))  # 3 flush with 3, shifted up by one half
    assert ok is not None and ok.kind == "side" and ok.points == 0 and not ok.continues
    assert b.classify((1, 1), (2, 1), T("5-6")).kind == "side"
    assert b.classify((0, 1), (-1, 1), T("4-6")) is None  # numbers differ (4 vs 3)
    # end-to-end contact (short sides)
    assert b.classify((2, 0), (3, 0), T("5-6")) is None
    assert b.classify((-2, 0), (-1, 0), T("2-3")) is None
    # perpendicular tile touching one half
    assert b.classify((0, 1), (0, 2), T("3-6")) is None
    # parallel and aligned: both halves flush
    assert b.classify((0, 1), (1, 1), T("3-5")) is None
    # touching nothing
    assert b.classify((5, 5), (5, 6), T("3-5")) is None


def test_two_flush_halves_on_opposite_sides_is_illegal():
    b = Board()
    b.place((0, 0), 1, (-1, 0), 1)  # vertical tile in column 0
    b.place((0, 2), 2, (-1, 2), 5)  # vertical tile in column 2
    assert b.adj[(0, 1)] == 2  # (0, 1): flush left and right, nothing above or below
    for lo, hi, tile in (
        ((0, 1), (1, 1), T("3-5")),
        ((1, 1), (0, 1), T("0-3")),
        ((0, 1), (1, 1), T("3-3")),
    ):
        assert b.classify(lo, hi, tile) is None
    assert not [slot for slot in b.slots() if slot.e == (0, 1)]
    # the same two numbers on perpendicular sides make a corner
    c = Board()
    c.place((0, 0), 1, (-1, 0), 1)
    c.place((1, 1), 2, (2, 1), 5)
    assert c.classify((0, 1), (0, 2), T("3-5")).kind == "corner"


def test_both_halves_touching_is_illegal_even_with_matching_numbers():
    b = board_of([((4, 2), (0, 0), (1, 0)), ((2, 3), (1, 1), (2, 1))])
    # a 2-4 laid along the long side of the 2-4, aligned: each half flush, numbers equal
    assert b.classify((1, -1), (0, -1), T("2-4")) is None
    # the X corner (2, 0) with the other half below on (3, 0), which touches nothing: legal
    assert b.classify((2, 0), (3, 0), T("5-6")) is not None
    b.place((3, 1), 1, (4, 1), 1)
    assert b.classify((2, 0), (3, 0), T("5-6")) is None  # now (3,0) touches (3,1)


# --- turns and the scoring table ---------------------------------------------------------------
def test_pass_scores_minus_3_and_ends_turn():
    s = position([((6, 6), (0, 0), (1, 0))], ["1-2", "1-3", "2-3", "1-4"])
    assert s.legal_actions() == [PASS]
    s.apply_action(PASS)
    assert s.scores[0] == -3 and s.history == [PASS]
    assert s.player == 1 or s.hand_number == 2


def test_side_play_scores_0_ends_turn_and_draws_back_up():
    s = position(STAGGERED, ["0-4", "1-1", "1-2", "1-3"])
    n = len(s.boneyard)
    s.apply_action(Place(T("0-4"), (-1, -1), (0, -1)))  # 4 beside the starter's 4, shifted up
    assert s.scores == [0, 0] and s.player == 1
    assert len(s.hands[0]) == 4 and len(s.boneyard) == n - 1


def test_side_play_with_doublet_goes_on():
    s = position(STAGGERED, ["3-3", "1-1", "1-2", "1-4"])
    s.apply_action(Place(T("3-3"), (2, 2), (3, 2)))
    assert s.scores == [0, 0]
    assert s.player == 0 and END_TURN in s.legal_actions()


def test_corner_play_scores_sum_and_goes_on_then_end_turn():
    s = position(STAGGERED, ["1-5", "0-6", "1-1", "2-2"])
    s.apply_action(Place(T("1-5"), (3, 0), (2, 0)))
    assert s.scores == [5, 0] and s.player == 0 and s.turn_points == 5
    acts = s.legal_actions()
    assert END_TURN in acts and PASS not in acts
    n = len(s.boneyard)
    s.apply_action(END_TURN)
    assert s.player == 1 and len(s.hands[0]) == 4 and len(s.boneyard) == n - 1


def test_centre_play_scores_sum_and_goes_on():
    s = position(NOTCH, ["1-5", "2-2", "1-4", "2-3"], seed=3, check_build=False)
    s.apply_action(Place(T("1-5"), (1, 2), (1, 1)))  # X = 5 on the notch, X + Y = 6
    assert s.scores == [6, 0]
    assert s.player == 0 or not s.board.placements(s.hands[0])


def test_playing_out_the_hand_draws_a_fresh_hand_and_goes_on():
    seen_goes_on = 0
    for seed in range(40):
        s = position(STAGGERED, ["1-5"], seed=seed)
        top = s.boneyard[-4:]
        s.apply_action(Place(T("1-5"), (3, 0), (2, 0)))
        assert s.scores[0] == 5
        assert sorted(s.hands[0]) == sorted(top)  # the fresh hand came from the boneyard
        if s.player == 0:
            seen_goes_on += 1
            assert s.plays_this_turn == 1 and END_TURN in s.legal_actions()
        else:  # the fresh hand had no play: the turn ended by itself
            assert not Board.placements(s.board, s.hands[0])
    assert seen_goes_on > 0


def test_last_tile_as_side_play_ends_turn_and_draws_up():
    s = position(STAGGERED, ["0-4"])
    s.apply_action(Place(T("0-4"), (-1, -1), (0, -1)))
    assert s.player == 1 and len(s.hands[0]) == 4


def test_end_of_hand_when_neither_can_play_no_penalty_winner_starts_next():
    s = position(STAGGERED, ["1-5"], seed=5)
    s.boneyard = []
    s.hands[1] = [T("0-0")]  # nothing fits anywhere for player 1
    s._moves = None
    s.apply_action(Place(T("1-5"), (3, 0), (2, 0)))
    # player 0 played out with an empty boneyard: the turn and the hand end
    assert s.hand_results == [((5, 0), 0)]
    assert s.scores == [5, 0]  # no -3 for anybody
    assert s.hand_number == 2 and s.player == 0 and s.hand_starter == 0
    assert len(s.board) == 1 and [len(h) for h in s.hands] == [4, 4]


def test_blocked_hand_tie_goes_to_the_player_who_did_not_start():
    s = position([((6, 6), (0, 0), (1, 0))], ["1-2", "1-3"], seed=2, hand_starter=0)
    s.boneyard = []
    s.hands[1] = [T("0-1")]
    s._begin_turn()  # neither can play: the hand ends at once, 0 to 0
    assert s.hand_results == [((0, 0), 1)] and s.player == 1 and s.scores == [0, 0]


def test_pass_while_opponent_can_play_with_empty_boneyard():
    s = position([((6, 6), (0, 0), (1, 0))], ["1-2", "1-3"], seed=2)
    s.boneyard = []
    s.hands[1] = [T("5-6")]  # player 1 can play beside a 6
    s._moves = None
    assert s.legal_actions() == [PASS]
    s.apply_action(PASS)
    assert s.scores == [-3, 0] and s.player == 1


# --- targets and the game -----------------------------------------------------------------------
def test_sizes_and_targets():
    g6, g9 = TableauxGame(6), make_game("tableaux", max_pip=9)
    assert (g6.hand_size, g6.target) == (4, 121) and (g9.hand_size, g9.target) == (5, 361)
    s9 = g9.new_initial_state(4)
    assert [len(h) for h in s9.hands] == [5, 5] and len(s9.boneyard) == 55 - 11
    with pytest.raises(ValueError):
        TableauxGame(12)


@pytest.mark.parametrize("max_pip,before", [(6, 116), (9, 356)])
def test_reaching_the_target_ends_the_game(max_pip, before):
    g = TableauxGame(max_pip)
    s = g.state_from_position(STAGGERED, [T("1-5"), T("0-1")], scores=(before, 40), seed=1)
    s.apply_action(Place(T("1-5"), (3, 0), (2, 0)))
    assert s.scores[0] == g.target and s.is_terminal() and s.winner == 0
    assert s.legal_actions() == [] and s.current_player() < 0
    assert s.returns() == [float(g.target), 40.0]


def test_coin_toss_is_seeded_and_both_sides_happen():
    g = TableauxGame()
    firsts = {g.new_initial_state(seed).player for seed in range(20)}
    assert firsts == {0, 1}
    assert g.new_initial_state(7).hands == g.new_initial_state(7).hands


def test_whole_games_end_with_a_winner():
    for mp in (6, 9):
        g = TableauxGame(mp)
        s = g.new_initial_state(11)
        while not s.is_terminal():
            s.apply_action(greedy_action(s))
        assert s.scores[s.winner] >= g.target > s.scores[1 - s.winner]


# --- state_from_position ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "placed,hand,msg",
    [
        ([], ["1-2"], "empty"),
        ([((1, 2), (0, 0), (1, 0)), ((2, 1), (5, 5), (5, 6))], [], "twice"),
        ([((1, 2), (0, 0), (1, 0)), ((3, 4), (1, 0), (1, 1))], [], "covered"),
        ([((1, 2), (0, 0), (2, 0))], [], "adjacent"),
        ([((1, 7), (0, 0), (1, 0))], [], "not in a double-6"),
        ([((1, 2), (0, 0), (1, 0)), ((3, 4), (5, 5), (5, 6))], [], "several pieces"),
        ([((1, 2), (0, 0), (1, 0))], ["1-2"], "twice"),
        ([((1, 2), (0, 0), (1, 0))], ["0-1", "0-2", "0-3", "0-4", "0-5"], "at most 4"),
    ],
)
def test_state_from_position_rejects_impossible_positions(placed, hand, msg):
    with pytest.raises(ValueError, match=msg):
        TableauxGame.state_from_position(placed, [T(h) for h in hand])


def test_a_tableau_no_legal_plays_build_is_refused():
    """A tableau read with a wrong number may be one that no order of legal plays builds
    (RULES.md section 5): refused, unless ``check_build=False``. Tableaux reached by play
    always pass."""
    from engine.tableaux.board import Board, can_be_built

    b = Board()
    for t, c1, c2 in NOTCH:
        b.place(c1, t[0], c2, t[1])
    assert can_be_built(b) is False
    with pytest.raises(ValueError, match="no order of legal plays"):
        TableauxGame.state_from_position(NOTCH, [])
    g = TableauxGame(6)
    tried = refused = 0
    for seed in range(25):
        st = g.new_initial_state(seed)
        rng = random.Random(seed)
        for _ in range(60):
            if st.is_terminal():
                break
            st.apply_action(rng.choice(st.legal_actions()))
        before = dict(st.board.num)
        assert can_be_built(st.board) is not False and st.board.num == before
        placed = st.board.tiles()
        again = TableauxGame.state_from_position(placed, [], seed=0)
        assert again.board.num == st.board.num
        if 3 <= len(placed) <= 15:  # one number read one too high or too low
            wrong = st.board.copy()
            c = rng.choice(sorted(wrong.num))
            wrong.num[c] += 1 if wrong.num[c] < 6 else -1
            tried += 1
            refused += can_be_built(wrong) is False
    assert tried >= 10 and refused >= tried // 3, (tried, refused)


def test_state_from_position_cells_carry_the_stated_numbers():
    s = TableauxGame(9).state_from_position(
        [(T("2-7"), (0, 0), (0, 1)), ((7, 1), (1, 1), (1, 2))],
        [T("9-9")],
        scores=(10, 20),
        player=1,
        opponent_hand_count=3,
        seed=0,
    )
    assert s.board.num == {(0, 0): 2, (0, 1): 7, (1, 1): 7, (1, 2): 1}
    assert s.player == 1 and s.hands[1] == [T("9-9")] and len(s.hands[0]) == 3
    assert len(s.boneyard) == 55 - 2 - 1 - 3 and s.scores == [10, 20]
    all_tiles = sorted([t for t, _a, _b in s.board.tiles()] + s.hands[0] + s.hands[1] + s.boneyard)
    assert all_tiles == sorted(TableauxGame(9).tile_set.tiles)
    with pytest.raises(ValueError, match="contradicts"):
        TableauxGame(9).state_from_position(STAGGERED, [], max_pip=6)


def test_illegal_action_raises():
    s = position(STAGGERED, ["1-5", "0-6", "1-1", "2-2"])
    with pytest.raises(IllegalActionError):
        s.apply_action(Place(T("1-5"), (2, 0), (3, 0)))  # 1 on the X corner: needs 5
    with pytest.raises(IllegalActionError):
        s.apply_action(END_TURN)  # nothing played yet this turn


# --- hints ---------------------------------------------------------------------------------------
def test_best_turn_chains_plays_beyond_the_greedy_first_tile():
    # 0-6 at Y scores 6 and ends nothing; 5-5 at X scores 10 and goes on; the best turn plays both
    s = position(STAGGERED, ["0-6", "5-5", "1-1", "1-2"])
    plan, ranking = best_turn(s, defence=0.0)
    played = [a for a in plan.actions if isinstance(a, Place)]
    assert plan.points >= 16 and {str(a.tile) for a in played} >= {"0-6", "5-5"}
    assert ranking[0][0] == plan.actions[0] and ranking[0][1] == plan.value
    # replaying the plan in the engine scores exactly the planned points
    for a in plan.actions:
        if s.player != 0 or s.is_terminal():
            break
        s.apply_action(a)
    assert s.scores[0] == plan.points


def test_hint_is_legal_and_exposes_the_sequence():
    g = TableauxGame()
    s = g.new_initial_state(3)
    for _ in range(30):
        if s.is_terminal():
            break
        h = hint(s)
        assert h.action in s.legal_actions() and h.plan[0] == h.action
        # the plan is a whole turn: every action legal in turn, in the JSON too
        j = h.to_json(s)
        assert j["plan"][0] == j["action_json"] == s.action_to_json(h.action)
        assert len(j["plan"]) == len(h.plan)
        assert h.value_unit == "points" and h.elapsed_ms >= 0
        assert [a for a, _v in h.ranking] and h.ranking[0][0] == h.action
        s.apply_action(h.action)


def test_threat_counts_open_corners_and_defence_changes_values():
    s = position(STAGGERED, ["0-4", "1-1", "1-2", "1-3"])
    unseen = s.unseen_tiles()
    base = threat(s.board, unseen, 4)
    assert base > 0  # the X (5) and Y (6) corners are open
    assert threat(s.board, unseen, 0) == 0.0
    # filling Y with a tile nobody else has lowers the threat
    b = s.board.copy()
    b.place((0, 1), 6, (-1, 1), 0)
    assert threat(b, [t for t in unseen if t != T("0-6")], 4) < base
    plan0, _ = best_turn(s, defence=0.0)
    plan1, _ = best_turn(s, defence=1.0)
    assert plan1.value < plan0.value


def test_node_limit_cuts_the_search_but_still_gives_a_legal_first_play():
    s = position(STAGGERED, ["0-6", "5-5", "1-1", "1-2"])
    full, _ = best_turn(s, defence=0.0)
    cut, ranking = best_turn(s, defence=0.0, node_limit=1)
    assert full.complete and not cut.complete and cut.nodes < full.nodes
    assert cut.actions[0] in s.legal_actions() and len(ranking) == len(s.legal_actions())


def test_mid_turn_hint_ranks_stopping_against_going_on():
    s = position(STAGGERED, ["1-5", "0-6", "1-1", "2-2"])
    s.apply_action(Place(T("1-5"), (3, 0), (2, 0)))
    h = hint(s)
    ranked = [a for a, _v in h.ranking]
    assert END_TURN in ranked and set(ranked) == set(s.legal_actions())
    # 0-6 at Y still scores 6 and the opponent could take it otherwise: the hint goes on
    assert h.action in (Place(T("0-6"), (-1, 1), (0, 1)), Place(T("0-6"), (0, 2), (0, 1)))


def _replay(state, actions):
    """Apply ``actions`` of the player to move to a clone; the clone."""
    c = state.clone()
    p = c.player
    for a in actions:
        if c.is_terminal() or c.player != p:
            break
        c.apply_action(a)
    return c


def test_mid_turn_hint_counts_this_turns_points_once():
    # 107 before the turn, 1-5 at X scores 5 (112, turn points 5); 0-6 at Y alone reaches 118
    # only, 0-6 then 2-2 reaches 122: the target (121) needs both
    s = position(STAGGERED, ["1-5", "0-6", "1-1", "2-2"], scores=(107, 40))
    s.apply_action(Place(T("1-5"), (3, 0), (2, 0)))
    assert (s.scores[0], s.turn_points) == (112, 5)
    plan, _ = best_turn(s)
    after = _replay(s, plan.actions)
    assert plan.value > WIN_BONUS and after.winner == 0 and after.scores[0] == 112 + plan.points
    assert [str(a.tile) for a in plan.actions if isinstance(a, Place)] == ["0-6", "2-2"]


def test_a_planned_win_is_a_real_win_on_mid_turn_positions():
    g = TableauxGame()
    checked = 0
    for seed in range(6):
        s = g.new_initial_state(seed)
        s.scores = [100, 100]  # near the target, so that many turns can reach it
        while not s.is_terminal():
            if s.plays_this_turn and s.turn_points > 0:
                plan, _ = best_turn(s, node_limit=100_000)
                assert plan.complete
                after = _replay(s, plan.actions)
                assert (plan.value > WIN_BONUS / 2) == (after.winner == s.player), seed
                checked += 1
            s.apply_action(greedy_action(s))
    assert checked >= 3


def test_clone_is_independent_and_actions_read_as_json():
    s = TableauxGame().new_initial_state(8)
    c = s.clone()
    a = greedy_action(c)
    c.apply_action(a)
    assert s.history == [] and len(s.board) == 1 and c.history == [a]
    s.apply_action(a)  # the same action on the original gives the same position
    assert (s.board.num, s.hands, s.boneyard, s.scores) == (
        c.board.num,
        c.hands,
        c.boneyard,
        c.scores,
    )
    j = s.action_to_json(a)
    assert j == {
        "type": "play",
        "tiles": [str(a.tile)],
        "place": {"kind": "cells", "cells": [list(a.low_cell), list(a.high_cell)]},
    }
    assert s.action_to_json(PASS) == {"type": "pass", "tiles": []}
