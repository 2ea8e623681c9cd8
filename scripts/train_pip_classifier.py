#!/usr/bin/env python
"""Train the small half classifier (pips 0..12 on one half) on rendered tiles -> models/pip-halves.onnx.

    /work/venv-train/bin/python scripts/train_pip_classifier.py --scenes 700 --scenes12 300 --epochs 20

Data: ``vision.render.random_scene`` with seeds ``30_000_000 + k`` (plus ``--scenes12`` double-12 scenes, seeds ``31_000_000 + k``) (disjoint from the detector's
training seeds and from the benchmark's validation seeds ``10_000_000+``); every face-up tile at
least 98% visible and in frame, its true box jittered like a detector box (3% size, 2% shift,
2 degrees), read by ``vision.pips.read_tile`` (box refinement, divider) and cut into two 32x32 ink
maps by ``vision.pips.counter.half_images`` - the same steps as at run time. Network: three 3x3
conv layers (16/32/64 channels) + global average pooling + linear, cross-entropy, Adam.
The runtime (onnxruntime, no torch) is in ``vision.pips.classifier``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SEED0 = 30_000_000


def jitter_box(corners: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A true box moved, scaled and turned a little, like a detector's box."""
    c = np.asarray(corners, np.float64)
    ctr = c.mean(0)
    u = c[1] - c[0]
    length = float(np.linalg.norm(u))
    a = np.deg2rad(rng.normal(0, 2.0))
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    s = 1 + rng.normal(0, 0.03, 2)
    uu = u / max(length, 1e-9)
    vv = np.array([-uu[1], uu[0]])
    d = c - ctr
    loc = np.stack([d @ uu, d @ vv], 1) * s
    out = ctr + (loc[:, :1] * uu + loc[:, 1:] * vv) @ R.T + rng.normal(0, 0.02 * length / 2, 2)
    return out.astype(np.float32)


def make_data(n_scenes: int, seed0: int = SEED0, max_pip: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(X (M, 1, 32, 32) float32, y (M,) int64)`` half ink maps and their pip counts
    (``max_pip``: only sets of that size; None: the renderer's mix)."""
    from vision.pips.counter import half_images, read_tile
    from vision.render import random_scene, random_style

    xs, ys = [], []
    for k in range(n_scenes):
        rng = np.random.default_rng(seed0 + k)
        sc = random_scene(rng, style=None if max_pip is None else random_style(rng, max_pip=max_pip))
        h, w = sc.image.shape[:2]
        for g, v in zip(sc.labels, sc.visible):
            c = g.corners
            if g.face_down or v < 0.98 or (c < 0).any() or (c[:, 0] >= w).any() or (c[:, 1] >= h).any():
                continue
            r = read_tile(sc.image, jitter_box(c, rng) if rng.random() < 0.8 else c)
            halves = half_images(r)
            # the re-centred box may have swapped nothing: halves[0] is still the corners[0] end
            xs.append(halves[:, None])
            ys.append(np.array(g.pips, np.int64))
    return np.concatenate(xs), np.concatenate(ys)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=700)
    ap.add_argument("--scenes12", type=int, default=300, help="extra double-12 scenes (seeds 31_000_000+)")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--data", type=Path, default=ROOT / "data" / "pip-halves.npz")
    ap.add_argument("--out", type=Path, default=ROOT / "models" / "pip-halves.onnx")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    if args.data.exists():
        d = np.load(args.data)
        X, y = d["X"], d["y"]
    else:
        t0 = time.time()
        X, y = make_data(args.scenes)
        if args.scenes12:
            X12, y12 = make_data(args.scenes12, SEED0 + 1_000_000, max_pip=12)
            X, y = np.concatenate([X, X12]), np.concatenate([y, y12])
        args.data.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(args.data, X=X, y=y)
        print(f"data: {len(y)} halves from {args.scenes} scenes in {time.time() - t0:.0f} s", flush=True)
    import torch
    from torch import nn

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(64, 13))
    n = len(y)
    perm = np.random.default_rng(0).permutation(n)
    n_val = max(1, n // 10)
    val, tr = perm[:n_val], perm[n_val:]
    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    opt = torch.optim.Adam(net.parameters(), 3e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=args.epochs * ((len(tr) + 127) // 128))
    loss_fn = nn.CrossEntropyLoss()
    for ep in range(args.epochs):
        net.train()
        rng = np.random.default_rng(ep)
        order = rng.permutation(tr)
        for i in range(0, len(order), 128):
            b = order[i:i + 128]
            xb = Xt[b]
            if rng.random() < 0.5:  # halves are mirror-symmetric across the tile
                xb = torch.flip(xb, dims=[3])
            opt.zero_grad()
            loss = loss_fn(net(xb), yt[b])
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(Xt[val]).argmax(1) == yt[val]).float().mean().item()
        print(f"epoch {ep + 1}: loss {loss.item():.3f}, held-out half accuracy {acc:.4f}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 1, 32, 32), str(args.out), input_names=["halves"], output_names=["logits"],
                      dynamic_axes={"halves": {0: "n"}, "logits": {0: "n"}}, opset_version=12, dynamo=False)
    print(f"exported {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
