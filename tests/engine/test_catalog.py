"""The game catalog (engine/catalog.py): one record per game, traits that callers derive from."""

from __future__ import annotations

import pytest

from engine import GAMES, Hand, Table, games_where, get_game_type, make_game
from engine.game import Game


def test_catalog_lists_the_five_games_in_page_order():
    assert list(GAMES) == ["draw100", "tableaux", "good-neighbors", "big-clock", "luzon"]
    assert all(g.name == name for name, g in GAMES.items())


@pytest.mark.parametrize("name", list(GAMES))
def test_every_record_builds_its_game_on_every_set(name):
    g = GAMES[name]
    for max_pip in g.sets:
        game = g.make(**g.params(max_pip=max_pip))
        assert isinstance(game, Game)
        assert game.name == name
        assert g.min_players <= game.num_players <= g.max_players
        state = game.new_initial_state(seed=3)
        assert state.legal_actions()
        assert callable(g.hint)
    for v in g.variants:
        assert g.make(**g.params(variant=v)).name == name


def test_traits_match_the_rules():
    assert games_where(lambda g: g.needs_hand) == {"draw100", "tableaux"}
    assert games_where(lambda g: g.takes_hand) == {"draw100", "tableaux", "big-clock"}
    assert games_where(lambda g: g.solitaire) == {"good-neighbors", "big-clock", "luzon"}
    assert games_where(lambda g: g.scored) == {"draw100", "tableaux"}
    assert games_where(lambda g: g.table is Table.FACE_UP) == {
        "good-neighbors",
        "luzon",
        "tableaux",
    }
    assert games_where(lambda g: g.table.face_down) == {"big-clock", "draw100"}
    assert GAMES["big-clock"].hand is Hand.DRAWN
    # RULES.md section 5: Tableaux to 121 with double-6, to 361 with double-9
    assert GAMES["tableaux"].default_target(6) == 121
    assert GAMES["tableaux"].default_target(9) == 361
    assert GAMES["tableaux"].default_target() == 121
    assert GAMES["draw100"].default_target() == 100
    assert GAMES["luzon"].default_target() is None
    from engine.tableaux import PASS_PENALTY

    assert GAMES["tableaux"].pass_penalty == PASS_PENALTY  # the engine's own rule
    assert games_where(lambda g: g.pass_penalty > 0) == {"tableaux"}
    # the engine's own default set is the first listed
    for g in GAMES.values():
        game = g.make()
        assert getattr(game, "max_pip", 6) == g.default_set


def test_params_reject_a_set_or_variant_the_game_does_not_have():
    with pytest.raises(ValueError, match="double-6 set, not double-9"):
        GAMES["draw100"].params(max_pip=9)
    with pytest.raises(ValueError, match="no variant"):
        GAMES["tableaux"].params(variant="sixes")
    assert GAMES["draw100"].params(max_pip=6) == {}
    assert GAMES["tableaux"].params(max_pip=9) == {"max_pip": 9}
    assert GAMES["luzon"].params(variant="sixes") == {"variant": "sixes"}
    assert GAMES["luzon"].params(variant="") == {}


def test_lookup_by_name():
    assert get_game_type("Good_Neighbors") is GAMES["good-neighbors"]
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        get_game_type("chess")
    with pytest.raises(ValueError, match="unknown game"):
        make_game("chess")
    with pytest.raises(TypeError):
        GAMES["luzon"] = GAMES["draw100"]  # type: ignore[index]
