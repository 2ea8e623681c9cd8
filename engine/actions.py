"""One JSON schema for the actions of every game.

Each engine keeps its own action values (small frozen dataclasses); ``State.action_record``
describes any of them as an :class:`ActionRecord`, whose JSON is the same for every game::

    {"type": "play", "tiles": ["3-5"], "place": {"kind": "open_end", "end": "0.side_a"}}
    {"type": "play", "tiles": ["2-4"], "place": {"kind": "cells", "cells": [[0, 1], [0, 2]]}}
    {"type": "remove", "tiles": ["1-2", "4-5", "0-3", "3-6"]}        # pairs: tiles 0+1, 2+3
    {"type": "move", "tiles": ["4-4"], "place": {"kind": "pile", "pile": 4},
     "source": {"kind": "pile", "pile": 9}}
    {"type": "move", "tiles": ["2-6"], "place": {"kind": "new_column"}}
    {"type": "draw", "tiles": []}

``type`` says what is done (:data:`ACTION_TYPES`); ``tiles`` are the tiles it handles, as
``"low-high"`` text: the tile played, moved, set aside, or the tiles removed (in pairs, each pair
together, for ``remove``); ``place`` is where a tile goes and ``source`` where a moved tile comes
from (one of the :data:`PLACE_KINDS`), both absent when the action has none. A page outlines
``tiles`` wherever they lie (photo or hand) and draws ``place``; it needs nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Union

Cell = tuple[int, int]

#: What an action does. play: lay a tile (draw game: on an open end, or the lead without place;
#: Tableaux: on two cells; Big Clock: the drawn tile on a pile); remove: take tiles off in pairs
#: (Good Neighbors, Luzon); move: move a tile (Big Clock: from pile to pile; Luzon: to a new
#: column); draw: draw from the boneyard; pass: no play possible; end_turn: stop a turn that
#: could go on (Tableaux); set_aside: put the drawn tile aside for good; give_up: end a lost game.
ACTION_TYPES = ("play", "remove", "move", "draw", "pass", "end_turn", "set_aside", "give_up")


@dataclass(frozen=True)
class OpenEnd:
    """An open end of the draw game's line of play, by its id (``engine.draw100.line.OpenEnd``,
    e.g. ``"0.side_a"``)."""

    end: str
    kind: ClassVar[str] = "open_end"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "end": self.end}


@dataclass(frozen=True)
class Cells:
    """Two edge-adjacent cells ``(row, col)`` of a Tableaux tableau (row grows downwards); the
    first takes the tile's low half, the second its high half (RULES.md section 5)."""

    cells: tuple[Cell, Cell]
    kind: ClassVar[str] = "cells"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "cells": [list(c) for c in self.cells]}


@dataclass(frozen=True)
class Pile:
    """The Big Clock pile at hour ``pile`` (1..12; RULES.md section 2)."""

    pile: int
    kind: ClassVar[str] = "pile"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "pile": self.pile}


@dataclass(frozen=True)
class NewColumn:
    """A new column of Luzon (RULES.md section 3)."""

    kind: ClassVar[str] = "new_column"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind}


Place = Union[OpenEnd, Cells, Pile, NewColumn]  # noqa: UP007 (PyPy 3.9 runs the benchmarks, docs/solitaires.md)
PLACE_KINDS = (OpenEnd.kind, Cells.kind, Pile.kind, NewColumn.kind)


def _int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"{what} must be a whole number, not {v!r}")
    return v


def place_from_json(d: Any) -> Place | None:
    """The :data:`Place` of a JSON ``place`` (None for None).

    Raises:
        ValueError: not one of :data:`PLACE_KINDS` or a field of the wrong shape.
    """
    if d is None:
        return None
    if not isinstance(d, Mapping):
        raise ValueError(f"a place is an object with a kind, not {d!r}")
    kind = d.get("kind")
    if kind == OpenEnd.kind:
        end = d.get("end")
        if not isinstance(end, str):
            raise ValueError(f"an open end is named by its id text, not {end!r}")
        return OpenEnd(end)
    if kind == Cells.kind:
        cells = d.get("cells")
        if not isinstance(cells, (list, tuple)) or len(cells) != 2:
            raise ValueError(f"cells must be two [row, col] pairs, not {cells!r}")
        pair = []
        for c in cells:
            if not isinstance(c, (list, tuple)) or len(c) != 2:
                raise ValueError(f"a cell is [row, col], not {c!r}")
            pair.append((_int(c[0], "a cell row"), _int(c[1], "a cell column")))
        return Cells((pair[0], pair[1]))
    if kind == Pile.kind:
        return Pile(_int(d.get("pile"), "a pile"))
    if kind == NewColumn.kind:
        return NewColumn()
    raise ValueError(f"unknown place kind {kind!r}; one of {', '.join(PLACE_KINDS)}")


@dataclass(frozen=True)
class ActionRecord:
    """An action of any game in the common schema (see the module docstring).

    Attributes:
        type: one of :data:`ACTION_TYPES`.
        tiles: the tiles the action handles, ``"low-high"`` text (empty for draw, pass, ...).
        place: where the tile goes, or None.
        source: where a moved tile comes from, or None.
    """

    type: str
    tiles: tuple[str, ...] = ()
    place: Place | None = None
    source: Place | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"type", "tiles"[, "place"][, "source"]}``, JSON-ready."""
        out: dict[str, Any] = {"type": self.type, "tiles": list(self.tiles)}
        if self.place is not None:
            out["place"] = self.place.to_json()
        if self.source is not None:
            out["source"] = self.source.to_json()
        return out

    @classmethod
    def from_json(cls, d: Any) -> ActionRecord:
        """The record of a JSON action (the inverse of :meth:`to_json`).

        Raises:
            ValueError: not an object, an unknown type, tiles not a list of text, a bad place.
        """
        from .tiles import Tile

        if not isinstance(d, Mapping):
            raise ValueError(f"an action is an object with a type, not {d!r}")
        kind = d.get("type")
        if kind not in ACTION_TYPES:
            raise ValueError(f"unknown action type {kind!r}; one of {', '.join(ACTION_TYPES)}")
        tiles = d.get("tiles", [])
        if not isinstance(tiles, (list, tuple)) or not all(isinstance(t, str) for t in tiles):
            raise ValueError(f"tiles must be a list of tile texts like '3-5', not {tiles!r}")
        return cls(
            kind,
            tuple(str(Tile.parse(t)) for t in tiles),
            place_from_json(d.get("place")),
            place_from_json(d.get("source")),
        )


__all__ = [
    "ACTION_TYPES",
    "PLACE_KINDS",
    "ActionRecord",
    "Cells",
    "NewColumn",
    "OpenEnd",
    "Pile",
    "Place",
    "place_from_json",
]
