"""OpenSpiel-style random simulation of every game of the catalog (engine.GAMES).

Random legal play from a random seed, on every set and variant. At every step: each legal
action reads as text and as JSON of the common schema, and the JSON (through ``json``) names
that action again; a clone is independent of its original; and at the end the game replays
from ``(seed, history)`` to the same position.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import GAMES, TERMINAL, IllegalActionError
from engine.actions import ACTION_TYPES, PLACE_KINDS
from engine.game import State

#: (game name, parameters) for every set and variant of every game.
CONFIGS = [
    (name, g.params(max_pip=s) if len(g.sets) > 1 else {})
    for name, g in GAMES.items()
    for s in g.sets
] + [(name, g.params(variant=v)) for name, g in GAMES.items() for v in g.variants if v]
# the most players a game takes (the fewest is its default)
CONFIGS += [(n, {"num_players": g.max_players}) for n, g in GAMES.items() if g.max_players > 2]
MAX_STEPS = 40


def snapshot(s: State) -> tuple:
    """What a player can tell about a position (and its history)."""
    return (
        str(s),
        s.current_player(),
        s.is_terminal(),
        tuple(s.returns()),
        tuple(s.legal_actions()),
        tuple(s.history),
    )


def check_actions(s: State) -> None:
    seen = set()
    for a in s.legal_actions():
        assert s.action_to_string(a)
        j = s.action_to_json(a)
        assert j["type"] in ACTION_TYPES
        assert all(isinstance(t, str) for t in j["tiles"])
        for key in ("place", "source"):
            if key in j:
                assert j[key]["kind"] in PLACE_KINDS
        text = json.dumps(j, sort_keys=True)
        assert text not in seen, f"two legal actions with the JSON {text}"
        seen.add(text)
        assert s.action_from_json(json.loads(text)) == a


@pytest.mark.parametrize("name,params", CONFIGS, ids=[f"{n}-{p}" for n, p in CONFIGS])
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31 - 1), choices=st.integers(0, 2**31 - 1))
def test_random_play(name, params, seed, choices):
    g = GAMES[name]
    game = g.make(**params)
    assert game.name == name and g.min_players <= game.num_players <= g.max_players
    rng = random.Random(choices)
    s = game.new_initial_state(seed)
    for _ in range(MAX_STEPS):
        assert len(s.returns()) == game.num_players
        if s.is_terminal():
            assert s.current_player() == TERMINAL and s.legal_actions() == []
            with pytest.raises(IllegalActionError):
                s.apply_action(object())
            break
        assert 0 <= s.current_player() < game.num_players
        check_actions(s)
        a = rng.choice(s.legal_actions())
        # a clone moves on alone; the original is unchanged, then takes the same action
        before = snapshot(s)
        c = s.clone()
        c.apply_action(a)
        assert snapshot(s) == before
        s.apply_action(a)
        assert snapshot(s) == snapshot(c)
    again = game.replay(seed, s.history)
    assert snapshot(again) == snapshot(s)


def test_every_game_and_setting_is_simulated():
    assert {n for n, _p in CONFIGS} == set(GAMES)
    assert len(CONFIGS) == sum(
        len(g.sets) + len([v for v in g.variants if v]) + (g.max_players > 2)
        for g in GAMES.values()
    )


def test_a_json_action_that_is_not_legal_is_refused():
    s = GAMES["luzon"].make().new_initial_state(1)
    with pytest.raises(IllegalActionError):
        s.action_from_json({"type": "remove", "tiles": ["0-0", "6-6"]})
    with pytest.raises(ValueError, match="place kind"):
        s.action_from_json({"type": "move", "tiles": ["0-0"], "place": {"kind": "moon"}})
