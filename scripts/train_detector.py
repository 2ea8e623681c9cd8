#!/usr/bin/env python
"""Train the tile detector: render dataset -> ultralytics YOLO11n-OBB from scratch -> ONNX.

One command (CPU; run with the training venv that has torch + ultralytics):

    /work/venv-train/bin/python scripts/train_detector.py --train 2000 --val 200 --epochs 40

Steps: (1) render ``data/tiles-obb`` with vision.render (skipped when it exists, unless
``--rerender``); (2) train ``yolo11n-obb.yaml`` from scratch (no downloaded weights) into
``data/runs/<name>``, or resume from ``last.pt`` with ``--resume``, or fine-tune from a checkpoint
with ``--from-weights``; (3) export ``best.pt`` to ``models/tiles-obb.onnx``.
``--export-only [WEIGHTS]`` just exports. Classes: 0 = tile (face up), 1 = tile_face_down.
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
    """Export a .pt checkpoint to ONNX at ``out`` (class names + imgsz go into ONNX metadata)."""
    from ultralytics import YOLO

    model = YOLO(str(weights))
    try:
        path = model.export(format="onnx", imgsz=imgsz, opset=12, simplify=True, dynamic=False, device="cpu")
    except Exception as exc:  # simplifier trouble: plain export
        print(f"simplified export failed ({exc}); exporting without simplify")
        path = model.export(format="onnx", imgsz=imgsz, opset=12, simplify=False, dynamic=False, device="cpu")
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, out)
    print(f"exported {weights} -> {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="render -> train YOLO-OBB -> export ONNX")
    ap.add_argument("--data", default=str(ROOT / "data/tiles-obb"), help="dataset folder")
    ap.add_argument("--train", type=int, default=2000, help="rendered training images")
    ap.add_argument("--val", type=int, default=200, help="rendered validation images")
    ap.add_argument("--seed", type=int, default=0, help="dataset seed")
    ap.add_argument("--rerender", action="store_true", help="render the dataset again")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--imgsz", type=int, default=416)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--name", default="tiles-obb", help="run name under data/runs")
    ap.add_argument("--resume", action="store_true", help="resume data/runs/<name>/weights/last.pt")
    ap.add_argument("--from-weights", default=None, help="fine-tune from this .pt instead of from scratch")
    ap.add_argument("--lr0", type=float, default=0.01)
    ap.add_argument("--export-only", nargs="?", const="best", default=None,
                    help="only export (weights path, or 'best' for data/runs/<name>/weights/best.pt)")
    ap.add_argument("--onnx", default=str(ROOT / "models/tiles-obb.onnx"))
    a = ap.parse_args(argv)

    run_dir = ROOT / "data/runs" / a.name
    if a.export_only:
        w = run_dir / "weights/best.pt" if a.export_only == "best" else Path(a.export_only)
        export_onnx(w, a.imgsz, Path(a.onnx))
        return 0

    data = Path(a.data)
    if a.rerender or not (data / "data.yaml").exists():
        from vision.render.dataset import write_obb_dataset

        if a.rerender and data.exists():
            shutil.rmtree(data)
        t = time.time()
        print("rendering", write_obb_dataset(data, a.train, a.val, a.seed, processes=2),
              f"{time.time() - t:.0f} s", flush=True)

    from ultralytics import YOLO

    t = time.time()
    if a.resume:
        model = YOLO(str(run_dir / "weights/last.pt"))
        model.train(resume=True)
    else:
        model = YOLO(a.from_weights) if a.from_weights else YOLO("yolo11n-obb.yaml")
        model.train(
            data=str(data / "data.yaml"), epochs=a.epochs, imgsz=a.imgsz, batch=a.batch, workers=2,
            device="cpu", plots=False, project=str(ROOT / "data/runs"), name=a.name, exist_ok=True,
            pretrained=False, seed=0, lr0=a.lr0, cos_lr=False, close_mosaic=min(5, a.epochs // 4),
            # augmentation on top of the renderer's own: flips and rotations keep labels valid
            degrees=0.0, fliplr=0.5, flipud=0.5, mosaic=1.0, scale=0.5, translate=0.1,
            hsv_h=0.02, hsv_s=0.6, hsv_v=0.4, patience=100, val=True,
        )
    print(f"training took {(time.time() - t) / 60:.1f} min", flush=True)
    export_onnx(run_dir / "weights/best.pt", a.imgsz, Path(a.onnx))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
