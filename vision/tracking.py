"""Frame-to-frame tracking of tiles with smoothing: a table state that holds still.

A live camera gives a reading (``list[TileDetection]``) several times a second. Single readings
flicker: a hand over the table hides tiles, motion blur makes a tile unreadable, a tile being
put down is half there. :class:`Tracker` matches each frame's tiles to the previous frames'
(by value, since a set holds one of each tile, then by position and box) and changes its
*stable state* only when a new reading has held: a tile counts when most of the last frames
read it (``steady_frames`` of ``2 * steady_frames - 1``), and a tile has moved when most of them
show it elsewhere relative to the other tiles (the camera's own shift, turn and zoom between
frames is fitted on all tiles and taken out first, so camera shake and a drifting phone do not
count as moves). A tile's stable box keeps its geometry: readings are put in one corner order
before they are averaged, only readings along the best reading's axis are averaged (a double's
orientation is the best frame's), and a place whose reading flips between two values counts
once, with the value most frames give. A place read as one value in most of the voting frames
counts with that value even when the pip reader doubts each reading (pip confidence under
``min_pip_confidence``): the frames vote on the value as on the tile.

Public API:

- :class:`Tracker` ``(steady_frames=3, move_tolerance=0.5, min_pip_confidence=0.5)``
- :meth:`Tracker.update` ``(detections, still=False) -> TrackUpdate``: one frame in; says
  whether the view is steady and, when the stable state changed, gives the new one
  (``still``: a photo taken as a stable view at once).
- :class:`TrackUpdate`: ``frame``, ``steady``, ``changed``, ``stable`` (``list[TileDetection]``
  with smoothed corners), ``tracks`` (per-tile overlay records for a live picture).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from engine.tiles import Tile
from vision.types import BLANK_OR_BACK_NOTE, TileDetection, TileFlag

#: Frames a new reading must hold before it becomes the stable state (at a few readings a second,
#: about one second of stillness).
STEADY_FRAMES = 3
#: Largest move of a tile relative to the others, in tile widths, still taken as the same place.
MOVE_TOLERANCE = 0.5
#: Tile lengths (centre to centre) beyond which a box lies apart from every other box of a view:
#: a tile set down alone, not one of a layout (:meth:`Tracker._box_gone`).
APART = 1.5
#: The most a camera turns (degrees) between two frames of the voting window: a fit that turns
#: more is tiles that moved, not the camera (:func:`_align`). Zoom is not bounded: a phone lifted
#: between two plays (or a camera refitted to a smaller layout) zooms by half or more.
MAX_TURN_DEG = 30.0


@dataclass
class _Frame:
    """One frame's reading, keyed for matching.

    ``values``: ``{Tile: detection}`` of face-up tiles read with enough confidence;
    ``others``: the remaining boxes (face down, unread, doubtful, and both boxes of a value read
    twice); ``repeated``: True when a value was read on two boxes (a misread: a set holds one of
    each tile).
    """

    detections: list[TileDetection]
    values: dict[Tile, TileDetection]
    others: list[TileDetection]
    repeated: bool
    moved_from: _Frame | None = None
    moved: list = field(default_factory=list)

    @property
    def width(self) -> float:
        """Median box width in pixels (1.0 for an empty frame)."""
        ws = [d.size[1] for d in self.detections]
        return float(np.median(ws)) if ws else 1.0


def _usable(d: TileDetection, min_pip_confidence: float) -> bool:
    """A face-up reading with a value trusted enough to vote."""
    return (
        not d.face_down
        and d.pips is not None
        and (d.pip_confidence is None or d.pip_confidence >= min_pip_confidence)
    )


#: Fraction of a box's area lying on the frame's other boxes from which it is taken for a box
#: drawn across tiles (:func:`_covered`), not a tile: tiles lie flat side by side, their boxes
#: overlap at most along an edge.
ACROSS_TILES = 0.5


def _covered(d: TileDetection, detections: Sequence[TileDetection]) -> float:
    """Fraction of ``d``'s box area (0 to 1) that the other boxes of ``detections`` cover
    (the sum of the areas shared pairwise, :meth:`TileDetection.shared_area`, at most 1)."""
    import cv2

    a = np.asarray(d.corners, np.float32).reshape(4, 2)
    area = abs(float(cv2.contourArea(a)))
    if area <= 0:
        return 0.0
    cover = 0.0
    for o in detections:
        if o is d:
            continue
        b = np.asarray(o.corners, np.float32).reshape(4, 2)
        if np.hypot(*(a.mean(0) - b.mean(0))) > max(np.ptp(a, 0).max(), np.ptp(b, 0).max()):
            continue  # too far apart to overlap
        cover += d.shared_area(o)
    return min(cover / area, 1.0)


def _frame(detections: Sequence[TileDetection], min_pip_confidence: float) -> _Frame:
    """One frame's reading keyed for matching. A value read on two boxes is trusted on neither
    (one of them is misread), unless exactly one of the two lies mostly on other boxes of the
    frame (:data:`ACROSS_TILES`): a box drawn across the halves of two tiles side by side
    (reading, say, the 1 of one and the 1 of the next as 1-1), not a tile; it is left out and
    the value stays on the other box."""
    values: dict[Tile, TileDetection] = {}
    boxes: dict[Tile, list[TileDetection]] = {}
    others: list[TileDetection] = []
    for d in detections:
        if not isinstance(d, TileDetection):
            raise ValueError(f"expected TileDetection, got {type(d).__name__}")
        if not _usable(d, min_pip_confidence):
            others.append(d)
            continue
        boxes.setdefault(Tile(int(d.pips[0]), int(d.pips[1])), []).append(d)
    repeated = False
    for t, ds in boxes.items():
        if len(ds) == 1:
            values[t] = ds[0]
            continue
        tiles = [d for d in ds if _covered(d, detections) < ACROSS_TILES]
        if len(ds) == 2 and len(tiles) == 1:
            values[t] = tiles[0]
            continue
        repeated = True  # one of them is misread: neither is trusted
        others += ds
    return _Frame(list(detections), values, others, repeated)


def _align(a: _Frame, b: _Frame) -> np.ndarray:
    """``(2, 3) float64`` similarity transform taking frame ``a``'s pixels to frame ``b``'s:
    :func:`camera_motion` on the centres of the tiles both read, or where only one or two are,
    :func:`box_motion` on their corners (a zoom or turn a few centres cannot show)."""
    common = [t for t in a.values if t in b.values]
    if 0 < len(common) < 3:
        return box_motion({t: a.values[t].corners for t in common}, b.values, common)
    src = np.array([a.values[t].centre for t in common], np.float64).reshape(-1, 2)
    dst = np.array([b.values[t].centre for t in common], np.float64).reshape(-1, 2)
    return camera_motion(src, dst, b.width)


def camera_motion(src: np.ndarray, dst: np.ndarray, width: float) -> np.ndarray:
    """``(2, 3) float64`` similarity transform (rotation, scale, shift) taking the pixels of
    one view to another's, fitted robustly (least median) on the centres of the same tiles in
    both (``src``, ``dst``: ``(N, 2)`` pixels, row ``i`` one tile); a pure shift with fewer
    than 3 tiles, the identity with none.

    The camera's motion is what most of those tiles agree on: a fit (or shift) that puts no more
    than half of them within ``MOVE_TOLERANCE`` tile widths (``width``: pixels, the tile width
    in the second view) of where the second view reads them, or that turns the picture by more
    than ``MAX_TURN_DEG``, is not the camera's (the tiles themselves moved: a Good Neighbors grid
    closing up shifts every tile after a gap, and a few tiles on a regular grid fit a quarter
    turn), and the identity is taken instead."""
    import cv2

    ident = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    src = np.asarray(src, np.float64).reshape(-1, 2)
    dst = np.asarray(dst, np.float64).reshape(-1, 2)
    if len(src) != len(dst):
        raise ValueError(
            f"camera_motion needs the same tiles in both views: {len(src)} != {len(dst)}"
        )
    if not len(src):
        return ident
    m = None
    if len(src) >= 3:
        m, _ = cv2.estimateAffinePartial2D(src, dst, method=cv2.LMEDS)
        if m is not None and not np.all(np.isfinite(m)):
            m = None
    if m is None:
        d = np.median(dst - src, axis=0)
        m = np.array([[1.0, 0.0, d[0]], [0.0, 1.0, d[1]]])
    if abs(float(np.degrees(np.arctan2(m[1, 0], m[0, 0])))) > MAX_TURN_DEG:
        return ident  # no camera turns that much within a few frames
    near = np.hypot(*(apply_motion(m, src) - dst).T) <= MOVE_TOLERANCE * width
    return m if 2 * int(near.sum()) > len(src) else ident


def motion_since(
    kept: Mapping[Tile, np.ndarray], boxes: Mapping[Tile, TileDetection], tiles: Sequence[Tile]
) -> np.ndarray:
    """:func:`camera_motion` from an earlier view to this one, fitted on ``tiles`` (each in
    both): ``kept[t]`` its ``(2,)`` pixel centre in the earlier view, ``boxes[t]`` its box in
    this view, whose short sides' median is the tile width. ``(2, 3) float64``."""
    return camera_motion(
        np.array([kept[t] for t in tiles]),
        np.array([boxes[t].centre for t in tiles]),
        float(np.median([min(boxes[t].size) for t in tiles])),
    )


def box_motion(
    kept: Mapping[Tile, np.ndarray], boxes: Mapping[Tile, TileDetection], tiles: Sequence[Tile]
) -> np.ndarray:
    """:func:`camera_motion` from an earlier view to this one, fitted on the corners of
    ``tiles`` (each in both): ``kept[t]`` its ``(4, 2)`` corners in the earlier view,
    ``boxes[t]`` its box in this view. ``(2, 3) float64``.

    Where one or two tiles are all that both views hold (a hand's first plays), their centres
    give a shift only, while a phone lifted or turned between two plays zooms and turns the
    picture: each box's own length and axis carry that. Its corners are put in the order of
    its earlier corners about its centre (the ordering nearest them, :func:`_in_order`: of the
    turns a rectangle allows, the smallest), so the fit takes no turn over
    :data:`MAX_TURN_DEG`."""
    src, dst = [], []
    for t in tiles:
        a = np.asarray(kept[t], np.float64).reshape(4, 2)
        b = np.asarray(boxes[t].corners, np.float64).reshape(4, 2)
        src.append(a)
        dst.append(_in_order(b - b.mean(0), a - a.mean(0)) + b.mean(0))
    return camera_motion(
        np.concatenate(src),
        np.concatenate(dst),
        float(np.median([min(boxes[t].size) for t in tiles])),
    )


def _bare_if_read_bare(d: TileDetection, reads: Sequence[TileDetection]) -> TileDetection:
    """``d``, a face-down box of the latest frame, flagged a bare face
    (``TileFlag.BLANK_OR_BACK``: no pips, no divider, no marks) when some of ``reads`` (the
    boxes the voting frames show at its place) were and none was a printed back: a face that
    shows nothing is read bare in some frames and left undecided (grain, a glint taken for a
    mark) in others, and only a bare face lets the layout reader take a lone one as the blank
    double 0-0 (``vision.layout.common.assume_blank_double``)."""
    if not d.face_down or d.flag is not TileFlag.NONE:
        return d
    flags = {o.flag for o in reads}
    if TileFlag.BLANK_OR_BACK not in flags or TileFlag.PRINTED_BACK in flags:
        return d
    return replace(d, flag=TileFlag.BLANK_OR_BACK, note=BLANK_OR_BACK_NOTE)


def apply_motion(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points ``(N, 2)`` mapped by the ``(2, 3)`` transform ``m``."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    return pts @ m[:, :2].T + m[:, 2]


#: Largest angle, in degrees, between a reading's long axis and the best reading's for the two to
#: be averaged (a box read crosswise in one frame and in line in the next is not one box).
AXIS_TOLERANCE_DEG = 30.0


def _in_order(corners: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """``corners`` ``(4, 2)`` put in the order of ``ref`` ``(4, 2)``: of the 8 ways round the
    box (4 starting corners, both directions), the one nearest ``ref`` corner by corner. A
    detector may start a box at any corner from one frame to the next (a tile read rotated 180
    degrees swaps its halves); averaging corners taken in different orders shrinks the box, so
    every reading is put in one order before any averaging."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    ways = [np.roll(c, -k, axis=0) for k in range(4)]
    ways += [np.roll(c[::-1], -k, axis=0) for k in range(4)]
    return min(ways, key=lambda w: float(np.sum((w - ref) ** 2)))


def _axis_deg(corners: np.ndarray) -> float:
    """Direction of a box's long axis in degrees, in [0, 180)."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    a, b = c[1] - c[0], c[2] - c[1]
    v = a if np.hypot(*a) >= np.hypot(*b) else b
    return float(np.degrees(np.arctan2(v[1], v[0])) % 180.0)


def _axis_gap(a: float, b: float) -> float:
    """Angle in degrees between two axis directions (each in [0, 180)), in [0, 90]."""
    d = abs(a - b) % 180.0
    return min(d, 180.0 - d)


def _score(d: TileDetection) -> float:
    """How much one reading is trusted: detector confidence times pip confidence."""
    return float(d.confidence) * (1.0 if d.pip_confidence is None else float(d.pip_confidence))


def _moved(a: _Frame, b: _Frame, tolerance: float) -> list[Tile]:
    """Tiles of both frames that moved by more than ``tolerance`` widths relative to the rest
    (the camera's own motion between the frames, :func:`_align`, is taken out first)."""
    common = [t for t in a.values if t in b.values]
    if not common:
        return []
    m = _align(a, b)
    limit = tolerance * max(a.width, b.width)
    return [
        t
        for t in common
        if float(np.hypot(*(apply_motion(m, a.values[t].centre)[0] - b.values[t].centre))) > limit
    ]


def agree(a: _Frame, b: _Frame, tolerance: float = MOVE_TOLERANCE) -> bool:
    """True when two frames show the same table: same values, same count of boxes without a
    value, no tile moved relative to the others."""
    if a.repeated or b.repeated:
        return False
    if set(a.values) != set(b.values) or len(a.others) != len(b.others):
        return False
    return not _moved(a, b, tolerance)


@dataclass
class TrackUpdate:
    """What one frame did to the tracker.

    Attributes:
        frame: 0-based frame number.
        steady: the last ``steady_frames`` frames agree (the view holds still).
        changed: the stable state changed with this frame.
        stable: the stable state (``list[TileDetection]``, corners averaged over the frames that
            agreed), or None before the first one.
        tracks: overlay records of this frame's tiles: ``{"tile": "3-5" or None, "corners":
            [[x, y] * 4], "status": "stable" | "new" | "unsure"}`` (``new``: not in the stable
            state; ``unsure``: no value).
    """

    frame: int
    steady: bool
    changed: bool
    stable: list[TileDetection] | None
    tracks: list[dict] = field(default_factory=list)


class Tracker:
    """Tiles matched frame to frame by vote; a stable state that changes only when a new
    reading holds.

    The last ``2 * steady_frames - 1`` frames vote: a tile (a value: a set holds one of each) is
    on the table when read in at least ``steady_frames`` of them, so a tile hidden by a hand, lost
    to blur or misread for fewer frames than that neither vanishes nor appears. A tile has moved
    when, in ``steady_frames`` of the voting frames, it lies more than ``move_tolerance`` tile
    widths from its stable place relative to the other tiles (camera shake and a drifting phone
    move all tiles together and are taken out). The stable state changes when the voted tiles
    differ from it or a tile has moved.

    Args:
        steady_frames: votes a tile needs (>= 1); also the delay, in frames, of a change.
        move_tolerance: tile widths a tile may move relative to the others and stay the same.
        min_pip_confidence: pip readings under this count as boxes without a value.
    Raises:
        ValueError: ``steady_frames`` < 1 or a negative tolerance.
    """

    def __init__(
        self,
        steady_frames: int = STEADY_FRAMES,
        move_tolerance: float = MOVE_TOLERANCE,
        min_pip_confidence: float = 0.5,
    ):
        if int(steady_frames) < 1:
            raise ValueError(f"steady_frames must be at least 1, got {steady_frames!r}")
        if move_tolerance < 0:
            raise ValueError(f"move_tolerance must be >= 0, got {move_tolerance!r}")
        self.steady_frames = int(steady_frames)
        self.window = 2 * self.steady_frames - 1
        self.move_tolerance = float(move_tolerance)
        self.min_pip_confidence = float(min_pip_confidence)
        self.frame = -1
        self._frames: list[_Frame] = []
        self._stable: _Frame | None = None
        self.stable: list[TileDetection] | None = None
        self._doubt_cache: tuple = (None, {})

    @property
    def settled(self) -> bool:
        """True when the voting frames show the stable state (no change is under way)."""
        return self._stable is not None and bool(self._frames) and not self._change()

    @property
    def last_values(self) -> set[Tile]:
        """The face-up values read when a tap is made: on any box (a value read on two boxes
        counted too) in the latest frame, or in at least two of the last ``steady_frames``
        frames. A value read once, in an earlier frame only, is a passing misread (another tile
        read wrong), not a tile put down before the tap (a tile laid stays and is read again)."""
        counts = self._read_counts()
        latest = self._read_counts(1)
        return set(latest) | {t for t, n in counts.items() if n >= 2}

    @property
    def last_places(self) -> dict[Tile, np.ndarray]:
        """Where each face-up value was read in the last ``steady_frames`` frames: ``{value:
        (2,) pixel centre}`` of its box in the latest of them that read it on one box (a value
        read on two boxes of every such frame is left out). With :attr:`last_values` it says
        where a value read when a tap was made lay then."""
        out: dict[Tile, np.ndarray] = {}
        for f in self._frames[-self.steady_frames :]:
            boxes: dict[Tile, list[TileDetection]] = {}
            for d in f.detections:
                if _usable(d, self.min_pip_confidence):
                    boxes.setdefault(Tile(int(d.pips[0]), int(d.pips[1])), []).append(d)
            out.update({t: ds[0].centre for t, ds in boxes.items() if len(ds) == 1})
        return out

    @property
    def coming(self) -> set[Tile]:
        """Values read in most of the last ``steady_frames`` frames (on any box, a value read
        on two boxes of a frame counted too) that the stable state does not hold: a tile being
        put down and not yet voted in (its readings too few so far, or its value also misread
        on another box). A value read in fewer of them is more often a passing misread."""
        held = set(self._stable.values) if self._stable is not None else set()
        recent = len(self._frames[-self.steady_frames :])
        return {t for t, n in self._read_counts().items() if 2 * n > recent and t not in held}

    def _read_counts(self, last: int | None = None) -> dict[Tile, int]:
        """``{value: frames}``: in how many of the last ``last`` frames (default
        ``steady_frames``) each face-up value is read on any box."""
        counts: dict[Tile, int] = {}
        for f in self._frames[-(last or self.steady_frames) :]:
            for t in {
                Tile(int(d.pips[0]), int(d.pips[1]))
                for d in f.detections
                if _usable(d, self.min_pip_confidence)
            }:
                counts[t] = counts.get(t, 0) + 1
        return counts

    def _voted(self) -> set[Tile]:
        """The tiles on the table by vote: a value read in ``steady_frames`` of the voting
        frames (a value the stable state does not hold: at one place, :meth:`_one_place`);
        and, where readings of one place flip between values none of which has the votes alone
        (a tile read 5-3 in some frames and 5-2 in others, never both in one frame), the place
        counts once with the value most of its readings give (readings on a box cut by the
        picture's border, ``TileDetection.at_edge``, count only after those of the whole tile:
        a tile's half cut away reads as another value; a tie: the value of the stable state,
        else the latest reading)."""
        counts: dict[Tile, int] = {}
        for f in self._frames:
            for t in f.values:
                counts[t] = counts.get(t, 0) + 1
        k = self.steady_frames
        voted = {t for t, n in counts.items() if n >= k}
        held = set(self._stable.values) if self._stable is not None else set()
        fresh = voted - held
        if fresh:
            maps = [_align(f, self._frames[-1]) for f in self._frames]
            voted -= {t for t in fresh if not self._one_place(t, maps)}
        weak = [t for t, n in counts.items() if n < k]
        if len(self._frames) < k:
            return voted
        if len(weak) >= 2:
            voted = voted | self._flips(weak, voted, counts)
        doubted = self._doubtful_votes(voted)
        return voted | set(doubted) if doubted else voted

    def _one_place(self, t: Tile, maps: list[np.ndarray]) -> bool:
        """Whether ``steady_frames`` of the voting frames read value ``t`` at one place (within
        ``move_tolerance`` tile widths of each other, each frame mapped onto the latest one by
        its entry of ``maps``, :func:`_align`): a tile put down is read where it lies, so a
        value read in enough frames but at scattered places is a misread of several tiles, not
        a tile."""
        limit = self.move_tolerance * self._frames[-1].width
        pts = np.array(
            [
                apply_motion(m, f.values[t].centre)[0]
                for f, m in zip(self._frames, maps)
                if t in f.values
            ]
        ).reshape(-1, 2)
        return any(int(np.sum(np.hypot(*(pts - p).T) <= limit)) >= self.steady_frames for p in pts)

    def _doubtful_votes(
        self, voted: set[Tile]
    ) -> dict[Tile, list[tuple[TileDetection, np.ndarray]]]:
        """Places whose readings, doubtful ones (pip confidence under ``min_pip_confidence``)
        counted too, give one value in ``steady_frames`` of the voting frames: ``{value: its
        readings there as (detection, (4, 2) corners in the latest frame's pixels)}``, the
        readings of the other values at that place included (:meth:`_smoothed` takes the box
        from them).

        A tile whose pips the reader doubts in each frame (a tile shown at a picture's edge,
        its reading flipping between 3-3 at 0.34-0.49 and 2-3) is taken when most voting frames
        read the same value at its place: the frames are independent readings, and a place
        read as one value in most of them is that value more surely than any one reading. Left
        out: a value voted elsewhere (a set holds one of each), a place where a voted tile lies
        or inside the box of another value of the stable state (a tile once laid keeps its
        value), a box lying mostly on other boxes (:data:`ACROSS_TILES`: a box across two
        tiles), a face-down box, a box with a :class:`TileFlag` (a blank read without a divider
        may be a plain back), and a frame's reading of a value read on another box of the same
        frame.
        """
        import cv2

        if self._doubt_cache[0] == self.frame:  # one answer per window (:meth:`_smoothed`)
            return self._doubt_cache[1]
        out: dict[Tile, list[tuple[TileDetection, np.ndarray]]] = {}
        self._doubt_cache = (self.frame, out)
        doubtful = [
            [
                d
                for d in f.others
                if not d.face_down
                and d.pips is not None
                and not _usable(d, self.min_pip_confidence)
                and d.flag is TileFlag.NONE
            ]
            for f in self._frames
        ]
        if not any(doubtful):
            return out
        last = self._frames[-1]
        maps = [_align(f, last) for f in self._frames]
        limit = self.move_tolerance * last.width
        # a tile of the stable state keeps its place and value: a doubtful reading where it
        # lies is that tile misread (a line's tile at the picture's edge read 1-2 for 1-5)
        stable = self._stable.values if self._stable is not None else {}
        to_last = _align(self._stable, last) if self._stable is not None else None
        held = {t: apply_motion(to_last, d.corners).astype(np.float32) for t, d in stable.items()}
        taken = []
        for t in voted:
            pts = [
                apply_motion(m, f.values[t].centre)[0]
                for f, m in zip(self._frames, maps)
                if t in f.values
            ]
            if pts:
                taken.append(np.median(np.array(pts), axis=0))
        # every reading of a value not voted: (frame, detection, corners in the latest frame)
        reads: list[tuple[int, TileDetection, np.ndarray]] = []
        for i, (f, m, ds) in enumerate(zip(self._frames, maps, doubtful)):
            seen = [
                Tile(int(d.pips[0]), int(d.pips[1])) for d in f.detections if d.pips is not None
            ]
            for d in [d for t, d in f.values.items() if t not in voted] + ds:
                t = Tile(int(d.pips[0]), int(d.pips[1]))
                if t in voted or seen.count(t) > 1:
                    continue
                c = apply_motion(m, d.corners)
                if all(np.hypot(*(c.mean(0) - q)) > limit for q in taken):
                    reads.append((i, d, c))
        places: list[list[tuple[int, TileDetection, np.ndarray]]] = []
        for r in reads:
            home = next(
                (p for p in places if np.hypot(*(p[0][2].mean(0) - r[2].mean(0))) <= limit), None
            )
            if home is None:
                places.append([r])
            else:
                home.append(r)
        for p in places:
            # one reading per frame (the most trusted), none drawn across tiles
            best: dict[int, tuple[int, TileDetection, np.ndarray]] = {}
            for r in p:
                if r[0] not in best or _score(r[1]) > _score(best[r[0]][1]):
                    best[r[0]] = r
            kept = [
                r
                for r in best.values()
                if _covered(r[1], self._frames[r[0]].detections) < ACROSS_TILES
            ]
            counts: dict[Tile, int] = {}
            for _, d, _c in kept:
                t = Tile(int(d.pips[0]), int(d.pips[1]))
                counts[t] = counts.get(t, 0) + 1
            won = [t for t, n in counts.items() if n >= self.steady_frames and t not in out]
            here = np.mean([c.mean(0) for _, _, c in kept], axis=0) if kept else None
            if won and any(
                u != won[0]
                and cv2.pointPolygonTest(box, (float(here[0]), float(here[1])), False) >= 0
                for u, box in held.items()
            ):
                continue  # inside a tile of the stable state (cut by the picture's edge too)
            if won:
                out[won[0]] = [(d, c) for _, d, c in kept]
        return out

    def _flips(self, weak: list[Tile], voted: set[Tile], counts: dict[Tile, int]) -> set[Tile]:
        """Values chosen by :meth:`_voted` for places whose readings flip (see there)."""
        last = self._frames[-1]
        maps = [_align(f, last) for f in self._frames]
        limit = self.move_tolerance * last.width

        def place(t: Tile) -> np.ndarray:
            pts = [
                apply_motion(m, f.values[t].centre)[0]
                for f, m in zip(self._frames, maps)
                if t in f.values
            ]
            return np.median(np.array(pts), axis=0)

        places = {t: place(t) for t in weak}
        taken = [place(t) for t in voted]
        stable = set(self._stable.values) if self._stable is not None else set()
        latest = {t: i for i, f in enumerate(self._frames) for t in f.values}
        out: set[Tile] = set()
        left = [t for t in weak if all(np.hypot(*(places[t] - q)) > limit for q in taken)]
        frames_of = {t: {i for i, f in enumerate(self._frames) if t in f.values} for t in weak}
        # a box cut by the picture's border shows part of a tile: its readings count after
        # those of the whole tile
        whole = {t: sum(not self._frames[i].values[t].at_edge for i in frames_of[t]) for t in weak}
        while left:
            t0 = left.pop(0)
            group = [t0]
            for u in left:
                # one tile has one value per frame: values read together in a frame are two tiles
                if np.hypot(*(places[u] - places[t0])) <= limit and not any(
                    frames_of[u] & frames_of[g] for g in group
                ):
                    group.append(u)
            left = [u for u in left if u not in group]
            if len(group) < 2 or sum(counts[u] for u in group) < self.steady_frames:
                continue
            out.add(max(group, key=lambda u: (whole[u], counts[u], u in stable, latest[u])))
        return out

    def _change(self) -> bool:
        voted = self._voted()
        if self._stable is None:
            return bool(self._frames) and len(self._frames) >= self.steady_frames
        if voted != set(self._stable.values) or self._new_box() or self._box_gone():
            return True
        moves: dict[Tile, int] = {}
        for f in self._frames:
            if f.moved_from is not self._stable:  # each frame is compared once per stable state
                f.moved_from, f.moved = self._stable, _moved(self._stable, f, self.move_tolerance)
            for t in f.moved:
                moves[t] = moves.get(t, 0) + 1
        return any(k >= self.steady_frames for k in moves.values())

    def _new_box(self) -> bool:
        """A box without a value (face down, unread) at a place where the stable state holds no
        box, shown there by ``steady_frames`` of the voting frames: a tile put down whose value
        the pip reader cannot give (a blank double read as a plain back); the stable state
        takes it in (:meth:`_smoothed`) and the layout reader says what it is."""

        def plain(f: _Frame) -> list[TileDetection]:  # no value, not even a doubtful one
            return [o for o in f.others if o.pips is None]

        last = self._frames[-1]
        if self._stable is None or not plain(last):
            return False
        limit = self.move_tolerance * last.width
        to_last = _align(self._stable, last)
        held = [apply_motion(to_last, d.centre)[0] for d in self._stable.detections]
        fresh = [d for d in plain(last) if all(np.hypot(*(q - d.centre)) > limit for q in held)]
        if not fresh:
            return False
        maps = [_align(f, last) for f in self._frames]
        return any(
            sum(
                any(np.hypot(*(apply_motion(m, o.centre)[0] - d.centre)) <= limit for o in plain(f))
                for f, m in zip(self._frames, maps)
            )
            >= self.steady_frames
            for d in fresh
        )

    def _box_gone(self) -> bool:
        """A box without a value of the stable state (face down, unread) lying apart from the
        others (no box within :data:`APART` tile lengths) that ``steady_frames`` of the voting
        frames no longer show (no box of theirs at its place, the camera's motion taken out):
        taken away (a tile shown at a hand's end, read as a plain back, taken back by its
        player); the stable state drops it (:meth:`_smoothed` keeps only the boxes the latest
        frame shows). A box among the others that stops showing is most often a hand over the
        layout or a tile read with its value again, not a change by itself."""
        if self._stable is None:
            return False
        held = self._stable.detections
        plain = [
            o
            for o in self._stable.others
            if o.pips is None
            and all(
                np.hypot(*(o.centre - p.centre)) > APART * max(o.size) for p in held if p is not o
            )
        ]
        if not plain:
            return False
        # in the stable state's pixels: the latest frame may be empty (a table cleared)
        limit = self.move_tolerance * self._stable.width
        maps = [_align(f, self._stable) for f in self._frames]
        for d in plain:
            gone = sum(
                all(
                    np.hypot(*(apply_motion(m, o.centre)[0] - d.centre)) > limit
                    for o in f.detections
                )
                for f, m in zip(self._frames, maps)
            )
            if gone >= self.steady_frames:
                return True
        return False

    def update(self, detections: Sequence[TileDetection], still: bool = False) -> TrackUpdate:
        """Take one frame's detections.

        Args:
            detections: the frame's tiles (``vision.pipeline.detect``), any order.
            still: the frame is a photo taken as one stable view (a player snaps one photo
                after each play): it holds every vote at once, so it is the stable state
                without waiting for ``steady_frames`` frames; later frames vote as usual.
        Returns:
            :class:`TrackUpdate` (``steady``: the latest frame shows exactly the voted tiles).
        Raises:
            ValueError: an item that is not a ``TileDetection``.
        """
        self.frame += 1
        cur = _frame(detections, self.min_pip_confidence)
        if still:
            self._frames = [cur] * self.steady_frames
        else:
            self._frames = (self._frames + [cur])[-self.window :]
        changed = False
        if self._change():
            voted = self._voted()
            self.stable = self._smoothed(voted)
            self._stable = _frame(self.stable, 0.0)
            changed = True
        steady = set(cur.values) == set(self._stable.values) if self._stable is not None else False
        return TrackUpdate(self.frame, steady, changed, self.stable, self._tracks(cur))

    def _smoothed(self, voted: set[Tile]) -> list[TileDetection]:
        """One detection per voted tile: the most trusted reading (:func:`_score`) near the
        median place of its readings, its corners averaged with the other readings of the window
        at that place along the same axis, each first put in its corner order (:func:`_in_order`;
        each frame mapped onto the latest one, :func:`_align`), plus the latest frame's boxes
        without a value that most voting frames also show there."""
        last = self._frames[-1]
        out: list[TileDetection] = []

        maps = [_align(f, last) for f in self._frames]
        limit = self.move_tolerance * last.width
        by_votes = self._doubtful_votes(voted)  # as :meth:`_voted` found them for this window
        for t, place in by_votes.items():
            d, ref = max(
                ((d, c) for d, c in place if Tile(int(d.pips[0]), int(d.pips[1])) == t),
                key=lambda r: _score(r[0]),
            )
            near = [
                _in_order(c, ref)
                for _, c in place
                if _axis_gap(_axis_deg(c), _axis_deg(ref)) <= AXIS_TOLERANCE_DEG
            ]
            # trusted by votes: the share of the voting frames that read this value here
            share = sum(Tile(int(o.pips[0]), int(o.pips[1])) == t for o, _ in place) / len(
                self._frames
            )
            out.append(
                replace(
                    d,
                    corners=np.mean(near, axis=0).astype(np.float32),
                    pip_confidence=share,
                    alt_pips=None,
                    note="",
                )
            )
        for t in voted:
            if t in by_votes:
                continue
            reads = [
                (f.values[t], apply_motion(m, f.values[t].corners))
                for f, m in zip(self._frames, maps)
                if t in f.values
            ]
            centres = np.array([o.mean(0) for _, o in reads])
            mid = np.median(centres, axis=0)  # where most readings put it (not a stray one)
            dist = np.hypot(*(centres - mid).T)
            # the best reading near that place gives the box's order and axis (a double's
            # orientation, crosswise or in line, comes from it, not from a mean of both)
            here = [i for i in range(len(reads)) if dist[i] <= limit] or [int(np.argmin(dist))]
            best = max(here, key=lambda i: (_score(reads[i][0]), i))
            d, ref = reads[best]
            axis = _axis_deg(ref)
            near = [
                _in_order(o, ref)
                for _, o in reads
                if float(np.hypot(*(o.mean(0) - ref.mean(0)))) <= limit
                and _axis_gap(_axis_deg(o), axis) <= AXIS_TOLERANCE_DEG
            ]
            out.append(replace(d, corners=np.mean(near, axis=0).astype(np.float32)))
        held = [c.mean(0) for place in by_votes.values() for _, c in place]
        for d in last.others:
            if any(np.hypot(*(d.centre - q)) <= limit for q in held):
                continue  # a reading of a place taken by votes above
            there = [
                [
                    o
                    for o in f.others
                    if float(np.hypot(*(apply_motion(m, o.centre)[0] - d.centre))) <= limit
                ]
                for f, m in zip(self._frames, maps)
            ]
            if sum(bool(os) for os in there) >= self.steady_frames:
                out.append(_bare_if_read_bare(d, [o for os in there for o in os]))
        return out

    def _tracks(self, cur: _Frame) -> list[dict]:
        known = set(self._stable.values) if self._stable is not None else set()
        out = []
        for t, d in cur.values.items():
            out.append(
                {
                    "tile": str(t),
                    "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in d.corners],
                    "status": "stable" if t in known else "new",
                }
            )
        for d in cur.others:
            out.append(
                {
                    "tile": None,
                    "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in d.corners],
                    "status": "unsure",
                }
            )
        return out


__all__ = ["Tracker", "TrackUpdate", "STEADY_FRAMES", "MOVE_TOLERANCE", "agree"]
