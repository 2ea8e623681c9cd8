"""Writing rendered scenes as an ultralytics OBB dataset.

Layout: ``<root>/images/{train,val}/NNNNNN.jpg``, ``<root>/labels/{train,val}/NNNNNN.txt`` with
one line per tile ``class x1 y1 x2 y2 x3 y3 x4 y4`` (corners normalised to [0, 1] by image
width/height), and ``<root>/data.yaml``. Classes: 0 = tile face up, 1 = tile face down.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import cv2
import numpy as np

from .scene import RenderedScene, random_scene

CLASS_NAMES = {0: "tile", 1: "tile_face_down"}

#: A tile whose top face is less than this fraction visible (out of frame or covered) gets no label.
MIN_VISIBLE = 0.4


def obb_label_lines(scene: RenderedScene, min_visible: float = MIN_VISIBLE) -> list[str]:
    """Ultralytics OBB label lines of a scene.

    Tiles partly out of frame get the minimum-area rectangle of their visible part; tiles less
    than ``min_visible`` visible get no line.

    Returns:
        Lines ``"cls x1 y1 x2 y2 x3 y3 x4 y4"`` (6 decimals, normalised).
    """
    H, W = scene.image.shape[:2]
    frame = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    lines = []
    for det, vis in zip(scene.labels, scene.visible):
        if vis < min_visible:
            continue
        c = det.corners.astype(np.float32)
        inside = bool(np.all((c[:, 0] >= 0) & (c[:, 0] <= W) & (c[:, 1] >= 0) & (c[:, 1] <= H)))
        if not inside:
            area, poly = cv2.intersectConvexConvex(c, frame)
            if poly is None or area < 4:
                continue
            c = cv2.boxPoints(cv2.minAreaRect(poly.reshape(-1, 2))).astype(np.float32)
        n = np.clip(c / np.array([W, H], np.float32), 0, 1)
        cls = 1 if det.face_down else 0
        lines.append(f"{cls} " + " ".join(f"{v:.6f}" for v in n.reshape(-1)))
    return lines


def write_scene(
    root: Path,
    split: str,
    index: int,
    seed: int,
    jpeg_quality: int = 92,
    low_pip_bias: float = 0.0,
    set_weights: tuple[float, float, float] | None = None,
    layout_share: float = 0.0,
    surface_mix: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0),
    backgrounds: str | None = None,
    view_share: float = 0.0,
    view_kinds: tuple[str, ...] | None = None,
) -> dict:
    """Render scene ``seed`` and write image + label file (``low_pip_bias``, ``set_weights``:
    see :func:`vision.render.scene.random_scene`).

    With the chances of ``surface_mix`` = (paste, hard, background, close-up, cards, dark) the image
    is, in that order, rendered tiles pasted on a background photo of ``backgrounds``
    (:func:`vision.render.surfaces.pasted_scene`), a procedural hard surface with tile-like
    objects (:func:`vision.render.surfaces.hard_scene`), a background photo alone with no label
    (:func:`vision.render.surfaces.augment_background`), or a close-up of one or two tiles on a
    background photo or a procedural table (:func:`vision.render.surfaces.closeup_scene`), or
    printed cards that are not tiles on a background photo, with tiles half of the time
    (:func:`vision.render.surfaces.card_scene`), or dark objects larger than a tile (screens,
    tins, seats) on a background photo, with smaller tiles half of the time
    (:func:`vision.render.surfaces.dark_scene`); missing shares are 0. The held-out background
    photos (:func:`vision.render.surfaces.holdout_photos`) are never used. Otherwise, with chance
    ``view_share``, a hard view (:func:`vision.render.views.view_scene`, its kind drawn evenly
    from ``view_kinds``, None: all of :data:`vision.render.views.VIEW_KINDS`); else, with chance
    ``layout_share``, a game position (:func:`vision.render.layouts.random_layout_scene`; 640x480
    or 480x640), else a random scene. A share of 0 draws no random number, so older datasets
    stay the same.

    Returns:
        A manifest row: image name, split, seed, scene kind, style family, set, label count.
    Raises:
        ValueError: ``surface_mix`` asks for background photos and ``backgrounds`` is None or
            holds none.
    """
    rng = np.random.default_rng(seed)
    name = f"{index:06d}"
    mix = np.cumsum(np.asarray((*surface_mix, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)[:6], np.float64))
    r = rng.random() if mix[-1] > 0 else 1.0
    scene: RenderedScene | None
    if r < mix[-1]:
        image, scene, kind = _surface_scene(rng, r, mix, backgrounds)
    elif view_share > 0 and rng.random() < view_share:
        from .views import VIEW_KINDS, view_scene

        kinds = VIEW_KINDS if not view_kinds else tuple(view_kinds)
        scene = view_scene(rng, kinds[int(rng.integers(len(kinds)))])
        image, kind = scene.image, f"view:{scene.kind}"
    else:
        if layout_share > 0 and rng.random() < layout_share:
            from .layouts import random_layout_scene

            size = (640, 480) if rng.random() < 0.6 else (480, 640)
            scene = random_layout_scene(rng, size)
        else:
            scene = random_scene(rng, low_pip_bias=low_pip_bias, set_weights=set_weights)
        image, kind = scene.image, scene.kind
    cv2.imwrite(
        str(root / "images" / split / f"{name}.jpg"),
        image,
        [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality],
    )
    lines = obb_label_lines(scene) if scene is not None else []
    (root / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    return {
        "image": f"{split}/{name}.jpg",
        "seed": seed,
        "kind": kind,
        "family": scene.style.family if scene is not None else "",
        "max_pip": scene.style.max_pip if scene is not None else 0,
        "labels": len(lines),
        "face_down": sum(1 for ln in lines if ln.startswith("1 ")),
    }


@functools.lru_cache(maxsize=4)
def _training_backgrounds(folder: str) -> tuple[np.ndarray, ...]:
    """The background photos of ``folder`` that are not held out, decoded (BGR)."""
    from .surfaces import background_photos, holdout_photos

    photos = background_photos(Path(folder))
    held = holdout_photos(photos)
    images = (cv2.imread(str(p)) for p in photos if p.name not in held)
    return tuple(im for im in images if im is not None)


def _surface_scene(
    rng: np.random.Generator, r: float, mix: np.ndarray, backgrounds: str | None
) -> tuple[np.ndarray, RenderedScene | None, str]:
    """The image, scene (None: no tile) and kind of :func:`write_scene`'s ``surface_mix`` draw
    ``r`` (``mix``: the cumulative shares)."""
    from .surfaces import (
        augment_background,
        card_scene,
        closeup_scene,
        dark_scene,
        hard_scene,
        pasted_scene,
    )

    bgs = _training_backgrounds(backgrounds) if backgrounds else ()
    if not bgs and (r < mix[0] or mix[1] <= r < mix[2] or mix[3] <= r):
        raise ValueError(f"no background photos in {backgrounds!r}")
    if r < mix[0]:
        scene = pasted_scene(rng, bgs[int(rng.integers(len(bgs)))])
        return scene.image, scene, "paste"
    if r < mix[1]:
        image, hard, _ = hard_scene(rng)
        return image, hard, "hard"
    if r < mix[2]:
        return augment_background(rng, bgs[int(rng.integers(len(bgs)))]), None, "bg"
    if r >= mix[4]:
        image, dark, _ = dark_scene(rng, bgs[int(rng.integers(len(bgs)))])
        return image, dark, "dark"
    if r >= mix[3]:
        image, cards, _ = card_scene(rng, bgs[int(rng.integers(len(bgs)))])
        return image, cards, "cards"
    on_photo = bool(bgs) and rng.random() < 0.6
    scene = closeup_scene(rng, bgs[int(rng.integers(len(bgs)))] if on_photo else None)
    return scene.image, scene, "closeup"


def _job(args):
    root, split, index, seed, bias, weights, share, surface_mix, backgrounds, views = args
    return write_scene(
        Path(root),
        split,
        index,
        seed,
        low_pip_bias=bias,
        set_weights=weights,
        layout_share=share,
        surface_mix=surface_mix,
        backgrounds=backgrounds,
        view_share=views[0],
        view_kinds=views[1],
    )


def write_obb_dataset(
    root: str | Path,
    n_train: int,
    n_val: int,
    seed: int = 0,
    processes: int = 1,
    low_pip_bias: float = 0.0,
    set_weights: tuple[float, float, float] | None = None,
    layout_share: float = 0.0,
    surface_mix: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0),
    backgrounds: str | Path | None = None,
    view_share: float = 0.0,
    view_kinds: tuple[str, ...] | None = None,
) -> dict:
    """Render a full dataset.

    Args:
        root: output folder (created).
        n_train, n_val: number of images per split (>= 0).
        seed: base seed; image ``i`` of split ``s`` uses a seed derived from (seed, s, i), so the
            same arguments give the same dataset.
        processes: worker processes.
        low_pip_bias: chance per scene of drawing low-pip tiles first (see
            :func:`vision.render.scene.random_placements`).
        set_weights: chances of double-6 / 9 / 12 sets (None: the renderer's 0.6 / 0.25 / 0.15).
        layout_share: chance per image of a rendered game position instead of a random scene
            (:func:`vision.render.layouts.random_layout_scene`); 0 keeps older datasets identical.
        surface_mix: chances per image of tiles pasted on a background photo, a procedural hard
            surface, a background photo alone, a close-up, printed cards, dark objects
            (:func:`write_scene`; three to six shares); all 0 keeps older datasets identical.
        backgrounds: folder of background photos without dominoes (for ``surface_mix``).
        view_share: chance per image (of those not drawn by ``surface_mix``) of a hard view
            (:func:`vision.render.views.view_scene`); 0 keeps older datasets identical.
        view_kinds: the kinds of hard view to draw from (None: all of
            :data:`vision.render.views.VIEW_KINDS`).
    Returns:
        Summary dict (counts of images and labels per split), also written to ``summary.json``.
    Raises:
        ValueError: negative counts, a ``surface_mix`` of other than 3 to 6 shares, below 0 or
            summing to more than 1, a ``view_share`` outside 0..1 or an unknown view kind.
    """
    from .views import VIEW_KINDS

    if n_train < 0 or n_val < 0:
        raise ValueError("image counts must be >= 0")
    if not 0 <= view_share <= 1:
        raise ValueError(f"view_share {view_share} must be within 0..1")
    for k in view_kinds or ():
        if k not in VIEW_KINDS:
            raise ValueError(f"unknown view kind {k!r}; use some of {VIEW_KINDS}")
    if len(surface_mix) not in (3, 4, 5, 6) or min(surface_mix) < 0 or sum(surface_mix) > 1:
        raise ValueError(f"surface_mix {surface_mix}: shares must be >= 0 and sum to <= 1")
    root = Path(root)
    jobs = []
    for split, n, salt in (("train", n_train, 1), ("val", n_val, 2)):
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)
        jobs += [
            (
                str(root),
                split,
                i,
                int(seed) * 1_000_003 + salt * 10_000_019 + i,
                low_pip_bias,
                None if set_weights is None else tuple(set_weights),
                float(layout_share),
                tuple(float(v) for v in surface_mix),
                None if backgrounds is None else str(backgrounds),
                (float(view_share), None if not view_kinds else tuple(view_kinds)),
            )
            for i in range(n)
        ]
    if processes > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(processes) as pool:
            rows = pool.map(_job, jobs, chunksize=8)
    else:
        rows = [_job(j) for j in jobs]
    with open(root / "manifest.jsonl", "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    tr = rows[:n_train]
    summary = {
        "train_images": n_train,
        "val_images": n_val,
        "train_labels": int(sum(r["labels"] for r in tr)),
        "train_face_down_labels": int(sum(r["face_down"] for r in tr)),
        "val_labels": int(sum(r["labels"] for r in rows[n_train:])),
        "train_kinds": {
            k: sum(1 for r in tr if r["kind"] == k) for k in sorted({r["kind"] for r in tr})
        },
        "train_families": {
            k: sum(1 for r in tr if r["family"] == k) for k in sorted({r["family"] for r in tr})
        },
        "train_sets": {f"double-{k}": sum(1 for r in tr if r["max_pip"] == k) for k in (6, 9, 12)},
        "seed": seed,
        "low_pip_bias": low_pip_bias,
        "layout_share": layout_share,
        "surface_mix": list(surface_mix),
        "view_share": view_share,
        "view_kinds": list(view_kinds or VIEW_KINDS) if view_share > 0 else [],
        "set_weights": None if set_weights is None else list(set_weights),
        "classes": CLASS_NAMES,
    }
    (root / "data.yaml").write_text(
        f"path: {root.resolve()}\ntrain: images/train\nval: images/val\nnames:\n"
        + "".join(f"  {k}: {v}\n" for k, v in CLASS_NAMES.items())
    )
    (root / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary
