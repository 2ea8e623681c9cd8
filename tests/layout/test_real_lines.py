"""Lines of play as real tables hold them: turns at a corner, snakes, doubles laid in line (a
house habit), branches from spinners. Boxes laid out like a table's, read by vision.layout."""

from __future__ import annotations

import numpy as np
import pytest

from engine.tiles import Tile
from vision.layout import read
from vision.types import TileDetection

L, W = 100.0, 50.0  # tile length and width, pixels
DIRS = {"E": (1, 0), "S": (0, 1), "W": (-1, 0), "N": (0, -1)}


def _det(first: np.ndarray, axis: np.ndarray, length: float, pips) -> TileDetection:
    """A box whose near end is centred at ``first`` and runs ``length`` along ``axis`` (``W``:
    a double laid crosswise, ``L`` across the line)."""
    n = np.array([-axis[1], axis[0]])
    across = L if length < L else W
    a, b = first, first + axis * length
    corners = np.array(
        [a - n * across / 2, b - n * across / 2, b + n * across / 2, a + n * across / 2],
        np.float32,
    )
    if length < L:  # a crosswise double: corners[0] -> [1] must be a long side
        corners = np.roll(corners, 1, axis=0)
    return TileDetection(corners, 0.95, pips=pips, pip_confidence=0.99)


def snake(path: str, doubles_in_line: bool, turn: str = "side") -> tuple[list, list[Tile]]:
    """A line from the double 6-6 following ``path`` (one letter E/S/W/N per tile after the
    lead), each tile matching the number before it; a ``D`` in ``path`` plays a double there
    (in line when ``doubles_in_line``, else crosswise). At a change of direction the next tile's
    end lies against the side of the last half of the tile before (``turn="side"``) or the tile
    before ends against the side of the next one's first half (``"end"``)."""
    used = {Tile(6, 6)}
    lead = L if doubles_in_line else W
    dets = [_det(np.array([0.0, 0.0]), np.array([1.0, 0.0]), lead, (6, 6))]
    tiles = [Tile(6, 6)]
    head = np.array([lead, 0.0])  # the free end of the line (middle of the last tile's far end)
    axis = np.array([1.0, 0.0])
    number = 6
    letters = [c for c in path if c != "D"]
    want_double = [path[k + 1 : k + 2] == "D" for k, c in enumerate(path) if c != "D"]
    for c, dbl in zip(letters, want_double):
        new_axis = np.array(DIRS[c], float)
        if dbl and Tile(number, number) not in used:
            t = Tile(number, number)
        else:
            free = [m for m in range(7) if m != number and Tile(number, m) not in used]

            def left(m: int) -> int:  # tiles still free that carry m: keep the chain going
                return sum(Tile(m, k) not in used for k in range(7))

            t = Tile(number, max(free, key=lambda m: (left(m), m)))
        used.add(t)
        other = t.high if t.low == number else t.low
        crosswise = t.is_double and not doubles_in_line
        length = W if crosswise else L
        if np.allclose(new_axis, axis):
            start = head
        elif turn == "side":  # this tile's end against the side of the last half before
            back = head - axis * W / 2
            start = back + new_axis * W / 2
        else:  # the tile before ends against the side of this one's first half
            start = head + axis * W / 2 - new_axis * W / 2
        dets.append(_det(start, new_axis, length, (number, other)))
        tiles.append(t)
        head, axis, number = start + new_axis * length, new_axis, other
    return dets, tiles


@pytest.mark.parametrize(
    "path, in_line, turn",
    [
        ("EEESSWWWW", False, "side"),  # a U turn at the table's edge
        ("EEESSWWWSSEE", False, "side"),  # a snake, two turns each way
        ("EEDESSWDWWW", True, "side"),  # doubles laid in line on a snake
        ("EEESSWWW", False, "end"),  # turns the other way: an end against the next tile's side
        ("EDEESSDWWDW", True, "end"),  # doubles in line, turns the other way
    ],
)
def test_a_snaking_line_joins_every_tile(path, in_line, turn):
    dets, tiles = snake(path, in_line, turn)
    got = read(dets, "draw100")
    assert [p.message for p in got.problems if p.kind == "not_joined"] == []
    assert {Tile.parse(it["tile"]) for it in got.layout["line"]} == set(tiles)
    notes = [p for p in got.problems if p.kind == "house_rule"]
    doubles_in_line = [t for t in tiles if t.is_double] if in_line else []
    assert len(notes) == len(doubles_in_line)
    assert all("RULES.md section 4" in p.message for p in notes)
    # the open end is the last tile's far number
    last = tiles[-1]
    ends = {(e["tile"], e["number"]) for e in got.layout["open_ends"]}
    assert any(tile == str(last) for tile, _ in ends)


def test_a_spinner_with_branches_on_both_sides_joins_every_tile():
    dets, tiles = snake("EEE", False)
    # two branches on the short ends (sides) of the 6-6 lead: 6-3 up, 6-2 down
    c = dets[0].centre
    up = _det(c + np.array([0, -W / 2]), np.array([0.0, -1.0]), L, (6, 3))
    down = _det(c + np.array([0, W / 2]), np.array([0.0, 1.0]), L, (6, 2))
    got = read(dets + [up, down], "draw100")
    assert not [p for p in got.problems if p.kind in ("not_joined", "ambiguous")]
    assert len(got.layout["line"]) == len(tiles) + 2
    assert not [p for p in got.problems if p.kind == "house_rule"]


@pytest.mark.parametrize("path, in_line", [("EEESSWWWW", False), ("EEDESSWDWWW", True)])
def test_tiles_nudged_out_of_line_by_a_hand_still_join(path, in_line):
    for seed in range(20):
        rng = np.random.default_rng(seed)
        dets, tiles = snake(path, in_line)
        nudged = []
        for d in dets:  # each tile shifted up to 0.2 widths and turned up to 5 degrees
            a = np.radians(rng.uniform(-5, 5))
            rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
            c = d.corners.mean(0)
            shift = rng.uniform(-0.2, 0.2, 2).astype(np.float32) * W
            moved = (d.corners - c) @ rot.T + c + shift
            nudged.append(TileDetection(moved, 0.95, pips=d.pips, pip_confidence=0.99))
        got = read(nudged, "draw100")
        assert not [p for p in got.problems if p.kind == "not_joined"], seed
        assert len(got.layout["line"]) == len(tiles), seed


@pytest.mark.parametrize(
    "path, turn",
    [
        ("EEDSSWWW", "side"),  # the next tile's end against a side of the double before the turn
        ("EESDSWWW", "end"),  # the tile before ends against a side of the double after the turn
        ("EEDSDWWDSS", "side"),  # doubles at three turns of a snake
        ("EESDSWDWWNDN", "end"),
    ],
)
def test_a_double_in_line_at_a_turn_is_read_in_line(path, turn):
    dets, tiles = snake(path, True, turn)
    got = read(dets, "draw100")
    assert [p.message for p in got.problems if p.kind in ("not_joined", "ambiguous")] == []
    assert {Tile.parse(it["tile"]) for it in got.layout["line"]} == set(tiles)
    notes = {p.message.split()[1] for p in got.problems if p.kind == "house_rule"}
    assert notes == {str(t) for t in tiles if t.is_double}


def _branch(d: TileDetection, side: int, pips) -> TileDetection:
    """A tile played out of the middle of a long side of ``d`` (a branch off a double laid in
    line, or the line through a crosswise one), ``side`` -1 or +1."""
    c = d.corners.mean(0)
    long_axis = d.corners[1] - d.corners[0]
    if np.linalg.norm(d.corners[2] - d.corners[1]) > np.linalg.norm(long_axis):
        long_axis = d.corners[2] - d.corners[1]
    a = long_axis / np.linalg.norm(long_axis)
    n = np.array([-a[1], a[0]]) * side
    return _det(c + n * W / 2, n, L, pips)


@pytest.mark.parametrize("sides", [(1,), (-1,), (1, -1)])
def test_a_double_in_line_with_branches_off_its_sides_joins_them(sides):
    dets, tiles = snake("EEDEE", True)
    k = next(i for i, t in enumerate(tiles) if i and t.is_double)
    n = tiles[k].high
    free = [m for m in range(7) if Tile(n, m) not in set(tiles) and m != n]
    branches = [_branch(dets[k], s, (n, m)) for s, m in zip(sides, free)]
    got = read(dets + branches, "draw100")
    assert [p.message for p in got.problems if p.kind in ("not_joined", "ambiguous")] == []
    assert len(got.layout["line"]) == len(tiles) + len(branches)
    notes = {p.message.split()[1] for p in got.problems if p.kind == "house_rule"}
    assert notes == {str(t) for t in tiles if t.is_double}


def test_a_crosswise_spinner_inside_the_line_with_branches_reads_crosswise():
    dets, tiles = snake("EEDE", False)
    k = next(i for i, t in enumerate(tiles) if i and t.is_double)
    n = tiles[k].high
    free = [m for m in range(7) if Tile(n, m) not in set(tiles) and m != n]
    # branches out of the short ends (the sides) of the crosswise double
    c = dets[k].centre
    up = _det(c + np.array([0, -L / 2]), np.array([0.0, -1.0]), L, (n, free[0]))
    down = _det(c + np.array([0, L / 2]), np.array([0.0, 1.0]), L, (n, free[1]))
    got = read(dets + [up, down], "draw100")
    assert [p.message for p in got.problems if p.kind in ("not_joined", "ambiguous")] == []
    assert len(got.layout["line"]) == len(tiles) + 2
    assert not [p for p in got.problems if p.kind == "house_rule"]


def _placements(dets: list[TileDetection]) -> list:
    """The boxes as tiles on a table plane (tile-width units, y up) for the renderer."""
    from vision.render.scene import Placement

    out = []
    for d in dets:
        c = d.corners.mean(0) / W
        # the long axis, from the middle of the short end at half 0 to the one at half 1
        e0, e1 = (d.corners[0] + d.corners[3]) / 2, (d.corners[1] + d.corners[2]) / 2
        if np.linalg.norm(e1 - e0) < 0.75 * L:  # a crosswise double: corners start on a long side
            e0, e1 = (d.corners[0] + d.corners[1]) / 2, (d.corners[2] + d.corners[3]) / 2
        ax = e1 - e0
        a, b = d.pips
        t = Tile(a, b)
        angle = float(np.degrees(np.arctan2(-ax[1], ax[0])))
        out.append(Placement(t, False, (float(c[0]), float(-c[1])), angle, a != t.low))
    return out


def _with_branches(path: str, in_line: bool) -> tuple[list, list[Tile]]:
    """``snake(path, in_line)`` with a branch out of both sides of its first double after the
    lead (the long sides of one in line, the short ends of a crosswise one)."""
    dets, tiles = snake(path, in_line)
    k = next(i for i, t in enumerate(tiles) if i and t.is_double)
    n = tiles[k].high
    free = [m for m in range(7) if Tile(n, m) not in set(tiles) and m != n][:2]
    if in_line:
        extra = [_branch(dets[k], s, (n, m)) for s, m in zip((1, -1), free)]
    else:
        c = dets[k].centre
        extra = [
            _det(c + np.array([0, s * L / 2]), np.array([0.0, s]), L, (n, m))
            for s, m in zip((-1.0, 1.0), free)
        ]
    return dets + extra, tiles + [Tile(n, m) for m in free]


@pytest.mark.slow
@pytest.mark.parametrize(
    "layout, in_line",
    [
        (lambda: snake("EEDSDWWDSS", True, "side"), True),  # doubles in line at three turns
        (lambda: snake("EESDSWDWWNDN", True, "end"), True),  # the other turn, four doubles
        (lambda: _with_branches("EEDEE", True), True),  # a double in line, two side branches
        (lambda: _with_branches("EEDESSWWW", False), False),  # a crosswise spinner, 2 branches
    ],
    ids=["turns-side", "turns-end", "in-line-branches", "crosswise-branches"],
)
def test_rendered_snakes_and_branches_join_every_tile_through_the_detector(layout, in_line):
    from vision.layout import detect_options
    from vision.pipeline import detect
    from vision.render.scene import render_scene
    from vision.render.styles import random_style

    dets, tiles = layout()
    rng = np.random.default_rng(0)
    scene = render_scene(
        _placements(dets), rng, random_style(rng, max_pip=6), (1024, 768), clutter=0, fill=0.8
    )
    got = read(detect(scene.image, **detect_options("draw100")), "draw100")
    assert [p.message for p in got.problems if p.kind in ("not_joined", "ambiguous")] == []
    assert {Tile.parse(it["tile"]) for it in got.layout["line"]} == set(tiles)
    notes = {p.message.split()[1] for p in got.problems if p.kind == "house_rule"}
    assert notes == ({str(t) for t in tiles if t.is_double} if in_line else set())
