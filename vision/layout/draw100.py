"""Double-six draw to 100 (RULES.md section 4): the line of play as the engine's tree.

Every double lies crosswise and is a spinner. Each tile offers *ports* where another tile can
touch it: a non-double its two short ends (the number of the half there); a double its two
long sides (the line runs through them: engine directions ``end_a``/``end_b``) and its two
short ends (its sides: ``side_a``/``side_b``), all showing its number. Tiles i and j are
joined when a port of one lies on (or within ``0.55`` tile widths of) the other's box and the
two touching numbers are equal (a half touching another tile's half with the same number).

The tree is grown breadth-first from a double (the highest first; another double if that one
cannot reach every joined tile with crosswise doubles), giving an
``engine.draw100.line.LineOfPlay``. Which double led cannot be seen in a photo; a different
root gives the same tiles, joins and open ends (only the node numbering changes).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np

from engine.draw100 import Draw100Game
from engine.draw100.line import LineOfPlay
from engine.tiles import Tile

from .common import GameReading, Problem, Seen, check_set, perp, tile_json

#: Port tolerance, in tile widths (distance from a port point to the other tile's box).
PORT_TOL = 0.55


def ports(s: Seen) -> list[tuple[str, np.ndarray, int | None]]:
    """The ports of a tile: ``[(name, (2,) pixel point, number), ...]``.

    Non-double: ``end0``/``end1`` at the short ends of half 0 / half 1. Double: ``long0``,
    ``long1`` (middle of each long side) and ``short0``, ``short1`` (middle of each short end).
    """
    c, a = s.centre, s.axis
    n = perp(a)
    h = s.length / 2
    w = s.width / 2
    v = s.value
    if v is not None and v[0] == v[1]:
        return [
            ("long0", c - n * w, v[0]),
            ("long1", c + n * w, v[0]),
            ("short0", c - a * h, v[0]),
            ("short1", c + a * h, v[0]),
        ]
    return [
        ("end0", c - a * h, None if v is None else v[0]),
        ("end1", c + a * h, None if v is None else v[1]),
    ]


def _point_to_box(p: np.ndarray, box: np.ndarray) -> float:
    import cv2

    return max(
        0.0, -float(cv2.pointPolygonTest(box.astype(np.float32), (float(p[0]), float(p[1])), True))
    )


def joins(tiles: Sequence[Seen]) -> dict[tuple[int, int], tuple[str, str]]:
    """Joined pairs: ``{(i, j): (port of tiles[i], port of tiles[j])}`` (i < j, list indices).

    A pair joins when a port of one tile lies within ``PORT_TOL`` widths of the other's box and
    the numbers at the two nearest ports are equal. Non-doubles never touch on a long side.
    """
    W = float(np.median([s.width for s in tiles]))
    P = [ports(s) for s in tiles]
    out: dict[tuple[int, int], tuple[str, str]] = {}
    C = np.array([s.centre for s in tiles])
    for i in range(len(tiles)):
        for j in range(i + 1, len(tiles)):
            if np.linalg.norm(C[i] - C[j]) > (tiles[i].length + tiles[j].length) * 0.75:
                continue
            best = None
            for a, b in ((i, j), (j, i)):
                for name, pt, num in P[a]:
                    d = _point_to_box(pt, tiles[b].det.corners)
                    if d > PORT_TOL * W:
                        continue
                    nb, ptb, numb = min(P[b], key=lambda q: float(np.linalg.norm(q[1] - pt)))
                    if num is None or num != numb:
                        continue
                    dd = d + float(np.linalg.norm(ptb - pt)) * 0.1
                    if best is None or dd < best[0]:
                        best = (dd, (name, nb) if a == i else (nb, name))
            if best is not None:
                out[(i, j)] = best[1]
    return out


#: A tile against a long side of a double whose touching end's middle lies more than this many
#: half-lengths of the double from that side's middle lies against one half: a turn of the line.
OFF_CENTRE = 0.3


def in_line(tiles: Sequence[Seen], edges: dict) -> set[int]:
    """Indices of the doubles laid in line (a house habit; RULES.md section 4 lays them crosswise).

    A crosswise double is touched in the middle of its long sides by the line through it, and
    on its short ends (its sides) by branches going straight out. The geometry that only a
    double laid in line gives:

    - every tile joined to it touches a short end;
    - a tile lies against *one half* of a long side (its touching end's middle more than
      ``OFF_CENTRE`` half-lengths from the side's middle): the line turns at the double, the
      next tile's end against the side of the double's last half, or the tile before ending
      against the side of the double's first half;
    - a short end lies against the long side of a tile across it (the double's end against the
      side of the next tile's first half: a turn).

    A double touched in the middle of a long side and also on a short end fits both ways (a
    crosswise spinner with a branch, or a double in line with a branch off its side): it is
    read as the table lays its doubles, in line when another double is in line by the
    geometry above, else crosswise.
    """
    touched: dict[int, list[tuple[str, int, str]]] = {}
    for (i, j), (pi, pj) in edges.items():
        touched.setdefault(i, []).append((pi, j, pj))
        touched.setdefault(j, []).append((pj, i, pi))
    shown: set[int] = set()
    either: set[int] = set()
    for k, s in enumerate(tiles):
        if not s.is_double or not touched.get(k):
            continue
        on = touched[k]
        if all(p.startswith("short") for p, _, _ in on):
            shown.add(k)
            continue
        for p, o, po in on:
            pt = dict((name, q) for name, q, _ in ports(tiles[o]))[po]
            if p.startswith("long"):
                along = abs(float(np.dot(pt - s.centre, s.axis))) / (s.length / 2)
                if along > OFF_CENTRE:
                    shown.add(k)
            elif abs(float(np.dot(tiles[o].axis, s.axis))) < 0.5:
                shown.add(k)
        if k not in shown and any(p.startswith("short") for p, _, _ in on):
            either.add(k)
    return (shown | either) if shown else shown


def build_line(
    tiles: Sequence[Seen], root: int, edges: dict, inline: set[int] | None = None
) -> tuple[LineOfPlay, list[int], list[str]]:
    """Grow the line of play from ``tiles[root]`` over the joins.

    The doubles of ``inline`` (indices, :func:`in_line`) lie *in line* (a house habit; RULES.md
    section 4 lays every double crosswise): the line runs through their short ends and their
    long sides are their sides.

    Returns:
        ``(line, node_of, errors)``: the line, ``node_of[k]`` the node id of ``tiles[k]`` (-1
        when not reached) and a list of error messages (two tiles on one port, a third tile on
        one axis of a double, ...).
    """
    inline = inline or set()
    adj: dict[int, list[tuple[int, str, str]]] = {k: [] for k in range(len(tiles))}
    for (i, j), (pi, pj) in edges.items():
        adj[i].append((j, pi, pj))
        adj[j].append((i, pj, pi))
    line = LineOfPlay()
    node_of = [-1] * len(tiles)
    used: dict[int, set[str]] = {k: set() for k in range(len(tiles))}
    errors: list[str] = []
    node_of[root] = line.place_first(tiles[root].known)
    queue = deque([root])
    while queue:
        p = queue.popleft()
        sides = iter(("side_a", "side_b"))
        ends = iter(("end_a", "end_b"))
        for q, pp, pq in sorted(adj[p], key=lambda e: e[1]):
            if node_of[q] >= 0:
                continue
            if pp in used[p]:
                errors.append(f"two tiles touch table tile {tiles[p].index} at the same place")
                continue
            tp = tiles[p]
            if tp.is_double:
                # the ports along the line: the long sides of a crosswise double, the short ends
                # of one laid in line
                across = "long" if p in inline else "short"
                if pp.startswith(across):
                    direction = next(sides, None)
                elif line.node(node_of[p]).parent is None:
                    direction = next(ends, None)
                else:
                    direction = "end_b"
            else:
                direction = "end_b"
            if direction is None:  # a third tile on the two sides (or two ends) of a double
                errors.append(
                    f"more than two tiles touch the double table tile {tp.index} on the same axis"
                )
                continue
            if tiles[q].is_double and pq.startswith("short") and q not in inline:
                errors.append(
                    f"the double table tile {tiles[q].index} is joined by its "
                    "short end; doubles lie crosswise"
                )
                continue
            try:
                node_of[q] = line.attach_at(tiles[q].known, node_of[p], direction)
            except ValueError as e:
                errors.append(f"table tile {tiles[q].index}: {e}")
                continue
            used[p].add(pp)
            used[q].add(pq)
            queue.append(q)
    return line, node_of, errors


def read_draw100(
    seen: list[Seen],
    problems: list[Problem],
    hand: Sequence[Tile] | None = None,
    players: int = 2,
    opponent_hand_counts: Sequence[int] | None = None,
    boneyard_count: int | None = None,
    scores: Sequence[int] | None = None,
    seed: int | None = None,
) -> GameReading:
    """Rebuild the line of play (and, with the player's hand, a ``Draw100State``).

    Args:
        seen: the table's tiles.
        problems: list to append to.
        hand: the player's hand (tiles), or None (then no state: the layout and open ends only).
        players: 2-4.
        opponent_hand_counts: tiles per opponent from the player's left; default: each opponent
            holds as many tiles as the player, as far as the unseen tiles allow.
        boneyard_count: default: the unseen tiles not in the opponents' hands.
        scores: scores per seat so far (default 0).
        seed: seed of the deal of the unseen tiles.
    Returns:
        :class:`GameReading`; layout: ``line`` (``LineOfPlay.to_json()`` plus tile indices),
        ``open_ends`` (id, number, tile), ``spinners``, ``joins``.
    """
    tiles = [s for s in seen if not s.det.face_down and s.value is not None]
    check_set([("table", [s for s in seen if not s.det.face_down])], 6, problems, limit=28)
    layout: dict = {"line": [], "open_ends": [], "spinners": [], "joins": [], "loose": []}
    if not tiles:
        problems.append(Problem(None, "no_layout", "no readable face-up tile on the table"))
        return GameReading(None, layout, problems)
    edges = joins(tiles)
    doubles = sorted(
        (k for k, s in enumerate(tiles) if s.is_double), key=lambda k: -tiles[k].known.high
    )
    if not doubles:
        problems.append(
            Problem(
                None,
                "impossible",
                "no double on the table: the line of play "
                "starts with a double (RULES.md section 4)",
            )
        )
        return GameReading(None, layout, problems)
    best: tuple[tuple[int, int], LineOfPlay, list[int], list[str]] | None = None
    inline = in_line(tiles, edges)
    for r in doubles:
        line, node_of, errors = build_line(tiles, r, edges, inline)
        key = (sum(x >= 0 for x in node_of), -len(errors))
        if best is None or key > best[0]:
            best = (key, line, node_of, errors)
        if not errors and all(x >= 0 for x in node_of):
            break
    assert best is not None  # ``doubles`` is not empty
    _, line, node_of, errors = best
    for e in errors:
        problems.append(Problem(None, "ambiguous", e))
    for k in sorted(inline):
        if node_of[k] >= 0:
            problems.append(
                Problem(
                    tiles[k].index,
                    "house_rule",
                    f"double {tiles[k].tile} is laid in line (a house habit): read as part of "
                    "the line, its long sides as its sides; RULES.md section 4 lays every "
                    "double crosswise",
                )
            )
    by_node = {n: k for k, n in enumerate(node_of) if n >= 0}
    for k, n in enumerate(node_of):
        if n < 0:
            problems.append(
                Problem(
                    tiles[k].index,
                    "not_joined",
                    f"{tiles[k].tile} touches no "
                    "matching open end of the line (a tile missed or misread "
                    "between them?); the open ends are not trusted",
                )
            )
            layout["loose"].append(tile_json(tiles[k]))
    layout["line"] = [
        dict(item, tile_index=tiles[by_node[i]].index) for i, item in enumerate(line.to_json())
    ]
    layout["open_ends"] = [
        {
            "id": e.id,
            "number": e.number,
            "tile": str(line.node(e.node_id).tile),
            "tile_index": tiles[by_node[e.node_id]].index,
        }
        for e in line.open_ends()
    ]
    layout["spinners"] = [str(n.tile) for n in line.nodes if n.is_spinner]
    layout["joins"] = [
        [tiles[i].index, tiles[j].index]
        for (i, j) in edges
        if node_of[i] >= 0
        and node_of[j] >= 0
        and (
            line.node(node_of[j]).parent == node_of[i] or line.node(node_of[i]).parent == node_of[j]
        )
    ]
    state = None
    if hand is None:
        problems.append(
            Problem(
                None,
                "no_hand",
                "no hand given: the line and open ends are read;"
                " the moves and hint need the player's hand",
                "hand",
            )
        )
    elif not any(p.blocking for p in problems):
        unseen = 28 - len(line) - len(hand)
        counts = (
            list(opponent_hand_counts)
            if opponent_hand_counts is not None
            else [max(1, min(len(hand), unseen // max(players - 1, 1)))] * (players - 1)
        )
        bone = unseen - sum(counts) if boneyard_count is None else boneyard_count
        try:
            state = Draw100Game(num_players=players).state_from_position(
                line, hand, bone, counts, scores=scores, seed=seed
            )
        except ValueError as e:
            problems.append(Problem(None, "impossible", str(e)))
    return GameReading(state, layout, problems)
