#!/usr/bin/env python
"""Train the tile verifier (face up / face down / not a tile on a box crop) and export it to ONNX.

Three steps, each resumable (a shard that exists is not made again):

    # crops (uint8 64x64 BGR) + classes, one .npz per shard; ~10 min per shard on a busy core
    nice -n 15 python scripts/train_verifier.py data --shard 0 --scenes 500
    # train (torch, CPU) and export models/tile-verifier.onnx
    nice -n 15 python scripts/train_verifier.py train --shards 0 1 2 --epochs 8
    # choose the threshold: not-a-tile rate on the held-out background photos and rendered shard
    nice -n 15 python scripts/train_verifier.py threshold --shards 9
    # the drop rule (vision.verifier.not_a_tile) on tuning scenes and held-out background photos
    nice -n 15 python scripts/train_verifier.py tune --models models/tile-verifier.onnx

Data per shard (``data``), each image with the committed detector run on it at a low confidence
(0.15, covered boxes kept) so the verifier learns from the boxes it will be shown:

- rendered scenes (:func:`vision.render.random_scene`, some game layouts) on procedural tables,
  on crops of the background photos (cut-paste of rendered tiles onto real surfaces), and on
  the procedural hard surfaces of :mod:`vision.render.hard_negatives` with tile-like objects;
  a detector box with rotated IoU >= 0.6 to a tile at least 50% visible is that tile (face up or
  down), one with IoU < 0.3 to every tile is not a tile; the true boxes, slightly jittered, are
  tiles too; boxes of one half of a tile and boxes shifted half a tile along or across are not;
- the hard views of :mod:`vision.render.views` (``--mix``' sixth share: coloured bodies, low
  angles, close-ups, glare, crosswise doubles, hands, small web images, coloured backs; the
  kind drawn evenly), labelled as rendered scenes;
- dark objects larger than a tile (``--mix``' seventh share: screens, phones, tins, seats, books,
  cables of :func:`vision.render.surfaces.dark_scene`) on background photos, with smaller
  rendered tiles half of the time: every box on an object is not a tile;
- the background photos without dominoes (``--backgrounds``, default ``../shared/backgrounds``
  beside the repository), cropped, scaled, turned and re-coloured at random: every detector box
  and random tile-shaped boxes there are not tiles.

Each crop is stored with its box's width over length (``aspect``), from which ``train
--channels 4`` draws the box mask (:func:`vision.verifier.box_mask`) as a fourth input channel.

Every fifth background photo (sorted by name, ``holdout_photos``) is held out: it appears only in
the shards made with ``--holdout`` (used by ``threshold``), never in training. The real photos
with dominoes are never used here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "scripts"))
from bench_vision import poly_iou  # noqa: E402

from vision.detector import obb_corners  # noqa: E402
from vision.render.surfaces import (  # noqa: E402
    augment_background,
    background_photos,
    card_scene,
    dark_scene,
    hard_scene,
    holdout_photos,
    pasted_scene,
)
from vision.verifier import (  # noqa: E402
    CROP,
    FACE_DOWN,
    FACE_UP,
    NOT_TILE,
    box_aspect,
    crops_to_input,
    input_channels,
    verifier_crop,
)

SEED0 = 50_000_000
HOLDOUT_SEED0 = 59_000_000
MAX_NEG_PER_IMAGE = 40


def _box(centre, u, length, width) -> np.ndarray:
    """``(4, 2) float32`` corners of a box ``length`` px along the unit vector ``u``, ``width``
    px across it (:func:`vision.detector.obb_corners` order)."""
    return obb_corners([centre[0], centre[1], length, width, np.arctan2(u[1], u[0])])[0]


def _frame(corners: np.ndarray):
    c = np.asarray(corners, np.float64).reshape(4, 2)
    e01, e12 = c[1] - c[0], c[2] - c[1]
    if np.linalg.norm(e01) >= np.linalg.norm(e12):
        along, across = e01, e12
    else:
        along, across = e12, e01
    L, W = float(np.linalg.norm(along)), float(np.linalg.norm(across))
    return c.mean(axis=0), along / max(L, 1e-6), L, W


def jitter(rng, corners, pos=0.06, size=0.08, ang=4.0) -> np.ndarray:
    """A true box moved a little (the error of a good detector box)."""
    c, u, L, W = _frame(corners)
    t = np.deg2rad(rng.normal(0, ang))
    u = np.array([u[0] * np.cos(t) - u[1] * np.sin(t), u[0] * np.sin(t) + u[1] * np.cos(t)])
    v = np.array([-u[1], u[0]])
    c = c + u * rng.normal(0, pos) * L + v * rng.normal(0, pos) * W
    return _box(c, u, L * (1 + rng.normal(0, size)), W * (1 + rng.normal(0, size)))


def wrong_boxes(rng, corners) -> list[np.ndarray]:
    """Boxes on a tile that are not a tile: one half, shifted half a tile along or across."""
    c, u, L, W = _frame(corners)
    v = np.array([-u[1], u[0]])
    out = []
    s = rng.choice([-1, 1])
    out.append(
        _box(c + s * u * L / 4, u, W * rng.uniform(0.9, 1.15), W * rng.uniform(0.9, 1.1))
    )  # one half
    out.append(
        _box(c + s * u * L * rng.uniform(0.45, 0.65), u, L, W)
    )  # along: half tile + what follows
    out.append(_box(c + rng.choice([-1, 1]) * v * W * rng.uniform(0.5, 0.7), u, L, W))  # across
    if rng.random() < 0.5:  # a box twice as long (two tiles end to end)
        out.append(_box(c + s * u * L / 2, u, 2 * L, W))
    return out


def _detector_boxes(det, img) -> np.ndarray:
    from vision.detector import obb_corners

    raw = det.raw(img, 0.15, 0.5, max_covered=None)
    return obb_corners(raw.xywhr)


def _sample(img: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, float]:
    """One training sample of a box: its verifier crop and its width over length."""
    return verifier_crop(img, corners), box_aspect(corners)


def scene_samples(rng, det, img, labels, visible, extra_neg=()) -> tuple[list, list]:
    """Samples (:func:`_sample`) and classes from one rendered image (see the module
    docstring)."""
    crops, cls = [], []
    gts = [(g, v) for g, v in zip(labels, visible)]
    boxes = _detector_boxes(det, img)
    neg = []
    for b in boxes:
        ious = [poly_iou(b, g.corners) for g, _ in gts]
        best = int(np.argmax(ious)) if ious else -1
        if best >= 0 and ious[best] >= 0.6 and gts[best][1] >= 0.5:
            crops.append(_sample(img, b))
            cls.append(FACE_DOWN if gts[best][0].face_down else FACE_UP)
        elif not ious or max(ious) < 0.3:
            neg.append(b)
    for g, v in gts:
        if v < 0.6:
            continue
        if rng.random() < 0.5:
            crops.append(_sample(img, jitter(rng, g.corners)))
            cls.append(FACE_DOWN if g.face_down else FACE_UP)
        if rng.random() < 0.35:
            for b in wrong_boxes(rng, g.corners):
                ious = [poly_iou(b, h.corners) for h, _ in gts]
                # one half of a tile has IoU 0.5 with it: still not a tile
                if max(ious) < 0.55:
                    neg.append(b)
    for b in extra_neg:
        if not gts or max(poly_iou(b, g.corners) for g, _ in gts) < 0.3:
            neg.append(b)
    if len(neg) > MAX_NEG_PER_IMAGE:
        neg = [neg[i] for i in rng.choice(len(neg), MAX_NEG_PER_IMAGE, replace=False)]
    for b in neg:
        crops.append(_sample(img, b))
        cls.append(NOT_TILE)
    return crops, cls


def object_scene_samples(rng, det, img, scene, objects) -> tuple[list, list]:
    """:func:`scene_samples` of a scene with objects that are not tiles (``hard_scene``,
    ``card_scene``: ``(image, scene or None when it holds no tile, objects)``)."""
    labels, vis = (scene.labels, scene.visible) if scene is not None else ([], [])
    return scene_samples(rng, det, img, labels, vis, extra_neg=objects)


def random_boxes(rng, W: int, H: int, n: int) -> list[np.ndarray]:
    """Tile-shaped boxes anywhere in a ``W x H`` image (width 8..25% of the short side)."""
    out = []
    for _ in range(n):
        wid = rng.uniform(8, 0.25 * min(W, H))
        L = wid * rng.uniform(1.5, 2.3)
        t = rng.uniform(0, np.pi)
        out.append(_box(rng.uniform([0, 0], [W, H]), (np.cos(t), np.sin(t)), L, wid))
    return out


#: Default shares of the scene kinds of a shard: rendered scene on a procedural table,
#: rendered tiles pasted on a background photo, procedural hard surface, background photo alone,
#: printed cards on a background photo (:func:`vision.render.surfaces.card_scene`).
DEFAULT_MIX = (0.35, 0.25, 0.2, 0.2, 0.0)


def make_shard(
    shard: int,
    n_scenes: int,
    backgrounds: Path,
    out: Path,
    holdout: bool,
    mix: tuple[float, ...] = DEFAULT_MIX,
    view_kinds: tuple[str, ...] | None = None,
) -> dict:
    """Render one shard of crops (see the module docstring) to ``out``; ``mix`` gives the shares
    of the scene kinds (:data:`DEFAULT_MIX`, normalised to sum 1; a fifth, sixth or seventh share
    left out is 0, and then the shard is the same as before that share existed). ``view_kinds`` are
    the hard views the sixth share draws from, equally often (default: every kind of
    :data:`vision.render.views.VIEW_KINDS`).

    Raises:
        ValueError: a name in ``view_kinds`` is no kind of ``VIEW_KINDS``.
    """
    from vision.detector import load_detector
    from vision.render import random_scene
    from vision.render.layouts import random_layout_scene
    from vision.render.views import VIEW_KINDS

    kinds = tuple(view_kinds) if view_kinds else VIEW_KINDS
    unknown = sorted(set(kinds) - set(VIEW_KINDS))
    if unknown:
        raise ValueError(f"unknown view kinds {unknown}; use some of {VIEW_KINDS}")
    det = load_detector()
    photos = background_photos(backgrounds)
    held = holdout_photos(photos)
    use = [p for p in photos if (p.name in held) == holdout]
    bgs = {p.name: cv2.imread(str(p)) for p in use}
    names = sorted(bgs)
    seed0 = (HOLDOUT_SEED0 if holdout else SEED0) + 100_000 * shard
    shares = np.asarray(tuple(mix) + (0.0,) * (7 - len(mix)), np.float64)
    edges = np.cumsum(shares / shares.sum())
    edges[-1] = 1.0  # the last kind with a share takes the rounding
    crops, cls, src = [], [], []
    t0 = time.time()
    for i in range(n_scenes):
        rng = np.random.default_rng(seed0 + i)
        r = rng.random()
        if r < edges[0]:  # rendered scene, procedural table (as the detector's training data)
            if rng.random() < 0.15:
                scene = random_layout_scene(rng, (640, 480) if rng.random() < 0.6 else (480, 640))
            else:
                scene = random_scene(rng)
            c, k = scene_samples(rng, det, scene.image, scene.labels, scene.visible)
            kind = "render"
        elif r < edges[1]:  # rendered tiles on a background photo (cut-paste)
            name = names[int(rng.integers(len(names)))]
            scene = pasted_scene(rng, bgs[name])
            c, k = scene_samples(rng, det, scene.image, scene.labels, scene.visible)
            kind = f"paste:{name}"
        elif r < edges[2]:  # procedural hard surface with tile-like objects, with or without tiles
            c, k = object_scene_samples(rng, det, *hard_scene(rng))
            kind = "hard"
        elif shares[6] > 0 and r >= edges[5]:  # dark objects larger than a tile on a photo
            name = names[int(rng.integers(len(names)))]
            c, k = object_scene_samples(rng, det, *dark_scene(rng, bgs[name]))
            kind = f"dark:{name}"
        elif shares[5] > 0 and r >= edges[4]:  # a hard view (vision.render.views)
            from vision.render.views import view_scene

            scene = view_scene(rng, kinds[int(rng.integers(len(kinds)))])
            c, k = scene_samples(rng, det, scene.image, scene.labels, scene.visible)
            kind = f"view:{scene.kind}"
        elif shares[4] > 0 and r >= edges[3]:  # printed cards on a background photo
            name = names[int(rng.integers(len(names)))]
            c, k = object_scene_samples(rng, det, *card_scene(rng, bgs[name]))
            kind = f"cards:{name}"
        else:  # a background photo: everything there is not a tile
            name = names[int(rng.integers(len(names)))]
            img = augment_background(rng, bgs[name])
            H, W = img.shape[:2]
            boxes = list(_detector_boxes(det, img))
            if len(boxes) > MAX_NEG_PER_IMAGE:
                boxes = [boxes[j] for j in rng.choice(len(boxes), MAX_NEG_PER_IMAGE, replace=False)]
            boxes += random_boxes(rng, W, H, 6)
            c = [_sample(img, b) for b in boxes]
            k = [NOT_TILE] * len(c)
            kind = f"bg:{name}"
        crops += c
        cls += k
        src += [kind] * len(c)
        if (i + 1) % 50 == 0:
            print(
                f"shard {shard}{' (holdout)' if holdout else ''}: {i + 1}/{n_scenes} scenes, {len(crops)} crops, "
                f"{time.time() - t0:.0f} s",
                flush=True,
            )
    out.parent.mkdir(parents=True, exist_ok=True)
    arr = np.stack([c for c, _ in crops]) if crops else np.zeros((0, CROP, CROP, 3), np.uint8)
    aspect = np.array([a for _, a in crops], np.float32)
    tmp = out.with_name(out.name + ".part")
    with open(tmp, "wb") as f:  # written whole, then renamed: a shard file is always complete
        np.savez_compressed(
            f, crops=arr, cls=np.array(cls, np.int64), src=np.array(src), aspect=aspect
        )
    tmp.replace(out)
    counts = {
        n: int((np.array(cls) == j).sum())
        for j, n in enumerate(("face_up", "face_down", "not_tile"))
    }
    print(f"wrote {out}: {counts} in {time.time() - t0:.0f} s", flush=True)
    return counts


# ------------------------------------------------------------------------------------ training


def build_model(channels: int = 3):
    """The verifier network (about 100 k weights): 3x3 convs with batch norm and ReLU, 16 and 32
    channels at stride 2 (to 16x16), then 48, 64 and 96 channels with max pools down to 4x4,
    global average pool, 96 -> 3. Input ``(N, channels, 64, 64)``: RGB in [0, 1], with 4
    channels the box mask (:func:`vision.verifier.box_mask`) too; output logits (face up, face
    down, not a tile)."""
    import torch.nn as nn

    def conv(i, o, stride=1):
        return [
            nn.Conv2d(i, o, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(o),
            nn.ReLU(inplace=True),
        ]

    return nn.Sequential(
        *conv(channels, 16, 2),
        *conv(16, 32, 2),
        *conv(32, 48),
        nn.MaxPool2d(2),
        *conv(48, 64),
        nn.MaxPool2d(2),
        *conv(64, 96),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(96, 3),
    )


def load_onnx_weights(model, path: Path) -> None:
    """Load an exported verifier (``export``: batch norm folded into each convolution, which
    then has a bias) into :func:`build_model`'s network: each convolution takes the folded
    weight, its batch norm becomes the identity plus the folded bias (mean 0, variance 1 - eps,
    scale 1). Kept in eval mode, the network computes what the ONNX file does. A network with
    more input channels than the file (the box mask) gets zero weights on the extra channels, so
    it starts out computing what the file does and learns to use them.

    Raises:
        ValueError: the file's convolutions do not match the network's.
    """
    import onnx
    import torch
    import torch.nn as nn
    from onnx import numpy_helper

    g = onnx.load(str(path)).graph
    init = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    convs = [n for n in g.node if n.op_type == "Conv"]
    gemm = next(n for n in g.node if n.op_type == "Gemm")
    mods = list(model.modules())
    conv_mods = [m for m in mods if isinstance(m, nn.Conv2d)]
    bn_mods = [m for m in mods if isinstance(m, nn.BatchNorm2d)]
    lin = next(m for m in mods if isinstance(m, nn.Linear))
    if len(convs) != len(conv_mods):
        raise ValueError(f"{path}: {len(convs)} convolutions, the network has {len(conv_mods)}")
    with torch.no_grad():
        for node, conv, bn in zip(convs, conv_mods, bn_mods):
            w, b = init[node.input[1]], init[node.input[2]]
            if w.shape[1] < conv.weight.shape[1] and w.shape[0] == conv.weight.shape[0]:
                w = np.concatenate(
                    [
                        w,
                        np.zeros(
                            (w.shape[0], conv.weight.shape[1] - w.shape[1], *w.shape[2:]), w.dtype
                        ),
                    ],
                    axis=1,
                )
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise ValueError(f"{path}: weight {w.shape} for {tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(np.array(b)))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        lin.weight.copy_(torch.from_numpy(np.array(init[gemm.input[1]])))
        lin.bias.copy_(torch.from_numpy(np.array(init[gemm.input[2]])))


def load_shards(folder: Path, shards: list[int], holdout: bool = False):
    """Crops ``(N, 64, 64, 3) uint8``, classes ``(N,) int64``, sources ``(N,) str`` and boxes'
    width over length ``(N,) float32`` (None when a shard was made without them) of shards."""
    xs, ys, ss, asp = [], [], [], []
    for s in shards:
        f = folder / (f"holdout-{s}.npz" if holdout else f"shard-{s}.npz")
        d = np.load(f)
        xs.append(d["crops"])
        ys.append(d["cls"])
        ss.append(d["src"])
        asp.append(d["aspect"] if "aspect" in d.files else None)
    aspects = None if any(a is None for a in asp) else np.concatenate(asp)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ss), aspects


def _inputs(x: np.ndarray, aspects: np.ndarray | None, channels: int) -> np.ndarray:
    """Network input of crops for a model of ``channels`` input channels (3, or 4 with the box
    mask).

    Raises:
        ValueError: the model takes the box mask and the crops came without box shapes.
    """
    if channels == 3:
        return crops_to_input(x)
    if aspects is None:
        raise ValueError("the model takes the box mask: remake the shards (they hold no aspect)")
    return crops_to_input(x, aspects)


def _augment_batch(rng, x: np.ndarray) -> np.ndarray:
    """uint8 crops -> augmented uint8 crops: 180-degree turn, mirror, brightness, contrast,
    colour, noise."""
    x = x.copy()
    n = len(x)
    turn = rng.random(n) < 0.5
    x[turn] = x[turn, ::-1, ::-1]
    mir = rng.random(n) < 0.5
    x[mir] = x[mir, :, ::-1]
    f = x.astype(np.float32)
    f = (f - 128) * rng.uniform(0.7, 1.3, (n, 1, 1, 1)) + 128 + rng.uniform(-25, 25, (n, 1, 1, 1))
    f *= rng.uniform(0.9, 1.1, (n, 1, 1, 3))
    f += (
        rng.normal(0, 1, (n, 1, 1, 1))
        * rng.uniform(0, 6)
        * rng.standard_normal(f.shape).astype(np.float32)
        * 0.5
    )
    return np.clip(f, 0, 255).astype(np.uint8)


def train(
    folder: Path,
    shards: list[int],
    epochs: int,
    out: Path,
    lr: float = 2e-3,
    threads: int = 1,
    batch: int = 128,
    seed: int = 0,
    init: Path | None = None,
    channels: int = 3,
) -> None:
    """Train the verifier on the shards (from the weights ``init``, a ``.pt`` state dict or an
    exported ``.onnx``, when given) and export ``out`` (ONNX; the weights go beside it as
    ``.pt``); ``channels`` 4 adds the box mask input (:func:`build_model`)."""
    import torch
    import torch.nn as nn

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    x, y, _src, aspects = load_shards(folder, shards)
    if channels == 4 and aspects is None:
        raise ValueError("--channels 4 needs shards made with box shapes (aspect)")
    print(f"train: {len(x)} crops, classes {np.bincount(y, minlength=3).tolist()}", flush=True)
    model = build_model(channels)
    freeze_bn = init is not None and init.suffix == ".onnx"
    if freeze_bn:
        load_onnx_weights(model, init)
    elif init is not None:
        model.load_state_dict(torch.load(init))
    counts = np.bincount(y, minlength=3).astype(np.float64)
    weight = torch.tensor((counts.sum() / (3 * np.maximum(counts, 1))) ** 0.5, dtype=torch.float32)
    loss_fn = nn.CrossEntropyLoss(weight=weight, label_smoothing=0.02)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((len(x) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    ckpt = out.with_suffix(".pt")
    t0 = time.time()
    for ep in range(epochs):
        model.train()
        if freeze_bn:  # batch norm stays the identity the ONNX weights were folded into
            for m in model.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        order = rng.permutation(len(x))
        tot, right, n = 0.0, 0, 0
        for k in range(0, len(order), batch):
            idx = order[k : k + batch]
            a = aspects[idx] if aspects is not None else None
            xb = torch.from_numpy(_inputs(_augment_batch(rng, x[idx]), a, channels))
            yb = torch.from_numpy(y[idx])
            logits = model(xb)
            loss = loss_fn(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(idx)
            right += int((logits.argmax(1) == yb).sum())
            n += len(idx)
            if (k // batch + 1) % 50 == 0:
                print(
                    f"  epoch {ep + 1}: {n}/{len(x)} crops, loss {tot / n:.4f} "
                    f"({time.time() - t0:.0f} s)",
                    flush=True,
                )
        print(
            f"epoch {ep + 1}/{epochs}: loss {tot / n:.4f} acc {right / n:.4f} ({time.time() - t0:.0f} s)",
            flush=True,
        )
        torch.save(model.state_dict(), ckpt)
    export(model, out, channels)


def export(model, out: Path, channels: int = 3) -> None:
    """Export a trained verifier to ONNX (dynamic batch, ``channels`` input channels)."""
    import torch

    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, channels, CROP, CROP)
    torch.onnx.export(
        model,
        dummy,
        str(out),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    print(f"exported {out} ({out.stat().st_size / 1e3:.0f} kB)", flush=True)


def threshold_report(folder: Path, shards: list[int], model: Path | None) -> None:
    """Not-a-tile rates on held-out shards per threshold: errors (true tiles dropped plus
    non-tiles kept: a missed tile and a box where there is none cost the same), true tiles
    dropped and non-tiles kept by source (background photos, pasted scenes, hard surfaces,
    renders). The committed threshold is the one with the fewest errors."""
    import onnxruntime as ort

    x, y, src, aspects = load_shards(folder, shards, holdout=True)
    sess = ort.InferenceSession(
        str(model or ROOT / "models" / "tile-verifier.onnx"), providers=["CPUExecutionProvider"]
    )
    ch = input_channels(sess)
    probs = []
    for k in range(0, len(x), 256):
        a = aspects[k : k + 256] if aspects is not None else None
        lg = sess.run(None, {"crops": _inputs(x[k : k + 256], a, ch)})[0]
        e = np.exp(lg - lg.max(1, keepdims=True))
        probs.append(e / e.sum(1, keepdims=True))
    p = np.concatenate(probs)
    kind = np.array([s.split(":")[0] for s in src])
    print(f"held-out crops: {len(x)}; classes {np.bincount(y, minlength=3).tolist()}")
    acc = float((p.argmax(1) == y).mean())
    tiles = y != NOT_TILE
    side = float((p[tiles, :2].argmax(1) == y[tiles]).mean())
    print(f"3-class accuracy {acc:.4f}; face side right on true tiles {side:.4f}")
    for t in (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        drop = p[:, NOT_TILE] >= t
        errors = int((drop & tiles).sum() + (~drop & ~tiles).sum())
        row = [
            f"thr {t:.2f}: errors {errors}; tiles dropped {int((drop & tiles).sum())}/{int(tiles.sum())}"
        ]
        for kd in ("render", "paste", "hard", "bg"):
            m = (kind == kd) & ~tiles
            if m.any():
                row.append(f"{kd} non-tiles kept {int((~drop & m).sum())}/{int(m.sum())}")
        print("; ".join(row))


def _four_view_probs(sess, x: np.ndarray) -> np.ndarray:
    """``(N, 3)`` probabilities averaged over the four views ``vision.verifier.verify`` uses."""
    views = [x, x[:, :, ::-1, ::-1], x[:, :, :, ::-1], x[:, :, ::-1, :]]
    out = 0.0
    for v in views:
        lg = sess.run(None, {sess.get_inputs()[0].name: np.ascontiguousarray(v)})[0]
        e = np.exp(lg - lg.max(1, keepdims=True))
        out = out + e / e.sum(1, keepdims=True)
    return np.asarray(out) / len(views)


def tune_report(models: list[Path], scenes: int, backgrounds: Path, views: int = 0) -> None:
    """Errors of the drop rule per model and thresholds on tuning data apart from training and
    from the real photos: rendered scenes (seeds ``40_000_000 + 100_000 * max_pip + k``,
    ``scenes`` per set size, 1280 px) and the held-out background photos (each as it is and in
    three random views). A detector box (the runtime's settings: confidence 0.25, covered boxes
    kept, at most 1280 px) matched to a tile at least 60% visible is a tile; one with IoU < 0.3
    to every tile, and every box on a background photo, is not. Errors = tiles dropped + boxes
    on no tile kept (a missed tile and a false box cost the same); tiles the detector missed
    are the same for every rule and not counted. With ``views`` > 0, also that many hard views
    of each kind of :mod:`vision.render.views` (seeds ``45_000_000 + 60_000_000 + 100_000 *
    kind index + k``, 1280 px: apart from bench_vision's tuning and validation seeds).

    Each model's rules are listed best first (the twelve best): the threshold, the sure-box
    confidence (a box at least this confident is dropped only at the sure-box bar) and the bar,
    the same for face-up and face-down boxes, with errors by source; then the rule of
    :func:`vision.verifier.not_a_tile`, whose backs have a sure-box confidence and bar of their
    own."""
    import onnxruntime as ort
    from bench_vision import match

    from vision.detector import load_detector
    from vision.detector.onnx_model import FACE_DOWN as DETECTOR_FACE_DOWN
    from vision.render import random_scene, random_style
    from vision.render.scene import DEFAULT_IMAGE_SIZES
    from vision.verifier import verifier_crops

    det = load_detector()
    sessions = [ort.InferenceSession(str(m), providers=["CPUExecutionProvider"]) for m in models]
    conf_all, down_all, tile_all, src_all = [], [], [], []
    probs_all: list[list[np.ndarray]] = [[] for _ in models]

    def add(img: np.ndarray, truth, src: str) -> None:
        h, w = img.shape[:2]
        f = min(1.0, 1280 / max(h, w))
        if f < 1:
            img = cv2.resize(img, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA)
            truth = [(c * f, v) for c, v in truth]
        raw = det.raw(img, 0.25, 0.5, max_covered=None)
        boxes = obb_corners(raw.xywhr)
        if len(boxes) == 0:
            return
        x = verifier_crops(img, boxes, mask=True)
        for k, sess in enumerate(sessions):
            xs = x if input_channels(sess) == 4 else x[:, :3]
            probs_all[k].append(_four_view_probs(sess, xs)[:, NOT_TILE])
        seen = [c for c, v in truth if v >= 0.6]
        hit = set(match(seen, list(boxes)).values())
        for j, b in enumerate(boxes):
            ious = [poly_iou(b, c) for c, _ in truth]
            tile = 1 if j in hit else (0 if not ious or max(ious) < 0.3 else -1)
            tile_all.append(tile)
            src_all.append(src)
        conf_all.append(raw.confidence)
        down_all.append(raw.cls == DETECTOR_FACE_DOWN)

    for mp in (6, 9, 12):
        for k in range(scenes):
            rng = np.random.default_rng(40_000_000 + 100_000 * mp + k)
            style = random_style(rng, max_pip=mp)
            base = DEFAULT_IMAGE_SIZES[int(rng.integers(len(DEFAULT_IMAGE_SIZES)))]
            sc = random_scene(rng, image_size=(base[0] * 2, base[1] * 2), style=style)
            add(sc.image, [(g.corners, v) for g, v in zip(sc.labels, sc.visible)], "render")
    if views:
        from vision.render.views import VIEW_KINDS, view_scene

        for i, kind in enumerate(VIEW_KINDS):
            for k in range(views):
                sc = view_scene(45_000_000 + 60_000_000 + 100_000 * i + k, kind, scale=2)
                add(sc.image, [(g.corners, v) for g, v in zip(sc.labels, sc.visible)], "view")
    photos = background_photos(backgrounds)
    held = holdout_photos(photos)
    for ph in photos:
        if ph.name not in held:
            continue
        im0 = cv2.imread(str(ph))
        for v in range(4):
            img = augment_background(np.random.default_rng(v), im0) if v else im0
            add(img, [], "bg")
    conf = np.concatenate(conf_all)
    down = np.concatenate(down_all)
    tile = np.array(tile_all)
    src = np.array(src_all)
    use = tile >= 0
    rendered = (tile == 0) & (src != "bg")
    print(
        f"boxes: {int((tile == 1).sum())} tiles, {int(rendered.sum())} rendered boxes on no tile "
        f"({int((rendered & (src == 'view')).sum())} in hard views), "
        f"{int((src == 'bg').sum())} background boxes"
    )
    from vision.verifier import not_a_tile

    def errors(drop: np.ndarray) -> tuple[int, int, int, int, int]:
        lost = drop & (tile == 1) & use
        kept_r = int((~drop & rendered).sum())
        kept_b = int((~drop & (src == "bg")).sum())
        n_lost = int(lost.sum())
        return n_lost + kept_r + kept_b, n_lost, int((lost & (src == "view")).sum()), kept_r, kept_b

    for m, probs in zip(models, probs_all):
        nt = np.concatenate(probs)
        rows = []
        for t in (0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7):
            for sure_conf in (0.5, 0.6, 0.7, 0.8):
                sure = conf >= sure_conf
                for sure_bar in (t, 0.8, 0.9, 1.01):
                    err = errors(nt >= np.where(sure, sure_bar, t))
                    rows.append((err[0], (t, sure_conf, sure_bar), *err[1:]))
        rows.sort(key=lambda r: (r[0], r[1]))
        print(f"model {m}:")
        for err, rule, lost, lost_v, kept_r, kept_b in rows[:12]:
            print(
                f"  thr {rule[0]:.2f} sure-box confidence {rule[1]:.1f} bar {rule[2]:.2f}: "
                f"errors {err} (tiles lost {lost}, {lost_v} in hard views; rendered boxes "
                f"kept {kept_r}, background boxes kept {kept_b})"
            )
        err, lost, lost_v, kept_r, kept_b = errors(not_a_tile(nt, conf, down))
        print(
            f"  vision.verifier.not_a_tile (backs: sure-box confidence and bar of their own): "
            f"errors {err} (tiles lost {lost}, {lost_v} in hard views; rendered boxes "
            f"kept {kept_r}, background boxes kept {kept_b})"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data", help="make one shard of crops")
    d.add_argument("--shard", type=int, required=True)
    d.add_argument("--scenes", type=int, default=500)
    d.add_argument(
        "--holdout",
        action="store_true",
        help="held-out background photos and seeds (for threshold)",
    )
    d.add_argument("--backgrounds", type=Path, default=ROOT.parent / "shared" / "backgrounds")
    d.add_argument("--out", type=Path, default=ROOT / "data" / "verifier")
    d.add_argument(
        "--mix",
        type=float,
        nargs="+",
        default=DEFAULT_MIX,
        metavar="SHARE",
        help="shares of rendered scenes, tiles pasted on background photos, hard surfaces, "
        "background photos alone, (optional fifth) printed cards on background photos, "
        "(optional sixth) hard views of vision.render.views and (optional seventh) dark objects "
        "larger than a tile on background photos (default %(default)s)",
    )
    d.add_argument(
        "--view-kinds",
        nargs="+",
        default=None,
        metavar="KIND",
        help="the hard views the sixth share draws from (default: all of "
        "vision.render.views.VIEW_KINDS)",
    )
    t = sub.add_parser("train", help="train and export")
    t.add_argument("--shards", type=int, nargs="+", required=True)
    t.add_argument("--epochs", type=int, default=8)
    t.add_argument("--lr", type=float, default=2e-3)
    t.add_argument("--threads", type=int, default=1)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument(
        "--init",
        type=Path,
        default=None,
        help="continue from these weights: a .pt state dict, or an exported .onnx verifier "
        "(batch norm folded into the convolutions: trained with batch norm frozen)",
    )
    t.add_argument(
        "--channels",
        type=int,
        choices=(3, 4),
        default=3,
        help="network input channels: 3 (the crop) or 4 (the crop and the box mask)",
    )
    t.add_argument("--data", type=Path, default=ROOT / "data" / "verifier")
    t.add_argument("--model", type=Path, default=ROOT / "models" / "tile-verifier.onnx")
    h = sub.add_parser("threshold", help="rates on held-out shards")
    h.add_argument("--shards", type=int, nargs="+", required=True)
    h.add_argument("--data", type=Path, default=ROOT / "data" / "verifier")
    h.add_argument("--model", type=Path, default=None)
    u = sub.add_parser("tune", help="drop-rule errors per threshold on tuning scenes and photos")
    u.add_argument("--models", type=Path, nargs="+", required=True)
    u.add_argument("--scenes", type=int, default=25, help="rendered tuning scenes per set size")
    u.add_argument("--backgrounds", type=Path, default=ROOT.parent / "shared" / "backgrounds")
    u.add_argument("--views", type=int, default=0, help="hard-view tuning scenes per kind")
    a = ap.parse_args(argv)
    if a.cmd == "data":
        if not a.backgrounds.is_dir():
            ap.error(f"no background photos at {a.backgrounds} (give --backgrounds)")
        out = a.out / (f"holdout-{a.shard}.npz" if a.holdout else f"shard-{a.shard}.npz")
        if out.exists():
            print(f"{out} exists; skipped")
            return 0
        if not 4 <= len(a.mix) <= 7:
            ap.error("--mix takes 4 to 7 shares")
        try:
            make_shard(a.shard, a.scenes, a.backgrounds, out, a.holdout, tuple(a.mix), a.view_kinds)
        except ValueError as e:
            ap.error(str(e))
    elif a.cmd == "train":
        try:
            train(
                a.data,
                a.shards,
                a.epochs,
                a.model,
                a.lr,
                a.threads,
                seed=a.seed,
                init=a.init,
                channels=a.channels,
            )
        except ValueError as e:
            ap.error(str(e))
    elif a.cmd == "tune":
        tune_report(a.models, a.scenes, a.backgrounds, a.views)
    else:
        threshold_report(a.data, a.shards, a.model)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
