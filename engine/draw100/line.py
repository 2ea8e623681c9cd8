"""The line of play of the double-six draw game: a TREE of placed tiles with open ends.

PUBLIC API (also used by the camera side, which rebuilds the line of play from a photo)
=====================================================================================
Rules (RULES.md section 4, seed ``004_*.txt``): every double is laid crosswise and is a
*spinner*. The first tile (always a double in this game, but a non-double first tile is
accepted here) is the root of the tree. Directions of a node, as strings:

- ``"end_a"``, ``"end_b"``: the two ends along the line. A non-double root is open on
  ``end_a`` (showing its ``low`` number) and ``end_b`` (showing ``high``). A double root is open
  on ``end_a`` and ``end_b`` (both along the line, left/right of the crosswise double).
- ``"side_a"``, ``"side_b"``: the two sides of a crosswise double (the two new directions it
  opens, at right angles to the line). Only doubles have sides.
- A tile attached to a parent always touches the parent with its own ``end_a`` (its *inner*
  number, equal to the parent's open number). It is then open on:
    * a non-double: ``end_b``, showing its other number (``outer``);
    * a double (a later spinner): ``end_b`` (the far end, continuing the line), ``side_a`` and
      ``side_b`` -- three open ends, all showing the double's number.
  A double root has four open ends: ``end_a``, ``end_b``, ``side_a``, ``side_b``.

An :class:`OpenEnd` has a stable string ``id`` ``"<node_id>.<direction>"`` (e.g. ``"0.side_a"``,
``"3.end_b"``) that does not change when other tiles are attached, the ``node_id`` of the tile
it belongs to, its ``direction`` and the ``number`` a tile must show to attach there (blank,
0, matches blank). Nodes are numbered 0 (the root), 1, 2, ... in order of placement.

Typical use::

    line = LineOfPlay()
    root = line.place_first(Tile(6, 6))           # -> 0; open ends 0.end_a 0.end_b 0.side_a 0.side_b
    n1 = line.attach(Tile(6, 2), "0.end_a")       # -> 1; open end 1.end_b shows 2
    n2 = line.attach(Tile(2, 2), "1.end_b")       # -> 2; a later spinner: 2.end_b 2.side_a 2.side_b
    [e.number for e in line.open_ends()]          # [6, 6, 6, 2, 2, 2]

The camera side can call :meth:`LineOfPlay.attach_at` with ``(node_id, direction)`` when it
sees where a tile touches its parent, and :meth:`LineOfPlay.from_json` /
:meth:`LineOfPlay.to_json` to exchange a line as plain data.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..tiles import Tile

DIRECTIONS = ("end_a", "end_b", "side_a", "side_b")
"""All direction names, in the order open ends are listed for one node."""


@dataclass(frozen=True)
class Node:
    """One placed tile of the line of play.

    Attributes:
        id: node number (0 is the first tile, then order of placement).
        tile: the tile.
        parent: id of the node it is attached to, or None for the first tile.
        parent_direction: the open end direction of the parent it was attached to
            (one of :data:`DIRECTIONS`), or None for the first tile.
        inner: the number touching the parent (None for the first tile).
        outer: the number facing away from the parent along the line (for a double, its
            number; for a non-double root, its ``high`` number).
    """

    id: int
    tile: Tile
    parent: int | None
    parent_direction: str | None
    inner: int | None
    outer: int

    @property
    def is_spinner(self) -> bool:
        """True for a double: laid crosswise, open on its sides (RULES.md section 4)."""
        return self.tile.is_double


@dataclass(frozen=True)
class OpenEnd:
    """A place where a tile can be attached.

    Attributes:
        id: stable id ``"<node_id>.<direction>"``.
        node_id: the node this open end belongs to.
        direction: one of :data:`DIRECTIONS`.
        number: the pip number (0-6) a tile must show to attach here.
    """

    id: str
    node_id: int
    direction: str
    number: int


def _open_directions(node: Node) -> tuple[str, ...]:
    if node.parent is None:
        return DIRECTIONS if node.tile.is_double else ("end_a", "end_b")
    return ("end_b", "side_a", "side_b") if node.tile.is_double else ("end_b",)


def _number_at(node: Node, direction: str) -> int:
    if node.parent is None and not node.tile.is_double and direction == "end_a":
        return node.tile.low
    return node.outer


def parse_end_id(end_id: str) -> tuple[int, str]:
    """Split ``"3.side_a"`` into ``(3, "side_a")``.

    Raises:
        ValueError: malformed id or unknown direction.
    """
    node_text, _, direction = str(end_id).partition(".")
    if not node_text.isdigit() or direction not in DIRECTIONS:
        raise ValueError(f"not an open end id: {end_id!r} (expected e.g. '0.side_a')")
    return int(node_text), direction


class LineOfPlay:
    """A tree of placed tiles with open ends (see the module docstring for the conventions).

    Mutating methods raise ``ValueError`` with a message for an impossible placement: a tile
    already in the line, a tile that does not show the open end's number, an open end that is
    not open (occupied or never existing), or a first tile placed twice.
    """

    def __init__(self) -> None:
        self._nodes: list[Node] = []
        self._open: dict[str, OpenEnd] = {}  # open ends by id, in open_ends() order
        self._tiles: set[Tile] = set()

    def _add_open_ends(self, node: Node) -> None:
        for d in _open_directions(node):
            end_id = f"{node.id}.{d}"
            self._open[end_id] = OpenEnd(end_id, node.id, d, _number_at(node, d))

    # --- building --------------------------------------------------------------------
    def place_first(self, tile: Tile) -> int:
        """Place the first tile (the lead) and return its node id, 0.

        Raises:
            ValueError: the line already has tiles.
        """
        if self._nodes:
            raise ValueError("the line of play already has a first tile")
        node = Node(0, tile, None, None, None, tile.high)
        self._nodes.append(node)
        self._tiles.add(tile)
        self._add_open_ends(node)
        return 0

    def can_attach(self, tile: Tile, open_end_id: str) -> bool:
        """True when ``tile`` may be attached at ``open_end_id`` (it is open, the tile shows its
        number, and the tile is not already in the line). Never raises for a bad id."""
        try:
            end = self.open_end(open_end_id)
        except ValueError:
            return False
        return tile not in self._tiles and tile.has(end.number)

    def attach(self, tile: Tile, open_end_id: str) -> int:
        """Attach ``tile`` at the open end ``open_end_id``; returns the new node id.

        The tile's end showing the open end's number touches the parent (its ``inner``).

        Raises:
            ValueError: see the class docstring.
        """
        end = self.open_end(open_end_id)
        if tile in self._tiles:
            raise ValueError(f"tile {tile} is already in the line of play")
        if not tile.has(end.number):
            raise ValueError(f"tile {tile} does not match open end {end.id} showing {end.number}")
        node = Node(
            len(self._nodes), tile, end.node_id, end.direction, end.number, tile.other(end.number)
        )
        self._nodes.append(node)
        del self._open[end.id]
        self._tiles.add(tile)
        self._add_open_ends(node)
        return node.id

    def attach_at(self, tile: Tile, node_id: int, direction: str) -> int:
        """Same as :meth:`attach` with the open end given as ``(node_id, direction)``."""
        return self.attach(tile, f"{node_id}.{direction}")

    # --- reading ---------------------------------------------------------------------
    @property
    def nodes(self) -> tuple[Node, ...]:
        """All nodes in order of placement (index == node id)."""
        return tuple(self._nodes)

    def node(self, node_id: int) -> Node:
        """The node ``node_id``. Raises ValueError when there is no such node."""
        if not (isinstance(node_id, int) and 0 <= node_id < len(self._nodes)):
            raise ValueError(f"no node {node_id!r} in the line of play ({len(self._nodes)} tiles)")
        return self._nodes[node_id]

    def children(self, node_id: int) -> list[Node]:
        """Nodes attached directly to ``node_id``, in order of placement."""
        return [n for n in self._nodes if n.parent == node_id]

    def tiles(self) -> list[Tile]:
        """Tiles in the line, in order of placement."""
        return [n.tile for n in self._nodes]

    def __len__(self) -> int:
        return len(self._nodes)

    def __contains__(self, tile: object) -> bool:
        return tile in self._tiles

    def open_end(self, open_end_id: str) -> OpenEnd:
        """The open end with this id.

        Raises:
            ValueError: malformed id, no such node, or that end is not open.
        """
        end = self._open.get(open_end_id) if isinstance(open_end_id, str) else None
        if end is not None:
            return end
        node_id, direction = parse_end_id(open_end_id)
        self.node(node_id)
        raise ValueError(f"open end {open_end_id!r} is not open")

    def open_ends(self) -> list[OpenEnd]:
        """Every open end, by node id then in :data:`DIRECTIONS` order. Empty before the lead."""
        return list(self._open.values())

    def open_numbers(self) -> list[int]:
        """The numbers at the open ends (with repeats), in :meth:`open_ends` order."""
        return [e.number for e in self._open.values()]

    def pips(self) -> int:
        """Total pips of the tiles in the line."""
        return sum(n.tile.pips for n in self._nodes)

    def copy(self) -> LineOfPlay:
        """An independent copy."""
        out = LineOfPlay()
        out._nodes = list(self._nodes)
        out._open = dict(self._open)
        out._tiles = set(self._tiles)
        return out

    # --- plain data ----------------------------------------------------------------------
    def to_json(self) -> list[dict[str, Any]]:
        """``[{"tile": "6-6", "parent": None, "direction": None}, {"tile": "6-2", "parent": 0,
        "direction": "end_a"}, ...]`` in order of placement (JSON-ready)."""
        return [
            {"tile": str(n.tile), "parent": n.parent, "direction": n.parent_direction}
            for n in self._nodes
        ]

    @classmethod
    def from_json(cls, items: Iterable[dict[str, Any]]) -> LineOfPlay:
        """Rebuild a line from :meth:`to_json` data (tiles as ``"a-b"`` strings, Tile objects or
        ``[a, b]`` lists). Items must come in an order where each parent precedes its children.

        Raises:
            ValueError: a bad tile, parent or direction, or any impossible placement.
        """
        line = cls()
        for i, item in enumerate(items):
            try:
                raw, parent, direction = item["tile"], item.get("parent"), item.get("direction")
            except (TypeError, KeyError):
                raise ValueError(f"line item {i} needs a 'tile' key: {item!r}") from None
            tile = _as_tile(raw)
            if parent is None:
                line.place_first(tile)
            else:
                line.attach_at(tile, parent, str(direction))
        return line

    def __str__(self) -> str:
        """The tree as indented text lines, e.g. ``[6-6]`` then ``  end_a: 6-2 (2 out)``."""
        if not self._nodes:
            return "(empty line of play)"
        lines: list[str] = []

        def walk(node: Node, depth: int) -> None:
            if node.parent is None:
                label = f"[{node.tile}]" + (" spinner" if node.is_spinner else "")
            else:
                kind = "spinner" if node.is_spinner else f"{node.outer} out"
                label = f"{node.parent_direction}: {node.inner}|{node.outer} ({kind})"
            lines.append("  " * depth + f"#{node.id} " + label)
            for child in self.children(node.id):
                walk(child, depth + 1)

        walk(self._nodes[0], 0)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"LineOfPlay({[str(t) for t in self.tiles()]})"


def _as_tile(raw: Any) -> Tile:
    if isinstance(raw, Tile):
        return raw
    if isinstance(raw, str):
        return Tile.parse(raw)
    if isinstance(raw, (list, tuple)) and len(raw) == 2:
        return Tile(raw[0], raw[1])
    raise ValueError(f"not a tile: {raw!r}")
