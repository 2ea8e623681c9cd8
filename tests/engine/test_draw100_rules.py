"""Every rule of RULES.md section 4 (double-six draw to 100) on hand-built positions."""

import random

import pytest

from engine.draw100 import DRAW, PASS, Draw100Game, LineOfPlay, Play
from engine.draw100.game import SET
from engine.game import TERMINAL, IllegalActionError
from engine.tiles import Tile

T = Tile.parse


def position(hands, boneyard=(), line=None, player=0, scores=None, target=100):
    """A state with exactly these hands (lists of "a-b"), boneyard (next drawn is the LAST),
    line (to_json-like list of (tile, parent, direction)) and scores."""
    game = Draw100Game(num_players=len(hands), target=target)
    s = game.new_initial_state(0)
    s.hands = [sorted(T(x) for x in h) for h in hands]
    s.boneyard = [T(x) for x in boneyard]
    s.line = LineOfPlay.from_json(
        [{"tile": t, "parent": p, "direction": d} for t, p, d in (line or [])]
    )
    s.player = player
    s.scores = list(scores or [0] * len(hands))
    s.slots = [[0] * len(h) for h in s.hands]
    return s


# --- deal and lead --------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4])
def test_deal_five_each_rest_is_boneyard_highest_double_leads(players):
    g = Draw100Game(num_players=players)
    for seed in range(30):
        s = g.new_initial_state(seed)
        assert [len(h) for h in s.hands] == [5] * players
        assert len(s.boneyard) == 28 - 5 * players
        doubles = [t for h in s.hands for t in h if t.is_double]
        top = max(doubles)
        assert top in s.hands[s.current_player()]
        assert s.legal_actions() == [Play(top, None)]


def test_lead_hand_built_highest_double_not_first_seat():
    s = position([["3-3", "0-1"], ["5-5", "2-4"], ["1-1", "6-2"]])
    s.player = 0
    assert s.lead_tile() == T("5-5")
    assert s.playable(1) == [Play(T("5-5"), None)]
    assert s.playable(0) == []  # P0 holds a double, but not the highest


def test_redeal_when_nobody_drew_a_double():
    """Find seeds whose first shuffle gives no double to anyone: the deal must then be the
    next shuffle of the same RNG (all back, reshuffle, redraw)."""
    found = 0
    for seed in range(400):
        rng = random.Random(seed)
        first = SET.shuffled(rng)
        if any(t.is_double for t in first[:10]):
            continue
        second = SET.shuffled(rng)
        while not any(t.is_double for t in second[:10]):
            second = SET.shuffled(rng)
        s = Draw100Game(2).new_initial_state(seed)
        assert s.hands == [sorted(second[:5]), sorted(second[5:10])]
        assert s.boneyard == second[10:]
        found += 1
    assert found >= 3  # about 2.7% of deals have no double among 10 tiles


# --- spinners and matching ----------------------------------------------------------------
def test_first_double_has_four_open_ends_later_double_three():
    line = LineOfPlay()
    line.place_first(T("4-4"))
    assert sorted(e.direction for e in line.open_ends()) == ["end_a", "end_b", "side_a", "side_b"]
    assert line.open_numbers() == [4, 4, 4, 4]
    line.attach(T("4-2"), "0.side_a")
    assert line.open_numbers() == [4, 4, 4, 2]
    n = line.attach(T("2-2"), "1.end_b")
    mine = [e for e in line.open_ends() if e.node_id == n]
    assert sorted(e.direction for e in mine) == ["end_b", "side_a", "side_b"]
    assert [e.number for e in mine] == [2, 2, 2]
    assert len(line.open_ends()) == 3 + 3


def test_play_on_a_side_of_a_later_double_is_legal():
    s = position(
        [["2-5", "6-6"], ["1-1"]],
        boneyard=["0-3"],
        line=[("4-4", None, None), ("4-2", 0, "end_a"), ("2-2", 1, "end_b")],
    )
    plays = s.legal_actions()
    assert Play(T("2-5"), "2.side_a") in plays and Play(T("2-5"), "2.side_b") in plays
    assert Play(T("2-5"), "2.end_b") in plays
    s.apply_action(Play(T("2-5"), "2.side_b"))
    assert 5 in s.line.open_numbers() and s.line.nodes[-1].outer == 5


def test_blank_matches_blank():
    s = position([["0-3", "1-3", "2-2"], ["5-6"]], boneyard=["6-6"], line=[("0-0", None, None)])
    plays = s.legal_actions()
    assert {a.tile for a in plays} == {T("0-3")}
    assert len(plays) == 4  # every open end of the first double shows blank
    s.apply_action(Play(T("0-3"), "0.end_a"))
    assert sorted(s.line.open_numbers()) == [0, 0, 0, 3]


def test_tile_not_matching_is_rejected_by_line_and_state():
    s = position([["1-3", "2-2"], ["5-6"]], boneyard=["6-6"], line=[("0-0", None, None)])
    with pytest.raises(IllegalActionError):
        s.apply_action(Play(T("1-3"), "0.end_a"))
    with pytest.raises(ValueError, match="does not match"):
        s.line.attach(T("1-3"), "0.end_a")


# --- must play, draw, pass --------------------------------------------------------------
def test_must_play_if_able():
    s = position([["6-1", "2-3"], ["5-5"]], boneyard=["0-4", "1-2"], line=[("6-6", None, None)])
    assert all(isinstance(a, Play) for a in s.legal_actions())
    with pytest.raises(IllegalActionError):
        s.apply_action(DRAW)
    with pytest.raises(IllegalActionError):
        s.apply_action(PASS)


def test_draw_until_able_same_player():
    # next drawn is the last of the list: 0-1 (no), 2-4 (no), then 3-6 (plays on 6)
    s = position(
        [["1-2"], ["5-5", "0-0"]], boneyard=["4-4", "3-6", "2-4", "0-1"], line=[("6-6", None, None)]
    )
    assert s.legal_actions() == [DRAW]
    s.apply_action(DRAW)
    assert s.current_player() == 0 and T("0-1") in s.hands[0] and s.legal_actions() == [DRAW]
    s.apply_action(DRAW)
    assert s.current_player() == 0 and s.legal_actions() == [DRAW]
    s.apply_action(DRAW)
    assert s.current_player() == 0 and len(s.boneyard) == 1
    assert {a.tile for a in s.legal_actions()} == {T("3-6")}
    # the slots record that the tiles held while drawing show no 6
    assert sorted(s.slots[0]) == [0, 1 << 6, 1 << 6, 1 << 6]


def test_pass_on_empty_boneyard_then_play_moves_left():
    s = position(
        [["1-2", "0-0"], ["6-3", "5-5"], ["4-4", "1-1"]], boneyard=[], line=[("6-6", None, None)]
    )
    assert s.legal_actions() == [PASS]
    s.apply_action(PASS)
    assert s.current_player() == 1
    s.apply_action(Play(T("6-3"), "0.end_a"))
    assert s.current_player() == 2  # play passes to the left: seat + 1


def test_draw_last_tile_then_pass():
    s = position([["1-2"], ["6-3", "5-5"]], boneyard=["0-1"], line=[("6-6", None, None)])
    s.apply_action(DRAW)
    assert s.legal_actions() == [PASS] and s.current_player() == 0
    s.apply_action(PASS)
    assert s.current_player() == 1 and s.rounds == []


# --- ends of a round and scoring -----------------------------------------------------
def test_domino_scores_all_opponents_pips_and_deals_next_round():
    s = position(
        [["6-1"], ["5-5", "2-3"], ["0-4"]],
        boneyard=["3-3", "1-2"],
        line=[("6-6", None, None)],
        scores=[10, 20, 30],
    )
    s.apply_action(Play(T("6-1"), "0.side_a"))
    r = s.rounds[-1]
    assert (r.kind, r.winner, r.points) == ("domino", 0, 10 + 5 + 4)
    assert r.hand_pips == (0, 15, 4)
    assert s.scores == [29, 20, 30]
    assert s.round_no == 2 and len(s.line) == 0 and not s.is_terminal()
    assert [len(h) for h in s.hands] == [5, 5, 5]  # a fresh deal of the whole set
    assert s.legal_actions() == [Play(s.lead_tile(), None)]


def test_blocked_fewest_pips_scores_opponents_minus_own():
    # after P0 plays 6-1 (open numbers 6, 6, 6, 1) nobody holds a 6 or a 1 and the boneyard is
    # empty: blocked. Pips: P0 2+3=5, P1 4+5=9, P2 0+2=2 -> P2 scores (5+9) - 2 = 12.
    s = position(
        [["6-1", "2-3"], ["4-5"], ["0-2"]],
        boneyard=[],
        line=[("6-6", None, None)],
        scores=[0, 0, 0],
    )
    s.apply_action(Play(T("6-1"), "0.end_b"))
    r = s.rounds[-1]
    assert (r.kind, r.winner, r.points, r.hand_pips) == ("blocked", 2, 12, (5, 9, 2))
    assert s.scores == [0, 0, 12]


def test_blocked_tie_for_fewest_nobody_scores():
    s = position(
        [["6-1", "2-3"], ["4-1"], ["0-5"]],
        boneyard=[],
        line=[("6-6", None, None), ("6-4", 0, "end_a")],
        scores=[7, 8, 9],
    )
    # P0 plays 6-1 on 0.end_b: open 6,6,4,1 ... P1 holds 4-1 and can still play, so not blocked
    s.apply_action(Play(T("6-1"), "0.end_b"))
    assert s.rounds == [] and s.current_player() == 1
    # P0 plays 6-5: open 6, 6, 6, 5; nobody holds a 5 or a 6. Pips 5, 5, 10: tie for fewest.
    s = position(
        [["6-5", "1-4"], ["2-3"], ["0-4", "2-4"]],
        boneyard=[],
        line=[("6-6", None, None)],
        scores=[7, 8, 9],
    )
    s.apply_action(Play(T("6-5"), "0.end_b"))
    r = s.rounds[-1]
    assert r.kind == "blocked" and r.hand_pips == (5, 5, 10)
    assert r.winner is None and r.points == 0 and s.scores == [7, 8, 9]


def test_game_ends_at_target():
    s = position(
        [["6-1"], ["5-5", "2-3"]], boneyard=["3-3"], line=[("6-6", None, None)], scores=[85, 99]
    )
    s.apply_action(Play(T("6-1"), "0.side_a"))
    assert s.scores == [100, 99]
    assert s.is_terminal() and s.winner == 0 and s.current_player() == TERMINAL
    assert s.returns() == [100.0, 99.0] and s.legal_actions() == []
    with pytest.raises(IllegalActionError, match="over"):
        s.apply_action(PASS)


def test_game_continues_below_target():
    s = position(
        [["6-1"], ["5-5", "2-3"]], boneyard=["3-3"], line=[("6-6", None, None)], scores=[84, 99]
    )
    s.apply_action(Play(T("6-1"), "0.side_a"))
    assert s.scores == [99, 99] and not s.is_terminal() and s.round_no == 2


# --- illegal moves -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "action",
    [
        Play(Tile(2, 5), "0.end_a"),  # not in hand
        Play(Tile(6, 1), "9.end_b"),  # no such open end
        Play(Tile(6, 1), None),  # a second lead
        Play(Tile(1, 3), "0.end_a"),  # does not match
        "nonsense",
    ],
)
def test_illegal_moves_raise(action):
    s = position([["6-1", "1-3"], ["5-5"]], boneyard=["0-0"], line=[("6-6", None, None)])
    with pytest.raises(IllegalActionError):
        s.apply_action(action)
    assert s.history == [] and len(s.hands[0]) == 2


def test_lead_with_a_lower_double_is_illegal():
    s = Draw100Game(2).new_initial_state(11)
    p = s.current_player()
    others = [t for t in s.hands[p] if t.is_double and t != s.lead_tile()]
    for t in others + [t for t in s.hands[p] if not t.is_double]:
        with pytest.raises(IllegalActionError):
            s.apply_action(Play(t, None))


@pytest.mark.parametrize(
    "params",
    [
        {"num_players": 1},
        {"num_players": 5},
        {"target": 0},
        {"hand_size": 0},
        {"num_players": 4, "hand_size": 8},
        {"max_pip": 9},
    ],
)
def test_bad_game_parameters(params):
    with pytest.raises(ValueError):
        Draw100Game(**params)


def test_action_readings():
    s = position([["6-1"], ["5-5"]], boneyard=["0-0"], line=[("6-6", None, None)])
    a = Play(T("6-1"), "0.side_a")
    assert s.action_to_string(a) == "play 1-6 on the 6 of 6-6 [0.side_a]"
    assert s.action_to_json(a) == {
        "type": "play",
        "tiles": ["1-6"],
        "place": {"kind": "open_end", "end": "0.side_a"},
    }
    assert s.action_from_json(s.action_to_json(a)) == a
    assert s.action_to_json(DRAW) == {"type": "draw", "tiles": []}
    assert s.action_to_string(PASS) == "pass"
