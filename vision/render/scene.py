"""Scenes of tiles on a table: the public rendering API.

Table plane: tile-width units. A tile is 2 units long and 1 wide; its centre and angle place it.
``Placement.angle_deg`` is the direction of the tile's long axis (from half 0 to half 1),
counter-clockwise from the plane's +x axis (plane y points up).

A random camera maps the table plane to the image: a similarity (scale = tile width in pixels,
rotation, shift) followed by a perspective warp like a hand-held phone's (:class:`Camera`).

Labels follow :class:`vision.types.TileDetection`: ``corners`` are the projected corners of the
tile's top face, ``corners[0] -> corners[1]`` a long side, and ``halves[0]`` (the half at the end
between ``corners[0]`` and ``corners[3]``) carries ``pips[0]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from engine.tiles import DominoSet, Tile
from vision.types import TileDetection

from .augment import photo_effects
from .styles import TileStyle, random_style
from .table import add_clutter, table_surface
from .tiles import draw_tile_texture

#: Tile-local corners (u along the long axis from half 0 to half 1, v across), label order.
_LOCAL = np.array([[-1.0, -0.5], [1.0, -0.5], [1.0, 0.5], [-1.0, 0.5]], np.float64)


@dataclass(frozen=True)
class Placement:
    """One tile on the table plane.

    Attributes:
        tile: the tile's value, or None for a face-down tile of unknown value.
        face_down: True when the tile lies back up.
        centre: ``(x, y)`` centre in tile-width units on the table plane.
        angle_deg: direction of the long axis, half 0 -> half 1, degrees counter-clockwise.
        flip: False: half 0 shows ``tile.low``; True: half 0 shows ``tile.high``.
    """

    tile: Tile | None
    face_down: bool = False
    centre: tuple[float, float] = (0.0, 0.0)
    angle_deg: float = 0.0
    flip: bool = False

    def shown(self) -> tuple[int, int] | None:
        """``(pips on half 0, pips on half 1)`` or None when face down."""
        if self.face_down or self.tile is None:
            return None
        a, b = self.tile.low, self.tile.high
        return (b, a) if self.flip else (a, b)

    def plane_corners(self, length: float = 2.0) -> np.ndarray:
        """``(4, 2) float64`` corners on the table plane, in label order, for a tile ``length``
        units long (2.0 for a standard tile) and 1 wide."""
        t = np.deg2rad(self.angle_deg)
        rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        return (_LOCAL * [length / 2, 1.0]) @ rot.T + np.asarray(self.centre, np.float64)


@dataclass
class Camera:
    """Table plane -> image mapping.

    Attributes:
        homography: ``(3, 3) float64``: plane units -> image pixels. Note plane y points up and
            image y points down; the homography includes the flip.
        image_size: ``(W, H)`` pixels.
        side_dir: ``(2,)`` image-pixel offset of a tile's visible edge per unit of thickness
            (perspective makes one side of each tile visible).
    """

    homography: np.ndarray
    image_size: tuple[int, int]
    side_dir: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0]))

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Map ``(N, 2)`` plane points to ``(N, 2) float64`` image pixels."""
        p = np.asarray(pts, np.float64).reshape(-1, 2)
        q = np.c_[p, np.ones(len(p))] @ self.homography.T
        return q[:, :2] / q[:, 2:3]


def make_camera(
    rng: np.random.Generator,
    placements: list[Placement],
    image_size: tuple[int, int],
    fill: float | None = None,
    tile_px: float | None = None,
    rotation_deg: float | None = None,
    tilt: float | None = None,
    keep_in_frame: float | None = None,
) -> Camera:
    """A random camera that frames the placements.

    Args:
        rng: numpy random generator.
        placements: tiles to frame (may be empty).
        image_size: ``(W, H)`` pixels.
        fill: fraction of the image the layout's extent should span (None: random 0.5..0.9);
            > 1 pushes tiles out of frame.
        tile_px: tile width in pixels; overrides ``fill``.
        rotation_deg: camera roll (None: random).
        tilt: perspective strength as a fraction of the image size (None: random 0..0.15).
        keep_in_frame: None: the perspective warp may carry tiles near the layout's edge out of
            the picture. A margin (fraction of each image side, e.g. 0.03): every tile, its
            visible side included, ends at least that far inside the picture; the view is
            shrunk and shifted about the image centre only where the warp would cut a tile,
            and the random draws are the same either way (a camera aimed at the whole table).
    Returns:
        :class:`Camera`.
    """
    W, H = image_size
    if placements:
        pts = np.concatenate([p.plane_corners() for p in placements])
    else:
        pts = np.array([[-1.0, -0.5], [1.0, 0.5]])
    c = (pts.min(0) + pts.max(0)) / 2
    rot = np.deg2rad(rng.uniform(0, 360) if rotation_deg is None else rotation_deg)
    R = np.array([[np.cos(rot), -np.sin(rot)], [np.sin(rot), np.cos(rot)]])
    q = (pts - c) @ R.T
    ext = np.maximum(q.max(0) - q.min(0), 1.0)
    if tile_px is None:
        f = rng.uniform(0.5, 0.9) if fill is None else fill
        tile_px = f * min(W / ext[0], H / ext[1])
    s = float(tile_px)
    off = np.array([W / 2, H / 2])
    slack = np.array([W, H]) - s * ext
    off += rng.uniform(-0.5, 0.5, 2) * np.maximum(slack, 0) * 0.9
    A = np.eye(3)
    A[:2, :2] = s * np.diag([1.0, -1.0]) @ R  # plane y up -> image y down
    A[:2, 2] = off - A[:2, :2] @ c
    t = rng.uniform(0, 0.15) if tilt is None else tilt
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    keystone = rng.uniform(-t, t) * W
    dst = src + rng.uniform(-t, t, (4, 2)).astype(np.float32) * np.array([W, H], np.float32) * 0.5
    dst[0, 0] += keystone
    dst[1, 0] -= keystone
    P = cv2.getPerspectiveTransform(src, dst.astype(np.float32)).astype(np.float64)
    ang = rng.normal(np.pi / 2, 0.5)  # visible edge mostly towards the image bottom
    side = np.array([np.cos(ang), np.sin(ang)]) * s * rng.uniform(0.05, 0.7)
    Hm = P @ A
    if keep_in_frame is not None and placements:
        Hm, side = _fit_in_frame(Hm, side, pts, (W, H), keep_in_frame)
    return Camera(homography=Hm, image_size=(W, H), side_dir=side)


def _fit_in_frame(
    Hm: np.ndarray, side: np.ndarray, pts: np.ndarray, size: tuple[int, int], margin: float
) -> tuple[np.ndarray, np.ndarray]:
    """``Hm`` (plane -> image, ``(3, 3)``) followed by the least shrink about the image centre
    and shift that brings the plane points ``pts`` ``(N, 2)``, with a tile side of up to
    ``side`` ``(2,)`` px beyond them, inside ``[margin, 1 - margin]`` of each image side;
    returns the new homography and the side offset scaled alike."""
    W, H = size
    q = Camera(homography=Hm, image_size=size).project(pts)
    q = np.concatenate([q, q + side])
    lo = np.array([W, H], np.float64) * margin
    hi = np.array([W, H], np.float64) * (1 - margin)
    if (q.min(0) >= lo).all() and (q.max(0) <= hi).all():
        return Hm, side
    centre = np.array([W / 2, H / 2])
    k = float(min(1.0, *((hi - lo) / np.maximum(q.max(0) - q.min(0), 1e-9))))
    q2 = (q - centre) * k + centre
    shift = np.maximum(lo - q2.min(0), 0) - np.maximum(q2.max(0) - hi, 0)
    S = np.array(
        [[k, 0, (1 - k) * centre[0] + shift[0]], [0, k, (1 - k) * centre[1] + shift[1]], [0, 0, 1]]
    )
    return S @ Hm, side * k


@dataclass
class RenderedScene:
    """A rendered image with its labels.

    Attributes:
        image: ``(H, W, 3) uint8`` BGR.
        labels: one :class:`TileDetection` per drawn tile with any part in frame, in placement
            order (confidence 1.0; ``pips`` set for face-up tiles, None for face-down ones).
        placements: the placements of ``labels`` (same order).
        visible: fraction of each labelled tile's top face that is visible (in frame and not
            covered by a later tile), in [0, 1].
        camera: the :class:`Camera` used.
        style: the :class:`TileStyle` used.
        kind: the scene kind for :func:`random_scene` scenes (:data:`SCENE_KINDS`), else "".
    """

    image: np.ndarray
    labels: list[TileDetection]
    placements: list[Placement]
    visible: list[float]
    camera: Camera
    style: TileStyle
    kind: str = ""


def _poly_mask(h: int, w: int, poly: np.ndarray, offset: np.ndarray) -> np.ndarray:
    m = np.zeros((h, w), np.uint8)
    p = np.round((poly - offset) * 16).astype(np.int32)
    cv2.fillConvexPoly(m, p, 255, cv2.LINE_AA, 4)
    return m.astype(np.float32) / 255.0


def render_scene(
    placements: list[Placement],
    rng: np.random.Generator | int | None,
    style: TileStyle | None = None,
    image_size: tuple[int, int] = (640, 480),
    camera: Camera | None = None,
    background: np.ndarray | None = None,
    clutter: int | None = 0,
    effects: float = 1.0,
    surface: str | None = None,
    **camera_kw,
) -> RenderedScene:
    """Render tiles placed on a table plane as a phone photo.

    Args:
        placements: the tiles (drawn in order: later tiles cover earlier ones).
        rng: numpy Generator or int seed (the same seed gives the same image).
        style: the set's look (None: :func:`random_style`).
        image_size: ``(W, H)`` in pixels, each 32..4096.
        camera: plane -> image mapping (None: :func:`make_camera` with ``camera_kw``: fill,
            tile_px, rotation_deg, tilt).
        background: optional ``(H, W, 3)`` BGR table image to draw on.
        clutter: number of clutter objects (None: random 0..5).
        effects: strength of the photo effects (0 = clean render).
        surface: table surface kind (see :data:`vision.render.table.SURFACES`), None = random.
    Returns:
        :class:`RenderedScene`.
    Raises:
        ValueError: bad image size, a face-up placement without a tile, pips above 12.
    """
    rng = np.random.default_rng(rng)
    W, H = int(image_size[0]), int(image_size[1])
    if not (32 <= W <= 4096 and 32 <= H <= 4096):
        raise ValueError(f"image_size must be within 32..4096 px, got {image_size}")
    for p in placements:
        if not p.face_down and p.tile is None:
            raise ValueError("a face-up placement needs a tile value")
    if style is None:
        style = random_style(rng)
    if camera is None:
        camera = make_camera(rng, placements, (W, H), **camera_kw)
    if background is not None:
        img = np.asarray(background, np.float32).copy()
        if img.shape != (H, W, 3):
            raise ValueError(f"background must be {(H, W, 3)}, got {img.shape}")
    else:
        img = table_surface(rng, H, W, surface)
    if clutter is None or clutter > 0:
        add_clutter(img, rng, clutter)

    corners = [camera.project(p.plane_corners(style.length)) for p in placements]
    side = camera.side_dir * style.thickness
    # soft shadows of all tiles first
    shadow = np.zeros((H, W), np.float32)
    light = rng.normal(0, 0.15, 2) * np.linalg.norm(camera.side_dir) + side
    for c in corners:
        hull = cv2.convexHull(np.concatenate([c, c + light]).astype(np.float32))
        cv2.fillConvexPoly(shadow, np.round(hull * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
    if corners:
        sigma = max(1.0, float(np.linalg.norm(camera.side_dir)) * 0.08)
        shadow = cv2.GaussianBlur(shadow, (0, 0), sigma)
        img *= (1 - rng.uniform(0.25, 0.55) * np.clip(shadow, 0, 1))[..., None]

    owner = np.full((H, W), -1, np.int32)
    drawn: list[int] = []
    for i, (p, c) in enumerate(zip(placements, corners)):
        outline = np.concatenate([c, c + side])
        x0, y0 = np.floor(outline.min(0)).astype(int) - 2
        x1, y1 = np.ceil(outline.max(0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if x1 <= x0 or y1 <= y0:
            continue  # wholly out of frame
        rh, rw = y1 - y0, x1 - x0
        org = np.array([x0, y0], np.float64)
        # visible edge (tile thickness) under the face
        hull = cv2.convexHull(outline.astype(np.float32)).reshape(-1, 2)
        m_side = _poly_mask(rh, rw, hull, org)
        roi = img[y0:y1, x0:x1]
        side_col = np.array(style.side, np.float32) * rng.uniform(0.85, 1.1)
        roi[:] = roi * (1 - m_side[..., None]) + side_col * m_side[..., None]
        # top face
        width_px = float(np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1])) / 2
        S = int(np.clip(width_px * 1.5, 12, 160))
        tex, alpha = draw_tile_texture(style, p.shown(), S, rng)
        src = np.array([[0, 0], [2 * S, 0], [2 * S, S], [0, S]], np.float32)
        M = cv2.getPerspectiveTransform(src, (c - org).astype(np.float32))
        face = cv2.warpPerspective(
            tex, M, (rw, rh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
        )
        a = cv2.warpPerspective(alpha, M, (rw, rh), flags=cv2.INTER_LINEAR, borderValue=0.0)
        roi[:] = roi * (1 - a[..., None]) + face * a[..., None]
        own = owner[y0:y1, x0:x1]
        own[a > 0.5] = i
        drawn.append(i)

    labels, kept, visible = [], [], []
    for i in drawn:
        c = corners[i]
        full = float(cv2.contourArea(c.astype(np.float32)))
        x0, y0 = np.floor(c.min(0)).astype(int)
        x1, y1 = np.ceil(c.max(0)).astype(int) + 1
        vis = int(
            (owner[max(y0, 0) : max(min(y1, H), 0), max(x0, 0) : max(min(x1, W), 0)] == i).sum()
        )
        frac = min(1.0, vis / full) if full > 0 else 0.0
        if frac <= 0:
            continue
        p = placements[i]
        labels.append(
            TileDetection(
                corners=c.astype(np.float32),
                confidence=1.0,
                face_down=p.face_down,
                pips=p.shown(),
                pip_confidence=None if p.face_down else 1.0,
            )
        )
        kept.append(p)
        visible.append(frac)
    out = photo_effects(img, rng, effects)
    return RenderedScene(
        image=out, labels=labels, placements=kept, visible=visible, camera=camera, style=style
    )


# ---------------------------------------------------------------- random training scenes

SCENE_KINDS = ("empty", "single", "line", "cross", "rows", "grid", "scatter", "pile")


def _overlaps(centre: np.ndarray, others: list[np.ndarray], dmin: float) -> bool:
    return any(float(np.linalg.norm(centre - o)) < dmin for o in others)


def _line_layout(
    rng,
    tiles: list[Tile],
    n: int,
    p_cross: float,
    start=(0.0, 0.0),
    heading: float | None = None,
    open_end: int | None = None,
    centres: list[np.ndarray] | None = None,
) -> list[Placement]:
    """A line of play from ``start`` towards ``heading``: matching ends, doubles crosswise,
    occasional 90-degree turns. Takes its tiles from ``tiles`` (removes them)."""
    out: list[Placement] = []
    centres = [] if centres is None else centres
    pos = np.asarray(start, np.float64)
    if heading is None:
        heading = (
            rng.uniform(0, 360) if rng.random() < 0.3 else float(rng.choice([0, 90, 180, 270]))
        )
    pool = tiles
    gap = rng.uniform(0, 0.08)
    for _ in range(n):
        if not pool:
            break
        match = [t for t in pool if open_end is None or t.has(open_end)]
        t = (
            match[int(rng.integers(len(match)))]
            if match and rng.random() < 0.9
            else pool[int(rng.integers(len(pool)))]
        )
        pool.remove(t)
        d = np.array([np.cos(np.deg2rad(heading)), np.sin(np.deg2rad(heading))])
        cross = t.is_double and rng.random() < p_cross
        length = 1.0 if cross else 2.0
        centre = pos + d * (length / 2 + gap)
        if _overlaps(centre, centres, 1.05):
            break
        near = open_end if (open_end is not None and t.has(open_end)) else t.low
        far = t.other(near)
        # half 0 lies towards the previous tile: it shows ``near``
        flip = t.low != near
        angle = heading + 90 if cross else heading
        if cross and rng.random() < 0.5:
            angle += 180
        out.append(
            Placement(
                tile=t,
                face_down=False,
                centre=(float(centre[0]), float(centre[1])),
                angle_deg=float(angle),
                flip=bool(flip if not cross else rng.random() < 0.5),
            )
        )
        centres.append(centre)
        pos = centre + d * (length / 2)
        open_end = far
        if rng.random() < 0.1 and not cross:  # corner: turn left or right
            turn = float(rng.choice([-90, 90]))
            pos = (
                pos
                - d * 0.5
                + np.array([np.cos(np.deg2rad(heading + turn)), np.sin(np.deg2rad(heading + turn))])
                * 0.5
            )
            heading += turn
    return out


def random_placements(
    rng: np.random.Generator, kind: str | None = None, max_pip: int = 6, low_pip_bias: float = 0.0
) -> tuple[list[Placement], str]:
    """Random tiles for a training scene.

    Args:
        rng: numpy random generator.
        kind: one of :data:`SCENE_KINDS` (None: random).
        max_pip: the set (6, 9 or 12).
        low_pip_bias: chance that the scene draws tiles with few pips first (blank halves,
            0-0, 1-1: the faces a detector confuses with backs); 0 leaves the random stream as
            it was, so earlier seeds give the same scenes.
    Returns:
        ``(placements, kind)``.
    Raises:
        ValueError: unknown kind.
    """
    if kind is None:
        kind = str(rng.choice(SCENE_KINDS, p=[0.04, 0.15, 0.18, 0.12, 0.13, 0.1, 0.18, 0.1]))
    if kind not in SCENE_KINDS:
        raise ValueError(f"unknown scene kind {kind!r}; use one of {SCENE_KINDS}")
    tiles = list(DominoSet(max_pip).tiles)
    rng.shuffle(tiles)
    if low_pip_bias > 0 and rng.random() < low_pip_bias:
        key = rng.exponential(1.0, len(tiles)) * np.array([(1.0 + t.pips) ** 2 for t in tiles])
        tiles = [tiles[i] for i in np.argsort(key, kind="stable")]
    p_down = 0.0 if rng.random() < 0.45 else rng.uniform(0.1, 1.0)
    out: list[Placement] = []
    if kind == "empty":
        return [], kind
    if kind == "single":
        for k in range(int(rng.choice([1, 1, 1, 2, 3]))):
            c = (k * 2.5 + rng.uniform(-0.3, 0.3), rng.uniform(-0.5, 0.5))
            out.append(
                Placement(
                    tiles[k],
                    bool(rng.random() < p_down * 0.6),
                    c,
                    rng.uniform(0, 360),
                    bool(rng.random() < 0.5),
                )
            )
    elif kind == "cross":  # a spinner (crosswise double) with two to four arms
        dbl = [t for t in tiles if t.is_double]
        spin = dbl[int(rng.integers(len(dbl)))]
        tiles.remove(spin)
        heading = float(rng.choice([0, 90])) + (rng.normal(0, 20) if rng.random() < 0.3 else 0.0)
        out = [Placement(spin, False, (0.0, 0.0), heading + 90, bool(rng.random() < 0.5))]
        centres = [np.zeros(2)]
        gap = rng.uniform(0, 0.06)
        for k in rng.permutation(4)[: int(rng.integers(2, 5))]:
            h = heading + 90 * int(k)
            d = np.array([np.cos(np.deg2rad(h)), np.sin(np.deg2rad(h))])
            reach = 0.5 if k % 2 == 0 else 1.0
            out += _line_layout(
                rng,
                tiles,
                int(rng.integers(1, 7)),
                0.6,
                start=d * (reach + gap),
                heading=h,
                open_end=spin.low,
                centres=centres,
            )
        out = [
            Placement(p.tile, bool(rng.random() < p_down * 0.2), p.centre, p.angle_deg, p.flip)
            for p in out
        ]
    elif kind == "line":
        out = _line_layout(rng, tiles, int(rng.integers(2, 17)), rng.uniform(0.3, 1.0))
        if rng.random() < 0.3:  # a second line (another arm or another game)
            off = rng.uniform(-8, 8, 2)
            more = _line_layout(rng, tiles, int(rng.integers(2, 10)), 0.7)
            cs = [np.array(p.centre) for p in out]
            for p in more:
                c = np.array(p.centre) + off
                if not _overlaps(c, cs, 2.3):
                    out.append(
                        Placement(
                            p.tile, p.face_down, (float(c[0]), float(c[1])), p.angle_deg, p.flip
                        )
                    )
        out = [
            Placement(p.tile, bool(rng.random() < p_down * 0.3), p.centre, p.angle_deg, p.flip)
            for p in out
        ]
    elif kind == "rows":  # tiles side by side (a hand, a boxed set, a player's rack)
        nrow, ncol = int(rng.integers(1, 4)), int(rng.integers(2, 11))
        gap = rng.uniform(0.0, 0.12)
        row_gap = rng.uniform(0.0, 0.3)
        k = 0
        for r in range(nrow):
            down_row = rng.random() < p_down
            for col in range(ncol):
                if k >= len(tiles):
                    break
                c = (col * (1 + gap), -r * (2 + row_gap))
                out.append(
                    Placement(
                        tiles[k], down_row, c, 90.0 + rng.normal(0, 1.5), bool(rng.random() < 0.5)
                    )
                )
                k += 1
    elif kind == "grid":  # tableau layouts: tiles in a grid, lying along or across
        nrow, ncol = int(rng.integers(2, 6)), int(rng.integers(2, 8))
        horiz = rng.random() < 0.5
        sx, sy = (2, 1) if horiz else (1, 2)
        gx, gy = rng.uniform(0.02, 0.6, 2)
        k = 0
        for r in range(nrow):
            for col in range(ncol):
                if k >= len(tiles):
                    break
                c = (col * (sx + gx), -r * (sy + gy))
                out.append(
                    Placement(
                        tiles[k],
                        bool(rng.random() < p_down),
                        c,
                        (0.0 if horiz else 90.0) + rng.normal(0, 2),
                        bool(rng.random() < 0.5),
                    )
                )
                k += 1
    elif kind == "scatter":
        n = int(rng.integers(1, min(29, len(tiles)) + 1))
        area = np.sqrt(n) * rng.uniform(2.4, 4.0)
        cs: list[np.ndarray] = []
        for k in range(n):
            for _try in range(20):
                c = rng.uniform(-area / 2, area / 2, 2)
                if not _overlaps(c, cs, 2.25):
                    cs.append(c)
                    out.append(
                        Placement(
                            tiles[k],
                            bool(rng.random() < p_down),
                            (float(c[0]), float(c[1])),
                            rng.uniform(0, 360),
                            bool(rng.random() < 0.5),
                        )
                    )
                    break
    else:  # pile: the boneyard, overlapping, mostly face down
        n = int(rng.integers(5, min(28, len(tiles)) + 1))
        area = np.sqrt(n) * rng.uniform(1.3, 2.2)
        pd = max(p_down, 0.6)
        for k in range(n):
            c = rng.uniform(-area / 2, area / 2, 2)
            out.append(
                Placement(
                    tiles[k],
                    bool(rng.random() < pd),
                    (float(c[0]), float(c[1])),
                    rng.uniform(0, 360),
                    bool(rng.random() < 0.5),
                )
            )
    return out, kind


#: ``(W, H)`` pixels: :func:`random_scene` draws one of these when given no ``image_size``.
DEFAULT_IMAGE_SIZES = [(640, 640), (640, 480), (480, 640)]


def random_scene(
    rng: np.random.Generator | int | None,
    image_size: tuple[int, int] | None = None,
    kind: str | None = None,
    style: TileStyle | None = None,
    low_pip_bias: float = 0.0,
    set_weights: tuple[float, float, float] | None = None,
) -> RenderedScene:
    """A random training image: random set style, table, clutter, camera and layout kind
    (:data:`SCENE_KINDS`: empty tables, close-up single tiles, lines of play with crosswise
    doubles, rows of touching tiles, tableau grids, scattered tiles, overlapping piles); tiles may
    be small, large or partly out of frame.

    Args:
        rng: numpy Generator or int seed.
        image_size: ``(W, H)`` (None: 640x640, 640x480 or 480x640).
        kind: scene kind (None: random).
        style: set style (None: random).
        low_pip_bias: see :func:`random_placements` (training sets; 0 for the benchmarks).
        set_weights: chances of a double-6, double-9 and double-12 set when ``style`` is None
            (None: :func:`random_style`'s 0.6 / 0.25 / 0.15).
    Returns:
        :class:`RenderedScene`.
    Raises:
        ValueError: ``set_weights`` not three non-negative numbers with a positive sum.
    """
    rng = np.random.default_rng(rng)
    if image_size is None:
        image_size = DEFAULT_IMAGE_SIZES[int(rng.integers(len(DEFAULT_IMAGE_SIZES)))]
    if style is None:
        max_pip = None
        if set_weights is not None:
            w = np.asarray(set_weights, dtype=float)
            if w.shape != (3,) or (w < 0).any() or w.sum() <= 0:
                raise ValueError(
                    f"set_weights must be three non-negative numbers, got {set_weights!r}"
                )
            max_pip = int(rng.choice([6, 9, 12], p=w / w.sum()))
        style = random_style(rng, max_pip=max_pip)
    placements, kind = random_placements(rng, kind, style.max_pip, low_pip_bias)
    W, H = image_size
    cam_kw: dict = {}
    if kind == "single":
        cam_kw["tile_px"] = rng.uniform(0.1, 0.4) * min(W, H)
    elif rng.random() < 0.4:  # a fixed tile size: big layouts run out of frame
        cam_kw["tile_px"] = rng.uniform(16, 90) * min(W, H) / 640
    else:
        r = rng.random()
        cam_kw["fill"] = (
            rng.uniform(1.0, 1.6)
            if r < 0.15
            else (rng.uniform(0.25, 0.5) if r < 0.35 else rng.uniform(0.5, 0.95))
        )
    camera = make_camera(rng, placements, (W, H), **cam_kw)
    if placements:  # keep tiles at least ~14 px wide (at 640 px; in proportion at other sizes)
        px = max(W, H) / 640
        c = camera.project(placements[0].plane_corners())
        width = float(np.linalg.norm(c[3] - c[0]))
        if width < 14 * px:
            cam_kw = {"tile_px": rng.uniform(14, 22) * px}
            camera = make_camera(rng, placements, (W, H), **cam_kw)
    scene = render_scene(
        placements,
        rng,
        style=style,
        image_size=(W, H),
        camera=camera,
        clutter=None if rng.random() < 0.6 else 0,
    )
    scene.kind = kind
    return scene
