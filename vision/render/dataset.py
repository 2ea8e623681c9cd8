"""Writing rendered scenes as an ultralytics OBB dataset.

Layout: ``<root>/images/{train,val}/NNNNNN.jpg``, ``<root>/labels/{train,val}/NNNNNN.txt`` with
one line per tile ``class x1 y1 x2 y2 x3 y3 x4 y4`` (corners normalised to [0, 1] by image
width/height), and ``<root>/data.yaml``. Classes: 0 = tile face up, 1 = tile face down.
"""

from __future__ import annotations

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
) -> dict:
    """Render scene ``seed`` and write image + label file (``low_pip_bias``, ``set_weights``:
    see :func:`vision.render.scene.random_scene`). With chance ``layout_share`` the scene is a
    game position instead (:func:`vision.render.layouts.random_layout_scene`; 640x480 or 480x640).

    Returns:
        A manifest row: image name, split, seed, scene kind, style family, set, label count.
    """
    rng = np.random.default_rng(seed)
    if layout_share > 0 and rng.random() < layout_share:
        from .layouts import random_layout_scene

        size = (640, 480) if rng.random() < 0.6 else (480, 640)
        scene = random_layout_scene(rng, size)
    else:
        scene = random_scene(rng, low_pip_bias=low_pip_bias, set_weights=set_weights)
    name = f"{index:06d}"
    cv2.imwrite(
        str(root / "images" / split / f"{name}.jpg"),
        scene.image,
        [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality],
    )
    lines = obb_label_lines(scene)
    (root / "labels" / split / f"{name}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))
    return {
        "image": f"{split}/{name}.jpg",
        "seed": seed,
        "kind": scene.kind,
        "family": scene.style.family,
        "max_pip": scene.style.max_pip,
        "labels": len(lines),
        "face_down": sum(1 for ln in lines if ln.startswith("1 ")),
    }


def _job(args):
    root, split, index, seed, bias, weights, share = args
    return write_scene(
        Path(root), split, index, seed, low_pip_bias=bias, set_weights=weights, layout_share=share
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
    Returns:
        Summary dict (counts of images and labels per split), also written to ``summary.json``.
    Raises:
        ValueError: negative counts.
    """
    if n_train < 0 or n_val < 0:
        raise ValueError("image counts must be >= 0")
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
        "set_weights": None if set_weights is None else list(set_weights),
        "classes": CLASS_NAMES,
    }
    (root / "data.yaml").write_text(
        f"path: {root.resolve()}\ntrain: images/train\nval: images/val\nnames:\n"
        + "".join(f"  {k}: {v}\n" for k, v in CLASS_NAMES.items())
    )
    (root / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary
