"""Hard views: the kinds of photo the detector misses on real tables (issue 35).

Each kind is drawn by :func:`view_scene` ``(rng, kind) -> RenderedScene`` with exact labels:

- ``coloured``: sets people own with coloured bodies (:data:`BODY_COLOURS`: black, green, red,
  blue, yellow, white, ivory), pips in contrast (white on dark, black on light) or coloured by
  number, seen about from above (:func:`owned_style`);
- ``low-angle``: a real pinhole camera 20-35 degrees above the table (:func:`tilted_camera`),
  thick tiles (0.25-0.45 of the width) whose sides show, far tiles drawn first;
- ``close-up``: one or two tiles filling 45-95% of the short side, camera 30-60 degrees up;
- ``glare``: a specular streak across the tiles' faces (:func:`add_glare`);
- ``crosswise``: a line of play with every double crosswise (:func:`crosswise_line`), under
  glare half of the time;
- ``hand``: a hand placing or holding a tile, its fingers over the tile (:func:`add_hand`);
- ``small``: 400-640 px images, tiles 9-24 px wide, heavy JPEG (web images);
- ``backs``: face-down tiles of coloured sets (boneyard piles, rows, scattered hands);
- ``touching``: a Tableaux tableau (tiles edge to edge, staggered, on a grid of pitch 1.03 tile
  widths, ``vision.render.layouts.layout_tableaux``) of a dark set (black most often, dark
  green, blue, red), its pips dimmed to grey 40% of the time, on a cloth, felt, wood or leather
  table: where two touching halves of neighbouring tiles look like one more tile.

Labels follow :func:`vision.render.render_scene`; a tile covered by a drawn hand or a held tile
has its ``visible`` fraction lowered by the covered share of its face. The top faces are the
plane the camera sees (``z = 0``); the tile's body reaches down to ``z = -thickness``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from engine.tiles import DominoSet, Tile

from .augment import photo_effects
from .scene import Camera, Placement, RenderedScene, random_placements, render_scene
from .styles import COLOURED_PIPS, TileStyle, random_style
from .table import table_surface

#: The kinds of :func:`view_scene`, in the benchmark's order.
VIEW_KINDS = (
    "coloured",
    "low-angle",
    "close-up",
    "glare",
    "crosswise",
    "hand",
    "small",
    "backs",
    "touching",
)

#: Body colours of the ``touching`` kind and their chances.
TOUCHING_BODIES = {"black": 0.6, "dark-green": 0.15, "blue": 0.15, "red": 0.1}

#: Body colours of sets people own (BGR) and the pip colour that contrasts with each.
BODY_COLOURS: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "black": ((28, 28, 28), (235, 235, 235)),
    "green": ((45, 120, 35), (240, 240, 240)),
    "dark-green": ((35, 80, 25), (235, 235, 235)),
    "red": ((40, 40, 185), (240, 240, 240)),
    "blue": ((165, 80, 30), (240, 240, 240)),
    "yellow": ((40, 200, 235), (40, 40, 200)),
    "white": ((238, 240, 240), (25, 25, 25)),
    "ivory": ((190, 230, 245), (25, 25, 25)),
}

#: Skin tones of hands (BGR).
_SKIN = ((170, 195, 235), (120, 160, 215), (90, 130, 190), (60, 95, 150), (45, 70, 110))


def _jitter(rng: np.random.Generator, c, amount: float) -> tuple[int, int, int]:
    return tuple(int(np.clip(v + rng.normal(0, amount), 0, 255)) for v in c)  # type: ignore[return-value]


def owned_style(
    rng: np.random.Generator, max_pip: int | None = None, body: str | None = None
) -> TileStyle:
    """A set with a body colour of :data:`BODY_COLOURS`.

    Pips: the contrasting colour (55%), coloured by number (25%, light bodies only; else
    contrast), or one other colour (20%: red, blue, black or white). Backs in the body colour
    (plain, logo, frame or dots), a brass spinner pin half of the time, tiles 0.15-0.4 of their
    width thick, gloss 0.2-0.8.

    Args:
        rng: random source.
        max_pip: 6, 9 or 12 (None: 0.5 / 0.25 / 0.25).
        body: a key of :data:`BODY_COLOURS` (None: random, black and green the likeliest).
    Returns:
        A :class:`TileStyle` (family ``white_on_black`` for black, ``ivory`` for white and
        ivory, ``raised_colour`` for the coloured bodies).
    Raises:
        ValueError: unknown ``body`` or ``max_pip``.
    """
    names = list(BODY_COLOURS)
    if body is None:
        body = str(rng.choice(names, p=[0.2, 0.18, 0.1, 0.12, 0.12, 0.1, 0.1, 0.08]))
    if body not in BODY_COLOURS:
        raise ValueError(f"unknown body colour {body!r}; use one of {names}")
    if max_pip is None:
        max_pip = int(rng.choice([6, 9, 12], p=[0.5, 0.25, 0.25]))
    if max_pip not in (6, 9, 12):
        raise ValueError(f"max_pip must be 6, 9 or 12, got {max_pip}")
    colour, contrast = BODY_COLOURS[body]
    colour = _jitter(rng, colour, 10)
    light = float(np.mean(colour)) > 150
    r = rng.random()
    pip_colours: dict[int, tuple[int, int, int]] = {}
    pip = _jitter(rng, contrast, 8)
    if r < 0.25 and light:
        pip_colours = {k: _jitter(rng, v, 12) for k, v in COLOURED_PIPS.items()}
    elif r >= 0.8:
        others = [(40, 40, 200), (170, 80, 30), (25, 25, 25), (240, 240, 240)]
        pick = [c for c in others if np.abs(np.subtract(c, colour)).sum() > 200]
        pip = _jitter(rng, pick[int(rng.integers(len(pick)))], 8)
    family = "white_on_black" if body == "black" else ("ivory" if light else "raised_colour")
    return TileStyle(
        family=family,
        max_pip=max_pip,
        body=colour,
        back=colour if rng.random() < 0.85 else _jitter(rng, colour, 25),
        side=tuple(int(v * rng.uniform(0.55, 0.8)) for v in colour),  # type: ignore[arg-type]
        pip_colour=pip,
        pip_colours=pip_colours,
        pip_look=str(rng.choice(["flat", "engraved", "raised"], p=[0.4, 0.35, 0.25])),
        pip_scale=float(rng.uniform(0.9, 1.2)),
        divider=str(rng.choice(["line", "groove", "none"], p=[0.7, 0.25, 0.05])),
        divider_colour=pip,
        divider_len=float(rng.uniform(0.6, 0.95)),
        spinner=bool(rng.random() < 0.5),
        back_pattern=str(rng.choice(["plain", "logo", "frame", "dots"], p=[0.5, 0.25, 0.15, 0.1])),
        back_ink=pip,
        logo="".join(rng.choice(list("ABCDEFGHKMNOPRSTW"), size=int(rng.integers(1, 4)))),
        corner=float(rng.uniform(0.06, 0.2)),
        thickness=float(rng.uniform(0.15, 0.4)),
        six_across=bool(rng.random() < 0.3),
        gloss=float(rng.uniform(0.2, 0.8)),
        length=2.0 if rng.random() < 0.75 else float(rng.uniform(1.8, 2.0)),
    )


def tilted_camera(
    rng: np.random.Generator,
    placements: list[Placement],
    image_size: tuple[int, int],
    elevation_deg: float,
    fill: float | None = None,
    tile_px: float | None = None,
    roll_deg: float | None = None,
    distance: float | None = None,
) -> tuple[Camera, np.ndarray]:
    """A pinhole camera ``elevation_deg`` above the table plane, aimed at the placements.

    The camera stands ``distance`` times the layout's extent (plus 3 tile widths) from the
    layout's centre, at a random azimuth; the image is scaled so the layout spans ``fill`` of
    the frame, or so a tile's long side is ``2 * tile_px`` pixels; then turned by ``roll_deg``
    about the image centre.

    Args:
        rng: random source.
        placements: the tiles to frame (may be empty).
        image_size: ``(W, H)`` pixels.
        elevation_deg: angle between the view ray and the table, 5-90 (90 is from above).
        fill: fraction of the frame the layout spans (None: 0.5-0.9).
        tile_px: tile width in pixels at the layout's centre; overrides ``fill``.
        roll_deg: image roll (None: normal with sigma 12 degrees).
        distance: camera distance in layout extents (None: 1.2-3).
    Returns:
        ``(camera, depth)``: the :class:`Camera` (``side_dir`` = the image offset of one tile
        width straight down at the layout's centre) and each placement's distance from the
        camera (tile widths), for drawing far tiles first.
    Raises:
        ValueError: ``elevation_deg`` outside 5..90.
    """
    if not 5 <= elevation_deg <= 90:
        raise ValueError(f"elevation_deg must be within 5..90, got {elevation_deg}")
    W, H = image_size
    pts = (
        np.concatenate([p.plane_corners() for p in placements])
        if placements
        else np.array([[-1.0, -0.5], [1.0, 0.5]])
    )
    centre = (pts.min(0) + pts.max(0)) / 2
    extent = float(np.linalg.norm(pts.max(0) - pts.min(0)))
    dist = (rng.uniform(1.2, 3.0) if distance is None else distance) * extent + 3.0
    e = np.deg2rad(min(elevation_deg, 89.0))
    az = rng.uniform(0, 2 * np.pi)
    fwd = np.array([np.cos(az) * np.cos(e), np.sin(az) * np.cos(e), -np.sin(e)])
    pos = np.array([centre[0], centre[1], 0.0]) - dist * fwd
    right = np.cross(fwd, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    R = np.stack([right, down, fwd])  # world -> camera rows
    t = -R @ pos
    P = np.c_[R, t]  # 3x4, focal length 1

    def proj(P3: np.ndarray, xyz: np.ndarray) -> np.ndarray:
        q = np.c_[xyz, np.ones(len(xyz))] @ P3.T
        return q[:, :2] / q[:, 2:3]

    flat = proj(P, np.c_[pts, np.zeros(len(pts))])
    if tile_px is not None:
        c0 = proj(P, np.array([[centre[0], centre[1], 0.0], [centre[0] + 1, centre[1], 0.0]]))
        c1 = proj(P, np.array([[centre[0], centre[1], 0.0], [centre[0], centre[1] + 1, 0.0]]))
        unit = max(float(np.linalg.norm(c0[1] - c0[0])), float(np.linalg.norm(c1[1] - c1[0])))
        s = float(tile_px) / unit
    else:
        f = rng.uniform(0.5, 0.9) if fill is None else fill
        ext = np.maximum(flat.max(0) - flat.min(0), 1e-6)
        s = f * min(W / ext[0], H / ext[1])
    mid = (flat.min(0) + flat.max(0)) / 2
    slack = np.array([W, H]) - s * (flat.max(0) - flat.min(0))
    off = np.array([W / 2, H / 2]) + rng.uniform(-0.5, 0.5, 2) * np.maximum(slack, 0) * 0.8
    K = np.array([[s, 0, off[0] - s * mid[0]], [0, s, off[1] - s * mid[1]], [0, 0, 1.0]])
    roll = rng.normal(0, 12) if roll_deg is None else roll_deg
    Rz = np.eye(3)
    Rz[:2] = cv2.getRotationMatrix2D((W / 2, H / 2), float(roll), 1.0)
    P3 = Rz @ K @ P
    homography = P3[:, [0, 1, 3]]
    ends = proj(P3, np.array([[centre[0], centre[1], 0.0], [centre[0], centre[1], -1.0]]))
    cam = Camera(homography=homography, image_size=(W, H), side_dir=ends[1] - ends[0])
    depth = np.array(
        [float(np.linalg.norm(np.r_[p.centre, 0.0] - pos)) for p in placements], np.float64
    )
    return cam, depth


def face_mask(scene: RenderedScene) -> np.ndarray:
    """``(H, W) float32`` in [0, 1]: the labelled tiles' top faces (where a tile can shine)."""
    H, W = scene.image.shape[:2]
    m = np.zeros((H, W), np.float32)
    for det in scene.labels:
        cv2.fillConvexPoly(m, np.round(det.corners * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
    return m


def add_glare(
    img: np.ndarray, mask: np.ndarray, rng: np.random.Generator, strength: float | None = None
) -> np.ndarray:
    """A specular streak: a straight band of light (a window, a lamp's reflection) across the
    image, added where ``mask`` is 1 (shiny faces) and at a fifth of it elsewhere.

    Args:
        img: ``(H, W, 3) float32`` BGR 0..255 (not modified).
        mask: ``(H, W) float32`` in [0, 1].
        rng: random source.
        strength: peak brightness added (None: 120-260, enough to wash pips out).
    Returns:
        ``(H, W, 3) float32`` BGR, clipped to 0..255.
    """
    H, W = img.shape[:2]
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    ang = rng.uniform(0, np.pi)
    cx, cy = rng.uniform(0.2, 0.8) * W, rng.uniform(0.2, 0.8) * H
    d = (xx - cx) * np.sin(ang) - (yy - cy) * np.cos(ang)
    along = (xx - cx) * np.cos(ang) + (yy - cy) * np.sin(ang)
    width = rng.uniform(0.02, 0.09) * min(H, W)
    length = rng.uniform(0.3, 1.0) * max(H, W)
    band = np.exp(-0.5 * (d / width) ** 2) * np.exp(-0.5 * (along / length) ** 2)
    peak = rng.uniform(120, 260) if strength is None else strength
    m = cv2.GaussianBlur(mask, (0, 0), 1.0)
    light = (band * peak * (0.2 + 0.8 * m)).astype(np.float32)
    tint = rng.uniform(0.9, 1.0, 3).astype(np.float32)
    return np.clip(img + light[..., None] * tint, 0, 255)


def _hand_mask(
    rng: np.random.Generator,
    H: int,
    W: int,
    tip: np.ndarray,
    toward: np.ndarray,
    finger_px: float,
) -> np.ndarray:
    """A hand's silhouette ``(H, W) float32``: fingertips at ``tip``, the palm and the arm
    reaching from there in the direction ``toward`` (unit vector), fingers ``finger_px`` wide."""
    m = np.zeros((H, W), np.uint8)
    u = toward / max(float(np.linalg.norm(toward)), 1e-6)
    v = np.array([-u[1], u[0]])
    fw = max(3.0, finger_px)
    n = int(rng.integers(2, 5))
    palm = tip + u * fw * rng.uniform(3.5, 5.0)
    for k in range(n):  # fingers, fanned a little
        off = (k - (n - 1) / 2) * fw * 1.05
        a = tip + v * off + u * rng.uniform(-0.6, 0.6) * fw
        b = palm + v * off * 1.2
        cv2.line(m, tuple(int(x) for x in a), tuple(int(x) for x in b), 255, int(fw), cv2.LINE_AA)
    thumb = tip + u * fw * 1.5 - v * fw * (n / 2 + 1.2)
    cv2.line(
        m,
        tuple(int(x) for x in thumb),
        tuple(int(x) for x in palm - v * fw * 1.5),
        255,
        int(fw * 1.1),
        cv2.LINE_AA,
    )
    axes = (int(fw * (n * 0.75 + 1.2)), int(fw * 2.6))
    ang = float(np.degrees(np.arctan2(u[1], u[0]))) + 90
    cv2.ellipse(m, tuple(int(x) for x in palm + u * fw * 1.5), axes, ang, 0, 360, 255, -1)
    far = palm + u * (H + W)  # the arm, out of the frame
    cv2.line(
        m,
        tuple(int(x) for x in palm),
        tuple(int(np.clip(x, -1e5, 1e5)) for x in far),
        255,
        int(fw * 3.2),
        cv2.LINE_AA,
    )
    return m.astype(np.float32) / 255.0


def _lower_visibility(scene: RenderedScene, cover: np.ndarray) -> None:
    """Lower each label's ``visible`` by the share of its face that ``cover`` (``(H, W)`` in
    [0, 1]) hides (a share the tile's neighbours already hid may be counted twice: the result
    never overstates what is visible)."""
    H, W = cover.shape
    for i, det in enumerate(scene.labels):
        m = np.zeros((H, W), np.float32)
        cv2.fillConvexPoly(m, np.round(det.corners).astype(np.int32), 1.0)
        area = max(float(cv2.contourArea(det.corners.astype(np.float32))), 1.0)
        hidden = float((m * (cover > 0.5)).sum()) / area
        scene.visible[i] = max(0.0, scene.visible[i] - hidden)


def add_hand(scene: RenderedScene, img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Draw a hand placing one of the scene's tiles: fingertips on the tile's far end or side,
    the palm and arm running out of the frame. Lowers the covered tiles' ``visible``.

    Args:
        scene: the rendered scene (labels, visible; ``visible`` is changed in place).
        img: ``(H, W, 3) float32`` BGR, the scene's image before photo effects.
        rng: random source.
    Returns:
        ``(H, W, 3) float32`` BGR with the hand (skin tone, shading, a soft shadow).
    """
    H, W = img.shape[:2]
    if scene.labels:
        det = scene.labels[int(rng.integers(len(scene.labels)))]
        c = det.corners.astype(np.float64)
        width = float(np.linalg.norm(c[3] - c[0]))
        centre = c.mean(0)
        end = (c[1] + c[2]) / 2 if rng.random() < 0.5 else (c[0] + c[3]) / 2
        tip = centre + (end - centre) * rng.uniform(0.6, 1.0)
        toward = tip - centre + rng.normal(0, 0.3 * width, 2)
    else:
        width = rng.uniform(0.04, 0.1) * min(H, W)
        tip = rng.uniform(0.3, 0.7, 2) * [W, H]
        toward = rng.normal(0, 1, 2)
    mask = _hand_mask(rng, H, W, tip, toward, width * rng.uniform(0.45, 0.7))
    shadow = cv2.GaussianBlur(
        np.roll(mask, (int(width * 0.3), int(width * 0.2)), axis=(0, 1)), (0, 0), width * 0.3 + 1
    )
    out = img * (1 - 0.45 * shadow[..., None])
    skin = np.array(_SKIN[int(rng.integers(len(_SKIN)))], np.float32) * rng.uniform(0.85, 1.1)
    shade = 1 + 0.15 * cv2.GaussianBlur(
        rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), width * 0.5 + 1
    )
    hand = skin[None, None] * shade[..., None]
    a = cv2.GaussianBlur(mask, (0, 0), 0.8)[..., None]
    out = out * (1 - a) + hand * a
    _lower_visibility(scene, mask)
    return np.clip(out, 0, 255).astype(np.float32)


def crosswise_line(rng: np.random.Generator, max_pip: int, n: int | None = None) -> list[Placement]:
    """A line of play whose doubles all lie crosswise (a double about every third tile).

    Args:
        rng: random source.
        max_pip: the set (6, 9 or 12).
        n: tiles in the line (None: 4-11).
    Returns:
        The placements from the line's start, matching ends touching (gap 0-0.06).
    """
    tiles = set(DominoSet(max_pip).tiles)
    n = int(rng.integers(4, 12)) if n is None else n
    heading = float(rng.choice([0, 90])) + (rng.normal(0, 25) if rng.random() < 0.4 else 0.0)
    d = np.array([np.cos(np.deg2rad(heading)), np.sin(np.deg2rad(heading))])
    gap = rng.uniform(0, 0.06)
    end = int(rng.integers(max_pip + 1))
    pos = np.zeros(2)
    out: list[Placement] = []
    last_double = True
    for _ in range(n):
        dbl = Tile(end, end)
        if not last_double and dbl in tiles and rng.random() < 0.5:
            t = dbl
        else:
            others = [x for x in tiles if x.has(end) and not x.is_double]
            if not others:
                break
            t = others[int(rng.integers(len(others)))]
        tiles.discard(t)
        cross = t.is_double
        length = 1.0 if cross else 2.0
        centre = pos + d * (length / 2 + gap)
        far = t.other(end)
        out.append(
            Placement(
                tile=t,
                centre=(float(centre[0]), float(centre[1])),
                angle_deg=heading + (90.0 + 180.0 * float(rng.random() < 0.5) if cross else 0.0),
                flip=bool(t.low != end) if not cross else bool(rng.random() < 0.5),
            )
        )
        pos = centre + d * (length / 2)
        end, last_double = far, cross
    return out


def _far_first(placements: list[Placement], depth: np.ndarray) -> list[Placement]:
    order = np.argsort(-depth, kind="stable")
    return [placements[int(i)] for i in order]


def _finish(
    scene: RenderedScene,
    rng: np.random.Generator,
    kind: str,
    glare: bool = False,
    hand: bool = False,
    jpeg: tuple[int, int] | None = None,
) -> RenderedScene:
    """Glare, a hand, photo effects and an extra JPEG pass on a clean render (``effects=0``)."""
    img = scene.image.astype(np.float32)
    if glare:
        img = add_glare(img, face_mask(scene), rng)
    if hand:
        img = add_hand(scene, img, rng)
    out = photo_effects(img, rng, 1.0)
    if jpeg is not None:
        ok, buf = cv2.imencode(
            ".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(jpeg[0], jpeg[1] + 1))]
        )
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        if decoded is not None:
            out = decoded
    scene.image = out
    scene.kind = kind
    return scene


def view_scene(
    rng: np.random.Generator | int | None,
    kind: str,
    max_pip: int | None = None,
    scale: float = 1.0,
) -> RenderedScene:
    """One scene of a hard-view kind (:data:`VIEW_KINDS`; the module docstring says what each
    draws).

    Args:
        rng: numpy Generator or int seed (the same seed gives the same scene).
        kind: one of :data:`VIEW_KINDS`.
        max_pip: the set (None: 0.5 / 0.25 / 0.25 for double-6 / 9 / 12).
        scale: image size multiple of the kind's base size (640x480, 480x640 or 640x640).
            The table's texture takes draws from ``rng`` by its size, so one seed at two
            scales gives two scenes of the kind. ``small`` keeps its 400-640 px size whatever
            ``scale`` is: it stands for small web images.
    Returns:
        :class:`RenderedScene` with ``kind`` set.
    Raises:
        ValueError: unknown kind.
    """
    if kind not in VIEW_KINDS:
        raise ValueError(f"unknown view kind {kind!r}; use one of {VIEW_KINDS}")
    rng = np.random.default_rng(rng)
    base = ((640, 480), (480, 640), (640, 640))[int(rng.integers(3))]
    W, H = int(base[0] * scale), int(base[1] * scale)
    if kind == "touching":  # its own set and table (dark ones)
        return _touching(rng, (W, H), max_pip)
    px = min(W, H) / 480  # pixel sizes below are for a 480 px short side
    style = owned_style(rng, max_pip)
    if kind == "small":
        W = int(rng.integers(400, 641))
        H = int(W * rng.uniform(0.62, 0.8)) if rng.random() < 0.7 else int(W * 1.3)
        px = 1.0
        style = style if rng.random() < 0.6 else random_style(rng, max_pip=style.max_pip)
    table = table_surface(rng, H, W, str(rng.choice(["cloth", "felt", "wood", "plain", "leather"])))

    def draw(placements: list[Placement], style: TileStyle, clutter=0, **cam: Any):
        """The clean render (photo effects come in :func:`_finish`)."""
        return render_scene(
            placements,
            rng,
            style=style,
            image_size=(W, H),
            background=table,
            clutter=clutter,
            effects=0.0,
            **cam,
        )

    if kind == "coloured":
        layout = str(rng.choice(["line", "scatter", "rows", "cross", "grid", "single"]))
        placements, _ = random_placements(rng, layout, style.max_pip)
        sc = draw(placements, style, fill=rng.uniform(0.5, 0.95))
        return _finish(sc, rng, kind)
    cam_kw: dict[str, Any]
    if kind in ("low-angle", "close-up"):
        thick = rng.uniform(0.25, 0.45)
        style = replace(style, thickness=float(thick))
        if kind == "low-angle":
            layout = str(rng.choice(["line", "scatter", "rows", "cross", "single"]))
            placements, _ = random_placements(rng, layout, style.max_pip)
            elev, cam_kw = rng.uniform(20, 35), {"fill": rng.uniform(0.55, 1.0)}
        else:
            placements, _ = random_placements(rng, "single", style.max_pip)
            placements = placements[: int(rng.integers(1, 3))]
            elev = rng.uniform(30, 60)
            cam_kw = {"tile_px": rng.uniform(0.22, 0.48) * min(W, H), "distance": 1.5}
        cam, depth = tilted_camera(rng, placements, (W, H), elev, **cam_kw)
        sc = draw(_far_first(placements, depth), style, camera=cam)
        return _finish(sc, rng, kind, glare=rng.random() < 0.25)
    if kind in ("glare", "crosswise"):
        if kind == "crosswise":
            placements = crosswise_line(rng, style.max_pip)
        else:
            layout = str(rng.choice(["line", "scatter", "rows", "single"]))
            placements, _ = random_placements(rng, layout, style.max_pip)
        if rng.random() < 0.4:
            cam, depth = tilted_camera(rng, placements, (W, H), rng.uniform(30, 60))
            placements = _far_first(placements, depth)
            cam_kw = {"camera": cam}
        else:
            cam_kw = {"fill": rng.uniform(0.5, 0.95)}
        sc = draw(placements, replace(style, gloss=float(rng.uniform(0.5, 1.0))), **cam_kw)
        return _finish(sc, rng, kind, glare=kind == "glare" or rng.random() < 0.5)
    if kind == "hand":
        layout = str(rng.choice(["line", "scatter", "rows", "single", "cross"]))
        placements, _ = random_placements(rng, layout, style.max_pip)
        sc = draw(placements, style, fill=rng.uniform(0.5, 0.9))
        return _finish(sc, rng, kind, hand=True)
    if kind == "small":
        layout = str(rng.choice(["line", "scatter", "rows", "cross", "pile"]))
        placements, _ = random_placements(rng, layout, style.max_pip)
        sc = draw(placements, style, clutter=None, tile_px=rng.uniform(9, 24) * px)
        return _finish(sc, rng, kind, hand=rng.random() < 0.3, jpeg=(15, 50))
    # backs: face-down tiles of a coloured set, sometimes beside face-up ones
    layout = str(rng.choice(["pile", "rows", "scatter", "line"]))
    placements, _ = random_placements(rng, layout, style.max_pip)
    p_down = rng.uniform(0.6, 1.0)
    placements = [replace(p, face_down=bool(rng.random() < p_down)) for p in placements]
    tilted = rng.random() < 0.4
    if tilted and placements:
        style = replace(style, thickness=float(rng.uniform(0.25, 0.4)))
        cam, depth = tilted_camera(rng, placements, (W, H), rng.uniform(25, 50))
        placements, cam_kw = _far_first(placements, depth), {"camera": cam}
    else:
        cam_kw = {"fill": rng.uniform(0.5, 0.95)}
    sc = draw(placements, style, **cam_kw)
    return _finish(sc, rng, kind)


def _touching(
    rng: np.random.Generator, size: tuple[int, int], max_pip: int | None
) -> RenderedScene:
    """The ``touching`` kind: a Tableaux tableau of 2-13 tiles of a dark set on a table
    (``size``: ``(W, H)`` pixels; ``max_pip`` 12 is drawn as 9, Tableaux using double-6 or 9;
    None: either, evenly)."""
    import random

    from .layouts import layout_tableaux

    W, H = size
    n = int(rng.choice([6, 9])) if max_pip is None else 6 if max_pip == 6 else 9
    sample = layout_tableaux(random.Random(int(rng.integers(2**31))), n)
    names = list(TOUCHING_BODIES)
    body = str(rng.choice(names, p=list(TOUCHING_BODIES.values())))
    style = owned_style(rng, sample.max_pip, body=body)
    if rng.random() < 0.4:
        grey = int(rng.integers(110, 171))
        style = replace(style, pip_colour=(grey, grey, grey), pip_colours={})
    table = table_surface(rng, H, W, str(rng.choice(["cloth", "felt", "wood", "leather"])))
    placements = sample.placements
    cam_kw: dict[str, Any] = {"fill": rng.uniform(0.45, 0.9)}
    if rng.random() < 0.35:
        cam, depth = tilted_camera(rng, placements, (W, H), rng.uniform(35, 60))
        placements, cam_kw = _far_first(placements, depth), {"camera": cam}
    sc = render_scene(
        placements, rng, style=style, image_size=(W, H), background=table, effects=0.0, **cam_kw
    )
    return _finish(sc, rng, "touching", glare=rng.random() < 0.25)
