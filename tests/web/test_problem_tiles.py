"""Problems name tiles as the photo shows them: the number of the tile's badge (1-based) and
its label's value, never the reader's 0-based index; a Big Clock pile by its place on the
photo, a Tableaux cell by the tiles on it (issue 33: "problems in plain words")."""

from __future__ import annotations

import math

import numpy as np

from companion import services
from vision.layout import read
from vision.layout.common import TileDetection

from .conftest import SAMPLES, new_table
from .test_api import upload

JPEG = (SAMPLES / "IMG_0350.jpg").read_bytes()


def _tile(pips, centre, along, length=80.0, width=40.0) -> dict:
    """A face-up tile's detection (the web side's JSON) centred at ``centre`` (px), its long
    axis along the unit vector ``along``, ``pips[0]`` on the first half."""
    c, u = np.asarray(centre, float), np.asarray(along, float)
    v = np.array([-u[1], u[0]])
    a, b = c - u * length / 4, c + u * length / 4
    corners = [
        c + s * u * length / 2 + t * v * width / 2 for s, t in ((-1, -1), (1, -1), (1, 1), (-1, 1))
    ]
    return {
        "pips": list(pips),
        "face_down": False,
        "corners": [p.round(1).tolist() for p in corners],
        "halves": [a.round(1).tolist(), b.round(1).tolist()],
        "confidence": 0.95,
        "pip_confidence": 0.95,
        "note": "",
    }


def _clock_with_two_tops_at_three_o_clock() -> list[dict]:
    """A double-12 Big Clock: 0-0 upright in the middle (500, 500), one pile per hour on a
    ring of 300 px, piles across the radius; a second tile (7-11, photo tile 14) lies just
    outside the 3 o'clock pile (3-11, photo tile 4), at the right of the photo."""
    tops = [(12, 1), (1, 2), (2, 3), (3, 11), (4, 5), (5, 6), (6, 8), (7, 8), (8, 9), (9, 10),
            (10, 11), (11, 0)]  # fmt: skip
    out = [_tile((0, 0), (500, 500), (0, 1))]
    for hour, pips in zip(range(12), tops):
        a = math.radians(90 - 30 * hour)  # 12 o'clock at the top, clockwise
        r = np.array([math.cos(a), -math.sin(a)])  # image y points down
        out.append(_tile(pips, 500 + 300 * r, (-r[1], r[0])))
    out.append(_tile((11, 7), (500 + 420, 500), (0, 1)))
    return out


def test_a_big_clock_overlap_names_both_tiles_as_the_photo_shows_them(client, monkeypatch):
    tiles = _clock_with_two_tops_at_three_o_clock()
    monkeypatch.setattr(services, "detect", lambda image, game=None: [dict(t) for t in tiles])
    t = new_table(client, game="big-clock", players=("Ana",))
    p = upload(client, t, JPEG).json
    (clash,) = [q for q in p["analysis"]["problems"] if q["kind"] == "ambiguous"]
    # the machine's fields as the reader gives them: the second tile, both tiles to highlight
    assert clash["tile_index"] == 13 and clash["tiles"] == [4, 13]
    # the reader's 0-based indexes (3 and 13) and the pile number become the badges' numbers,
    # the labels' values and the pile's place on the photo
    assert clash["message"].startswith(
        "tile 5 (3-11) and tile 14 (11-7) both read as the top of the pile at the right"
    ), clash["message"]
    assert "slot" not in clash["message"] and "o'clock" not in clash["message"]
    assert clash["plain"] == "Where tile 14 belongs is unclear: check it."
    badges = {lab["text"] for lab in p["labels"] if lab["badge"]}
    assert {"5", "14"} <= badges  # the numbers the message uses are drawn on the photo


def _dets(tiles: list[dict]) -> list[TileDetection]:
    return services._detections_and_index(tiles, {})[0]


def test_reader_messages_name_tiles_by_a_token_the_page_rewrites():
    # the layout reader names tiles "table tile <its index>" (never a bare number) and a Big
    # Clock pile "slot <n>"; companion.hints.plain_problem turns both into the photo's words
    r = read(_dets(_clock_with_two_tops_at_three_o_clock()), "big-clock", max_pip=12)
    (clash,) = [q for q in r.problems if q.kind == "ambiguous"]
    assert clash.message.startswith("table tile 4 and table tile 13 both read as the top of slot 3")


def test_a_tableaux_overlap_and_a_box_seen_twice_name_the_tiles_on_the_photo():
    tiles = [
        _tile((1, 2), (100, 100), (1, 0)),
        _tile((2, 5), (125, 130), (0, 1)),  # its first half on the 1-2's second half's cell
        _tile((3, 4), (100, 180), (1, 0)),
        {**_tile((4, 3), (104, 182), (1, 0)), "confidence": 0.6},  # the 3-4's box again
    ]
    a = services.read_table(tiles, {}, "tableaux", {}, [])
    by_kind = {q["kind"]: q for q in a["problems"]}
    overlap, twice = by_kind["overlap"], by_kind["overlapping_box"]
    assert (overlap["tile_index"], overlap["tiles"]) == (1, [0, 1])
    assert overlap["message"] == (
        "tile 1 (1-2) and tile 2 (2-5) are read on the same place of the tableau; "
        "one may hide the other"
    )
    assert (twice["tile_index"], twice["tiles"]) == (3, [2, 3])
    assert "the more confident box of tile 3 (3-4):" in twice["message"]


def test_a_good_neighbors_gap_is_named_by_the_tile_after_it():
    values = [(0, a) for a in range(1, 7)] + [(1, a) for a in range(1, 7)]
    tiles = [  # a double-6 grid of 2 rows of 6, the third tile of the first row taken away
        _tile(values[6 * r + c], (100 + 95 * c, 100 + 55 * r), (1, 0))
        for r in range(2)
        for c in range(6)
        if (r, c) != (0, 2)
    ]
    a = services.read_table(tiles, {}, "good-neighbors", {}, [])
    assert a["layout"]["gaps"] == [[0, 2]]  # the layout's cells stay for the machine
    (gap,) = [q for q in a["problems"] if q["kind"] == "gap"]
    assert gap["tile_index"] is None and gap["tiles"] == [2]
    assert gap["message"].startswith("1 empty place inside the grid, just before tile 3 (0-4)")
    assert gap["plain"].startswith("The grid has an empty place before tile 3:")
