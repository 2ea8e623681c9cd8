"""Tile labels on a photo: sized to the tile, never on top of one another (vision/labels.py)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vision.labels import MAX_SHARED, place_labels


def upright(x: float, y: float, w: float, h: float) -> list[list[float]]:
    return [[x, y], [x, y + h], [x + w, y + h], [x + w, y]]


def shared(a, b) -> float:
    """The area two labels share, as a fraction of the smaller one."""
    ax0, ay0, ax1, ay1 = a.x - a.w / 2, a.y - a.h / 2, a.x + a.w / 2, a.y + a.h / 2
    bx0, by0, bx1, by1 = b.x - b.w / 2, b.y - b.h / 2, b.x + b.w / 2, b.y + b.h / 2
    ix = max(0.0, min(ax1, bx1) - max(ax0, bx0))
    iy = max(0.0, min(ay1, by1) - max(ay0, by0))
    return ix * iy / min(a.w * a.h, b.w * b.h)


def test_a_label_fits_inside_its_tile_and_grows_with_it():
    labels = place_labels(
        [upright(10, 10, 20, 40), upright(200, 10, 60, 120)], ["4-6", "4-6"], 800, 600
    )
    small, big = sorted(labels, key=lambda lab: lab.tile)
    for lab, (w, h) in ((small, (20, 40)), (big, (60, 120))):
        assert lab.w <= 0.95 * w and lab.h <= h and not lab.keyed
    assert big.size > 2.5 * small.size
    # its centre is the tile's centre
    assert (small.x, small.y) == pytest.approx((20, 30))


def test_a_crowded_table_of_small_tiles_has_no_overlapping_labels():
    """A cluttered desk seen from afar: 60 tiles of 14 x 28 px in touching rows, as the
    detector finds them (boxes slightly overlapping), with "10-12" texts (double-12)."""
    rng = np.random.default_rng(0)
    boxes = []
    for row, col in itertools.product(range(6), range(10)):
        x, y = 40 + col * 13.0 + rng.normal(0, 1), 40 + row * 27.0 + rng.normal(0, 1)
        boxes.append(upright(x, y, 14, 28))
    texts = ["10-12"] * len(boxes)
    labels = place_labels(boxes, texts, 1600, 1200, badges=[0, 5, 17])
    values = [lab for lab in labels if not lab.badge]
    assert sorted(lab.tile for lab in values) == list(range(60))  # every tile: value or number
    assert any(lab.keyed for lab in values)  # not every value fits: numbers stand in
    assert all(lab.text == str(lab.tile + 1) for lab in values if lab.keyed)
    assert sorted(lab.tile for lab in labels if lab.badge) == [0, 5, 17]
    drawn = [lab for lab in labels if lab.size > 0]  # size 0: in the key only
    assert len(drawn) > len(labels) / 2
    for a, b in itertools.combinations(drawn, 2):
        assert shared(a, b) <= MAX_SHARED + 1e-9, (a, b)
    for lab in drawn:  # inside the photo
        assert lab.x - lab.w / 2 >= -1e-6 and lab.x + lab.w / 2 <= 1600 + 1e-6


def test_a_tile_without_text_gets_no_label_and_bad_input_is_refused():
    labels = place_labels([upright(0, 0, 20, 40), upright(50, 0, 20, 40)], [None, "?"], 100, 100)
    assert [(lab.tile, lab.text) for lab in labels] == [(1, "?")]
    with pytest.raises(ValueError, match="label texts"):
        place_labels([upright(0, 0, 1, 1)], [], 10, 10)
    with pytest.raises(ValueError, match="4 corner points"):
        place_labels([[[0, 0], [1, 1]]], ["1-1"], 10, 10)
