"""The Big Clock engine (RULES.md section 2; seed 001_*.txt; choices in docs/big-clock.md)."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import IllegalActionError, make_game
from engine import big_clock as bc
from engine.big_clock import GIVE_UP, SET_ASIDE, BigClockGame, Move, Place, rescue, rules
from engine.big_clock import game as bc_game
from engine.big_clock import hints as bc_hints
from engine.big_clock import search as bc_search
from engine.game import TERMINAL
from engine.solitaire import NodeBudget, SearchLimit, exhaustive_win
from engine.tiles import DominoSet, Tile

T = Tile.parse


def six(piles: dict, stock=(), drawn=None, **kw):
    """A double-6 position; ``stock`` kept in the given order."""
    full = {k: None for k in range(1, 7)}
    full.update(piles)
    return BigClockGame(6).state_from_position(
        full, stock=list(stock), drawn=drawn, shuffle=False, **kw
    )


def places(state) -> set[int]:
    return {a.slot for a in state.legal_actions() if isinstance(a, Place)}


def moves(state) -> set[tuple[int, int]]:
    return {(a.src, a.dst) for a in state.legal_actions() if isinstance(a, Move)}


# --- deal ---------------------------------------------------------------------------------


@pytest.mark.parametrize("max_pip,stock", [(12, 78), (9, 45), (6, 21)])
def test_deal(max_pip, stock):
    game = make_game("big-clock", max_pip=max_pip)
    state = game.new_initial_state(5)
    expected = [t for t in DominoSet(max_pip).tiles if t != Tile(0, 0)]
    random.Random(5).shuffle(expected)
    order = [12] + list(range(1, 12)) if max_pip == 12 else list(range(1, max_pip + 1))
    assert [state.piles[k] for k in order] == [[t] for t in expected[:max_pip]]
    seen = [t for p in state.piles.values() for t in p] + [state.drawn] + state.stock
    assert len(state.stock) + 1 == stock and Tile(0, 0) not in seen
    assert sorted(seen) == sorted(expected)
    assert state.drawn == expected[max_pip]
    with pytest.raises(ValueError):
        BigClockGame(max_pip=7)


def test_dealt_double_on_own_slot_is_home_and_closed():
    state = six(
        {1: ["1-1"], 2: ["2-5"], 3: ["3-4"], 4: ["4-5"], 5: ["5-6"], 6: ["0-6"]},
        stock=["2-3"],
        drawn="0-1",
    )
    assert state.home_slots() == [1]
    assert 1 not in places(state)  # 0-1 shares the 1 but 1-1 is home, closed
    assert places(state) == {6}
    assert not state.doubles_in_trouble() and not moves(state)


# --- placing ------------------------------------------------------------------------------

SEED_CLOCK = {
    12: ["1-12"],
    1: ["3-10"],
    2: ["2-5"],
    3: ["0-3"],
    4: ["4-7", "7-7"],
    5: ["5-8"],
    6: ["1-6"],
    7: ["2-7"],
    8: ["8-9"],
    9: ["9-11"],
    10: ["4-6"],
    11: ["11-12"],
}


def test_seed_example_6_10_and_7_7_in_trouble():
    state = BigClockGame(12).state_from_position(SEED_CLOCK, drawn="6-10", seed=3)
    # "If you drew the 6-10, you could play it on the 3-10, 6-1, or 4-6."
    assert places(state) == {1, 6, 10}
    # "The 7-7 at 4:00 ... is a double in trouble": moves are open, e.g. 7-7 home onto 2-7
    assert state.doubles_in_trouble() == [T("7-7")]
    assert (4, 7) in moves(state)
    state.apply_action(Move(4, 7))
    assert state.home_slots() == [7] and not moves(state)
    # "The best play ... is likely to be on the 4-6 at the 10:00 time slot"
    assert bc.greedy_action(state) == Place(10)


def test_non_double_must_be_placed_and_never_covers_a_double():
    state = six(
        {1: ["1-3"], 2: ["4-4"], 3: ["3-5"], 4: ["0-2"], 5: ["5-6"], 6: ["0-6"]},
        stock=["2-3"],
        drawn="4-5",
    )
    # 4-4 lies on slot 2 (wrong slot): never covered; 3-5 and 5-6 share the 5
    assert places(state) == {3, 5}
    assert SET_ASIDE not in state.legal_actions()
    state2 = six(
        {1: ["1-3"], 2: ["2-6"], 3: ["0-3"], 4: ["0-2"], 5: ["3-6"], 6: ["0-6"]},
        stock=["2-3"],
        drawn="4-5",
    )
    assert state2.legal_actions() == [SET_ASIDE]  # no 4 or 5 on top, no trouble
    state2.apply_action(SET_ASIDE)
    assert state2.set_aside[-1] == T("4-5") and state2.drawn == T("2-3")
    with pytest.raises(IllegalActionError):
        state2.apply_action(Place(6))  # 2-3 does not match 0-6


def test_no_moves_without_a_double_in_trouble():
    state = six(
        {1: ["1-3"], 2: ["2-6"], 3: ["0-3"], 4: ["0-2"], 5: ["3-6"], 6: ["0-6"]},
        stock=["1-2"],
        drawn="2-4",
    )
    assert not state.doubles_in_trouble()
    assert all(not isinstance(a, Move) for a in state.legal_actions())


def test_drawn_double_goes_home_or_onto_a_wrong_matching_pile():
    state = six(
        {1: ["1-3"], 2: ["2-6"], 3: ["0-3"], 4: ["0-2"], 5: ["3-6"], 6: ["0-6"]},
        stock=["1-2", "4-5"],
        drawn="3-3",
    )
    assert places(state) == {1, 3, 5}  # home on 3, or on 1-3 / 3-6
    assert not state.doubles_in_trouble()
    wrong = state.clone()
    wrong.apply_action(Place(5))
    assert wrong.doubles_in_trouble() == [T("3-3")]  # lying on a wrong slot: trouble
    assert (5, 3) in moves(wrong)  # ... and it may move home later
    state.apply_action(Place(3))
    assert state.home_slots() == [3]
    assert 3 not in places(state) and all(3 not in m for m in moves(state))


def test_drawn_double_in_trouble_moves_home():
    # 5-5 drawn: no top shows a 5. Moving 2-4 off slot 5 (onto 0-2) uncovers the 4-5 there.
    state = six(
        {1: ["1-3"], 2: ["2-6"], 3: ["0-3"], 4: ["0-2"], 5: ["4-5", "2-4"], 6: ["0-6"]},
        stock=["1-2"],
        drawn="5-5",
    )
    assert state.doubles_in_trouble() == [T("5-5")]
    assert places(state) == set() and GIVE_UP in state.legal_actions()
    assert bc.greedy_action(state) in (Move(5, 4), Move(5, 2))  # 2-4 onto 0-2 or 2-6
    state.apply_action(Move(5, 4))
    assert state.piles[5] == [T("4-5")] and state.piles[4] == [T("0-2"), T("2-4")]
    # 5 shows now; the rescue begun for 5-5 may go on until 5-5 is placed (choice 4)
    assert places(state) == {5} and state.rescuing and moves(state)
    state.apply_action(Place(5))
    assert state.home_slots() == [5] and state.moves_used == 0 and not state.rescuing


def test_rescue_goes_on_until_the_drawn_double_is_home():
    # 3-3 drawn, no top shows a 3. Moving 5-6 onto 2-6 uncovers 3-5 on slot 5 (a wrong slot):
    # 3-3 matches again, but the seed says to "continue making as many such moves as necessary
    # in order to bring any double in trouble to its correct time slot": 1-4 off slot 3 onto
    # 1-5 uncovers 3-4, and 3-3 goes home instead of onto the wrong slot 5.
    state = six(
        {1: ["1-5"], 2: ["0-2"], 3: ["3-4", "1-4"], 4: ["0-4"], 5: ["3-5", "5-6"], 6: ["2-6"]},
        stock=["1-2", "1-1"],
        drawn="3-3",
    )
    assert state.doubles_in_trouble() == [T("3-3")] and places(state) == set()
    state.apply_action(Move(5, 6))
    assert places(state) == {5} and state.doubles_in_trouble() == []
    assert (3, 1) in moves(state) and state.rescuing
    state.apply_action(Move(3, 1))
    assert places(state) == {3, 5}
    state.apply_action(Place(3))
    assert state.home_slots() == [3] and not state.rescuing and not moves(state)
    # the solver finds the two-move rescue: from the start the line goes through 3-3 home
    start = six(
        {1: ["1-5"], 2: ["0-2"], 3: ["3-4", "1-4"], 4: ["0-4"], 5: ["3-5", "5-6"], 6: ["2-6"]},
        stock=[],
        drawn="3-3",
    )
    after = start.clone()
    after.apply_action(Move(5, 6))
    rescues = rescue._rescues(6, after._piles, after._drawn, 2, True)
    assert rescues and rescues[0][0] == ((3, 1),)
    assert rescue._rescues(6, after._piles, after._drawn, 2, False) == ()


def test_give_up_and_stuck_double_lose():
    state = six(
        {1: ["1-3"], 2: ["2-6"], 3: ["0-3"], 4: ["0-2"], 5: ["4-5", "2-4"], 6: ["0-6"]},
        stock=["1-2"],
        drawn="5-5",
    )
    state.apply_action(GIVE_UP)
    assert state.is_terminal() and state.returns() == [0.0]
    assert state.current_player() == TERMINAL
    # no top shows a 5 and no tile can move anywhere: lost at once
    stuck = six(
        {1: ["1-1"], 2: ["2-2"], 3: ["3-3"], 4: ["4-4"], 5: ["1-6"], 6: ["6-6"]},
        stock=["1-2"],
        drawn="5-5",
    )
    assert stuck.legal_actions() == [] and stuck.is_terminal() and stuck.returns() == [0.0]


def test_blank_slot_only_its_double_then_filled_by_next_tile():
    # 2-2 on slot 4 is in trouble; moving 1-3 off slot 3 empties it: a blank slot.
    state = six(
        {1: ["1-1"], 2: ["0-2"], 3: ["1-3"], 4: ["2-2"], 5: ["3-5"], 6: ["5-6"]},
        stock=["4-6", "3-3", "0-4"],
        drawn="0-1",
    )
    assert (3, 5) in moves(state)
    state.apply_action(Move(3, 5))
    assert state.blank_slots() == [3]
    assert all(dst != 3 for _, dst in moves(state))  # only 3-3 may go there
    # the drawn 0-1 must fill the blank at once (it also matches 0-2, but not while blank)
    assert places(state) == {3}
    state.apply_action(Place(3))
    assert state.piles[3] == [T("0-1")] and not state.blank_slots()


def test_drawn_double_goes_home_to_its_blank_slot():
    state = six(
        {1: ["1-1"], 2: ["0-2"], 3: [], 4: ["2-2"], 5: ["1-3", "3-5"], 6: ["5-6"]},
        stock=["4-6"],
        drawn="3-3",
    )
    assert places(state) == {3}
    state.apply_action(Place(3))
    assert state.home_slots() == [1, 3]


def test_won_and_lost_when_stock_runs_out():
    state = six(
        {1: ["1-1"], 2: ["2-2"], 3: ["3-3"], 4: ["4-4"], 5: ["5-5"], 6: ["2-6"]},
        stock=["0-1"],
        drawn="6-6",
    )
    assert places(state) == {6}
    state.apply_action(Place(6))
    assert state.is_won() and state.is_terminal() and state.returns() == [1.0]
    last = six(
        {1: ["1-1"], 2: ["2-2"], 3: ["3-3"], 4: ["4-4"], 5: ["5-5"], 6: ["2-6"]},
        stock=[],
        drawn="0-2",
    )
    last.apply_action(Place(6))
    assert last.drawn is None and last.is_terminal() and last.returns() == [0.0]


def test_move_limit_per_draw():
    # 4-4 is in trouble on slot 1; 2-3 could shuttle between 2-5 and 3-6 for ever without the cap
    state = six(
        {1: ["1-4", "4-4"], 2: ["2-5", "2-3"], 3: ["0-2"], 4: ["1-3"], 5: ["5-6"], 6: ["3-6"]},
        stock=["1-2"],
        drawn="0-5",
    )
    for k in range(bc.MAX_MOVES_PER_DRAW):
        state.apply_action(Move(2, 6) if k % 2 == 0 else Move(6, 2))
    assert state.moves_used == bc.MAX_MOVES_PER_DRAW
    assert not moves(state) and state.legal_actions()
    state.apply_action(state.legal_actions()[0])
    assert state.moves_used == 0 and moves(state)


# --- position constructor -----------------------------------------------------------------


@pytest.mark.parametrize(
    "piles,kw,msg",
    [
        ({7: ["1-2"]}, {}, "out of range"),
        ({1: ["0-0"]}, {}, "0-0"),
        ({1: ["1-1", "1-2"]}, {}, "never covered"),
        ({1: ["1-2", "3-4"]}, {}, "share no number"),
        ({1: ["1-2"], 2: ["1-2"]}, {}, "twice"),
        ({1: ["1-7"]}, {}, "not in a double-6"),
        ({1: ["1-2"]}, {"home": [1]}, "home"),
        ({1: ["1-2"]}, {"stock": ["1-2"]}, "twice"),
    ],
)
def test_state_from_position_rejects_impossible(piles, kw, msg):
    full = {k: [] for k in range(1, 7)}
    full.update(piles)
    with pytest.raises(ValueError, match=msg):
        BigClockGame(6).state_from_position(full, **kw)
    del full[6]
    with pytest.raises(ValueError, match="missing|out of range"):
        BigClockGame(6).state_from_position(full)


def test_state_from_position_tops_only_and_default_stock():
    tops = {1: "1-3", 2: T("2-6"), 3: "0-3", 4: "0-2", 5: "3-6", 6: "0-6"}
    state = BigClockGame(6).state_from_position(tops, seed=1)
    assert len(state.stock) + 1 + 6 == 27
    assert state.piles[2] == [T("2-6")]


# --- solver and hint ----------------------------------------------------------------------


def test_solver_line_replays_to_a_win():
    game = BigClockGame(6)
    found = 0
    for seed in range(6):
        state = game.new_initial_state(seed)
        r = bc.solve(state, node_limit=50_000)
        if r is True:
            line = bc.solve_line(state, node_limit=50_000)
            assert line is not None
            replay = game.replay(seed, line)
            assert replay.is_won()
            found += 1
        if r is False:
            assert bc.solve_line(state, node_limit=50_000) is None
    assert found


HOMES_1_TO_4 = {1: ["1-1"], 2: ["2-2"], 3: ["3-3"], 4: ["4-4"]}


def test_solver_sees_a_lost_position():
    # 3-4 fits nowhere (set aside), then 5-5 comes: no 5 on top, and neither 1-6 nor 0-2 can
    # move anywhere, so slot 5 can never show a 5 or be emptied
    state = six({**HOMES_1_TO_4, 5: ["1-6"], 6: ["0-2"]}, stock=["5-5", "6-6"], drawn="3-4")
    assert state.legal_actions() == [SET_ASIDE]
    assert bc.solve(state) is False
    assert bc.greedy_action(state) == SET_ASIDE
    state.apply_action(SET_ASIDE)
    assert state.is_terminal() and state.returns() == [0.0]
    # rescues count: 0-1 on either pile, 5-5 comes with no 5 on top, but three moves empty
    # slot 5 (a blank slot takes its own double) and then slot 6 shows the 6
    rescued = six(
        {**HOMES_1_TO_4, 5: ["2-6", "1-6"], 6: ["0-6"]}, stock=["5-5", "6-6"], drawn="0-1"
    )
    assert places(rescued) == {5, 6} and bc.solve(rescued) is True
    won = six({**HOMES_1_TO_4, 5: ["1-6"], 6: ["0-6"]}, stock=["5-5", "6-6"], drawn="1-5")
    assert bc.solve(won) is True
    line = bc.solve_line(won)
    for a in line:
        won.apply_action(a)
    assert won.is_won()


def test_hint_late_in_won_lines_finds_the_win():
    """With at most one unseen tile every sampled stock order is the true one, so the hint's
    win chance must be 1.0 exactly when some candidate action still wins (the solver says)."""
    game = BigClockGame(6)
    checked = 0
    for seed in range(12):
        state = game.new_initial_state(seed)
        line = bc.solve_line(state, node_limit=20_000)
        if not line:
            continue
        for a in line:
            if len(state.stock) <= 1 and len(bc_hints._candidates(state)) >= 2:
                h = bc.hint(state, samples=2, seed=1)
                assert h.action in state.legal_actions() and h.win_chance == 1.0
                child = state.clone()
                child.apply_action(h.action)
                assert bc.solve(child) is True
                rates = [r for _, r in h.ranking]
                assert rates == sorted(rates, reverse=True)
                checked += 1
            state.apply_action(a)
    assert checked >= 1


class _PlainSearch(bc_search._Search):
    """The same search without the pile-top memo (every position searched afresh)."""

    def lookup(self, piles, pos):
        return None


def late_positions(max_pip: int, seeds, stock_left: int):
    """Positions of random/greedy games once at most ``stock_left`` tiles are left unseen."""
    for seed in seeds:
        game = BigClockGame(max_pip)
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            if len(state.stock) <= stock_left:
                yield state.clone()
            state.apply_action(
                bc.greedy_action(state) if rng.random() < 0.7 else bc.random_action(state, rng)
            )


def test_memo_on_pile_tops_gives_the_plain_search_answer():
    """Transpositions through the tops memo (with its per-pile depths) never change an answer:
    the memo-less search of the same rules agrees on late positions and on whole deals."""
    checked = {True: 0, False: 0}
    states = list(late_positions(6, range(40), 8)) + list(late_positions(9, range(6), 6))
    states += [BigClockGame(6).new_initial_state(seed) for seed in range(8)]
    for state in states[::3]:
        if state.is_terminal():
            continue
        stock = (state._drawn,) + tuple(state._stock)
        fast = bc_search._Search(state._tab, stock, {}, NodeBudget(10**6))
        plain = _PlainSearch(state._tab, stock, {}, NodeBudget(10**6))
        win = fast.episode(state._piles, 0, state.moves_used, state.rescuing)[0]
        assert win == plain.episode(state._piles, 0, state.moves_used, state.rescuing)[0]
        assert bc.solve(state) == win
        checked[win] += 1
    assert checked[True] >= 10 and checked[False] >= 10


def endgame_positions(seeds, stock_left: int):
    """Double-6 positions near the end of the solver's winning lines, and their siblings
    (another action taken there), at most ``stock_left`` tiles unseen, no move made yet."""
    game = BigClockGame(6)
    for seed in seeds:
        state = game.new_initial_state(seed)
        for a in bc.solve_line(state) or []:
            if len(state.stock) <= stock_left and state.moves_used == 0:
                yield state.clone()
                for b in state.legal_actions():
                    if b != a and not isinstance(b, Move):
                        child = state.clone()
                        child.apply_action(b)
                        if child.moves_used == 0 and not child.is_terminal():
                            yield child
            state.apply_action(a)


def test_solver_wins_are_real_and_bounded_by_exhaustive_search(monkeypatch):
    """With the move cap lowered to 3 the full game tree of endgames is small enough for
    ``exhaustive_win`` (every legal action, moves included): the solver (rescue moves only) is
    a lower bound, so a solver win is an exhaustive win and an exhaustive loss a solver loss."""
    positions = list(endgame_positions(range(16), 2))
    for module in (bc_game, bc_search):
        monkeypatch.setattr(module, "MAX_MOVES_PER_DRAW", 3)
    both = {True: 0, False: 0}
    for state in positions:
        exact = exhaustive_win(state.clone())
        mine = bc.solve(state)
        assert mine is not None
        assert not mine or exact
        if mine == exact:
            both[exact] += 1
    assert both[True] >= 5 and both[False] >= 3


@pytest.mark.parametrize("max_pip", [6, 9])
def test_rescues_are_legal_and_reach_their_goal(max_pip):
    """Every rescue the search offers is a legal move sequence in the game that brings a
    double home or lets the drawn double go home; the quick pre-check never hides one."""
    seen = 0
    for state in late_positions(max_pip, range(25), 40):
        tab, piles, drawn = state._tab, state._piles, state._drawn
        if state.moves_used or not rules._in_trouble(tab, piles, drawn):
            continue
        dd = drawn if tab.dbl[drawn] else -1
        found, _ = rescue._rescue_search(max_pip, piles, dd, 3)
        if not rescue._rescue_possible(
            tab, piles, tab.lo[dd] if dd >= 0 else 0, 3, [0] * (max_pip + 1)
        ):
            assert not found
        for path, layout in found:
            s = state.clone()
            for i, j in path:
                s.apply_action(Move(i, j))
            assert s._piles == layout
            n = tab.lo[drawn]
            assert len(s.home_slots()) > len(state.home_slots()) or (
                tab.dbl[drawn] and Place(n) in s.legal_actions()
            )
            seen += 1
    assert seen >= 10


def test_new_solver_agrees_with_the_first_one_where_it_finished():
    """Deals 0-11 of double-6 as solved by the first solver (rescue-only search, memo on whole
    clocks; docs/big-clock.md): every one it decided is decided the same way now."""
    first = {}
    for seed in range(12):
        state = BigClockGame(6).new_initial_state(seed)
        first[seed] = _first_solver(state, 20_000)
        if first[seed] is not None:
            assert bc.solve(state) == first[seed], seed
    assert sum(v is not None for v in first.values()) >= 6


def _first_solver(state, node_limit):
    """The solver as first written (commits e9e6788..cd614b6): depth-first over placements with
    a memo on (clock, stock position); rescues = breadth-first move sequences of at most 3
    moves, 400 layouts, ending with a double home or the drawn double able to go home."""
    from collections import deque

    tab = state._tab
    stock = (state._drawn,) + tuple(state._stock)
    memo, used_nodes = {}, [0]

    def rescues(piles, dd):
        homes = sum(rules._is_home(tab, piles, k) for k in tab.slots)
        n = tab.lo[dd] if dd >= 0 else 0
        seen, queue, out = {piles}, deque([(piles, ())]), []
        while queue and len(seen) < 400:
            layout, path = queue.popleft()
            if path and (
                sum(rules._is_home(tab, layout, k) for k in tab.slots) > homes
                or (n and (not layout[n] or rules._accepts(tab, layout, n, dd)))
            ):
                out.append((path, layout))
                continue
            if len(path) >= 3 or not rules._in_trouble(tab, layout, dd):
                continue
            for i, j in rules._moves(tab, layout):
                nxt = rules._move(layout, i, j)
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, path + ((i, j),)))
        return out

    def episode(piles, pos, used=0):
        if rules._all_home(tab, piles):
            return True
        if pos >= len(stock):
            return False
        if used == 0 and (piles, pos) in memo:
            return memo[piles, pos]
        used_nodes[0] += 1
        if used_nodes[0] > node_limit:
            raise SearchLimit()
        drawn = stock[pos]
        targets = sorted(
            rules._place_targets(tab, piles, drawn),
            key=lambda k: -rules._place_score(tab, piles, k, drawn),
        )
        result = any(episode(rules._put(piles, k, drawn), pos + 1) for k in targets) or (
            not targets and not tab.dbl[drawn] and episode(piles, pos + 1)
        )
        if not result and used < 30 and rules._in_trouble(tab, piles, drawn):
            for path, layout in rescues(piles, drawn if tab.dbl[drawn] else -1):
                if episode(layout, pos, used + len(path)):
                    result = True
                    break
        if used == 0:
            memo[piles, pos] = result
        return result

    try:
        return episode(state._piles, 0)
    except SearchLimit:
        return None


def test_bench_results_are_appended_and_reused(tmp_path):
    """scripts/bench_solitaires.py keeps per-deal results in JSON lines and reuses those of
    the same settings (a cut last line and other settings are ignored)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "bench_solitaires.py"
    spec = importlib.util.spec_from_file_location("bench_solitaires", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    cfg = bench.policy_config(bc, "solver", None, 5_000)
    log = bench.ResultLog(tmp_path, "big-clock", "double-6", "solver", cfg)
    r = bench.run_task(("big-clock", {"max_pip": 6}, 3, "solver", None, 5_000))
    assert r["solver"] == bc.solve(BigClockGame(6).new_initial_state(3), node_limit=5_000)
    log.add(r)
    with log.path.open("a") as f:
        f.write('{"seed": 4, "cut')
    again = bench.ResultLog(tmp_path, "big-clock", "double-6", "solver", cfg)
    assert set(again.done) == {3} and again.done[3]["solver"] == r["solver"]
    other = bench.ResultLog(
        tmp_path, "big-clock", "double-6", "solver", bench.policy_config(bc, "solver", None, 9_000)
    )
    assert not other.done
    rows = bench.merge_rows([r, {"seed": 3, "policy": "greedy", "won": False}])
    assert rows == [
        {"seed": 3, "solver": r["solver"], "solver_ms": r["solver_ms"], "greedy": False}
    ]


def test_bench_hint_results_carry_the_hint_version_and_only_cpython_is_timed(tmp_path, monkeypatch):
    """A hint result is reused only while ``HINT_VERSION`` is unchanged, and the summary's
    timings come from CPython results only (a PyPy result counts for the win rate)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "bench_solitaires.py"
    spec = importlib.util.spec_from_file_location("bench_solitaires", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    cfg = bench.policy_config(bc, "hint", None, 5_000, {"max_pip": 6})
    assert cfg["version"] == bc.HINT_VERSION
    log = bench.ResultLog(tmp_path, "big-clock", "double-6", "hint", cfg)
    log.add({"seed": 0, "policy": "hint", "won": True, "hint_ms": [5.0], "quotes": []})
    assert set(bench.ResultLog(tmp_path, "big-clock", "double-6", "hint", cfg).done) == {0}
    monkeypatch.setattr(bc, "HINT_VERSION", bc.HINT_VERSION + 1)
    newer = bench.policy_config(bc, "hint", None, 5_000, {"max_pip": 6})
    assert not bench.ResultLog(tmp_path, "big-clock", "double-6", "hint", newer).done

    def result(seed, policy, python, **kw):
        return {"seed": seed, "policy": policy, "python": python, **kw}

    results = []
    for seed, python, ms in ((0, "CPython", 100.0), (1, "PyPy", 40.0)):
        results += [
            result(seed, "random", python, won=False),
            result(seed, "greedy", python, won=False),
            result(seed, "solver", python, won=True, solver=True, solver_ms=ms),
            result(seed, "hint", python, won=True, hint_ms=[ms], hint_cpu_ms=[ms], quotes=[]),
        ]
    s = bench.summarise("big-clock", "double-6", bench.merge_rows(results))
    assert (s["hint"], s["hint_deals"], s["hint_timed_deals"]) == (2, 2, 1)
    assert s["hint_calls"] == 1 and s["hint_cpu_median_ms"] == 100.0
    assert s["hint_cpu_s_per_deal"] == 0.1 and s["solver_max_ms"] == 100.0


def test_bench_hint_settings_flag_plays_and_files_the_reference_hint(tmp_path, monkeypatch):
    """``--hint-settings`` replaces the whole settings record: the hint searches with it, its
    results are filed under its own config (never mixed with the default's), and a record of
    the wrong length is refused with a usage error, not a trace."""
    import importlib
    import json
    from pathlib import Path

    # importable by name: the benchmark's worker pool pickles run_task by module and name
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "scripts"))
    bench = importlib.import_module("bench_solitaires")
    seen = []
    real_race = bc_hints.race

    def race(state, cands, settings, seed):
        seen.append(settings)
        return real_race(state, cands, settings, seed)

    monkeypatch.setattr(bc_hints, "race", race)
    ref = bc_hints.HintSettings(samples=4, min_samples=4, node_limit=50, node_budget=1_000)
    r = bench.run_task(("big-clock", {"max_pip": 6}, 1, "hint", None, 1_000, None, tuple(ref)))
    assert seen and all(s == ref for s in seen) and r["quotes"]
    args = ["--games", "big-clock", "--sizes", "double-6", "--deals", "1", "--jobs", "1"]
    args += ["--node-limit", "1000", "--out-dir", str(tmp_path)]
    assert bench.main([*args, "--hint-settings", "4,4,50,1000"]) == 0
    (line,) = (tmp_path / "big-clock-double-6-hint.jsonl").read_text().splitlines()
    cfg = json.loads(line)["config"]
    assert cfg == bench.policy_config(bc, "hint", None, 1_000, {"max_pip": 6}, hint_settings=ref)
    assert cfg != bench.policy_config(bc, "hint", None, 1_000, {"max_pip": 6})
    with pytest.raises(SystemExit):
        bench.main([*args, "--hint-settings", "4,4,50"])


def test_other_hint_designs_play_legal_games_and_are_compared_paired():
    """scripts/bench_big_clock_variants.py: chance-node MCTS and the rollout tie-break play a
    whole deal with legal actions only (``apply_action`` raises otherwise) and the same seed
    gives the same game; the McNemar test counts the deals only one side won."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "bench_big_clock_variants.py"
    spec = importlib.util.spec_from_file_location("bench_big_clock_variants", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    a = bench.play_deal(("mcts", 6, 5, {"iters": 60, "c": 0.6}))
    assert a == bench.play_deal(("mcts", 6, 5, {"iters": 60, "c": 0.6})) | {"cpu_ms": a["cpu_ms"]}
    assert isinstance(a["won"], bool) and a["cpu_ms"]
    b = bench.play_deal(("rollout-tiebreak", 6, 5, {"orders": 4}))
    assert isinstance(b["won"], bool) and len(b["cpu_ms"]) >= 6
    state = BigClockGame(6).new_initial_state(5)
    assert bench.mcts_action(state, 30, 1, 0.6) in state.legal_actions()
    assert bench.mcnemar([True, True, False, False], [False, False, False, True])[:2] == (2, 1)
    x, y, p = bench.mcnemar([True] * 10, [False] * 10)
    assert (x, y) == (10, 0) and abs(p - 2 / 1024) < 1e-12


# --- properties ---------------------------------------------------------------------------


def check_rules(state) -> None:
    seen = []
    for _k, pile in state.piles.items():
        for below, above in zip(pile, pile[1:]):
            assert not below.is_double and below.shares_number(above)
        seen += pile
    seen += state.stock + state.set_aside + ([state.drawn] if state.drawn else [])
    ds = state.game.domino_set
    assert sorted(seen) == sorted(t for t in ds.tiles if t != Tile(0, 0))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000), max_pip=st.sampled_from([6, 9, 12]), greedy_share=st.floats(0, 1)
)
def test_random_play_keeps_rules_tiles_and_replays(seed, max_pip, greedy_share):
    game = BigClockGame(max_pip)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    check_rules(state)
    while not state.is_terminal():
        a = bc.greedy_action(state) if rng.random() < greedy_share else bc.random_action(state, rng)
        state.apply_action(a)
        check_rules(state)
        assert state.moves_used <= bc.MAX_MOVES_PER_DRAW
    replay = game.replay(seed, state.history)
    assert replay.piles == state.piles and replay.set_aside == state.set_aside
    assert replay.returns() == state.returns()
    assert state.returns()[0] == (
        1.0 if all(state.top(k) == Tile(k, k) for k in game.slots) else 0.0
    )


def test_a_position_without_its_drawn_tile_gets_no_advice():
    piles = {1: ["1-3"], 2: ["2-6"], 3: ["0-3"], 4: ["0-2"], 5: ["4-5"], 6: ["0-6"]}
    unknown = BigClockGame(6).state_from_position(piles, seed=3)
    assert not unknown.drawn_known and unknown.drawn is not None  # a stand-in from the stock
    h = bc.hint(unknown)
    assert (
        h.action is None
        and h.win_chance is None
        and "which tile did you draw" in h.explanation.lower()
    )
    given = BigClockGame(6).state_from_position(piles, seed=3, drawn="1-2")
    assert given.drawn_known and given.drawn == T("1-2")
    h = bc.hint(given)
    assert h.action in given.legal_actions()
    # once the stand-in is placed, the next tile is a real draw of the sampled stock
    unknown.apply_action(unknown.legal_actions()[0])
    assert unknown.is_terminal() or unknown.drawn_known


# --- the hint's race ----------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_kept_samples():
    """Every test starts with no sampled orders kept from an earlier hint call."""
    bc_hints._SAMPLES.clear()
    yield
    bc_hints._SAMPLES.clear()


def test_clearly_better_is_a_paired_sign_test():
    cb = bc_hints.clearly_better
    assert cb(4, 0) and cb(6, 1) and cb(10, 3)
    assert not cb(3, 0) and not cb(5, 2) and not cb(5, 5) and not cb(0, 4)
    # more disagreements in the same proportion only make the verdict firmer
    assert all(cb(2 * x, 2 * y) for x in range(20) for y in range(20) if cb(x, y))


def _contested(max_pip: int = 6):
    """A deal position with at least three candidate actions."""
    for seed in range(50):
        state = BigClockGame(max_pip).new_initial_state(seed)
        while not state.is_terminal():
            if len(bc_hints._candidates(state)) >= 3 and len(state.stock) > 3:
                return state
            state.apply_action(bc.greedy_action(state))
    raise AssertionError("no contested position")


def _fake_search(answer):
    """An ``evaluate_counted`` whose answer for a candidate is ``answer(candidate index)``."""
    calls = []

    def fake(det, actions, limit, memo=None):
        calls.append(len(actions))
        return [answer(index[a]) for a in actions], 10 * len(actions)

    index: dict = {}
    return fake, calls, index


def test_the_race_drops_a_clearly_worse_candidate_and_follows_the_winner(monkeypatch):
    state = _contested()
    cands = bc_hints._candidates(state)
    fake, calls, index = _fake_search(lambda i: i == 2)  # only the third candidate ever wins
    index.update({a: i for i, a in enumerate(cands)})
    monkeypatch.setattr(bc_hints, "evaluate_counted", fake)
    cfg = bc_hints.HintSettings(samples=40, min_samples=4, node_limit=500, node_budget=10**6)
    h = bc.hint(state, settings=cfg)
    assert h.action == cands[2]
    # after 4 paired samples the winner is 4-0 ahead of every rival: they drop, the race stops
    assert calls == [len(cands)] * 4
    assert h.search["won"] == h.search["finished"] == 4 and h.search["raw"] == 1.0
    assert h.ranking[0] == (cands[2], 1.0)


def test_the_race_stops_where_the_choice_does_not_matter(monkeypatch):
    state = _contested()
    cands = bc_hints._candidates(state)
    fake, calls, index = _fake_search(lambda i: True)  # every candidate wins every sample
    index.update({a: i for i, a in enumerate(cands)})
    monkeypatch.setattr(bc_hints, "evaluate_counted", fake)
    cfg = bc_hints.HintSettings(samples=40, min_samples=5, node_limit=500, node_budget=10**6)
    h = bc.hint(state, settings=cfg)
    assert len(calls) == 5 and h.action == cands[0]  # greedy's choice breaks the tie


def test_unfinished_searches_are_no_wins_and_quote_nothing(monkeypatch):
    state = _contested()
    cands = bc_hints._candidates(state)
    fake, calls, index = _fake_search(lambda i: None)
    index.update({a: i for i, a in enumerate(cands)})
    monkeypatch.setattr(bc_hints, "evaluate_counted", fake)
    h = bc.hint(state)
    assert h.win_chance is None and h.search["raw"] is None and h.search["finished"] == 0
    assert "unknown" in h.explanation and all(r != r for _a, r in h.ranking)  # nan


@pytest.mark.parametrize("max_pip", [6, 9])
def test_the_hint_keeps_to_its_node_budget(max_pip):
    state = _contested(max_pip)
    cands = bc_hints._candidates(state)
    cfg = bc_hints.HintSettings(samples=64, min_samples=8, node_limit=2000, node_budget=3000)
    h = bc.hint(state, settings=cfg)
    assert h.action in cands
    assert 0 < h.search["nodes"] <= cfg.node_budget + bc_hints.MIN_NODE_LIMIT * len(cands)
    bc_hints._SAMPLES.clear()  # forget the samples and proofs of this draw
    again = bc.hint(state, settings=cfg)  # same seed, same hint
    assert (again.action, again.search) == (h.action, h.search)


def test_the_calls_of_one_draw_share_samples_and_proofs():
    state = _contested()
    cfg = bc_hints.HintSettings(samples=12, min_samples=12, node_limit=50_000, node_budget=10**7)
    first = bc.hint(state, settings=cfg, seed=3)
    assert first.search["unknown"] == 0  # every search finished: the answers are proofs
    # another seed, the same draw: the same sampled orders, answered from the kept proofs
    again = bc.hint(state, settings=cfg, seed=99)
    assert (again.action, again.search["won"]) == (first.action, first.search["won"])
    assert again.search["nodes"] < first.search["nodes"] / 4
    bc_hints._SAMPLES.clear()
    fresh = bc.hint(state, settings=cfg, seed=99)  # forgotten: searched afresh
    assert fresh.search["nodes"] > 4 * again.search["nodes"]


def _expected_orders(state, seed: int, n: int) -> list[tuple[int, ...]]:
    """The first ``n`` sampled orders of a draw whose first hint call had ``seed``."""
    rng = random.Random(seed)
    return [tuple(state.determinize(random.Random(rng.getrandbits(64)))._stock) for _ in range(n)]


def test_a_later_call_of_one_draw_extends_the_samples_with_new_orders():
    state = _contested()
    few = bc_hints.HintSettings(samples=4, min_samples=4, node_limit=300, node_budget=10**6)
    more = few._replace(samples=10, min_samples=10)
    bc.hint(state, settings=few, seed=5)
    bc.hint(state, settings=more, seed=5)  # the same seed again, as the server asks
    (pool,) = bc_hints._SAMPLES.values()
    orders = [o for o, _memo in pool.orders]
    assert orders == _expected_orders(state, 5, 10)
    assert len(set(orders)) == 10  # no order sampled twice


def test_threads_hinting_one_draw_at_once_add_each_order_once():
    state = _contested()
    cfg = bc_hints.HintSettings(samples=16, min_samples=16, node_limit=300, node_budget=10**6)
    with ThreadPoolExecutor(4) as pool_:
        hints = list(pool_.map(lambda _: bc.hint(state.clone(), settings=cfg, seed=7), range(4)))
    (pool,) = bc_hints._SAMPLES.values()
    assert [o for o, _memo in pool.orders] == _expected_orders(state, 7, 16)
    cands = bc_hints._candidates(state)
    assert all(h.action in cands for h in hints)
