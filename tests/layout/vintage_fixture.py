"""Hand-entered tile boxes for sample_images/vintage-games-game-night.jpg (640 x 640 px).

The boxes live in ``vision.render.real_layouts.VINTAGE`` (the benchmarks use them too): measured
by eye on the photo (axis-aligned, +-4 px), ``(x0, y0, x1, y1, pips)`` with pips given half 0
first, half 0 being the left half of a horizontal tile or the top half of a vertical one.
Values as in shared/real_photos/labels.json.
"""

from vision.render.real_layouts import VINTAGE
from vision.types import TileDetection

BOXES = list(VINTAGE.boxes)


def detections() -> list[TileDetection]:
    """The 12 tiles as TileDetections (``VINTAGE.detections``)."""
    return VINTAGE.detections()
