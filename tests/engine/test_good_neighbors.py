"""Good Neighbors engine (RULES.md section 1; seed 000_*.txt)."""

from __future__ import annotations

import itertools
import random

import pytest

from engine import IllegalActionError, make_game
from engine import good_neighbors as gn
from engine.good_neighbors import GoodNeighborsGame, RemovePairs
from engine.solitaire import exhaustive_win
from engine.tiles import DominoSet, Tile

T = Tile.parse

# The seed's pictures are lost. This 3x4 layout has all six good-neighbor pairs the seed lists
# (6-1 + 12-6; 9-12 + 12-6; 9-12 + 12-3; 3-2 + 3-1; 3-2 + 5-3; 9-3 + 3-1) and reproduces its
# close-up; 4-7, 8-10 and 11-11 are fillers that share no number with their neighbours. (With
# 12-3 in the middle row the seed's list cannot be exhaustive: 12-3 also touches a 3.)
SEED_GRID = [
    [T("6-1"), T("0-0"), T("4-7"), T("5-3")],
    [T("12-6"), T("9-12"), T("12-3"), T("3-2")],
    [T("8-10"), T("11-11"), T("9-3"), T("3-1")],
]
SEED_PAIRS = [
    ("6-1", "12-6"),
    ("9-12", "12-6"),
    ("9-12", "12-3"),
    ("3-2", "3-1"),
    ("3-2", "5-3"),
    ("9-3", "3-1"),
]


def single_pairs(state) -> set[frozenset]:
    return {frozenset(a.pairs[0]) for a in state.legal_actions() if len(a.pairs) == 1}


def test_seed_example_close_up():
    game = GoodNeighborsGame(12)
    state = game.state_from_position(SEED_GRID, seed=7)
    pairs = single_pairs(state)
    for a, b in SEED_PAIRS:
        assert frozenset((T(a), T(b))) in pairs
    next_four = state.stock[:4]
    state.apply_action(RemovePairs.of([(T("3-2"), T("3-1")), (T("6-1"), T("12-6"))]))
    rows = state.rows()
    # 0-0 moves left, 9-12 comes up to the top row
    assert rows[0] == [T("0-0"), T("4-7"), T("5-3"), T("9-12")]
    # 12-3 moves left, the bottom three tiles come up one row
    assert rows[1] == [T("12-3"), T("8-10"), T("11-11"), T("9-3")]
    # four new tiles from the deck fill the bottom row, left to right
    assert rows[2] == next_four
    assert len(state.stock) == 91 - 12 - 4
    assert sorted(state.removed) == sorted(T(x) for x in ("3-2", "3-1", "6-1", "12-6"))


def test_sizes_and_deal():
    for max_pip, (rows, cols, _left) in gn.SHAPES.items():
        state = make_game("good-neighbors", max_pip=max_pip).new_initial_state(3)
        assert len(state.rows()) == rows and all(len(r) == cols for r in state.rows())
        assert len(state.grid) + len(state.stock) == len(DominoSet(max_pip))
    assert [p["max_pip"] for _, p in gn.GAME_SIZES] == [12, 9, 6]
    with pytest.raises(ValueError):
        GoodNeighborsGame(max_pip=7)


def brute_force_turns(grid: list[Tile], cols: int) -> set[frozenset]:
    """All non-empty sets of disjoint good-neighbor pairs, by brute force over pair subsets."""
    cells = {k: divmod(k, cols) for k in range(len(grid))}
    pairs = [
        (i, j)
        for i, j in itertools.combinations(range(len(grid)), 2)
        if max(abs(cells[i][0] - cells[j][0]), abs(cells[i][1] - cells[j][1])) == 1
        and grid[i].shares_number(grid[j])
    ]
    out = set()
    for r in range(1, len(pairs) + 1):
        for combo in itertools.combinations(pairs, r):
            used = [c for p in combo for c in p]
            if len(used) == len(set(used)):
                out.add(frozenset(frozenset((grid[i], grid[j])) for i, j in combo))
    return out


@pytest.mark.parametrize("max_pip", [12, 9, 6])
def test_legal_turns_are_all_disjoint_pair_sets(max_pip):
    game = GoodNeighborsGame(max_pip)
    for seed in range(6):
        state = game.new_initial_state(seed)
        got = {frozenset(frozenset(p) for p in a.pairs) for a in state.legal_actions()}
        assert got == brute_force_turns(state.grid, game.cols)


def test_diagonal_touches_and_far_cells_do_not():
    game = GoodNeighborsGame(9)
    # 1-2 at (0,0) and 2-5 at (1,1) touch diagonally; 1-8 at (0,2) shares 1 with 1-2 but is two
    # cells away.
    grid = [
        [T("1-2"), T("0-0"), T("1-8")],
        [T("3-3"), T("2-5"), T("4-4")],
        [T("6-6"), T("7-7"), T("9-9")],
    ]
    state = game.state_from_position(grid, seed=1)
    assert single_pairs(state) == {frozenset((T("1-2"), T("2-5")))}


def test_win_and_loss_conditions():
    # double-6 must clear every tile; double-9 may leave one.
    g6 = GoodNeighborsGame(6)
    s = g6.state_from_position([[T("1-2"), T("2-3"), None, None, None, None], [None] * 6], stock=[])
    assert not s.is_terminal()
    s.apply_action(s.legal_actions()[0])
    assert s.is_terminal() and s.returns() == [1.0]
    g9 = GoodNeighborsGame(9)
    s = g9.state_from_position([[T("1-2"), T("2-3"), T("4-4")], [None] * 3, [None] * 3], stock=[])
    s.apply_action(RemovePairs.of([(T("1-2"), T("2-3"))]))
    assert s.is_terminal() and s.returns() == [1.0]
    stuck = g9.state_from_position(
        [[T("1-2"), T("3-4"), T("5-6")], [None] * 3, [None] * 3], stock=[]
    )
    assert stuck.is_terminal() and stuck.returns() == [0.0] and stuck.legal_actions() == []
    with pytest.raises(IllegalActionError):
        stuck.apply_action(RemovePairs.of([(T("1-2"), T("3-4"))]))


def test_state_from_position_rejects_impossible_positions():
    game = GoodNeighborsGame(9)
    full = [
        [T("0-0"), T("0-1"), T("0-2")],
        [T("0-3"), T("0-4"), T("0-5")],
        [T("0-6"), T("0-7"), T("0-8")],
    ]
    with pytest.raises(ValueError, match="rows"):
        game.state_from_position(full[:2])
    with pytest.raises(ValueError, match="twice"):
        game.state_from_position([full[0], full[0], full[2]])
    with pytest.raises(ValueError, match="not in a double-9"):
        game.state_from_position([full[0], full[1], [T("0-6"), T("0-7"), T("10-10")]])
    with pytest.raises(ValueError, match="gap"):
        game.state_from_position([full[0], [None, T("0-4"), T("0-5")], [None] * 3], stock=[])
    with pytest.raises(ValueError, match="stock"):
        game.state_from_position([full[0], full[1], [None] * 3])
    with pytest.raises(ValueError, match="even"):
        game.state_from_position(full, stock=[T("9-9")])


@pytest.mark.parametrize("max_pip", [9, 6])
def test_solver_agrees_with_brute_force_near_the_end(max_pip):
    game = GoodNeighborsGame(max_pip)
    checked = 0
    for seed in range(40):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal() and len(state.stock) > 2:
            state.apply_action(
                gn.greedy_action(state) if rng.random() < 0.5 else gn.random_action(state, rng)
            )
        if state.is_terminal() or len(state.grid) > 10:
            continue
        assert gn.solve(state) == exhaustive_win(state)
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("max_pip", [12, 9, 6])
def test_solve_line_wins_when_replayed(max_pip):
    game = GoodNeighborsGame(max_pip)
    for seed in range(3):
        state = game.new_initial_state(seed)
        verdict = gn.solve(state)
        line = gn.solve_line(state)
        assert (line is not None) == (verdict is True)
        if line is not None:
            replayed = game.replay(seed, line)
            assert replayed.is_terminal() and replayed.returns() == [1.0]


def test_hint_ranks_the_losing_pair_last():
    game = GoodNeighborsGame(6)
    # stock empty: 0-1 1-2 2-3 3-4 in a row. Removing 1-2 + 2-3 leaves 0-1 and 3-4 (no pair):
    # a certain loss; every other turn wins.
    s = game.state_from_position(
        [[T("0-1"), T("1-2"), T("2-3"), T("3-4"), None, None], [None] * 6], stock=[]
    )
    h = gn.hint(s, samples=4, seed=0)
    rates = {a: r for a, r in h.ranking}
    assert rates[RemovePairs.of([(T("1-2"), T("2-3"))])] == 0.0
    assert h.win_chance == 1.0 and rates[h.action] == 1.0
    assert [r for _, r in h.ranking] == sorted(rates.values(), reverse=True)
    assert len(gn.greedy_action(s).pairs) == 2


def test_hint_on_a_deal_is_legal_and_reproducible():
    state = GoodNeighborsGame(9).new_initial_state(11)
    h1 = gn.hint(state, samples=6, seed=3)
    h2 = gn.hint(state, samples=6, seed=3)
    assert h1.action in state.legal_actions()
    assert h1.action == h2.action and h1.ranking == h2.ranking
    assert h1.value_unit == "win_rate" and 0.0 <= h1.search["raw"] <= 1.0
    assert h1.win_chance is None or 0.0 <= h1.win_chance <= 1.0


def test_menu_and_combined_input():
    state = GoodNeighborsGame(12).state_from_position(SEED_GRID, seed=7)
    menu = gn.menu_actions(state)
    i = menu.index(RemovePairs.of([(T("3-2"), T("3-1"))])) + 1
    j = menu.index(RemovePairs.of([(T("6-1"), T("12-6"))])) + 1
    action = gn.parse_action(state, f"{i}+{j}")
    assert action == RemovePairs.of([(T("3-2"), T("3-1")), (T("6-1"), T("12-6"))])
    assert gn.menu_text(state, action) in (f"{i}+{j}", f"{j}+{i}")
    k = menu.index(RemovePairs.of([(T("3-2"), T("5-3"))])) + 1
    with pytest.raises(ValueError, match="share a tile"):
        gn.parse_action(state, f"{i}+{k}")
    with pytest.raises(ValueError, match="no pair number"):
        gn.parse_action(state, f"{i}+99")
    assert gn.parse_action(state, "7") is None
