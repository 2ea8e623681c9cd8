"""Rendered layouts of every game with the true position as label.

Each game is played a random number of random legal moves from a seeded deal with the real
engine, then its tiles are laid as the game lays them (conventions in docs/layout.md) and
either projected through a random camera (fast, geometry only: :func:`project_layout`) or
drawn as a photo with :func:`vision.render.scene.render_scene` (:func:`render_layout`).

The plane is in tile-width units with y pointing up (as in ``vision.render.scene``); layouts
are built with y pointing down (rows grow downwards) and flipped when placed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine import GAMES as CATALOG
from engine import Shape
from engine.tiles import Tile
from vision.types import TileDetection

from .scene import Placement, RenderedScene, make_camera, render_scene


def _shrink(corners: np.ndarray) -> np.ndarray:
    """``(4, 2)`` corners moved 3% towards their centre (touching tiles do not count as overlapping)."""
    return (corners - corners.mean(0)) * 0.97 + corners.mean(0)


#: The game of each layout shape (engine.GAMES); each shape has one game.
GAME_OF: dict[Shape, str] = {g.shape: name for name, g in CATALOG.items()}
#: The order in which the shapes are drawn from: it fixes which game a seed picks
#: (:func:`random_layout_scene`), so training sets and benchmarks replay.
SHAPE_ORDER = (Shape.GRID, Shape.RING, Shape.COLUMNS, Shape.LINE, Shape.TABLEAU)
#: The games with a layout here, in :data:`SHAPE_ORDER`.
GAMES = tuple(GAME_OF[s] for s in SHAPE_ORDER if s in GAME_OF)


@dataclass
class LayoutSample:
    """A laid-out position.

    Attributes:
        game: game name.
        max_pip: the set.
        placements: tiles on the table plane (tile-width units).
        truth: the true position (per game; see :func:`truth_of` readers in tests/bench).
        hand: the player's hand (draw100, tableaux), else None.
        labels: ``TileDetection`` per placement (after projecting or rendering).
        image: the rendered photo ``(H, W, 3) uint8`` or None when only projected.
    """

    game: str
    max_pip: int
    placements: list[Placement]
    truth: dict
    hand: list[Tile] | None = None
    labels: list[TileDetection] = field(default_factory=list)
    image: np.ndarray | None = None


def _place(
    tile: Tile,
    x: float,
    y_down: float,
    angle_down_deg: float,
    first: int | None = None,
    jitter: tuple[float, float] = (0.0, 0.0),
    rng: random.Random | None = None,
) -> Placement:
    """A placement from y-down layout coordinates. ``angle_down_deg``: direction of half 0 ->
    half 1 in the y-down frame (clockwise from +x). ``first``: the number on half 0."""
    if rng is not None:
        x += rng.uniform(-jitter[0], jitter[0])
        y_down += rng.uniform(-jitter[0], jitter[0])
        angle_down_deg += rng.uniform(-jitter[1], jitter[1])
    flip = first is not None and first != tile.low
    return Placement(tile, False, (float(x), float(-y_down)), float(-angle_down_deg), flip)


def _random_play(state, rng: random.Random, steps: int, stop=None):
    for _ in range(steps):
        if state.is_terminal() or (stop is not None and stop(state)):
            break
        acts = state.legal_actions()
        if not acts:
            break
        state.apply_action(rng.choice(acts))
    return state


def layout_good_neighbors(rng: random.Random, max_pip: int | None = None) -> LayoutSample:
    """Good Neighbors: tiles along the rows, cells 2.35 x 1.35 tile widths."""
    from engine.good_neighbors import GoodNeighborsGame

    n = max_pip or rng.choice((12, 9, 6))
    g = GoodNeighborsGame(max_pip=n)
    st = _random_play(
        g.new_initial_state(rng.randrange(10**9)), rng, rng.choice((0, 0, 1, 2, 4, 8))
    )
    R, C = g.rows, g.cols
    cells = list(st.grid) + [None] * (R * C - len(st.grid))
    pl = []
    for k, t in enumerate(cells):
        if t is None:
            continue
        r, c = divmod(k, C)
        first = rng.choice((t.low, t.high))
        pl.append(_place(t, c * 2.35, r * 1.35, 0.0, first, (0.06, 3.0), rng))
    truth = {
        "grid": [
            [None if t is None else str(t) for t in cells[i * C : (i + 1) * C]] for i in range(R)
        ]
    }
    return LayoutSample(GAME_OF[Shape.GRID], n, pl, truth)


def layout_big_clock(rng: random.Random, max_pip: int | None = None) -> LayoutSample:
    """The Big Clock: slots on a ring, slot N at the top, 0-0 in the centre pointing to N."""
    from engine.big_clock import BigClockGame

    n = max_pip or rng.choice((12, 9, 6))
    g = BigClockGame(max_pip=n)
    st = _random_play(g.new_initial_state(rng.randrange(10**9)), rng, rng.choice((0, 3, 10, 30)))
    radius = {12: 5.0, 9: 4.2, 6: 3.6}[n]
    pl = [_place(Tile(0, 0), 0.0, 0.0, -90.0, 0, (0.05, 3.0), rng)]
    tops: dict[str, str | None] = {}
    for k, pile in st.piles.items():
        if not pile:
            tops[str(k)] = None
            continue
        t = pile[-1]
        tops[str(k)] = str(t)
        th = math.radians(-90 + k * 360 / n)  # y-down frame: clockwise from the top
        x, y = radius * math.cos(th), radius * math.sin(th)
        home = t == Tile(k, k)
        ang = math.degrees(th) + (0 if home else 90)
        pl.append(_place(t, x, y, ang, rng.choice((t.low, t.high)), (0.08, 4.0), rng))
    return LayoutSample(GAME_OF[Shape.RING], n, pl, {"tops": tops})


def layout_luzon(rng: random.Random) -> LayoutSample:
    """Luzon: columns top to bottom, tiles across; the reserve below, turned a quarter."""
    from engine.luzon import LuzonGame

    g = LuzonGame()
    st = _random_play(g.new_initial_state(rng.randrange(10**9)), rng, rng.choice((0, 1, 3, 6)))
    pl = []
    for j, col in enumerate(st.columns):
        for i, t in enumerate(col):
            pl.append(
                _place(t, j * 2.5, i * 1.2, 0.0, rng.choice((t.low, t.high)), (0.05, 3.0), rng)
            )
    depth = max((len(c) for c in st.columns), default=0)
    for j, t in enumerate(st.reserve):
        pl.append(
            _place(
                t,
                2.5 + j * 1.5,
                depth * 1.2 + 1.6,
                90.0,
                rng.choice((t.low, t.high)),
                (0.05, 3.0),
                rng,
            )
        )
    truth = {
        "columns": sorted([str(t) for t in c] for c in st.columns),
        "reserve": sorted(str(t) for t in st.reserve),
    }
    return LayoutSample(GAME_OF[Shape.COLUMNS], 6, pl, truth)


def _line_placements(
    line, rng: random.Random, bend: float = 0.15, doubles_in_line: bool = False
) -> list[Placement] | None:
    """Lay a draw100 LineOfPlay along its arms; a non-double following a non-double turns a
    corner with probability ``bend`` (as lines do at the table's edge). Doubles lie crosswise
    (RULES.md section 4), or with ``doubles_in_line`` lengthwise in the line (a house habit; the
    tiles laid off their sides then start half a tile from the double's axis). None when two
    tiles would overlap."""
    from vision.layout.common import _overlap

    gap = 0.04
    d0 = np.array(rng.choice(((1.0, 0.0), (0.0, 1.0))))
    info: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # node -> (centre, line direction)
    crosswise = not doubles_in_line
    pl: list[Placement] = []
    polys: list[np.ndarray] = []
    for node in line.nodes:
        t = node.tile
        if node.parent is None:
            c, d = np.zeros(2), d0
        else:
            pc, pd = info[node.parent]
            parent = line.node(node.parent)
            n = np.array([-pd[1], pd[0]])
            if parent.tile.is_double:
                out = {"end_a": -pd, "end_b": pd, "side_a": n, "side_b": -n}[node.parent_direction]
                along = node.parent_direction.startswith("end")
                half = 0.5 if along == crosswise else 1.0
            else:
                out, half = pd, 1.0
            port = pc + out * (half + gap)
            d = out
            c = port + d * (0.5 if t.is_double and crosswise else 1.0)
            if not t.is_double and not parent.tile.is_double and rng.random() < bend:
                # the line turns a corner: the tile's inner half sits beyond the parent's end,
                # its outer half runs off at right angles (an L)
                d = n if rng.random() < 0.5 else -n
                c = port + out * 0.5 + d * 0.5
        info[node.id] = (c, d)
        if t.is_double:
            ang = math.degrees(math.atan2(d[0], -d[1]) if crosswise else math.atan2(d[1], d[0]))
            first = t.low
        else:
            ang = math.degrees(math.atan2(d[1], d[0]))
            first = node.inner if node.inner is not None else t.low
        p = _place(t, c[0], c[1], ang, first, (0.02, 1.5), rng)
        poly = p.plane_corners()
        for q in polys:
            if _overlap(_shrink(poly), _shrink(q)):
                return None
        polys.append(poly)
        pl.append(p)
    return pl


def layout_draw100(rng: random.Random) -> LayoutSample:
    """Draw to 100: the line of play of a random game, doubles crosswise, arms that sometimes
    turn a corner."""
    from engine.draw100 import Draw100Game

    for _ in range(50):
        g = Draw100Game(num_players=rng.choice((2, 3, 4)))
        st = g.new_initial_state(rng.randrange(10**9))
        target = rng.randint(3, 14)
        st = _random_play(st, rng, 200, stop=lambda s: len(s.line) >= target or s.round_no > 1)  # noqa: B023 - called here
        if st.round_no > 1 or len(st.line) == 0 or st.is_terminal():
            continue
        line = st.line
        pl = _line_placements(line, rng)
        if pl is None:
            continue
        edges = sorted(
            sorted((str(n.tile), str(line.node(n.parent).tile)))
            for n in line.nodes
            if n.parent is not None
        )
        truth = {"edges": edges, "open": sorted(line.open_numbers())}
        hand = list(st.hands[st.current_player()]) if st.current_player() >= 0 else None
        return LayoutSample(GAME_OF[Shape.LINE], 6, pl, truth, hand=hand or None)
    raise RuntimeError("could not lay out a line of play without overlaps in 50 tries")


def board_tiles(board) -> list[tuple[Tile, float, float, float, int]]:
    """The tiles of a Tableaux ``Board`` on the table plane, cells on a square grid of pitch 1.03
    tile widths: ``(tile, x, y_down, angle_down_deg, number on half 0)`` per tile (y pointing
    down, the angle from half 0 to half 1 clockwise from +x)."""
    seen: set[tuple[int, int]] = set()
    out = []
    for cell, num in sorted(board.num.items()):
        if cell in seen:
            continue
        other = board.partner[cell]
        seen.update((cell, other))
        (r0, c0), (r1, c1) = cell, other
        ang = math.degrees(math.atan2(r1 - r0, c1 - c0))
        out.append(
            (Tile(num, board.num[other]), (c0 + c1) / 2 * 1.03, (r0 + r1) / 2 * 1.03, ang, num)
        )
    return out


def layout_tableaux(rng: random.Random, max_pip: int | None = None) -> LayoutSample:
    """Tableaux: the tableau's half-tile cells on a square grid of pitch 1.03 tile widths."""
    from engine.tableaux import TableauxGame

    n = max_pip or rng.choice((6, 9))
    st = _random_play(
        TableauxGame(n).new_initial_state(rng.randrange(10**9)), rng, rng.randint(0, 12)
    )
    b = st.board
    pl = [_place(t, x, y, ang, num, (0.02, 1.5), rng) for t, x, y, ang, num in board_tiles(b)]
    cells = {f"{r},{c}": v for (r, c), v in b.num.items()}
    p = st.current_player()
    hand = list(st.hands[p]) if p is not None and p >= 0 else None
    return LayoutSample(GAME_OF[Shape.TABLEAU], n, pl, {"cells": cells}, hand=hand or None)


#: The layout maker of each shape.
_LAYOUT_OF = {
    Shape.GRID: layout_good_neighbors,
    Shape.RING: layout_big_clock,
    Shape.COLUMNS: layout_luzon,
    Shape.LINE: layout_draw100,
    Shape.TABLEAU: layout_tableaux,
}


def make_layout(game: str, rng: random.Random, **kw: Any) -> LayoutSample:
    """A random laid-out position of ``game`` (one of :data:`GAMES`).

    Raises:
        ValueError: unknown game.
    """
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; one of {GAMES}")
    fn: Any = _LAYOUT_OF[CATALOG[game].shape]
    sample: LayoutSample = fn(rng, **kw)
    return sample


def project_layout(
    sample: LayoutSample,
    rng: np.random.Generator,
    image_size=(1280, 960),
    rotation_deg: float | None = None,
    tilt: float | None = None,
    corner_noise_px: float = 0.0,
) -> LayoutSample:
    """Fill ``sample.labels`` by projecting the tiles through a random camera (no drawing).

    Args:
        rng: numpy Generator (camera and noise).
        image_size: ``(W, H)`` pixels.
        rotation_deg: camera roll (None: random 0..360).
        tilt: perspective strength (None: random 0..0.15, as the renderer).
        corner_noise_px: standard deviation of Gaussian noise added to every corner (pixels).
    Returns:
        ``sample`` (same object) with labels set, in placement order.
    """
    cam = make_camera(
        rng,
        sample.placements,
        image_size,
        fill=rng.uniform(0.6, 0.9),
        rotation_deg=rotation_deg,
        tilt=tilt,
    )
    labels = []
    for p in sample.placements:
        corners = cam.project(p.plane_corners())
        if corner_noise_px:
            corners = corners + rng.normal(0, corner_noise_px, corners.shape)
        labels.append(
            TileDetection(corners.astype(np.float32), 1.0, pips=p.shown(), pip_confidence=1.0)
        )
    sample.labels = labels
    return sample


def render_layout(
    sample: LayoutSample, rng: np.random.Generator, image_size=(1024, 768), **kw: Any
) -> LayoutSample:
    """Draw ``sample`` as a photo (varied style, table, camera rotation and perspective) with
    :func:`vision.render.scene.render_scene`; sets ``sample.image`` and ``sample.labels``."""
    from .styles import random_style

    style = random_style(rng, max_pip=max(sample.max_pip, 6))
    scene: RenderedScene = render_scene(
        sample.placements,
        rng,
        style,
        image_size,
        clutter=0,
        fill=float(rng.uniform(0.6, 0.9)),
        **kw,
    )
    sample.image, sample.labels = scene.image, scene.labels
    return sample


def random_layout_scene(
    rng: np.random.Generator,
    image_size: tuple[int, int] = (640, 480),
    games: tuple[str, ...] = GAMES,
) -> RenderedScene:
    """A training image of a game position: a random game of ``games``, played a random number of
    moves (:func:`make_layout`), drawn with a random set style, table, clutter, camera roll
    (0..360 degrees) and perspective.

    Args:
        rng: numpy Generator (game, deal, style, camera, effects).
        image_size: ``(W, H)`` pixels.
        games: the games to draw from.
    Returns:
        :class:`vision.render.scene.RenderedScene` with ``kind`` ``"layout:<game>"``.
    Raises:
        ValueError: an unknown game.
    """
    from .styles import random_style

    game = games[int(rng.integers(len(games)))]
    sample = make_layout(game, random.Random(int(rng.integers(2**31))))
    style = random_style(rng, max_pip=max(sample.max_pip, 6))
    scene = render_scene(
        sample.placements,
        rng,
        style,
        image_size,
        clutter=None if rng.random() < 0.5 else 0,
        fill=float(rng.uniform(0.55, 0.95)),
        rotation_deg=float(rng.uniform(0, 360)),
    )
    scene.kind = f"layout:{game}"
    return scene


#: Layout shapes that have an "up": a grid read in reading order, a clock with 12 at the top.
UPRIGHT_SHAPES = frozenset({Shape.GRID, Shape.RING})
#: Camera roll range per game for benchmarks/tests (degrees). A line, a tableau and Luzon's
#: columns (reserve below them) read the same in any rotation; a layout of
#: :data:`UPRIGHT_SHAPES` (Good Neighbors, the Big Clock) is photographed roughly upright.
ROTATION_RANGE = {
    name: (-40, 40) if CATALOG[name].shape in UPRIGHT_SHAPES else (0, 360) for name in GAMES
}


def _canon_cells(cells: dict[tuple[int, int], int]) -> tuple:
    """Cells -> numbers, up to the 8 rotations/reflections and translation."""
    best = None
    for sw in (False, True):
        for sr in (1, -1):
            for sc in (1, -1):
                pts = [
                    ((c if sw else r) * sr, (r if sw else c) * sc, v) for (r, c), v in cells.items()
                ]
                r0 = min(p[0] for p in pts)
                c0 = min(p[1] for p in pts)
                key = tuple(sorted((p[0] - r0, p[1] - c0, p[2]) for p in pts))
                if best is None or key < best:
                    best = key
    return best or ()


def read_matches(sample: LayoutSample, result) -> bool:
    """True when ``result`` (a ``vision.layout.ReadResult``) rebuilt ``sample``'s position
    exactly: a state was built with no blocking problem, and the layout equals the truth
    (Good Neighbors: every cell; Big Clock: the top tile of every slot; Luzon: the columns in
    order and the reserve; draw100: the joins of the line and its open-end numbers; Tableaux:
    every cell's number, up to rotation/reflection/translation of the whole tableau)."""
    if not result.ok:
        return False
    lay, tr = result.layout, sample.truth
    shape = CATALOG[sample.game].shape if sample.game in CATALOG else None
    if shape is Shape.GRID:
        return bool(lay["grid"] == tr["grid"])
    if shape is Shape.RING:
        got = {k: (None if v["blank"] else v["tile"]) for k, v in lay["slots"].items()}
        return bool(got == tr["tops"])
    if shape is Shape.COLUMNS:
        cols = sorted([c["tile"] for c in col] for col in lay["columns"])
        return cols == tr["columns"] and sorted(r["tile"] for r in lay["reserve"]) == tr["reserve"]
    if shape is Shape.LINE:
        items = lay["line"]
        edges = sorted(
            sorted((str(Tile.parse(it["tile"])), str(Tile.parse(items[it["parent"]]["tile"]))))
            for it in items
            if it["parent"] is not None
        )
        opens = sorted(e["number"] for e in lay["open_ends"])
        return edges == tr["edges"] and opens == tr["open"]
    if shape is Shape.TABLEAU:
        cells: dict[tuple[int, int], int] = {}
        for p in lay["placed"]:
            for cell, v in zip(p["cells"], p["pips"]):
                cells[(int(cell[0]), int(cell[1]))] = int(v)
        want: dict[tuple[int, int], int] = {}
        for k, v in tr["cells"].items():
            r, c = (int(x) for x in k.split(","))
            want[(r, c)] = int(v)
        return _canon_cells(cells) == _canon_cells(want)
    raise ValueError(f"unknown game {sample.game!r}")
