"""Tests of engine/tiles.py: Tile normalisation and parsing, DominoSet sizes and checks."""

import random

import pytest

from engine.tiles import DominoSet, Tile


def test_tile_is_canonical_low_high():
    assert Tile(5, 2) == Tile(2, 5)
    assert Tile(5, 2).ends == (2, 5)
    assert hash(Tile(5, 2)) == hash(Tile(2, 5))
    assert str(Tile(6, 1)) == "1-6"


def test_tile_properties():
    t = Tile(3, 5)
    assert t.pips == 8 and not t.is_double
    assert Tile(4, 4).is_double and Tile(4, 4).pips == 8
    assert t.has(3) and t.has(5) and not t.has(4)
    assert t.other(3) == 5 and t.other(5) == 3
    with pytest.raises(ValueError):
        t.other(4)
    assert Tile(0, 0).other(0) == 0
    assert t.shares_number(Tile(5, 6)) and not t.shares_number(Tile(0, 1))


@pytest.mark.parametrize("bad", [(-1, 2), (1.5, 2), ("1", 2)])
def test_tile_rejects_bad_ends(bad):
    with pytest.raises(ValueError):
        Tile(*bad)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("3-5", Tile(3, 5)),
        ("5:3", Tile(3, 5)),
        ("0|0", Tile(0, 0)),
        ("46", Tile(4, 6)),
        (" 12-10 ", Tile(10, 12)),
    ],
)
def test_tile_parse(text, expected):
    assert Tile.parse(text) == expected


@pytest.mark.parametrize("bad", ["", "x", "3-", "123", "a-b", "-1-2"])
def test_tile_parse_rejects(bad):
    with pytest.raises(ValueError, match="not a tile"):
        Tile.parse(bad)


@pytest.mark.parametrize("max_pip,size,doubles", [(6, 28, 7), (9, 55, 10), (12, 91, 13)])
def test_set_sizes(max_pip, size, doubles):
    s = DominoSet(max_pip)
    assert len(s) == size == len(set(s.tiles))
    assert len(s.doubles) == doubles
    assert all(t.high <= max_pip for t in s)
    assert [s.index(t) for t in s.tiles] == list(range(size))
    # each number appears max_pip + 2 times over the set (a double counts twice)
    assert s.total_pips == sum(t.low + t.high for t in s.tiles)


def test_double_six_total_pips():
    assert DominoSet(6).total_pips == 168


def test_set_rejects_other_sizes():
    with pytest.raises(ValueError):
        DominoSet(7)


def test_index_and_contains():
    s = DominoSet(6)
    assert s.index(Tile(0, 0)) == 0 and s.index(Tile(6, 6)) == 27
    assert Tile(6, 6) in s and Tile(6, 7) not in s
    with pytest.raises(ValueError):
        s.index(Tile(6, 7))


def test_shuffled_is_a_seeded_permutation():
    s = DominoSet(9)
    a = s.shuffled(random.Random(4))
    assert sorted(a) == sorted(s.tiles)
    assert a == s.shuffled(random.Random(4))
    assert a != s.shuffled(random.Random(5))


def test_check_tiles():
    s = DominoSet(6)
    s.check_tiles([Tile(1, 2), Tile(2, 3)])
    with pytest.raises(ValueError, match="twice"):
        s.check_tiles([Tile(1, 2), Tile(2, 1)])
    with pytest.raises(ValueError, match="not in a double-6"):
        s.check_tiles([Tile(1, 9)])
