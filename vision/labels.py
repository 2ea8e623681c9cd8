"""Where the value labels of tiles go on a photo: sized to each tile, never on top of another.

Used by :func:`vision.pipeline.annotate` (the ``detect --annotate`` picture) and by the
companion's page (``companion.store.photo_json`` sends the places; ``static/table.js`` draws
them), so both show the same labels.

A label ("4-6") is centred on its tile with a font size taken from the tile's box (the text
fits inside the box), within :data:`MIN_FONT` and :data:`MAX_FONT` of the photo's long side.
When it would overlap a label already placed, it is moved just above, below, left or right
of its tile; when no such place is free, the tile gets its **number** instead (1-based, the
number the page's messages use: "tile 3") and the value goes in a key below the photo. The
number badges of tiles a problem names (``badges``) are placed first (the messages point at
them), at a corner of their tile first; then the values, larger first. Units: photo px.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: Smallest and largest font size, as a fraction of the photo's long side.
MIN_FONT = 1 / 140
MAX_FONT = 1 / 24
#: Width of one character and height of a line, in font sizes (a bold sans-serif font).
CHAR_W = 0.62
LINE_H = 1.2
#: Two labels overlap when they share more than this fraction of the smaller one's area.
MAX_SHARED = 0.02


@dataclass(frozen=True)
class Label:
    """One label on the photo.

    Attributes:
        tile: index of the tile (0-based) it belongs to.
        text: what is written: the value ("4-6"), or the tile's number when ``keyed`` or a badge.
        x, y: centre of the label box, photo px.
        size: font size, photo px.
        w, h: the label box, photo px.
        keyed: the value did not fit: the tile's number stands in for it (see the key); with
            ``size`` 0 not even the number found room near the tile: it is in the key only.
        badge: a problem's tile number, not a value.
    """

    tile: int
    text: str
    x: float
    y: float
    size: float
    w: float
    h: float
    keyed: bool = False
    badge: bool = False

    def to_json(self) -> dict:
        return {
            "tile": self.tile,
            "text": self.text,
            "x": round(self.x, 1),
            "y": round(self.y, 1),
            "size": round(self.size, 1),
            "w": round(self.w, 1),
            "h": round(self.h, 1),
            "keyed": self.keyed,
            "badge": self.badge,
        }


def _box(x: float, y: float, w: float, h: float) -> np.ndarray:
    return np.array([x - w / 2, y - h / 2, x + w / 2, y + h / 2])


class _Board:
    """The label boxes placed so far, for overlap checks (``(n, 4)`` x0, y0, x1, y1)."""

    def __init__(self, width: float, height: float):
        self.width, self.height = width, height
        self.boxes = np.zeros((0, 4))

    def free(self, r: np.ndarray) -> bool:
        if not self.boxes.size:
            return True
        b = self.boxes
        ix = np.clip(np.minimum(b[:, 2], r[2]) - np.maximum(b[:, 0], r[0]), 0, None)
        iy = np.clip(np.minimum(b[:, 3], r[3]) - np.maximum(b[:, 1], r[1]), 0, None)
        area_r = (r[2] - r[0]) * (r[3] - r[1])
        area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
        return bool(np.all(ix * iy <= MAX_SHARED * np.minimum(area_b, area_r)))

    def inside(self, x: float, y: float, w: float, h: float) -> tuple[float, float]:
        """The centre moved so the box lies inside the photo."""
        return (
            float(min(max(x, w / 2), max(w / 2, self.width - w / 2))),
            float(min(max(y, h / 2), max(h / 2, self.height - h / 2))),
        )

    def add(self, r: np.ndarray) -> None:
        self.boxes = np.vstack([self.boxes, r[None, :]])


def _spots(bbox: np.ndarray, w: float, h: float, corner_first: bool) -> list[tuple[float, float]]:
    """Centres to try for a ``w x h`` label of the tile with axis-aligned box ``bbox``."""
    x0, y0, x1, y1 = bbox
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    around = [
        (cx, y0 - h / 2),  # above
        (cx, y1 + h / 2),  # below
        (x0 - w / 2, cy),  # left
        (x1 + w / 2, cy),  # right
    ]
    corners = [(x0, y0), (x1, y0), (x0, y1), (x1, y1)]
    return corners + around if corner_first else [(cx, cy), *around]


def place_labels(
    corners: Sequence[np.ndarray | Sequence[Sequence[float]]],
    texts: Sequence[str | None],
    width: float,
    height: float,
    badges: Sequence[int] = (),
) -> list[Label]:
    """Place the value labels of a photo's tiles and the number badges of ``badges``.

    Args:
        corners: each tile's oriented box, ``(4, 2)`` photo px.
        texts: each tile's label text, None for a tile without a label (a box marked "not a
            tile").
        width, height: the photo's size, px.
        badges: indices of tiles to mark with their number (tiles a problem names).
    Returns:
        The labels (values, numbers standing in for values, badges): one per tile with a text
        and one per badge; none overlaps another by more than :data:`MAX_SHARED` of its area,
        except a badge that found no free place (drawn on its tile's corner anyway: messages
        point at it).
    Raises:
        ValueError: ``corners`` and ``texts`` differ in length, or a box is not 4 points.
    """
    if len(corners) != len(texts):
        raise ValueError(f"{len(corners)} boxes but {len(texts)} label texts")
    quads = [np.asarray(c, np.float64).reshape(-1, 2) for c in corners]
    if any(q.shape != (4, 2) for q in quads):
        raise ValueError("every tile box must be 4 corner points (x, y)")
    long_side = float(max(width, height, 1))
    lo, hi = long_side * MIN_FONT, long_side * MAX_FONT
    board = _Board(width, height)
    out: list[Label] = []

    def fit(i: int, text: str, size: float, corner_first: bool = False) -> Label | None:
        bbox = np.concatenate([quads[i].min(axis=0), quads[i].max(axis=0)])
        w, h = (CHAR_W * len(text) + 0.5) * size, LINE_H * size
        for x, y in _spots(bbox, w, h, corner_first):
            x, y = board.inside(x, y, w, h)
            r = _box(x, y, w, h)
            if board.free(r):
                board.add(r)
                return Label(i, text, x, y, size, w, h)
        return None

    sizes = {}
    for i, (q, text) in enumerate(zip(quads, texts)):
        if text is None:
            continue
        bw, bh = np.ptp(q, axis=0)
        # the text fits inside the tile's box (at most 90% of its width), its font under half
        # the tile's short side
        size = min(0.45 * min(bw, bh), 0.9 * bw / (CHAR_W * len(text) + 0.5))
        sizes[i] = float(min(max(size, lo), hi))
    for i in sorted(set(badges)):
        if not 0 <= i < len(quads):
            continue
        size = sizes.get(i, lo * 2)
        badge = fit(i, str(i + 1), max(lo, 0.8 * size), corner_first=True)
        if badge is None:
            badge = fit(i, str(i + 1), lo, corner_first=True)
        if badge is None:  # badges crowd one another: on the tile's first corner all the same
            w, h = (CHAR_W * len(str(i + 1)) + 0.5) * lo, LINE_H * lo
            x, y = board.inside(float(quads[i][0][0]), float(quads[i][0][1]), w, h)
            board.add(_box(x, y, w, h))
            badge = Label(i, str(i + 1), x, y, lo, w, h)
        out.append(Label(i, badge.text, badge.x, badge.y, badge.size, badge.w, badge.h, badge=True))
    for i in sorted(sizes, key=lambda k: -sizes[k]):
        text = texts[i]
        assert text is not None
        label = fit(i, text, sizes[i])
        if label is None:  # no free place for the value: the tile's number, then smaller
            number = str(i + 1)
            size = sizes[i]
            for _ in range(6):
                label = fit(i, number, size)
                if label is not None:
                    break
                size *= 0.75
            if label is None:  # no room left near this tile: it is named in the key only
                label = Label(i, number, 0.0, 0.0, 0.0, 0.0, 0.0)
            label = Label(i, label.text, label.x, label.y, label.size, label.w, label.h, keyed=True)
        out.append(label)
    return out
