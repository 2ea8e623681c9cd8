"""Tests of engine/game.py (the OpenSpiel-like core) with a tiny counting game, plus
wilson_interval and the make_game registry."""

from dataclasses import dataclass

import pytest

from engine import GAMES, make_game
from engine.actions import ActionRecord
from engine.game import TERMINAL, Game, Hint, IllegalActionError, State, wilson_interval


@dataclass(frozen=True)
class Add:
    n: int


class CountGame(Game):
    """Players alternately add 1 or 2 (or a random 1-3 with the chance action 'roll'); the game
    ends at a total >= 6."""

    name = "count"
    num_players = 2

    def new_initial_state(self, seed=None):
        return CountState(self, seed)


class CountState(State):
    def __init__(self, game, seed):
        super().__init__(game, seed)
        self.total = 0
        self.turn = 0
        self.rolls = []

    def current_player(self):
        return TERMINAL if self.is_terminal() else self.turn

    def legal_actions(self):
        return [] if self.is_terminal() else [Add(1), Add(2), "roll"]

    def _apply(self, action):
        if action == "roll":
            r = self.rng.randint(1, 3)
            self.rolls.append(r)
            self.total += r
        else:
            self.total += action.n
        self.turn = 1 - self.turn

    def is_terminal(self):
        return self.total >= 6

    def action_record(self, action):
        if action == "roll":
            return ActionRecord("draw")
        return ActionRecord("play", (f"0-{action.n}",))

    def returns(self):
        if not self.is_terminal():
            return [0.0, 0.0]
        loser = 1 - self.turn  # the player who reached 6
        return [1.0 if p != loser else 0.0 for p in range(2)]


def test_apply_action_appends_history_and_switches_player():
    s = CountGame().new_initial_state(1)
    assert s.current_player() == 0
    s.apply_action(Add(2))
    assert s.history == [Add(2)] and s.total == 2 and s.current_player() == 1


def test_illegal_action_raises_and_leaves_state():
    s = CountGame().new_initial_state(1)
    with pytest.raises(IllegalActionError):
        s.apply_action(Add(5))
    assert s.history == [] and s.total == 0
    assert issubclass(IllegalActionError, ValueError)


def test_terminal_state_refuses_actions():
    s = CountGame().new_initial_state(1)
    for _ in range(3):
        s.apply_action(Add(2))
    assert s.is_terminal() and s.current_player() == TERMINAL and s.legal_actions() == []
    with pytest.raises(IllegalActionError, match="over"):
        s.apply_action(Add(1))


def test_replay_reproduces_chance():
    g = CountGame()
    s = g.new_initial_state(42)
    for a in ["roll", "roll", Add(1), "roll"]:
        if not s.is_terminal():
            s.apply_action(a)
    r = g.replay(42, s.history)
    assert (r.total, r.rolls, r.history) == (s.total, s.rolls, s.history)


def test_clone_is_independent_and_keeps_rng():
    s = CountGame().new_initial_state(7)
    s.apply_action("roll")
    c = s.clone()
    c.apply_action("roll")
    assert len(s.history) == 1 and len(c.history) == 2  # independent
    s.apply_action("roll")
    assert c.rolls == s.rolls  # same chance after the clone


def test_action_to_json_and_back():
    s = CountGame().new_initial_state(0)
    assert s.action_to_json(Add(2)) == {"type": "play", "tiles": ["0-2"]}
    assert s.action_to_json("roll") == {"type": "draw", "tiles": []}
    assert s.action_to_string(Add(2)) == "Add(n=2)"
    for a in s.legal_actions():
        assert s.action_from_json(s.action_to_json(a)) == a
    with pytest.raises(IllegalActionError, match="no legal action"):
        s.action_from_json({"type": "play", "tiles": ["0-5"]})
    with pytest.raises(ValueError, match="unknown action type"):
        s.action_from_json({"type": "jump"})
    with pytest.raises(ValueError, match="tile texts"):
        s.action_from_json({"type": "play", "tiles": [[0, 2]]})


@pytest.mark.parametrize("k,n", [(0, 10), (5, 10), (10, 10), (900, 1000), (1, 4000)])
def test_wilson_interval_contains_proportion(k, n):
    lo, hi = wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0
    assert hi - lo < 0.7


def test_wilson_interval_values():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # more trials, narrower interval
    assert (wilson_interval(500, 1000)[1] - wilson_interval(500, 1000)[0]) < (hi - lo)


def test_hint_record():
    h = Hint(Add(1), [(Add(1), 0.7), (Add(2), 0.2)], "win_rate", 0.7, "why", 1.5)
    assert h.action == Add(1) and h.ranking[0][1] == 0.7 and h.elapsed_ms == 1.5
    assert "win_rate" in repr(h)


def test_make_game_registry():
    assert "draw100" in GAMES
    g = make_game("draw100", num_players=3)
    assert g.num_players == 3 and g.name == "draw100"
    with pytest.raises(ValueError, match="unknown game"):
        make_game("chess")
