"""Hand-entered tile boxes for sample_images/vintage-games-game-night.jpg (640 x 640 px).

Measured by eye on the photo (axis-aligned, +-4 px): ``(x0, y0, x1, y1, pips)`` with pips
given half 0 first, half 0 being the left half of a horizontal tile or the top half of a
vertical one. Values as in shared/real_photos/labels.json.
"""

import numpy as np

from vision.types import TileDetection

BOXES = [
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
]


def detections() -> list[TileDetection]:
    """The 12 tiles as TileDetections; corners around the box with ``corners[0] ->
    corners[1]`` a long side (the TileDetection convention), half 0 left / top."""
    out = []
    for x0, y0, x1, y1, pips in BOXES:
        if x1 - x0 >= y1 - y0:  # horizontal: top side first, half 0 on the left
            corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
        else:  # vertical: left side first, half 0 on top
            corners = np.array([[x0, y0], [x0, y1], [x1, y1], [x1, y0]], np.float32)
        out.append(TileDetection(corners, 1.0, pips=pips, pip_confidence=1.0))
    return out
