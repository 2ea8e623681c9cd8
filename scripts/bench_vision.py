#!/usr/bin/env python
"""Benchmark of the vision pipeline (detector + pip counter): accuracy and speed.

    nice -n 10 .venv/bin/python scripts/bench_vision.py [--n 30] [--timing 30] [--scale 1|2] [--seed0 S] [--model M] [--json OUT]
        [--real-only] [--no-real] [--kinds all|KIND,...] [--n-kinds N] [--without FILTER ...] [--with FILTER ...] [--set MODULE.NAME=VALUE ...]
        [--tree DIR]

``--without`` / ``--with`` switch box filters of ``vision.filters.BOX_FILTERS`` off / on
(ablations); ``--set`` changes a module constant of the pipeline for the run (a speed/accuracy
trade-off measured against today's setting, e.g. ``--set vision.verifier.VIEWS=1``). ``--tree DIR`` measures the ``vision`` package of another source tree (an older
commit: ``git archive COMMIT | tar -x -C DIR``) with this benchmark, for before/after timings.

Parts:

0. Real photos scored with the shared scorer's rules (``--photos``' ``labels.json``; the scorer
   ``score_real_photos.py`` is imported from ``tools/`` beside the photos folder or ``--scorer``):
   recall, precision, false boxes per photo and photos exact, in total and by kind, at full size
   and scaled to 1280 px on the long side.
1. Rendered validation set (``vision.render.random_scene``, seeds ``10_000_000 + 100_000 * max_pip
   + k``, disjoint from training seeds), per set size double-6/9/12, ``--n`` images each:
   tile recall at rotated IoU >= 0.5 (ground-truth tiles at least 60% visible), face-up/down
   correct among matched tiles, exact value accuracy (pips on the right halves) among matched
   face-up tiles at least 98% visible and wholly in frame (all, and those at least 30 px wide),
   and the pip counter alone on the ground-truth boxes. ``--scale 2`` renders the same scenes
   at 1280x960 (1280x1280, 960x1280): the photo size the phone page sends (it shrinks photos to
   at most 1600 px) and the size of part 3; the default renders them at 640 px.
1b. (``--kinds``) the hard views of ``vision.render.views`` (coloured bodies, low angles,
   close-ups, glare, crosswise doubles, hands, small web images, coloured backs), ``--n-kinds``
   (default ``--n``) scenes per kind, seeds ``seed0 + 60_000_000 + 100_000 * kind index + k``:
   measured as part 1, plus the recall of face-down tiles and where each missed tile went
   (``missed_dropped_on_tile``: a box on it, IoU >= 0.7, that a filter such as the verifier
   dropped; ``missed_dropped_loose``: a dropped box at IoU 0.5-0.7, e.g. across two tiles of
   a row; ``missed_not_boxed``: no box). ``--scale 2`` renders them at
   1280 px too, but for ``small`` (400-640 px web images).
2. Real photos with labelled boxes (``--photos``, default ``../shared/real_photos`` beside the
   repository, else sample_images): face-up tiles
   read correctly per labelled box (``*.boxes.txt``; a detection matches a box at axis-aligned IoU
   >= 0.5 of its hull, and its value must be one of the photo's labelled values, each used once),
   the looser value-multiset match per photo, extra face-up detections, face-down tiles reported
   face down (labels give only their number), and the pip counter alone on the labelled boxes.
3. Time per photo: ``detect()`` in-process, models loaded once, on the real photos scaled to
   1280 px on the long side (and four rendered 1280x960 scenes), and on the real photos at full
   size; median and p95 ms over ``--timing`` calls each.
   Also the median CPU time of the process per call (less sensitive to other jobs than the
   wall time) and the load average before and after (``os.getloadavg``): a figure taken with a
   load average above the core count is pessimistic. ``--stages`` adds the mean ms per call of
   each stage (detector passes 1 and 2, verifier, pip reader, the rest) and the number of calls
   that ran the second detector pass.
4. (``--turned``) the real photos turned by 0, 37, 90, 180 and 233 degrees at 640, 1280 and 1600
   px on the long side: values read, values read that the photo does not hold, extra backs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _tree_argument(argv: list[str]) -> str | None:
    """The value of ``--tree`` in ``argv`` (read before ``vision`` is imported), or None."""
    for i, a in enumerate(argv):
        if a == "--tree" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--tree="):
            return a.split("=", 1)[1]
    return None


#: ``--tree DIR``: the ``vision`` package (and its models) of another source tree, e.g. an older
#: commit from ``git archive``, measured with this benchmark (``--timing``)
TREE = _tree_argument(sys.argv[1:]) if __name__ == "__main__" else None
if TREE:
    sys.path.insert(0, str(Path(TREE).resolve()))

from vision.pipeline import detect, load_image  # noqa: E402
from vision.pips import read_tile  # noqa: E402
from vision.types import TileDetection  # noqa: E402

VAL_SEED0 = 10_000_000
#: ``--kinds`` scenes start at ``seed0`` plus this (70_000_000 for the validation seeds)
VIEW_SEED_OFFSET = 60_000_000


def poly_iou(a: np.ndarray, b: np.ndarray) -> float:
    """IoU of two convex quadrilaterals ``(4, 2)`` (pixels)."""
    a = np.asarray(a, np.float32).reshape(4, 2)
    b = np.asarray(b, np.float32).reshape(4, 2)
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = abs(cv2.contourArea(a)) + abs(cv2.contourArea(b)) - inter
    return float(inter / union) if union > 0 else 0.0


def match(
    gt: list[np.ndarray], pred: list[np.ndarray], iou_min: float = 0.5, iou=poly_iou
) -> dict[int, int]:
    """Greedy one-to-one matching by IoU: ``{gt index: pred index}`` for pairs with IoU >= ``iou_min``."""
    pairs = sorted(
        ((iou(g, p), i, j) for i, g in enumerate(gt) for j, p in enumerate(pred)), reverse=True
    )
    out: dict[int, int] = {}
    used: set[int] = set()
    for v, i, j in pairs:
        if v < iou_min:
            break
        if i not in out and j not in used:
            out[i] = j
            used.add(j)
    return out


def oriented_pips(gt: TileDetection, pred: TileDetection) -> tuple[int, int] | None:
    """``pred.pips`` reordered so entry i lies on ``gt.halves[i]`` (None when unread)."""
    if pred.pips is None:
        return None
    d_same = np.linalg.norm(gt.halves - pred.halves, axis=1).sum()
    d_swap = np.linalg.norm(gt.halves - pred.halves[::-1], axis=1).sum()
    return tuple(pred.pips) if d_same <= d_swap else (pred.pips[1], pred.pips[0])


def in_frame(c: np.ndarray, w: int, h: int) -> bool:
    return bool(
        (c[:, 0] >= 0).all()
        and (c[:, 1] >= 0).all()
        and (c[:, 0] < w).all()
        and (c[:, 1] < h).all()
    )


def score_scene(scene, model: str | None, conf: float, c: Counter) -> None:
    """Detect one rendered scene and add its counts to ``c`` (part 1's measures: tiles at least
    60% visible, matched at rotated IoU >= 0.5; values of matched face-up tiles at least 98%
    visible and wholly in frame; the pip counter alone on the true boxes)."""
    h, w = scene.image.shape[:2]
    gts = [(g, v) for g, v in zip(scene.labels, scene.visible) if v >= 0.6]
    gone: list[TileDetection] = []
    tiles = detect(scene.image, model=model, conf_threshold=conf, dropped=gone)
    m = match([g.corners for g, _ in gts], [t.corners for t in tiles])
    # where each missed tile went: a box a filter dropped (on the tile, IoU >= 0.7, or loose,
    # IoU 0.5-0.7: e.g. across two tiles of a row), or no box at all
    missed = [i for i in range(len(gts)) if i not in m]
    md = match([gts[i][0].corners for i in missed], [t.corners for t in gone])
    for a, j in md.items():
        tight = poly_iou(gts[missed[a]][0].corners, gone[j].corners) >= 0.7
        c["miss_dropped_tight" if tight else "miss_dropped_loose"] += 1
    c["miss_not_boxed"] += len(missed) - len(md)
    c["gt"] += len(gts)
    c["gt_down"] += sum(1 for g, _ in gts if g.face_down)
    c["found"] += len(m)
    c["pred"] += len(tiles)
    for i, j in m.items():
        g, v = gts[i]
        t = tiles[j]
        c["side_ok"] += int(g.face_down == t.face_down)
        c["found_down"] += int(g.face_down)
        if not g.face_down and v >= 0.98 and in_frame(g.corners, w, h):
            right = int(oriented_pips(g, t) == tuple(g.pips))
            c["val_n"] += 1
            c["val_ok"] += right
            if g.size[1] >= 30:
                c["val30_n"] += 1
                c["val30_ok"] += right
            c["unread"] += int(t.pips is None and not t.face_down)
    for g, v in gts:  # pip counter alone on the true boxes
        if not g.face_down and v >= 0.98 and in_frame(g.corners, w, h):
            r = read_tile(scene.image, g.corners)
            c["gtbox_n"] += 1
            c["gtbox_ok"] += int(r.pips == tuple(g.pips))
            if g.size[1] >= 30:
                c["gtbox30_n"] += 1
                c["gtbox30_ok"] += int(r.pips == tuple(g.pips))


def rendered_figures(c: Counter, n: int) -> dict:
    """Part 1's figures from the counts of :func:`score_scene` over ``n`` images."""
    return {
        "images": n,
        "gt_tiles": c["gt"],
        "recall": round(c["found"] / max(c["gt"], 1), 4),
        "precision": round(c["found"] / max(c["pred"], 1), 4),
        "face_down_tiles": c["gt_down"],
        "face_down_recall": round(c["found_down"] / max(c["gt_down"], 1), 4),
        "face_side_ok": round(c["side_ok"] / max(c["found"], 1), 4),
        "value_tiles": c["val_n"],
        "value_accuracy": round(c["val_ok"] / max(c["val_n"], 1), 4),
        "value_tiles_30px": c["val30_n"],
        "value_accuracy_30px": round(c["val30_ok"] / max(c["val30_n"], 1), 4),
        "unreadable": c["unread"],
        "pips_on_true_boxes": f"{c['gtbox_ok']}/{c['gtbox_n']}",
        "pips_on_true_boxes_accuracy": round(c["gtbox_ok"] / max(c["gtbox_n"], 1), 4),
        "pips_on_true_boxes_30px": f"{c['gtbox30_ok']}/{c['gtbox30_n']}",
        "missed_dropped_on_tile": c["miss_dropped_tight"],
        "missed_dropped_loose": c["miss_dropped_loose"],
        "missed_not_boxed": c["miss_not_boxed"],
    }


def bench_views(
    kinds: list[str],
    n: int,
    model: str | None,
    conf: float,
    seed0: int = VAL_SEED0,
    scale: float = 1.0,
) -> dict:
    """Part 1b (``--kinds``): the hard views of :mod:`vision.render.views` (coloured bodies, low
    angles, close-ups, glare, crosswise doubles, hands, small web images, coloured backs),
    ``n`` scenes per kind, seeds ``seed0 + VIEW_SEED_OFFSET + 100_000 * (index of the kind in
    VIEW_KINDS) + k`` (70_000_000+ for the default ``seed0``; a tuning run moves ``seed0``),
    set sizes mixed; measured as part 1 (:func:`score_scene`), plus face-down recall.

    Raises:
        ValueError: an unknown kind.
    """
    from vision.render.views import VIEW_KINDS, view_scene

    res = {}
    for kind in kinds:
        if kind not in VIEW_KINDS:
            raise ValueError(f"unknown view kind {kind!r}; use some of {VIEW_KINDS}")
        c: Counter = Counter()
        first = seed0 + VIEW_SEED_OFFSET + 100_000 * VIEW_KINDS.index(kind)
        for k in range(n):
            score_scene(view_scene(first + k, kind, scale=scale), model, conf, c)
        res[kind] = rendered_figures(c, n)
        print(f"view {kind}: {res[kind]}", flush=True)
    return res


def bench_rendered(
    n: int, model: str | None, conf: float, seed0: int = VAL_SEED0, scale: int = 1
) -> dict:
    """Part 1 (see the module docstring); ``seed0`` moves the scenes (a tuning set apart from
    the validation seeds); ``scale`` renders the same scenes (same seeds, tiles, camera and
    style) at ``scale`` times the base size of 640x640, 640x480 or 480x640 pixels, like a camera
    of that many times the resolution (2: 1280x960, the size of the timing part; the phone page
    sends photos of up to 1600 px)."""
    from vision.render import random_scene, random_style
    from vision.render.scene import DEFAULT_IMAGE_SIZES

    res = {}
    for mp in (6, 9, 12):
        c: Counter = Counter()
        for k in range(n):
            rng = np.random.default_rng(seed0 + 100_000 * mp + k)
            style = random_style(rng, max_pip=mp)
            base = DEFAULT_IMAGE_SIZES[
                int(rng.integers(len(DEFAULT_IMAGE_SIZES)))
            ]  # the draw random_scene would make
            scene = random_scene(rng, image_size=(base[0] * scale, base[1] * scale), style=style)
            score_scene(scene, model, conf, c)
        res[f"double-{mp}"] = rendered_figures(c, n)
        print(f"rendered double-{mp}: {res[f'double-{mp}']}", flush=True)
    return res


def real_boxes(photos: Path, name: str, w: int, h: int) -> list[np.ndarray]:
    """Corners ``(4, 2)`` of the labelled axis-aligned boxes of a photo (long side first)."""
    f = photos / (Path(name).stem + ".boxes.txt")
    out = []
    for line in f.read_text().splitlines() if f.exists() else []:
        v = line.split()
        if len(v) != 5:
            continue
        cx, cy, bw, bh = float(v[1]) * w, float(v[2]) * h, float(v[3]) * w, float(v[4]) * h
        x0, y0, x1, y1 = cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2
        if bh >= bw:
            out.append(np.array([[x0, y0], [x0, y1], [x1, y1], [x1, y0]], np.float32))
        else:
            out.append(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32))
    return out


def _aabb_iou(a: np.ndarray, b: np.ndarray) -> float:
    a0, a1, b0, b1 = a.min(0), a.max(0), b.min(0), b.max(0)
    iw, ih = (
        max(0.0, min(a1[0], b1[0]) - max(a0[0], b0[0])),
        max(0.0, min(a1[1], b1[1]) - max(a0[1], b0[1])),
    )
    inter = iw * ih
    union = np.prod(a1 - a0) + np.prod(b1 - b0) - inter
    return float(inter / union) if union > 0 else 0.0


def load_scorer(path: Path):
    """The shared scorer module (``score_real_photos.py``), imported from its file."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("score_real_photos", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def bench_real_scored(
    photos: Path, scorer: Path, model: str | None, conf: float, side: int | None = None
) -> dict:
    """Part 0: every photo of ``photos/labels.json`` detected in process and scored by the shared
    scorer's own ``score`` (the rules of ``score_real_photos.py``: values as multisets, unsure
    tiles neither right nor wrong, unread and surplus face-down boxes are false boxes), in total
    and by kind; ``side`` scales each photo to that long side first (None: full size).
    Also the median ``detect()`` time per photo (ms)."""
    mod = load_scorer(scorer)
    labels = json.loads((photos / "labels.json").read_text())["photos"]
    total, by_kind, times = Counter(), {}, []
    detect(np.full((64, 64, 3), 128, np.uint8), model=model, conf_threshold=conf)  # load the models
    for name, want in labels.items():
        kind = want.get("kind", "loose") if isinstance(want, dict) else "loose"
        img = load_image(photos / name)  # as the detect command reads it
        if side is not None:
            f = side / max(img.shape[:2])
            img = cv2.resize(
                img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_CUBIC
            )
        t0 = time.perf_counter()
        tiles = detect(img, model=model, conf_threshold=conf)
        times.append((time.perf_counter() - t0) * 1000)
        sc = mod.score(want, {"tiles": [t.to_json() for t in tiles]})
        total.update(sc)
        total["photos"] += 1
        by_kind.setdefault(kind, Counter()).update(sc)
        by_kind[kind]["photos"] += 1
        print(
            f"  {name} [{kind}]: tiles {sc['hit']}/{sc['gt']} wrong {sc['wrong']} unread {sc['unread']} "
            f"false boxes {sc['false_boxes']} face-down {sc['down_got']}/{sc['down_want']}",
            flush=True,
        )

    def figures(c: Counter) -> dict:
        return {
            "photos": c["photos"],
            "tiles": c["gt"],
            "recall": round(c["hit"] / c["gt"], 4) if c["gt"] else 1.0,
            "precision": round(c["hit"] / c["pred"], 4) if c["pred"] else 1.0,
            "false_boxes_per_photo": round(c["false_boxes"] / max(1, c["photos"]), 3),
            "false_boxes": c["false_boxes"],
            "photos_exact": f"{c['exact']}/{c['photos']}",
        }

    out = {
        "size": "full" if side is None else f"{side}px",
        **figures(total),
        "median_ms": round(float(np.median(times)), 1),
        "by_kind": {k: figures(c) for k, c in sorted(by_kind.items())},
    }
    print(f"real photos scored ({out['size']}): {out}", flush=True)
    return out


def bench_real(photos: Path, model: str | None, conf: float) -> dict:
    """Part 2 (see the module docstring): the photos with labelled boxes (``*.boxes.txt``)."""
    labels = json.loads((photos / "labels.json").read_text())["photos"]
    tot = Counter()
    per_photo = {}
    for name, lab in sorted(labels.items()):
        if not (photos / (Path(name).stem + ".boxes.txt")).exists():
            continue
        lab = lab if isinstance(lab, dict) else {"tiles": lab}
        lab = {"face_down": 0, **lab}
        img = cv2.imread(str(photos / name))
        h, w = img.shape[:2]
        tiles = detect(img, model=model, conf_threshold=conf)
        want = Counter(tuple(sorted(t)) for t in lab["tiles"])
        have = Counter(
            tuple(sorted(t.pips)) for t in tiles if not t.face_down and t.pips is not None
        )
        up_ok = sum((want & have).values())
        down = sum(1 for t in tiles if t.face_down)
        boxes = real_boxes(photos, name, w, h)
        m = match(boxes, [t.corners for t in tiles], 0.5, _aabb_iou)
        # labelled boxes carry no value order: compare per matched box by the photo's multiset
        # (each labelled value is used once)
        left = Counter(want)
        box_ok = 0
        for _i, j in sorted(m.items()):
            v = (
                None
                if tiles[j].pips is None or tiles[j].face_down
                else tuple(sorted(tiles[j].pips))
            )
            if v is not None and left[v] > 0:
                left[v] -= 1
                box_ok += 1
        unmatched_up = sum(
            1 for j, t in enumerate(tiles) if not t.face_down and j not in set(m.values())
        )
        counter_alone = Counter(
            tuple(sorted(r.pips)) for r in (read_tile(img, b) for b in boxes) if r.readable
        )
        alone_ok = sum((want & counter_alone).values())
        per_photo[name] = {
            "face_up": len(lab["tiles"]),
            "face_up_read": up_ok,
            "face_down": lab["face_down"],
            "reported_face_down": down,
            "boxes_found": f"{len(m)}/{len(boxes)}",
            "boxes_read": box_ok,
            "detections": len(tiles),
            "extra_face_up": unmatched_up,
            "counter_on_boxes": alone_ok,
            "values": [None if t.face_down else t.pips for t in tiles],
        }
        tot["up"] += len(lab["tiles"])
        tot["up_ok"] += up_ok
        tot["down"] += lab["face_down"]
        tot["down_ok"] += min(down, lab["face_down"])
        tot["extra_down"] += max(0, down - lab["face_down"])
        tot["boxes"] += len(boxes)
        tot["boxes_found"] += len(m)
        tot["alone_ok"] += alone_ok
        tot["boxes_read"] += box_ok
        tot["extra_up"] += unmatched_up
        print(f"real {name}: {per_photo[name]}", flush=True)
    summary = {
        "face_up_read_per_box": f"{tot['boxes_read']}/{tot['up']}",
        "face_up_read_multiset": f"{tot['up_ok']}/{tot['up']}",
        "extra_face_up": tot["extra_up"],
        "face_down_reported": f"{tot['down_ok']}/{tot['down']}",
        "extra_face_down": tot["extra_down"],
        "labelled_boxes_found": f"{tot['boxes_found']}/{tot['boxes']}",
        "pip_counter_on_labelled_boxes": f"{tot['alone_ok']}/{tot['up']}",
    }
    print(f"real photos: {summary}", flush=True)
    return {"summary": summary, "photos": per_photo}


def turn(image: np.ndarray, degrees: float, side: int) -> np.ndarray:
    """``image`` scaled to ``side`` px on its long side, turned by ``degrees`` on a canvas large
    enough for all of it (the corners filled with the median colour of the photo's rim), and
    scaled back to ``side`` px on the long side. ``(H, W, 3) uint8`` BGR in and out."""
    s = side / max(image.shape[:2])
    img = cv2.resize(
        image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC
    )
    h, w = img.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    c, sn = abs(M[0, 0]), abs(M[0, 1])
    W, H = int(h * sn + w * c), int(h * c + w * sn)
    M[0, 2] += W / 2 - w / 2
    M[1, 2] += H / 2 - h / 2
    rim = np.median(np.concatenate([img[0], img[-1], img[:, 0], img[:, -1]]), axis=0)
    img = cv2.warpAffine(
        img, M, (W, H), flags=cv2.INTER_LINEAR, borderValue=tuple(float(x) for x in rim)
    )
    if max(W, H) > side * 1.05:
        f = side / max(W, H)
        img = cv2.resize(img, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    return img


TURN_DEGREES = (0, 37, 90, 180, 233)
TURN_SIDES = (640, 1280, 1600)


def bench_real_turned(photos: Path, model: str | None, conf: float) -> dict:
    """Part 4 (``--turned``): every real photo at 640, 1280 and 1600 px on the long side, turned
    by 0, 37, 90, 180 and 233 degrees: face-up values read (the photo's value multiset), values
    read that the photo does not hold, and face-down boxes reported beyond the photo's count."""
    labels = json.loads((photos / "labels.json").read_text())["photos"]
    res = {}
    for side in TURN_SIDES:
        c = Counter()
        for name, lab in sorted(labels.items()):
            img0 = cv2.imread(str(photos / name))
            want = Counter(tuple(sorted(t)) for t in lab["tiles"])
            for deg in TURN_DEGREES:
                tiles = detect(turn(img0, deg, side), model=model, conf_threshold=conf)
                have = Counter(
                    tuple(sorted(t.pips)) for t in tiles if not t.face_down and t.pips is not None
                )
                down = sum(t.face_down for t in tiles)
                c["up"] += len(lab["tiles"])
                c["up_ok"] += sum((want & have).values())
                c["extra_up"] += sum((have - want).values())
                c["down"] += lab["face_down"]
                c["down_ok"] += min(down, lab["face_down"])
                c["extra_down"] += max(0, down - lab["face_down"])
        res[f"{side}px"] = {
            "face_up_read": f"{c['up_ok']}/{c['up']}",
            "extra_values": c["extra_up"],
            "face_down_reported": f"{c['down_ok']}/{c['down']}",
            "extra_face_down": c["extra_down"],
        }
        print(f"real photos turned, {side} px: {res[f'{side}px']}", flush=True)
    return res


def _stage_timers() -> dict[str, float]:
    """Wrap the stages of ``vision.pipeline.detect`` (each detector pass with its letterbox and
    NMS, the verifier, the pip reader) with timers; returns the dict they add their ms to
    (cleared by the caller before each call). Whatever is left of a call (the 1280 px copy of
    a larger photo, box records, filters) is "other"."""
    from vision import pipeline
    from vision.detector.onnx_model import TileDetector

    spent: dict[str, float] = {}

    def timed(fn, name=None):
        def run(*a, **k):
            key = name or (
                "detector_pass_1" if "detector_pass_1" not in spent else "detector_pass_2"
            )
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent[key] = spent.get(key, 0.0) + (time.perf_counter() - t0) * 1000

        return run

    TileDetector._run = timed(TileDetector._run)  # type: ignore[method-assign]
    pipeline.verify = timed(pipeline.verify, "verifier")  # type: ignore[assignment]
    pipeline.read_pips = timed(pipeline.read_pips, "pips")  # type: ignore[assignment]
    return spent


def bench_timing(
    photos: Path, calls: int, model: str | None, conf: float, stages: bool = False
) -> dict:
    """Part 3 (see the module docstring): ``detect()`` in process, models loaded once, on every
    real photo scaled to 1280 px on its long side plus four rendered 1280x960 scenes, and on the
    real photos at full size; median and p95 ms over ``calls`` calls each. ``stages``: also the
    mean ms per call of each stage (:func:`_stage_timers`) and how many calls ran a second
    detector pass."""
    from vision.render import random_scene

    files = sorted(p for p in photos.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
    full = [cv2.imread(str(p), cv2.IMREAD_COLOR) for p in files]
    scaled = [
        cv2.resize(
            im,
            None,
            fx=1280 / max(im.shape[:2]),
            fy=1280 / max(im.shape[:2]),
            interpolation=cv2.INTER_AREA if max(im.shape[:2]) > 1280 else cv2.INTER_CUBIC,
        )
        for im in full
    ]
    scaled += [
        random_scene(np.random.default_rng(VAL_SEED0 + 900_000 + k), image_size=(1280, 960)).image
        for k in range(4)
    ]
    detect(scaled[0], model=model, conf_threshold=conf)  # load + warm up
    out: dict = {"load_average_before": round(os.getloadavg()[0], 2)}
    spent = _stage_timers() if stages else None
    for label, imgs in (("1280px", scaled), ("full_size", full)):
        times, cpu, per_stage = [], [], []
        for k in range(calls):
            img = imgs[k % len(imgs)]
            if spent is not None:
                spent.clear()
            t0, c0 = time.perf_counter(), time.process_time()
            detect(img, model=model, conf_threshold=conf)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            if spent is not None:
                per_stage.append({**spent, "other": times[-1] - sum(spent.values())})
        out[label] = {
            "calls": calls,
            "images": len(imgs),
            "median_ms": round(float(np.median(times)), 1),
            "p95_ms": round(float(np.percentile(times, 95)), 1),
            "cpu_median_ms": round(float(np.median(cpu)), 1),
        }
        if per_stage:
            names = ("detector_pass_1", "detector_pass_2", "verifier", "pips", "other")
            out[label]["stages_mean_ms"] = {
                n: round(float(np.mean([s.get(n, 0.0) for s in per_stage])), 1) for n in names
            }
            out[label]["second_passes"] = sum("detector_pass_2" in s for s in per_stage)
    out["load_average_after"] = round(os.getloadavg()[0], 2)
    out["full_size"]["long_sides_px"] = sorted(int(max(im.shape[:2])) for im in full)
    print(f"timing: {out}", flush=True)
    return out


def apply_settings(settings: list[str]) -> dict[str, object]:
    """``--set MODULE.NAME=VALUE``: set each module constant (``VALUE`` a Python literal of the
    constant's own type) and return ``{MODULE.NAME: VALUE}``.

    Raises:
        SystemExit: no such module or constant, a value that is not a literal, or of another type.
    """
    import ast
    import importlib

    done: dict[str, object] = {}
    for item in settings:
        target, sep, text = item.partition("=")
        module, _, name = target.rpartition(".")
        try:
            mod = importlib.import_module(module) if sep and module else None
            value = ast.literal_eval(text)
        except (ImportError, ValueError, SyntaxError) as exc:
            raise SystemExit(f"--set {item}: {exc}") from None
        if mod is None or not hasattr(mod, name):
            raise SystemExit(f"--set {item}: no constant {name!r} in {module or '?'}")
        old = getattr(mod, name)
        if isinstance(old, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not type(old):
            raise SystemExit(f"--set {item}: {target} is a {type(old).__name__}")
        setattr(mod, name, value)
        done[target] = value
    return done


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=30, help="rendered images per set size (0: skip)")
    ap.add_argument("--timing", type=int, default=30, help="timed detect() calls (0: skip)")
    ap.add_argument("--model", default=None, help="ONNX detector (default models/tiles-obb.onnx)")
    ap.add_argument("--conf", type=float, default=0.25, help="detector confidence threshold")
    ap.add_argument(
        "--seed0",
        type=int,
        default=VAL_SEED0,
        help="first rendered seed (default: the validation seeds; another value gives a tuning set)",
    )
    default_photos = ROOT.parent / "shared" / "real_photos"
    ap.add_argument(
        "--scale",
        type=int,
        default=1,
        help="render the rendered scenes at this multiple of 640 px (2: 1280x960)",
    )
    ap.add_argument(
        "--photos",
        type=Path,
        default=default_photos if default_photos.exists() else ROOT / "sample_images",
    )
    ap.add_argument(
        "--scorer",
        type=Path,
        default=None,
        help="the shared scorer score_real_photos.py (default: tools/ beside the photos folder)",
    )
    ap.add_argument("--real-only", action="store_true", help="only the real-photo parts")
    ap.add_argument(
        "--kinds",
        default=None,
        help="also the hard views of vision.render.views, comma-separated kinds or 'all' "
        "(low-angle,coloured,close-up,glare,crosswise,hand,small,backs), --n scenes per kind "
        "(--n-kinds to change it), seeds from --seed0 + 60_000_000",
    )
    ap.add_argument("--n-kinds", type=int, default=None, help="scenes per hard-view kind")
    ap.add_argument("--no-real", action="store_true", help="skip the real-photo parts (0 and 2)")
    ap.add_argument(
        "--stages",
        action="store_true",
        help="timing: also the mean ms of each stage per call (detector passes, verifier, pips)",
    )
    ap.add_argument(
        "--turned",
        action="store_true",
        help="also the real photos turned by 0/37/90/180/233 degrees at 640/1280/1600 px",
    )
    ap.add_argument("--json", type=Path, default=None, help="write the results as JSON here")
    ap.add_argument(
        "--without",
        nargs="+",
        default=[],
        metavar="FILTER",
        help="switch these box filters off (names in vision.filters.BOX_FILTERS): ablations",
    )
    ap.add_argument(
        "--with",
        dest="with_",
        nargs="+",
        default=[],
        metavar="FILTER",
        help="switch these box filters on (those the table has off): ablations",
    )
    ap.add_argument(
        "--set",
        dest="settings",
        nargs="+",
        default=[],
        metavar="MODULE.NAME=VALUE",
        help="set a module constant for this run (a Python literal of the constant's type), "
        "e.g. vision.verifier.VIEWS=1: ablations",
    )
    ap.add_argument(
        "--tree",
        default=None,
        help="import vision (and its models) from this source tree instead, e.g. an older commit "
        "unpacked with git archive (for --timing comparisons; box filter options need today's)",
    )
    args = ap.parse_args(argv)
    import vision

    if args.without or args.with_:
        from vision import filters

        for name in args.without + args.with_:
            filters.enabled(name)  # KeyError for an unknown name
        filters.DISABLED.update(args.without)
        filters.DISABLED.difference_update(args.with_)
    settings = apply_settings(args.settings)
    import onnxruntime

    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "onnxruntime": onnxruntime.__version__,
        "conf": args.conf,
        "vision": str(Path(vision.__file__).resolve().parent),
        "settings": settings,
    }
    try:
        from vision import filters

        result["filters_off"] = sorted(filters.DISABLED)
    except ImportError:  # an older tree (--tree) without vision.filters
        pass
    scorer = args.scorer or args.photos.parent / "tools" / "score_real_photos.py"
    if args.no_real:
        pass
    elif scorer.is_file() and (args.photos / "labels.json").is_file():
        result["real_scored"] = bench_real_scored(args.photos, scorer, args.model, args.conf)
        result["real_scored_1280"] = bench_real_scored(
            args.photos, scorer, args.model, args.conf, side=1280
        )
    else:
        print(
            f"no shared scorer at {scorer}: real-photo scores skipped (give --scorer)", flush=True
        )
    if not args.no_real:
        result["real"] = bench_real(args.photos, args.model, args.conf)
    if args.turned:
        result["real_turned"] = bench_real_turned(args.photos, args.model, args.conf)
    if args.n > 0 and not args.real_only:
        result["rendered"] = bench_rendered(args.n, args.model, args.conf, args.seed0, args.scale)
    if args.kinds and not args.real_only:
        from vision.render.views import VIEW_KINDS

        kinds = list(VIEW_KINDS) if args.kinds == "all" else args.kinds.split(",")
        n_kinds = args.n if args.n_kinds is None else args.n_kinds
        result["views"] = bench_views(kinds, n_kinds, args.model, args.conf, args.seed0, args.scale)
    if args.timing > 0 and not args.real_only:
        result["timing"] = bench_timing(
            args.photos, args.timing, args.model, args.conf, args.stages
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
