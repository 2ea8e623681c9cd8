"""Whole rendered games for the follow benchmark: engine self-play, then camera frames.

:func:`play_game` plays one game with the real engine and a simple player (Tableaux: the most
points now; the draw game: the heaviest playable tile; the solitaires: the engine's greedy
player) and writes what a table would show as a :class:`TableScript`: the positions the table
passes through (tile placements on the table plane), the players' taps that the camera cannot
see (a pass, the end of a Tableaux turn that could go on, who leads), the true plays and the
final scores.

:func:`frames` turns a script into a camera stream, each frame either a photo
(``render=True``: the position drawn once with ``vision.render.scene.render_scene``, then per
frame a small camera shake, a slow lighting drift, sensor noise, and now and then a hand over
the table or a blurred, shaken frame) or the renderer's own labels with the same events
modelled as a detector would see them (``render=False``: tiles under the hand missing, an
unsteady frame losing tiles and misreading one, corner noise), which is fast enough for
hundreds of games.

Table conventions (docs/follow.md): a Tableaux hand ends with the table cleared before the next
starter is laid; at the end of a draw-game hand each player who holds tiles, in seat order
starting to the left of the player who made the last play, lays them face up in a row apart from
the line and takes them back; then the table is cleared.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.catalog import GAMES, GameType, Shape
from engine.tiles import Tile
from vision.types import TileDetection

from .scene import Placement, make_camera, render_scene


class Unlayable(RuntimeError):
    """A draw-game line that the layout code cannot lay flat without tiles overlapping."""


@dataclass
class Step:
    """One entry of a :class:`TableScript`.

    Attributes:
        kind: ``"show"`` (the table holds ``placements``) or ``"tap"`` (a player's tap:
            ``tap`` is ``"pass"``, ``"done"`` or ``"player"`` with ``player``).
        placements: the tiles on the table plane (``"show"``).
        plays: true plays that this position shows for the first time (keys as
            :func:`play_key` gives them).
        changed: centre (table plane) of what changed, for the hand over the table, or None.
        tap, player: the tap.
    """

    kind: str
    placements: list[Placement] = field(default_factory=list)
    plays: list[str] = field(default_factory=list)
    changed: tuple[float, float] | None = None
    tap: str = ""
    player: int | None = None


@dataclass
class TableScript:
    """A whole game as the table shows it.

    Attributes:
        game: one of :data:`GAME_KINDS`.
        params: ``Follower`` arguments (``players``, ``max_pip``, ``first_player``).
        steps: the positions and taps in order.
        plays: every true play key, in order.
        final: the true final result: ``{"scores": [...]}`` or ``{"won": bool, "removed": n}``.
    """

    game: str
    params: dict
    steps: list[Step]
    plays: list[str]
    final: dict


def play_key(game: str, record: dict) -> str | None:
    """The key a follower ``play`` record is matched on: the tile (Tableaux, draw game), the
    tiles removed (solitaires) or the action text (a Luzon move); None for a pass."""
    if record.get("action") == "pass":
        return None
    g = GAMES[game]
    if g.needs_hand:  # a tile played from a hand
        return record.get("tile")
    text = str(record.get("action"))
    if g.shape is Shape.GRID or text.startswith("remove "):
        # the tiles taken away (two ways of pairing the same tiles are the same turn)
        tiles = text.replace("remove ", "").replace(",", " + ").split(" + ")
        return "remove " + " ".join(sorted(str(Tile.parse(t)) for t in tiles))
    return text


def _jitter_place(
    t: Tile,
    x: float,
    y_down: float,
    angle_down: float,
    first: int,
    rs: random.Random,
    pos: float = 0.04,
    ang: float = 2.0,
) -> Placement:
    """A placement from y-down coordinates with a small per-tile jitter from ``rs``."""
    x += rs.uniform(-pos, pos)
    y_down += rs.uniform(-pos, pos)
    angle_down += rs.uniform(-ang, ang)
    return Placement(t, False, (float(x), float(-y_down)), float(-angle_down), first != t.low)


def _tile_rng(seed: int, t: Tile) -> random.Random:
    return random.Random(seed * 1000003 + t.low * 97 + t.high)


# --- Tableaux --------------------------------------------------------------------------------


def _tableaux_placements(board, seed: int) -> list[Placement]:
    from .layouts import board_tiles

    return [
        _jitter_place(t, x, y, ang, num, _tile_rng(seed, t), 0.02, 1.5)
        for t, x, y, ang, num in board_tiles(board)
    ]


def _tableaux_centre(low_cell, high_cell) -> tuple[float, float]:
    return ((low_cell[1] + high_cell[1]) / 2 * 1.03, -(low_cell[0] + high_cell[0]) / 2 * 1.03)


def _play_tableaux(rs: random.Random, g: GameType, max_pip: int) -> TableScript:
    from engine.tableaux import END_TURN, TableauxGame
    from engine.tableaux.board import Board
    from engine.tableaux.game import STARTER_CELLS, EndTurn, Pass, Place

    st = TableauxGame(max_pip).new_initial_state(rs.randrange(10**9))
    seed = rs.randrange(10**6)
    steps = [
        Step("tap", tap="player", player=st.player),
        Step("show", _tableaux_placements(st.board, seed)),
    ]
    plays: list[str] = []
    while not st.is_terminal():
        acts = st.legal_actions()
        places = [a for a in acts if isinstance(a, Place)]
        if not places:
            a = acts[0]
        else:
            pts = {a: st.placement_of(a).points for a in places}
            best = max(pts.values())
            a = rs.choice([x for x in places if pts[x] == best])
            if st.plays_this_turn and best <= 0 and END_TURN in acts and rs.random() < 0.7:
                a = END_TURN
        p, hand = st.player, st.hand_number
        if isinstance(a, Place):
            m = st.placement_of(a)
            board = st.board.copy()
            board.place(m.low_cell, a.tile.low, m.high_cell, a.tile.high)
            st.apply_action(a)
            plays.append(str(a.tile))
            steps.append(
                Step(
                    "show",
                    _tableaux_placements(board, seed),
                    [str(a.tile)],
                    _tableaux_centre(m.low_cell, m.high_cell),
                )
            )
            if st.is_terminal():
                break
            if m.continues and st.player != p:
                steps.append(Step("tap", tap="done"))
        elif isinstance(a, Pass):
            st.apply_action(a)
            steps.append(Step("tap", tap="pass"))
        else:
            assert isinstance(a, EndTurn)
            st.apply_action(a)
            steps.append(Step("tap", tap="done"))
        if st.hand_number != hand and not st.is_terminal():
            # a hand where neither player can play ends at its deal: its starter is laid and
            # taken up again before the next hand's (the camera sees it)
            for starter in st.starters[hand : st.hand_number - 1]:
                dead = Board()
                dead.place(STARTER_CELLS[0], starter.low, STARTER_CELLS[1], starter.high)
                steps.append(Step("show", []))
                steps.append(Step("show", _tableaux_placements(dead, seed)))
            steps.append(Step("show", []))
            steps.append(Step("show", _tableaux_placements(st.board, seed)))
    return TableScript(
        g.name,
        {"max_pip": max_pip, "first_player": steps[0].player},
        steps,
        plays,
        {"scores": list(st.scores)},
    )


# --- the draw game ---------------------------------------------------------------------------


def _line_layout(line, seed: int, doubles_in_line: bool = False) -> list[Placement]:
    """The line laid as ``vision.render.layouts`` lays it, in the line's node order (the order
    of play); another seed when tiles would overlap. The layout of a line's first ``n`` tiles
    is the first ``n`` placements of the line's layout with the same seed, so a hand laid once
    for its last line shows every earlier position with each tile where it lay. Raises
    :class:`Unlayable` after 300 seeds."""
    from .layouts import _line_placements

    for k in range(300):
        pl = _line_placements(
            line, random.Random(seed + k), bend=0.1 + 0.5 * k / 300, doubles_in_line=doubles_in_line
        )
        if pl is not None:
            return pl
    raise Unlayable(f"could not lay the line of play ({len(line)} tiles) without overlaps")


def _row_apart(line_pl: list[Placement], tiles: list[Tile], rs: random.Random) -> list[Placement]:
    """``tiles`` in a row beside the line, 5 tile widths below its lowest tile."""
    ys = [p.centre[1] for p in line_pl] or [0.0]
    xs = [p.centre[0] for p in line_pl] or [0.0]
    y_down = -min(ys) + 5.0
    x0 = float(np.mean(xs)) - (len(tiles) - 1) * 1.25
    return [
        _jitter_place(t, x0 + k * 2.5, y_down, 0.0, rs.choice(t.ends), rs)
        for k, t in enumerate(tiles)
    ]


def _play_draw100(
    rs: random.Random, g: GameType, players: int, doubles_in_line: bool = False
) -> TableScript:
    from engine.draw100 import Draw100Game
    from engine.draw100.game import Draw, Play

    st = Draw100Game(num_players=players).new_initial_state(rs.randrange(10**9))
    steps = [Step("tap", tap="player", player=st.player)]
    plays: list[str] = []
    seed = rs.randrange(10**6)
    last_play = None
    # the hand's plays, laid when the hand ends: (their step, tiles on the line then)
    pending: list[tuple[Step, int]] = []
    while not st.is_terminal():
        acts = st.legal_actions()
        a = (
            max(acts, key=lambda x: (x.tile.pips, rs.random()))
            if isinstance(acts[0], Play)
            else acts[0]
        )
        p, rnd = st.player, st.round_no
        hands = [list(h) for h in st.hands]
        line = st.line.copy()
        drawn = st.boneyard[-1] if isinstance(a, Draw) else None
        st.apply_action(a)
        if isinstance(a, Play):
            if a.end is None:
                line.place_first(a.tile)
            else:
                line.attach(a.tile, a.end)
            hands[p].remove(a.tile)
            last_play = p
            plays.append(str(a.tile))
            steps.append(Step("show", [], [str(a.tile)]))
            pending.append((steps[-1], len(line)))
        elif isinstance(a, Draw):
            hands[p].append(drawn)
        else:
            steps.append(Step("tap", tap="pass"))
        if st.round_no != rnd or st.is_terminal():
            # the hand's line laid once, as it lies at the end: each play shows the line up
            # to it, every tile where it lay (tiles lie still once laid)
            pl = _line_layout(line, seed + rnd * 1000, doubles_in_line)
            for step, n in pending:
                step.placements = pl[:n]
                step.changed = pl[n - 1].centre
            pending = []
            for k in range(1, players + 1):
                seat = (last_play + k) % players
                if hands[seat]:
                    row = _row_apart(pl, sorted(hands[seat]), rs)
                    steps.append(Step("show", pl + row, changed=row[0].centre))
                    steps.append(Step("show", pl))
            steps.append(Step("show", []))
            if not st.is_terminal():
                steps.append(Step("tap", tap="player", player=st.player))
    return TableScript(
        g.name,
        {"players": players, "first_player": steps[0].player},
        steps,
        plays,
        {"scores": list(st.scores), "hands": [[r.kind, r.winner, r.points] for r in st.rounds]},
    )


# --- solitaires ------------------------------------------------------------------------------


def _gn_placements(st, seed: int) -> list[Placement]:
    g = st.game
    out = []
    for k, t in enumerate(st.grid):
        r, c = divmod(k, g.cols)
        trs = _tile_rng(seed, t)
        out.append(_jitter_place(t, c * 2.35, r * 1.35, 0.0, trs.choice(t.ends), trs, 0.06, 3.0))
    return out


def _luzon_placements(st, seed: int) -> list[Placement]:
    out = []
    for j, col in enumerate(st.columns):
        for i, t in enumerate(col):
            trs = _tile_rng(seed, t)
            out.append(_jitter_place(t, j * 2.5, i * 1.2, 0.0, trs.choice(t.ends), trs, 0.05, 3.0))
    depth = max((len(c) for c in st.columns), default=0)
    for j, t in enumerate(st.reserve):
        trs = _tile_rng(seed, t)
        out.append(
            _jitter_place(
                t, 2.5 + j * 1.5, depth * 1.2 + 1.6, 90.0, trs.choice(t.ends), trs, 0.05, 3.0
            )
        )
    return out


def _play_solitaire(rs: random.Random, g: GameType, max_pip: int | None) -> TableScript:
    game = g.name
    if g.shape is Shape.GRID:
        from engine.good_neighbors import GoodNeighborsGame, greedy_action

        st = GoodNeighborsGame(max_pip=max_pip).new_initial_state(rs.randrange(10**9))
        place = _gn_placements
    else:
        from engine.luzon import LuzonGame, greedy_action

        st = LuzonGame().new_initial_state(rs.randrange(10**9))
        place = _luzon_placements
    seed = rs.randrange(10**6)
    steps = [Step("show", place(st, seed))]
    plays: list[str] = []
    while not st.is_terminal():
        a = greedy_action(st) if rs.random() < 0.8 else rs.choice(st.legal_actions())
        key = play_key(game, {"action": st.action_to_string(a)})
        st.apply_action(a)
        plays.append(key)
        pl = place(st, seed)
        steps.append(Step("show", pl, [key], None))
    params = {"max_pip": st.game.max_pip} if g.shape is Shape.GRID else {}
    return TableScript(
        game,
        params,
        steps,
        plays,
        {"won": bool(st.returns()[0] == 1.0), "removed": len(st.removed)},
    )


def _clock_slot(k: int, n: int) -> tuple[float, float, float]:
    """Table-plane place (x, y down) and angle (degrees, y down) of slot ``k`` of ``n``: the
    tile radial, slot ``n`` at the top, the hours clockwise."""
    th = 2 * math.pi * k / n
    r = 2.4 + 0.12 * n
    return r * math.sin(th), -r * math.cos(th), math.degrees(th) - 90.0


def _clock_placements(st, seed: int) -> list[Placement]:
    """The clock's top tiles and the 0-0 upright in the centre (the tiles under a top and the
    face-down stock are not drawn: the reader ignores them)."""
    n = st.game.max_pip
    centre = Tile(0, 0)
    out = [_jitter_place(centre, 0.0, 0.0, -90.0, 0, _tile_rng(seed, centre), 0.03, 2.0)]
    for k in st.game.slots:
        t = st.top(k)
        if t is None:
            continue
        x, y, a = _clock_slot(k, n)
        trs = _tile_rng(seed, t)
        out.append(_jitter_place(t, x, y, a, trs.choice(t.ends), trs, 0.05, 3.0))
    return out


def _play_big_clock(rs: random.Random, g: GameType, max_pip: int) -> TableScript:
    """The Big Clock: the engine's greedy player 80% of the time, else a random legal action
    other than giving up. A placement or a move is a new position; a set-aside (the drawn
    tile fits nowhere) and giving up are taps (``"pass"``, ``"done"``): the camera sees neither."""
    from engine.big_clock import BigClockGame, greedy_action
    from engine.big_clock.rules import GiveUp, Move, Place, SetAside

    st = BigClockGame(max_pip=max_pip).new_initial_state(rs.randrange(10**9))
    seed = rs.randrange(10**6)
    steps = [Step("show", _clock_placements(st, seed))]
    plays: list[str] = []
    while not st.is_terminal():
        acts = [a for a in st.legal_actions() if not isinstance(a, GiveUp)]
        a = greedy_action(st) if rs.random() < 0.8 or not acts else rs.choice(acts)
        if isinstance(a, (Place, Move)):
            key = play_key(g.name, {"action": st.action_to_string(a)})
            slot = a.slot if isinstance(a, Place) else a.dst
            st.apply_action(a)
            plays.append(key)
            x, y, _ = _clock_slot(slot, max_pip)
            steps.append(Step("show", _clock_placements(st, seed), [key], (x, -y)))
        else:
            st.apply_action(a)
            steps.append(Step("tap", tap="pass" if isinstance(a, SetAside) else "done"))
    if not st.is_won() and st.drawn is not None and not isinstance(st.history[-1], GiveUp):
        steps.append(Step("tap", tap="done"))  # a drawn double with nowhere to go: the game ends
    return TableScript(
        g.name,
        {"max_pip": max_pip},
        steps,
        plays,
        {"won": st.is_won(), "home": len(st.home_slots())},
    )


def play_game(
    game: str,
    rng: random.Random,
    players: int | None = None,
    max_pip: int | None = None,
    doubles_in_line: bool = False,
) -> TableScript:
    """Play one whole game with the engine and write what the table shows.

    Args:
        game: one of :data:`GAME_KINDS`.
        rng: seeds the deal and the player's choices.
        players: the draw game's seats (None: 2-4 at random).
        max_pip: Tableaux 6 (default) or 9; Good Neighbors 6, 9 or 12 (None: at random).
        doubles_in_line: the draw game's doubles laid lengthwise in the line (a house habit)
            instead of crosswise (RULES.md section 4).
    Returns:
        :class:`TableScript`.
    Raises:
        ValueError: an unknown game.
    """
    g = GAMES.get(game)
    if g is None or g.shape not in _PLAYERS:
        raise ValueError(f"unknown game {game!r}; one of {GAME_KINDS}")
    if g.shape is Shape.TABLEAU:
        return _play_tableaux(rng, g, max_pip or g.default_set)
    if g.shape is Shape.LINE:
        n = players or rng.choice(range(g.min_players, g.max_players + 1))
        return _play_draw100(rng, g, n, doubles_in_line)
    if g.shape is Shape.RING:
        return _play_big_clock(rng, g, max_pip or rng.choice(sorted(g.sets)))
    if len(g.sets) > 1:
        return _play_solitaire(rng, g, max_pip or rng.choice(sorted(g.sets)))
    return _play_solitaire(rng, g, None)


#: The layouts :func:`play_game` plays games of.
_PLAYERS = frozenset({Shape.TABLEAU, Shape.LINE, Shape.GRID, Shape.COLUMNS, Shape.RING})

#: Game kinds :func:`play_game` knows (catalog names, in the catalog's order).
GAME_KINDS = tuple(g.name for g in GAMES.values() if g.shape in _PLAYERS)


# --- the camera stream -----------------------------------------------------------------------


@dataclass
class Frame:
    """One item of the stream from :func:`frames`.

    Attributes:
        index: frame number (taps carry the number of the frame before them).
        kind: ``"frame"`` or ``"tap"``.
        image: ``(H, W, 3) uint8`` BGR photo (``render=True``), else None.
        labels: the detections a detector would give (``render=False``), else None.
        steady: a clean frame (no hand, no shake).
        plays: true plays first shown steadily (no hand, no shake) in this frame.
        shown: true plays first on the table in this frame (perhaps under a hand).
        tap, player: the tap (``kind == "tap"``).
    """

    index: int
    kind: str
    image: np.ndarray | None = None
    labels: list[TileDetection] | None = None
    steady: bool = True
    plays: list[str] = field(default_factory=list)
    shown: list[str] = field(default_factory=list)
    tap: str = ""
    player: int | None = None


def camera_labels(cam, placements) -> list[TileDetection]:
    """What a perfect detector reads of ``placements`` through the camera ``cam``
    (``vision.render.scene.Camera``): one ``TileDetection`` per tile, its corners ``(4, 2)
    float32`` image pixels, confidence 0.9, pip confidence 0.95 (None pips: face down)."""
    return [
        TileDetection(
            cam.project(p.plane_corners()).astype(np.float32),
            0.9,
            pips=p.shown(),
            pip_confidence=0.95,
        )
        for p in placements
    ]


def _hand_polygon(centre_px: np.ndarray, size: float, angle: float) -> np.ndarray:
    """A rough hand-and-forearm outline (pixels) reaching to ``centre_px``."""
    d = np.array([math.cos(angle), math.sin(angle)])
    n = np.array([-d[1], d[0]])
    palm = [
        centre_px + n * size * 0.5,
        centre_px + d * size * 0.9 + n * size * 0.55,
        centre_px + d * size * 4 + n * size * 0.45,
        centre_px + d * size * 4 - n * size * 0.45,
        centre_px + d * size * 0.9 - n * size * 0.55,
        centre_px - n * size * 0.5,
        centre_px - d * size * 0.35,
    ]
    return np.array(palm, np.float32)


#: ``(W, H)`` pixels of the frames :func:`frames` draws unless told otherwise.
FRAME_SIZE = (1024, 768)

#: Margin (fraction of each image side) that every tile of a position keeps from the picture's
#: border in :func:`frames`: the players aim the camera at the whole table, shown hands included
#: (a camera shake of a few pixels stays inside it).
KEEP_IN_FRAME = 0.03


def frames(
    script: TableScript,
    rng: np.random.Generator,
    render: bool = False,
    image_size: tuple[int, int] = FRAME_SIZE,
    steady_frames: int = 4,
    p_hand: float = 0.6,
    p_shaken: float = 0.15,
    p_miss: float = 0.005,
    p_misread: float = 0.003,
    keep_in_frame: float | None = KEEP_IN_FRAME,
) -> Iterator[Frame]:
    """The camera stream of a whole game.

    For each position: with probability ``p_hand`` 1-2 frames with a hand over the table near
    what changed, with probability ``p_shaken`` one blurred, shaken frame, then
    ``steady_frames`` clean frames (small shake, lighting drift, noise). Taps come in order.

    Args:
        script: from :func:`play_game`.
        rng: numpy Generator (style, camera, events).
        render: True: photos through ``render_scene``; False: labels (see the module docstring;
            ``p_miss``/``p_misread`` per tile and clean frame).
        image_size: ``(W, H)`` pixels.
        keep_in_frame: margin every tile of a position keeps from the picture's border
            (fraction of each side; ``make_camera``'s argument); None: the camera's perspective
            may cut tiles at the layout's edge, shown hands included.
    Yields:
        :class:`Frame`.
    """
    from .styles import random_style

    style = random_style(rng, max_pip=max(script.params.get("max_pip") or 6, 6)) if render else None
    rotation = (
        float(rng.uniform(0, 360))
        if GAMES[script.game].shape not in (Shape.GRID, Shape.RING)
        else float(rng.uniform(-25, 25))
    )
    tilt = float(rng.uniform(0.0, 0.1))
    fill = float(rng.uniform(0.6, 0.8))
    gain, index = 1.0, 0
    W, H = image_size
    last_show = max(k for k, st in enumerate(script.steps) if st.kind == "show")
    for k_step, step in enumerate(script.steps):
        if step.kind == "tap":
            yield Frame(index - 1, "tap", tap=step.tap, player=step.player)
            continue
        cam = make_camera(
            rng,
            step.placements,
            image_size,
            fill=fill,
            rotation_deg=rotation,
            tilt=tilt,
            keep_in_frame=keep_in_frame,
        )
        if render:
            scene = render_scene(
                step.placements, rng, style, image_size, camera=cam, clutter=0, effects=0.5
            )
            base = scene.image
            labels = scene.labels
        else:
            base = None
            labels = camera_labels(cam, step.placements)
        tile_px = float(np.median([d.size[1] for d in labels])) if labels else 40.0
        at = (
            cam.project(np.array([step.changed]))[0]
            if step.changed is not None
            else np.array([rng.uniform(0.3, 0.7) * W, rng.uniform(0.3, 0.7) * H])
        )
        events = []
        if rng.random() < p_hand:
            events += ["hand"] * int(rng.integers(1, 3))
        if rng.random() < p_shaken:
            events.append("shaken")
        events += ["steady"] * int(steady_frames + rng.integers(0, steady_frames + 1))
        if k_step == last_show:  # the final position stays on the table
            events += ["steady"] * (2 * steady_frames)
        first_steady = True
        first_index = index
        for ev in events:
            gain = float(np.clip(gain + rng.normal(0, 0.02), 0.75, 1.25))
            shift = rng.normal(0, 0.004 * W, 2) * (5 if ev == "shaken" else 1)
            rot = float(rng.normal(0, 0.3))
            M = cv2.getRotationMatrix2D((W / 2, H / 2), rot, 1.0)
            M[:, 2] += shift
            hand = (
                _hand_polygon(
                    at, tile_px * float(rng.uniform(1.4, 2.2)), float(rng.uniform(0, 2 * math.pi))
                )
                if ev == "hand"
                else None
            )
            f = Frame(index, "frame", steady=ev == "steady")
            if ev is events[0] and index == first_index:
                f.shown = list(step.plays)
            if ev == "steady" and first_steady:
                f.plays = list(step.plays)
                first_steady = False
            if render:
                img = cv2.warpAffine(base, M, (W, H), borderMode=cv2.BORDER_REFLECT)
                if hand is not None:
                    colour = tuple(int(c) for c in rng.uniform([60, 90, 150], [120, 150, 220]))
                    cv2.fillPoly(
                        img,
                        [np.round(cv2.transform(hand[None], M)[0]).astype(np.int32)],
                        colour,
                        cv2.LINE_AA,
                    )
                if ev == "shaken":
                    k = int(rng.integers(7, 15))
                    kernel = np.zeros((k, k), np.float32)
                    kernel[k // 2, :] = 1.0 / k
                    img = cv2.filter2D(img, -1, kernel)
                img = np.clip(
                    img.astype(np.float32) * gain + rng.normal(0, 3, img.shape), 0, 255
                ).astype(np.uint8)
                f.image = img
            else:
                out = []
                for d in labels:
                    c = cv2.transform(d.corners[None].astype(np.float32), M)[0]
                    c = c + rng.normal(0, 1.0, c.shape).astype(np.float32)
                    if (
                        hand is not None
                        and cv2.pointPolygonTest(
                            cv2.transform(hand[None], M)[0],
                            tuple(float(v) for v in c.mean(0)),
                            False,
                        )
                        >= 0
                    ):
                        continue
                    pips = d.pips
                    if ev == "shaken":
                        if rng.random() < 0.3:
                            continue
                        if rng.random() < 0.1:
                            pips = (int(rng.integers(0, 7)), pips[1])
                    elif rng.random() < p_miss:
                        continue
                    elif rng.random() < p_misread:
                        pips = (pips[0], int(rng.integers(0, 7)))
                    out.append(
                        TileDetection(c, d.confidence, pips=pips, pip_confidence=d.pip_confidence)
                    )
                f.labels = out
            yield f
            index += 1
