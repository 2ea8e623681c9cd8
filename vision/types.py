"""The one record passed between vision stages (after Roboflow supervision's ``Detections``).

Detector -> pip counter -> layout code all exchange ``list[TileDetection]``.
"""

from __future__ import annotations

import enum
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: ``TileDetection.note`` of a face-down box whose face shows nothing at all: no pip, no divider
#: bar, no large printed mark (set by ``vision.pips.counter.read_pips``). A plain back looks like
#: that, and so does the blank double of a set without divider bars; the layout reader of a
#: face-up game may take it as the 0-0 (``vision.layout.common.assume_blank_double``).
BLANK_OR_BACK_NOTE = "no pips, no divider and no marks: a plain back or a blank double"


class TileFlag(enum.Enum):
    """What a stage decided about a box beyond its value (``TileDetection.flag``; JSON: the
    value). Code compares flags; ``TileDetection.note`` is text for people."""

    #: nothing to say
    NONE = "none"
    #: face up, the pips could not be read (``pips`` None)
    UNREADABLE = "unreadable"
    #: face down and its face shows nothing at all: no pip, no divider, no large mark; a plain
    #: back, or the blank double of a set without divider bars (``vision.layout`` may take it
    #: as the 0-0 of a face-up game)
    BLANK_OR_BACK = "blank_or_back"
    #: the detector said face up; large printed marks and no clear pips: taken as a back
    PRINTED_BACK = "printed_back"
    #: face up, read 0-0 with no divider: a blank double or a plain back (``pip_confidence``
    #: at most 0.5)
    BLANK_NO_DIVIDER = "blank_no_divider"
    #: the detector said face down, unsure (or the photo holds face-up tiles only): the pips
    #: read clearly, so it is face up
    BACK_READ_FACE_UP = "back_read_face_up"
    #: dropped: the tile verifier says it is not a tile (``vision.filters``)
    DROPPED_NOT_A_TILE = "dropped_not_a_tile"
    #: dropped: a second box on a tile already read (``vision.filters.drop_repeated_reads``)
    DROPPED_READ_TWICE = "dropped_read_twice"
    #: dropped: far smaller than the photo's tiles and unreadable
    #: (``vision.filters.drop_tiny_unread``)
    DROPPED_TINY_UNREAD = "dropped_tiny_unread"

    @property
    def dropped(self) -> bool:
        """True for the flags of a box a filter removed."""
        return self in _DROPPED_FLAGS

    @classmethod
    def parse(cls, value: Any) -> TileFlag:
        """The flag of a JSON value (``TileFlag.value``); anything else is :attr:`NONE`."""
        try:
            return cls(value)
        except ValueError:
            return cls.NONE


_DROPPED_FLAGS = frozenset(
    {TileFlag.DROPPED_NOT_A_TILE, TileFlag.DROPPED_READ_TWICE, TileFlag.DROPPED_TINY_UNREAD}
)


@dataclass
class TileDetection:
    """One tile seen in an image.

    Attributes:
        corners: ``(4, 2) float32`` pixel coordinates of the oriented bounding box, in order
            around the box. ``corners[0]->corners[1]`` is a long side.
        confidence: detector confidence in [0, 1].
        face_down: True for a tile lying back up (no pips visible).
        pips: ``(a, b)`` pips on the two halves, or None when face down or unreadable.
            ``pips[i]`` is the half whose centre is ``halves[i]``.
        halves: ``(2, 2) float32`` pixel centres of the two halves (derived from ``corners``:
            the centres of the two squares of the tile).
        pip_confidence: confidence in [0, 1] of the pip reading (1.0 = certain), None if unread.
        note: why a value is missing or doubtful ("" when nothing to say).
        alt_pips: the other reading of the same box when the pip counter and the half
            classifier disagreed (``pips`` is the one that won), same half order, or None. The
            layout reader may take it when only it fits the layout (``vision.layout.read``).
        flag: :class:`TileFlag`: what a stage decided beyond the value (compare this, not
            ``note``).
        scores: the detector's class scores ``(face up, face down)`` in [0, 1], or None (a box
            not from the detector).
        not_tile: the tile verifier's "not a tile" probability in [0, 1], or None (not run).
        at_edge: the box reaches the picture's border (:func:`at_picture_edge`): part of the
            tile, or a tile beside it, may lie outside the picture.
    """

    corners: np.ndarray
    confidence: float
    face_down: bool = False
    pips: tuple[int, int] | None = None
    pip_confidence: float | None = None
    note: str = ""
    alt_pips: tuple[int, int] | None = None
    flag: TileFlag = TileFlag.NONE
    scores: tuple[float, float] | None = None
    not_tile: float | None = None
    at_edge: bool = False
    halves: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        c = np.asarray(self.corners, dtype=np.float32).reshape(4, 2)
        self.corners = c
        self.halves = half_centres(c)

    @property
    def centre(self) -> np.ndarray:
        """``(2,) float32`` pixel centre of the tile."""
        return self.corners.mean(axis=0)

    @property
    def long_axis(self) -> np.ndarray:
        """``(2,) float32`` unit vector from ``halves[0]`` to ``halves[1]``."""
        v = self.halves[1] - self.halves[0]
        n = float(np.linalg.norm(v))
        return (v / n).astype(np.float32) if n > 0 else np.array([1.0, 0.0], np.float32)

    @property
    def size(self) -> tuple[float, float]:
        """``(length, width)`` of the box in pixels (length >= width)."""
        c = self.corners
        a = float(np.linalg.norm(c[1] - c[0]))
        b = float(np.linalg.norm(c[2] - c[1]))
        return (max(a, b), min(a, b))

    def shared_area(self, other: TileDetection) -> float:
        """Area in px² that this box shares with ``other``'s (0 when either has corners that
        are not finite)."""
        import cv2

        a = np.asarray(self.corners, np.float32).reshape(4, 2)
        b = np.asarray(other.corners, np.float32).reshape(4, 2)
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            return 0.0
        inter, _ = cv2.intersectConvexConvex(a, b)
        return max(float(inter), 0.0)

    def overlap(self, other: TileDetection) -> float:
        """Area shared with ``other``'s box (:meth:`shared_area`) as a fraction of the smaller
        box's area; boxes out of each other's reach (:func:`_out_of_reach`) share none.

        Returns:
            A number in [0, 1] (0 for disjoint or degenerate boxes).
        """
        smaller = min(float(np.prod(self.size)), float(np.prod(other.size)))
        if smaller <= 0:
            return 0.0
        if _out_of_reach(self.centre, other.centre, max(self.size), max(other.size)):
            return 0.0
        return float(min(self.shared_area(other) / smaller, 1.0))

    @property
    def face_down_ratio(self) -> float | None:
        """The detector's face-down score over its face-up score (None without ``scores``)."""
        if self.scores is None:
            return None
        return float(self.scores[1]) / max(float(self.scores[0]), 1e-6)

    def to_json(self) -> dict[str, Any]:
        """The JSON form used by ``detect --json`` and the web API."""
        return {
            "pips": list(self.pips) if self.pips is not None else None,
            "face_down": bool(self.face_down),
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "halves": [[round(float(x), 1), round(float(y), 1)] for x, y in self.halves],
            "confidence": round(float(self.confidence), 4),
            "pip_confidence": None
            if self.pip_confidence is None
            else round(float(self.pip_confidence), 4),
            "note": self.note,
            "alt_pips": list(self.alt_pips) if self.alt_pips is not None else None,
            "flag": self.flag.value,
            "scores": None if self.scores is None else [round(float(x), 4) for x in self.scores],
            "not_tile": None if self.not_tile is None else round(float(self.not_tile), 4),
            "at_edge": bool(self.at_edge),
        }


#: A box whose corner lies this share of the picture's longer side from its border, or
#: nearer, or outside it, reaches the border (:func:`at_picture_edge`).
EDGE_SHARE = 0.005


def at_picture_edge(corners: np.ndarray, width: int, height: int) -> bool:
    """Whether a box (``(4, 2)`` pixel corners) reaches the border of a ``width`` x ``height``
    px picture: a corner within :data:`EDGE_SHARE` of the longer side (2 px at least) of it, or
    outside it."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    m = max(2.0, EDGE_SHARE * max(width, height))
    return bool(
        (c[:, 0] < m).any()
        or (c[:, 1] < m).any()
        or (c[:, 0] > width - 1 - m).any()
        or (c[:, 1] > height - 1 - m).any()
    )


def _out_of_reach(
    centre_a: np.ndarray, centre_b: np.ndarray, length_a: float, length_b: float
) -> bool:
    """True when two boxes' centres (pixels) lie at least half their summed lengths apart: such
    boxes count as sharing no area (:meth:`TileDetection.overlap`, and the batch precheck of
    :func:`boxes_on_better_boxes`). A NaN distance is not out of reach."""
    return (
        float(np.hypot(*(np.asarray(centre_a, np.float64) - np.asarray(centre_b, np.float64))))
        >= (float(length_a) + float(length_b)) / 2
    )


def boxes_on_better_boxes(
    dets: list[TileDetection],
    max_overlap: float,
    same_value: bool = False,
    ignore: Collection[int] = (),
) -> dict[int, tuple[int, float]]:
    """Face-up detections lying on a more confident face-up detection.

    Greedy, most confident first: a face-up box that shares more than ``max_overlap`` of the
    smaller box (:meth:`TileDetection.overlap`) with an already kept face-up box is dropped; the
    others are kept. With ``same_value`` only boxes read as the same tile (either way round)
    count, and boxes without a value are never dropped.

    Args:
        dets: the detections.
        max_overlap: shared area as a fraction of the smaller box, in [0, 1].
        same_value: compare only boxes with the same read value.
        ignore: indices of boxes taken as absent (neither kept nor dropped; a box they lie on
            is judged without them).
    Returns:
        ``{dropped index: (index of the kept box it lies on, shared fraction)}``.
    """

    def value(i: int) -> tuple[int, ...] | None:
        p = dets[i].pips
        return None if p is None else tuple(sorted(p))

    up = [
        i
        for i, d in enumerate(dets)
        if i not in ignore and not d.face_down and (not same_value or d.pips is not None)
    ]
    kept: list[int] = []
    dropped: dict[int, tuple[int, float]] = {}
    # boxes out of reach share no area (the rule of overlap): skip them without the polygon
    # intersection (a layout has O(n^2) pairs, nearly all far apart)
    corners = np.asarray([np.asarray(d.corners, np.float64).reshape(4, 2) for d in dets]).reshape(
        -1, 4, 2
    )
    centre = corners.mean(axis=1)
    length = np.maximum(
        np.linalg.norm(corners[:, 1] - corners[:, 0], axis=1),
        np.linalg.norm(corners[:, 2] - corners[:, 1], axis=1),
    )

    def near(i: int, j: int) -> bool:
        return not _out_of_reach(centre[i], centre[j], length[i], length[j])  # NaN: overlap judges

    for i in sorted(up, key=lambda j: -dets[j].confidence):
        rivals = [j for j in kept if (not same_value or value(j) == value(i)) and near(i, j)]
        hit = max(
            ((j, dets[j].overlap(dets[i])) for j in rivals), key=lambda x: x[1], default=(None, 0.0)
        )
        if hit[0] is not None and hit[1] > max_overlap:
            dropped[i] = hit
        else:
            kept.append(i)
    return dropped


def half_centres(corners: np.ndarray) -> np.ndarray:
    """Centres of the two halves of a tile box.

    Args:
        corners: ``(4, 2)`` pixel corners in order around the box.
    Returns:
        ``(2, 2) float32``: the centre of each half along the box's long axis.
    """
    c = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    e01 = float(np.linalg.norm(c[1] - c[0]))
    e12 = float(np.linalg.norm(c[2] - c[1]))
    if e01 >= e12:  # long sides 0-1 and 2-3: halves split the 0-1 side
        end_a = (c[0] + c[3]) / 2
        end_b = (c[1] + c[2]) / 2
    else:
        end_a = (c[0] + c[1]) / 2
        end_b = (c[3] + c[2]) / 2
    centre = c.mean(axis=0)
    return np.stack([(end_a + centre) / 2, (end_b + centre) / 2]).astype(np.float32)
