"""Classical pip counter: rectify the tile, find the divider, count blobs that differ from the body.

Method (per tile):

1. Warp the oriented box to an upright ``(2w, w)`` image (half 0 on top, ``w`` = 64 px).
2. Body colour = median Lab colour of the inner face; "ink" = pixels whose Lab distance from the
   body exceeds a threshold (Otsu on the distance, clamped), so dark, light and coloured pips,
   white-on-black sets and raised pips all show as ink.
3. Ink blobs (external contours, holes filled so engraved rings count as one pip) are sorted into
   the divider (a long thin blob across the middle), a spinner pin (a blob on the divider at the
   centre: never a pip), pips (area and roundness within limits relative to the tile width; a
   blob of two touching pips counts by area) and rejects.
4. Pips are assigned to the half on their side of the divider (the middle when none is found).

A half with more than 12 pips or pips of wildly different sizes is unreadable (``None``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import cast

import cv2
import numpy as np

from vision.types import BLANK_OR_BACK_NOTE, TileDetection, TileFlag
from vision.workers import run_all

MAX_PIPS = 12
#: the half classifier's value wins a disagreement with the classical count when its probability
#: (the smaller of the two halves') is at least this, or the tile is narrower than
#: ``COUNT_MIN_WIDTH`` pixels (see :func:`read_tile`; chosen on held-out rendered tiles and
#: layouts, docs/vision.md).
CLASSIFIER_SURE = 0.5
COUNT_MIN_WIDTH = 40.0
#: a classical 0-0 with large marks on a wide tile (a printed back) stays 0-0 unless the classifier
#: is at least this sure (the real boxed-set backs: at most 0.54; 0 turns the guard off).
MARKED_BLANK_SURE = 0.9
#: rectified tile width (across) in pixels; the length is twice this.
RECT_W = 64


def median_u8(region: np.ndarray) -> np.ndarray:
    """Median of each channel of an ``(H, W, C) uint8`` image region, as
    ``np.median(region.reshape(-1, C), axis=0)`` gives it (the mean of the two middle values for
    an even pixel count), from a histogram of the 256 levels (``cv2.calcHist``): ``(C,)
    float32``. A tile's body colour is the median of thousands of Lab pixels; counting them is
    several times faster than sorting them.

    Raises:
        ValueError: not a non-empty ``(H, W, C) uint8`` array.
    """
    if region.dtype != np.uint8 or region.ndim != 3 or region.shape[0] * region.shape[1] == 0:
        raise ValueError(
            f"expected a non-empty (H, W, C) uint8 region, got {region.dtype} {region.shape}"
        )
    n = region.shape[0] * region.shape[1]
    counts = np.stack(
        [cv2.calcHist([region], [c], None, [256], [0, 256]).ravel() for c in range(region.shape[2])]
    )
    cum = np.cumsum(counts, axis=1)
    lo = (cum <= (n - 1) // 2).sum(axis=1)  # the ((n - 1) // 2)-th smallest value
    hi = (cum <= n // 2).sum(axis=1)  # the (n // 2)-th smallest value
    return ((lo + hi) / 2).astype(np.float32)


def rectify_tile(image: np.ndarray, corners: np.ndarray, width: int = RECT_W) -> np.ndarray:
    """The tile's top face warped to an upright rectangle.

    Args:
        image: ``(H, W, 3) uint8`` BGR photo.
        corners: ``(4, 2)`` pixel corners in :class:`TileDetection` order (``0 -> 1`` a long side;
            half 0 is the end between corners 0 and 3).
        width: output width in pixels (across the tile).
    Returns:
        ``(2 * width, width, 3) uint8``: rows run along the tile, half 0 in rows ``0 .. width``.
        Parts outside the photo are replicated from its border.
    """
    c = np.asarray(corners, np.float32).reshape(4, 2)
    L = 2 * width
    dst = np.array([[0, 0], [0, L], [width, L], [width, 0]], np.float32)
    M = cv2.getPerspectiveTransform(c, dst)
    return cv2.warpPerspective(
        image, M, (width, L), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )


@dataclass
class TileReading:
    """What the pip counter saw on one tile.

    Attributes:
        pips: ``(a, b)`` pips on half 0 and half 1; an entry is None when that half is unreadable.
        confidence: confidence in [0, 1] of the whole reading.
        divider: True when a divider bar (or groove) was found across the middle.
        divider_pos: position of the divider along the tile as a fraction of its length (0.5 ideal).
        spinner: True when a spinner pin was seen on the divider (never counted as a pip).
        note: why a half is unreadable or doubtful ("" when nothing to say).
        pip_centres: ``(K, 2)`` pip centres in rectified pixels (x across, y along).
        rect: the rectified ``(2w, w, 3) uint8`` tile that was read (set by :func:`read_tile`).
        marks: large marks that are not pips (wider than a third of the tile: printed letters).
        by_classifier: True when the value is the half classifier's, overriding the count.
        classifier_pips: the half classifier's ``(a, b)``, or None when it did not run.
        classifier_confidence: its probability of that reading (the lower half's), or None.
        alt_pips: the reading that lost when the count and the classifier disagreed (the count
            when the classifier's value was taken, the classifier's when the count stayed), or
            None.
    """

    pips: tuple[int | None, int | None]
    confidence: float
    divider: bool
    divider_pos: float
    spinner: bool = False
    note: str = ""
    pip_centres: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.float32))
    rect: np.ndarray | None = None
    marks: int = 0
    by_classifier: bool = False
    classifier_pips: tuple[int, int] | None = None
    classifier_confidence: float | None = None
    alt_pips: tuple[int, int] | None = None

    @property
    def readable(self) -> bool:
        """True when both halves were read."""
        return self.pips[0] is not None and self.pips[1] is not None

    @property
    def value(self) -> tuple[int, int] | None:
        """``pips`` as two ints when both halves were read, else None."""
        a, b = self.pips
        return None if a is None or b is None else (int(a), int(b))

    def classifier_agrees(self, min_confidence: float = 0.0) -> bool:
        """True when the tile was read and the half classifier read the same ``pips`` with a
        probability of at least ``min_confidence``."""
        return (
            self.readable
            and self.classifier_pips == self.pips
            and (self.classifier_confidence or 0.0) >= min_confidence
        )


def _ink_mask(rect: np.ndarray, margin: int) -> np.ndarray:
    """Pixels differing from the body colour: ``(2w, w) uint8`` mask, 0 or 255."""
    lab8 = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB)
    h, w = lab8.shape[:2]
    body = median_u8(lab8[margin : h - margin, margin : w - margin])
    diff = lab8.astype(np.float32) - body
    diff[..., 1:] *= 1.6  # chroma matters: light blue or yellow pips on ivory
    dist = np.sqrt((diff**2).sum(axis=2))
    d8 = np.clip(dist * 2, 0, 255).astype(np.uint8)
    core = d8[margin : h - margin, margin : w - margin]
    otsu, _ = cv2.threshold(core, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    thr = float(np.clip(otsu, 2 * 16, 2 * 60))
    mask = np.zeros((h, w), np.uint8)
    mask[margin : h - margin, margin : w - margin] = (core > thr).astype(np.uint8) * 255
    return mask


def read_tile(
    image: np.ndarray, corners: np.ndarray, width: int = RECT_W, use_classifier: bool = True
) -> TileReading:
    """Count the pips on both halves of one face-up tile.

    With the learned half classifier (``models/pip-halves.onnx``, if present and
    ``use_classifier``), per box:

    - the classical count agrees: that value, confidence the larger of the two;
    - the tile is at least ``COUNT_MIN_WIDTH`` px wide, the count reads 0-0 with large marks
      (a printed back; :func:`read_pips` turns it face down) and the classifier is less sure
      than ``MARKED_BLANK_SURE``: the count stays;
    - the classifier is unsure (probability of the less sure half < ``CLASSIFIER_SURE``) and the
      count is unreadable: unreadable; or the count is readable on a tile at least
      ``COUNT_MIN_WIDTH`` px wide: the count stays, confidence at most 0.7;
    - otherwise the classifier's value, confidence its probability.

    Without the classifier, the classical count. Chosen on held-out rendered tiles and layouts
    (docs/vision.md).

    Args:
        image: ``(H, W, 3) uint8`` BGR photo.
        corners: ``(4, 2)`` oriented box of the tile's top face (:class:`TileDetection` order).
        width: rectified width in pixels.
        use_classifier: combine with the half classifier when its model file exists.
    Returns:
        :class:`TileReading` (``pips[i]`` belongs to ``halves[i]`` of the detection).
    """
    return read_tiles(image, [corners], width, use_classifier)[0]


def read_tiles(
    image: np.ndarray,
    boxes: list[np.ndarray] | np.ndarray,
    width: int = RECT_W,
    use_classifier: bool = True,
) -> list[TileReading]:
    """:func:`read_tile` on every box of one photo, the half classifier run on all of them at
    once (at most two onnxruntime calls per photo instead of one or two per tile).

    Args:
        image: ``(H, W, 3) uint8`` BGR photo.
        boxes: ``(4, 2)`` oriented boxes (:class:`TileDetection` order), or ``(N, 4, 2)``.
        width: rectified width in pixels.
        use_classifier: combine with the half classifier when its model file exists.
    Returns:
        one :class:`TileReading` per box, same order.
    """
    # each box is read as snapped to the body colour (when that moves it) and as the detector
    # gave it; the surer reading is kept. A box is read a second time only when the first
    # reading can still lose: a reading replaces a readable one only when it is more than 0.05
    # surer, and no confidence is above 1.
    from .classifier import classifier_available

    classify = use_classifier and classifier_available()

    def first(corners: np.ndarray) -> tuple[list[np.ndarray], _BoxReading]:
        c0 = np.asarray(corners, np.float32).reshape(4, 2)
        snapped = snap_box(image, c0, width)
        # a box that snapped to one tile's body comes first: it wins ties
        tries = [c0] if np.allclose(snapped, c0, atol=0.5) else [snapped, c0]
        return tries, _read_box(image, tries[0], width, classify)

    started = run_all(first, list(boxes))
    best = _keep_surer([None] * len(started), range(len(started)), [r for _, r in started])
    again = [i for i, (tries, _) in enumerate(started) if len(tries) > 1 and not _settled(best[i])]
    more = run_all(lambda i: _read_box(image, started[i][0][1], width, classify), again)
    best = _keep_surer(best, again, more)
    return cast("list[TileReading]", best)  # every box has a first reading


#: A box's classical reading, its half-classifier input (None: not classified) and the box.
_BoxReading = tuple[TileReading, np.ndarray | None, np.ndarray]


def _read_box(image: np.ndarray, box: np.ndarray, width: int, classify: bool) -> _BoxReading:
    """The classical reading of ``box`` and, with ``classify``, its half-classifier input."""
    from .classifier import half_inputs

    r = read_classical(image, box, width, snap=False)
    x = half_inputs(r.rect, r.divider_pos) if classify and r.rect is not None else None
    return r, x, box


def _keep_surer(
    best: list[TileReading | None], tiles: Iterable[int], reads: list[_BoxReading]
) -> list[TileReading | None]:
    """The half classifier run once on all ``reads`` (combined into each, :func:`_combine`),
    then each kept in ``best[tile]`` when it is the first or surer there (:func:`read_tile`)."""
    from .classifier import classify_halves

    todo = [(r, x, box) for r, x, box in reads if x is not None]
    if todo:
        prob = classify_halves(np.concatenate([x for _, x, _ in todo]))
        for k, (r, _, box) in enumerate(todo):
            _combine(r, prob[2 * k : 2 * k + 2], box)
    for i, (r, _, _) in zip(tiles, reads):
        b = best[i]
        if b is None or (r.readable and (not b.readable or r.confidence > b.confidence + 0.05)):
            best[i] = r
    return best


def _settled(r: TileReading | None) -> bool:
    """True when no other reading of the tile can replace ``r`` in :func:`read_tiles`."""
    return r is not None and r.readable and r.confidence + 0.05 >= 1.0


def _combine(r: TileReading, prob: np.ndarray, corners: np.ndarray) -> None:
    """The half classifier's ``(2, 13)`` probabilities combined into the classical reading
    ``r`` of the box ``corners`` (in place; the rule of :func:`read_tile`)."""
    cls = (int(prob[0].argmax()), int(prob[1].argmax()))
    pc = float(prob.max(axis=1).min())
    r.classifier_pips, r.classifier_confidence = cls, pc
    tile_w = float(
        np.linalg.norm(np.asarray(corners, np.float32)[3] - np.asarray(corners, np.float32)[0])
    )
    if r.readable and r.pips == cls:
        r.confidence = max(r.confidence, pc)
    elif r.pips == (0, 0) and r.marks > 0 and tile_w >= COUNT_MIN_WIDTH and pc < MARKED_BLANK_SURE:
        # no pips but large printed marks: a tile's back (read_pips), not a face to classify
        r.note = "; ".join(x for x in (r.note, f"half classifier says {cls[0]}-{cls[1]}") if x)
    elif not r.readable and pc < CLASSIFIER_SURE:
        r.note = "; ".join(
            x for x in (r.note, f"half classifier unsure ({cls[0]}-{cls[1]}, {pc:.2f})") if x
        )
    elif r.readable and tile_w >= COUNT_MIN_WIDTH and pc < CLASSIFIER_SURE:
        # an unsure classifier on a large tile: things it never saw (printed backs, odd sets)
        r.confidence = min(r.confidence, 0.7)
        r.note = "; ".join(x for x in (r.note, f"half classifier says {cls[0]}-{cls[1]}") if x)
        r.alt_pips = cls
    else:
        was, was_readable = r.pips, r.readable
        was_value = r.value
        r.pips, r.confidence, r.by_classifier = cls, pc, True
        if was_readable and was_value is not None and was_value != cls:
            r.alt_pips = was_value
        said = (
            f"pip counter says {was[0]}-{was[1]}" if was_readable else "read by the half classifier"
        )
        r.note = "; ".join(x for x in (r.note, said) if x)


def read_classical(
    image: np.ndarray, corners: np.ndarray, width: int = RECT_W, snap: bool = True
) -> TileReading:
    """The classical count alone (box snapping and refinement, divider re-centring, blobs): see
    the module doc."""
    if snap:
        corners = snap_box(image, corners, width)
    c = refine_box(image, corners, width)
    rect = rectify_tile(image, c, width)
    r = read_rectified(rect)
    if r.divider and abs(r.divider_pos - 0.5) > 0.02:
        # the box is off along the tile: centre it on the divider and read again
        c2 = _shift_along(c, (r.divider_pos - 0.5))
        rect2 = rectify_tile(image, c2, width)
        r2 = read_rectified(rect2)
        if r2.readable or not r.readable:
            r, rect = r2, rect2
    r.rect = rect
    return r


def half_images(reading: TileReading, size: int = 32) -> np.ndarray:
    """Both halves of a read tile as ``(2, size, size) float32`` "ink" maps (one-channel half
    classifiers): Lab distance from the body colour scaled to [0, 1], half 1 turned so that both
    halves have the tile's end at row 0; the last channel of
    :func:`vision.pips.classifier.half_inputs`.
    """
    from .classifier import half_inputs

    if reading.rect is None:
        raise ValueError("the reading has no rectified tile")
    return half_inputs(reading.rect, reading.divider_pos, size)[:, -1]


def _frame(corners: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """Centre, unit long axis (half 0 -> half 1), unit cross axis, length, width of a box."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    ctr = c.mean(0)
    u = (c[1] - c[0] + c[2] - c[3]) / 2
    v = (c[3] - c[0] + c[2] - c[1]) / 2
    length, wid = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    return ctr, u / max(length, 1e-9), v / max(wid, 1e-9), length, wid


def _box(ctr, u, v, length, wid) -> np.ndarray:
    s = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64)
    return (ctr + s[:, :1] * (length / 2) * u + s[:, 1:] * (wid / 2) * v).astype(np.float32)


def _shift_along(corners: np.ndarray, frac: float) -> np.ndarray:
    """The box moved along its long axis by ``frac`` of its length."""
    ctr, u, v, length, wid = _frame(corners)
    return _box(ctr + u * frac * length, u, v, length, wid)


def snap_box(image: np.ndarray, corners: np.ndarray, width: int = RECT_W) -> np.ndarray:
    """Replace a loose detector box by the body-coloured region around its centre.

    In a 1.5x larger window along the box's axes, the connected region of body-coloured pixels
    (pips closed over) containing the centre gives a min-area rectangle. It is used only when it
    looks like one tile: aspect 1.3..2.6 (photos are often stretched, e.g. resized to a square), area 0.5..1.5x the box's, centre within 30% of the
    width (tiles touching side by side merge into a wider region and are left alone).

    Returns:
        ``(4, 2) float32`` corners (long side first, half 0 at the same end), or ``corners``.
    """
    c0 = np.asarray(corners, np.float32).reshape(4, 2)
    ctr, u, v, length, wid = _frame(c0)
    if wid < 6 or length < 6:
        return c0
    g = 1.5
    big = _box(ctr, u, v, length * g, wid * g)
    W, L = width, 2 * width
    dst = np.array([[0, 0], [0, L], [W, L], [W, 0]], np.float32)
    M = cv2.getPerspectiveTransform(big, dst)
    rect = cv2.warpPerspective(
        image, M, (W, L), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
    lab8 = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB)
    inner = lab8[int(L * 0.35) : int(L * 0.65), int(W * 0.35) : int(W * 0.65)]
    d = lab8.astype(np.float32) - median_u8(inner)
    # Lab distance under 25 (squared: the same test without the square root)
    mask = (np.einsum("ijk,ijk->ij", d, d) < 25 * 25).astype(np.uint8)
    k = max(3, int(W * 0.12)) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, lbl = cv2.connectedComponents(mask)
    lc = lbl[L // 2, W // 2]
    if lc == 0:
        return c0
    pts = np.column_stack(np.nonzero(lbl == lc)[::-1]).astype(np.float32)
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(pts)
    if min(rw, rh) < 2:
        return c0
    box = cv2.boxPoints(((cx, cy), (rw, rh), ang)).astype(np.float32)
    back = cv2.perspectiveTransform(box[None], np.linalg.inv(M))[0]
    # long side first, half 0 at the detector's half-0 end
    e01 = np.linalg.norm(back[1] - back[0])
    e12 = np.linalg.norm(back[2] - back[1])
    if e12 > e01:
        back = np.roll(back, -1, axis=0)
    if float(np.dot(back[1] - back[0], u)) < 0:
        back = back[[2, 3, 0, 1]]
    if float(np.dot(back[3] - back[0], v)) < 0:
        back = back[[3, 2, 1, 0]]
    nctr, _, _, nlen, nwid = _frame(back)
    aspect = nlen / max(nwid, 1e-6)
    area_ratio = (nlen * nwid) / (length * wid)
    if not (
        1.3 <= aspect <= 2.6
        and 0.5 <= area_ratio <= 1.5
        and np.linalg.norm(nctr - ctr) <= 0.3 * wid
    ):
        return c0
    return back.astype(np.float32)


def refine_box(image: np.ndarray, corners: np.ndarray, width: int = RECT_W) -> np.ndarray:
    """Tighten a detector box across the tile to the tile's body (detector boxes are a few percent
    off; pips near the rim and the table at the rim both confuse counting).

    Looks at a box 30% wider, finds the run of columns (across the tile) whose pixels mostly
    have the body colour, and keeps the box when no clear run is found. The length is left
    alone (tiles in a line touch end to end); :func:`read_tile` re-centres on the divider.

    Returns:
        ``(4, 2) float32`` corners in the same order.
    """
    ctr, u, v, length, wid = _frame(corners)
    if wid < 4 or length < 4:
        return np.asarray(corners, np.float32)
    grow = 1.3
    big = _box(ctr, u, v, length * 0.8, wid * grow)  # trimmed ends: skip neighbours end to end
    rect = rectify_tile(image, big, width)
    lab8 = cv2.cvtColor(rect, cv2.COLOR_BGR2LAB)
    L, W = lab8.shape[:2]
    inner = lab8[L // 8 : L - L // 8, int(W * 0.3) : int(W * 0.7)]
    d = lab8.astype(np.float32) - median_u8(inner)
    # fraction of body-coloured pixels (Lab distance under 22) per column
    near = (np.einsum("ijk,ijk->ij", d, d) < 22 * 22).mean(axis=0)
    mid = W // 2
    if near[mid - 2 : mid + 3].mean() < 0.5:
        return np.asarray(corners, np.float32)
    ok = near > 0.45
    x0 = mid
    while x0 > 0 and ok[x0 - 1]:
        x0 -= 1
    x1 = mid
    while x1 < W - 1 and ok[x1 + 1]:
        x1 += 1
    span = (x1 + 1 - x0) / W * grow  # in units of the detector's width
    # both rims must drop to clearly non-body pixels (a touching neighbour tile does not)
    clear = (
        near[max(0, x0 - 4) : x0].min(initial=1.0) < 0.15
        and near[x1 + 1 : x1 + 5].min(initial=1.0) < 0.15
    )
    if not 0.75 <= span <= 1.2 or x0 == 0 or x1 == W - 1 or not clear:
        return np.asarray(corners, np.float32)
    off = ((x0 + x1 + 1) / 2 - W / 2) / W * wid * grow
    if abs(off) > 0.1 * wid:
        return np.asarray(corners, np.float32)
    return _box(ctr + v * off, u, v, length, span * wid)


def read_rectified(rect: np.ndarray) -> TileReading:
    """:func:`read_tile` on an already rectified ``(2w, w, 3) uint8`` tile (half 0 on top)."""
    L, w = rect.shape[:2]
    margin = max(2, int(round(0.07 * w)))
    mask = _ink_mask(rect, margin)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    blobs = []
    for cnt in contours:
        area = float(cv2.contourArea(cnt))
        x, y, bw, bh = cv2.boundingRect(cnt)
        if area < 0.003 * w * w and bw * bh < 0.004 * w * w:
            continue  # specks
        per = float(cv2.arcLength(cnt, True))
        m = cv2.moments(cnt)
        cx = m["m10"] / m["m00"] if m["m00"] > 0 else x + bw / 2
        cy = m["m01"] / m["m00"] if m["m00"] > 0 else y + bh / 2
        circ = 4 * np.pi * area / (per * per) if per > 0 else 0.0
        (_, _), (rw, rh), _ = cv2.minAreaRect(cnt)
        minor, major = max(1.0, min(rw, rh)), max(1.0, rw, rh)
        blobs.append(
            dict(
                area=area,
                x=x,
                y=y,
                w=bw,
                h=bh,
                cx=cx,
                cy=cy,
                circ=circ,
                minor=minor,
                aspect=major / minor,
            )
        )

    # divider: a long, thin blob across the middle of the tile
    # (a spinner pin may cut the bar in two: thin pieces in the middle band add up)
    divider, div_y = None, L / 2
    parts = [
        b
        for b in blobs
        if b["h"] <= 0.3 * w
        and b["w"] >= 2.5 * b["h"]
        and b["w"] >= 0.15 * w
        and 0.3 * L <= b["cy"] <= 0.7 * L
    ]
    if parts:
        best = max(parts, key=lambda b: b["w"])
        parts = [b for b in parts if abs(b["cy"] - best["cy"]) <= 0.1 * w]
        if sum(b["w"] for b in parts) >= 0.45 * w:
            divider = best
            div_y = float(np.average([b["cy"] for b in parts], weights=[b["area"] for b in parts]))
            blobs = [b for b in blobs if all(b is not q for q in parts)]
    spinner = False
    pips, rejects = [], []
    amin, amax = np.pi * (0.04 * w) ** 2, np.pi * (0.17 * w) ** 2
    for b in blobs:
        near_centre = abs(b["cx"] - w / 2) < 0.14 * w and abs(b["cy"] - div_y) < 0.12 * w
        if near_centre and (divider is not None or b["area"] < amax):
            if divider is not None or abs(b["cy"] - L / 2) < 0.08 * w:
                spinner = True
                continue
        at_rim = not (0.12 * w <= b["cx"] <= 0.88 * w and 0.09 * w <= b["cy"] <= L - 0.09 * w)
        # a band across most of the width near an end is the table or the next tile (loose box)
        at_rim = at_rim or (b["w"] >= 0.6 * w and (b["cy"] < 0.15 * L or b["cy"] > 0.85 * L))
        # a pip is never wider than about a third of the tile (printed letters on backs are)
        if amin <= b["area"] <= 4 * amax and 0.07 * w <= b["minor"] <= 0.32 * w and not at_rim:
            pips.append(b)
        else:
            rejects.append(b)
    note = []
    conf = 1.0
    marks = sum(1 for r in rejects if r["minor"] > 0.32 * w)  # large non-pip marks (see below)
    if pips:
        # touching pips merge into one blob: count such blobs by area relative to a single pip
        # (the median round blob, else a disc as wide as the blob's minor axis)
        round_ = [p for p in pips if p["circ"] >= 0.75 and p["aspect"] < 1.35]
        if round_:
            ref = float(np.median([p["area"] for p in round_]))
        else:
            ref = float(np.median([np.pi * (p["minor"] / 2) ** 2 for p in pips]))
        counted = []
        for p in pips:
            single = p["circ"] >= 0.75 and p["aspect"] < 1.35
            k = 1 if single else int(round(p["area"] / max(ref, 1.0)))
            if p["area"] < 0.35 * ref:
                rejects.append(p)
                continue
            if k >= 2:
                conf *= 0.9
            counted.extend([p] * max(1, min(k, 4)))
        pips = counted
        big = [r for r in rejects if r["area"] > 0.35 * ref]
        marks = len(big)
        if big:
            conf *= 0.6 ** len(big)
            note.append(f"{len(big)} unclear mark(s)")
    halves: list[int | None] = [
        sum(1 for p in pips if p["cy"] < div_y),
        sum(1 for p in pips if p["cy"] >= div_y),
    ]
    if divider is None:
        conf *= 0.8
        # a pip straddling the middle without a divider is ambiguous
        if any(abs(p["cy"] - L / 2) < 0.1 * w for p in pips):
            conf *= 0.5
            note.append("pip at the middle and no divider")
    for i in range(2):
        n = halves[i]
        if n is not None and n > MAX_PIPS:
            halves[i] = None
            note.append(f"half {i}: more than {MAX_PIPS} marks")
    if conf < 0.3:
        note.append("too many unclear marks")
        halves = [None, None]
    centres = np.array([[p["cx"], p["cy"]] for p in pips], np.float32).reshape(-1, 2)
    return TileReading(
        pips=(halves[0], halves[1]),
        confidence=float(conf),
        divider=divider is not None,
        divider_pos=float(div_y / L),
        spinner=spinner,
        note="; ".join(note),
        pip_centres=centres,
        marks=int(marks),
    )


#: A box with two or more large marks (printed letters) read with a confidence under this is a
#: printed back, not a doubtful face.
MARKED_BACK_MAX_CONFIDENCE = 0.5

#: A face-down detection whose face-down score is at most this many times its face-up score is
#: read anyway (:func:`_read_unsure_back`). 10 was chosen on two rendered tuning sets apart from
#: the validation seeds (face side right 0.964 -> 0.971 on double-6 against 2; no change on
#: double-9/12 or the real photos; 50 turned printed backs face up).
UNSURE_BACK_RATIO = 10.0

#: Reading confidence a doubtful back needs to be turned face up.
UNSURE_BACK_MIN_CONFIDENCE = 0.9
#: A face-down box narrower than this (pixels) is read like an unsure one, however sure the
#: detector is: at its input scale (384 px for a 1280 px photo) such a tile is a few pixels wide
#: and its pips are gone, so its face-down call is a guess (double-12 tiles of 15-16 px in rows
#: were all called face down). 20 px: on tuning scenes (seeds 40 000 000+, 40 per set) double-12
#: value accuracy 0.922 -> 0.952, no other change there nor on seeds 20 000 000+; at 24 px one
#: double-9 back turned face up, at 30 px five.
SMALL_BACK_READ_PX = 20.0


def _read_unsure_back(
    image: np.ndarray,
    d: TileDetection,
    read_backs: bool = False,
    reading: TileReading | None = None,
) -> TileDetection:
    """A face-down detection the detector was unsure of, read: face up when the pip counter reads
    it clearly (a confident reading, >= ``UNSURE_BACK_MIN_CONFIDENCE``; no large printed mark,
    unless the half classifier agrees with the count: on a tile under ``SMALL_BACK_READ_PX``, or
    at >= ``MARKED_BLANK_SURE`` with ``read_backs``; at least one pip or a divider: a blank
    double has a divider, a plain back has neither). A face that shows nothing at all stays face
    down with the flag ``TileFlag.BLANK_OR_BACK``; otherwise ``d`` comes back unchanged.
    ``reading``: the box's :func:`read_tile`, when it was read already.
    """
    r = reading if reading is not None else read_tile(image, d.corners)
    # a large mark blocks the reading unless the half classifier agrees with the count: on a tiny
    # tile (a few merged pips make a "large mark"), or, in a photo of face-up tiles only, when it
    # is sure (a coloured body's shading or a spinner pin leaves a mark)
    clean = (
        r.marks == 0
        or (min(d.size) < SMALL_BACK_READ_PX and r.classifier_agrees())
        or (read_backs and r.classifier_agrees(MARKED_BLANK_SURE))
    )
    value = r.value if r.readable else None
    if (
        value is not None
        and clean
        and r.confidence >= UNSURE_BACK_MIN_CONFIDENCE
        and (r.divider or value != (0, 0))
    ):
        return replace(
            d,
            face_down=False,
            pips=value,
            pip_confidence=r.confidence,
            note="the detector was unsure it is face down; the pips read clearly",
            flag=TileFlag.BACK_READ_FACE_UP,
        )
    if r.readable and clean and r.pips == (0, 0) and not r.divider:
        return replace(d, note=BLANK_OR_BACK_NOTE, flag=TileFlag.BLANK_OR_BACK)
    return d


def _face_down(d: TileDetection, note: str, flag: TileFlag) -> TileDetection:
    return replace(d, face_down=True, pips=None, pip_confidence=None, note=note, flag=flag)


def needs_reading(d: TileDetection, read_backs: bool = False) -> bool:
    """Whether :func:`read_one` reads the pips of ``d``: every face-up box, and a face-down one
    the detector is unsure of (face-down score at most :data:`UNSURE_BACK_RATIO` times the
    face-up score), narrower than :data:`SMALL_BACK_READ_PX`, or any with ``read_backs``."""
    if not d.face_down:
        return True
    ratio = d.face_down_ratio
    unsure = ratio is not None and ratio <= UNSURE_BACK_RATIO
    return read_backs or unsure or min(d.size) < SMALL_BACK_READ_PX


def read_one(
    image: np.ndarray,
    d: TileDetection,
    read_backs: bool = False,
    reading: TileReading | None = None,
) -> TileDetection:
    """One detection read (:func:`read_pips`); a new record, ``d`` is not changed.
    ``reading``: the box's :func:`read_tile`, when it was read already (:func:`read_pips` reads
    every box of a photo at once)."""
    ratio = d.face_down_ratio
    if d.face_down:
        d = replace(d, pips=None, pip_confidence=None)
        if needs_reading(d, read_backs):
            return _read_unsure_back(image, d, read_backs, reading)
        return d
    r = reading if reading is not None else read_tile(image, d.corners)
    pips = r.value if r.readable else None
    if pips is None:
        return replace(
            d,
            pips=None,
            pip_confidence=None,
            note=r.note or "unreadable",
            flag=TileFlag.UNREADABLE,
        )
    blank_sure = r.classifier_agrees(MARKED_BLANK_SURE)  # with pips == (0, 0) below
    if (
        pips == (0, 0)
        and r.marks > 0
        and not (blank_sure and (r.by_classifier or read_backs or r.divider))
    ):
        return _face_down(
            d, "no pips but large printed marks: taken as the back of a tile", TileFlag.PRINTED_BACK
        )
    if r.marks >= 2 and r.confidence < MARKED_BACK_MAX_CONFIDENCE:
        return _face_down(
            d,
            f"large printed marks and no clear pips (read {pips[0]}-{pips[1]} at "
            f"{r.confidence:.2f}): taken as the back of a tile",
            TileFlag.PRINTED_BACK,
        )
    if pips == (0, 0) and not r.divider:
        if (ratio or 0.0) >= 0.5:
            if r.marks == 0:
                return _face_down(d, BLANK_OR_BACK_NOTE, TileFlag.BLANK_OR_BACK)
            return _face_down(
                d, "no pips and no divider: taken as face down", TileFlag.PRINTED_BACK
            )
        return replace(
            d,
            pips=pips,
            pip_confidence=min(r.confidence, 0.5),
            note="no pips and no divider: blank double or a plain back",
            flag=TileFlag.BLANK_NO_DIVIDER,
        )
    return replace(d, pips=pips, pip_confidence=r.confidence, note=r.note, alt_pips=r.alt_pips)


def read_pips(
    image: np.ndarray,
    detections: list[TileDetection],
    face_down_scores: list[float] | None = None,
    read_backs: bool = False,
) -> list[TileDetection]:
    """Read the pips of every detection; new records, the input is not changed.

    Face up or face down (docs/vision.md, "Face down vs face up"):

    - a face-down detection keeps ``pips`` None, unless the detector was unsure (face-down score
      at most :data:`UNSURE_BACK_RATIO` times the face-up score), the box is narrower than
      :data:`SMALL_BACK_READ_PX`, or ``read_backs`` is set, and the tile reads clearly as a face
      (``TileFlag.BACK_READ_FACE_UP``);
    - a face-up box read as 0-0 with a large mark (wider than a third of the tile: printed
      letters of a logo back) becomes face down (``TileFlag.PRINTED_BACK``), unless the half
      classifier itself read the blank halves (probability >= ``MARKED_BLANK_SURE``) over a
      count that saw pips (an old ivory 0-0 with a stain), or, with ``read_backs`` (a photo of
      face-up tiles only), agreed with the count;
    - a face-up box with two or more large marks read with confidence under
      :data:`MARKED_BACK_MAX_CONFIDENCE` becomes face down (letters counted as a few pips);
    - a face-up box with no pips on either half and no divider becomes face down when the
      detector's face-down score is at least half its face-up score, else it stays 0-0 with
      ``pip_confidence <= 0.5`` (``TileFlag.BLANK_NO_DIVIDER``);
    - a face-down box that shows nothing at all (no pip, divider or mark) gets
      ``TileFlag.BLANK_OR_BACK`` (note :data:`BLANK_OR_BACK_NOTE`).

    Args:
        image: ``(H, W, 3) uint8`` BGR photo.
        detections: from the detector (``scores`` gives the face-down / face-up ratio).
        face_down_scores: the ratio (face-down score / face-up score) per detection, for
            detections without ``scores``; None: from ``scores``.
        read_backs: read every face-down box, however sure the detector is (for a photo that
            should show face-up tiles only); it turns face up only when it reads clearly.
    Returns:
        new detections, same order, with ``pips``, ``pip_confidence``, ``flag`` and ``note``.
    """
    # a ratio given for a detection without scores is used for reading only
    given = [face_down_scores is not None and d.scores is None for d in detections]
    dets = [
        replace(d, scores=(1.0, float(face_down_scores[i])))
        if given[i] and face_down_scores is not None
        else d
        for i, d in enumerate(detections)
    ]
    todo = [i for i, d in enumerate(dets) if needs_reading(d, read_backs)]
    readings: list[TileReading | None] = [None] * len(dets)
    for i, r in zip(todo, read_tiles(image, [dets[i].corners for i in todo])):
        readings[i] = r
    out = []
    for i, d in enumerate(dets):
        one = read_one(image, d, read_backs, readings[i])
        out.append(replace(one, scores=None) if given[i] else one)
    return out
