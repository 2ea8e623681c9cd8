"""Tests of vision.layout: each game's rebuild (rotated, perspective), the real photo's line of
play from hand-entered boxes, and the problems (unreadable, doubtful, duplicate, too many)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import vintage_fixture  # noqa: E402

from engine import GAMES as GAME_TYPES  # noqa: E402
from engine.tiles import Tile  # noqa: E402
from vision.layout import read  # noqa: E402
from vision.render.layouts import GAMES, make_layout, project_layout, read_matches, render_layout  # noqa: E402
from vision.types import TileDetection  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _warp(dets, H):
    out = []
    for d in dets:
        p = np.c_[d.corners, np.ones(4)] @ H.T
        out.append(
            TileDetection(
                (p[:, :2] / p[:, 2:3]).astype(np.float32),
                d.confidence,
                pips=d.pips,
                pip_confidence=d.pip_confidence,
            )
        )
    return out


def _sample(game, seed, rot=None, tilt=0.15, noise=1.5, **kw):
    s = make_layout(game, random.Random(seed), **kw)
    return project_layout(
        s, np.random.default_rng(seed), rotation_deg=rot, tilt=tilt, corner_noise_px=noise
    )


# --- the real photo --------------------------------------------------------------------------
VINTAGE_OPEN = [0, 0, 1, 1, 2, 3, 3, 4, 5, 6]


def _check_vintage(result):
    lay = result.layout
    assert sorted(lay["spinners"]) == ["0-0", "3-3", "4-4", "5-5"]
    items = lay["line"]
    parent_of = {
        it["tile"]: (None if it["parent"] is None else items[it["parent"]]["tile"]) for it in items
    }
    assert len(items) == 12
    assert parent_of["1-4"] == "4-4"  # 1-4 stands on 4-4
    for t in ("2-5", "3-5", "4-5"):  # 5-5's three arms
        assert parent_of[t] == "5-5" or parent_of["5-5"] == t
    assert sorted(e["number"] for e in lay["open_ends"]) == VINTAGE_OPEN
    assert not [p for p in result.problems if p.blocking]


def test_vintage_line_of_play_from_hand_entered_boxes():
    r = read(vintage_fixture.detections(), "draw100")
    _check_vintage(r)
    assert r.state is None and any(p.kind == "no_hand" for p in r.problems)


def test_vintage_line_of_play_through_the_detector():
    """The whole pipeline on the real photo: vision.detect (committed model) -> read."""
    from vision.pipeline import detect, load_image

    tiles = detect(load_image(ROOT / "sample_images" / "vintage-games-game-night.jpg"))
    r = read(tiles, "draw100")
    _check_vintage(r)


def test_vintage_rotated_and_in_perspective_with_a_hand():
    H = np.array([[0.8, -0.45, 300], [0.5, 0.75, 40], [0.0004, 0.0003, 1.0]])
    r = read(
        _warp(vintage_fixture.detections(), H),
        "draw100",
        hand=["1-1", "2-2", "5-6"],
        seed=3,
    )
    _check_vintage(r)
    assert r.ok
    moves = {m["text"] for m in r.legal_moves}
    # open numbers 0-6 all occur, so every hand tile has a move; 1-1 fits the two 1s
    assert sum("1-1" in m for m in moves) == 2
    assert any("5-6" in m for m in moves) and any("2-2" in m for m in moves)


def test_vintage_hint_is_a_legal_move():
    r = read(vintage_fixture.detections(), "draw100", hand=["1-1", "2-2", "5-6"], seed=1)
    hint = GAME_TYPES["draw100"].hint(r.state, samples=4)
    assert hint.action in r.state.legal_actions()
    json.dumps(r.to_json())


# --- each game, rotated and in perspective --------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_rebuild_rotated_perspective(game):
    rot_range = 40 if game in ("good-neighbors", "big-clock") else 180
    for seed in range(12):
        rot = float(np.random.default_rng(seed).uniform(-rot_range, rot_range))
        s = _sample(game, seed, rot=rot, tilt=0.15)
        r = read(s.labels, game, hand=s.hand, max_pip=s.max_pip)
        assert read_matches(s, r), (game, seed, [p.message for p in r.problems])
        json.dumps(r.to_json())


def test_rebuild_fails_when_a_value_is_wrong():
    s = _sample("good-neighbors", 5, rot=10.0, max_pip=12)
    d = s.labels[3]
    d.pips = (d.pips[0], (d.pips[1] + 1) % 13)
    r = read(s.labels, "good-neighbors", max_pip=12)
    assert not read_matches(s, r)


def test_good_neighbors_infers_the_set_from_the_grid():
    for n in (12, 9, 6):
        s = _sample("good-neighbors", 11, rot=0.0, tilt=0.05, max_pip=n)
        r = read(s.labels, "good-neighbors")
        if len([c for row in s.truth["grid"] for c in row if c]) == len(s.labels):
            assert r.layout["max_pip"] == n


def test_good_neighbors_rows_from_centres_when_box_angles_are_noisy():
    """Rows close together (gap a third of a tile width), the grid turned 1.5 degrees and every box
    turned up to 7 degrees the other way (as a detector's boxes can be): rows still come apart."""
    from vision.layout.good_neighbors import row_direction

    rng = np.random.default_rng(5)
    tiles = [
        f"{a}-{b}"
        for a, b in [
            (0, 4),
            (1, 5),
            (2, 3),
            (4, 5),
            (0, 5),
            (2, 6),
            (2, 4),
            (2, 2),
            (0, 3),
            (1, 1),
            (1, 2),
            (0, 6),
        ]
    ]
    L, W, slope = 104.0, 52.0, np.radians(1.5)
    u = np.array([np.cos(slope), np.sin(slope)])
    v = np.array([-u[1], u[0]])
    dets, centres = [], []
    for k, t in enumerate(tiles):
        r, c = divmod(k, 6)
        ctr = np.array([70.0, 80.0]) + c * 1.15 * L * u + r * 1.33 * W * v
        a = slope - np.radians(rng.uniform(3, 7))
        uu, vv = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
        corners = np.array(
            [
                ctr + sx * L / 2 * uu + sy * W / 2 * vv
                for sx, sy in [(-1, -1), (1, -1), (1, 1), (-1, 1)]
            ],
            np.float32,
        )
        a_, b_ = (int(x) for x in t.split("-"))
        dets.append(TileDetection(corners, 0.9, pips=(a_, b_), pip_confidence=0.95))
        centres.append(ctr)
    got = row_direction(
        np.array(centres), np.array([np.cos(slope - 0.09), np.sin(slope - 0.09)]), L
    )
    assert abs(np.degrees(np.arctan2(got[1], got[0])) - 1.5) < 0.5
    r = read(dets, "good-neighbors", max_pip=6)
    assert r.layout["grid"] == [tiles[:6], tiles[6:]]
    assert not [p for p in r.problems if p.blocking]


#: Detector output on a rendered draw-game layout (bench_layout seed 1, position 129) that once
#: crashed the line builder (StopIteration: a third tile on the ends of the first double).
CRASH_129 = [
    (
        [
            [930.0, 521.4000244140625],
            [929.0, 619.0],
            [885.7000122070312, 618.5999755859375],
            [886.7999877929688, 521.0],
        ],
        (1, 3),
    ),
    (
        [
            [925.5999755859375, 598.7999877929688],
            [932.0, 685.2999877929688],
            [889.0, 688.5],
            [882.5999755859375, 602.0],
        ],
        (3, 6),
    ),
    (
        [
            [921.7999877929688, 61.79999923706055],
            [924.4000244140625, 150.6999969482422],
            [879.9000244140625, 152.0],
            [877.2999877929688, 63.099998474121094],
        ],
        (4, 3),
    ),
    (
        [
            [925.5, 3.5],
            [923.4000244140625, 94.5],
            [877.0999755859375, 93.5],
            [879.2000122070312, 2.4000000953674316],
        ],
        (4, 5),
    ),
    (
        [
            [925.0999755859375, 190.60000610351562],
            [925.7000122070312, 277.8999938964844],
            [878.9000244140625, 278.29998779296875],
            [878.2999877929688, 190.89999389648438],
        ],
        (4, 4),
    ),
    (
        [
            [925.7000122070312, 317.8999938964844],
            [928.5, 413.1000061035156],
            [881.7000122070312, 414.5],
            [878.9000244140625, 319.29998779296875],
        ],
        (4, 4),
    ),
    (
        [
            [886.0999755859375, 325.1000061035156],
            [795.0, 326.20001220703125],
            [794.5, 283.79998779296875],
            [885.5999755859375, 282.79998779296875],
        ],
        (4, 0),
    ),
    (
        [
            [924.0, 142.39999389648438],
            [923.0, 248.39999389648438],
            [878.7000122070312, 248.0],
            [879.7000122070312, 142.0],
        ],
        (3, 4),
    ),
    (
        [
            [922.2000122070312, 412.6000061035156],
            [931.0, 512.2999877929688],
            [882.2000122070312, 516.5999755859375],
            [873.4000244140625, 416.8999938964844],
        ],
        (6, 1),
    ),
    (
        [
            [835.2999877929688, 277.3999938964844],
            [932.5, 286.20001220703125],
            [928.0999755859375, 335.5],
            [830.7999877929688, 326.70001220703125],
        ],
        (4, 4),
    ),
]


def test_draw100_three_tiles_on_a_double_is_a_problem_not_a_crash():
    dets = [
        TileDetection(np.array(c, np.float32), 0.9, pips=v, pip_confidence=0.9)
        for c, v in CRASH_129
    ]
    r = read(dets, "draw100", max_pip=6)
    assert not r.ok and any(p.kind == "duplicate" for p in r.problems)


def test_good_neighbors_gap_is_reported_with_its_cell():
    s = _sample("good-neighbors", 2, rot=0.0, tilt=0.0, max_pip=12)
    assert len(s.labels) == 12
    dets = s.labels[:5] + s.labels[6:]  # row 1, column 1 removed, not closed up
    r = read(dets, "good-neighbors", max_pip=12)
    gaps = [p for p in r.problems if p.kind == "gap"]
    # the message names the tile after the gap (the next in reading order), the layout the cell
    assert gaps and "just before table tile 5 " in gaps[0].message
    assert r.layout["gaps"] == [[1, 1]]
    assert r.state is None  # mid-turn: the grid must be closed up and refilled first
    assert any(p.kind == "mid_turn" and p.blocking for p in r.problems)
    r = read(dets, "good-neighbors", max_pip=12, stock=[])
    assert r.ok  # the deck is out: the grid is closed up in reading order
    flat = list(r.state.grid)  # reading order
    assert str(flat[4]) == s.truth["grid"][1][0] and str(flat[5]) == s.truth["grid"][1][2]


def test_big_clock_home_and_trouble_flags():
    for seed in range(20):
        s = _sample("big-clock", seed, rot=15.0, tilt=0.1, max_pip=12)
        r = read(s.labels, "big-clock", max_pip=12)
        for k, v in r.layout["slots"].items():
            t = s.truth["tops"][k]
            if t is None:
                assert v["blank"]
                continue
            tile = Tile.parse(t)
            assert v["home"] == (tile == Tile(int(k), int(k)))
            assert v["double_in_trouble"] == (tile.is_double and tile != Tile(int(k), int(k)))
            assert v["radial"] == v["home"]


def test_solitaire_state_gives_moves_and_hint():
    s = _sample("big-clock", 4, rot=0.0, max_pip=9)
    # without the drawn tile: a note (not blocking) and no advice, the hint asks for it
    r = read(s.labels, "big-clock", max_pip=9)
    assert r.ok and [p.kind for p in r.problems] == ["no_drawn"]
    hint = GAME_TYPES["big-clock"].hint(r.state, samples=2)
    assert hint.action is None and "draw" in hint.explanation
    drawn = str(r.state.stock[0])  # a tile that is on no pile
    for kw in ({"drawn": drawn}, {"hand": [drawn]}):
        r = read(s.labels, "big-clock", max_pip=9, **kw)
        assert r.ok and r.legal_moves and not r.problems and str(r.state.drawn) == drawn
        hint = GAME_TYPES["big-clock"].hint(r.state, samples=2)
        assert hint.action in r.state.legal_actions()
    with pytest.raises(ValueError, match="one tile you drew"):
        read(s.labels, "big-clock", max_pip=9, hand=[drawn, str(r.state.stock[1])])


# --- problems ---------------------------------------------------------------------------------
def _luzon_fits(s, k):
    """The double-6 tiles that could stand for tile ``k`` of a Luzon sample as far as the set
    goes: not on the table elsewhere, and the tiles then missing pair off in 12s."""
    from engine.luzon import removable_in_pairs
    from engine.tiles import DominoSet

    others = {Tile(*d.pips) for i, d in enumerate(s.labels) if i != k}
    return [
        t
        for t in DominoSet(6).tiles
        if t not in others
        and removable_in_pairs([u for u in DominoSet(6).tiles if u not in others and u != t])
    ]


def test_unreadable_tile_is_named_not_guessed():
    """A Luzon tile that cannot be read is named, unless the set leaves one tile for it
    (RULES.md section 3: the tiles gone were removed in pairs of 12 pips): then it is deduced
    and reported (``deduced``, not blocking); with two or more candidates it is not guessed."""
    seen = {"named": 0, "deduced": 0}
    for seed in range(30):
        s = _sample("luzon", seed, rot=0.0)
        k = 7
        truth = s.labels[k].pips
        fits = _luzon_fits(s, k)
        s.labels[k].pips = None
        s.labels[k].note = "glare on the tile"
        r = read(s.labels, "luzon")
        if len(fits) > 1:
            bad = [p for p in r.problems if p.kind == "unreadable"]
            assert [p.tile_index for p in bad] == [k] and "glare" in bad[0].message
            assert r.state is None and not r.legal_moves
            assert not [p for p in r.problems if p.kind == "deduced"]
            seen["named"] += 1
        else:
            assert fits == [Tile(*truth)]
            assert [(p.tile_index, p.blocking) for p in r.problems if p.kind == "deduced"] == [
                (k, False)
            ]
            assert f"only {fits[0]}" in [p.message for p in r.problems if p.kind == "deduced"][0]
            assert read_matches(s, r) and r.state is not None
            seen["deduced"] += 1
    assert min(seen.values()) >= 3, seen


def test_doubtful_reading_is_not_used():
    s = _sample("tableaux", 3, rot=30.0)
    s.labels[0].pip_confidence = 0.2
    r = read(s.labels, "tableaux", hand=s.hand, max_pip=s.max_pip)
    assert [p.tile_index for p in r.problems if p.kind == "doubtful"] == [0]
    assert r.state is None


def test_duplicate_tile_is_reported():
    s = _sample("draw100", 6, rot=0.0)
    s.labels[1].pips = s.labels[0].pips
    r = read(s.labels, "draw100", hand=s.hand)
    assert any(p.kind == "duplicate" and p.tile_index == 1 for p in r.problems)
    assert r.state is None


def test_tile_in_hand_and_on_table_is_a_duplicate():
    s = _sample("draw100", 8, rot=0.0)
    on_table = str(Tile(*s.labels[0].pips))
    r = read(s.labels, "draw100", hand=[on_table])
    assert any(p.kind == "duplicate" and p.source == "hand" for p in r.problems)
    assert r.state is None


def test_too_many_tiles_for_the_clock():
    s = _sample("big-clock", 9, rot=0.0, tilt=0.0, max_pip=6)
    used = {Tile(*d.pips) for d in s.labels}
    spare = next(t for t in __import__("engine.tiles").tiles.DominoSet(6).tiles if t not in used)
    extra = []
    for k, d in enumerate(s.labels[1:4]):
        extra.append(
            TileDetection(
                d.corners + np.float32([2000, 0]),
                1.0,
                pips=(spare.low, spare.high) if k == 0 else d.pips,
            )
        )
    r = read(s.labels + extra[:1], "big-clock", max_pip=6)
    assert any(p.kind == "too_many" for p in r.problems) and r.state is None


def test_outside_set_and_bad_arguments():
    s = _sample("luzon", 2, rot=0.0)
    s.labels[0].pips = (7, 2)
    r = read(s.labels, "luzon")
    assert [p.tile_index for p in r.problems if p.kind == "outside_set"] == [0]
    with pytest.raises(ValueError, match="unknown game"):
        read([], "chess")
    with pytest.raises(ValueError, match="played with a double-6 set, not double-9"):
        read([], "draw100", max_pip=9)
    with pytest.raises(ValueError, match="double-6/9 set, not double-12"):
        read([], "tableaux", max_pip=12)
    with pytest.raises(ValueError, match="bad hand tile"):
        read(vintage_fixture.detections(), "draw100", hand=["x-y"])
    r = read([], "good-neighbors")
    assert r.state is None and r.problems[0].kind == "no_layout"


# --- rendering and the command -----------------------------------------------------------------
def test_render_layout_labels_every_tile():
    s = make_layout("luzon", random.Random(0))
    render_layout(s, np.random.default_rng(0), image_size=(480, 360), rotation_deg=20.0)
    assert s.image.shape == (360, 480, 3) and len(s.labels) == len(s.placements)
    r = read(s.labels, "luzon")
    assert read_matches(s, r)


def test_read_command_json_on_the_real_photo(capsys):
    from companion.cli import main

    rc = main(
        [
            "read",
            str(ROOT / "sample_images/vintage-games-game-night.jpg"),
            "--game",
            "draw100",
            "--json",
            "--no-hint",
        ]
    )
    out = json.loads(capsys.readouterr().out)
    assert rc == (0 if out["ok"] else 3)
    assert out["game"] == "draw100" and "open_ends" in out["layout"]


def test_read_command_bad_file(capsys):
    from companion.cli import main

    rc = main(["read", "/nonexistent/photo.jpg", "--game", "luzon"])
    assert rc == 1 and "error" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["--game", "luzon", "--drawn", "3-5"], "--drawn is for big-clock"),
        (["--game", "big-clock", "--drawn", "3-5", "--hand", "x.jpg"], "not both"),
        (["--game", "big-clock", "--drawn", "three"], "tile"),
    ],
)
def test_read_command_drawn_tile_is_checked(capsys, argv, needle):
    from companion.cli import main

    rc = main(["read", str(ROOT / "sample_images/vintage-games-game-night.jpg")] + argv)
    assert rc == 1 and needle in capsys.readouterr().err


# --- arbitrary detections never crash the reader -----------------------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def _random_detections(draw):
    n = draw(st.integers(0, 14))
    out = []
    for _ in range(n):
        cx, cy = draw(st.floats(0, 600)), draw(st.floats(0, 600))
        ang = draw(st.floats(0, 6.3))
        length = draw(st.floats(0.0, 120))
        width = draw(st.floats(0.0, 60))
        a = np.array([np.cos(ang), np.sin(ang)]) * length / 2
        b = np.array([-np.sin(ang), np.cos(ang)]) * width / 2
        c = np.array([cx, cy])
        corners = np.array([c - a - b, c + a - b, c + a + b, c - a + b], np.float32)
        pips = draw(st.one_of(st.none(), st.tuples(st.integers(0, 12), st.integers(0, 12))))
        out.append(
            TileDetection(
                corners,
                1.0,
                face_down=draw(st.booleans()) and pips is None,
                pips=pips,
                pip_confidence=draw(st.floats(0, 1)),
            )
        )
    return out


@settings(max_examples=int(__import__("os").environ.get("LAYOUT_FUZZ", 40)), deadline=None)
@given(_random_detections(), st.sampled_from(GAMES))
def test_any_detections_give_a_result_not_a_crash(dets, game):
    r = read(dets, game, hand=["0-1"] if game in ("draw100", "tableaux") else None)
    json.dumps(r.to_json())
    if r.state is not None:
        assert not any(p.blocking for p in r.problems)


def test_hand_photo_detections_with_an_unreadable_tile():
    hand = vintage_fixture.detections()[:0]
    box = np.array([[0, 0], [90, 0], [90, 45], [0, 45]], np.float32)
    hand = [
        TileDetection(box, 1.0, pips=(1, 1), pip_confidence=0.9),
        TileDetection(box + 100, 1.0, pips=None, note="blurred"),
        TileDetection(box + 200, 1.0, pips=(2, 5), pip_confidence=0.9),
    ]  # 2-5 is on the table
    r = read(vintage_fixture.detections(), "draw100", hand=hand)
    kinds = {(p.kind, p.tile_index, p.source) for p in r.problems}
    assert ("unreadable", 1, "hand") in kinds and ("duplicate", 2, "hand") in kinds
    assert r.hand == ["1-1", "2-5"] and r.state is None


def test_vintage_photo_hand_entered_boxes_read_by_the_pip_counter():
    """The real photo: measured boxes, values from vision.pips (no hand-entered values)."""
    import cv2

    from vision.pips.counter import read_pips

    image = cv2.imread(str(ROOT / "sample_images/vintage-games-game-night.jpg"))
    dets = vintage_fixture.detections()
    for d in dets:
        d.pips, d.pip_confidence = None, None
    dets = read_pips(image, dets)
    _check_vintage(read(dets, "draw100"))


def test_big_clock_without_the_centre_tile_takes_the_top_slot():
    # without 0-0 the photo must be upright within half a slot (15 degrees for 12 slots)
    for seed in range(8):
        s = _sample("big-clock", seed, rot=(-10.0, 10.0)[seed % 2], tilt=0.1, max_pip=12)
        dets = [d for d in s.labels if d.pips != (0, 0)]
        assert len(dets) == len(s.labels) - 1
        r = read(dets, "big-clock", max_pip=12)
        assert r.layout["centre"] is None
        assert read_matches(s, r), [p.message for p in r.problems]


def test_luzon_upside_down_without_reserve_uses_the_aligned_tops():
    checked = 0
    for seed in range(60):
        s = make_layout("luzon", random.Random(seed))
        lengths = {len(c) for c in s.truth["columns"]}
        if s.truth["reserve"] or len(lengths) < 2:
            continue
        project_layout(s, np.random.default_rng(seed), rotation_deg=180.0, tilt=0.1)
        r = read(s.labels, "luzon")
        assert read_matches(s, r)
        checked += 1
    assert checked >= 1


def test_good_neighbors_removed_tiles_shrink_the_stock():
    s = _sample("good-neighbors", 1, rot=0.0, tilt=0.0, max_pip=9)
    grid = {c for row in s.truth["grid"] for c in row if c}
    spare = [
        str(t) for t in __import__("engine.tiles").tiles.DominoSet(9).tiles if str(t) not in grid
    ][:4]
    r0 = read(s.labels, "good-neighbors", max_pip=9)
    r1 = read(s.labels, "good-neighbors", max_pip=9, removed=spare)
    assert len(r0.state.stock) == 55 - len(grid)
    assert len(r1.state.stock) == 55 - len(grid) - 4
    assert not set(spare) & {str(t) for t in r1.state.stock}


def test_to_json_says_when_the_position_is_over():
    seen = set()
    for seed in range(40):
        s = _sample("luzon", seed, rot=0.0)
        r = read(s.labels, "luzon")
        js = r.to_json()
        assert js["terminal"] == r.state.is_terminal()
        if js["terminal"]:
            assert js["returns"] == list(r.state.returns()) and not js["legal_moves"]
        else:
            assert js["returns"] is None and js["legal_moves"]
        seen.add(js["terminal"])
    assert seen == {True, False}
    none = read([], "luzon").to_json()
    assert none["terminal"] is None and none["ok"] is False


def test_draw100_missing_tile_breaks_the_line_and_is_reported():
    dets = vintage_fixture.detections()
    del dets[8]  # 4-0 between 4-4 and 0-0: 0-0, 0-6, 6-1 are cut off
    r = read(dets, "draw100", hand=["1-1"])
    loose = sorted(p.tile_index for p in r.problems if p.kind == "not_joined")
    assert loose == [8, 9, 10]  # indices in the shortened list: 0-0, 0-6, 6-1
    assert r.state is None and len(r.layout["line"]) == 8


def _shifted_copy(d: TileDetection, along: float, pips, confidence: float) -> TileDetection:
    """A second box on the same place, moved ``along`` tile lengths along the tile."""
    shift = d.long_axis * (along * d.size[0])
    return TileDetection(
        (d.corners + shift).astype(np.float32), confidence, pips=pips, pip_confidence=0.9
    )


@pytest.mark.parametrize("game", ["good-neighbors", "tableaux", "draw100"])
def test_shifted_second_box_is_dropped_and_reported(game):
    s = _sample(game, 21, rot=30.0)
    clean = read(s.labels, game, hand=s.hand, max_pip=s.max_pip)
    assert read_matches(s, clean)
    # the detector's typical duplicate: a less confident box shifted a quarter of a tile, misread
    dets = list(s.labels) + [_shifted_copy(s.labels[2], 0.25, (5, 5), 0.3)]
    r = read(dets, game, hand=s.hand, max_pip=s.max_pip)
    dropped = [p for p in r.problems if p.kind == "overlapping_box"]
    assert [p.tile_index for p in dropped] == [len(dets) - 1] and not dropped[0].blocking
    assert read_matches(s, r)


def test_boxes_that_only_touch_are_both_kept():
    s = _sample("good-neighbors", 4, rot=0.0, tilt=0.0, noise=0.0)
    r = read(s.labels, "good-neighbors", max_pip=s.max_pip)
    assert not any(p.kind == "overlapping_box" for p in r.problems) and read_matches(s, r)
    # more than the threshold on a *less* confident box drops that one, not the other
    a = s.labels[0]
    twin = _shifted_copy(a, 0.2, a.pips, a.confidence + 0.05)
    r2 = read([twin] + list(s.labels), "good-neighbors", max_pip=s.max_pip)
    assert [p.tile_index for p in r2.problems if p.kind == "overlapping_box"] == [1]


def test_small_doubtful_box_is_not_a_tile():
    dets = vintage_fixture.detections()
    t = dets[0]
    small = TileDetection(
        ((t.corners - t.centre) * 0.35 + t.centre + np.float32([363, 248])).astype(np.float32),
        0.3,
        pips=(6, 6),
        pip_confidence=0.6,
    )  # a third as long, detector unsure
    r = read(dets + [small], "draw100")
    assert [p.tile_index for p in r.problems if p.kind == "stray_box"] == [len(dets)]
    _check_vintage(r)
    # the same box with a confident detector stays a tile (and breaks the line: reported)
    small.confidence = 0.9
    r2 = read(dets + [small], "draw100")
    assert not any(p.kind == "stray_box" for p in r2.problems)
    assert any(p.blocking and p.tile_index == len(dets) for p in r2.problems)


def test_big_clock_centre_seen_face_down_still_points_to_12():
    for seed in range(6):
        # a roll over half a slot (15 deg), so that "the slot nearest the top of the photo" is wrong
        s = _sample("big-clock", seed, rot=(-1) ** seed * (22.0 + 3 * seed), tilt=0.1, max_pip=12)
        dets = list(s.labels)
        k = next(i for i, d in enumerate(dets) if d.pips is not None and tuple(d.pips) == (0, 0))
        dets[k] = TileDetection(dets[k].corners, 0.8, face_down=True)
        r = read(dets, "big-clock", max_pip=12)
        assert read_matches(s, r), seed
        assert [p.tile_index for p in r.problems if p.kind == "face_down"] == [k]
        # without that tile the 12 o'clock slot is a guess from the photo's top, wrong at this roll
        r2 = read(dets[:k] + dets[k + 1 :], "big-clock", max_pip=12)
        assert not read_matches(s, r2), seed


@pytest.mark.parametrize("game", ["luzon", "good-neighbors", "tableaux"])
def test_lone_bare_face_down_box_is_taken_as_the_blank_double(game):
    import dataclasses

    from vision.types import BLANK_OR_BACK_NOTE, TileFlag

    checked = 0
    for seed in range(40):
        s = _sample(game, seed, rot=15.0, tilt=0.1)
        dets = list(s.labels)
        ks = [i for i, d in enumerate(dets) if d.pips is not None and tuple(d.pips) == (0, 0)]
        if not ks:
            continue
        k = ks[0]
        bare = TileDetection(
            dets[k].corners,
            0.7,
            face_down=True,
            note=BLANK_OR_BACK_NOTE,
            flag=TileFlag.BLANK_OR_BACK,
        )
        unsure = dataclasses.replace(bare, confidence=0.4)
        r = read(
            dets[:k] + [unsure] + dets[k + 1 :],
            game,
            hand=s.hand,
            max_pip=s.max_pip,
        )
        assert not [
            p for p in r.problems if p.kind == "assumed_blank"
        ]  # a doubtful box: not guessed
        r = read(dets[:k] + [bare] + dets[k + 1 :], game, hand=s.hand, max_pip=s.max_pip)
        assert read_matches(s, r), (game, seed, [p.message for p in r.problems])
        assert [(p.tile_index, p.blocking) for p in r.problems if p.kind == "assumed_blank"] == [
            (k, False)
        ]
        # a back with printed marks is not a bare face: left face down, the position is not rebuilt
        printed = TileDetection(dets[k].corners, 0.7, face_down=True, note="large printed marks")
        r = read(
            dets[:k] + [printed] + dets[k + 1 :],
            game,
            hand=s.hand,
            max_pip=s.max_pip,
        )
        assert not [p for p in r.problems if p.kind == "assumed_blank"]
        if game == "luzon" and len(_luzon_fits(s, k)) == 1:  # the set says which tile it is
            assert read_matches(s, r) and [
                p.tile_index for p in r.problems if p.kind == "deduced"
            ] == [k]
        else:
            assert not read_matches(s, r)
        # two bare boxes (a stock aside, say): neither is guessed
        far = TileDetection(
            dets[k].corners + np.float32([5000, 5000]),
            0.7,
            face_down=True,
            note=BLANK_OR_BACK_NOTE,
            flag=TileFlag.BLANK_OR_BACK,
        )
        r = read(
            dets[:k] + [bare] + dets[k + 1 :] + [far],
            game,
            hand=s.hand,
            max_pip=s.max_pip,
        )
        assert not [p for p in r.problems if p.kind == "assumed_blank"]
        checked += 1
    assert checked >= 3, checked


def test_bare_box_is_not_taken_as_the_blank_double_when_the_0_0_is_seen():
    from vision.types import BLANK_OR_BACK_NOTE, TileFlag

    for seed in range(40):
        s = _sample("luzon", seed, rot=0.0, tilt=0.0)
        if any(d.pips is not None and tuple(d.pips) == (0, 0) for d in s.labels):
            break
    box = s.labels[0].corners + np.float32([0, 3000])
    dets = list(s.labels) + [
        TileDetection(
            box, 0.7, face_down=True, note=BLANK_OR_BACK_NOTE, flag=TileFlag.BLANK_OR_BACK
        )
    ]
    r = read(dets, "luzon")
    assert not [p for p in r.problems if p.kind == "assumed_blank"]
    assert [p.tile_index for p in r.problems if p.kind == "face_down"] == [len(dets) - 1]


def test_detect_options_per_game():
    from vision.layout import detect_options

    # the draw game's boneyard lies face down beside the line: its backs are not read
    for game in GAME_TYPES:
        assert detect_options(game) == {"read_backs": game != "draw100", "keep_covered": True}
    assert detect_options(None) == {"read_backs": False, "keep_covered": False}
    assert detect_options("chess") == {"read_backs": False, "keep_covered": False}


def test_game_sets_of_the_reader_come_from_the_catalog_traits():
    import vision.layout as layout

    assert set(layout.READERS) == set(GAME_TYPES)
    assert layout.FACE_UP_GAMES == {"good-neighbors", "luzon", "tableaux"}
    assert layout.READ_BACKS_GAMES == {"good-neighbors", "luzon", "tableaux", "big-clock"}
    assert layout.KEEP_COVERED_GAMES == set(GAME_TYPES)
    assert layout.REREAD_WHEN == {
        "draw100": {"not_joined"},
        "luzon": {"duplicate", "impossible"},
        "tableaux": {"duplicate", "impossible"},
    }
    assert layout.DEDUCE_GAMES == {"luzon", "draw100"}
    assert layout.ONE_HALF_GAMES == {"draw100"}
    assert layout.DROP_GAMES == layout.TWIN_GAMES == {"luzon"}
    assert layout.COVER_GAMES == {"tableaux", "draw100"}


@pytest.mark.parametrize(
    "game,params,known",
    [
        ("luzon", {"varient": "sixes"}, "variant"),
        ("draw100", {"player": 3}, "players"),
        ("good-neighbors", {"variant": "sixes"}, "stock"),
        ("tableaux", {"with_hint": False}, "opponent_hand_count"),
    ],
)
def test_a_parameter_the_reader_does_not_take_is_refused_by_name(game, params, known):
    from vision.layout import ParameterError, reader_params

    assert known in reader_params(game) and not set(params) & set(reader_params(game))
    s = _sample(game, 3)
    with pytest.raises(ParameterError, match=f"no parameter '{next(iter(params))}'.*{known}"):
        read(s.labels, game, hand=s.hand, **params)
    assert read(s.labels, game, hand=s.hand, **{known: None} if known == "variant" else {}).ok


@pytest.mark.parametrize("seed", [100003 + 91])
def test_tableaux_keeps_the_covered_true_box_of_a_tile(seed):
    """A rendered Tableaux position (bench_layout seed 1, position 91) where the detector's
    coverage rule drops the true box of a tile and keeps a box across the halves of two touching
    tiles: read with ``keep_covered`` (as ``detect_options`` asks) it comes out exact; the layout
    reader's overlapping-box rule drops the doubtful box instead. (Depends on the committed
    detector: of the seed's first 200 positions, 91 and 116 show the problem.)"""
    from vision.layout import detect_options
    from vision.pipeline import detect
    from vision.render.layouts import ROTATION_RANGE

    s = make_layout("tableaux", random.Random(seed))
    nrng = np.random.default_rng(seed)
    lo, hi = ROTATION_RANGE["tableaux"]
    render_layout(s, nrng, rotation_deg=float(nrng.uniform(lo, hi)))
    from vision import filters

    opts = detect_options("tableaux")
    was = set(filters.DISABLED)
    filters.DISABLED.discard("suppress_covered")  # the coverage rule on (detect() has it off)
    try:
        covered_dropped = detect(s.image, read_backs=opts["read_backs"])
    finally:
        filters.DISABLED.clear()
        filters.DISABLED.update(was)
    before = read(covered_dropped, "tableaux", hand=s.hand, max_pip=s.max_pip)
    after = read(detect(s.image, **opts), "tableaux", hand=s.hand, max_pip=s.max_pip)
    assert not read_matches(s, before)
    assert read_matches(s, after)
    assert "overlapping_box" in {p.kind for p in after.problems}


def _misread(d: TileDetection, pips, alt) -> TileDetection:
    from dataclasses import replace

    return replace(d, pips=pips, alt_pips=alt, pip_confidence=0.7)


def test_draw100_broken_line_takes_the_one_second_reading_that_joins_it():
    """4-0 (tile 8) misread as 3-0 cuts 0-0, 0-6 and 6-1 off the line; its box's other reading
    (``alt_pips``, the pip counter against the half classifier) is 4-0, and only that joins
    every tile: it is taken and reported, not blocking."""
    dets = vintage_fixture.detections()
    dets[8] = _misread(dets[8], (3, 0), (4, 0))
    dets[2] = _misread(
        dets[2], (5, 3), (5, 2)
    )  # another tile with a second reading that fits nothing
    r = read(dets, "draw100", hand=["1-1"])
    _check_vintage(r)
    assert [(p.kind, p.tile_index) for p in r.problems if p.kind == "reread"] == [("reread", 8)]
    assert r.state is not None
    # without the second reading the line still names the tile: 4-4 before it, 0-0 after it;
    # of the one-half changes of every tile only 3-0 -> 4-0 joins the line (``corrected``)
    dets[8] = _misread(dets[8], (3, 0), None)
    r = read(dets, "draw100", hand=["1-1"])
    _check_vintage(r)
    got = [p for p in r.problems if p.kind == "corrected"]
    assert [(p.tile_index, p.blocking) for p in got] == [(8, False)] and "only 4-0" in got[
        0
    ].message
    # misread on both halves (3-1): no one-half change joins the line; the break stays reported
    dets[8] = _misread(dets[8], (3, 1), None)
    r = read(dets, "draw100", hand=["1-1"])
    assert sorted(p.tile_index for p in r.problems if p.kind == "not_joined") == [8, 9, 10, 11]
    assert r.state is None and not [p for p in r.problems if p.kind in ("reread", "corrected")]


def test_draw100_second_readings_are_not_guessed_between_two_tiles_or_for_two_misreads():
    """6-1 at the end of the line read as 2-1 (second reading 6-1) breaks the last join. If the
    0-6 before it also had a second reading 0-2, taking either would join the whole line: two
    tiles fit, so nothing is taken and the break stays reported. Two misread tiles at once are
    not mended either (one tile's second reading at a time)."""
    dets = vintage_fixture.detections()
    dets[11] = _misread(dets[11], (2, 1), (6, 1))
    r = read(dets, "draw100", hand=["1-1"])
    assert [p.tile_index for p in r.problems if p.kind == "reread"] == [11]
    dets[10] = _misread(dets[10], (0, 6), (0, 2))
    r = read(dets, "draw100", hand=["1-1"])
    assert not [p for p in r.problems if p.kind == "reread"]
    assert [p.tile_index for p in r.problems if p.kind == "not_joined"] == [11] and r.state is None
    dets = vintage_fixture.detections()
    dets[8] = _misread(dets[8], (3, 0), (4, 0))
    dets[11] = _misread(dets[11], (2, 1), (6, 1))
    r = read(dets, "draw100", hand=["1-1"])
    assert not [p for p in r.problems if p.kind == "reread"] and r.state is None


def test_luzon_tile_seen_twice_takes_the_second_reading_the_set_allows():
    """A Luzon tile misread as another tile on the table (a duplicate) takes its second reading
    when that reading is the only one that leaves the set whole (RULES.md section 3: the missing
    tiles pair off in 12s); a second reading that breaks the pairs is not taken."""
    from dataclasses import replace

    checked = 0
    for seed in range(30):
        s = _sample("luzon", seed, rot=0.0)
        k, j = 5, 11
        truth, other = tuple(s.labels[k].pips), tuple(s.labels[j].pips)
        s.labels[k] = _misread(s.labels[k], other, truth)
        r = read(s.labels, "luzon")
        assert read_matches(s, r), [p.message for p in r.problems]
        assert [(p.tile_index, p.blocking) for p in r.problems if p.kind == "reread"] == [
            (k, False)
        ]
        # a second reading that does not fit the set (one pip more), both readings equally sure
        # (so the less-sure-twin rule stays out): the duplicate stays
        wrong = (truth[0], truth[1] + 1) if truth[1] < 6 else (truth[0], truth[1] - 1)
        s.labels[k] = replace(
            _misread(s.labels[k], other, wrong), pip_confidence=s.labels[j].pip_confidence
        )
        r = read(s.labels, "luzon")
        dup = [p.message for p in r.problems if p.kind == "duplicate"]
        assert r.state is None and len(dup) == 1 and f"table tile {k} and table tile {j}" in dup[0]
        assert not [p for p in r.problems if p.kind == "reread"]
        checked += 1
    assert checked == 30


def test_luzon_less_sure_of_two_same_readings_is_deduced_when_the_set_names_it():
    """Two boxes read as the same tile, without a second reading: the one read less surely (by
    at least TWIN_MARGIN) is tried with every tile; when the set leaves one, it is taken
    (``deduced``); readings equally sure, or several candidates: the duplicate stays."""
    from dataclasses import replace

    seen = {"deduced": 0, "kept": 0}
    for seed in range(30):
        s = _sample("luzon", seed, rot=0.0)
        k, j = 5, 11
        truth = tuple(s.labels[k].pips)
        fits = _luzon_fits(s, k)
        s.labels[j] = replace(s.labels[j], pip_confidence=0.95)
        s.labels[k] = replace(
            s.labels[k], pips=tuple(s.labels[j].pips), pip_confidence=0.6, alt_pips=None
        )
        r = read(s.labels, "luzon")
        if fits == [Tile(*truth)]:
            assert read_matches(s, r), [p.message for p in r.problems]
            got = [p for p in r.problems if p.kind == "deduced"]
            assert [(p.tile_index, p.blocking) for p in got] == [
                (k, False)
            ] and "less surely" in got[0].message
            seen["deduced"] += 1
        else:
            assert r.state is None and "duplicate" in {p.kind for p in r.problems}
            seen["kept"] += 1
        s.labels[k] = replace(s.labels[k], pip_confidence=0.95)  # equally sure: not guessed
        r = read(s.labels, "luzon")
        assert r.state is None and not [p for p in r.problems if p.kind == "deduced"]
    assert min(seen.values()) >= 3, seen


def test_luzon_unsure_extra_box_is_dropped_when_only_that_fits():
    """A box the detector is unsure of (< 0.5), read as a tile already on the table, is left out
    when the table fits without it (``dropped``); a sure box is not."""
    s = _sample("luzon", 4, rot=0.0)
    extra = TileDetection(
        s.labels[3].corners + np.float32([0, 2000]), 0.35, pips=s.labels[3].pips, pip_confidence=0.9
    )
    r = read(list(s.labels) + [extra], "luzon")
    assert read_matches(s, r), [p.message for p in r.problems]
    assert [(p.tile_index, p.blocking) for p in r.problems if p.kind == "dropped"] == [
        (len(s.labels), False)
    ]
    sure = TileDetection(extra.corners, 0.8, pips=extra.pips, pip_confidence=0.9)
    r = read(list(s.labels) + [sure], "luzon")
    assert r.state is None and not [p for p in r.problems if p.kind == "dropped"]
    assert "duplicate" in {p.kind for p in r.problems}


def test_draw100_tile_of_the_line_seen_as_a_back_is_named_by_its_neighbours():
    """4-0 (tile 8) between 4-4 and 0-0, seen face down (a blank half without pips looks like a
    back): the line breaks there and of the set only 4-0, that way round, joins both sides:
    deduced and reported. A back at the end of the line (6-1, tile 11) could be many tiles or
    a boneyard tile: left face down, not guessed."""
    from dataclasses import replace

    dets = vintage_fixture.detections()
    dets[8] = replace(dets[8], face_down=True, pips=None, pip_confidence=None)
    r = read(dets, "draw100", hand=["1-1"])
    _check_vintage(r)
    got = [p for p in r.problems if p.kind == "deduced"]
    assert [(p.tile_index, p.blocking) for p in got] == [(8, False)] and "only 4-0" in got[
        0
    ].message
    dets = vintage_fixture.detections()
    dets[11] = replace(dets[11], face_down=True, pips=None, pip_confidence=None)
    r = read(dets, "draw100", hand=["1-1"])
    assert not [p for p in r.problems if p.kind == "deduced"]
    assert "1-6" not in {o["tile"] for o in r.layout["open_ends"]}


def test_draw100_arms_on_the_short_ends_of_a_spinner_join_across_a_gap():
    """A lead 6-6 with arms on both short ends and one on a long side, rendered with squat tiles
    (length 1.73 widths) that leave gaps of about half a tile width: every arm joins (PORT_TOL
    0.55; at 0.45 the short-end arms were left loose)."""
    seed = 2 * 100003 + 20
    s = make_layout("draw100", random.Random(seed))
    nrng = np.random.default_rng(seed)
    render_layout(s, nrng, rotation_deg=float(nrng.uniform(0, 360)))
    r = read(s.labels, "draw100", hand=s.hand)
    assert read_matches(s, r), [p.message for p in r.problems]
    assert sorted(o["number"] for o in r.layout["open_ends"]) == s.truth["open"] == [0, 0, 5, 6]


def test_alt_pips_go_through_the_json_of_the_web_page():
    from companion.services import _to_detections

    d = TileDetection(
        np.zeros((4, 2), np.float32) + [[0, 0], [20, 0], [20, 10], [0, 10]],
        0.9,
        pips=(3, 0),
        pip_confidence=0.7,
        alt_pips=(4, 0),
    )
    j = d.to_json()
    assert j["alt_pips"] == [4, 0]
    back = _to_detections([j], {})[0]
    assert back.alt_pips == (4, 0) and back.pips == (3, 0)
    fixed = _to_detections([j], {"0": [5, 0]})[0]  # a hand correction drops the second reading
    assert fixed.pips == (5, 0) and fixed.alt_pips is None


def test_tableaux_sure_box_across_two_tiles_is_dropped_when_only_that_fits():
    """The detector's box across two touching tiles can be surer than the true box of one of
    them, which the ``overlapping_box`` rule then leaves out. When the table fits only without
    the surer box, that box is taken for a box across two tiles (``dropped``) and the true box
    comes back; with two such boxes, no single one left out settles the table, and nothing is
    taken."""
    from dataclasses import replace

    s = _sample("tableaux", 21, rot=30.0)
    dets = [replace(d, confidence=0.6) for d in s.labels]
    # a third of a tile along tile 2, surer than it, read as tile 0: a duplicate
    across = _shifted_copy(dets[2], 0.3, dets[0].pips, 0.9)
    r = read(dets + [across], "tableaux", hand=s.hand)
    assert read_matches(s, r), [p.message for p in r.problems]
    assert [(p.tile_index, p.blocking) for p in r.problems if p.kind == "dropped"] == [
        (len(dets), False)
    ]
    assert not [p for p in r.problems if p.kind == "overlapping_box"]
    # the same without the rule's way out: two such boxes, each leaving the other's duplicate
    second = _shifted_copy(dets[4], 0.3, dets[1].pips, 0.9)
    r = read(dets + [across, second], "tableaux", hand=s.hand)
    assert r.state is None and not [p for p in r.problems if p.kind == "dropped"]
    assert sorted(p.tile_index for p in r.problems if p.kind == "overlapping_box") == [2, 4]
