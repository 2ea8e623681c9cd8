"""The public line-of-play API and Draw100Game.state_from_position (positions from photos)."""

from collections import Counter

import pytest

from engine.draw100 import Draw100Game, LineOfPlay, Play, parse_end_id
from engine.draw100.game import ALL_TILES
from engine.tiles import Tile

T = Tile.parse


def sample_line():
    line = LineOfPlay()
    assert line.open_ends() == [] and str(line) == "(empty line of play)"
    assert line.place_first(T("6-6")) == 0
    assert line.attach(T("6-2"), "0.end_a") == 1
    assert line.attach(T("2-2"), "1.end_b") == 2
    assert line.attach_at(T("2-5"), 2, "side_a") == 3
    return line


def test_line_nodes_orientation_and_open_ends():
    line = sample_line()
    n1 = line.node(1)
    assert (n1.parent, n1.parent_direction, n1.inner, n1.outer) == (0, "end_a", 6, 2)
    assert line.node(3).outer == 5 and not line.node(3).is_spinner and line.node(2).is_spinner
    ends = line.open_ends()
    assert [e.id for e in ends] == [
        "0.end_b",
        "0.side_a",
        "0.side_b",
        "2.end_b",
        "2.side_b",
        "3.end_b",
    ]
    assert [e.number for e in ends] == [6, 6, 6, 2, 2, 5]
    assert line.tiles() == [T("6-6"), T("2-6"), T("2-2"), T("2-5")]
    assert [c.id for c in line.children(2)] == [3] and line.pips() == 12 + 8 + 4 + 7
    assert T("2-2") in line and len(line) == 4


def test_line_can_attach_and_errors():
    line = sample_line()
    assert line.can_attach(T("5-1"), "3.end_b")
    assert not line.can_attach(T("4-1"), "3.end_b")  # no 5
    assert not line.can_attach(T("6-2"), "0.end_b")  # already in the line
    assert not line.can_attach(T("6-1"), "0.end_a")  # occupied
    assert not line.can_attach(T("6-1"), "1.side_a")  # a non-double has no sides
    assert not line.can_attach(T("6-1"), "bogus")
    with pytest.raises(ValueError, match="not open"):
        line.attach(T("6-1"), "0.end_a")
    with pytest.raises(ValueError, match="already in the line"):
        line.attach(T("6-6"), "0.end_b")
    with pytest.raises(ValueError, match="does not match"):
        line.attach(T("4-1"), "3.end_b")
    with pytest.raises(ValueError, match="already has a first tile"):
        line.place_first(T("5-5"))
    with pytest.raises(ValueError, match="not an open end id"):
        parse_end_id("0.up")
    assert parse_end_id("12.side_b") == (12, "side_b")


def test_line_json_round_trip_and_copy():
    line = sample_line()
    data = line.to_json()
    assert data[1] == {"tile": "2-6", "parent": 0, "direction": "end_a"}
    again = LineOfPlay.from_json(data)
    assert again.to_json() == data and again.open_ends() == line.open_ends()
    c = line.copy()
    c.attach(T("5-1"), "3.end_b")
    assert len(line) == 4 and len(c) == 5
    with pytest.raises(ValueError):
        LineOfPlay.from_json([{"tile": "6-6"}, {"tile": "1-3", "parent": 0, "direction": "end_a"}])
    with pytest.raises(ValueError):
        LineOfPlay.from_json([{"nope": 1}])
    assert "#3 side_a: 2|5" in str(line)


def test_non_double_first_tile_is_accepted_by_the_line():
    line = LineOfPlay()
    line.place_first(T("3-5"))
    assert [(e.id, e.number) for e in line.open_ends()] == [("0.end_a", 3), ("0.end_b", 5)]
    line.attach(T("3-1"), "0.end_a")
    assert line.open_numbers() == [5, 1]


def test_state_from_position_deals_unseen_consistently():
    line = sample_line()
    hand = ["1-5", "0-0", "4-4"]
    g = Draw100Game(num_players=3)
    s = g.state_from_position(
        line,
        hand,
        boneyard_count=10,
        opponent_hand_counts=[6, 5],
        scores=[10, 20, 30],
        player=1,
        seed=5,
    )
    assert s.current_player() == 1 and s.scores == [10, 20, 30]
    assert s.hands[1] == sorted(T(x) for x in hand)
    assert len(s.hands[2]) == 6 and len(s.hands[0]) == 5 and len(s.boneyard) == 10
    tiles = [t for h in s.hands for t in h] + s.boneyard + s.line.tiles()
    assert Counter(tiles) == Counter(ALL_TILES)
    assert Play(T("1-5"), "3.end_b") in s.legal_actions()
    # same seed, same deal; other seed, (almost surely) another deal of the unseen tiles
    s2 = g.state_from_position(line.to_json(), hand, 10, [6, 5], [10, 20, 30], 1, seed=5)
    assert s2.hands == s.hands and s2.boneyard == s.boneyard
    s3 = g.state_from_position(line, hand, 10, [6, 5], [10, 20, 30], 1, seed=6)
    assert (s3.hands, s3.boneyard) != (s.hands, s.boneyard)
    # the input line is not modified by playing on the state
    s.apply_action(Play(T("1-5"), "3.end_b"))
    assert len(line) == 4


def test_state_from_position_respects_known_lacks():
    line = sample_line()
    g = Draw100Game(num_players=2)
    for seed in range(10):
        s = g.state_from_position(
            line, ["1-5", "0-0"], 14, [8], player=0, seed=seed, opponent_lacks={1: [2, 5, 6]}
        )
        assert all(not (t.has(2) or t.has(5) or t.has(6)) for t in s.hands[1])


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"hand": ["6-6", "1-1"]}, "twice"),  # tile in line and hand
        ({"hand": ["1-1", "1-1"]}, "twice"),
        ({"hand": ["1-7"]}, "not in a double-6"),
        ({"boneyard_count": 11}, "not 28"),
        ({"opponent_hand_counts": [7, 5]}, "not 28"),
        ({"opponent_hand_counts": [11]}, "opponent hand counts"),
        ({"opponent_hand_counts": [0, 16]}, "at least one tile"),
        ({"boneyard_count": -1, "opponent_hand_counts": [12, 5]}, "boneyard"),
        ({"player": 3}, "seat"),
        ({"scores": [0, 100, 0]}, "scores"),
        ({"line": [{"tile": "5-6", "parent": None}]}, "not a double"),
        (
            {
                "line": [
                    {"tile": "6-6", "parent": None},
                    {"tile": "1-2", "parent": 0, "direction": "end_a"},
                ]
            },
            "does not match",
        ),
        ({"line": []}, "empty"),
        ({"opponent_lacks": {0: [1]}}, "opponent"),
        ({"opponent_lacks": {1: [0, 1, 2, 3, 4, 5, 6]}}, "lacks"),
    ],
)
def test_state_from_position_rejects_impossible_positions(kwargs, match):
    base = dict(
        line=sample_line(),
        hand=["1-5", "0-0", "4-4"],
        boneyard_count=10,
        opponent_hand_counts=[6, 5],
        scores=None,
        player=0,
        seed=1,
    )
    base.update(kwargs)
    with pytest.raises(ValueError, match=match):
        Draw100Game(num_players=3).state_from_position(**base)


def test_to_json_shows_only_the_viewers_hand():
    import json

    s = Draw100Game(num_players=3).new_initial_state(2)
    me = s.current_player()
    view = s.to_json()
    json.dumps(view)
    assert view["hand"] == [str(t) for t in s.hands[me]]
    assert view["hand_sizes"] == [5, 5, 5] and view["boneyard"] == 13
    assert view["legal"] == [s.action_to_json(a) for a in s.legal_actions()]
    other = (me + 1) % 3
    assert s.to_json(other)["legal"] == [] and s.to_json(other)["hand"] == [
        str(t) for t in s.hands[other]
    ]
    assert all(str(t) not in view["hand"] for t in s.hands[other])
