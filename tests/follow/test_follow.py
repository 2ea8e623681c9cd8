"""Following a game from camera frames: tracking, plays, flags, automatic scores, the CLI."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import numpy as np
import pytest

from companion.follow import Follower
from engine.draw100.line import LineOfPlay
from engine.tiles import Tile
from vision.render.games import camera_labels
from vision.render.layouts import _line_placements
from vision.render.scene import Placement, make_camera
from vision.tracking import Tracker
from vision.types import TileDetection


def _labels(placements: list[Placement], seed: int = 0, size=(1024, 768)) -> list[TileDetection]:
    cam = make_camera(
        np.random.default_rng(seed),
        placements or [Placement(Tile(0, 0))],
        size,
        fill=0.7,
        rotation_deg=10.0,
        tilt=0.05,
    )
    return camera_labels(cam, placements)


def _shaken(
    dets: list[TileDetection], rng: np.random.Generator, px: float = 3.0
) -> list[TileDetection]:
    d = rng.normal(0, px, 2).astype(np.float32)
    return [
        TileDetection(t.corners + d, t.confidence, pips=t.pips, pip_confidence=t.pip_confidence)
        for t in dets
    ]


def _grid_placements(tiles: list[Tile]) -> list[Placement]:
    return [
        Placement(t, False, ((k % 4) * 2.4, -(k // 4) * 1.4), 0.0, False)
        for k, t in enumerate(tiles)
    ]


def test_tracker_ignores_a_hand_over_the_table():
    rng = np.random.default_rng(1)
    tiles = [
        Tile(a, b) for a, b in ((0, 1), (2, 3), (4, 5), (1, 6), (3, 3), (2, 5), (0, 6), (4, 4))
    ]
    base = _labels(_grid_placements(tiles))
    tr = Tracker(steady_frames=3)
    changes = [tr.update(_shaken(base, rng)).changed for _ in range(4)]
    assert changes == [False, False, True, False]
    assert {Tile(*d.pips) for d in tr.stable} == set(tiles)
    # a hand hides three tiles for two frames, then a frame misreads one tile and misses another
    hidden = [d for d in base if Tile(*d.pips) not in {Tile(0, 1), Tile(2, 3), Tile(4, 5)}]
    glitch = [
        TileDetection(
            d.corners,
            0.9,
            pips=(6, 6) if Tile(*d.pips) == Tile(3, 3) else d.pips,
            pip_confidence=0.95,
        )
        for d in base[:3] + base[4:]
    ]
    for frame in (hidden, hidden, glitch, base, base):
        up = tr.update(_shaken(frame, rng))
        assert not up.changed
    assert {Tile(*d.pips) for d in tr.stable} == set(tiles)
    # a tile really removed is gone after three frames
    gone = [d for d in base if Tile(*d.pips) != Tile(4, 4)]
    assert [tr.update(_shaken(gone, rng)).changed for _ in range(3)] == [False, False, True]
    assert Tile(4, 4) not in {Tile(*d.pips) for d in tr.stable}


def test_tracker_takes_a_moved_tile_but_not_camera_motion():
    tiles = [Tile(0, 1), Tile(2, 3), Tile(4, 5), Tile(1, 6), Tile(3, 3), Tile(2, 5)]
    pl = _grid_placements(tiles)
    tr = Tracker(steady_frames=2)
    for _ in range(2):
        tr.update(_labels(pl))
    # the whole view turns, shifts and zooms (the phone moved): no change
    cam2 = make_camera(
        np.random.default_rng(0), pl, (1024, 768), fill=0.6, rotation_deg=25.0, tilt=0.05
    )
    turned = [
        TileDetection(
            cam2.project(p.plane_corners()).astype(np.float32),
            0.9,
            pips=p.shown(),
            pip_confidence=0.95,
        )
        for p in pl
    ]
    assert not any(tr.update(turned).changed for _ in range(3))
    # one tile slides two tile widths: a change
    pl[2] = Placement(pl[2].tile, False, (pl[2].centre[0], pl[2].centre[1] - 3.0), 0.0, False)
    moved = _labels(pl)
    assert [tr.update(moved).changed for _ in range(2)] == [False, True]


def _feed(f: Follower, dets, n: int = 3) -> list[dict]:
    out = []
    for _ in range(n):
        out += f.feed(dets)
    return out


def test_tableaux_play_found_and_scored():
    # starter 2-3 upright on cells (0,0)=2 (1,0)=3; 1-4 lies alongside, its 1... a side play
    # needs the touching number equal: 3-5 with its 3 beside the 3 (side play, 0 points), then
    # 2-6 closing the corner over the 2 and the 3's neighbour
    from engine.tableaux.board import Board

    b = Board()
    b.place((0, 0), 2, (1, 0), 3)
    side = next(m for m in b.placements([Tile(3, 5)]) if m.kind == "side")
    b.place(side.low_cell, 3, side.high_cell, 5)
    corner = next(
        (
            m
            for t in (Tile(a, c) for a in range(7) for c in range(a, 7))
            if t not in (Tile(2, 3), Tile(3, 5))
            for m in b.placements([t])
            if m.kind == "corner"
        ),
        None,
    )
    assert corner is not None

    def place(tile: Tile, c_low, c_high) -> Placement:
        (r0, q0), (r1, q1) = c_low, c_high
        ang = float(np.degrees(np.arctan2(-(r1 - r0), q1 - q0)))
        return Placement(tile, False, ((q0 + q1) / 2 * 1.03, -(r0 + r1) / 2 * 1.03), ang, False)

    pl = [place(Tile(2, 3), (0, 0), (1, 0))]
    f = Follower("tableaux", first_player=1)
    assert _feed(f, _labels(pl))[-1]["type"] == "hand_start"
    pl.append(place(Tile(3, 5), side.low_cell, side.high_cell))
    got = [r for r in _feed(f, _labels(pl)) if r["type"] == "play"]
    assert [(r["player"], r["tile"], r["kind"], r["points"]) for r in got] == [
        (1, "3-5", "side", 0)
    ]
    pl.append(place(corner.tile, corner.low_cell, corner.high_cell))
    recs = _feed(f, _labels(pl))
    play = next(r for r in recs if r["type"] == "play")
    score = next(r for r in recs if r["type"] == "score")
    assert (play["player"], play["tile"], play["kind"]) == (0, str(corner.tile), "corner")
    assert score == {**score, "source": "camera", "player": 0, "points": corner.points}
    assert f.summary()["scores"] == [corner.points, 0]


def test_draw_game_illegal_play_is_flagged_not_accepted():
    line = LineOfPlay()
    line.place_first(Tile(5, 5))
    line.attach(Tile(5, 1), "0.end_a")
    pl = _line_placements(line, random.Random(3), bend=0.0)
    lead, legal_spot = pl
    f = Follower("draw100", players=2, first_player=0)
    assert [r["tile"] for r in _feed(f, _labels([lead])) if r["type"] == "play"] == ["5-5"]
    # 6-3 put where 5-1 would go: its 6 touches the 5
    wrong = Placement(Tile(6, 3), False, legal_spot.centre, legal_spot.angle_deg, True)
    recs = _feed(f, _labels([lead, wrong]), 4)
    assert not [r for r in recs if r["type"] == "play"]
    flags = [r for r in recs if r["type"] == "flag"]
    assert [r["message"] for r in flags] == ["6-3 does not match the 5 it touches"]
    # taken back and the right tile played: accepted, by the next player
    recs = _feed(f, _labels([lead, legal_spot]), 4)
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(1, "1-5")]


def _first_blocked_hand(players: int):
    """An engine game whose first hand ends blocked: (final line, hands, last player, result)."""
    from engine.draw100 import Draw100Game
    from engine.draw100.game import Draw, Play

    for seed in range(3000):  # about one deal in 200 blocks with 4 players and random play
        st = Draw100Game(num_players=players).new_initial_state(seed)
        rs = random.Random(seed)
        line, hands, last = st.line.copy(), [list(h) for h in st.hands], None
        while st.round_no == 1 and not st.is_terminal():
            a, p = rs.choice(st.legal_actions()), st.player
            drawn = st.boneyard[-1] if isinstance(a, Draw) else None
            st.apply_action(a)
            if isinstance(a, Play):
                line.place_first(a.tile) if a.end is None else line.attach(a.tile, a.end)
                hands[p].remove(a.tile)
                last = p
            elif isinstance(a, Draw):
                hands[p].append(drawn)
        if st.rounds[0].kind == "blocked" and st.rounds[0].winner is not None:
            return line, hands, last, st.rounds[0]
    raise AssertionError("no blocked hand in 3000 deals")


def test_draw_game_blocked_hand_scored_from_the_shown_tiles():
    line, hands, last, result = _first_blocked_hand(4)
    f = Follower("draw100", players=4)
    r = f._rules
    r.line, r.node, r.last_player, r.phase = (
        line,
        {n.tile: n.id for n in line.nodes},
        last,
        "reveal",
    )
    out = []
    for k in range(1, 5):  # each player shows the tiles left, from the left of the last player
        r.group = set(hands[(last + k) % 4])
        out += r._close_group()
    assert [e["player"] for e in out if e["type"] == "hand_shown"] == [
        (last + k) % 4 for k in (1, 2, 3, 4)
    ]
    scored = next(e for e in out if e["type"] == "hand_scored")
    assert (scored["kind"], scored["winner"], scored["points"]) == (
        "blocked",
        result.winner,
        result.points,
    )
    assert scored["hand_pips"] == list(result.hand_pips)
    want = [0, 0, 0, 0]
    want[result.winner] = result.points
    assert f.summary()["scores"] == want
    assert [e for e in out if e["type"] == "score"][0]["source"] == "camera"


def test_luzon_pair_removed_and_illegal_pair_flagged():
    from engine.luzon import LuzonGame
    from vision.render.games import _luzon_placements

    st = LuzonGame().new_initial_state(7)
    f = Follower("luzon")
    _feed(f, _labels(_luzon_placements(st, 1)))
    legal = next(a for a in st.legal_actions() if hasattr(a, "a"))
    after = st.clone()
    after.apply_action(legal)
    recs = _feed(f, _labels(_luzon_placements(after, 1)))
    assert [r["action"] for r in recs if r["type"] == "play"] == [str(legal)]
    assert next(r for r in recs if r["type"] == "progress")["removed"] == 2
    # two free tiles that do not total 12 taken away
    free = after.free_tiles()
    a, b = next((x, y) for i, x in enumerate(free) for y in free[i + 1 :] if x.pips + y.pips != 12)
    bad = after.clone()
    for t in (a, b):
        col = next(c for c in bad.columns if c and c[-1] == t)
        col.pop()
    bad.columns = [c for c in bad.columns if c]
    recs = _feed(f, _labels(_luzon_placements(bad, 1)))
    assert not [r for r in recs if r["type"] == "play"]
    assert [r["message"] for r in recs if r["type"] == "flag"] == [
        f"{min(a, b)} and {max(a, b)} do not total 12 pips"
    ]


def test_luzon_deal_with_no_legal_play_is_a_lost_game_at_once():
    # a deal where no two free tiles total 12 and no move helps (RULES.md section 3): the first
    # view already ends the game, lost with nothing removed, as a rendered game of seed 21 did
    # (luzon-s21-1; the follower said nothing before)
    from engine.luzon import LuzonGame
    from vision.render.games import _luzon_placements

    g = LuzonGame()
    st = next(s for s in map(g.new_initial_state, range(50)) if s.is_terminal())
    f = Follower("luzon")
    recs = _feed(f, _labels(_luzon_placements(st, 1)))
    assert [(r["won"], r["removed"]) for r in recs if r["type"] == "result"] == [(False, 0)]
    assert f.summary()["over"] and f.summary()["won"] is False
    live = next(s for s in map(g.new_initial_state, range(50)) if not s.is_terminal())
    f = Follower("luzon")
    assert not [r for r in _feed(f, _labels(_luzon_placements(live, 1))) if r["type"] == "result"]


def test_luzon_reserve_and_columns_read_in_each_others_place():
    # the last column pair removed leaves two reserve tiles, which the reader takes for a
    # column (nothing else on the table shows which tiles are the reserve): still that
    # removal, and the game is lost (reserve tiles never pair with each other, RULES.md 3)
    from types import SimpleNamespace

    from companion.follow.luzon import _LuzonFollow
    from engine.luzon import LuzonGame

    g = LuzonGame()
    t = Tile.parse
    rules = _LuzonFollow(None)
    rules.state = g.state_from_position([[t("0-4")], [t("4-4")]], [t("1-5"), t("2-4")], 0, False)

    def view(columns, reserve):
        return SimpleNamespace(
            layout={
                "columns": [[{"tile": x} for x in c] for c in columns],
                "reserve": [{"tile": x} for x in reserve],
            },
            state=None,
            problems=[],
        )

    recs = rules.on_stable(view([["1-5", "2-4"]], []), [], 1)
    assert [r["action"] for r in recs if r["type"] == "play"] == ["remove 0-4 + 4-4"]
    assert [(r["won"], r["left"]) for r in recs if r["type"] == "result"] == [(False, 2)]
    # a view where the tiles do not add up to any legal removal is still no play
    rules = _LuzonFollow(None)
    rules.state = g.state_from_position([[t("0-4")], [t("4-4")]], [t("1-5"), t("2-4")], 0, False)
    recs = rules.on_stable(view([["1-5", "4-4"]], []), [], 1)
    assert not [r for r in recs if r["type"] == "play"]
    # the column 2-6 2-2 read as the reserve and the reserve as a column: the same tiles,
    # nothing taken and the followed columns kept; then 2-2 moved to a column of its own (not
    # told apart in that reading) and removed with 2-6: the move is the one that frees 2-6
    rules = _LuzonFollow(None)
    rules.state = g.state_from_position([[t("2-6"), t("2-2")]], [t("1-1"), t("5-5")], 0, False)
    assert rules.on_stable(view([["5-5", "1-1"]], ["2-6", "2-2"]), [], 1) == []
    assert rules.state.columns == [[t("2-6"), t("2-2")]]
    recs = rules.on_stable(view([["5-5", "1-1"]], []), [], 2)
    assert [r["action"] for r in recs if r["type"] == "play"] == [
        "move 2-2 to a new column",
        "remove 2-2 + 2-6",
    ]
    assert [(r["won"], r["left"]) for r in recs if r["type"] == "result"] == [(False, 2)]
    # 5-6 under 2-4 unseen (a hand) with 3-3 removed: no flag of 3-3 with 5-6, no play; the
    # next view shows the removal of 2-4 with 3-3
    rules = _LuzonFollow(None)
    cols = [[t("5-6"), t("2-4")], [t("3-3")], [t("0-1")]]
    rules.state = g.state_from_position(cols, [t("1-1"), t("0-0")], 0, False)
    assert rules.on_stable(view([["2-4"], ["0-1"]], ["1-1", "0-0"]), [], 1) == []
    recs = rules.on_stable(view([["5-6"], ["0-1"]], ["1-1", "0-0"]), [], 2)
    assert [r["action"] for r in recs if r["type"] == "play"] == ["remove 2-4 + 3-3"]
    assert not [r for r in recs if r["type"] == "flag"]


def _clock_game():
    from engine.catalog import GAMES, Shape

    return next(g.name for g in GAMES.values() if g.shape is Shape.RING)


def test_big_clock_placement_rescue_and_illegal_placement():
    from engine.big_clock import BigClockGame
    from engine.big_clock.rules import Move, Place
    from vision.render.games import _clock_placements

    game = BigClockGame(max_pip=6)
    deal = {1: ["1-5"], 2: ["0-2"], 3: ["3-6"], 4: ["1-1"], 5: ["2-5"], 6: ["4-6"]}
    st = game.state_from_position(deal, drawn="1-2", seed=3)
    f = Follower(_clock_game())
    assert [r["type"] for r in _feed(f, _labels(_clock_placements(st, 1)))] == ["stable", "note"]
    # the drawn 1-2 appears on slot 2: a placement
    st.apply_action(Place(2))
    recs = _feed(f, _labels(_clock_placements(st, 1)))
    assert [(r["action"], r["tile"]) for r in recs if r["type"] == "play"] == [
        ("put 1-2 on slot 2 (on 0-2)", "1-2")
    ]
    assert next(r for r in recs if r["type"] == "progress")["home"] == 0
    # the double 1-1 in trouble on slot 4 is moved home to slot 1: slot 4 is left blank
    st.apply_action(Move(4, 1))
    recs = _feed(f, _labels(_clock_placements(st, 1)))
    assert [r["action"] for r in recs if r["type"] == "play"] == [
        "move 1-1 from slot 4 home to slot 1"
    ]
    assert next(r for r in recs if r["type"] == "progress")["home"] == 1
    # 3-5 put on slot 3 while slot 4 is blank: flagged, not taken
    piles = {k: v for k, v in st.piles.items()}
    bad = game.state_from_position({**piles, 3: piles[3] + [Tile(3, 5)]}, drawn="4-5")
    recs = _feed(f, _labels(_clock_placements(bad, 1)))
    assert not [r for r in recs if r["type"] == "play"]
    assert [(r["tile"], r["message"]) for r in recs if r["type"] == "flag"] == [
        ("3-5", "3-5 must fill a blank slot first (4)")
    ]
    # taken back and put on the blank slot: accepted
    good = game.state_from_position({**piles, 4: [Tile(3, 5)]}, drawn="4-5")
    recs = _feed(f, _labels(_clock_placements(good, 1)))
    assert [r["action"] for r in recs if r["type"] == "play"] == ["fill blank slot 4 with 3-5"]
    assert f.summary()["plays"] == 3 and f.summary()["flags"] == 1
    assert f.summary()["home"] == 1 and not f.summary()["over"]


def test_big_clock_placements_missed_between_views_and_a_misread_taken_back():
    from engine.big_clock import BigClockGame
    from vision.render.games import _clock_placements

    game = BigClockGame(max_pip=6)
    deal = {1: ["1-5"], 2: ["0-2"], 3: ["3-6"], 4: ["1-4"], 5: ["2-5"], 6: ["4-6"]}
    piles = {k: [Tile.parse(t) for t in v] for k, v in deal.items()}

    def view(**on):  # the clock with a tile put on some slots ("s2": "2-3")
        extra = {int(k[1:]): [Tile.parse(t)] for k, t in on.items()}
        return _labels(
            _clock_placements(
                game.state_from_position(
                    {k: p + extra.get(k, []) for k, p in piles.items()}, seed=1
                ),
                1,
            )
        )

    f = Follower(_clock_game())
    _feed(f, view())
    # the view after 2-3 went on slot 2 was never steady: the next one shows 3-4 on slot 4 too
    recs = _feed(f, view(s2="2-3", s4="3-4"))
    assert [r["action"] for r in recs if r["type"] == "play"] == [
        "put 2-3 on slot 2 (on 0-2)",
        "put 3-4 on slot 4 (on 1-4)",
    ]
    assert not [r for r in recs if r["type"] in ("question", "flag")]
    # 5-6 on slot 1 read with 0-3 put on slot 2 (a placement too, as far as that view tells),
    # then 1-5 shows on slot 1 again: asked once (the 5-6 may be in a hand, moved), and when
    # the next view (4-5 put on slot 4) still shows 1-5, the 5-6 was a misread: withdrawn
    piles = {**piles, 2: piles[2] + [Tile(2, 3)], 4: piles[4] + [Tile(3, 4)]}
    recs = _feed(f, view(s1="5-6", s2="0-3"))
    assert [r["tile"] for r in recs if r["type"] == "play"] == ["5-6", "0-3"]
    recs = _feed(f, view(s2="0-3"))
    assert [r["type"] for r in recs if r["type"] != "stable"] == ["question"]
    recs = _feed(f, view(s2="0-3", s4="4-5"))
    assert [(r["type"], r["tile"]) for r in recs if "play" in r["type"]] == [
        ("play_withdrawn", "5-6"),
        ("play", "4-5"),
    ]
    # followed on from the clock as it is
    recs = _feed(f, view(s1="5-6", s2="0-3", s4="4-5"))
    assert [r["action"] for r in recs if r["type"] == "play"] == ["put 5-6 on slot 1 (on 1-5)"]
    assert f.summary()["questions"] == 1 and f.summary()["flags"] == 0
    assert f.summary()["plays"] == 5  # 2-3, 3-4, 0-3, 4-5, 5-6 (the misread 5-6 withdrawn)


def test_big_clock_top_misread_as_a_placement_is_withdrawn_when_its_tile_turns_up():
    from engine.big_clock import BigClockGame
    from vision.render.games import _clock_placements

    game = BigClockGame(max_pip=6)
    deal = {1: ["1-5"], 2: ["0-2"], 3: ["3-6"], 4: ["1-4"], 5: ["2-5"], 6: ["4-6"]}

    def view(**on):  # the clock with tiles put on some slots ("s2": "2-3 0-4")
        piles = {k: [Tile.parse(t) for t in v] for k, v in deal.items()}
        for k, tiles in on.items():
            piles[int(k[1:])] += [Tile.parse(t) for t in tiles.split()]
        return _labels(_clock_placements(game.state_from_position(piles, seed=1), 1))

    f = Follower(_clock_game())
    _feed(f, view())
    # the 0-2 on slot 2 is read as 0-3 for a steady view: a placement as far as it tells
    recs = _feed(f, view(s2="0-3"))
    assert [r["action"] for r in recs if r["type"] == "play"] == ["put 0-3 on slot 2 (on 0-2)"]
    # 2-3 put on slot 2 (on the 0-2, taken for on the 0-3), then three placements elsewhere
    recs = _feed(f, view(s2="2-3"))
    assert [r["action"] for r in recs if r["type"] == "play"] == ["put 2-3 on slot 2 (on 0-3)"]
    _feed(f, view(s2="2-3", s1="5-6"))
    _feed(f, view(s2="2-3", s1="5-6", s5="0-5"))
    _feed(f, view(s2="2-3", s1="5-6", s5="0-5", s6="0-4"))
    # the 0-3 turns up on slot 3: asked once, and when the next view still shows it there, the
    # 0-3 under 2-3 was the 0-2 misread: withdrawn with the play on it, which stands on 0-2
    shown = {"s2": "2-3", "s1": "5-6", "s5": "0-5", "s6": "0-4", "s3": "0-3"}
    recs = _feed(f, view(**shown))
    assert [r["type"] for r in recs if r["type"] != "stable"] == ["question"]
    recs = _feed(f, view(**shown, s4="4-5"))
    assert [(r["type"], r["action"]) for r in recs if "play" in r["type"]] == [
        ("play_withdrawn", "put 0-3 on slot 2 (on 0-2)"),
        ("play_withdrawn", "put 2-3 on slot 2 (on 0-3)"),
        ("play", "put 2-3 on slot 2 (on 0-2)"),
        ("play", "put 0-3 on slot 3 (on 3-6)"),
        ("play", "put 4-5 on slot 4 (on 1-4)"),
    ]
    assert f.summary()["plays"] == 6 and f.summary()["flags"] == 0


def test_big_clock_set_aside_and_give_up_taps():
    from engine.big_clock import BigClockGame
    from vision.render.games import _clock_placements

    game = BigClockGame(max_pip=6)
    # every slot home but slot 6 (3-6 on top): a tile without a 6 fits nowhere
    deal = {1: ["1-1"], 2: ["2-2"], 3: ["3-3"], 4: ["4-4"], 5: ["5-5"], 6: ["3-6"]}
    f = Follower(_clock_game())
    _feed(f, _labels(_clock_placements(game.state_from_position(deal, seed=1), 1)))
    assert f.summary()["home"] == 5
    recs = f.tap("pass")  # the drawn tile fits nowhere: set aside
    assert [r["type"] for r in recs] == ["note", "progress"]
    # left: the set minus 0-0, the clock and the tile set aside; removed: that tile
    assert (recs[1]["left"], recs[1]["removed"]) == (27 - 6 - 1, 1)
    # giving up: the only double left, 6-6, would go on 3-6, so no drawn double is stuck
    recs = f.tap("done")
    assert [r["type"] for r in recs] == ["flag"]
    assert recs[0]["message"] == "cannot give up: no drawn double could be in trouble"
    assert not f.summary()["over"]


def test_big_clock_stuck_double_ends_the_game_on_done():
    from engine.big_clock import BigClockGame
    from vision.render.games import _clock_placements

    game = BigClockGame(max_pip=6)
    # 6-6 has no home: slot 6 holds 2-2 in trouble and no top shows a 6 or leaves a move
    deal = {1: ["1-1"], 2: ["2-5", "5-5"], 3: ["3-3"], 4: ["4-4"], 5: ["0-5"], 6: ["2-6", "2-2"]}
    f = Follower(_clock_game())
    _feed(f, _labels(_clock_placements(game.state_from_position(deal, seed=1), 1)))
    recs = f.tap("done")
    assert recs[-1]["type"] == "result" and recs[-1]["won"] is False
    # followed from this view: the tiles under the tops are unseen, so counted as left
    assert (recs[-1]["removed"], recs[-1]["left"]) == (0, 27 - 6)
    assert f.summary()["over"] and f.summary()["won"] is False
    # a second "done" (two phones, or a tap after the last set-aside ended the game) is no
    # question: the game is over already
    recs = f.tap("done")
    assert [(r["type"], r["message"]) for r in recs] == [
        ("note", "the game is over already (lost)")
    ]


def test_follow_rejects_unknown_game_and_taps():
    with pytest.raises(ValueError):
        Follower("checkers")
    f = Follower("draw100", players=3)
    with pytest.raises(ValueError):
        f.tap("player", 5)
    with pytest.raises(ValueError):
        f.tap("shout")


def test_cli_follows_a_short_rendered_sequence(tmp_path, capsys):
    import cv2

    from companion.cli import main
    from engine.luzon import LuzonGame
    from vision.render.games import _luzon_placements
    from vision.render.scene import render_scene
    from vision.render.styles import random_style

    st = LuzonGame().new_initial_state(11)
    action = next(a for a in st.legal_actions() if hasattr(a, "a"))
    after = st.clone()
    after.apply_action(action)
    rng = np.random.default_rng(5)
    style = random_style(rng, max_pip=6)
    paths = []
    for k, pos in enumerate((st, after)):
        pl = _luzon_placements(pos, 2)
        cam = make_camera(rng, pl, (1024, 768), fill=0.75, rotation_deg=5.0, tilt=0.03)
        img = render_scene(pl, rng, style, (1024, 768), camera=cam, clutter=0, effects=0.3).image
        for j in range(2):
            p = tmp_path / f"f{k}{j}.png"
            cv2.imwrite(str(p), np.roll(img, j * 2, axis=1))
            paths.append(str(p))
    assert main(["follow", *paths, "--game", "luzon", "--steady-frames", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    plays = [e for e in out["events"] if e["type"] == "play"]
    assert [e["action"] for e in plays] == [str(action)]
    progress = [e for e in out["events"] if e["type"] == "progress"]
    assert progress and progress[-1]["removed"] == out["summary"]["removed"] >= 2
    assert out["summary"]["frames"] == 4
    # a bad file is a clear error, not a trace
    assert main(["follow", str(tmp_path / "missing.png"), "--game", "luzon"]) == 1


def test_tableaux_a_tile_not_seen_is_a_question_on_it_not_a_stall():
    from engine.tableaux.board import Board

    b = Board()
    b.place((0, 0), 2, (1, 0), 3)
    side = next(m for m in b.placements([Tile(3, 5)]) if m.kind == "side")
    b.place(side.low_cell, 3, side.high_cell, 5)

    def place(tile: Tile, c_low, c_high) -> Placement:
        (r0, q0), (r1, q1) = c_low, c_high
        ang = float(np.degrees(np.arctan2(-(r1 - r0), q1 - q0)))
        return Placement(tile, False, ((q0 + q1) / 2 * 1.03, -(r0 + r1) / 2 * 1.03), ang, False)

    nxt = next(
        m
        for t in (Tile(a, c) for a in range(7) for c in range(a, 7))
        if t not in (Tile(2, 3), Tile(3, 5))
        for m in b.placements([t])
        if not m.continues
    )
    pl = [place(Tile(2, 3), (0, 0), (1, 0)), place(Tile(3, 5), side.low_cell, side.high_cell)]
    f = Follower("tableaux", first_player=0)
    _feed(f, _labels(pl[:1]))
    _feed(f, _labels(pl))
    b.place(nxt.low_cell, nxt.tile.low, nxt.high_cell, nxt.tile.high)
    third = place(nxt.tile, nxt.low_cell, nxt.high_cell)
    fourth = next(
        m
        for t in (Tile(a, c) for a in range(7) for c in range(a, 7))
        if t not in (Tile(2, 3), Tile(3, 5), nxt.tile)
        for m in b.placements([t])
    )
    _feed(f, _labels(pl + [third]))
    # the starter hidden (a hand resting on it): no question in the first view; still hidden
    # while the next tile is played: the play is taken, the starter asked about once and kept
    recs = _feed(f, _labels([pl[1], third]))
    assert not [r for r in recs if r["type"] in ("question", "play", "flag")]
    view = [pl[1], third, place(fourth.tile, fourth.low_cell, fourth.high_cell)]
    recs = _feed(f, _labels(view))
    assert [r["tile"] for r in recs if r["type"] == "play"] == [str(fourth.tile)]
    asked = [r for r in recs if r["type"] == "question"]
    assert len(asked) == 1 and "2-3 no longer seen" in asked[0]["message"]
    assert Tile(2, 3) in f._rules.tiles


def test_tableaux_hand_ends_only_when_the_next_hand_shows():
    # a starter missed for a few frames (an empty view) while the first play lands, then seen
    # again: the same hand goes on; a table cleared and a new starter that was a tile of the
    # old tableau: the hand ends when the next tile is played on that starter
    from engine.tableaux.board import Board

    def place(tile: Tile, c_low, c_high, shift=0.0) -> Placement:
        (r0, q0), (r1, q1) = c_low, c_high
        ang = float(np.degrees(np.arctan2(-(r1 - r0), q1 - q0)))
        return Placement(
            tile, False, ((q0 + q1) / 2 * 1.03 + shift, -(r0 + r1) / 2 * 1.03), ang, False
        )

    b = Board()
    b.place((0, 0), 2, (1, 0), 3)
    side = next(m for m in b.placements([Tile(3, 5)]) if m.kind == "side")
    starter = place(Tile(2, 3), (0, 0), (1, 0))
    play = place(Tile(3, 5), side.low_cell, side.high_cell)
    f = Follower("tableaux", first_player=1)
    assert _feed(f, _labels([starter]))[-1]["type"] == "hand_start"
    recs = _feed(f, _labels([])) + _feed(f, _labels([play]))
    assert not [r for r in recs if r["type"] in ("hand_end", "hand_start", "play")]
    assert [r["tile"] for r in recs if r["type"] == "question"] == ["3-5"]
    recs = _feed(f, _labels([starter, play]))
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(1, "3-5")]
    assert f.summary()["hand"] == 1
    # the hand over: the table cleared, 3-5 drawn as the next starter, 5-1 played on it
    nb = Board()
    nb.place((0, 0), 3, (1, 0), 5)
    first = next(m for m in nb.placements([Tile(1, 5)]) if m.kind == "side")
    new_starter = place(Tile(3, 5), (0, 0), (1, 0), shift=4.0)
    recs = _feed(f, _labels([])) + _feed(f, _labels([new_starter]))
    assert not [r for r in recs if r["type"] in ("hand_end", "play")]
    recs = _feed(f, _labels([new_starter, place(Tile(1, 5), first.low_cell, first.high_cell, 4.0)]))
    kinds = [r["type"] for r in recs if r["type"] in ("hand_end", "hand_start", "play")]
    assert kinds == ["hand_end", "hand_start", "play"]
    # the hand ended 0-0: the player who did not start it (seat 0) starts the next
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(0, "1-5")]
    assert f.summary()["hand"] == 2


def test_luzon_columns_read_upside_down_are_the_same_table():
    # with the reserve gone nothing marks which end of the columns is the top: a reader may take
    # the view turned half round; the follower still finds the play
    from types import SimpleNamespace

    from companion.follow.luzon import _LuzonFollow
    from engine.luzon import LuzonGame

    st = LuzonGame().new_initial_state(7)
    rules = _LuzonFollow(None)
    rules.state = st.clone()
    legal = next(a for a in st.legal_actions() if hasattr(a, "a"))
    after = st.clone()
    after.apply_action(legal)

    def view(columns):
        return SimpleNamespace(
            layout={
                "columns": [[{"tile": str(t)} for t in c] for c in columns],
                "reserve": [{"tile": str(t)} for t in after.reserve],
            },
            state=None,
            problems=[],
        )

    recs = rules.on_stable(view([c[::-1] for c in after.columns if c]), [], 10)
    assert [r["action"] for r in recs if r["type"] == "play"] == [str(legal)]
    # the same table read the right way up next: nothing changed
    assert rules.on_stable(view([c for c in after.columns if c]), [], 11) == []


def _clock_near_end(aside: Tile, drawn: Tile, stock: list[Tile]):
    """A Big Clock follower on double-6 with every slot home but slot 6 (3-6 on top), ``aside``
    taken for set aside unseen, ``drawn`` the unseen drawn tile and ``stock`` the stock:
    ``(rules, state, domino set)``."""
    from companion.follow.big_clock import _BigClockFollow
    from engine.big_clock import BigClockGame

    game = BigClockGame(max_pip=6)
    deal = {1: ["1-1"], 2: ["2-2"], 3: ["3-3"], 4: ["4-4"], 5: ["5-5"], 6: ["3-6"]}
    st = game.state_from_position(deal, seed=1)
    ds = game.domino_set
    rules = _BigClockFollow(6)
    rules.state, rules.total = st, 27
    st._set_aside, rules.guessed = [ds.index(aside)], {aside}
    st._drawn, st._stock = ds.index(drawn), [ds.index(t) for t in stock]
    return rules, st, ds


def test_big_clock_tile_taken_for_set_aside_shows_up_when_only_doubles_are_left():
    # three tiles set aside unseen near the end; one of them is then put on the clock while the
    # stock holds only doubles: the unseen stand-in for the drawn tile was the one set aside
    shown, stand_in = Tile(0, 5), Tile(1, 2)
    rules, st, ds = _clock_near_end(shown, stand_in, [Tile(6, 6)])
    assert rules._take(st, shown)
    assert st.drawn == shown and st._set_aside == [ds.index(stand_in)]
    assert rules.guessed == {stand_in}


def test_big_clock_set_aside_when_only_a_tile_set_aside_unseen_fits_nowhere():
    # the stock's last tiles: 2-6 (fits on 3-6) and the drawn 6-6 stand-in; 0-5 was taken for
    # set aside unseen before, but the table sets aside again: 2-6 was the one set aside then,
    # and 0-5 (which fits nowhere) is the tile set aside now
    rules, _, _ = _clock_near_end(Tile(0, 5), Tile(6, 6), [Tile(2, 6)])
    recs = rules.on_tap("pass", None)
    assert [r["type"] for r in recs] == ["note", "progress"]
    assert set(rules.state.set_aside) == {Tile(0, 5), Tile(2, 6)}
    assert rules.guessed == {Tile(0, 5), Tile(2, 6)}
    assert recs[1]["left"] == 1
    # with nothing set aside unseen before, the same tap is refused
    rules, st, _ = _clock_near_end(Tile(0, 5), Tile(6, 6), [Tile(2, 6)])
    st._set_aside, rules.guessed = [], set()
    assert [r["type"] for r in rules.on_tap("pass", None)] == ["flag"]


def test_tableaux_flagged_tile_is_a_play_when_the_tile_it_needed_comes_to_light():
    # 3-5 played beside the starter but missed by the camera; the next tile, a side play on its
    # 5, is flagged; when 3-5 is seen, both are taken in order and the flag is withdrawn
    from engine.tableaux.board import Board

    def place(tile: Tile, c_low, c_high) -> Placement:
        (r0, q0), (r1, q1) = c_low, c_high
        ang = float(np.degrees(np.arctan2(-(r1 - r0), q1 - q0)))
        return Placement(tile, False, ((q0 + q1) / 2 * 1.03, -(r0 + r1) / 2 * 1.03), ang, False)

    b = Board()
    b.place((0, 0), 2, (1, 0), 3)
    side = next(m for m in b.placements([Tile(3, 5)]) if m.kind == "side")
    b.place(side.low_cell, 3, side.high_cell, 5)
    before = Board()
    before.place((0, 0), 2, (1, 0), 3)
    nxt = next(
        m
        for t in (Tile(5, k) for k in (0, 1, 4, 6))
        for m in b.placements([t])
        if m.kind == "side"
        and not any(
            {x.low_cell, x.high_cell} == {m.low_cell, m.high_cell} for x in before.placements([t])
        )
    )
    starter = place(Tile(2, 3), (0, 0), (1, 0))
    first = place(Tile(3, 5), side.low_cell, side.high_cell)
    second = place(nxt.tile, nxt.low_cell, nxt.high_cell)
    f = Follower("tableaux", first_player=0)
    _feed(f, _labels([starter]))
    recs = _feed(f, _labels([starter, second]))
    assert [r["tile"] for r in recs if r["type"] == "flag"] == [str(nxt.tile)]
    recs = _feed(f, _labels([starter, first, second]))
    assert [r["tile"] for r in recs if r["type"] == "play"] == ["3-5", str(nxt.tile)]
    assert [r["tile"] for r in recs if r["type"] == "flag_withdrawn"] == [str(nxt.tile)]
    assert not f._rules.flagged


def test_good_neighbors_view_with_one_tile_missed_is_still_a_turn():
    # the detector misses one tile of the grid for a whole view after a turn: the empty cell is
    # that followed tile when exactly one such tile makes the view a legal turn
    from types import SimpleNamespace

    from companion.follow.good_neighbors import _GoodNeighborsFollow
    from engine.good_neighbors import GoodNeighborsGame

    st = GoodNeighborsGame(max_pip=6).new_initial_state(3)
    rules = _GoodNeighborsFollow(6)
    rules.state = st.clone()
    turn = next(a for a in st.legal_actions())
    after = st.clone()
    after.apply_action(turn)
    grid = list(after.grid)
    kept = next(k for k, t in enumerate(grid[:-1]) if t in st.grid)  # an old tile, not the last
    cells = [None if k == kept else str(t) for k, t in enumerate(grid)]
    cols = after.game.cols
    problem = [SimpleNamespace(kind=k, source="table", message=k) for k in ("gap", "mid_turn")]
    view = SimpleNamespace(
        layout={"grid": [cells[i : i + cols] for i in range(0, len(cells), cols)], "max_pip": 6},
        state=None,
        problems=problem,
    )
    recs = rules.on_stable(view, [], 10)
    assert [r["action"] for r in recs if r["type"] == "play"] == [str(turn)]
    assert list(rules.state.grid) == grid


def test_good_neighbors_stock_out_after_a_grid_taken_as_seen():
    # five turns pass unseen (the grid is taken as seen; tiles drawn and removed in them are
    # still in the followed stock), then every turn is seen: when the grid comes up short, the
    # stock is out, and the game ends with the removed count the table has
    from types import SimpleNamespace

    from companion.follow.good_neighbors import _GoodNeighborsFollow
    from engine.good_neighbors import GoodNeighborsGame

    def view(st):
        cells, cols = [str(t) for t in st.grid], st.game.cols
        rows = [cells[i : i + cols] for i in range(0, len(cells), cols)]
        return SimpleNamespace(layout={"grid": rows, "max_pip": 9}, state=None, problems=[])

    for seed in (10, 17):
        rng = random.Random(seed)
        st = GoodNeighborsGame(max_pip=9).new_initial_state(seed)
        states = [st.clone()]
        while not st.is_terminal():
            acts = st.legal_actions()
            pick = rng.random() < 0.8
            st.apply_action(min(acts, key=lambda a: len(a.tiles)) if pick else rng.choice(acts))
            states.append(st.clone())
        rules = _GoodNeighborsFollow(9)
        rules.state, rules.total = states[0].clone(), len(st.game.domino_set)
        recs = rules.on_stable(view(states[5]), [], 1)
        assert any("taken as seen" in r.get("message", "") for r in recs)
        assert len(rules.state.stock) > len(states[5].stock)  # tiles removed unseen
        recs = []
        for k, s in enumerate(states[6:]):
            if len(s.grid) < s.game.cells and rules.state.stock:
                # the first short grid read with a problem on the table (a box read as a back)
                # is no stock run out
                gap = view(s)
                gap.problems = [SimpleNamespace(kind="face_down", source="table", message="back")]
                held = rules.on_stable(gap, [], k)
                assert not any("stock is out" in r.get("message", "") for r in held)
            recs += rules.on_stable(view(s), [], k)
        assert [r["type"] for r in recs if r["type"] in ("question", "flag")] == []
        assert sum("the stock is out" in r.get("message", "") for r in recs) == 1
        assert len(rules.state.removed) == len(st.removed)
        assert rules.won is st.is_won()


def test_good_neighbors_grid_taken_as_seen_then_shown_misread():
    # a steady view mixes two moments of a turn (a removed tile still held in its cell, the
    # last fresh tile not yet read): no turn explains it, so it is taken as seen with a
    # question; the next view shows the turn as it was, which no turn explains from the grid
    # taken but one does from the grid before: that grid comes back and the turn is taken
    from types import SimpleNamespace

    from companion.follow.good_neighbors import _GoodNeighborsFollow
    from engine.good_neighbors import GoodNeighborsGame

    def view(grid):
        cells = [str(t) for t in grid]
        rows = [cells[i : i + 3] for i in range(0, len(cells), 3)]
        return SimpleNamespace(layout={"grid": rows, "max_pip": 9}, state=None, problems=[])

    st0 = GoodNeighborsGame(max_pip=9).new_initial_state(4)
    turn = max(st0.legal_actions(), key=lambda a: len(a.tiles))
    st1 = st0.clone()
    st1.apply_action(turn)
    held = sorted(turn.tiles)[0]  # a removed tile still read in its cell
    kept = [t for t in st0.grid if t not in turn.tiles or t == held]
    fresh = [t for t in st1.grid if t not in st0.grid]
    mixed = kept + fresh[: len(st1.grid) - len(kept)]
    rules = _GoodNeighborsFollow(9)
    rules.state, rules.total = st0.clone(), 55
    recs = rules.on_stable(view(mixed), [], 1)
    assert any("taken as seen" in r.get("message", "") for r in recs)
    recs = rules.on_stable(view(st1.grid), [], 2)
    assert [r["type"] for r in recs if r["type"] in ("note", "play", "flag", "question")] == [
        "note",
        "play",
    ]
    assert [r["action"] for r in recs if r["type"] == "play"] == [str(turn)]
    assert list(rules.state.grid) == list(st1.grid)
    assert rules.state.removed == st1.removed and rules.state.stock[:5] == st1.stock[:5]


def test_draw_game_misreads_of_the_lead_and_of_a_line_tile_are_no_plays():
    # the lead 5-5 first read as 1-1 (a hand over it), then read right: the same lead, the same
    # seat; later 5-1 read as 2-5 where it lies: a misread, not a play on the 5
    line = LineOfPlay()
    line.place_first(Tile(5, 5))
    line.attach(Tile(5, 1), "0.end_a")
    lead, one = _line_placements(line, random.Random(3), bend=0.0)
    f = Follower("draw100", players=2, first_player=0)
    misread = Placement(Tile(1, 1), False, lead.centre, lead.angle_deg, False)
    assert [r["tile"] for r in _feed(f, _labels([misread])) if r["type"] == "play"] == ["1-1"]
    recs = _feed(f, _labels([lead]))
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(0, "5-5")]
    assert [r["tile"] for r in recs if r["type"] == "play_withdrawn"] == ["1-1"]
    assert f.summary()["plays"] == 1
    assert not [r for r in recs if r["type"] in ("hand_end", "hand_scored")]
    recs = _feed(f, _labels([lead, one]), 4)
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(1, "1-5")]
    wrong = Placement(Tile(2, 5), False, one.centre, one.angle_deg, one.flip)
    recs = _feed(f, _labels([lead, wrong]), 4)
    assert not [r for r in recs if r["type"] in ("play", "flag")]
    assert any("read where 1-5 lies" in r.get("message", "") for r in recs)


def _five_line_of_play(*ends: Tile) -> tuple[LineOfPlay, list[Placement]]:
    """The line of the lead 5-5 with ``ends`` on its ends (end_a, then end_b) and its
    placements (seed 3, no corner turned)."""
    line = LineOfPlay()
    line.place_first(Tile(5, 5))
    for t, end in zip(ends, ("0.end_a", "0.end_b"), strict=False):
        line.attach(t, end)
    return line, _line_placements(line, random.Random(3), bend=0.0)


def _five_line(*ends: Tile) -> list[Placement]:
    """:func:`_five_line_of_play`'s placements."""
    return _five_line_of_play(*ends)[1]


def test_draw_game_misread_play_is_read_again_after_the_camera_zooms_out():
    # 1-5 laid on the lead 5-5, its first view misread as 3-5 (taken: a legal play); then the
    # phone is lifted (the picture zooms out to about half and shifts): 1-5 is read where 3-5
    # lies in that view and the next (5-6 laid on the other end). With only the lead in both
    # views, the lead's box carries the zoom, so 1-5 is that tile read again, the same seat's
    # play, not a second play on the other 5
    lead, one, six = _five_line(Tile(5, 1), Tile(5, 6))
    misread = Placement(Tile(3, 5), False, one.centre, one.angle_deg, one.flip)
    f = Follower("draw100", players=2, first_player=0)
    assert [r["tile"] for r in _feed(f, _labels([lead])) if r["type"] == "play"] == ["5-5"]
    recs = _feed(f, _labels([lead, misread]))
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(1, "3-5")]
    cam = make_camera(
        np.random.default_rng(7), [lead, one, six], (1024, 768), fill=0.5, rotation_deg=10.0
    )
    far = camera_labels(cam, [lead, one])
    assert 0.4 < far[0].size[0] / _labels([lead, one])[0].size[0] < 0.7
    recs = _feed(f, far, 4) + _feed(f, camera_labels(cam, [lead, one, six]), 4)
    assert [
        (r["type"], r.get("player"), r["tile"])
        for r in recs
        if r["type"] in ("play", "play_withdrawn")
    ] == [("play_withdrawn", None, "3-5"), ("play", 1, "1-5"), ("play", 0, "5-6")]
    assert f.summary()["plays"] == 3


def _cell_place(tile: Tile, c_low, c_high, shift: float = 0.0) -> Placement:
    """``tile`` on the table plane with ``tile.low`` on grid cell ``c_low`` and ``tile.high`` on
    ``c_high`` (a Tableaux grid cell is about one tile width)."""
    (r0, q0), (r1, q1) = c_low, c_high
    ang = float(np.degrees(np.arctan2(-(r1 - r0), q1 - q0)))
    return Placement(tile, False, ((q0 + q1) / 2 * 1.03 + shift, -(r0 + r1) / 2 * 1.03), ang, False)


DIRS4 = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1))


def _all_tiles(top: int = 6) -> list[Tile]:
    return [Tile(a, b) for a in range(top + 1) for b in range(a, top + 1)]


def test_tableaux_starter_and_first_play_seen_together_are_a_starter_and_a_play():
    # the table seen empty, then the starter and the first play at once (the starter unread
    # until the play came): one starter, one play by the seat to move, the turn passed
    from engine.tableaux.board import Board

    b = Board()
    b.place((0, 0), 2, (1, 0), 3)
    side = next(m for m in b.placements([Tile(3, 5)]) if m.kind == "side")
    view = [_cell_place(Tile(2, 3), (0, 0), (1, 0)), _cell_place(Tile(3, 5), *side[1:3])]
    f = Follower("tableaux", first_player=1)
    _feed(f, _labels([]))
    recs = _feed(f, _labels(view))
    starts = [r for r in recs if r["type"] == "hand_start"]
    assert [len(r["tiles"]) for r in starts] == [1]
    plays = [r for r in recs if r["type"] == "play"]
    assert [(r["player"], r["kind"]) for r in plays] == [(1, "side")]
    assert {plays[0]["tile"], starts[0]["tiles"][0]} == {"2-3", "3-5"}
    assert f.summary()["player"] == 0


def test_tableaux_starter_seen_with_plays_is_the_tile_in_the_middle():
    # starter 4-5 and a side play on each of its halves, all first seen together: 4-5, in the
    # middle, is the starter, though an outer tile would also give a legal sequence (and comes
    # first in tile order)
    from engine.tableaux.board import Board

    b = Board()
    b.place((0, 0), 4, (1, 0), 5)
    on5 = next(m for m in b.placements([Tile(5, 6)]) if m.kind == "side")
    b.place(on5.low_cell, 5, on5.high_cell, 6)
    apart = {(r + dr, q + dq) for r, q in (on5.low_cell, on5.high_cell) for dr, dq in DIRS4}
    on4 = next(
        m
        for t in (Tile(1, 4), Tile(2, 4), Tile(3, 4))
        for m in b.placements([t])
        if m.kind == "side" and not {m.low_cell, m.high_cell} & apart
    )
    view = [
        _cell_place(Tile(4, 5), (0, 0), (1, 0)),
        _cell_place(Tile(5, 6), on5.low_cell, on5.high_cell),
        _cell_place(on4.tile, on4.low_cell, on4.high_cell),
    ]
    f = Follower("tableaux", first_player=0)
    _feed(f, _labels([]))
    recs = _feed(f, _labels(view))
    assert [r["tiles"] for r in recs if r["type"] == "hand_start"] == [["4-5"]]
    plays = [(r["player"], r["tile"]) for r in recs if r["type"] == "play"]
    assert sorted(t for _, t in plays) == sorted(["5-6", str(on4.tile)])
    assert [p for p, _ in plays] == [0, 1]  # each side play of a non-double ends a turn


def _late_read_position():
    """Starter 2-3, 3-5 beside it (seat 0), then seat 1's turn: a double ``a`` (a side play,
    the turn goes on) and ``b`` on it (a side play ending the turn), then seat 0's corner play
    ``c`` worth points that touches neither. Returns the four boards' placements."""
    from engine.tableaux.board import Board

    b0 = Board()
    b0.place((0, 0), 2, (1, 0), 3)
    first = next(m for m in b0.placements([Tile(3, 5)]) if m.kind == "side")
    b0.place(first.low_cell, 3, first.high_cell, 5)
    used = {Tile(2, 3), Tile(3, 5)}
    for c in (m for t in _all_tiles() if t not in used for m in b0.placements([t])):
        if c.kind != "corner" or not c.points:
            continue
        near = {c.low_cell, c.high_cell}
        for a in (
            m for t in _all_tiles() if t.is_double and t != c.tile for m in b0.placements([t])
        ):
            if a.kind != "side" or {a.low_cell, a.high_cell} & near:
                continue
            b1 = b0.copy()
            b1.place(a.low_cell, a.tile.low, a.high_cell, a.tile.high)
            for bm in (
                m
                for t in _all_tiles()
                if t not in used | {a.tile, c.tile}
                for m in b1.placements([t])
            ):
                cells = {bm.low_cell, bm.high_cell}
                if bm.kind != "side" or bm.tile.is_double or cells & near:
                    continue
                if any(
                    abs(x[0] - y[0]) + abs(x[1] - y[1]) <= 1
                    for x in cells
                    for y in near | {(r, q) for r, q in b0.num}
                ):
                    continue  # b touches only a (so it is no play while a is unread)
                b2 = b1.copy()
                b2.place(bm.low_cell, bm.tile.low, bm.high_cell, bm.tile.high)
                again = b2.classify(c.low_cell, c.high_cell, c.tile)
                if again is not None and again.points == c.points:
                    return first, a, bm, c
    raise AssertionError("no such position")


def test_tableaux_tile_read_late_puts_the_plays_after_it_back_in_order():
    # seat 1 plays a double and a tile on it; the camera misses the double, so the second is
    # flagged and seat 0's next play (a corner, points) is credited to seat 1, and the "done"
    # after it gives the turn to seat 0; when the double is read the hand is followed again in
    # order (the tap too): the points move to seat 0 and seat 1 is to move
    first, a, bm, c = _late_read_position()
    starter = _cell_place(Tile(2, 3), (0, 0), (1, 0))
    one = _cell_place(Tile(3, 5), first.low_cell, first.high_cell)
    pa, pb, pc = (_cell_place(m.tile, m.low_cell, m.high_cell) for m in (a, bm, c))
    f = Follower("tableaux", first_player=0)
    _feed(f, _labels([starter]))
    _feed(f, _labels([starter, one]))
    recs = _feed(f, _labels([starter, one, pb]))
    assert [r["tile"] for r in recs if r["type"] == "flag"] == [str(bm.tile)]
    f.sync_scores([0, 7], None)  # an entry typed on the score sheet meanwhile: seat 1 +7
    _feed(f, _labels([starter, one, pb, pc]))
    f.tap("done")  # seat 0 ends the turn that c let go on
    assert f.summary()["player"] == 0  # as followed so far: c was seat 1's
    recs = _feed(f, _labels([starter, one, pa, pb, pc]))
    plays = [(r["player"], r["tile"]) for r in recs if r["type"] == "play"]
    assert plays == [(1, str(a.tile)), (1, str(bm.tile))]
    assert [r["tile"] for r in recs if r["type"] == "flag_withdrawn"] == [str(bm.tile)]
    fixes = {r["player"]: r["points"] for r in recs if r["type"] == "score"}
    assert fixes == {0: c.points, 1: -c.points}
    assert f.summary()["scores"] == [c.points, 7]  # the typed entry kept
    assert f.summary()["player"] == 1  # c was seat 0's, then the "done": seat 1 to move
    assert not f._rules.flagged


def _starter_and_double_views():
    """Tableaux followed from seat 0 with the starter 2-3 down, and the labels of the starter
    with a double laid on it (a play that lets the turn go on)."""
    from engine.tableaux.board import Board

    b = Board()
    b.place((0, 0), 2, (1, 0), 3)
    dbl = next(m for t in _all_tiles() if t.is_double for m in b.placements([t]))
    starter = _cell_place(Tile(2, 3), (0, 0), (1, 0))
    both = _labels([starter, _cell_place(dbl.tile, dbl.low_cell, dbl.high_cell)])
    f = Follower("tableaux", first_player=0)
    _feed(f, _labels([starter]))
    return f, both


def test_tap_made_while_a_tile_is_read_but_not_yet_voted_comes_after_its_play():
    # a double played (the turn goes on) and the "done" tapped while the camera has read it in
    # two frames, one short of the vote: the double is still the tapping player's, the turn
    # passes after it; a tile read in one frame only (more often a misread) does not hold a tap
    f, both = _starter_and_double_views()
    f.feed(both)
    assert [r["type"] for r in f.tap("pass")][:1] == ["play"]  # one frame: taken at once
    f.tap("pass")  # seat 1 passes too: seat 0 to move
    f.feed(both)
    assert f.tap("done") == []  # waits for the tile read in two of the last three frames
    recs = _feed(f, both)
    assert [(r["type"], r.get("player")) for r in recs if r["type"] in ("play", "turn")] == [
        ("play", 0),
        ("turn", 1),
    ]


def test_done_tapped_before_the_turns_play_is_seen_waits_for_that_play():
    # the camera read nothing while seat 0 laid a double (glare, a blown-out picture) and the
    # "done" came first: a turn plays at least one tile (RULES.md Tableaux, Turns), so the
    # double seen next is seat 0's and the turn passes after it; a "done" after a seen play
    # ends the turn at once
    f, both = _starter_and_double_views()
    recs = f.tap("done")
    assert [r["type"] for r in recs] == ["question"] and "seat 0" in recs[0]["message"]
    assert f.summary()["player"] == 0
    recs = _feed(f, both)
    assert [(r["type"], r.get("player")) for r in recs if r["type"] in ("play", "turn")] == [
        ("play", 0),
        ("turn", 1),
    ]
    assert f.summary()["player"] == 1
    assert [r["type"] for r in f.tap("pass")][:1] == ["play"]  # seat 1 passes: seat 0
    assert f.summary()["player"] == 0


def test_tableaux_flagged_tile_put_right_alone_is_a_play():
    # a tile put where it fits nowhere is flagged; moved to a legal place with no other new
    # tile in the view, it is a play (its flag withdrawn), credited to the seat to move
    starter, play = _starter_and_side_play()
    f = Follower("tableaux", first_player=1)
    _feed(f, _labels([starter]))
    wrong = _cell_place(Tile(3, 5), (0, 1), (1, 1))  # alongside, both halves touching
    recs = _feed(f, _labels([starter, wrong]))
    assert [r["tile"] for r in recs if r["type"] == "flag"] == ["3-5"]
    recs = _feed(f, _labels([starter, play]))
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(1, "3-5")]
    assert [r["tile"] for r in recs if r["type"] == "flag_withdrawn"] == ["3-5"]
    assert not f._rules.flagged and f.summary()["player"] == 0


def test_tableaux_blank_double_read_as_a_plain_back_is_still_a_play():
    # the 0-0 of a set without divider bars read as a plain back (no value): the box holds at a
    # new place, the tracker takes it in, and the layout reader takes the lone bare box of a
    # face-up layout as the 0-0: a play, though no value changed on the table
    from vision.types import TileFlag

    starter, play = _starter_and_side_play(Tile(0, 3), Tile(0, 0))
    f = Follower("tableaux", first_player=0)
    _feed(f, _labels([starter]))
    view = _labels([starter, play])
    view = [
        TileDetection(d.corners, 0.9, face_down=True, flag=TileFlag.BLANK_OR_BACK)
        if d.pips is not None and tuple(d.pips) == (0, 0)
        else d
        for d in view
    ]
    recs = _feed(f, view)
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(0, "0-0")]
    assert f.summary()["player"] == 0  # a double: the turn goes on


def test_tableaux_blank_double_read_bare_only_now_and_then_is_still_a_play():
    # the same 0-0, its face read bare in one frame and undecided (no value, no flag) in the
    # frames after it, as a pip reader does on a dark set's grain (tableaux-s21-22, frames
    # 251-283): the stable box keeps the bare reading, so the 0-0 is a play when it comes
    from vision.types import TileFlag

    starter, play = _starter_and_side_play(Tile(0, 3), Tile(0, 0))
    f = Follower("tableaux", first_player=0)
    _feed(f, _labels([starter]))

    def view(flag: TileFlag) -> list[TileDetection]:
        return [
            TileDetection(d.corners, 0.9, face_down=True, flag=flag)
            if d.pips is not None and tuple(d.pips) == (0, 0)
            else d
            for d in _labels([starter, play])
        ]

    recs = _feed(f, view(TileFlag.BLANK_OR_BACK), 1) + _feed(f, view(TileFlag.NONE), 4)
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(0, "0-0")]


def _won_hand(first: int):
    """A Tableaux hand that ends with neither player able to play (3 tiles down, the boneyard
    far from empty): ``(follower, placements, points)``, seat ``first`` started it with a side
    play and the other seat, to move, won it with a corner play of ``points`` (> 3; the turn
    goes on)."""
    from engine.tableaux.board import Board

    b = Board()
    b.place((0, 0), 2, (1, 0), 3)
    side = next(m for m in b.placements([Tile(3, 5)]) if m.kind == "side")
    b.place(side.low_cell, 3, side.high_cell, 5)
    corner = next(
        m
        for t in _all_tiles()
        if t not in (Tile(2, 3), Tile(3, 5))
        for m in b.placements([t])
        if m.kind == "corner" and m.points > 3
    )
    pl = [_cell_place(Tile(2, 3), (0, 0), (1, 0)), _cell_place(Tile(3, 5), *side[1:3])]
    pl.append(_cell_place(corner.tile, corner.low_cell, corner.high_cell))
    f = Follower("tableaux", first_player=first)
    for k in range(1, 4):
        _feed(f, _labels(pl[:k]))
    assert f.summary()["scores"][1 - first] == corner.points
    return f, pl, corner.points


def _next_hand_views(shift: float) -> tuple[Placement, list[Placement]]:
    """The next hand's starter 3-5 (``shift`` tile widths aside) alone, and with 1-5 played
    on it (a side play)."""
    from engine.tableaux.board import Board

    nb = Board()
    nb.place((0, 0), 3, (1, 0), 5)
    first = next(m for m in nb.placements([Tile(1, 5)]) if m.kind == "side")
    new_starter = _cell_place(Tile(3, 5), (0, 0), (1, 0), shift=shift)
    return new_starter, [
        new_starter,
        _cell_place(Tile(1, 5), first.low_cell, first.high_cell, shift),
    ]


def test_tableaux_pass_tapped_after_the_table_was_cleared_belongs_to_the_next_hand():
    # seat 0 wins a short hand (neither player can play); the table is cleared, the next
    # starter laid, and seat 0, who starts the next hand, cannot play on it and taps pass
    # before seat 1 plays: the pass is no part of the hand that ended (whose tally says who
    # starts the next) and the first play of the new hand is seat 1's
    f, _, points = _won_hand(first=1)
    new_starter, view = _next_hand_views(4.0)
    recs = _feed(f, _labels([])) + _feed(f, _labels([new_starter]))
    recs += f.tap("pass")
    recs += _feed(f, _labels(view))
    end = next(r for r in recs if r["type"] == "hand_end")
    assert (end["hand_scores"], end["next_starter"]) == ([points, 0], 0)
    plays = [r for r in recs if r["type"] == "play" and r.get("tile")]
    assert [(r["player"], r["tile"]) for r in plays] == [(1, "1-5")]
    assert f.summary()["scores"] == [points - 3, 0]
    # the score records add up to the tally (the pass taken back and taken again)
    camera = [r for r in f.events if r["type"] == "score"]
    assert [sum(r["points"] for r in camera if r["player"] == p) for p in (0, 1)] == [
        points - 3,
        0,
    ]


def test_tableaux_hand_where_nobody_can_play_at_the_deal_passes_the_start():
    # a hand won by seat 0, then a hand where neither player can play on the starter (laid and
    # taken up again: 0 to 0, seat 0 started it), then the next: seat 1 starts it
    f, _, points = _won_hand(first=1)
    dead = _cell_place(Tile(4, 4), (0, 0), (1, 0), shift=4.0)
    new_starter, view = _next_hand_views(-4.0)
    recs = _feed(f, _labels([])) + _feed(f, _labels([dead])) + _feed(f, _labels([]))
    recs += _feed(f, _labels([new_starter]))
    recs += _feed(f, _labels(view))
    ends = [(r["hand_scores"], r["next_starter"]) for r in recs if r["type"] == "hand_end"]
    assert ends == [([points, 0], 0), ([0, 0], 1)]
    plays = [r for r in recs if r["type"] == "play" and r.get("tile")]
    assert [(r["player"], r["tile"]) for r in plays] == [(1, "1-5")]


def test_tableaux_lone_starter_taken_up_and_laid_again_is_a_new_hand():
    # the game's first starter 2-3 alone, nobody plays on it (neither player can), the table is
    # cleared and the next deal turns up 2-3 again: hand 1 ended at its deal 0 to 0, seat 0
    # started it, so seat 1 starts hand 2 and plays 3-5 on it
    starter, play = _starter_and_side_play()
    f = Follower("tableaux", first_player=0)
    recs = f.tap("player", 0)  # who starts, tapped before the starter is laid
    recs += _feed(f, _labels([starter])) + _feed(f, _labels([]))
    recs += _feed(f, _labels([starter])) + _feed(f, _labels([starter, play]))
    ends = [(r["hand_scores"], r["next_starter"]) for r in recs if r["type"] == "hand_end"]
    assert ends == [([0, 0], 1)]
    plays = [r for r in recs if r["type"] == "play" and r.get("tile")]
    assert [(r["player"], r["tile"]) for r in plays] == [(1, "3-5")]
    assert f.summary()["hand"] == 2 and f.summary()["player"] == 0
    assert any(r["type"] == "question" and r.get("tile") == "2-3" for r in recs)


def test_tableaux_lone_starter_read_again_as_another_value_is_the_same_hand():
    # the starter 2-3 is misread as 2-4 in the first views, then read right where it lies, the
    # table never seen empty: a misread starter, not a hand over at its deal, so seat 0 (who
    # starts) plays 3-5 on it in hand 1
    starter, play = _starter_and_side_play()
    misread = Placement(Tile(2, 4), False, starter.centre, starter.angle_deg, False)
    f = Follower("tableaux", first_player=0)
    recs = f.tap("player", 0)
    recs += _feed(f, _labels([misread])) + _feed(f, _labels([starter]))
    recs += _feed(f, _labels([starter, play]))
    assert not [r for r in recs if r["type"] == "hand_end"]
    plays = [r for r in recs if r["type"] == "play" and r.get("tile")]
    assert [(r["player"], r["tile"]) for r in plays] == [(0, "3-5")]
    assert f.summary()["hand"] == 1 and f.summary()["player"] == 1


def test_tableaux_starter_misread_then_read_as_backs_is_the_same_hand():
    # the starter 2-3 is misread as 0-0 (a bare box), then views read it only as a back (a
    # close-up under glare: no value, no tile placed), then the starter and 3-5 alongside it are
    # read: no table was seen cleared of every box, so the starter was misread, not a hand over
    # at its deal, and seat 0 (who starts) plays 3-5 in hand 1 (seed-24 Tableaux game 7)
    starter, play = _starter_and_side_play()
    misread = Placement(Tile(0, 0), False, starter.centre, starter.angle_deg, False)
    backs = [replace(d, pips=None, face_down=True, pip_confidence=None) for d in _labels([starter])]
    f = Follower("tableaux", first_player=0)
    recs = f.tap("player", 0)
    recs += _feed(f, _labels([misread])) + _feed(f, backs)
    recs += _feed(f, _labels([starter, play]))
    assert not [r for r in recs if r["type"] == "hand_end"]
    plays = [r for r in recs if r["type"] == "play" and r.get("tile")]
    assert [(r["player"], r["tile"]) for r in plays] == [(0, "3-5")]
    assert f.summary()["hand"] == 1 and f.summary()["player"] == 1
    assert any(r["type"] == "note" and r.get("tile") == "0-0" for r in recs)


def _starter_and_side_play(
    starter: Tile | None = None, tile: Tile | None = None
) -> tuple[Placement, Placement]:
    """The starter (low half on cell (0, 0), high on (1, 0)) and ``tile`` played alongside it
    (a side play; by default 2-3 and 3-5 alongside its 3)."""
    from engine.tableaux.board import Board

    starter = Tile(2, 3) if starter is None else starter
    tile = Tile(3, 5) if tile is None else tile

    b = Board()
    b.place((0, 0), starter.low, (1, 0), starter.high)
    side = next(m for m in b.placements([tile]) if m.kind == "side")
    return _cell_place(starter, (0, 0), (1, 0)), _cell_place(tile, *side[1:3])


def test_tableaux_tap_waits_for_a_view_with_a_doubtful_reading_to_be_taken():
    # seat 1 plays 3-5 while another box is misread as the starter's 2-3 (a value seen twice:
    # the view is not taken), then a done tap comes; once the misread goes and the view is
    # taken, the play is seat 1's and the tap comes after it (not before, giving the play to
    # seat 0), where it changes nothing: the side play ended the turn (RULES.md Tableaux,
    # Turns), seat 0 is to move
    starter, play = _starter_and_side_play()
    ghost = _cell_place(Tile(2, 3), (0, 3), (1, 3))  # another tile read as 2-3
    f = Follower("tableaux", first_player=1)
    _feed(f, _labels([starter]))
    recs = _feed(f, _labels([starter, play, ghost]), 4)
    assert not [r for r in recs if r["type"] == "play"]
    recs = f.tap("done")
    recs += _feed(f, _labels([starter, play, ghost]), 2)
    assert not [r for r in recs if r["type"] in ("play", "turn")]
    recs = _feed(f, _labels([starter, play]), 4)
    got = [(r["type"], r["player"]) for r in recs if r["type"] in ("play", "turn")]
    assert got == [("play", 1)]
    assert f.summary()["player"] == 0


def test_tableaux_tile_read_when_a_waiting_tap_was_made_is_played_before_it():
    # seat 1 plays 2-2 (a double: the turn goes on) and taps done while it is read but not yet
    # voted in; a hand hides it while seat 0 plays 3-3 (also a double), then both are voted in
    # at once, in either order a legal pair: 2-2, read when the tap was made, is seat 1's play
    # before the tap, 3-3 seat 0's after it
    starter = _cell_place(Tile(2, 3), (0, 0), (1, 0))
    d2 = _cell_place(Tile(2, 2), (-1, -1), (0, -1))
    d3 = _cell_place(Tile(3, 3), (1, 1), (2, 1))
    f = Follower("tableaux", first_player=1)
    _feed(f, _labels([starter]))
    recs = _feed(f, _labels([starter, d2]), 2) + f.tap("done")
    recs += _feed(f, _labels([starter, d3]), 2) + _feed(f, _labels([starter, d3, d2]), 4)
    got = [(r["type"], r.get("tile"), r["player"]) for r in recs if r["type"] in ("play", "turn")]
    assert got == [("play", "2-2", 1), ("turn", None, 0), ("play", "3-3", 0)]


def test_tableaux_score_sheet_entry_made_after_the_table_was_cleared_is_kept():
    # as above, with 1 point typed on the score sheet for seat 1 between the pass and the
    # next hand's first play: taking the pass back into the next hand keeps that entry
    f, _, points = _won_hand(first=1)
    new_starter, view = _next_hand_views(4.0)
    _feed(f, _labels([]))
    _feed(f, _labels([new_starter]))
    f.tap("pass")
    f.sync_scores([points - 3, 1], None)
    recs = _feed(f, _labels(view))
    assert [r["player"] for r in recs if r["type"] == "play" and r.get("tile")] == [1]
    assert f.summary()["scores"] == [points - 3, 1]


def test_tableaux_value_read_on_two_boxes_is_taken_where_the_hand_explains_it():
    # seat 0 plays 2-2 beside the starter 2-3 while two other tiles far off are misread, one as
    # 2-3 (followed: its own box lies on its cells) and one as 2-2 (the new tile: its other box
    # is its only legal place): the view is taken, 2-2 a play at its legal place
    starter, play = _starter_and_side_play()
    f = Follower("tableaux", first_player=1)
    _feed(f, _labels([starter]))
    _feed(f, _labels([starter, play]))
    d2 = _cell_place(Tile(2, 2), (-1, 1), (0, 1))
    ghosts = [_cell_place(Tile(2, 3), (0, 5), (1, 5)), _cell_place(Tile(2, 2), (4, 5), (5, 5))]
    recs = _feed(f, _labels([starter, play, d2, *ghosts]), 4)
    got = [(r["player"], r["action"]) for r in recs if r["type"] == "play"]
    assert got == [(0, "2-2 at [-1, 1]=2 [0, 1]=2")]


def test_draw_game_short_line_misread_whole_is_no_new_hand():
    # 2-2 led, 2-3 on it; the camera moves and for a few views the whole line is misread (2-3
    # read face down alone, 2-2 as 0-0 alone, then with 2-3 as 0-3 and the new 2-6, as in a
    # replayed rendered game, draw100-s3-3, frames 970-978): a hand cannot be over with
    # two tiles down (each player drew 5, RULES.md section 4), so no new lead and no hand shown;
    # once read right, 2-6 is the next play
    line = LineOfPlay()
    line.place_first(Tile(2, 2))
    line.attach(Tile(2, 3), "0.end_a")
    line.attach(Tile(2, 6), "0.side_a")
    lead, three, six = _line_placements(line, random.Random(3), bend=0.0)
    f = Follower("draw100", players=2, first_player=0)
    _feed(f, _labels([lead]))
    recs = _feed(f, _labels([lead, three]), 4)
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(1, "2-3")]

    def as_(p: Placement, t: Tile) -> Placement:
        return Placement(t, False, p.centre, p.angle_deg, p.flip)

    down = Placement(Tile(2, 3), True, three.centre, three.angle_deg, three.flip)
    recs = _feed(f, _labels([down], seed=5), 4)  # only a tile read face down: no empty table
    recs += _feed(f, _labels([as_(lead, Tile(0, 0))], seed=5), 4)
    recs += _feed(f, _labels([as_(lead, Tile(0, 0)), as_(three, Tile(0, 3)), six], seed=5), 4)
    assert not [r for r in recs if r["type"] in ("play", "flag", "hand_end", "hand_shown")]
    recs = _feed(f, _labels([lead, three, six], seed=5), 4)
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(0, "2-6")]
    assert f.summary()["hand"] == 1


def test_draw_game_line_tile_misread_in_the_reveal_is_no_tile_shown():
    # the hand is over and 3-4 is shown apart; 5-2 of the line is misread as 6-6 where it lies
    # (as replays of rendered games showed, a zoomed-out view misreading line tiles): the
    # 6-6 lies within NEAR_LINE of the line's tiles, so it is no tile shown
    line, (lead, one, two) = _five_line_of_play(Tile(5, 1), Tile(5, 2))
    misread = Placement(Tile(6, 6), False, two.centre, two.angle_deg, two.flip)
    shown = Placement(Tile(3, 4), False, (0.0, -4.0), 0.0, False)
    f = Follower("draw100", players=2, first_player=0)
    r = f._rules
    r.line, r.node, r.last_player, r.phase = (
        line,
        {n.tile: n.id for n in line.nodes},
        0,
        "reveal",
    )
    stable = _labels([lead, one, misread, shown])
    r.on_stable(r.read(stable, "draw100"), stable, 0)
    assert r.group == {Tile(3, 4)}


def _tableau_of(n: int) -> list:
    """Starter 2-3 (low half on (0, 0)) and the first ``n`` legal plays found in tile order,
    each on the board left by those before: the engine's placements (``m.tile`` on
    ``m.low_cell``/``m.high_cell``)."""
    from engine.tableaux.board import Board

    b = Board()
    b.place((0, 0), 2, (1, 0), 3)
    plays = []
    for t in _all_tiles():
        if len(plays) == n:
            break
        if t == Tile(2, 3):
            continue
        m = next(iter(b.placements([t])), None)
        if m is not None:
            b.place(m.low_cell, t.low, m.high_cell, t.high)
            plays.append(m)
    return plays


def test_tableaux_tile_read_off_its_cells_is_a_question_not_a_stall():
    # a followed tile read two cells away from where it lies (a box across two tiles, a misread
    # after a zoom) while the rest of the tableau lines up: the new tile is still a play, the
    # tile read off its cells a question, kept where it was played
    *laid, last = _tableau_of(6)
    starter = _cell_place(Tile(2, 3), (0, 0), (1, 0))
    pl = [starter] + [_cell_place(m.tile, m.low_cell, m.high_cell) for m in laid]
    f = Follower("tableaux", first_player=0)
    _feed(f, _labels([starter]))
    for k in range(1, len(pl)):
        _feed(f, _labels(pl[: k + 1]))
    assert set(f._rules.tiles) == {Tile(2, 3)} | {m.tile for m in laid}
    seat = f.summary()["player"]
    far = max(max(abs(r), abs(q)) for m in laid for r, q in (m.low_cell, m.high_cell)) + 3
    stray = laid[2]
    view = [p for p in pl if p.tile != stray.tile]
    view += [_cell_place(stray.tile, (far, far), (far, far + 1))]
    # one view so: no question yet (a box across two tiles for a moment is no question)
    recs = _feed(f, _labels(view))
    assert not [r for r in recs if r["type"] in ("question", "play", "flag")]
    view += [_cell_place(last.tile, last.low_cell, last.high_cell)]
    recs = _feed(f, _labels(view))
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [
        (seat, str(last.tile))
    ]
    asked = [r["message"] for r in recs if r["type"] == "question"]
    assert asked == [f"{stray.tile} read off its cells (a misread?); kept where it was played"]
    assert f._rules.tiles[stray.tile] == (
        (stray.low_cell, stray.tile.low),
        (stray.high_cell, stray.tile.high),
    )
    assert not [r for r in recs if r["type"] == "flag"]


def _followed_tableau(n: int):
    """A Follower (seat 0 first) that has followed the starter and the first ``n - 1`` plays of
    :func:`_tableau_of`, the next legal play, and the placements laid."""
    *laid, nxt = _tableau_of(n)
    pl = [_cell_place(Tile(2, 3), (0, 0), (1, 0))]
    pl += [_cell_place(m.tile, m.low_cell, m.high_cell) for m in laid]
    f = Follower("tableaux", first_player=0)
    for k in range(len(pl)):
        _feed(f, _labels(pl[: k + 1]))
    assert len(f._rules.tiles) == len(pl)
    return f, pl, nxt


def test_tableaux_unreadable_box_on_a_followed_tile_does_not_hold_a_play():
    # a followed tile unreadable (glare, a hand's shadow) while the next tile is played: the
    # box lies on that tile's cells, so it is no new tile, and the play is taken; a box without
    # a value on free cells may be a tile not read yet: that view waits
    f, pl, nxt = _followed_tableau(6)
    seat = f.summary()["player"]
    view = _labels(pl + [_cell_place(nxt.tile, nxt.low_cell, nxt.high_cell)])
    dim = next(k for k, d in enumerate(view) if Tile(*d.pips) == pl[3].tile)
    view[dim] = TileDetection(view[dim].corners, view[dim].confidence, pips=None)
    recs = _feed(f, view)
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [
        (seat, str(nxt.tile))
    ]
    assert not [r for r in recs if r["type"] == "flag"]
    g, pl, nxt = _followed_tableau(6)
    view = _labels(pl + [_cell_place(nxt.tile, nxt.low_cell, nxt.high_cell)])
    dim = next(k for k, d in enumerate(view) if Tile(*d.pips) == nxt.tile)
    view[dim] = TileDetection(view[dim].corners, view[dim].confidence, pips=None)
    assert not [r for r in _feed(g, view) if r["type"] in ("play", "flag")]


def test_tableaux_new_value_read_on_a_followed_tiles_cells_is_no_play_nor_flag():
    # the layout reader puts a box with a value nobody played on the cells of a followed tile
    # that is seen too (a box drawn across two tiles, snapped onto their cells): tiles are laid
    # on free cells, so it is a misread (a question), not an illegal play
    from vision.layout import ReadResult

    f, pl, nxt = _followed_tableau(6)
    rules = f._rules
    placed = [
        {"tile_index": k, "pips": [a, b], "cells": [list(ca), list(cb)]}
        for k, (t, ((ca, a), (cb, b))) in enumerate(rules.tiles.items())
    ]
    stray = next(t for t in _all_tiles() if t not in rules.tiles and t != nxt.tile)
    (ca, _), (cb, _) = rules.tiles[pl[2].tile]
    placed.append({"tile_index": 9, "pips": [stray.low, stray.high], "cells": [list(ca), list(cb)]})
    recs = rules.on_stable(ReadResult("tableaux", None, {"placed": placed}, []), [], 99)
    assert not [r for r in recs if r["type"] in ("play", "flag")]
    assert [r["message"] for r in recs if r["type"] == "question"] == [
        f"{stray} read where {pl[2].tile} lies: a misread? (not taken)"
    ]


def test_tableaux_a_repeated_misread_is_asked_once_per_tile_and_place():
    # a box across two tiles read as the same new value on the same followed cells view after
    # view, and a followed tile missed in two views, seen, missed in two again: each is asked
    # once in the hand; the
    # same value read on another followed tile's cells is asked again (another place)
    from vision.layout import ReadResult

    f, pl, nxt = _followed_tableau(6)
    rules = f._rules
    stray = next(t for t in _all_tiles() if t not in rules.tiles and t != nxt.tile)

    def view(on: Tile, hidden: Tile | None, frame: int) -> list[dict]:
        placed = [
            {"tile_index": k, "pips": [a, b], "cells": [list(ca), list(cb)]}
            for k, (t, ((ca, a), (cb, b))) in enumerate(rules.tiles.items())
            if t != hidden
        ]
        (ca, _), (cb, _) = rules.tiles[on]
        placed.append(
            {"tile_index": 99, "pips": [stray.low, stray.high], "cells": [list(ca), list(cb)]}
        )
        return rules.on_stable(ReadResult("tableaux", None, {"placed": placed}, []), [], frame)

    asked = []
    hidden_in = (None, pl[1].tile, pl[1].tile, None, pl[1].tile, pl[1].tile, None)
    for k, hidden in enumerate(hidden_in):
        recs = view(pl[2].tile, hidden, 100 + k)
        assert not [r for r in recs if r["type"] in ("play", "flag")]
        asked += [r["message"] for r in recs if r["type"] == "question"]
    assert asked == [
        f"{stray} read where {pl[2].tile} lies: a misread? (not taken)",
        f"{pl[1].tile} no longer seen on the tableau; kept where it was played",
    ]
    recs = view(pl[3].tile, None, 200)
    assert [r["message"] for r in recs if r["type"] == "question"] == [
        f"{stray} read where {pl[3].tile} lies: a misread? (not taken)"
    ]


def test_tableaux_tiles_taken_at_once_go_in_the_order_they_were_read():
    # two plays that each end the turn, seen in one view after a view that was not taken (the
    # second tile lay there unread, a box without a value on free cells): the tile read first
    # where it lies was laid first, so it is the seat to move's play and the other the next
    # seat's, whatever order the reader lists them in
    import itertools

    f, pl, _ = _followed_tableau(6)
    board, seat = f._rules.board, f.summary()["player"]
    opts = [
        m
        for t in _all_tiles()
        if t not in f._rules.tiles and not t.is_double
        for m in board.placements([t])
        if not m.continues
    ]

    def fits_after(first, then) -> bool:
        b = board.copy()
        b.place(first.low_cell, first.tile.low, first.high_cell, first.tile.high)
        return any(
            (m.low_cell, m.high_cell) == (then.low_cell, then.high_cell)
            for m in b.placements([then.tile])
        )

    a, b = next(
        (a, b)
        for a, b in itertools.permutations(opts, 2)
        if a.tile != b.tile
        and not {a.low_cell, a.high_cell} & {b.low_cell, b.high_cell}
        and fits_after(a, b)
        and fits_after(b, a)
    )
    for x, y in ((a, b), (b, a)):  # either tile laid first
        g, pl, _ = _followed_tableau(6)
        later, first = (_cell_place(m.tile, m.low_cell, m.high_cell) for m in (y, x))
        view = _labels(pl + [later, first])
        unread = len(pl)
        view[unread] = TileDetection(view[unread].corners, view[unread].confidence, pips=None)
        assert not [r for r in _feed(g, view) if r["type"] in ("play", "flag")]
        recs = _feed(g, _labels(pl + [later, first]))
        assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [
            (seat, str(x.tile)),
            (1 - seat, str(y.tile)),
        ]


def test_tableaux_a_play_read_wrong_and_then_read_right_in_more_views_is_re_read():
    # a new tile misread in the view that took it (4-6 read 2-6, a legal play there too), then
    # read right on the same cells in the next views: once it is read right in more views than
    # it was read wrong, the play is withdrawn and taken again as the tile read, for the same
    # seat, with its points
    from vision.layout import ReadResult

    f, pl, _ = _followed_tableau(6)
    rules = f._rules
    seat, scores = f.summary()["player"], list(rules.scores)
    free = [t for t in _all_tiles() if t not in rules.tiles]
    real, wrong = next(
        (m, w)
        for t in free
        for m in rules.board.placements([t])
        for w in rules.board.placements([u for u in free if u != t])
        if {w.low_cell, w.high_cell} == {m.low_cell, m.high_cell}
    )

    def view(m, frame: int) -> list[dict]:
        placed = [
            {"tile_index": k, "pips": [a, b], "cells": [list(ca), list(cb)]}
            for k, (t, ((ca, a), (cb, b))) in enumerate(rules.tiles.items())
            if t != wrong.tile
        ]
        placed.append(
            {
                "tile_index": 99,
                "pips": [m.tile.low, m.tile.high],
                "cells": [list(m.low_cell), list(m.high_cell)],
            }
        )
        return rules.on_stable(ReadResult("tableaux", None, {"placed": placed}, []), [], frame)

    recs = view(wrong, 100)
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [
        (seat, str(wrong.tile))
    ]
    recs = view(real, 101)
    assert not [r for r in recs if r["type"] in ("play", "play_withdrawn", "flag")]
    recs = view(real, 102)
    assert [r["tile"] for r in recs if r["type"] == "play_withdrawn"] == [str(wrong.tile)]
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [
        (seat, str(real.tile))
    ]
    assert real.tile in rules.tiles and wrong.tile not in rules.tiles
    assert rules.scores[seat] == scores[seat] + real.points
    assert rules.player == (seat if real.continues else 1 - seat)


def test_tableaux_value_misread_elsewhere_when_a_tap_was_made_comes_after_it():
    # seat 1 plays a double (the turn goes on) and taps done while a box off the tableau is
    # misread as the tile seat 0 plays next (read in the last two frames, so taken as read
    # when the tap was made); a hand passes over the table, and that tile is then read where it
    # is laid: it was not there at the tap, so it is seat 0's play after the tap (as in the
    # replayed rendered game tableaux-s10-16, frames 214-222)
    first, a, bm, _ = _late_read_position()
    starter = _cell_place(Tile(2, 3), (0, 0), (1, 0))
    one, pa, pb = (_cell_place(m.tile, m.low_cell, m.high_cell) for m in (first, a, bm))
    ghost = _cell_place(bm.tile, (3, -3), (3, -2))
    cam = make_camera(np.random.default_rng(0), [starter, one, pa, pb], (1024, 768), fill=0.7)
    f = Follower("tableaux", first_player=0)
    _feed(f, camera_labels(cam, [starter]))
    _feed(f, camera_labels(cam, [starter, one]))
    recs = _feed(f, camera_labels(cam, [starter, one, pa]))
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(1, str(a.tile))]
    _feed(f, camera_labels(cam, [starter, one, pa, ghost]), 2)
    assert f.tap("done") == []  # waits: a value read in most of the last frames
    recs = []
    for hidden in (starter, one, pa):  # a hand over one tile in each frame
        recs += f.feed(camera_labels(cam, [p for p in (starter, one, pa) if p is not hidden]))
    recs += _feed(f, camera_labels(cam, [starter, one, pa, pb]), 4)
    got = [(r["type"], r.get("tile"), r["player"]) for r in recs if r["type"] in ("play", "turn")]
    assert got == [("turn", None, 0), ("play", str(bm.tile), 0)]


def test_tableaux_tile_read_as_a_followed_value_beside_the_tableau_is_played_before_a_tap():
    # seat 1 lays a double beside the tableau, read for a few views as the followed 3-5 (a
    # value read on two boxes, one on 3-5's cells, the other on free cells beside the
    # tableau), and taps done; the double then read right was on the table, unread, at the
    # tap: it is seat 1's play, the turn then passes (as in the replayed rendered game
    # tableaux-s10-6, frames 179-185)
    first, a, _, _ = _late_read_position()
    starter = _cell_place(Tile(2, 3), (0, 0), (1, 0))
    one, pa = (_cell_place(m.tile, m.low_cell, m.high_cell) for m in (first, a))
    twin = Placement(first.tile, False, pa.centre, pa.angle_deg, False)
    f = Follower("tableaux", first_player=0)
    _feed(f, _labels([starter]))
    _feed(f, _labels([starter, one]))
    recs = _feed(f, _labels([starter, one, twin]), 4)
    recs += f.tap("done")
    assert not [r for r in recs if r["type"] in ("play", "turn")]
    recs = _feed(f, _labels([starter, one, pa]), 4)
    got = [(r["type"], r.get("tile"), r["player"]) for r in recs if r["type"] in ("play", "turn")]
    assert got == [("play", str(a.tile), 1), ("turn", None, 0)]


def _shifted(m, k: int):
    """The cells of placement ``m`` moved ``k`` cells along its length: ``(low, high)``."""
    (r0, q0), (r1, q1) = m.low_cell, m.high_cell
    dr, dq = (r1 - r0) * k, (q1 - q0) * k
    return (r0 + dr, q0 + dq), (r1 + dr, q1 + dq)


def test_tableaux_tile_read_off_its_cells_before_a_tap_is_played_before_it():
    # seat 0 lays a double (the turn goes on) that the reader puts a cell off, where it is no
    # legal play (flagged), then taps done; the next view reads it on its cells: a tile lies
    # still once laid, so it was seat 0's play before the tap, and seat 1 is to move
    f, pl, _ = _followed_tableau(4)
    board, taken = f._rules.board, {c for v in f._rules.tiles.values() for c, _ in v}
    legal = {(m.tile, m.low_cell, m.high_cell) for t in _all_tiles() for m in board.placements([t])}
    m, off = next(
        (m, cells)
        for t in _all_tiles()
        if t.is_double and t not in f._rules.tiles
        for m in board.placements([t])
        for cells in (_shifted(m, 1), _shifted(m, -1))
        if not set(cells) & taken and (m.tile, *cells) not in legal
    )
    seat = f.summary()["player"]
    recs = _feed(f, _labels(pl + [_cell_place(m.tile, *off)]))
    assert [r["tile"] for r in recs if r["type"] == "flag"] == [str(m.tile)]
    scores = list(f.summary()["scores"])
    f.tap("done")
    recs = _feed(f, _labels(pl + [_cell_place(m.tile, m.low_cell, m.high_cell)]))
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(seat, str(m.tile))]
    assert [r["tile"] for r in recs if r["type"] == "flag_withdrawn"] == [str(m.tile)]
    scores[seat] += m.points
    assert f.summary()["scores"] == scores
    assert f.summary()["player"] == 1 - seat and not f._rules.flagged


def test_tableaux_tile_misread_and_flagged_before_a_tap_is_played_before_it():
    # the seat to move plays a tile that lets the turn go on, then lays a second one that the
    # views read as another value, no legal play there (flagged), and taps done (the turn
    # passes at once); the next views read the second tile right on the same cells: a tile
    # lies still once laid, so it was that seat's play before the tap, and the other seat is
    # to move (as in the rendered game tableaux-s21-1, frames 331-343: 2-5 read as 0-5); the
    # flag on the misread value is withdrawn
    f, pl, _ = _followed_tableau(4)
    board, seat = f._rules.board, f.summary()["player"]

    def after(m1):
        b = board.copy()
        b.place(m1.low_cell, m1.tile.low, m1.high_cell, m1.tile.high)
        return b

    m1, m2, u = next(
        (m1, m2, u)
        for t in _all_tiles()
        if t not in f._rules.tiles
        for m1 in board.placements([t])
        if m1.continues
        for t2 in _all_tiles()
        if t2 not in f._rules.tiles and t2 != t
        for m2 in after(m1).placements([t2])
        if m2.continues
        for u in _all_tiles()
        if u not in f._rules.tiles and u not in (t, t2)
        if not any(
            {m.low_cell, m.high_cell} == {m2.low_cell, m2.high_cell}
            for m in after(m1).placements([u])
        )
    )
    one = _cell_place(m1.tile, m1.low_cell, m1.high_cell)
    recs = _feed(f, _labels(pl + [one]))
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(seat, str(m1.tile))]
    recs = _feed(f, _labels(pl + [one, _cell_place(u, m2.low_cell, m2.high_cell)]))
    assert [r["tile"] for r in recs if r["type"] == "flag"] == [str(u)]
    scores = list(f.summary()["scores"])
    assert [r["type"] for r in f.tap("done")] == ["turn"]
    recs = _feed(f, _labels(pl + [one, _cell_place(m2.tile, m2.low_cell, m2.high_cell)]))
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(seat, str(m2.tile))]
    scores[seat] += m2.points
    assert f.summary()["scores"] == scores
    assert f.summary()["player"] == 1 - seat
    # the flag on the misread value is withdrawn: it was that tile read wrong
    assert [r["tile"] for r in recs if r["type"] == "flag_withdrawn"] == [str(u)]
    assert not f._rules.flagged


def test_tableaux_new_value_read_over_a_followed_tile_before_a_tap_is_played_before_it():
    # seat 0 lays a tile that lets the turn go on; the reader puts its box a cell over a
    # followed tile (a misread? not taken) until after seat 0 taps done, then reads it on its
    # cells: read on one of those cells before the tap, it was seat 0's play before it
    f, pl, _ = _followed_tableau(6)
    board = f._rules.board
    owner = {c: t for t, v in f._rules.tiles.items() for c, _ in v}
    m, over = next(
        (m, cells)
        for t in _all_tiles()
        if t not in f._rules.tiles
        for m in board.placements([t])
        if m.continues
        for cells in (_shifted(m, 1), _shifted(m, -1))
        if len({owner.get(c) for c in cells} - {None}) == 1
    )
    seat = f.summary()["player"]
    recs = _feed(f, _labels(pl + [_cell_place(m.tile, *over)]))
    assert not [r for r in recs if r["type"] in ("play", "flag")]
    # no play of this turn taken yet: the "done" waits for it (asked)
    assert [r["type"] for r in f.tap("done")] == ["question"]
    recs = _feed(f, _labels(pl + [_cell_place(m.tile, m.low_cell, m.high_cell)]))
    assert [(r["player"], r["tile"]) for r in recs if r["type"] == "play"] == [(seat, str(m.tile))]
    assert f.summary()["player"] == 1 - seat
