"""The engine's hint in players' words, with what to draw on the photo, for all five games.

:func:`present` turns a reading (``vision.layout.read(...).to_json()``: the hint's action as
``action_json``, the layout with each tile's index in the photo) and the photo's tiles into::

    {"text": "Play 6-6 crosswise on the 6 at the left end",      # one short sentence
     "details": ["Chance to win from here: 85%", ...],            # shown on demand
     "tiles": ["6-6"],           # the tiles the hint handles (the action's ``tiles``)
     "outline": [3, 7],          # photo tile indices to outline: the hint's tiles where the
                                 # photo shows them, and the tile its place is next to
     "pairs": [[3, 7]],          # tiles removed together (a line is drawn between them)
     "ghost": {"corners": [[x, y] * 4], "label": "6-6"} | None,   # the tile to play, at its place
     "label": "play 6-6 here",   # the few words drawn beside the ghost or the outlined tiles
     "anchor": [x, y]}           # px: the centre of what the hint points at

Coordinates are photo pixels (the photo's ``width`` x ``height``). No engine notation reaches
the player: open-end ids, cell coordinates, pile numbers and search limits are put in words.
Problem messages get the same treatment (:func:`plain_problem`): "table tile 9" becomes
"tile 10 (4-2)", the number drawn on the photo and the tile's label. Actions are read in the
schema all games share (:mod:`engine.actions`): only their ``type``, ``tiles``, ``place`` and
``source``; the rules behind the words are in RULES.md. The presenter of each game is chosen
by the shape of its layout (``engine.GAMES[game].shape``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from engine import GAMES, Shape
from engine.tiles import Tile

Point = list  # [x, y] px


def _centre(tile: dict) -> np.ndarray:
    return np.asarray(tile["corners"], float).mean(axis=0)


def _axes(tile: dict) -> tuple[np.ndarray, float, np.ndarray, float]:
    """``(long unit vector, length px, short unit vector, width px)`` of a tile's box."""
    c = np.asarray(tile["corners"], float)
    e1, e2 = c[1] - c[0], c[2] - c[1]
    l1, l2 = float(np.linalg.norm(e1)), float(np.linalg.norm(e2))
    if l1 >= l2:
        return e1 / max(l1, 1e-6), l1, e2 / max(l2, 1e-6), l2
    return e2 / max(l2, 1e-6), l2, e1 / max(l1, 1e-6), l1


def _box(centre: np.ndarray, along: np.ndarray, length: float, width: float) -> list[Point]:
    """Four corners px of a ``length`` x ``width`` box centred at ``centre``, long side ``along``."""
    across = np.array([-along[1], along[0]])
    h, w = along * length / 2, across * width / 2
    return [
        [round(float(x), 1), round(float(y), 1)]
        for x, y in (centre - h - w, centre + h - w, centre + h + w, centre - h + w)
    ]


def _where(vec: np.ndarray) -> str:
    """A direction in the photo in words (image y points down)."""
    x, y = float(vec[0]), float(vec[1])
    if abs(x) >= abs(y):
        return "right" if x > 0 else "left"
    return "bottom" if y > 0 else "top"


def _tile_text(t: Any) -> str:
    if isinstance(t, (list, tuple)) and len(t) == 2:
        a, b = sorted(int(v) for v in t)
        return f"{a}-{b}"
    return str(t)


def _as_shown(name: str, tiles: list[dict], index: Any) -> str:
    """``name`` ("low-high") written as the photo's label writes that tile: its halves in the
    order read (``pips``, as :func:`companion.services.label_text` writes the labels), so a
    box labelled "2-0" is "2-0" in the words too. ``name`` itself when ``index`` is no photo
    tile showing it."""
    if isinstance(index, int) and 0 <= index < len(tiles):
        p = tiles[index].get("pips")
        try:
            if p and len(p) == 2 and str(Tile(int(p[0]), int(p[1]))) == name:
                return f"{int(p[0])}-{int(p[1])}"
        except (TypeError, ValueError):
            pass
    return name


def _index_by_tile(layout_items: list[dict]) -> dict[str, int]:
    return {
        str(it["tile"]): it["tile_index"]
        for it in layout_items
        if isinstance(it, dict) and "tile" in it and isinstance(it.get("tile_index"), int)
    }


def _win_details(hint: dict) -> list[str]:
    out = []
    if isinstance(hint.get("win_chance"), (int, float)):
        out.append(f"Chance to win from here: {round(100 * hint['win_chance'])}%")
    m = re.search(r"in ([\d.]+) of (\d+) sampled stock orders", hint.get("explanation") or "")
    if m:
        out.append(f"Tried on {m.group(2)} shuffles of the tiles you cannot see yet.")
    m = re.search(r"round won in (\d+) of (\d+) sampled deals", hint.get("explanation") or "")
    if m:
        out.append(
            f"Wins the hand in {m.group(1)} of {m.group(2)} deals tried for the tiles you cannot see."
        )
    m = re.search(r"average round margin ([+-]?[\d.]+) points", hint.get("explanation") or "")
    if m:
        out.append(f"On average {m.group(1).lstrip('+')} points ahead at the end of the hand.")
    if "no move wins" in (hint.get("explanation") or ""):
        out.append("No move wins from here any more; this one keeps the most tiles in play.")
    return out


def _alternatives(game: str, analysis: dict, tiles: list[dict], hint_text: str = "") -> list[str]:
    """The next best moves of the hint's ranking, each in the hint's own words (lower case),
    each once, and none spelt like the hint itself (``hint_text``)."""
    hint = analysis.get("hint") or {}
    by_text = {
        m.get("text"): m.get("json")
        for m in analysis.get("legal_moves") or []
        if isinstance(m, dict)
    }
    out = []
    for r in (hint.get("ranking") or [])[1:4]:
        aj = by_text.get(r.get("action"))
        if aj is None:
            continue
        words = move_words(game, analysis, tiles, {"json": aj, "text": r.get("action", "")})
        if words.lower() == hint_text.lower():  # the same move for the player as the hint
            continue
        words = words[:1].lower() + words[1:]
        if words and words not in out:
            out.append(words)
    return out


# --- draw to 100 --------------------------------------------------------------------------


def _action_tiles(aj: dict) -> list[str]:
    """The action's ``tiles`` as ``"low-high"`` texts.

    Raises:
        ValueError: a tile text that is not a tile; TypeError: ``tiles`` not a list."""
    return [str(Tile.parse(str(t))) for t in aj.get("tiles") or []]


def _place(aj: dict, kind: str, key: str = "place") -> dict | None:
    """The action's ``place`` (or ``source``) when it is of ``kind``, else None."""
    p = aj.get(key)
    return p if isinstance(p, dict) and p.get("kind") == kind else None


def _halves(name: str) -> list[int]:
    t = Tile.parse(name)
    return [t.low, t.high]


def _line(analysis: dict, tiles: list[dict], hint: dict) -> dict:
    aj = hint.get("action_json") or {}
    layout = analysis.get("layout") or {}
    if aj.get("type") == "draw":
        return {"text": "No tile of yours fits: draw one from the boneyard"}
    if aj.get("type") == "pass":
        return {"text": "No tile of yours fits and the boneyard is empty: pass"}
    name = _action_tiles(aj)[0]
    tile = _halves(name)
    ends = {e.get("id"): e for e in layout.get("open_ends") or []}
    place = _place(aj, "open_end")
    end = ends.get(place.get("end")) if place else None
    if not layout.get("line") or end is None or not isinstance(end.get("tile_index"), int):
        return {
            "text": f"Lead with the {name}"
            + (" (a double, laid crosswise)" if tile[0] == tile[1] else "")
        }
    parent_i = end["tile_index"]
    number = int(end.get("number", tile[0]))
    ghost, direction = _draw100_ghost(layout, tiles, parent_i, number, tile)
    side = (
        "side of the spinner"
        if str(end.get("id", "")).split(".")[-1].startswith("side")
        else f"{_where(direction)} end"
    )
    cross = " crosswise" if tile[0] == tile[1] else ""
    text = f"Play {name}{cross} on the {number} at the {side}"
    out = {
        "text": text,
        "outline": [parent_i],
        "ghost": {"corners": ghost, "label": name},
        "label": f"play {name} here",
    }
    out["anchor"] = [float(v) for v in np.asarray(ghost).mean(axis=0)]
    return out


def _draw100_ghost(
    layout: dict, tiles: list[dict], parent_i: int, number: int, tile: list[int]
) -> tuple[list[Point], np.ndarray]:
    """Corners px of the tile to play laid at the open end of tile ``parent_i`` showing
    ``number``, and the direction from the parent to it. The end is the side of the parent
    away from the tiles joined to it (``layout.joins``); on a non-double the half showing
    ``number``; a double played is laid crosswise (RULES.md section 4)."""
    parent = tiles[parent_i]
    c = _centre(parent)
    along, length, across, width = _axes(parent)
    neighbours = [
        b if a == parent_i else a for a, b in layout.get("joins") or [] if parent_i in (a, b)
    ]
    taken = [
        (_centre(tiles[n]) - c) / max(float(np.linalg.norm(_centre(tiles[n]) - c)), 1e-6)
        for n in neighbours
        if 0 <= n < len(tiles)
    ]
    is_double = parent.get("pips") and parent["pips"][0] == parent["pips"][1]
    if is_double:
        candidates = [(across, width), (-across, width), (along, length), (-along, length)]
    else:
        halves = parent.get("halves")
        candidates = [(along, length), (-along, length)]
        if halves and parent.get("pips") and len(halves) == 2:
            k = 0 if parent["pips"][0] == number else 1
            toward = np.asarray(halves[k], float) - c
            candidates.sort(key=lambda d: -float(np.dot(d[0], toward)))
    free = [d for d in candidates if all(float(np.dot(d[0], t)) < 0.7 for t in taken)] or candidates
    direction, extent = free[0]
    gap = 0.04 * length
    if tile[0] == tile[1]:  # a double lies across the line
        centre = c + direction * (extent / 2 + gap + width / 2)
        axis = np.array([-direction[1], direction[0]])
    else:
        centre = c + direction * (extent / 2 + gap + length / 2)
        axis = direction
    return _box(centre, axis, length, width), direction


# --- Tableaux ----------------------------------------------------------------------------


def _cell_to_pixel(layout: dict, tiles: list[dict]):
    """An affine map (row, col) cell -> pixel fitted on the placed tiles' half centres, or None."""
    src, dst = [], []
    for p in layout.get("placed") or []:
        i = p.get("tile_index")
        if not isinstance(i, int) or not 0 <= i < len(tiles):
            continue
        t = tiles[i]
        cells, pips = p.get("cells"), p.get("pips")
        halves = t.get("halves")
        if not cells or len(cells) != 2:
            continue
        if halves and t.get("pips") and pips and pips[0] != pips[1] and len(halves) == 2:
            for cell, v in zip(cells, pips):
                k = 0 if t["pips"][0] == v else 1
                src.append(cell)
                dst.append(halves[k])
        else:
            src.append([(cells[0][0] + cells[1][0]) / 2, (cells[0][1] + cells[1][1]) / 2])
            dst.append(_centre(t).tolist())
    if len(src) < 3:
        return None
    a = np.c_[np.asarray(src, float), np.ones(len(src))]
    m, *_ = np.linalg.lstsq(a, np.asarray(dst, float), rcond=None)
    if np.linalg.matrix_rank(a) < 3:
        return None
    return lambda rc: np.array([rc[0], rc[1], 1.0]) @ m


def _tableau(analysis: dict, tiles: list[dict], hint: dict) -> dict:
    aj = hint.get("action_json") or {}
    if aj.get("type") == "pass":
        return {"text": "No tile of yours fits: pass (-3 points)"}
    if aj.get("type") == "end_turn":
        return {"text": "Stop here and end your turn"}
    name = _action_tiles(aj)[0]
    m = re.search(r"(\d+) pts", hint.get("action") or "")
    pts = f" for {m.group(1)} points" if m and m.group(1) != "0" else ""
    layout = analysis.get("layout") or {}
    to_px = _cell_to_pixel(layout, tiles)
    cells = (_place(aj, "cells") or {})["cells"]
    low, high = list(cells[0]), list(cells[1])
    if to_px is None:
        return {"text": f"Play {name}{pts}"}
    rows = [low[0], high[0]]
    cols = [low[1], high[1]]
    corners_rc = [
        (min(rows) - 0.5, min(cols) - 0.5),
        (min(rows) - 0.5, max(cols) + 0.5),
        (max(rows) + 0.5, max(cols) + 0.5),
        (max(rows) + 0.5, min(cols) - 0.5),
    ]
    ghost = [[round(float(v), 1) for v in to_px(rc)] for rc in corners_rc]
    # the placed tile it touches, to name the place in words
    mine = {tuple(low), tuple(high)}
    near = None
    for p in layout.get("placed") or []:
        for cell in p.get("cells") or []:
            if any(abs(cell[0] - r) + abs(cell[1] - c) == 1 for r, c in mine):
                near = p
                break
        if near:
            break
    low_px, high_px = to_px(low), to_px(high)
    lowv, highv = _halves(name)
    text = f"Play {name}{pts}"
    if near is not None:
        shown = _as_shown(_tile_text(near["pips"]), tiles, near.get("tile_index"))
        # which side of it: two places beside one tile are two moves, said apart
        side = _where(np.asarray(ghost).mean(axis=0) - _near_centre(near, tiles, to_px))
        text += f" next to the {shown}, on its {SIDE_WORDS[side]}"
    text += f", the {lowv} toward the {_where(low_px - high_px)}" if lowv != highv else ""
    out = {
        "text": text,
        "ghost": {"corners": ghost, "label": name},
        "label": f"play {name} here",
        "anchor": [float(v) for v in np.asarray(ghost).mean(axis=0)],
    }
    if near is not None and isinstance(near.get("tile_index"), int):
        out["outline"] = [near["tile_index"]]
    return out


#: A side of a tile on the photo, as a place beside it (:func:`_where`'s words).
SIDE_WORDS = {"left": "left", "right": "right", "top": "upper side", "bottom": "lower side"}


def _near_centre(near: dict, tiles: list[dict], to_px) -> np.ndarray:
    """Centre px of a placed Tableaux tile: its photo box, else its cells mapped to pixels."""
    i = near.get("tile_index")
    if isinstance(i, int) and 0 <= i < len(tiles):
        return _centre(tiles[i])
    cells = near.get("cells") or []
    return np.mean([to_px(c) for c in cells], axis=0)


# --- the solitaires ----------------------------------------------------------------------


def _in_pairs(names: list[str]) -> list[list[str]]:
    """``remove`` tiles pair by pair: tiles 0 and 1, 2 and 3, ... (engine.actions)."""
    return [names[k : k + 2] for k in range(0, len(names) - 1, 2)]


def _grid(analysis: dict, tiles: list[dict], hint: dict) -> dict:
    idx = _index_by_tile((analysis.get("layout") or {}).get("cells") or [])
    names = _action_tiles(hint.get("action_json") or {})
    return _pairs(_in_pairs(names), idx, tiles, "Remove the neighbours")


def _columns(analysis: dict, tiles: list[dict], hint: dict) -> dict:
    layout = analysis.get("layout") or {}
    items = [t for col in layout.get("columns") or [] for t in col] + list(
        layout.get("reserve") or []
    )
    idx = _index_by_tile(items)
    aj = hint.get("action_json") or {}
    names = _action_tiles(aj)
    if aj.get("type") == "remove":
        return _pairs(_in_pairs(names), idx, tiles, "Remove together")
    tile = names[0]
    shown = _as_shown(tile, tiles, idx.get(tile))
    out: dict[str, Any] = {"text": f"Move {shown} to start a new column", "label": f"move {shown}"}
    if tile in idx:
        out["outline"] = [idx[tile]]
        out["anchor"] = _centre(tiles[idx[tile]]).tolist()
    return out


def _pairs(pairs: list[list[str]], idx: dict[str, int], tiles: list[dict], verb: str) -> dict:
    words = " and ".join(
        f"{_as_shown(a, tiles, idx.get(a))} + {_as_shown(b, tiles, idx.get(b))}" for a, b in pairs
    )
    out: dict[str, Any] = {
        "text": f"{verb}: {words}",
        "outline": [],
        "pairs": [],
        "label": "remove",
    }
    for a, b in pairs:
        if a in idx and b in idx:
            out["pairs"].append([idx[a], idx[b]])
            out["outline"] += [idx[a], idx[b]]
    if out["outline"]:
        out["anchor"] = np.mean([_centre(tiles[i]) for i in out["outline"]], axis=0).tolist()
    return out


def _clock(hour: Any) -> str:
    return f"{hour} o'clock"


#: Eight directions on the photo from the clock's middle, clockwise from the right (image y
#: points down), each 45 degrees wide.
COMPASS = ("right", "bottom right", "bottom", "bottom left", "left", "top left", "top", "top right")


def pile_places(layout: dict, tiles: list[dict]) -> dict[str, str]:
    """Each Big Clock pile's place on the photo in words ("at the top right"), by pile number.

    The piles go round the clock in the order of their numbers, clockwise on the photo (the
    reader numbers them so: ``vision.layout.big_clock``), but the clock may lie turned on the
    photo, so pile 6 may be drawn at its top. The middle is the centre tile (0-0) when read,
    else the mean of the piles; a pile's direction from it is its top tile's, and an empty
    pile's is the direction of its number on the ring fitted to the others. Empty when fewer
    than 3 piles are on the photo (no ring to tell directions from).
    """
    piles = layout.get("slots") or {}
    n = len(piles)
    at: dict[int, np.ndarray] = {}
    for k, rec in piles.items():
        i = rec.get("tile_index") if isinstance(rec, dict) else None
        if str(k).isdigit() and isinstance(i, int) and 0 <= i < len(tiles):
            at[int(k)] = _centre(tiles[i])
    if n < 3 or len(at) < 3:
        return {}
    centre_rec = layout.get("centre")
    ci = centre_rec.get("tile_index") if isinstance(centre_rec, dict) else None
    if isinstance(ci, int) and 0 <= ci < len(tiles):
        mid = _centre(tiles[ci])
    else:
        mid = np.mean(list(at.values()), axis=0)
    step = 2 * np.pi / n
    angle = {k: float(np.arctan2(*(p - mid)[::-1])) for k, p in at.items()}
    # the ring's turn on the photo: the circular mean of (angle - number * step)
    turn = float(np.angle(np.mean([np.exp(1j * (a - k * step)) for k, a in angle.items()])))
    out = {}
    for k in range(1, n + 1):
        a = angle.get(k, turn + k * step)
        sector = int(((np.degrees(a) + 22.5) % 360) // 45)
        out[str(k)] = f"at the {COMPASS[sector]}"
    return out


def _ring(analysis: dict, tiles: list[dict], hint: dict) -> dict:
    aj = hint.get("action_json") or {}
    layout = analysis.get("layout") or {}
    piles = layout.get("slots") or {}
    places = pile_places(layout, tiles)

    def place(k: Any) -> str:  # where pile k lies on the photo; its clock hour without a ring
        return places.get(str(k)) or f"at {_clock(k)}"

    names = _action_tiles(aj)
    kind = aj.get("type")
    drawn = names[0] if names else "the drawn tile"
    if kind == "set_aside":
        return {"text": f"Set {drawn} aside: it fits nowhere"}
    if kind == "give_up":
        return {"text": f"{drawn} can no longer come home: the game is lost"}
    to = (_place(aj, "pile") or {})["pile"]
    dst = piles.get(str(to))
    on = _as_shown(str(dst.get("tile")), tiles, dst.get("tile_index")) if dst else ""
    out: dict[str, Any] = {}
    if kind == "move":
        frm = (_place(aj, "pile", "source") or {})["pile"]
        src = piles.get(str(frm)) or {}
        moving = names[0] if names else src.get("tile", "the top tile")
        moving = _as_shown(str(moving), tiles, src.get("tile_index"))
        if dst and dst.get("blank"):
            onto = f"home, to the empty place {place(to)}"
        elif dst:
            onto = f"onto the {on} {place(to)}"
        else:
            onto = place(to)
        out["text"] = f"Move the {moving} {place(frm)} {onto}"
        if isinstance(src.get("tile_index"), int):
            out["outline"] = [src["tile_index"]]
        label = moving
        out["label"] = f"move {moving} here"
    else:
        if dst and dst.get("blank"):
            out["text"] = f"Put {drawn} on the empty place {place(to)}"
        elif dst:
            out["text"] = f"Put {drawn} on the {on} {place(to)}"
        else:
            out["text"] = f"Put {drawn} {place(to)}"
        label = drawn
        out["label"] = f"put {drawn} here"
    if dst and isinstance(dst.get("tile_index"), int) and 0 <= dst["tile_index"] < len(tiles):
        t = tiles[dst["tile_index"]]
        along, length, _across, width = _axes(t)
        out["ghost"] = {
            "corners": _box(_centre(t) + np.array([0.12, -0.12]) * width, along, length, width),
            "label": label,
        }
        out["anchor"] = _centre(t).tolist()
    elif dst and dst.get("centre"):
        c = np.asarray(dst["centre"], float)
        size = np.median([_axes(t)[1] for t in tiles]) if tiles else 60.0
        out["ghost"] = {"corners": _box(c, np.array([1.0, 0.0]), size, size / 2), "label": label}
        out["anchor"] = c.tolist()
    return out


#: The presenter of each layout shape (:class:`engine.Shape`).
BY_SHAPE: dict[Shape, Callable[[dict, list[dict], dict], dict]] = {
    Shape.LINE: _line,
    Shape.TABLEAU: _tableau,
    Shape.GRID: _grid,
    Shape.RING: _ring,
    Shape.COLUMNS: _columns,
}
#: Game name -> presenter, for every game of ``engine.GAMES``.
PRESENTERS = {name: BY_SHAPE[g.shape] for name, g in GAMES.items()}


def move_words(game: str, analysis: dict, tiles: list[dict], move: dict) -> str:
    """One legal move (``{"text", "json"}``) in players' words (the hint's sentence for it)."""
    fn = PRESENTERS.get(game)
    if fn is None:
        return _plain_action(str(move.get("text", "")))
    try:
        return fn(analysis, tiles, {"action_json": move["json"], "action": move.get("text", "")})[
            "text"
        ]
    except (KeyError, TypeError, ValueError, IndexError, np.linalg.LinAlgError):
        return _plain_action(str(move.get("text", "")))


def present(
    game: str,
    analysis: dict,
    tiles: list[dict],
    width: int | None = None,
    height: int | None = None,
) -> dict | None:
    """The hint of ``analysis`` in players' words with what to draw (see the module docstring).

    Args:
        game: one of the five game names.
        analysis: the reading (``read_table`` output) with ``hint`` and ``layout``.
        tiles: the photo's tiles (corrections applied): ``corners`` (4, 2) px, ``halves``, ``pips``.
        width, height: the photo's size px; the label anchor is kept inside it.
    Returns:
        the presentation dict, or None when the reading has no hint. Never raises: a layout
        it cannot place gets the sentence without a drawing.
    """
    hint = analysis.get("hint")
    if not isinstance(hint, dict) or hint.get("action_json") is None or game not in PRESENTERS:
        return None
    try:
        out = PRESENTERS[game](analysis, tiles, hint)
    except (KeyError, TypeError, ValueError, IndexError, np.linalg.LinAlgError):
        out = {"text": "Hint: " + _plain_action(hint.get("action") or "")}
    out.setdefault("outline", [])
    out.setdefault("pairs", [])
    out.setdefault("ghost", None)
    try:
        out["tiles"] = _action_tiles(hint["action_json"])
    except (TypeError, ValueError, AttributeError):
        out["tiles"] = []
    # every photo tile that shows one of the hint's tiles is outlined too
    for i, t in enumerate(tiles):
        if t.get("face_down") or not t.get("pips") or i in out["outline"]:
            continue
        try:
            shown = str(Tile(*(int(v) for v in t["pips"])))
        except (TypeError, ValueError):
            continue
        if shown in out["tiles"]:
            out["outline"].append(i)
    details = _win_details(hint)
    others = _alternatives(game, analysis, tiles, out.get("text") or "")
    if others:
        details.append("Also possible: " + "; ".join(others) + ".")
    out["details"] = details
    if out.get("anchor") is not None and width and height:
        x, y = out["anchor"]
        out["anchor"] = [
            min(max(float(x), 0.0), float(width)),
            min(max(float(y), 0.0), float(height)),
        ]
    elif out.get("anchor") is None:
        out["anchor"] = None
    return out


def _plain_action(text: str) -> str:
    """An engine action string with its notation dropped (``[6.end_b]``, ``(2, 4)=2``)."""
    text = re.sub(r"\[[^\]]*\]", "", text)
    text = re.sub(r"\(-?\d+, -?\d+\)=\d+", "", text)
    text = re.sub(r"slot (\d+)", lambda m: _clock(m.group(1)), text)
    return re.sub(r"\s+", " ", text).strip()


def plain_problem(
    message: str,
    index: list[int] | None = None,
    places: dict[str, str] | None = None,
    labels: list[str | None] | None = None,
) -> tuple[str, list[int]]:
    """A reader's problem message in players' words and the photo tile indices it names.

    The layout readers name a tile "table tile 9" (their own 0-based index) and a Big Clock
    pile "slot 5" (``vision.layout``); the player sees the tile's number and label on the
    photo. "table tile 9" -> "tile 10 (4-2)": tiles are numbered from 1 on the photo (the
    number of its badge: a tile a problem names gets one), then its value as its label writes
    it; "slot 5" -> "the pile at the top right" with ``places`` (:func:`pile_places`), else
    "the pile at 5 o'clock"; "RULES.md section 5" dropped.

    Args:
        message: the reader's sentence.
        index: the photo index of each tile the reader was given (when boxes marked "not a
            tile" were left out); None: the same numbering.
        places: a Big Clock pile's place on the photo in words, by pile number.
        labels: each photo tile's label (``companion.services.label_text``: "4-2", "?", a
            square, None); only a value ("4-2") is added to the tile's number.
    Returns:
        ``(text, named)``: the sentence and the photo tile indices (0-based) it names.
    """
    named: list[int] = []

    def tile(m: re.Match) -> str:
        k = int(m.group(1))
        if index is not None and 0 <= k < len(index):
            k = index[k]
        named.append(k)
        label = labels[k] if labels is not None and 0 <= k < len(labels) else None
        shows = f" ({label})" if label and re.fullmatch(r"\d+-\d+", label) else ""
        return f"tile {k + 1}{shows}"

    def pile(m: re.Match) -> str:
        k = m.group(1)
        return f"the pile {places[k]}" if places and k in places else f"the pile at {_clock(k)}"

    text = re.sub(r"table tile (\d+)", tile, message)
    text = re.sub(r"\bslot (\d+)", pile, text)
    text = re.sub(r"[;,]?\s*\(?(see )?RULES\.md[^)\.;]*\)?", "", text)
    return text, named


#: A reader's problem, by its ``kind`` (``vision.layout.common.Problem``), in players' words:
#: what to check, without the reader's numbers (confidences, overlap fractions), which stay in
#: the problem's ``message`` (the page shows them under "Why"). ``{tile}`` is "tile 3" (the
#: number on the photo) or "a tile".
PLAIN_PROBLEMS = {
    "unreadable": "{Tile} could not be read: tap it and give its numbers.",
    "doubtful": "{Tile} is hard to read (maybe partly hidden): check it.",
    "duplicate": "{Tile} is read as a tile that is already there: check it.",
    "outside_set": "{Tile} shows a number this set does not have: check it.",
    "face_down": "{Tile} lies face down: it is left out.",
    "overlap": "{Tile} looks partly hidden under another tile: check it.",
    "ambiguous": "Where {tile} belongs is unclear: check it.",
    "gap": "The grid has an empty place before {tile}: the tiles after it are moved up to "
    "close it. Check it.",
    "not_joined": "{Tile} is not joined to the other tiles: check it.",
    "bad_box": "{Tile} is not a whole tile's box: it is left out. Check it.",
    "overlapping_box": "{Tile} looks like another tile seen twice: it is left out. Check it.",
    "stray_box": "{Tile} does not look like a tile: it is left out. Check it.",
    "dropped": "{Tile} does not fit the table: it is taken for a false find and left out. "
    "Check it.",
}


def problem_in_words(problem: dict) -> str:
    """One problem of a reading (``{"kind", "message", "tiles", "tile_index", "source"}``) in
    players' words, from :data:`PLAIN_PROBLEMS`; other kinds keep their own sentence."""
    template = PLAIN_PROBLEMS.get(str(problem.get("kind")))
    if template is None or problem.get("source") == "hand":  # a hand's problems name its tiles
        return str(problem.get("message", ""))
    named = problem.get("tiles") or []
    if isinstance(problem.get("tile_index"), int):
        tile = f"tile {problem['tile_index'] + 1}"
    elif len(named) == 1 and isinstance(named[0], int):  # named in the sentence only
        tile = f"tile {named[0] + 1}"
    else:
        tile = "a tile"
    return template.replace("{Tile}", tile[0].upper() + tile[1:]).replace("{tile}", tile)
