"""Photo -> tiles: the detector (``vision.detector``) then the pip counter (``vision.pips``).

Public API:

- :func:`load_image` ``(path_or_bytes) -> (H, W, 3) uint8 BGR``, with clear errors for bad input.
- :func:`detect` ``(image, ...) -> list[TileDetection]``: oriented boxes, face up/down, pips.
- :func:`annotate` ``(image, tiles) -> (H, W, 3) uint8``: the photo with outlines and values drawn.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from vision import (
    filters,
    image_io,  # noqa: I001 - first: it sets OpenCV's decode limit before cv2 is imported
)
from vision.detector import load_detector, obb_corners
from vision.detector.onnx_model import FACE_DOWN, FACE_UP
from vision.filters import MAX_COVERED
from vision.pips import read_pips
from vision.types import TileDetection, at_picture_edge
from vision.verifier import NOT_TILE, verify

#: Largest accepted file (bytes) and image (pixels); larger input is refused, not downscaled,
#: so a phone never waits on a decompression bomb.
MAX_FILE_BYTES = 30 * 1024 * 1024
MAX_PIXELS = image_io.DEFAULT_MAX_PIXELS


def load_image(source: str | os.PathLike | bytes | bytearray | memoryview) -> np.ndarray:
    """Read a JPEG or PNG photo from a path or from encoded bytes (:func:`vision.image_io.decode`).

    The size the file declares is checked before it is decoded; EXIF orientation is applied,
    greyscale, 16-bit and transparent images are converted.

    Args:
        source: a file path, or the encoded file content.
    Returns:
        ``(H, W, 3) uint8`` BGR image.
    Raises:
        FileNotFoundError: no such file.
        ValueError: empty input, a file over :data:`MAX_FILE_BYTES`, content that is not a
            decodable JPEG or PNG, or an image over :data:`MAX_PIXELS` pixels.
        vision.image_io.DecoderBusy: other threads held every decode slot for 30 s.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        what = "image data"
    else:
        path = Path(source)
        if not path.exists():
            raise FileNotFoundError(f"no such file: {path}")
        if not path.is_file():
            raise ValueError(f"not a file: {path}")
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ValueError(
                f"{path}: file is {size / 2**20:.1f} MB; the limit is {MAX_FILE_BYTES / 2**20:.0f} MB"
            )
        data = path.read_bytes()
        what = str(path)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(
            f"{what}: {len(data) / 2**20:.1f} MB; the limit is {MAX_FILE_BYTES / 2**20:.0f} MB"
        )
    return image_io.decode(data, what, max_pixels=MAX_PIXELS)


def _check_image(image: np.ndarray) -> np.ndarray:
    img = np.asarray(image)
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    if img.ndim != 3 or img.shape[2] not in (3, 4) or img.shape[0] < 8 or img.shape[1] < 8:
        raise ValueError(
            f"expected an (H, W, 3) BGR image of at least 8x8 pixels, got shape {img.shape}"
        )
    if img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    if img.dtype != np.uint8:
        raise ValueError(f"expected a uint8 image, got {img.dtype}")
    if img.shape[0] * img.shape[1] > MAX_PIXELS:
        raise ValueError(
            f"image of {img.shape[1]}x{img.shape[0]} is over {MAX_PIXELS / 1e6:.0f} megapixels"
        )
    return np.ascontiguousarray(img)


#: Photos longer than this (pixels, long side) are detected on a copy scaled down to it; the
#: pips are read from the full-resolution photo. The detector sees 384-640 px anyway, so a 12 MP
#: photo costs about what a 1280 px one does.
DETECT_MAX_SIDE = 1280


def detect(
    image: np.ndarray,
    model: str | os.PathLike | None = None,
    conf_threshold: float = 0.25,
    iou_threshold: float = 0.5,
    read_backs: bool = False,
    keep_covered: bool = False,
    dropped: list[TileDetection] | None = None,
) -> list[TileDetection]:
    """Find the tiles in a photo and read their pips.

    Steps: the detector (on a copy at most :data:`DETECT_MAX_SIDE` px long), the tile verifier
    (``vision.verifier``), the pip reader on the full-resolution photo; the box filters of
    ``vision.filters.BOX_FILTERS`` run between them (which stage runs which is in that table).

    Args:
        image: ``(H, W, 3) uint8`` BGR photo (greyscale or BGRA are converted).
        model: ONNX detector path (None: ``$DOMINO_DETECTOR_MODEL`` or ``models/tiles-obb.onnx``;
            loaded once and cached).
        conf_threshold: minimum detector confidence of a tile.
        iou_threshold: rotated-NMS IoU between two boxes of the same tile.
        read_backs: the photo should show face-up tiles only (the layout of Good Neighbors,
            Luzon, Tableaux or the Big Clock ring: ``vision.layout.READ_BACKS_GAMES``): every
            box the detector calls face down is read too and turned face up when its pips read
            clearly (a tile with few pips can look like a back to the detector); plain and
            printed backs stay face down.
        keep_covered: keep boxes that lie mostly on other boxes even when
            ``vision.filters.suppress_covered`` is switched on (it is off in
            ``vision.filters.BOX_FILTERS``), for a caller that sorts out overlapping boxes
            itself (``vision.layout``'s ``overlapping_box`` rule; which games:
            ``vision.layout.detect_options``).
        dropped: when a list is given, the boxes dropped after detection are appended to it
            (``flag`` says which filter dropped them, ``note`` says why in words), for debugging
            (``detect --json --debug``).
    Returns:
        list of :class:`TileDetection` (best confidence first): ``corners`` (4, 2) float32 pixels,
        ``face_down``, ``pips`` (a, b) with ``pips[i]`` on ``halves[i]`` or None (face down or
        unreadable; ``note`` says why), ``pip_confidence``, ``at_edge`` (the box reaches the
        photo's border). An empty list when no tile is seen.
    Raises:
        ValueError: not an image array.
        FileNotFoundError: no detector model.
    """
    img = _check_image(image)
    det = load_detector(model)
    h, w = img.shape[:2]
    scale = min(1.0, DETECT_MAX_SIDE / max(h, w))
    small = (
        img
        if scale >= 1.0
        else cv2.resize(
            img, (max(8, round(w * scale)), max(8, round(h * scale))), interpolation=cv2.INTER_AREA
        )
    )
    covered = None if keep_covered or not filters.enabled("suppress_covered") else MAX_COVERED
    raw = det.raw(small, conf_threshold, iou_threshold, max_covered=covered)
    corners_small = obb_corners(raw.xywhr)
    cls, conf, sc = raw.cls, raw.confidence, raw.scores
    probs = verify(small, corners_small)
    not_tile = probs[:, NOT_TILE] if probs is not None else None
    sx, sy = w / small.shape[1], h / small.shape[0]
    corners = corners_small * np.array([sx, sy], np.float32)
    boxes = [
        TileDetection(
            corners=corners[i],
            confidence=float(conf[i]),
            face_down=bool(cls[i] == FACE_DOWN),
            scores=(float(sc[i, FACE_UP]), float(sc[i, FACE_DOWN])) if sc.shape[1] > 1 else None,
            not_tile=None if not_tile is None else float(not_tile[i]),
            at_edge=at_picture_edge(corners[i], w, h),
        )
        for i in range(len(corners))
    ]
    tiles, gone = filters.apply("verifier", boxes)
    read = read_pips(img, tiles, read_backs=read_backs)
    kept, gone_read = filters.apply("reader", read)
    if dropped is not None:
        dropped.extend(gone + gone_read)
    return kept


def annotate(image: np.ndarray, tiles: list[TileDetection]) -> np.ndarray:
    """Draw each tile's outline and value on a copy of the photo.

    Green: read face-up tile ("a-b", ``a`` on ``halves[0]``, marked by a dot); orange:
    unreadable ("?"); red: face down ("down"). Labels are sized to their tile and never overlap
    (:func:`vision.labels.place_labels`): a label with no free place shows the tile's number
    (1-based) in a box, and the value is listed in a key at the bottom of the picture.

    Args:
        image: ``(H, W, 3) uint8`` BGR.
        tiles: detections in this image's pixels.
    Returns:
        ``(H, W, 3) uint8`` BGR copy with the drawing (taller by the key's lines, if any).
    """
    from vision.labels import place_labels

    out = _check_image(image).copy()
    h_img, w_img = out.shape[:2]
    scale = max(out.shape[:2]) / 1000.0
    thick = max(1, int(round(2 * scale)))
    colours, texts = [], []
    for t in tiles:
        if t.face_down:
            colours.append((40, 40, 230))
            texts.append("down")
        elif t.pips is None:
            colours.append((0, 160, 255))
            texts.append("?")
        else:
            colours.append((40, 200, 40))
            texts.append(f"{t.pips[0]}-{t.pips[1]}")
    for t, colour in zip(tiles, colours):
        cv2.polylines(out, [np.round(t.corners).astype(np.int32)], True, colour, thick, cv2.LINE_AA)
        dot = tuple(int(v) for v in np.round(t.halves[0]))
        cv2.circle(out, dot, max(2, thick + 1), colour, -1, cv2.LINE_AA)
    key = []
    for lab in place_labels([t.corners for t in tiles], texts, w_img, h_img):
        if lab.keyed:
            key.append(f"{lab.text}: {texts[lab.tile]}")
        if not lab.size:  # no room near the tile: in the key only
            continue
        fs = lab.size / 22.0  # FONT_HERSHEY_SIMPLEX: about 22 px high at scale 1
        th_text = max(1, int(round(lab.size / 12)))
        (tw, th), _ = cv2.getTextSize(lab.text, cv2.FONT_HERSHEY_SIMPLEX, fs, th_text)
        org = (int(lab.x - tw / 2), int(lab.y + th / 2))
        if lab.keyed:
            x0, y0 = int(lab.x - lab.w / 2), int(lab.y - lab.h / 2)
            cv2.rectangle(out, (x0, y0), (int(x0 + lab.w), int(y0 + lab.h)), (0, 0, 0), -1)
        cv2.putText(
            out, lab.text, org, cv2.FONT_HERSHEY_SIMPLEX, fs, (0, 0, 0), th_text + 2, cv2.LINE_AA
        )
        cv2.putText(
            out, lab.text, org, cv2.FONT_HERSHEY_SIMPLEX, fs, (255, 255, 255), th_text, cv2.LINE_AA
        )
    if key:  # the values of numbered tiles, under the photo
        fs = max(0.5, scale * 0.6)
        line_h = int(30 * fs) + 6
        per_line = max(1, int(w_img / (fs * 20 * 12)))
        lines = [", ".join(key[k : k + per_line]) for k in range(0, len(key), per_line)]
        strip = np.full((line_h * len(lines) + 8, w_img, 3), 255, np.uint8)
        for n, text in enumerate(lines):
            cv2.putText(
                strip,
                text,
                (6, line_h * (n + 1)),
                cv2.FONT_HERSHEY_SIMPLEX,
                fs,
                (0, 0, 0),
                max(1, thick - 1),
                cv2.LINE_AA,
            )
        out = np.vstack([out, strip])
    return out
