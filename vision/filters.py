"""Every rule that removes a box between the detector and the caller, in one place.

:data:`BOX_FILTERS` is the table of which stage runs which filter, in the order
``vision.pipeline.detect`` runs them; :func:`apply` runs the record filters of one stage and
returns the boxes kept and the boxes dropped (new records, flagged with the filter's
:class:`vision.types.TileFlag`, the reason in ``note``). :data:`DISABLED` holds the names of
the filters switched off (those not ``on`` in the table; ``scripts/bench_vision.py --without`` and
``--with`` change it for the ablations of docs/vision.md).

Public API:

- :data:`BOX_FILTERS`, :class:`BoxFilter`, :func:`apply`, :func:`enabled`, :data:`DISABLED`.
- :func:`suppress_covered` (detector stage: raw boxes after NMS, before they become records).
- :func:`drop_not_tiles` (verifier stage), :func:`drop_repeated_reads`,
  :func:`drop_tiny_unread` (reader stage): ``list[TileDetection] -> list[TileDetection]`` (kept).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.types import TileDetection, TileFlag, boxes_on_better_boxes

#: :func:`suppress_covered`'s threshold in ``vision.detector.TileDetector.raw`` (chosen on the real photos).
MAX_COVERED = 0.8


def suppress_covered(
    xywhr: np.ndarray, scores: np.ndarray, max_covered: float = MAX_COVERED
) -> np.ndarray:
    """Drop boxes mostly covered by other boxes (after NMS).

    Tiles lie side by side, never inside each other, so a box whose area is mostly (more than
    ``max_covered``) inside the union of the other boxes is a duplicate: typically a tilted box
    across the halves of two neighbouring tiles, which pairwise IoU-based NMS lets through. The
    most covered box goes first (the less confident one on a tie), then coverage is counted again
    without it, until no box is covered more than ``max_covered``. The threshold was chosen on
    the real photos (docs/vision.md).

    Args:
        xywhr: ``(M, 5)`` boxes (pixels, radians), any order.
        scores: ``(M,)`` confidences.
        max_covered: largest covered fraction of a kept box's area, in [0, 1].
    Returns:
        ``(K,) int`` indices of kept boxes, best first.
    """
    b = np.asarray(xywhr, np.float64).reshape(-1, 5)
    sc = np.asarray(scores, np.float64).reshape(-1)
    order = np.argsort(-sc, kind="stable")
    alive = np.ones(len(b), bool)
    for group in _touching_groups(b):
        if len(group) >= 2:
            alive[group] = _uncovered(b[group], sc[group], max_covered)
    return order[alive[order]]


def _touching_groups(b: np.ndarray) -> list[np.ndarray]:
    """Groups of boxes that may share area (connected through pairs whose centres lie closer
    than half their summed lengths); boxes of different groups share none.

    Args:
        b: ``(M, 5)`` boxes (pixels, radians).
    Returns:
        index arrays, one per group.
    """
    n = len(b)
    near = _near(b)
    parent = np.arange(n)

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = int(parent[i])
        return i

    for i, j in zip(*np.nonzero(np.triu(near, 1))):
        ri, rj = root(int(i)), root(int(j))
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    roots = np.array([root(i) for i in range(n)], int)
    return [np.flatnonzero(roots == r) for r in np.unique(roots)]


def _near(b: np.ndarray) -> np.ndarray:
    """``(M, M) bool``: boxes whose centres lie closer than half their summed lengths (only
    those can share area; the diagonal is True)."""
    d = np.hypot(b[:, None, 0] - b[None, :, 0], b[:, None, 1] - b[None, :, 1])
    return d < (b[:, None, 2] + b[None, :, 2]) / 2


def _uncovered(b: np.ndarray, sc: np.ndarray, max_covered: float) -> np.ndarray:
    """:func:`suppress_covered` on one group of boxes, on a raster: ``(M,) bool``, True = kept."""
    from vision.detector.onnx_model import obb_corners  # the detector module imports this one

    pts = obb_corners(b).astype(np.float64).reshape(-1, 2)
    lo = pts.min(0)
    # raster scale: the smallest box side is about 12 cells (enough for area fractions)
    scale = 12.0 / max(float(np.min(b[:, 3])), 1.0)
    span = pts.max(0) - lo
    if span[0] * span[1] * scale * scale > 4_000_000:  # huge spread of box sizes: coarser raster
        scale = np.sqrt(4_000_000 / max(span[0] * span[1], 1.0))
    w, h = (np.ceil(span * scale).astype(int) + 2).tolist()
    polys = np.round((pts.reshape(-1, 4, 2) - lo) * scale).astype(np.int32)
    masks = []
    count = np.zeros((h, w), np.int32)
    for poly in polys:  # cell lists of each box on the common raster, drawn in its bounding box
        x0, y0 = poly.min(0)
        x1, y1 = poly.max(0) + 1
        one = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(one, poly - (x0, y0), 1)
        ys, xs = np.nonzero(one)
        idx = (ys + y0) * w + (xs + x0)
        masks.append(idx)
        count.flat[idx] += 1
    alive = np.ones(len(b), bool)
    near = _near(b)
    cov = np.array([(count.flat[m] >= 2).mean() if len(m) else -1.0 for m in masks])
    while alive.any():
        worst = max(np.flatnonzero(alive), key=lambda i: (cov[i], -sc[i]))
        if cov[worst] <= max_covered:
            break
        alive[worst] = False
        count.flat[masks[worst]] -= 1
        cov[worst] = -1.0
        for i in np.flatnonzero(alive & near[worst]):  # only its neighbours' coverage changes
            cov[i] = (count.flat[masks[i]] >= 2).mean() if len(masks[i]) else -1.0
    return alive


def drop_not_tiles(tiles: list[TileDetection]) -> list[TileDetection]:
    """Drop the boxes the tile verifier rejects (``vision.verifier.not_a_tile`` on each box's
    ``not_tile`` probability, detector ``confidence`` and ``face_down``); boxes without a
    verifier reading (``not_tile`` None) stay.

    Args:
        tiles: detections with ``not_tile`` set by ``vision.verifier.verify``.
    Returns:
        The kept detections, same order.
    """
    from vision.verifier import not_a_tile

    if not tiles:
        return []
    nt = np.array([np.nan if t.not_tile is None else t.not_tile for t in tiles], np.float64)
    conf = np.array([t.confidence for t in tiles], np.float64)
    down = np.array([t.face_down for t in tiles], bool)
    drop = not_a_tile(np.nan_to_num(nt, nan=0.0), conf, down) & ~np.isnan(nt)
    return [t for t, d in zip(tiles, drop) if not d]


#: A box shorter than this fraction of the photo's median box that cannot be read is not a tile
#: (:func:`drop_tiny_unread`).
TINY_BOX_FRACTION = 0.35
#: ... "cannot be read": no value, or a pip confidence under this.
TINY_BOX_MIN_PIP_CONFIDENCE = 0.6
#: ... a detector confidence under this makes a tiny box unusable either side; boxes at or above
#: it set the reference length.
TINY_BOX_SURE = 0.5


def drop_tiny_unread(tiles: list[TileDetection]) -> list[TileDetection]:
    """Drop boxes far smaller than the photo's tiles that cannot be read: shorter than
    :data:`TINY_BOX_FRACTION` of the median box length (of the boxes the detector is sure of,
    confidence at least :data:`TINY_BOX_SURE`, when there are 4 or more; else of all boxes, at
    least 4) and with a detector confidence under :data:`TINY_BOX_SURE` (either side), or face
    up without a value or with ``pip_confidence`` under :data:`TINY_BOX_MIN_PIP_CONFIDENCE`.
    The tiles of one photo lie at about the same distance from the camera, so such a box is a
    pattern of the table or a small object (the vintage photo's game pieces), not a tile.

    Args:
        tiles: detections with pips read.
    Returns:
        The kept detections, same order.
    """
    if len(tiles) < 4:
        return tiles
    lengths = np.array([t.size[0] for t in tiles], np.float64)
    if not np.all(np.isfinite(lengths)):
        return tiles
    sure = np.array([t.confidence >= TINY_BOX_SURE for t in tiles])
    limit = TINY_BOX_FRACTION * float(np.median(lengths[sure] if sure.sum() >= 4 else lengths))

    def unusable(t: TileDetection) -> bool:
        if t.confidence < TINY_BOX_SURE:
            return True
        if t.face_down:
            return False
        return t.pips is None or (t.pip_confidence or 0.0) < TINY_BOX_MIN_PIP_CONFIDENCE

    return [t for t, n in zip(tiles, lengths) if not (n < limit and unusable(t))]


#: Two face-up boxes read as the same tile that share more than this fraction of the smaller
#: box are one tile found twice (:func:`drop_repeated_reads`).
REPEAT_OVERLAP = 0.3


def drop_repeated_reads(
    tiles: list[TileDetection], max_overlap: float = REPEAT_OVERLAP
) -> list[TileDetection]:
    """Drop a second box on the same tile: a face-up detection read as the same tile (the same
    two numbers, either way round) as a more confident one whose box it overlaps by more than
    ``max_overlap`` of the smaller box. A set has one of each tile, so two overlapping readings
    of one value are the detector finding the tile twice (a box shifted along a row of touching
    tiles, which rotated NMS keeps when their IoU is under its threshold).

    Args:
        tiles: detections with pips read.
        max_overlap: shared area as a fraction of the smaller box, in [0, 1].
    Returns:
        The kept detections, in their input order.
    """
    dropped = boxes_on_better_boxes(tiles, max_overlap, same_value=True)
    return [t for i, t in enumerate(tiles) if i not in dropped]


@dataclass(frozen=True)
class BoxFilter:
    """One row of :data:`BOX_FILTERS`.

    Attributes:
        name: the filter's name (the function's; :data:`DISABLED` uses it).
        stage: ``"detector"`` (on raw boxes, inside ``TileDetector.raw``), ``"verifier"`` (after
            the tile verifier, before the pips are read) or ``"reader"`` (after the pips are
            read).
        flag: the flag of the boxes it drops (None: dropped before they are records; not in the
            debug output).
        reason: the ``note`` of a dropped box.
        run: the record filter (kept boxes of a list), None for the detector stage.
        on: whether ``detect`` runs it (a filter the ablations showed to cost more than it
            gives is kept in the table, off, so the ablation can be repeated with ``--with``).
    """

    name: str
    stage: str
    flag: TileFlag | None
    reason: str
    run: Callable[[list[TileDetection]], list[TileDetection]] | None
    on: bool = True


#: Which stage runs which filter, in the order ``vision.pipeline.detect`` runs them (rotated NMS
#: itself is part of the detector: ``vision.detector.rotated_nms``).
BOX_FILTERS: tuple[BoxFilter, ...] = (
    # off: with the verifier it drops no false box on the real photos and costs two true tiles
    # (docs/vision.md, "Hand rules")
    BoxFilter("suppress_covered", "detector", None, "mostly inside other boxes", None, on=False),
    BoxFilter(
        "drop_not_tiles", "verifier", TileFlag.DROPPED_NOT_A_TILE, "not a tile", drop_not_tiles
    ),
    # off: no change on the real photos or the renders, and on the turned real photos one or
    # two tiles more read against one value more that is not there (docs/vision.md)
    BoxFilter(
        "drop_repeated_reads",
        "reader",
        TileFlag.DROPPED_READ_TWICE,
        "the same tile read twice",
        drop_repeated_reads,
        on=False,
    ),
    BoxFilter(
        "drop_tiny_unread",
        "reader",
        TileFlag.DROPPED_TINY_UNREAD,
        "a tiny unread box",
        drop_tiny_unread,
        on=False,
    ),
)

#: Names of the filters switched off: those of :data:`BOX_FILTERS` that are not ``on``
#: (ablations add or remove names: ``scripts/bench_vision.py --without / --with``).
DISABLED: set[str] = {f.name for f in BOX_FILTERS if not f.on}


def enabled(name: str) -> bool:
    """True unless the filter ``name`` is in :data:`DISABLED`.

    Raises:
        KeyError: no filter of that name in :data:`BOX_FILTERS`.
    """
    if all(f.name != name for f in BOX_FILTERS):
        raise KeyError(f"no box filter {name!r}")
    return name not in DISABLED


def apply(
    stage: str, tiles: list[TileDetection]
) -> tuple[list[TileDetection], list[TileDetection]]:
    """Run the enabled record filters of ``stage``, in table order.

    Args:
        stage: ``"verifier"`` or ``"reader"``.
        tiles: the detections.
    Returns:
        ``(kept, dropped)``: the kept records (the same objects, same order) and new records
        of the dropped ones, ``flag`` set to the filter's flag and its reason first in ``note``.
    Raises:
        ValueError: an unknown stage.
    """
    rows = [f for f in BOX_FILTERS if f.stage == stage]
    if not rows or stage == "detector":
        raise ValueError(f"no record filters for stage {stage!r}")
    kept, dropped = list(tiles), []
    for f in rows:
        if f.run is None or f.flag is None or f.name in DISABLED:
            continue
        after = f.run(kept)
        ids = {id(t) for t in after}
        for t in kept:
            if id(t) not in ids:
                why = f.reason
                if f.flag is TileFlag.DROPPED_NOT_A_TILE and t.not_tile is not None:
                    why += f" (verifier {t.not_tile:.2f})"
                note = f"dropped: {why}" + (f" ({t.note})" if t.note else "")
                dropped.append(replace(t, flag=f.flag, note=note))
        kept = after
    return kept, dropped
