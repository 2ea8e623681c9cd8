"""The rendered games' scripts (``vision.render.games``) show what a camera would see."""

from __future__ import annotations

import math
import random

from vision.render.games import play_game


def test_tableaux_script_shows_the_starter_of_a_hand_nobody_could_play():
    # seed 3 game 17: hand 3 ends at its deal (neither player can play on 5-5): its starter is
    # laid and taken up again between hand 2's tableau and hand 4's starter, as at a table
    script = play_game("tableaux", random.Random("3-tableaux-17"))
    after_empty = [
        [str(p.tile) for p in st.placements]
        for prev, st in zip(script.steps, script.steps[1:], strict=False)
        if prev.kind == "show" and not prev.placements and st.kind == "show"
    ]
    assert after_empty == [["0-6"], ["5-5"], ["4-4"]]


def _axis_gap(a: float, b: float) -> float:
    """Angle between two tiles' long axes, 0-90 degrees."""
    d = abs(a - b) % 180
    return min(d, 180 - d)


def test_a_double_laid_in_line_has_its_ends_on_the_line_and_its_sides_branching():
    from engine.draw100.line import LineOfPlay
    from engine.tiles import Tile
    from vision.render.layouts import _line_placements

    line = LineOfPlay()
    lead = line.place_first(Tile(5, 5))
    line.attach_at(Tile(3, 5), lead, "end_b")
    line.attach_at(Tile(2, 5), lead, "side_a")
    for in_line in (False, True):
        pl = {str(p.tile): p for p in _line_placements(line, random.Random(4), 0.0, in_line)}
        double, end, side = pl["5-5"], pl["3-5"], pl["2-5"]

        def dist(p, q=double):
            return float(math.hypot(p.centre[0] - q.centre[0], p.centre[1] - q.centre[1]))

        if in_line:  # lengthwise: 5-3 carries on its axis, 5-2 leaves from its long side
            assert (
                _axis_gap(double.angle_deg, end.angle_deg) < 4
            )  # each tile jittered up to 1.5 degrees
            assert abs(dist(end) - 2.04) < 0.1 and abs(dist(side) - 1.54) < 0.1
        else:  # crosswise (RULES.md section 4)
            assert abs(_axis_gap(double.angle_deg, end.angle_deg) - 90) < 4
            assert abs(dist(end) - 1.54) < 0.1 and abs(dist(side) - 2.04) < 0.1
        assert abs(_axis_gap(end.angle_deg, side.angle_deg) - 90) < 4
