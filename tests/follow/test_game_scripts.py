"""The rendered games' scripts (``vision.render.games``) show what a camera would see."""

from __future__ import annotations

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
