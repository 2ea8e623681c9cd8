"""Real layout photos with their tiles' boxes measured by eye, for tests and benchmarks that
rebuild a game from a real photo (``vision.render.real_sequences``).

``VINTAGE``: ``sample_images/vintage-games-game-night.jpg`` (640 x 640 px; public domain, the
Roboflow Universe dataset "double-six-domino"): a legal draw-game line with every double laid
crosswise, 12 tiles. Boxes measured by eye on the photo (axis-aligned, +-4 px), values as in
``shared/real_photos/labels.json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.types import TileDetection

#: The repository root (sample photos live under it).
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class RealLayout:
    """A real photo of a layout and its tiles.

    Attributes:
        photo: path of the photo, relative to the repository root (or absolute).
        boxes: ``(x0, y0, x1, y1, pips)`` per tile, pixels of the photo; ``pips`` half 0
            first, half 0 being the left half of a horizontal tile or the top half of a
            vertical one.
        note: what the photo shows.
    """

    photo: str
    boxes: tuple[tuple[int, int, int, int, tuple[int, int]], ...]
    note: str = ""

    @property
    def path(self) -> Path:
        """Absolute path of the photo."""
        return ROOT / self.photo

    def detections(self) -> list[TileDetection]:
        """The tiles as ``TileDetection`` (confidence 1), corners around the box with
        ``corners[0] -> corners[1]`` a long side, half 0 left / top."""
        out = []
        for x0, y0, x1, y1, pips in self.boxes:
            if x1 - x0 >= y1 - y0:  # horizontal: top side first, half 0 on the left
                corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
            else:  # vertical: left side first, half 0 on top
                corners = np.array([[x0, y0], [x0, y1], [x1, y1], [x1, y0]], np.float32)
            out.append(TileDetection(corners, 1.0, pips=pips, pip_confidence=1.0))
        return out


def load(path: str | Path) -> RealLayout:
    """A real layout from a JSON file ``{"photo": PATH, "boxes": [[x0, y0, x1, y1, [a, b]],
    ...], "note": ...}`` (axis-aligned boxes in photo pixels, ``a`` on the left or top half;
    ``photo`` relative to the JSON file, or absolute).

    Raises:
        ValueError: a malformed file. OSError: it cannot be read.
    """
    import json

    p = Path(path)
    data = json.loads(p.read_text())
    try:
        photo = Path(data["photo"])
        boxes = tuple(
            (int(x0), int(y0), int(x1), int(y1), (int(v[0]), int(v[1])))
            for x0, y0, x1, y1, v in data["boxes"]
        )
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise ValueError(
            f"{p}: expected photo and boxes [[x0, y0, x1, y1, [a, b]], ...]: {e}"
        ) from None
    photo = photo if photo.is_absolute() else (p.parent / photo).resolve()
    return RealLayout(str(photo), boxes, str(data.get("note", "")))


VINTAGE = RealLayout(
    "sample_images/vintage-games-game-night.jpg",
    (
        (75, 84, 120, 175, (2, 5)),  # 2-5 above 5-5
        (50, 180, 140, 226, (5, 5)),  # 5-5 spinner (crosswise, horizontal)
        (73, 228, 119, 320, (5, 3)),
        (50, 322, 140, 368, (3, 3)),  # 3-3 crosswise
        (73, 371, 119, 463, (3, 6)),
        (141, 180, 231, 226, (5, 4)),
        (233, 155, 279, 247, (4, 4)),  # 4-4 crosswise (vertical)
        (233, 60, 279, 152, (1, 4)),  # 1-4 standing on 4-4
        (281, 180, 371, 226, (4, 0)),
        (371, 153, 417, 246, (0, 0)),  # 0-0 crosswise
        (418, 180, 508, 226, (0, 6)),
        (510, 180, 600, 226, (6, 1)),
    ),
    "a legal line, every double crosswise: 5-5 a spinner with arms up (2-5), down (5-3, 3-3, "
    "3-6) and right (5-4, 4-4, 4-0, 0-0, 0-6, 6-1); 1-4 on a side of 4-4",
)

__all__ = ["RealLayout", "VINTAGE", "ROOT", "load"]
