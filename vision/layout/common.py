"""Geometry and bookkeeping shared by the per-game layout readers.

Every reader takes ``list[TileDetection]`` (pixel corners, pips per half; see
``vision/types.py``) and returns a :class:`GameReading`: the engine state (or None), a
JSON-ready description of the layout and the problems found. The helpers here turn detections
into :class:`Seen` records (centre, long axis, size in pixels, value), check the tiles against
the set (unreadable, doubtful, duplicate, outside the set, too many) and fit simple lattices.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.tiles import DominoSet, Tile
from vision.types import TileDetection, TileFlag, boxes_on_better_boxes

#: Largest shared area of two face-up boxes (fraction of the smaller) taken as two tiles
#: (:func:`to_seen`); the rendered layouts of every game stay under 0.02.
MAX_OVERLAP = 0.4

#: Problem kinds that stop the state from being built (the others are only reported).
BLOCKING = {
    "unreadable",
    "doubtful",
    "duplicate",
    "outside_set",
    "too_many",
    "impossible",
    "ambiguous",
    "overlap",
    "no_layout",
    "mid_turn",
    "not_joined",
}

#: ``pip_confidence`` given to a plain face-down box taken as the 0-0 (:func:`assume_blank_double`):
#: the lowest that :func:`to_seen` accepts by default, since the value is a deduction.
ASSUMED_BLANK_CONFIDENCE = 0.5
#: ... and the detector confidence such a box needs: on the rendered layouts of the benchmark the
#: bare boxes that were a 0-0 had 0.58-0.97, those on empty table (no tile there) 0.25-0.44.
ASSUMED_BLANK_MIN_DETECTOR_CONFIDENCE = 0.5


@dataclass
class Problem:
    """Something the reader could not settle; reported, never guessed away.

    Attributes:
        tile_index: index into the detections of the photo it concerns (None: the whole layout).
        kind: short tag: unreadable, doubtful, duplicate, outside_set, too_many, face_down,
            ambiguous, overlap, gap, mid_turn, bad_box, overlapping_box, stray_box, not_joined,
            impossible, no_layout, no_hand, assumed_blank, reread, deduced, corrected, dropped,
            house_rule (a table habit the rules do not describe, read as the players meant it:
            a draw-game double laid in line).
        message: one human sentence.
        source: "table" or "hand" (which photo ``tile_index`` refers to).
    """

    tile_index: int | None
    kind: str
    message: str
    source: str = "table"

    @property
    def blocking(self) -> bool:
        """True when the state cannot be built while this problem stands."""
        return self.kind in BLOCKING

    def to_json(self) -> dict:
        """``{tile_index, kind, message, source, blocking}``."""
        return {
            "tile_index": self.tile_index,
            "kind": self.kind,
            "message": self.message,
            "source": self.source,
            "blocking": self.blocking,
        }


@dataclass
class GameReading:
    """What a per-game reader returns to :func:`vision.layout.read`.

    Attributes:
        state: the engine state, or None when a blocking problem stands.
        layout: JSON-ready description of what was seen (per game).
        problems: the problems found.
    """

    state: Any
    layout: dict
    problems: list[Problem] = field(default_factory=list)


@dataclass
class Seen:
    """One detection in a form the readers use.

    Attributes:
        index: index of the detection in the input list.
        det: the detection.
        value: ``(a, b)`` pips on half 0 and half 1, or None when not usable.
        centre: ``(2,) float64`` pixel centre.
        axis: ``(2,) float64`` unit vector half 0 -> half 1 (the long axis).
        length, width: box side lengths in pixels (length >= width).
    """

    index: int
    det: TileDetection
    value: tuple[int, int] | None
    centre: np.ndarray
    axis: np.ndarray
    length: float
    width: float

    @property
    def tile(self) -> Tile | None:
        """The canonical tile, or None when the value is unknown."""
        return None if self.value is None else Tile(*self.value)

    @property
    def known(self) -> Tile:
        """The canonical tile of a tile read with a usable value (callers keep only those).

        Raises:
            ValueError: the value is unknown.
        """
        if self.value is None:
            raise ValueError(f"tile {self.index} has no usable value")
        return Tile(*self.value)

    @property
    def halves(self) -> np.ndarray:
        """``(2, 2) float64`` pixel centres of the halves."""
        return np.asarray(self.det.halves, np.float64)

    @property
    def is_double(self) -> bool:
        return self.value is not None and self.value[0] == self.value[1]

    def label(self) -> str:
        """ "a-b" as seen (half 0 first), "?" when unknown, "back" for a face-down tile."""
        if self.det.face_down:
            return "back"
        return "?" if self.value is None else f"{self.value[0]}-{self.value[1]}"


def tile_json(s: Seen) -> dict:
    """A JSON record of a seen tile: index, tile text, centre in pixels."""
    return {
        "tile_index": s.index,
        "tile": None if s.tile is None else str(s.tile),
        "centre": [round(float(s.centre[0]), 1), round(float(s.centre[1]), 1)],
    }


def to_seen(
    dets: Sequence[TileDetection],
    max_pip: int,
    problems: list[Problem],
    min_pip_confidence: float = 0.5,
    source: str = "table",
    face_down_ok: bool = False,
    max_overlap: float | None = MAX_OVERLAP,
    skip: Collection[int] = (),
) -> list[Seen]:
    """Turn detections into :class:`Seen` records and report unusable values.

    Args:
        dets: the detections (pixel corners, pips per half).
        max_pip: the set (6, 9 or 12): pips above it are reported ``outside_set``.
        problems: list to append :class:`Problem` records to.
        min_pip_confidence: a pip reading below this ``pip_confidence`` is ``doubtful`` and
            not used (the brief: say so instead of guessing).
        source: "table" or "hand", copied into the problems.
        face_down_ok: when False a face-down tile is reported (kind ``face_down``).
        max_overlap: every game here lays its tiles flat and apart (RULES.md; layout
            conventions in docs/layout.md), so a face-up box sharing more than this fraction of
            the smaller box with a more confident face-up box is the detector finding one tile
            twice (a box shifted across two touching tiles): it is reported ``overlapping_box``
            (not blocking) and left out. None: keep every box.
        skip: indices of detections to leave out without a word (the caller reports them); a
            box that lay on a skipped box is judged without it.
    Returns:
        One :class:`Seen` per detection with a proper box, same order (value None when not
        usable); a degenerate box (non-finite, or a side under 2 px) is reported ``bad_box``
        and left out, and so are an overlapping box (above) and a stray box
        (:func:`stray_boxes`, reported ``stray_box``).
    Raises:
        ValueError: when ``dets`` holds something that is not a TileDetection.
    """
    for i, d in enumerate(dets):
        if not isinstance(d, TileDetection):
            raise ValueError(f"detection {i} is a {type(d).__name__}, not a TileDetection")
    covered = (
        {}
        if max_overlap is None
        else boxes_on_better_boxes(list(dets), max_overlap, ignore=frozenset(skip))
    )
    strays = stray_boxes(dets)
    out: list[Seen] = []
    for i, d in enumerate(dets):
        if i in skip:
            continue
        if i in strays:
            problems.append(
                Problem(
                    i,
                    "stray_box",
                    f"this box is {strays[i]:.0%} as long as the "
                    f"other tiles and the detector is unsure of it "
                    f"(confidence {d.confidence:.2f}): not taken as a tile",
                    source,
                )
            )
            continue
        if i in covered:
            j, frac = covered[i]
            problems.append(
                Problem(
                    i,
                    "overlapping_box",
                    f"this box lies {frac:.0%} on the more "
                    f"confident box of table tile {j}: taken as that tile found twice "
                    f"and left out",
                    source,
                )
            )
            continue
        halves = np.asarray(d.halves, np.float64)
        v = halves[1] - halves[0]
        n = float(np.linalg.norm(v))
        axis = v / n if n > 0 else np.array([1.0, 0.0])
        length, width = d.size
        if not (np.all(np.isfinite(d.corners)) and width >= 2.0 and length >= 2.0):
            problems.append(
                Problem(
                    i,
                    "bad_box",
                    f"the box of this detection is degenerate "
                    f"({length:.1f} x {width:.1f} px); it is left out",
                    source,
                )
            )
            continue
        value = None
        if d.face_down:
            if not face_down_ok:
                problems.append(
                    Problem(
                        i,
                        "face_down",
                        "tile lies face down; its value is unknown and it is left out",
                        source,
                    )
                )
        elif d.pips is None:
            why = f": {d.note}" if d.note else ""
            problems.append(
                Problem(i, "unreadable", f"the pips of this tile could not be read{why}", source)
            )
        elif d.pip_confidence is not None and d.pip_confidence < min_pip_confidence:
            problems.append(
                Problem(
                    i,
                    "doubtful",
                    f"pips read as {d.pips[0]}-{d.pips[1]} "
                    f"with confidence {d.pip_confidence:.2f} only "
                    f"(< {min_pip_confidence}); photograph it again",
                    source,
                )
            )
        elif max(d.pips) > max_pip or min(d.pips) < 0:
            problems.append(
                Problem(
                    i,
                    "outside_set",
                    f"{d.pips[0]}-{d.pips[1]} is not in a double-{max_pip} set",
                    source,
                )
            )
        else:
            value = (int(d.pips[0]), int(d.pips[1]))
        out.append(
            Seen(i, d, value, np.asarray(d.centre, np.float64), axis, float(length), float(width))
        )
    return out


#: A face-up box shorter than this fraction of the median face-up box, with a detector
#: confidence under :data:`STRAY_MAX_CONFIDENCE`, is not a tile of the layout (:func:`stray_boxes`).
STRAY_MAX_LENGTH = 0.55
STRAY_MAX_CONFIDENCE = 0.5


def stray_boxes(dets: Sequence[TileDetection]) -> dict[int, float]:
    """Small, doubtful face-up boxes: the tiles of one photo lie at about the same distance from
    the camera, so a box much shorter than the others (:data:`STRAY_MAX_LENGTH` of the median
    length) that the detector is also unsure of (:data:`STRAY_MAX_CONFIDENCE`) is a pattern of
    the table or a detail of a tile, not a tile. Needs at least 4 face-up boxes.

    Returns:
        ``{index: length as a fraction of the median}``.
    """
    up = [i for i, d in enumerate(dets) if not d.face_down and np.all(np.isfinite(d.corners))]
    if len(up) < 4:
        return {}
    med = float(np.median([dets[i].size[0] for i in up]))
    if med <= 0:
        return {}
    out = {}
    for i in up:
        frac = dets[i].size[0] / med
        if frac < STRAY_MAX_LENGTH and dets[i].confidence < STRAY_MAX_CONFIDENCE:
            out[i] = frac
    return out


def check_set(
    groups: Sequence[tuple[str, Sequence[Seen]]],
    max_pip: int,
    problems: list[Problem],
    limit: int | None = None,
) -> None:
    """Report a tile seen twice (across all groups) and more tiles than the game allows.

    Args:
        groups: ``[(source, seen tiles), ...]``, e.g. the table and the hand.
        max_pip: the set.
        problems: list to append to.
        limit: the most tiles the game can show at once (default: the set size).
    """
    first: dict[Tile, tuple[str, int]] = {}
    count = 0
    for source, seen in groups:
        for s in seen:
            if s.det.face_down:
                continue
            count += 1
            t = s.tile
            if t is None:
                continue
            if t in first:
                src0, i0 = first[t]
                problems.append(
                    Problem(
                        s.index,
                        "duplicate",
                        f"{t} is seen twice, as {src0} tile {i0} and {source} tile "
                        f"{s.index}: a set has one of each",
                        source,
                    )
                )
            else:
                first[t] = (source, s.index)
    size = len(DominoSet(max_pip).tiles)
    lim = size if limit is None else limit
    if count > lim:
        problems.append(
            Problem(
                None,
                "too_many",
                f"{count} face-up tiles seen; this game shows "
                f"at most {lim} (double-{max_pip} set of {size})",
            )
        )


def dominant_axis(seen: Sequence[Seen], period_deg: float = 180.0) -> np.ndarray:
    """The main direction of the tiles' long axes, modulo ``period_deg``.

    Args:
        seen: tiles (at least one).
        period_deg: 180 when all tiles lie the same way, 90 when some lie crosswise.
    Returns:
        ``(2,) float64`` unit vector in image pixels, the one closest to +x of its family.
    """
    k = 360.0 / period_deg
    ang = np.array([math.atan2(s.axis[1], s.axis[0]) for s in seen])
    w = np.array([s.length for s in seen])
    z = np.sum(w * np.exp(1j * k * ang))
    a = float(np.angle(z)) / k
    cands = [a + m * math.radians(period_deg) for m in range(int(round(360 / period_deg)))]
    best = max(cands, key=lambda t: math.cos(t))
    return np.array([math.cos(best), math.sin(best)])


def perp(u: np.ndarray) -> np.ndarray:
    """``u`` turned 90 degrees so that (u, perp(u)) is a right-handed image frame (y down)."""
    return np.array([-u[1], u[0]])


def cluster_1d(values: np.ndarray, min_gap: float) -> np.ndarray:
    """Cluster labels 0, 1, ... for 1-D values, splitting wherever sorted neighbours are more
    than ``min_gap`` apart (same units as ``values``). Returns ``(N,) int``, labels ascending
    with the values."""
    v = np.asarray(values, np.float64)
    order = np.argsort(v)
    labels = np.empty(len(v), int)
    k = 0
    for j, i in enumerate(order):
        if j and v[i] - v[order[j - 1]] > min_gap:
            k += 1
        labels[i] = k
    return labels


def polygon_gap(a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    """Smallest distance between two convex quads (pixels) and the midpoint of the closest points.

    Args:
        a, b: ``(4, 2)`` corners in order around each box.
    Returns:
        ``(distance, (2,) midpoint)``; distance 0 when the boxes overlap.
    """
    best: tuple[float, np.ndarray] = (math.inf, np.zeros(2))
    for p_set, q_set in ((a, b), (b, a)):
        for p in p_set:
            for k in range(4):
                q0, q1 = q_set[k], q_set[(k + 1) % 4]
                d = q1 - q0
                t = float(np.clip(np.dot(p - q0, d) / max(np.dot(d, d), 1e-9), 0, 1))
                c = q0 + t * d
                dist = float(np.linalg.norm(p - c))
                if dist < best[0]:
                    best = (dist, (p + c) / 2)
    if _overlap(a, b):
        return 0.0, best[1]
    return best


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    # separating axis test for convex quads
    for poly in (a, b):
        for k in range(4):
            e = poly[(k + 1) % 4] - poly[k]
            n = np.array([-e[1], e[0]])
            pa, pb = a @ n, b @ n
            if pa.max() < pb.min() or pb.max() < pa.min():
                return False
    return True


def fit_grid_homography(cells: np.ndarray, pixels: np.ndarray) -> np.ndarray | None:
    """Least-squares homography from lattice coordinates to pixels (None if degenerate).

    Args:
        cells: ``(N, 2)`` lattice coordinates (any unit).
        pixels: ``(N, 2)`` image pixels.
    Returns:
        ``(3, 3) float64`` or None when fewer than 4 points or all on a line.
    """
    import cv2

    cells = np.asarray(cells, np.float64)
    if len(cells) < 4 or np.linalg.matrix_rank(cells - cells.mean(0), tol=1e-6) < 2:
        return None
    H, _ = cv2.findHomography(cells, np.asarray(pixels, np.float64), 0)
    return H


def apply_h(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Map ``(N, 2)`` points through the homography ``H``; returns ``(N, 2) float64`` (inf or
    nan for a point sent to infinity by a degenerate ``H``: callers check ``np.isfinite``)."""
    p = np.c_[np.asarray(pts, np.float64).reshape(-1, 2), np.ones(len(pts))] @ H.T
    with np.errstate(divide="ignore", invalid="ignore"):
        return p[:, :2] / p[:, 2:3]


def assume_blank_double(
    dets: Sequence[TileDetection],
    problems: list[Problem],
    elsewhere: Sequence[Tile] = (),
    min_pip_confidence: float = 0.5,
) -> list[TileDetection]:
    """In a layout of face-up tiles only (Good Neighbors, Luzon, Tableaux: RULES.md sections 1,
    3, 5 deal every tile face up), take a lone plain face-down box as the 0-0.

    A blank double of a set without divider bars shows a bare face, like a plain back; the pip
    reader leaves such a box face down with the flag
    :attr:`vision.types.TileFlag.BLANK_OR_BACK`. When exactly one box of the photo has that
    flag, the detector is fairly sure of it (:data:`ASSUMED_BLANK_MIN_DETECTOR_CONFIDENCE`: a
    doubtful bare box is more often a patch of the table) and no 0-0 is seen face up (in
    ``dets`` with ``pip_confidence >= min_pip_confidence``, or in ``elsewhere``, e.g. the
    hand), that box becomes a face-up 0-0 with ``pip_confidence``
    :data:`ASSUMED_BLANK_CONFIDENCE`, and the deduction is reported (kind ``assumed_blank``,
    not blocking). Two or more such boxes (a stock lying face down beside the layout) are left
    as they are.

    Args:
        dets: the table photo's detections (not changed).
        problems: list to append the report to.
        elsewhere: tiles known to be elsewhere (the hand).
        min_pip_confidence: the reading confidence that makes a face-up 0-0 count as seen.
    Returns:
        A new list: ``dets`` with at most one detection replaced.
    """
    dets = list(dets)
    plain = [
        i
        for i, d in enumerate(dets)
        if isinstance(d, TileDetection) and d.face_down and d.flag is TileFlag.BLANK_OR_BACK
    ]
    if len(plain) != 1 or dets[plain[0]].confidence < ASSUMED_BLANK_MIN_DETECTOR_CONFIDENCE:
        return dets
    blank = Tile(0, 0)
    if blank in elsewhere or any(
        isinstance(d, TileDetection)
        and not d.face_down
        and d.pips is not None
        and tuple(d.pips) == (0, 0)
        and (d.pip_confidence or 0.0) >= min_pip_confidence
        for d in dets
    ):
        return dets
    i = plain[0]
    dets[i] = TileDetection(
        dets[i].corners.copy(),
        dets[i].confidence,
        face_down=False,
        pips=(0, 0),
        pip_confidence=ASSUMED_BLANK_CONFIDENCE,
        note="a bare face in a layout of face-up tiles: taken as the 0-0",
    )
    problems.append(
        Problem(
            i,
            "assumed_blank",
            "this tile shows no pips, no divider and no marks; "
            "every tile of this game lies face up and no 0-0 is seen, so it is "
            "taken as the 0-0 (check it)",
        )
    )
    return dets
