"""Tiles and sets: the vocabulary every game and the vision pipeline share.

A *set* is double-N: every tile a-b with 0 <= a <= b <= N (RULES.md, "Common terms").
Double-6 has 28 tiles, double-9 has 55, double-12 has 91.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property

SUPPORTED_MAX_PIPS = (6, 9, 12)


@dataclass(frozen=True, order=True)
class Tile:
    """One domino tile, stored canonically as (low, high).

    ``Tile(5, 2)`` and ``Tile(2, 5)`` are the same tile. ``ends`` is ``(low, high)``;
    ``pips`` is their sum; a *double* has equal ends.

    Raises:
        ValueError: an end is negative or not an int.
    """

    low: int
    high: int

    def __init__(self, a: int, b: int):
        if not (isinstance(a, int) and isinstance(b, int)) or a < 0 or b < 0:
            raise ValueError(f"tile ends must be non-negative integers, got {a!r}-{b!r}")
        lo, hi = (a, b) if a <= b else (b, a)
        object.__setattr__(self, "low", lo)
        object.__setattr__(self, "high", hi)

    @property
    def ends(self) -> tuple[int, int]:
        """The two ends ``(low, high)``."""
        return (self.low, self.high)

    @property
    def pips(self) -> int:
        """Total pips on the tile (points)."""
        return self.low + self.high

    @property
    def is_double(self) -> bool:
        """True for a double (both ends equal)."""
        return self.low == self.high

    def has(self, n: int) -> bool:
        """True when either end shows ``n`` (the tile is in suit ``n``)."""
        return n == self.low or n == self.high

    def other(self, n: int) -> int:
        """The end opposite to ``n``. Raises ValueError when the tile has no end ``n``."""
        if n == self.low:
            return self.high
        if n == self.high:
            return self.low
        raise ValueError(f"tile {self} has no end {n}")

    def shares_number(self, other: Tile) -> bool:
        """True when the two tiles have at least one number in common."""
        return bool({self.low, self.high} & {other.low, other.high})

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Parse ``"3-5"`` (also ``"3:5"``, ``"3|5"``, ``"35"`` for single digits).

        Raises:
            ValueError: the text is not a tile.
        """
        s = text.strip()
        for sep in "-:|/ ,":
            if sep in s:
                a, _, b = s.partition(sep)
                try:
                    return cls(int(a), int(b))
                except ValueError:
                    break
        if len(s) == 2 and s.isdigit():
            return cls(int(s[0]), int(s[1]))
        raise ValueError(f"not a tile: {text!r} (expected e.g. '3-5')")

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"

    def __repr__(self) -> str:
        return f"Tile({self.low}, {self.high})"


class DominoSet:
    """A complete double-N set (N = ``max_pip``: 6, 9 or 12).

    Tiles are listed in canonical order (0-0, 0-1, ..., N-N); ``index`` maps a tile to its
    position in that order, which engines use to number actions.

    Raises:
        ValueError: ``max_pip`` is not 6, 9 or 12.
    """

    def __init__(self, max_pip: int = 6):
        if max_pip not in SUPPORTED_MAX_PIPS:
            raise ValueError(f"unsupported set double-{max_pip}; use one of {SUPPORTED_MAX_PIPS}")
        self.max_pip = max_pip

    @cached_property
    def tiles(self) -> tuple[Tile, ...]:
        """All (N+1)(N+2)/2 tiles in canonical order."""
        n = self.max_pip
        return tuple(Tile(a, b) for a in range(n + 1) for b in range(a, n + 1))

    @cached_property
    def _index(self) -> dict[Tile, int]:
        return {t: i for i, t in enumerate(self.tiles)}

    def index(self, tile: Tile) -> int:
        """Position of ``tile`` in canonical order. Raises ValueError if not in this set."""
        try:
            return self._index[tile]
        except KeyError:
            raise ValueError(f"tile {tile} is not in a double-{self.max_pip} set") from None

    def __contains__(self, tile: object) -> bool:
        return tile in self._index

    def __len__(self) -> int:
        return len(self.tiles)

    def __iter__(self) -> Iterator[Tile]:
        return iter(self.tiles)

    @property
    def doubles(self) -> tuple[Tile, ...]:
        """The N+1 doubles, 0-0 first."""
        return tuple(t for t in self.tiles if t.is_double)

    @property
    def total_pips(self) -> int:
        """Sum of pips over the whole set."""
        return sum(t.pips for t in self.tiles)

    def shuffled(self, rng: random.Random) -> list[Tile]:
        """A new list of all tiles in random order drawn from ``rng`` (seeded by the caller)."""
        stock = list(self.tiles)
        rng.shuffle(stock)
        return stock

    def check_tiles(self, tiles: Iterable[Tile]) -> None:
        """Check that ``tiles`` could all come from one such set.

        Raises:
            ValueError: a tile is outside the set, or the same tile appears twice.
        """
        seen: set[Tile] = set()
        for t in tiles:
            if t not in self:
                raise ValueError(f"tile {t} is not in a double-{self.max_pip} set")
            if t in seen:
                raise ValueError(f"tile {t} appears twice; a set has one of each tile")
            seen.add(t)

    def __repr__(self) -> str:
        return f"DominoSet(max_pip={self.max_pip})"
