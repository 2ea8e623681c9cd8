#!/usr/bin/env python
"""Train the tile detector: render dataset -> ultralytics YOLO11n-OBB from scratch -> ONNX.

One command (CPU; run with the training venv that has torch + ultralytics):

    .venv/bin/python scripts/train_detector.py --train 2000 --val 200 --epochs 40

Steps: (1) render ``data/tiles-obb`` with vision.render (skipped when it exists, unless
``--rerender``); (2) train ``yolo11n-obb.yaml`` from scratch (no downloaded weights) into
``data/runs/<name>``, or resume from ``last.pt`` with ``--resume``, or fine-tune from a checkpoint
with ``--from-weights``; (3) export ``best.pt`` to ``models/tiles-obb.onnx``.
``--export-only [WEIGHTS]`` just exports.

Fine-tuning today's detector (no ``.pt`` of it is kept: the ONNX file is the model):

    # the start checkpoint, rebuilt from the committed ONNX (fused: no batch norm)
    python scripts/train_detector.py --from-onnx models/tiles-obb.onnx --save-start data/runs/start.pt
    # fine-tune (from the .pt, or straight from the ONNX file with --from-onnx)
    nice -n 19 python scripts/train_detector.py --data DATA --from-weights data/runs/start.pt \
        --name NAME --threads 2 --workers 1 ...
    # after a stop (kill, reboot): continue from data/runs/NAME/weights/last.pt
    nice -n 19 python scripts/train_detector.py --name NAME --resume --threads 2 --workers 1

Every epoch writes ``last.pt`` (and ``epochN.pt``), so a run stopped at any time loses at most
the epoch under way. Classes: 0 = tile (face up), 1 = tile_face_down.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def export_onnx(weights: Path, imgsz: int, out: Path) -> Path:
    """Export a .pt checkpoint to ONNX at ``out`` (class names + imgsz go into ONNX metadata).

    The input size is dynamic (any multiple of 32), so the runtime can choose it per photo
    (``vision.detector``: 384 px, and 640 px again when the tiles are small); ``imgsz`` is the
    size written into the metadata.
    """
    from ultralytics import YOLO

    model = YOLO(str(weights))
    try:
        path = model.export(
            format="onnx", imgsz=imgsz, opset=12, simplify=True, dynamic=True, device="cpu"
        )
    except Exception as exc:  # simplifier trouble: plain export
        print(f"simplified export failed ({exc}); exporting without simplify")
        path = model.export(
            format="onnx", imgsz=imgsz, opset=12, simplify=False, dynamic=True, device="cpu"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, out)
    print(f"exported {weights} -> {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return out


def model_from_onnx(path: Path):
    """A trainable torch YOLO11n-OBB rebuilt from an exported ONNX file of it.

    The export folds each batch norm into its convolution, so the model is built from
    ``yolo11n-obb.yaml`` with the class count of the file's metadata, fused the same way
    (``model.fuse()``: convolutions with a bias, no batch norm) and given the file's weights by
    name. Its outputs match the file's to within about 1e-3 on a random input
    (:func:`check_onnx_rebuild`, printed by ``--from-onnx``).

    Args:
        path: ONNX file exported by ultralytics from a YOLO11n-OBB (``export_onnx``).
    Returns:
        ``ultralytics.nn.tasks.OBBModel`` in train mode, without batch norm.
    Raises:
        ValueError: a weight of the file does not fit the rebuilt model.
    """
    import ast

    import onnx
    import torch
    from onnx import numpy_helper
    from ultralytics.nn.tasks import OBBModel

    proto = onnx.load(str(path))
    meta = {p.key: p.value for p in proto.metadata_props}
    names = ast.literal_eval(meta.get("names", "{0: 'tile', 1: 'tile_face_down'}"))
    weights = {i.name: numpy_helper.to_array(i) for i in proto.graph.initializer}
    model = OBBModel("yolo11n-obb.yaml", nc=len(names), verbose=False)
    model.fuse(verbose=False)
    state = model.state_dict()
    for key, value in state.items():
        if key not in weights or tuple(weights[key].shape) != tuple(value.shape):
            raise ValueError(f"{path}: no weight of shape {tuple(value.shape)} for {key}")
        state[key] = torch.from_numpy(weights[key].copy())
    model.load_state_dict(state)
    model.names = names
    return model.train()


def fused_trainer(start=None):
    """An ultralytics OBB trainer class that keeps the model it is given as it is.

    ``get_model`` returns the checkpoint's own model when there is one (``--resume`` from
    ``last.pt``, or ``--from-weights`` a ``.pt``), else ``start`` (:func:`model_from_onnx`),
    else a new model from the yaml. The default trainer would build a new model and copy the
    weights over by name, which drops the biases of a fused model (one rebuilt from ONNX: no
    batch norm, convolutions with a bias) and gives it fresh batch norm layers instead.
    """
    from ultralytics.models.yolo.obb import OBBTrainer

    class FusedTrainer(OBBTrainer):
        def read_results_csv(self):
            """``results.csv`` as ``{column: [values]}`` with the csv module.

            ultralytics reads it with polars, a 40 MB wheel that a GPU machine without a
            network may lack; every checkpoint stores this table, so a missing polars would
            stop the run at the first save.
            """
            import csv

            try:
                with open(self.csv, newline="") as f:
                    rows = list(csv.DictReader(f))
            except OSError:
                return {}
            table: dict[str, list[float | str]] = {}
            for row in rows:
                for key, value in row.items():
                    try:
                        table.setdefault(key.strip(), []).append(float(value))
                    except (TypeError, ValueError):
                        table.setdefault(key.strip(), []).append(value)
            return table

        def get_model(self, cfg=None, weights=None, verbose=True):
            import torch

            if isinstance(weights, torch.nn.Module):
                return weights.float()
            if start is not None:
                return start
            return super().get_model(cfg=cfg, weights=weights, verbose=verbose)

    return FusedTrainer


def save_start_checkpoint(model, out: Path, source: Path) -> Path:
    """Write ``model`` (:func:`model_from_onnx`) as an ultralytics checkpoint at ``out``.

    fp32 weights under ``"model"``, no optimizer state (``epoch`` -1: a start, not a run to
    resume), ``"source"`` naming the ONNX file. ``--from-weights OUT`` fine-tunes from it; the
    file is a pickle of ultralytics classes, so it loads with the ultralytics version that
    wrote it (``"version"``).

    Returns:
        ``out``.
    """
    from copy import deepcopy

    import torch
    import ultralytics

    out.parent.mkdir(parents=True, exist_ok=True)
    m = deepcopy(model).float().eval()
    torch.save(
        {
            "epoch": -1,
            "model": m,
            "ema": None,
            "optimizer": None,
            "train_args": {},
            "source": str(source),
            "version": ultralytics.__version__,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        },
        out,
    )
    print(f"wrote {out} ({out.stat().st_size / 1e6:.1f} MB) from {source}", flush=True)
    return out


def check_onnx_rebuild(model, path: Path, imgsz: int = 384) -> float:
    """Largest absolute difference between ``model`` (eval mode) and the ONNX file ``path`` on
    one random ``(1, 3, imgsz, imgsz)`` input."""
    import numpy as np
    import onnxruntime as ort
    import torch

    x = np.random.default_rng(0).random((1, 3, imgsz, imgsz), dtype=np.float32)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        out = model(torch.from_numpy(x))
    model.train(was_training)
    out = out[0] if isinstance(out, (list, tuple)) else out
    ref = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"images": x}
    )[0]
    return float(np.abs(out.numpy() - ref).max())


def _iou(a, b) -> float:
    """IoU of two axis-aligned boxes (x0, y0, x1, y1)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def check_real(weights: str, imgsz: int, photos: Path, out_dir: Path, conf: float = 0.25) -> dict:
    """Run the detector on the real photos and compare with their labels.

    Face-up recall: a labelled face-up tile (axis-aligned box from ``*.boxes.txt``) counts as found
    when a face-up detection's axis-aligned hull has IoU >= 0.5 with it. Face-down tiles are only
    counted (labels.json gives their number, not their boxes). Draws the boxes to
    ``out_dir/<photo>.png`` (green face up, red face down, blue dot = halves[0]).
    """
    import json

    import cv2
    import numpy as np
    from ultralytics import YOLO

    model = YOLO(weights, task="obb")
    labels = json.loads((photos / "labels.json").read_text())["photos"]
    out_dir.mkdir(parents=True, exist_ok=True)
    total_up = found_up = false_up = 0
    rows = {}
    for name, lab in sorted(labels.items()):
        img = cv2.imread(str(photos / name))
        h, w = img.shape[:2]
        res = model.predict(img, imgsz=imgsz, conf=conf, verbose=False, device="cpu")[0]
        polys = res.obb.xyxyxyxy.cpu().numpy() if res.obb is not None else np.zeros((0, 4, 2))
        cls = res.obb.cls.cpu().numpy().astype(int) if res.obb is not None else np.zeros(0, int)
        confs = res.obb.conf.cpu().numpy() if res.obb is not None else np.zeros(0)
        gt = []
        bt = photos / (Path(name).stem + ".boxes.txt")
        for line in bt.read_text().split("\n") if bt.exists() else []:
            v = line.split()
            if len(v) == 5:
                cx, cy, bw, bh = (float(x) for x in v[1:])
                gt.append(
                    ((cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h)
                )
        up_boxes = [
            (p[:, 0].min(), p[:, 1].min(), p[:, 0].max(), p[:, 1].max())
            for p, c in zip(polys, cls)
            if c == 0
        ]
        used = set()
        hit = 0
        for g in gt:
            best, bj = 0.0, -1
            for j, b in enumerate(up_boxes):
                if j not in used and _iou(g, b) > best:
                    best, bj = _iou(g, b), j
            if best >= 0.5:
                used.add(bj)
                hit += 1
        n_up, n_down = int((cls == 0).sum()), int((cls == 1).sum())
        rows[name] = {
            "face_up_labelled": len(lab["tiles"]),
            "face_up_found": hit,
            "face_up_detections": n_up,
            "face_down_labelled": lab["face_down"],
            "face_down_detections": n_down,
        }
        total_up += len(gt)
        found_up += hit
        false_up += n_up - hit
        vis = img.copy()
        for p, c, cf in zip(polys, cls, confs):
            cv2.polylines(
                vis, [p.astype(np.int32)], True, (0, 0, 255) if c == 1 else (0, 200, 0), 2
            )
            cv2.putText(
                vis,
                f"{cf:.2f}",
                tuple(int(v) for v in p[0]),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.4,
                (255, 0, 255),
                1,
            )
        for g in gt:
            cv2.rectangle(vis, (int(g[0]), int(g[1])), (int(g[2]), int(g[3])), (255, 200, 0), 1)
        cv2.imwrite(str(out_dir / (Path(name).stem + ".png")), vis)
    summary = {
        "photos": rows,
        "face_up_recall": found_up / max(total_up, 1),
        "face_up_labelled": total_up,
        "face_up_found": found_up,
        "unmatched_face_up_detections": false_up,
        "conf": conf,
        "imgsz": imgsz,
        "weights": str(weights),
    }
    print(json.dumps(summary, indent=1))
    return summary


def eval_rendered(
    weights: str, imgsz: int, data: Path, conf: float = 0.25, iou_match: float = 0.5
) -> dict:
    """Tile recall/precision on the rendered validation split at one confidence threshold.

    A labelled tile is found when a detection (either class) has polygon IoU >= ``iou_match``
    with it (greedy, best IoU first); class accuracy is over the found tiles.
    """
    import json

    import cv2
    import numpy as np
    from ultralytics import YOLO

    model = YOLO(weights, task="obb")
    imgs = sorted((data / "images/val").glob("*.jpg"))
    n_gt = n_found = n_det = n_cls_ok = 0
    for im_path in imgs:
        img = cv2.imread(str(im_path))
        h, w = img.shape[:2]
        gt = []
        for line in (data / "labels/val" / (im_path.stem + ".txt")).read_text().split("\n"):
            v = line.split()
            if len(v) == 9:
                gt.append(
                    (
                        int(v[0]),
                        (np.array(v[1:], np.float32).reshape(4, 2) * [w, h]).astype(np.float32),
                    )
                )
        res = model.predict(img, imgsz=imgsz, conf=conf, verbose=False, device="cpu")[0]
        polys = res.obb.xyxyxyxy.cpu().numpy().astype(np.float32)
        cls = res.obb.cls.cpu().numpy().astype(int)
        n_gt += len(gt)
        n_det += len(polys)
        pairs = []
        for i, (_, g) in enumerate(gt):
            for j, p in enumerate(polys):
                inter, _ = cv2.intersectConvexConvex(g, p)
                union = cv2.contourArea(g) + cv2.contourArea(p) - inter
                if union > 0 and inter / union >= iou_match:
                    pairs.append((inter / union, i, j))
        used_g, used_d = set(), set()
        for _, i, j in sorted(pairs, reverse=True):
            if i not in used_g and j not in used_d:
                used_g.add(i)
                used_d.add(j)
                n_found += 1
                n_cls_ok += int(gt[i][0] == cls[j])
    out = {
        "images": len(imgs),
        "tiles": n_gt,
        "detections": n_det,
        "found": n_found,
        "recall": n_found / max(n_gt, 1),
        "precision": n_found / max(n_det, 1),
        "class_accuracy_of_found": n_cls_ok / max(n_found, 1),
        "conf": conf,
        "iou": iou_match,
        "imgsz": imgsz,
        "weights": str(weights),
    }
    print(json.dumps(out, indent=1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="render -> train YOLO-OBB -> export ONNX")
    ap.add_argument(
        "--data",
        default=str(ROOT / "data/tiles-obb"),
        help="dataset folder, or an ultralytics data .yaml (several datasets; not rendered)",
    )
    ap.add_argument("--train", type=int, default=2000, help="rendered training images")
    ap.add_argument("--val", type=int, default=200, help="rendered validation images")
    ap.add_argument("--seed", type=int, default=0, help="dataset seed")
    ap.add_argument("--rerender", action="store_true", help="render the dataset again")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument(
        "--hours",
        type=float,
        default=None,
        help="train for this many hours instead of --epochs (ultralytics fits the LR schedule)",
    )
    ap.add_argument("--imgsz", type=int, default=384)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--name", default="tiles-obb", help="run name under data/runs")
    ap.add_argument("--resume", action="store_true", help="resume data/runs/<name>/weights/last.pt")
    ap.add_argument(
        "--from-weights", default=None, help="fine-tune from this .pt instead of from scratch"
    )
    ap.add_argument(
        "--from-onnx",
        default=None,
        help="fine-tune from the weights of this exported ONNX file (batch norm stays folded)",
    )
    ap.add_argument("--lr0", type=float, default=0.01)
    ap.add_argument(
        "--optimizer", default="SGD", help="ultralytics optimizer (explicit: 'auto' ignores lr0)"
    )
    ap.add_argument("--warmup-epochs", type=float, default=3.0)
    ap.add_argument(
        "--close-mosaic", type=int, default=None, help="epochs without mosaic at the end"
    )
    ap.add_argument("--workers", type=int, default=2, help="dataloader workers")
    ap.add_argument(
        "--freeze",
        type=int,
        default=None,
        help="keep the first N layers as they are (11: the whole backbone of yolo11n-obb)",
    )
    ap.add_argument(
        "--device", default="cpu", help="torch device for training: cpu, or a GPU index such as 0"
    )
    ap.add_argument(
        "--cache", action="store_true", help="hold the decoded training images in memory"
    )
    ap.add_argument(
        "--threads",
        type=int,
        default=None,
        help="torch CPU threads (default: torch's, the machine's cores); 1-2 for a background run",
    )
    ap.add_argument(
        "--save-start",
        default=None,
        metavar="OUT.pt",
        help="with --from-onnx: only write the rebuilt model as a checkpoint (for --from-weights)",
    )
    ap.add_argument(
        "--export-only",
        nargs="?",
        const="best",
        default=None,
        help="only export (weights path, or 'best' for data/runs/<name>/weights/best.pt)",
    )
    ap.add_argument("--onnx", default=str(ROOT / "models/tiles-obb.onnx"))
    ap.add_argument(
        "--check-real",
        nargs="?",
        const="best",
        default=None,
        help="only run WEIGHTS (.pt/.onnx, or 'best') on the real photos; boxes drawn to data/real_check",
    )
    ap.add_argument(
        "--photos",
        default=str(ROOT.parent / "shared" / "real_photos"),
        help="folder with the photos, labels.json and *.boxes.txt (default: ../shared/real_photos beside the repository)",
    )
    ap.add_argument("--conf", type=float, default=0.25)
    ap.add_argument(
        "--eval-val",
        nargs="?",
        const="best",
        default=None,
        help="only measure tile recall/precision of WEIGHTS on the rendered val split",
    )
    a = ap.parse_args(argv)

    run_dir = ROOT / "data/runs" / a.name
    if a.eval_val:
        w = run_dir / "weights/best.pt" if a.eval_val == "best" else Path(a.eval_val)
        eval_rendered(str(w), a.imgsz, Path(a.data), a.conf)
        return 0
    if a.check_real:
        w = run_dir / "weights/best.pt" if a.check_real == "best" else Path(a.check_real)
        check_real(str(w), a.imgsz, Path(a.photos), ROOT / "data/real_check", a.conf)
        return 0
    if a.export_only:
        w = run_dir / "weights/best.pt" if a.export_only == "best" else Path(a.export_only)
        export_onnx(w, a.imgsz, Path(a.onnx))
        return 0

    if a.save_start:
        if not a.from_onnx:
            ap.error("--save-start needs --from-onnx")
        rebuilt = model_from_onnx(Path(a.from_onnx))
        print(
            f"rebuilt {a.from_onnx}: max |torch - onnx| = {check_onnx_rebuild(rebuilt, Path(a.from_onnx)):.2e}",
            flush=True,
        )
        save_start_checkpoint(rebuilt, Path(a.save_start), Path(a.from_onnx))
        return 0

    data = Path(a.data)
    data_yaml = data if data.suffix == ".yaml" else data / "data.yaml"
    if data.suffix != ".yaml" and (a.rerender or not data_yaml.exists()):
        from vision.render.dataset import write_obb_dataset

        if a.rerender and data.exists():
            shutil.rmtree(data)
        t = time.time()
        print(
            "rendering",
            write_obb_dataset(data, a.train, a.val, a.seed, processes=2),
            f"{time.time() - t:.0f} s",
            flush=True,
        )

    from ultralytics import YOLO

    if a.threads:
        import torch
        import ultralytics.utils.torch_utils as tu

        torch.set_num_threads(a.threads)
        tu.NUM_THREADS = a.threads  # select_device() sets torch's threads to this again
    t = time.time()
    rebuilt = None
    if a.from_onnx:
        rebuilt = model_from_onnx(Path(a.from_onnx))
        print(
            f"rebuilt {a.from_onnx}: max |torch - onnx| = {check_onnx_rebuild(rebuilt, Path(a.from_onnx)):.2e}",
            flush=True,
        )
    trainer = fused_trainer(rebuilt)
    if a.resume:
        last = run_dir / "weights/last.pt"
        if not last.is_file():
            ap.error(f"--resume: no checkpoint {last}")
        model = YOLO(str(last))
        model.train(resume=True, trainer=trainer, workers=a.workers)
    else:
        model = YOLO("yolo11n-obb.yaml")  # --from-weights is loaded through `pretrained`
        model.train(
            trainer=trainer,
            data=str(data_yaml),
            epochs=a.epochs,
            time=a.hours,
            imgsz=a.imgsz,
            batch=a.batch,
            workers=a.workers,
            device=a.device,
            cache="ram" if a.cache else False,
            amp=False,  # the AMP check downloads a model; the tiny net is not GPU-bound anyway
            plots=False,
            project=str(ROOT / "data/runs"),
            name=a.name,
            exist_ok=True,
            pretrained=a.from_weights or False,
            seed=0,
            lr0=a.lr0,
            optimizer=a.optimizer,
            warmup_epochs=a.warmup_epochs,
            cos_lr=False,
            close_mosaic=min(5, a.epochs // 4) if a.close_mosaic is None else a.close_mosaic,
            # augmentation on top of the renderer's own: flips and rotations keep labels valid
            degrees=0.0,
            fliplr=0.5,
            flipud=0.5,
            mosaic=1.0,
            scale=0.5,
            translate=0.1,
            hsv_h=0.02,
            hsv_s=0.6,
            hsv_v=0.4,
            freeze=a.freeze,
            patience=100,
            save_period=1,
            val=True,
        )
    print(f"training took {(time.time() - t) / 60:.1f} min", flush=True)
    export_onnx(run_dir / "weights/best.pt", a.imgsz, Path(a.onnx))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
