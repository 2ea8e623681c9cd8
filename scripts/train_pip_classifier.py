#!/usr/bin/env python
"""Train the half classifier (pips 0..12 on one half) on rendered tiles -> models/pip-halves.onnx.

The committed model (2026-11-27, issue 35) is the sharp-light model below fine-tuned on halves
cut from the boxes the committed detector itself returns on low-angle and close-up renders (the
box takes in the tile's side seen from 20-35 degrees, so the halves are off the top face), plus
backs, glare and hands, mixed with a quarter of the older data (~7-9 min per 100 scenes on the
busy 2-core CPU, 25 min of training):

    for k in 0 1; do nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard $k \
        --scenes 0 --layouts 0 --det-views 200; done  # low-angle, close-up
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 2 --scenes 0 \
        --layouts 0 --det-views 60 --det-kinds backs glare hand
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 9 --scenes 0 \
        --layouts 0 --det-views 50  # held out
    cp models/pip-halves.onnx /tmp/pip-halves-sharp-light.onnx  # the model it starts from
    nice -n 10 .venv-train/bin/python scripts/train_pip_classifier.py train --shards 0 2 \
        --light-shards 0 1 --view-shards 0 1 --det-shards 0 1 2 --keep 0.25 --val-shard 9 \
        --val-light-shard 9 --val-det-shard 9 --init /tmp/pip-halves-sharp-light.onnx \
        --epochs 3 --every-epoch --lr 1e-3 --threads 2

(``--det-views N`` renders ``N`` hard views of each ``--det-kinds`` kind, seeds ``36_000_000 +
100_000 * shard + 10_000 * kind + k`` of :func:`vision.render.views.view_scene`, apart from
``bench_vision``'s ``70_000_000+`` and ``80_000_000+``; ``bench_pip_light``'s report seeds
have the same numbers but draw another kind of scene, ``light_scene``;
:func:`detector_box_rows` says how they are read and labelled.) The sharp-light model is a fine-tune of the 2026-11-21 model on sharp
light (2026-11-27, issues 34/35: cast-shadow edges and highlight bands across blank and
non-blank halves) and small web images (4-14 min per data shard, 14 min of training):

    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 0 --scenes 500 --layouts 50
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 2 --scenes 400 --layouts 40
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 9 --scenes 200 --layouts 20  # held out
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 0 --scenes 0 --layouts 0 --light 450
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 1 --scenes 0 --layouts 0 --light 450
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 9 --scenes 0 --layouts 0 --light 150  # held out
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 0 --scenes 0 --layouts 0 --views 250
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 1 --scenes 0 --layouts 0 --views 250
    cp models/pip-halves.onnx /tmp/pip-halves-2026-11-21.onnx  # the model it starts from
    nice -n 10 .venv-train/bin/python scripts/train_pip_classifier.py train --shards 0 2 \
        --light-shards 0 1 --view-shards 0 1 --val-shard 9 --val-light-shard 9 \
        --init /tmp/pip-halves-2026-11-21.onnx --epochs 4 --lr 1e-3

(``--scenes 500`` renders the first 500 scenes of the original shard 0, the same seeds; the light
shards are :func:`vision.render.lighting.light_scene` with seeds ``34_000_000 + 100_000 * shard
+ k``, the view shards ``small`` hard views with seeds ``35_000_000 + 100_000 * shard + k``;
``--init`` starts from an exported model, :func:`load_onnx`.) The model it starts from was
made with (2026-11-21, ~15-23 min per data shard and ~20 min of training):

    # 1. data (numpy + OpenCV only; any venv), shards in parallel:
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 0 --scenes 1500 --layouts 150
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 2 --scenes 1500 --layouts 150
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 4 --scenes 1500 --layouts 150
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 6 --scenes 900 --layouts 0 --sets 9 12 12
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py data --shard 9 --scenes 600 --layouts 60  # held out
    # 2. training (torch, CPU, one thread):
    nice -n 10 .venv/bin/python scripts/train_pip_classifier.py train --shards 0 2 4 6 --epochs 6

Data (``data``): rendered scenes ``vision.render.random_scene`` with seeds ``32_000_000 +
100_000 * shard + k`` (a third of them double-9 and double-12 sets) and rendered game layouts
(``vision.render.layouts.render_layout``, ``random.Random(33_000_000 + 100_000 * shard + k)``):
disjoint from the detector's training seeds, from the benchmarks' validation seeds
(``bench_vision``: ``10_000_000+``; ``bench_layout``: ``100_003 * seed + i``) and from the real
photos. Every face-up tile at least 98% visible and in frame is read like at run time
(:func:`vision.pips.counter.read_tile`'s steps: the box and the box snapped to the body colour,
box refinement, divider re-centring) from its true box (30%) or the true box jittered like a
detector's and a little more (70%: 4% size, 3% shift along, 2% across, 3 degrees); each reading
gives one sample: the two halves as ``(2, 4, 32, 32)`` inputs
(:func:`vision.pips.classifier.half_inputs`), the true pips, the classical count, the tile's width
in pixels and its set. Shard ``--val-shard`` (9) is the held-out set (epoch reports, and choosing
the combination rule in :func:`vision.pips.counter.read_tile`).

Network (``train``): five 3x3 conv layers (16-32-32-64-64 channels, batch norm, ReLU, two max
pools) on the 4x32x32 half, 2x2 average pool, linear 256 -> 64 -> 13; cross-entropy (label
smoothing 0.02), AdamW, one-cycle learning rate, batches of 128, left-right mirror and 10%
per-channel contrast augmentation. Exported to ONNX (opset 12); the runtime
(onnxruntime, no torch) is :mod:`vision.pips.classifier`.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SCENE_SEED0 = 32_000_000
LAYOUT_SEED0 = 33_000_000
LIGHT_SEED0 = 34_000_000
VIEW_SEED0 = 35_000_000
DETBOX_SEED0 = 36_000_000
DATA_DIR = ROOT / "data" / "pip-halves"
FAMILY_INDEX = {"ivory": 0, "coloured": 1, "white_on_black": 2, "raised_colour": 3, "wood": 4}


def jitter_box(
    corners: np.ndarray,
    rng: np.random.Generator,
    size: float = 0.04,
    along: float = 0.03,
    across: float = 0.02,
    angle_deg: float = 3.0,
) -> np.ndarray:
    """A true box ``(4, 2)`` moved, scaled and turned a little, like a detector's box (standard
    deviations: ``size`` relative, ``along``/``across`` as fractions of the length/width,
    ``angle_deg`` degrees)."""
    c = np.asarray(corners, np.float64)
    ctr = c.mean(0)
    u = (c[1] - c[0] + c[2] - c[3]) / 2
    v = (c[3] - c[0] + c[2] - c[1]) / 2
    length, wid = float(np.linalg.norm(u)), float(np.linalg.norm(v))
    uu, vv = u / max(length, 1e-9), v / max(wid, 1e-9)
    a = np.deg2rad(rng.normal(0, angle_deg))
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    s = 1 + rng.normal(0, size, 2)
    d = c - ctr
    loc = np.stack([d @ uu * s[0], d @ vv * s[1]], 1)
    shift = uu * rng.normal(0, along) * length + vv * rng.normal(0, across) * wid
    out = ctr + shift + (loc[:, :1] * uu + loc[:, 1:] * vv) @ R.T
    return out.astype(np.float32)


def tile_samples(image: np.ndarray, corners: np.ndarray) -> list[dict]:
    """The readings :func:`vision.pips.counter.read_tile` makes of one box (the snapped box, when
    it differs, and the box itself), each with its classifier input and classical count."""
    from vision.pips.classifier import half_inputs
    from vision.pips.counter import read_classical, snap_box

    snapped = snap_box(image, corners)
    boxes = [np.asarray(corners, np.float32)]
    if not np.allclose(snapped, boxes[0], atol=0.5):
        boxes.insert(0, snapped)
    out = []
    for k, box in enumerate(boxes):
        r = read_classical(image, box, snap=False)
        out.append(
            dict(
                x=half_inputs(r.rect, r.divider_pos).astype(np.float16),
                classical=tuple(-1 if p is None else int(p) for p in r.pips),
                cconf=float(r.confidence),
                snapped=int(len(boxes) == 2 and k == 0),
                nbox=len(boxes),
            )
        )
    return out


def _scene_tiles(image, labels, visible, rng, max_pip, family, source, tile_id0):
    h, w = image.shape[:2]
    rows = []
    tid = tile_id0
    for g, v in zip(labels, visible):
        c = g.corners
        if g.face_down or v < 0.98 or (c < 0).any() or (c[:, 0] >= w).any() or (c[:, 1] >= h).any():
            continue
        jit = rng.random() < 0.7
        box = jitter_box(c, rng) if jit else c
        for s in tile_samples(image, box):
            s.update(
                y=tuple(int(p) for p in g.pips),
                width=float(g.size[1]),
                max_pip=max_pip,
                family=family,
                source=source,
                jitter=int(jit),
                tile=tid,
            )
            rows.append(s)
        tid += 1
    return rows, tid


def detector_box_rows(scene, rng, source: int, tid: int) -> tuple[list[dict], int]:
    """Samples of one rendered scene read from the boxes the detector itself returns.

    The scene goes through :func:`vision.pipeline.detect` (the committed detector, verifier and
    box filters); each returned box matched to a face-up labelled tile (rotated IoU >= 0.5,
    greedy, the benchmark's :func:`match`), at least 98% visible and in frame, gives the samples
    of :func:`tile_samples` on that box and on the box jittered a little (half the
    :func:`jitter_box` defaults), labelled with the matched tile's pips turned to the box's halves
    (the half nearer ``halves[0]`` first). Boxes from the detector take in what it sees: the
    tile's visible side on low-angle photos, a loose end on close-ups.

    Returns:
        the rows (as :func:`_scene_tiles` makes them) and the next tile id.
    """
    from bench_vision import match

    from vision.pipeline import detect

    img = scene.image
    h, w = img.shape[:2]
    dets = [d.corners for d in detect(img)]
    gts = [
        g
        for g, v in zip(scene.labels, scene.visible)
        if not g.face_down
        and v >= 0.98
        and (g.corners >= 0).all()
        and (g.corners[:, 0] < w).all()
        and (g.corners[:, 1] < h).all()
    ]
    rows: list[dict] = []
    fam = FAMILY_INDEX.get(scene.style.family, -1)
    for i, j in match([g.corners for g in gts], dets).items():
        g, box = gts[i], dets[j]
        y = pips_on_box(g, box)
        for jit, b in ((0, box), (1, jitter_box(box, rng, 0.02, 0.015, 0.01, 1.5))):
            for s in tile_samples(img, b):
                s.update(
                    y=y,
                    width=float(g.size[1]),
                    max_pip=scene.style.max_pip,
                    family=fam,
                    source=source,
                    jitter=jit,
                    tile=tid,
                )
                rows.append(s)
        tid += 1
    return rows, tid


def pips_on_box(tile, box: np.ndarray) -> tuple[int, int]:
    """The labelled ``tile``'s pips (a :class:`vision.types.TileDetection`) in the order of the
    halves of ``box`` ``(4, 2)``: the pips of the labelled half nearer ``box``'s half 0 first
    (:func:`vision.types.half_centres`; the benchmark's ``oriented_pips`` rule)."""
    from vision.types import half_centres

    hb, hg = half_centres(box), tile.halves
    same = np.linalg.norm(hg - hb, axis=1).sum() <= np.linalg.norm(hg - hb[::-1], axis=1).sum()
    a, b = (int(p) for p in tile.pips)
    return (a, b) if same else (b, a)


def make_shard(
    shard: int,
    n_scenes: int,
    n_layouts: int,
    out: Path,
    sets: list[int] | None = None,
    n_light: int = 0,
    view_kind: str = "small",
    n_views: int = 0,
    det_kinds: list[str] | None = None,
    n_det: int = 0,
) -> int:
    """Render one shard of samples and save it as ``out`` (npz); returns the number of samples.
    ``sets``: draw every scene's set size from these (None: a third double-9/12, else the
    renderer's mix). ``n_light``: also this many scenes of sharp light
    (:func:`vision.render.lighting.light_scene`, seeds ``LIGHT_SEED0 + 100_000 * shard + k``,
    double-6/9/12 and 640/960/1280 px in turn; source 2). ``n_views``: also this many hard views
    of ``view_kind`` (:func:`vision.render.views.view_scene`, seeds ``VIEW_SEED0 + 100_000 *
    shard + k``, apart from ``bench_vision``'s ``70_000_000+`` and ``80_000_000+``; source 3).
    ``n_det``: also this many hard views of each of ``det_kinds`` read from the detector's own
    boxes (:func:`detector_box_rows`; seeds ``DETBOX_SEED0 + 100_000 * shard + 10_000 * (index
    of the kind in det_kinds) + k``, two in three rendered at twice the base size; source 4)."""
    from vision.render import random_scene, random_style
    from vision.render.layouts import GAMES, make_layout, render_layout
    from vision.render.lighting import light_scene
    from vision.render.views import view_scene

    rows: list[dict] = []
    tid = shard * 10_000_000
    t0 = time.time()

    def add_scene(sc, rng, source: int, tid: int, what: str, report: bool) -> int:
        """The samples of one rendered scene's face-up tiles added to ``rows``."""
        fam = FAMILY_INDEX.get(sc.style.family, -1)
        r, tid = _scene_tiles(
            sc.image, sc.labels, sc.visible, rng, sc.style.max_pip, fam, source, tid
        )
        rows.extend(r)
        if report:
            print(
                f"shard {shard}: {what}, {len(rows)} samples, {time.time() - t0:.0f} s", flush=True
            )
        return tid

    for k in range(n_scenes):
        rng = np.random.default_rng(SCENE_SEED0 + 100_000 * shard + k)
        mp = [None, None, 9, 12][k % 4] if k % 3 == 0 else None
        if sets:
            mp = sets[k % len(sets)]
        style = random_style(rng, max_pip=mp) if mp else None
        tid = add_scene(random_scene(rng, style=style), rng, 0, tid, f"scene {k}", k % 100 == 0)
    for k in range(n_light):
        seed = LIGHT_SEED0 + 100_000 * shard + k
        ls = light_scene(seed, max_pip=(6, 9, 12)[k % 3], scale=(1.0, 1.5, 2.0)[k % 3])
        rng = np.random.default_rng(seed + 1)
        tid = add_scene(ls.scene, rng, 2, tid, f"light scene {k}", k % 100 == 0)
    for k in range(n_views):
        seed = VIEW_SEED0 + 100_000 * shard + k
        sc = view_scene(seed, view_kind)
        rng = np.random.default_rng(seed + 1)
        tid = add_scene(sc, rng, 3, tid, f"{view_kind} view {k}", k % 100 == 0)
    for ki, kind in enumerate(det_kinds or []):
        for k in range(n_det):
            seed = DETBOX_SEED0 + 100_000 * shard + 10_000 * ki + k
            sc = view_scene(seed, kind, scale=1.0 if k % 3 == 0 else 2.0)
            r, tid = detector_box_rows(sc, np.random.default_rng(seed + 1), 4, tid)
            rows.extend(r)
            if k % 20 == 0:
                print(
                    f"shard {shard}: {kind} detector boxes {k}, {len(rows)} samples, "
                    f"{time.time() - t0:.0f} s",
                    flush=True,
                )
    for k in range(n_layouts):
        prng = random.Random(LAYOUT_SEED0 + 100_000 * shard + k)
        rng = np.random.default_rng(LAYOUT_SEED0 + 100_000 * shard + k)
        s = make_layout(GAMES[k % len(GAMES)], prng)
        render_layout(s, rng, rotation_deg=float(rng.uniform(0, 360)))
        r, tid = _scene_tiles(s.image, s.labels, [1.0] * len(s.labels), rng, s.max_pip, -1, 1, tid)
        rows += r
        if k % 25 == 0:
            print(
                f"shard {shard}: layout {k}, {len(rows)} samples, {time.time() - t0:.0f} s",
                flush=True,
            )
    if not rows:
        raise ValueError(f"shard {shard}: no samples (no face-up tile read in what was drawn)")
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(
        out,
        X=np.stack([r["x"] for r in rows]),
        y=np.array([r["y"] for r in rows], np.int8),
        classical=np.array([r["classical"] for r in rows], np.int8),
        cconf=np.array([r["cconf"] for r in rows], np.float32),
        width=np.array([r["width"] for r in rows], np.float32),
        max_pip=np.array([r["max_pip"] for r in rows], np.int8),
        family=np.array([r["family"] for r in rows], np.int8),
        source=np.array([r["source"] for r in rows], np.int8),
        jitter=np.array([r["jitter"] for r in rows], np.int8),
        snapped=np.array([r["snapped"] for r in rows], np.int8),
        nbox=np.array([r["nbox"] for r in rows], np.int8),
        tile=np.array([r["tile"] for r in rows], np.int64),
    )
    print(f"shard {shard}: {len(rows)} samples in {time.time() - t0:.0f} s -> {out}", flush=True)
    return len(rows)


def load_shards(paths: list[Path]) -> dict[str, np.ndarray]:
    """Concatenate the arrays of several shard files."""
    parts = [dict(np.load(p)) for p in paths]
    return {k: np.concatenate([q[k] for q in parts]) for k in parts[0]}


def build_net(batch_norm: bool = True):
    """The half classifier network (torch): ``(N, 4, 32, 32) -> (N, 13)`` logits.
    ``batch_norm`` False: each conv carries a bias instead of a batch norm (the exported ONNX
    model's form, batch norm folded into the conv: :func:`load_onnx`)."""
    from torch import nn

    def block(i, o):
        if not batch_norm:
            return [nn.Conv2d(i, o, 3, padding=1), nn.ReLU()]
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    return nn.Sequential(
        *block(4, 16),
        nn.MaxPool2d(2),
        *block(16, 32),
        *block(32, 32),
        nn.MaxPool2d(2),
        *block(32, 64),
        *block(64, 64),
        nn.AvgPool2d(4),
        nn.Flatten(),
        nn.Linear(256, 64),
        nn.ReLU(),
        nn.Linear(64, 13),
    )


def load_onnx(path: Path):
    """The network of an exported half classifier (``build_net(batch_norm=False)``, weights from
    the ONNX file's Conv and Gemm nodes in graph order), to fine-tune: the ONNX model is its own
    checkpoint.

    Raises:
        ValueError: the file's layers do not match the network.
    """
    import onnx
    import torch
    from onnx import numpy_helper

    m = onnx.load(str(path))
    init = {t.name: numpy_helper.to_array(t) for t in m.graph.initializer}
    ws = [
        init[name]
        for node in m.graph.node
        if node.op_type in ("Conv", "Gemm")
        for name in node.input[1:]
        if name in init
    ]
    net = build_net(batch_norm=False)
    params = list(net.parameters())
    if len(ws) != len(params) or any(w.shape != tuple(p.shape) for w, p in zip(ws, params)):
        raise ValueError(f"{path} does not hold the half classifier's layers")
    with torch.no_grad():
        for w, p in zip(ws, params):
            p.copy_(torch.from_numpy(np.array(w, np.float32)))
    return net


def _held_out(net, X, y) -> tuple[float, float]:
    """Half and tile accuracy of ``net`` on held-out halves (pairs of a tile in order)."""
    import torch

    net.eval()
    with torch.no_grad():
        pv = torch.cat([net(X[i : i + 1024]) for i in range(0, len(X), 1024)]).argmax(1).numpy()
    ok = pv == y
    return float(ok.mean()), float(ok.reshape(-1, 2).all(1).mean())


def train(args) -> int:
    import torch
    from torch import nn

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    tr_paths = [args.data_dir / f"shard{s}.npz" for s in args.shards]
    tr_paths += [args.data_dir / f"light{s}.npz" for s in args.light_shards]
    tr_paths += [args.data_dir / f"views{s}.npz" for s in args.view_shards]
    d = load_shards(tr_paths)
    if args.keep < 1:
        # a share of the older data, the same tiles for the same arguments
        pick = np.random.default_rng(0).random(len(d["y"])) < args.keep
        d = {k: v[pick] for k, v in d.items()}
    det_paths = [args.data_dir / f"det{s}.npz" for s in args.det_shards]
    if det_paths:
        dd = load_shards(det_paths)
        d = {k: np.concatenate([d[k], dd[k]]) for k in d}
    tr_paths += det_paths
    X = torch.from_numpy(d["X"].reshape(-1, 4, 32, 32))  # float16; batches go float32
    y = torch.from_numpy(d["y"].reshape(-1).astype(np.int64))
    val_paths = {f"shard {args.val_shard}": args.data_dir / f"shard{args.val_shard}.npz"}
    if args.val_light_shard is not None:
        val_paths[f"light {args.val_light_shard}"] = (
            args.data_dir / f"light{args.val_light_shard}.npz"
        )
    if args.val_det_shard is not None:
        val_paths[f"detector boxes {args.val_det_shard}"] = (
            args.data_dir / f"det{args.val_det_shard}.npz"
        )
    vals = {}
    for name, path in val_paths.items():
        v = load_shards([path])
        vals[name] = (
            torch.from_numpy(v["X"].reshape(-1, 4, 32, 32).astype(np.float32)),
            v["y"].reshape(-1).astype(np.int64),
        )
    print(
        f"train: {len(y)} halves from {[p.name for p in tr_paths]}; held out: "
        + ", ".join(f"{n} ({len(v[1])} halves)" for n, v in vals.items()),
        flush=True,
    )
    net = load_onnx(args.init) if args.init else build_net()
    if args.init:
        for name, (Xv, yv) in vals.items():
            print(
                f"start ({args.init.name}): held-out {name}: half / tile accuracy "
                "%.4f / %.4f" % _held_out(net, Xv, yv),
                flush=True,
            )
    bs = 128
    steps = args.epochs * ((len(y) + bs - 1) // bs)
    opt = torch.optim.AdamW(net.parameters(), args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.02)
    t0 = time.time()
    for ep in range(args.epochs):
        net.train()
        g = torch.Generator().manual_seed(ep)
        order = torch.randperm(len(y), generator=g)
        tot = 0.0
        for i in range(0, len(order), bs):
            b = order[i : i + bs]
            xb = X[b].float()
            flip = (
                torch.rand(len(b), generator=g) < 0.5
            )  # halves read the same mirrored across the tile
            xb[flip] = torch.flip(xb[flip], dims=[3])
            xb = xb * (
                1 + 0.1 * torch.randn(len(b), 4, 1, 1, generator=g)
            )  # contrast jitter per channel
            opt.zero_grad()
            loss = loss_fn(net(xb), y[b])
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(b)
        held = "; ".join(
            f"held-out {name}: half / tile accuracy %.4f / %.4f" % _held_out(net, Xv, yv)
            for name, (Xv, yv) in vals.items()
        )
        print(
            f"epoch {ep + 1}: loss {tot / len(y):.4f}, {held}, {time.time() - t0:.0f} s", flush=True
        )
        if args.every_epoch and ep + 1 < args.epochs:
            _export(net, args.out.with_name(f"{args.out.stem}.epoch{ep + 1}{args.out.suffix}"))
    _export(net, args.out)
    return 0


def _export(net, out: Path) -> None:
    """``net`` exported to ONNX as the runtime loads it (input ``halves``, output ``logits``)."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    net.eval()
    torch.onnx.export(
        net,
        torch.zeros(1, 4, 32, 32),
        str(out),
        input_names=["halves"],
        output_names=["logits"],
        dynamic_axes={"halves": {0: "n"}, "logits": {0: "n"}},
        opset_version=12,
        dynamo=False,
    )
    print(f"exported {out} ({out.stat().st_size} bytes)", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="render one shard of samples")
    d.add_argument("--shard", type=int, required=True)
    d.add_argument("--scenes", type=int, default=1500)
    d.add_argument("--layouts", type=int, default=150)
    d.add_argument("--out-dir", type=Path, default=DATA_DIR)
    d.add_argument(
        "--sets", type=int, nargs="*", default=None, help="set sizes of the scenes (default: a mix)"
    )
    d.add_argument(
        "--light",
        type=int,
        default=0,
        help="also this many sharp-light scenes (vision.render.lighting); the file is lightK.npz",
    )
    d.add_argument(
        "--views", type=int, default=0, help="also this many hard views of --view-kind (viewsK.npz)"
    )
    d.add_argument("--view-kind", default="small", help="the kind of --views (vision.render.views)")
    d.add_argument(
        "--det-views",
        type=int,
        default=0,
        help="also this many hard views per --det-kinds kind read from the detector's boxes "
        "(detK.npz)",
    )
    d.add_argument(
        "--det-kinds",
        nargs="*",
        default=["low-angle", "close-up"],
        help="the kinds of --det-views (vision.render.views)",
    )
    t = sub.add_parser("train", help="train on shards and export ONNX")
    t.add_argument("--shards", type=int, nargs="+", default=[0, 2])
    t.add_argument(
        "--light-shards", type=int, nargs="*", default=[], help="sharp-light shards (lightK.npz)"
    )
    t.add_argument(
        "--view-shards", type=int, nargs="*", default=[], help="hard-view shards (viewsK.npz)"
    )
    t.add_argument(
        "--det-shards", type=int, nargs="*", default=[], help="detector-box shards (detK.npz)"
    )
    t.add_argument(
        "--keep",
        type=float,
        default=1.0,
        help="train on this share of the plain, light and view shards' samples (the detector-box "
        "shards whole)",
    )
    t.add_argument("--val-shard", type=int, default=9)
    t.add_argument("--val-det-shard", type=int, default=None, help="held-out detector-box shard")
    t.add_argument("--val-light-shard", type=int, default=None, help="held-out light shard")
    t.add_argument(
        "--init", type=Path, default=None, help="fine-tune this exported ONNX model (load_onnx)"
    )
    t.add_argument("--data-dir", type=Path, default=DATA_DIR)
    t.add_argument("--epochs", type=int, default=12)
    t.add_argument("--lr", type=float, default=3e-3)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--out", type=Path, default=ROOT / "models" / "pip-halves.onnx")
    t.add_argument(
        "--every-epoch",
        action="store_true",
        help="also export the model after each earlier epoch (OUT.epochK.onnx), to choose from",
    )
    args = ap.parse_args(argv)
    if args.cmd == "data":
        name = (
            "det"
            if args.det_views
            else "views"
            if args.views
            else ("light" if args.light else "shard")
        )
        make_shard(
            args.shard,
            args.scenes,
            args.layouts,
            args.out_dir / f"{name}{args.shard}.npz",
            args.sets,
            args.light,
            args.view_kind,
            args.views,
            args.det_kinds,
            args.det_views,
        )
        return 0
    return train(args)


if __name__ == "__main__":
    sys.exit(main())
