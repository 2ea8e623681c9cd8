"""The follow benchmark's measure of wrong scores the players were not asked about."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench_follow.py"
_spec = importlib.util.spec_from_file_location("bench_follow", SCRIPT)
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

FINAL = {"scores": [11, 47], "hands": [["domino", 0, 11], ["domino", 1, 47]]}


def _hand(n: int, winner: int, points: int, asked: bool = False) -> list[dict]:
    recs = [{"type": "play", "tile": "1-2"}, {"type": "hand_end", "hand": n}]
    if asked:
        recs.append({"type": "question", "message": "a tile beyond the picture?"})
    return recs + [{"type": "hand_scored", "winner": winner, "points": points}]


def test_a_wrong_hand_without_a_question_is_unasked():
    assert bench._unasked(FINAL, _hand(1, 0, 11) + _hand(2, 1, 40)) is True


def test_a_wrong_hand_with_a_question_in_its_reveal_is_asked():
    assert bench._unasked(FINAL, _hand(1, 0, 11) + _hand(2, 1, 40, asked=True)) is False
    # a question on the right hand does not cover the wrong one
    assert bench._unasked(FINAL, _hand(1, 0, 11, asked=True) + _hand(2, 1, 40)) is True


def test_a_hand_not_scored_counts_as_wrong_and_kinds_without_hands_have_no_measure():
    assert bench._unasked(FINAL, _hand(1, 0, 11)) is True
    assert bench._unasked({"scores": [3, 5]}, []) is None
