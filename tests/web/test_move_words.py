"""One spelling of a move (issue 33): the move list holds each spelling once, "Also possible"
never repeats the hint, a tile on the photo is written as its label there ("2-0" stays
"2-0"), and Big Clock piles are named by their place on the photo, not by their hour."""

from __future__ import annotations

import re

import cv2

from companion import hints, services
from engine import GAMES

from .conftest import SAMPLES


def spinner_reading() -> tuple[dict, list[dict]]:
    """A draw-game reading of one spinner 3-3 with two side ends showing 3, the hand's 0-3
    playable on either (two engine moves, one spelling), the hint on side a."""
    tiles = [
        {
            "corners": [[100, 60], [130, 60], [130, 120], [100, 120]],
            "pips": [3, 3],
            "halves": [[115, 75], [115, 105]],
        }
    ]

    def play(end: str) -> dict:
        return {"type": "play", "tiles": ["0-3"], "place": {"kind": "open_end", "end": end}}

    moves = [{"text": f"play 0-3 on {e}", "json": play(e)} for e in ("0.side_a", "0.side_b")]
    analysis = {
        "ok": True,
        "layout": {
            "line": [{"tile": "3-3", "tile_index": 0}],
            "joins": [],
            "open_ends": [
                {"id": e, "tile_index": 0, "number": 3} for e in ("0.side_a", "0.side_b")
            ],
        },
        "legal_moves": moves,
        "problems": [],
        "hint": {
            "action_json": play("0.side_a"),
            "action": "play 0-3 on 0.side_a",
            "ranking": [{"action": m["text"]} for m in moves],
        },
    }
    return analysis, tiles


def test_moves_spelt_alike_are_listed_once_and_not_again_under_also_possible():
    analysis, tiles = spinner_reading()
    advice = hints.present("draw100", analysis, tiles)
    assert advice["text"] == "Play 0-3 on the 3 at the side of the spinner"
    assert not any(d.startswith("Also possible") for d in advice["details"]), advice["details"]
    listed = services._moves_in_words(GAMES["draw100"], analysis, tiles, ["0-3"])
    assert [m["words"] for m in listed] == ["Play 0-3 on the 3 at the side of the spinner"]


def test_a_tile_on_the_photo_is_written_as_its_label_there():
    tiles = [
        {"corners": [[0, 0], [60, 0], [60, 30], [0, 30]], "pips": [2, 0]},
        {"corners": [[70, 0], [130, 0], [130, 30], [70, 30]], "pips": [5, 4]},
    ]
    gn = hints.present(
        "good-neighbors",
        {
            "hint": {"action_json": {"type": "remove", "tiles": ["0-2", "4-5"]}},
            "layout": {
                "cells": [{"tile": "0-2", "tile_index": 0}, {"tile": "4-5", "tile_index": 1}]
            },
        },
        tiles,
    )
    assert gn["text"] == "Remove the neighbours: 2-0 + 5-4"
    assert gn["tiles"] == ["0-2", "4-5"]  # what the page matches tiles by stays canonical


def clock_words(image) -> tuple[str, list[str]]:
    """The hint and the moves of a Big Clock photo read by the real detector, 0-3 drawn."""
    tiles = services.detect(image, "big-clock")
    a = services.read_table(tiles, {}, "big-clock", {}, ["0-3"])
    return a["advice"]["text"], [m["words"] for m in a["legal_moves"]]


def test_big_clock_piles_are_named_by_their_place_on_the_photo():
    """The rendered clock (sample_images/rendered/big-clock.jpg) lies turned: its 1-4 pile is
    pile 6 (the 0-0 in the middle points the clock's 12 along its long side) and is drawn at
    the top of the photo. The words say "at the top", and "at the right" once the photo is
    turned a quarter clockwise; no pile is named by its hour."""
    image = cv2.imread(str(SAMPLES / "rendered" / "big-clock.jpg"))
    hint, moves = clock_words(image)
    words = [hint, *moves]
    assert not any("o'clock" in w for w in words), words
    # which half of the 1-4 is named first follows the detector's box (the label on the photo
    # reads the same way); the place names are the point here
    assert {
        "Move the 4-4 at the top left onto the 4-1 at the top",
        "Move the 4-4 at the top left onto the 1-4 at the top",
    } & set(moves), moves
    assert "Put 0-3 on the 6-0 at the bottom" in moves
    assert len(moves) == len(set(moves))
    _hint, turned = clock_words(cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE))
    assert "Move the 4-4 at the top right onto the 4-1 at the right" in turned
    assert not any("o'clock" in w for w in turned)


def test_without_the_drawn_tile_no_move_handles_a_tile_the_player_does_not_hold():
    """Before the drawn tile is given the reader stands in a tile of the stock for it; the list
    keeps only moves of tiles on the clock."""
    image = cv2.imread(str(SAMPLES / "rendered" / "big-clock.jpg"))
    a = services.read_table(services.detect(image, "big-clock"), {}, "big-clock", {}, [])
    assert a["legal_moves"] and not a.get("advice")
    assert all(re.match(r"Move the \d+-\d+ at the ", m["words"]) for m in a["legal_moves"])


def test_a_problem_names_a_big_clock_pile_by_its_place_too():
    places = hints.pile_places(
        {
            "slots": {
                str(k): {"tile_index": i}
                for i, k in enumerate((12, 3, 6, 9))  # piles at 12, 3, 6 and 9 o'clock ...
            }
            | {str(k): {"blank": True} for k in (1, 2, 4, 5, 7, 8, 10, 11)}
        },
        [  # ... drawn at the right, bottom, left and top of the photo: the clock lies turned
            {"corners": [[x - 20, y - 10], [x + 20, y - 10], [x + 20, y + 10], [x - 20, y + 10]]}
            for x, y in ((300, 200), (200, 300), (100, 200), (200, 100))
        ],
    )
    assert (places["12"], places["3"], places["6"], places["9"]) == (
        "at the right",
        "at the bottom",
        "at the left",
        "at the top",
    )
    assert places["2"] == "at the bottom right"  # an empty pile: its number on the fitted ring
    text, _ = hints.plain_problem("slot 6 holds two tiles", None, places)
    assert text == "the pile at the left holds two tiles"
