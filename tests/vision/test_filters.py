"""Box filters (vision.filters): the stage table, apply(), flags and the ablation switch."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import numpy as np
import pytest

from vision import filters
from vision.types import TileDetection, TileFlag


def _box(cx: float, cy: float, length: float = 80, width: float = 40) -> np.ndarray:
    return np.array(
        [
            [cx - length / 2, cy - width / 2],
            [cx + length / 2, cy - width / 2],
            [cx + length / 2, cy + width / 2],
            [cx - length / 2, cy + width / 2],
        ],
        np.float32,
    )


@contextlib.contextmanager
def switched_on(*names: str) -> Iterator[None]:
    """The named filters on for the block, as the table had them after it."""
    was = set(filters.DISABLED)
    filters.DISABLED.difference_update(names)
    try:
        yield
    finally:
        filters.DISABLED.clear()
        filters.DISABLED.update(was)


def test_every_record_filter_has_a_stage_a_flag_and_a_function():
    names = [f.name for f in filters.BOX_FILTERS]
    assert len(names) == len(set(names))
    for f in filters.BOX_FILTERS:
        assert f.stage in ("detector", "verifier", "reader")
        if f.stage == "detector":
            assert f.run is None and f.flag is None
        else:
            assert f.run is not None and f.flag is not None and f.flag.dropped
    stages = [f.stage for f in filters.BOX_FILTERS]
    assert stages == sorted(stages, key=["detector", "verifier", "reader"].index)


def test_apply_returns_kept_boxes_and_new_flagged_records_of_the_dropped():
    best = TileDetection(_box(100, 100), 0.9, pips=(3, 5), pip_confidence=1.0)
    again = TileDetection(_box(120, 100), 0.4, pips=(5, 3), pip_confidence=1.0, note="x")
    with switched_on("drop_repeated_reads"):
        kept, dropped = filters.apply("reader", [best, again])
    assert kept == [best]
    assert len(dropped) == 1 and dropped[0] is not again
    assert dropped[0].flag is TileFlag.DROPPED_READ_TWICE
    assert dropped[0].note == "dropped: the same tile read twice (x)"
    assert again.flag is TileFlag.NONE and again.note == "x"  # the input record is unchanged


def test_verifier_stage_drops_boxes_by_their_not_tile_probability():
    tile = TileDetection(_box(100, 100), 0.5, not_tile=0.1)
    junk = TileDetection(_box(300, 100), 0.5, not_tile=0.97)
    sure = TileDetection(_box(500, 100), 0.95, not_tile=0.6)  # the detector is sure: kept
    unseen = TileDetection(_box(700, 100), 0.3)  # no verifier reading: kept
    kept, dropped = filters.apply("verifier", [tile, junk, sure, unseen])
    assert kept == [tile, sure, unseen]
    assert [d.flag for d in dropped] == [TileFlag.DROPPED_NOT_A_TILE]
    assert "0.97" in dropped[0].note


def test_disabled_filter_drops_nothing_and_unknown_names_are_refused():
    best = TileDetection(_box(100, 100), 0.9, pips=(3, 5), pip_confidence=1.0)
    again = TileDetection(_box(120, 100), 0.4, pips=(5, 3), pip_confidence=1.0)
    with switched_on("drop_repeated_reads"):
        assert filters.enabled("drop_repeated_reads")
        filters.DISABLED.add("drop_repeated_reads")
        assert not filters.enabled("drop_repeated_reads")
        assert filters.apply("reader", [best, again]) == ([best, again], [])
    # the table's own choice: what is not on is in DISABLED
    assert filters.DISABLED == {f.name for f in filters.BOX_FILTERS if not f.on}
    with pytest.raises(KeyError):
        filters.enabled("no_such_filter")
    with pytest.raises(ValueError):
        filters.apply("detector", [best])


def test_flag_and_scores_survive_json():
    t = TileDetection(
        _box(100, 100), 0.8, face_down=True, flag=TileFlag.BLANK_OR_BACK, scores=(0.2, 0.8)
    )
    j = json.loads(json.dumps(t.to_json()))
    assert j["flag"] == "blank_or_back" and j["scores"] == [0.2, 0.8] and j["not_tile"] is None
    assert TileFlag.parse(j["flag"]) is TileFlag.BLANK_OR_BACK
    assert (
        TileFlag.parse("something else") is TileFlag.NONE and TileFlag.parse(None) is TileFlag.NONE
    )
    assert t.face_down_ratio == pytest.approx(4.0)
    assert TileDetection(_box(0, 0), 0.5).face_down_ratio is None
