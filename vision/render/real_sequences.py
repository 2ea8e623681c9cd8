"""Draw-game sequences rebuilt from a real layout photo, for tests and ``bench_follow.py --real``.

A real photo of a finished line (``vision.render.real_layouts``) is taken back in time: tiles are
erased (``cv2.inpaint``) in reverse play order, so each state of the game is a real photo of the
tiles laid so far. The end of a hand is rebuilt from the same tiles: the last tiles of the play
order are lifted from the line and pasted, as they are, in a row apart from it (the hand a player
shows), then taken back, then the table cleared. Camera frames of a state add what a real table
gives: a skin-coloured hand over the table now and then, a camera turned by 1-2 degrees and
zoomed by 1-2%, a shift, glare, and JPEG at quality 72-92.

Public API:

- :class:`RealSequence`: one game: the states (images), what the follower must report (plays
  with seats, flags, the final score), the taps.
- :func:`sequences` ``(layout, seed) -> list[RealSequence]``: the sequences of one photo.
- :func:`check` ``(layout)``: raises, in words, when a layout cannot give them.
- :func:`hand_to_domino`: one hand from the lead to a domino (the phone page's photo-mode test).
- :func:`camera_frames` ``(image, rng, n, hand_at) -> list[image]``: a state as camera frames.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.tiles import Tile
from vision.render.real_layouts import RealLayout
from vision.types import TileDetection


@dataclass
class RealSequence:
    """One draw game's hand rebuilt from a real photo.

    Attributes:
        name: what it shows.
        players: seats at the table.
        to_move: the seat to move at the first state (None: the first state is the lead, made
            by seat 0).
        states: ``(H, W, 3) uint8`` BGR photos, one per state of the table, in order.
        plays: ``(tile, seat)`` the follower must report, in order.
        flags: tiles the follower must flag (illegal plays put down and taken back).
        scores: every seat's total at the end, or None when the hand does not end.
        change_at: per state, the pixel centre of what changed (for the hand over the table),
            or None.
    """

    name: str
    players: int
    to_move: int | None
    states: list[np.ndarray]
    plays: list[tuple[str, int]]
    flags: list[str] = field(default_factory=list)
    scores: list[int] | None = None
    change_at: list[np.ndarray | None] = field(default_factory=list)


def erase(
    image: np.ndarray,
    dets: list[TileDetection],
    keep: list[TileDetection] = (),  # type: ignore[assignment]
    pad: int = 14,
) -> np.ndarray:
    """``image`` with the tiles of ``dets`` painted over from the table around them.

    Every tile (``dets`` and ``keep``) is painted over first (``cv2.inpaint``, Telea; each box
    grown by ``pad`` pixels to take its shadow), then the tiles of ``keep`` are put back from
    ``image`` with a 2-pixel margin, so a kept tile touching an erased one is not smeared into
    the table around it."""
    mask: np.ndarray = np.zeros(image.shape[:2], np.uint8)
    for d in list(dets) + list(keep):
        cv2.fillPoly(mask, [np.round(d.corners).astype(np.int32)], 255)
    if pad > 0:
        mask = cv2.dilate(mask, np.ones((2 * pad + 1, 2 * pad + 1), np.uint8))
    out = cv2.inpaint(image, mask, 9, cv2.INPAINT_TELEA)
    back: np.ndarray = np.zeros(image.shape[:2], np.uint8)
    for d in keep:
        cv2.fillPoly(back, [np.round(d.corners).astype(np.int32)], 255)
    back = cv2.dilate(back, np.ones((5, 5), np.uint8))
    out[back > 0] = image[back > 0]
    return out


def paste(image: np.ndarray, source: np.ndarray, det: TileDetection, to: np.ndarray) -> np.ndarray:
    """``image`` with the tile ``det`` of ``source`` copied onto the quad ``to`` (``(4, 2)``
    pixels, same corner order as ``det.corners``), as a player moves a tile."""
    m = cv2.getPerspectiveTransform(det.corners.astype(np.float32), to.astype(np.float32))
    h, w = image.shape[:2]
    warped = cv2.warpPerspective(source, m, (w, h))
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(to).astype(np.int32)], 255)
    out = image.copy()
    out[mask > 0] = warped[mask > 0]
    return out


def _horizontal(det: TileDetection, x0: float, y0: float) -> np.ndarray:
    """Corners of ``det`` laid horizontally with its top-left corner at ``(x0, y0)``, half 0
    left, keeping its size; same corner order convention as ``det``."""
    length, width = det.size
    # det.corners[0] -> [1] is a long side: half 0 at corners 0 and 3
    return np.array(
        [[x0, y0], [x0 + length, y0], [x0 + length, y0 + width], [x0, y0 + width]], np.float32
    )


def play_order(layout: RealLayout | list[TileDetection], rng: random.Random) -> list[int]:
    """Indices of the tiles of ``layout`` (a real layout, or its boxes) in a legal play order:
    the line as ``vision.layout`` reads it from the boxes, each tile after the one it is joined
    to (the lead first), otherwise random.

    Raises:
        ValueError: the boxes do not read as one line."""
    from vision.layout import read

    dets = layout.detections() if isinstance(layout, RealLayout) else list(layout)
    got = read(dets, "draw100")
    line = got.layout["line"]
    if len(line) != len(dets):
        raise ValueError(f"the boxes read as {len(line)} joined tiles of {len(dets)}")
    children: dict[int | None, list[int]] = {}
    for k, it in enumerate(line):
        children.setdefault(it["parent"], []).append(k)
    order: list[int] = []
    frontier = list(children[None])
    while frontier:
        k = frontier.pop(rng.randrange(len(frontier)))
        order.append(int(line[k]["tile_index"]))
        frontier += children.get(k, [])
    return order


#: A chain of the vintage photo's tiles as one line (each matching the one before), and the
#: way it runs: a letter per tile (E, S, W, N); a double between two tiles running the same way
#: lies in line.
SNAKE_CHAIN = (
    (2, 5),
    (5, 5),
    (5, 3),
    (3, 3),
    (3, 6),
    (6, 0),
    (0, 0),
    (0, 4),
    (4, 4),
    (4, 1),
    (1, 6),
)
SNAKE_PATH = "EEEEESSWWWW"
_DIRS = {"E": (1.0, 0.0), "S": (0.0, 1.0), "W": (-1.0, 0.0), "N": (0.0, -1.0)}


def snake(layout: RealLayout, origin=(24.0, 30.0)) -> tuple[np.ndarray, list[TileDetection]]:
    """A photo of a snaking line with its doubles laid in line, made of ``layout``'s own tiles:
    every tile painted over, then the tiles of :data:`SNAKE_CHAIN` pasted, as they are, along
    :data:`SNAKE_PATH` from ``origin`` (pixels; a turn: the tile before ends against the side of
    the next one's first half). Returns the photo and the pasted tiles' boxes (values as
    pasted, half 0 toward the line's start)."""
    image = cv2.imread(str(layout.path))
    if image is None:
        raise FileNotFoundError(f"cannot read {layout.path}")
    dets = layout.detections()
    by_value = {Tile(*d.pips): d for d in dets}  # type: ignore[misc]
    out_img = erase(image, dets)  # the same bare table as the photo's own sequences
    out: list[TileDetection] = []
    length = float(np.median([d.size[0] for d in dets]))
    width = float(np.median([d.size[1] for d in dets]))
    head = np.array(origin, np.float64)
    axis = np.array(_DIRS[SNAKE_PATH[0]])
    for (a, b), c in zip(SNAKE_CHAIN, SNAKE_PATH):
        new_axis = np.array(_DIRS[c])
        start = (
            head if np.allclose(new_axis, axis) else head + axis * width / 2 - new_axis * width / 2
        )
        n = np.array([-new_axis[1], new_axis[0]])
        end = start + new_axis * length
        quad = np.array(
            [
                start - n * width / 2,
                end - n * width / 2,
                end + n * width / 2,
                start + n * width / 2,
            ],
            np.float32,
        )
        src = by_value[Tile(a, b)]
        # the source's half 0 (corners 0 and 3) must land on the end showing ``a``
        if src.pips is not None and (int(src.pips[0]), int(src.pips[1])) != (a, b):
            src = TileDetection(
                np.roll(src.corners, 2, axis=0), 1.0, pips=(b, a), pip_confidence=1.0
            )
        out_img = paste(out_img, image, src, quad)
        out.append(TileDetection(quad, 1.0, pips=(a, b), pip_confidence=1.0))
        head, axis = end, new_axis
    return out_img, out


#: A cross that is no legal line, on the vintage photo's table: ``(value, box, seat)`` per
#: state, in order; ``box`` ``(x0, y0, x1, y1)`` in photo pixels with the value's first number
#: on the left or top half; ``seat`` the player of a legal play, None for an illegal tile (it
#: stays on the table, as players who do not know the rules leave it). Legal: the lead 5-5, 5-4
#: and 5-3 off it, 4-4 crosswise on the 4, 4-0 on 4-4, 1-4 on a side of 4-4 (as the photo has
#: them). Illegal: 2-5 across the side of 5-4 (a cross through a non-spinner), 6-1 on the 3 of
#: 5-3, 3-6 end to end under the 2 of 2-5, 6-0 on the 6 of 3-6 (a chain of illegal tiles more
#: than two tile lengths from the line), 3-3 crosswise on the 0 of 4-0.
CROSS_STEPS: tuple[tuple[tuple[int, int], tuple[int, int, int, int], int | None], ...] = (
    ((5, 5), (50, 180, 140, 226), 0),
    ((5, 4), (141, 180, 231, 226), 1),
    ((5, 3), (73, 228, 119, 320), 0),
    ((5, 2), (141, 228, 187, 320), None),
    ((4, 4), (233, 155, 279, 247), 1),
    ((6, 1), (73, 322, 119, 414), None),
    ((3, 6), (141, 322, 187, 414), None),
    ((4, 0), (281, 180, 371, 226), 0),
    ((6, 0), (141, 416, 187, 508), None),
    ((3, 3), (371, 153, 417, 246), None),
    ((1, 4), (233, 60, 279, 152), 1),
)


def _quad(box: tuple[int, int, int, int]) -> np.ndarray:
    """Corners of an axis-aligned box in :meth:`RealLayout.detections` order (``corners[0] ->
    corners[1]`` a long side, half 0 left or top)."""
    x0, y0, x1, y1 = box
    if x1 - x0 >= y1 - y0:
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    return np.array([[x0, y0], [x0, y1], [x1, y1], [x1, y0]], np.float32)


def cross(layout: RealLayout) -> RealSequence:
    """ "A cross that is no legal line" (:data:`CROSS_STEPS`): legal plays with illegal tiles
    laid between them that stay on the table, made of ``layout``'s own tiles pasted, as they
    are, on its bare table (2 players, seat 0 leads). The follower must take the 6 legal plays
    with their seats, flag each of the 5 illegal tiles, and see no end of the hand.

    Raises:
        FileNotFoundError: the photo cannot be read.
        ValueError: the photo lacks a tile of :data:`CROSS_STEPS`."""
    image = cv2.imread(str(layout.path))
    if image is None:
        raise FileNotFoundError(f"cannot read {layout.path}")
    dets = layout.detections()
    by_value = {Tile(*d.pips): d for d in dets}  # type: ignore[misc]
    img = _bare(image, dets).copy()
    states: list[np.ndarray] = []
    at: list[np.ndarray | None] = []
    plays: list[tuple[str, int]] = []
    flags: list[str] = []
    for (a, b), box, seat in CROSS_STEPS:
        src = by_value.get(Tile(a, b))
        if src is None:
            raise ValueError(f"the photo holds no {Tile(a, b)} for the cross sequence")
        if src.pips is not None and (int(src.pips[0]), int(src.pips[1])) != (a, b):
            src = TileDetection(
                np.roll(src.corners, 2, axis=0), 1.0, pips=(b, a), pip_confidence=1.0
            )
        quad = _quad(box)
        img = paste(img, image, src, quad)
        states.append(img.copy())
        at.append(quad.mean(0).astype(np.float64))
        if seat is None:
            flags.append(str(Tile(a, b)))
        else:
            plays.append((str(Tile(a, b)), seat))
    return RealSequence(
        "a cross that is no legal line, 2 players", 2, None, states, plays, flags, None, at
    )


#: The table with every tile painted over, per photo (``id`` of the image array, its boxes):
#: painting over is the slow part (about a second a photo), and every state of a sequence starts
#: from the same bare table.
_BARE: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def _bare(image: np.ndarray, dets: list[TileDetection]) -> np.ndarray:
    """:func:`erase` of every tile of ``dets``, painted once per image."""
    key = (id(image), len(dets))
    got = _BARE.get(key)
    if got is None or got[0] is not image:
        got = (image, erase(image, dets))
        _BARE.clear()
        _BARE[key] = got
    return got[1]


def _states(image: np.ndarray, dets: list[TileDetection], shown: list[list[int]]) -> list:
    """The photo with only the tiles of each index list ``shown[k]`` left (as :func:`erase`,
    the table painted once)."""
    bare = _bare(image, dets)
    out = []
    for keep in shown:
        back: np.ndarray = np.zeros(image.shape[:2], np.uint8)
        for i in keep:
            cv2.fillPoly(back, [np.round(dets[i].corners).astype(np.int32)], 255)
        back = cv2.dilate(back, np.ones((5, 5), np.uint8))
        img = bare.copy()
        img[back > 0] = image[back > 0]
        out.append(img)
    return out


#: Tiles a real layout needs for :func:`sequences` (its first hand plays 9 and shows 3).
MIN_TILES = 12


def check(layout: RealLayout) -> None:
    """Say in words why ``layout`` cannot give :func:`sequences` (nothing is drawn).

    Raises:
        FileNotFoundError: the photo is not there.
        ValueError: fewer than :data:`MIN_TILES` boxes, or they do not read as one line of
            play (``vision.layout`` on the boxes)."""
    if len(layout.boxes) < MIN_TILES:
        raise ValueError(
            f"a real layout needs at least {MIN_TILES} tiles in one line of play, "
            f"this one has {len(layout.boxes)}"
        )
    if not layout.path.is_file():
        raise FileNotFoundError(f"no photo at {layout.path}")
    play_order(layout, random.Random(0))


def sequences(layout: RealLayout, seed: int = 1) -> list[RealSequence]:
    """The draw-game sequences rebuilt from ``layout`` (see the module docstring): a hand to a
    domino with 2 players (the last tiles shown by the loser), a hand joined in progress with 3
    players (who is to move given), an illegal tile put down and taken back, and a hand to a
    domino with 3 players (two hands shown); and, when the photo holds the tiles of
    :data:`SNAKE_CHAIN`, a hand to a domino on a snake of them with its doubles laid in line
    (:func:`snake`).

    Raises:
        FileNotFoundError: the photo cannot be read.
        ValueError: fewer than :data:`MIN_TILES` boxes (the first hand plays 9 tiles and shows
            3), or the boxes do not read as one line of play."""
    check(layout)
    rng = random.Random(seed)
    image = cv2.imread(str(layout.path))
    if image is None:
        raise FileNotFoundError(f"cannot read {layout.path}")
    dets = layout.detections()
    tiles = [Tile(*d.pips) for d in dets]  # type: ignore[misc]
    out: list[RealSequence] = []

    def centre(i: int) -> np.ndarray:
        return dets[i].centre.astype(np.float64)

    out.append(hand_to_domino(image, dets, rng, "spinner line, 2 players, a domino", 2, 9, [3]))

    # joined in progress: 3 players, the first photo already holds 5 tiles, seat 2 to move
    order = play_order(layout, rng)
    states = _states(image, dets, [order[:k] for k in range(5, len(order) + 1)])
    plays = [(str(tiles[i]), (2 + k) % 3) for k, i in enumerate(order[5:])]
    out.append(
        RealSequence(
            "joined in progress, 3 players",
            3,
            2,
            states,
            plays,
            [],
            None,
            [None] + [centre(i) for i in order[5:]],
        )
    )

    # an illegal tile: a tile of the set put against an open end it does not match, taken back
    order = play_order(layout, rng)
    # the wrong tile: a later tile whose numbers miss the free end it is put against, after
    # the first play from which such an end lies inside the photo
    k_bad, bad = 4, None
    for k in range(4, len(order) - 1):
        bad = _illegal(layout, dets, tiles, order[:k], order[k:])
        if bad is not None:
            k_bad = k
            break
    laid = order[:k_bad]
    states = _states(image, dets, [order[:k] for k in range(1, k_bad + 1)])
    at: list[np.ndarray | None] = [centre(i) for i in laid]
    base = states[-1]
    if bad is not None:
        j, quad = bad
        states += [paste(base, image, dets[j], quad), base]
        at += [quad.mean(0).astype(np.float64), None]
    more = order[k_bad : k_bad + 4]
    states += _states(image, dets, [order[: k_bad + m] for m in range(1, len(more) + 1)])
    at += [centre(i) for i in more]
    plays = [(str(tiles[i]), k % 2) for k, i in enumerate(order[: k_bad + len(more)])]
    out.append(
        RealSequence(
            "an illegal tile put down and taken back, 2 players",
            2,
            None,
            states,
            plays,
            [str(tiles[bad[0]])] if bad is not None else [],
            None,
            at,
        )
    )
    out.append(
        hand_to_domino(image, dets, rng, "spinner line, 3 players, two hands shown", 3, 8, [2, 2])
    )
    # illegal tiles left on the table between legal plays (a cross through a non-spinner)
    if {Tile(*v) for v, _, _ in CROSS_STEPS} <= set(tiles):
        out.append(cross(layout))
    # a snake of the same real tiles with its doubles laid in line (a house habit)
    if {Tile(a, b) for a, b in SNAKE_CHAIN} <= set(tiles):
        snake_image, snake_dets = snake(layout)
        out.append(
            hand_to_domino(
                snake_image,
                snake_dets,
                rng,
                "snake, doubles in line, 2 players, a domino",
                2,
                8,
                [3],
            )
        )
    return out


def hand_to_domino(
    image: np.ndarray,
    dets: list[TileDetection],
    rng: random.Random,
    name: str,
    players: int,
    line_n: int,
    groups: list[int],
) -> RealSequence:
    """A hand from the lead to a domino: the first ``line_n`` tiles of a random legal order of
    the line of ``image`` (boxes ``dets``) played by the seats in turn from seat 0; the others
    shown, ``groups[k]`` tiles at a time in a row along the bottom of the photo and taken back
    after each group; then the table cleared. The last player scores every pip shown."""
    tiles = [Tile(*d.pips) for d in dets]  # type: ignore[misc]
    h, w = image.shape[:2]
    order = play_order(dets, rng)
    line, rest = order[:line_n], order[line_n:]
    states = _states(image, dets, [line[:k] for k in range(1, line_n + 1)])
    at: list[np.ndarray | None] = [dets[i].centre.astype(np.float64) for i in line]
    plays = [(str(tiles[i]), k % players) for k, i in enumerate(line)]
    last = (line_n - 1) % players
    points = 0
    start = 0
    length, width = dets[0].size
    for g in groups:  # each group shown, then taken back
        idx = rest[start : start + g]
        start += g
        shown = states[line_n - 1]
        x = w * 0.35
        for i in idx:
            shown = paste(shown, image, dets[i], _horizontal(dets[i], x, h - 1.5 * width - 8))
            x += length + 6
        states += [shown, states[line_n - 1]]
        at += [np.array([w * 0.5, h - 40.0]), None]
        points += sum(tiles[i].pips for i in idx)
    states.append(_bare(image, dets).copy())
    at.append(None)
    scores = [0] * players
    scores[last] = points
    return RealSequence(name, players, None, states, plays, [], scores, at)


def _illegal(
    layout: RealLayout,
    dets: list[TileDetection],
    tiles: list[Tile],
    laid: list[int],
    later: list[int],
) -> tuple[int, np.ndarray] | None:
    """A later tile and where to put it so that it touches the free end of a laid non-double
    with a number that does not match, on free table inside the photo: ``(tile index, quad)``,
    or None."""
    photo = cv2.imread(str(layout.path))
    if photo is None:
        raise FileNotFoundError(f"cannot read {layout.path}")
    h, w = photo.shape[0], photo.shape[1]
    for host_i in reversed(laid):
        host = dets[host_i]
        if tiles[host_i].is_double or host.pips is None:
            continue
        touching = []
        for i in laid:
            if i == host_i:
                continue
            gaps = [min(float(np.hypot(*(a - b))) for b in dets[i].halves) for a in host.halves]
            if min(gaps) < host.size[1] * 1.6:
                touching.append(int(np.argmin(gaps)))
        free_ends = [e for e in (0, 1) if e not in touching]
        if not free_ends:
            continue
        free = free_ends[0]
        number = int(host.pips[free])
        axis = host.halves[free] - host.halves[1 - free]
        axis = axis / max(float(np.linalg.norm(axis)), 1e-6)
        n = np.array([-axis[1], axis[0]])
        for j in later:
            if tiles[j].has(number):
                continue
            length, width = dets[j].size
            c = host.centre + axis * (host.size[0] / 2 + length / 2 + 3)
            if any(float(np.hypot(*(c - dets[i].centre))) < length for i in laid):
                break  # that end is covered by another tile: try another host
            quad = np.array(
                [
                    c - axis * length / 2 - n * width / 2,
                    c + axis * length / 2 - n * width / 2,
                    c + axis * length / 2 + n * width / 2,
                    c - axis * length / 2 + n * width / 2,
                ],
                np.float32,
            )
            if (
                float(quad.min()) < 0
                or float(quad[:, 0].max()) >= w
                or float(quad[:, 1].max()) >= h
            ):
                break
            return j, quad
    return None


def camera_frames(
    image: np.ndarray,
    rng: np.random.Generator,
    n: int,
    hand_at: np.ndarray | None = None,
    p_hand: float = 0.5,
    p_shaken: float = 0.0,
) -> list[np.ndarray]:
    """``n`` steady camera frames of one state, after 0-2 frames with a skin-coloured hand
    reaching over ``hand_at`` (pixels; probability ``p_hand``) and, with probability
    ``p_shaken``, one shaken frame (moved 2% of the width and blurred along a line 1.5-3.5% of
    the short side long at any angle, as a camera jolted while the hand pulls back): each frame
    turned 1-2 degrees either way and zoomed 1-2% about a point near the centre, shifted a few
    pixels, with glare now and then, encoded as JPEG at quality 72-92 and decoded. Returns
    ``HxWx3 uint8 BGR`` images of the size of ``image``."""
    from vision.render.games import _hand_polygon

    h, w = image.shape[:2]
    kinds = ["steady"] * n
    if p_shaken > 0 and rng.random() < p_shaken:
        kinds = ["shaken"] + kinds
    if hand_at is not None and rng.random() < p_hand:
        kinds = ["hand"] * int(rng.integers(1, 3)) + kinds
    out = []
    for kind in kinds:
        img = image.copy()
        if kind == "hand":
            size = 0.07 * min(h, w) * float(rng.uniform(1.2, 1.8))
            poly = _hand_polygon(
                np.asarray(hand_at, np.float64), size, float(rng.uniform(0, 2 * math.pi))
            )
            colour = tuple(int(c) for c in rng.uniform([60, 90, 150], [120, 150, 220]))
            cv2.fillPoly(img, [np.round(poly).astype(np.int32)], colour, cv2.LINE_AA)
        angle = float(rng.uniform(1.0, 2.0)) * float(rng.choice([-1, 1]))
        scale = 1.0 + float(rng.uniform(0.01, 0.02)) * float(rng.choice([-1, 1]))
        m = cv2.getRotationMatrix2D(
            (w / 2 + float(rng.normal(0, 10)), h / 2 + float(rng.normal(0, 10))), angle, scale
        )
        m[:, 2] = m[:, 2] + rng.normal(0, 3, 2)
        if kind == "shaken":
            m[:, 2] = m[:, 2] + rng.normal(0, 0.02 * w, 2)
        img = cv2.warpAffine(img, m, (w, h), borderMode=cv2.BORDER_REFLECT)
        if kind == "shaken":
            img = _motion_blur(img, float(rng.uniform(0.015, 0.035)) * min(h, w), rng)
        if rng.random() < 0.4:  # glare: a soft bright spot
            gx, gy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.8) * h
            yy, xx = np.mgrid[0:h, 0:w]
            r = float(rng.uniform(0.08, 0.2)) * min(h, w)
            spot = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))
            img = np.clip(img + spot[..., None] * float(rng.uniform(40, 90)), 0, 255).astype(
                np.uint8
            )
        q = int(rng.integers(72, 93))
        ok, buf = cv2.imencode(".jpg", img, [int(cv2.IMWRITE_JPEG_QUALITY), q])
        if not ok:
            raise ValueError("JPEG encoding failed")
        back = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        if back is None:
            raise ValueError("JPEG decoding failed")
        out.append(back)
    return out


def _motion_blur(img: np.ndarray, length: float, rng: np.random.Generator) -> np.ndarray:
    """``img`` blurred along a line of ``length`` px at a random angle (a camera moving while
    the shutter is open)."""
    k = max(3, int(round(length)) | 1)
    kernel = np.zeros((k, k), np.float32)
    kernel[k // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
    turned = cv2.warpAffine(kernel, turn, (k, k))
    turned = (turned / max(float(turned.sum()), 1e-6)).astype(np.float32)
    return cv2.filter2D(img, -1, turned)


def as_sent(img: np.ndarray, size: tuple[int, int], quality: int, rng) -> bytes:
    """``img`` (``HxWx3 uint8 BGR``) as a camera or phone sends it at ``size`` ``(W, H)`` px:
    enlarged (cubic) with sensor noise of 3 grey levels, as the bytes of a JPEG of that
    ``quality``. Raises ValueError when OpenCV cannot encode it."""
    big = cv2.resize(img, size, interpolation=cv2.INTER_CUBIC).astype(np.int16)
    big += rng.normal(0.0, 3.0, big.shape).astype(np.int16)
    ok, buf = cv2.imencode(
        ".jpg", np.clip(big, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, quality]
    )
    if not ok:
        raise ValueError(f"cannot encode a {size[0]}x{size[1]} JPEG")
    return buf.tobytes()


__all__ = [
    "RealSequence",
    "as_sent",
    "sequences",
    "camera_frames",
    "erase",
    "paste",
    "play_order",
    "snake",
    "cross",
    "hand_to_domino",
]
