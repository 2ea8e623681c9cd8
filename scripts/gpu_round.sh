#!/usr/bin/env bash
# One detector round on a lent GPU machine: render on its cores, fine-tune today's detector
# (models/tiles-obb.onnx, rebuilt without batch norm by train_detector.py --from-onnx) on the
# renders, export ONNX candidates. Judging them happens on the CPU afterwards
# (models/MODEL_CARD.md, "Recipe": bench_vision, bench_negatives, the shared scorer).
#
# The machine has torch, torchvision, OpenCV, onnx and onnxruntime and no network. Bring:
#   .whl/  wheels of ultralytics, ultralytics-thop and onnxslim (pip download --no-deps)
#   .bg/   a copy of ../shared/backgrounds (photos without dominoes; never committed)
# Run from the repository root:  OUT=/some/dir bash scripts/gpu_round.sh
# Environment (defaults): OUT (data/gpu-round), HOURS (0.085: training time, ultralytics fits
# the LR schedule to it), BUDGET_S (unset; when set, the whole script's seconds: training gets
# what rendering leaves, less 100 s for the exports), N_VIEWS / N_REAL / N_PLAIN (5000 / 3000 / 3000 training images),
# N_VAL (150 per set), JOBS (15 render processes), DEVICE (0), BATCH (32), WORKERS (14),
# LR0 (0.0003), SEEDS ("36 37 38": the views, real and plain sets' seeds), VIEW_KINDS (the views
# set's kinds, repeated to weight them), START (models/tiles-obb.onnx: the detector to start from).
# Writes to OUT: gpu-best.onnx, gpu-last.onnx, gpu-mid.onnx and gpu-late.onnx (the epochs at 60%
# and 80%), results.csv,
# datasets.json (the three sets' summaries) and round.log.
set -u -o pipefail
OUT=${OUT:-data/gpu-round}
HOURS=${HOURS:-0.085}
N_VIEWS=${N_VIEWS:-5000}
N_REAL=${N_REAL:-3000}
N_PLAIN=${N_PLAIN:-3000}
N_VAL=${N_VAL:-150}
JOBS=${JOBS:-15}
DEVICE=${DEVICE:-0}
BATCH=${BATCH:-32}
WORKERS=${WORKERS:-14}
LR0=${LR0:-0.0003}
PY=${PY:-python3}
read -r SEED_V SEED_R SEED_P <<<"${SEEDS:-36 37 38}"
VIEW_KINDS=${VIEW_KINDS:-low-angle,low-angle,low-angle,close-up,close-up,small,small,backs,backs,hand,coloured,glare,crosswise,touching}
START=${START:-models/tiles-obb.onnx}
mkdir -p "$OUT" data
LOG="$OUT/round.log"
T0=$(date +%s)
say() { echo "[$(($(date +%s) - T0)) s] $*" | tee -a "$LOG"; }

say "install wheels"
if ls .whl/*.whl >/dev/null 2>&1; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl >>"$LOG" 2>&1 || { say "wheel install failed"; exit 2; }
  export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export PYTHONPATH=$PWD:${PYTHONPATH:-} YOLO_OFFLINE=1 YOLO_CONFIG_DIR=/tmp/yolo-config \
  PYTHONUNBUFFERED=1
"$PY" - <<'EOF' 2>&1 | tee -a "$LOG" || { say "imports failed"; exit 2; }
import cv2, onnx, onnxruntime, torch, ultralytics
print("torch", torch.__version__, "cuda", torch.cuda.is_available(),
      torch.cuda.get_device_name(0) if torch.cuda.is_available() else "-",
      "ultralytics", ultralytics.__version__, "cv2", cv2.__version__, "cores", __import__("os").cpu_count())
EOF

render() {  # name seed processes n_train extra-args...
  local name=$1 seed=$2 j=$3 n=$4
  shift 4
  "$PY" scripts/make_dataset.py --out "data/gpu-$name" --train "$n" --val "$N_VAL" --seed "$seed" \
    -j "$j" --backgrounds .bg "$@" >"data/render-$name.log" 2>&1
}
say "render $N_VIEWS + $N_REAL + $N_PLAIN images (+ $N_VAL val each)"
TOTAL=$((N_VIEWS + N_REAL + N_PLAIN))
JV=$((JOBS * N_VIEWS / TOTAL > 0 ? JOBS * N_VIEWS / TOTAL : 1))
JR=$((JOBS * N_REAL / TOTAL > 0 ? JOBS * N_REAL / TOTAL : 1))
JP=$((JOBS - JV - JR > 0 ? JOBS - JV - JR : 1))
render views "$SEED_V" "$JV" "$N_VIEWS" --view-share 0.8 --surface-mix 0.08 0 0.1 0 --layout-share 0.3 \
  --view-kinds "$VIEW_KINDS" &
render real "$SEED_R" "$JR" "$N_REAL" --surface-mix 0.26 0.1 0.1 0.13 0.05 0.16 --layout-share 0.4 \
  --set-weights 0.3 0.3 0.4 --low-pip-bias 0.3 &
render plain "$SEED_P" "$JP" "$N_PLAIN" --layout-share 0.5 --low-pip-bias 0.3 --set-weights 0.3 0.3 0.4 &
# meanwhile, a check that the start model rebuilds (fails fast before the long part)
"$PY" scripts/train_detector.py --from-onnx "$START" --save-start data/runs/start.pt \
  2>&1 | tail -2 | tee -a "$LOG"
wait
for name in views real plain; do
  tail -c 300 "data/render-$name.log" >>"$LOG"
  test -f "data/gpu-$name/summary.json" || { say "render $name failed"; exit 3; }
done
"$PY" -c "import json,sys; print(json.dumps({n: json.load(open(f'data/gpu-{n}/summary.json')) for n in ('views','real','plain')}, indent=1))" >"$OUT/datasets.json"
cat >data/gpu-round.yaml <<EOF
path: $PWD/data
train: [gpu-views/images/train, gpu-real/images/train, gpu-plain/images/train]
val: [gpu-views/images/val, gpu-real/images/val, gpu-plain/images/val]
names:
  0: tile
  1: tile_face_down
EOF

if test -n "${BUDGET_S:-}"; then  # train for what is left of BUDGET_S, less 100 s to export
  HOURS=$(awk "BEGIN { h = ($BUDGET_S - $(date +%s) + $T0 - 100) / 3600; printf \"%.4f\", (h > 0.01 ? h : 0.01) }")
fi
say "train ${HOURS} h on device $DEVICE"
rm -rf data/runs/gpu-round
timeout "$(awk "BEGIN { printf \"%d\", $HOURS * 3600 + 120 }")" \
  "$PY" scripts/train_detector.py --data data/gpu-round.yaml --from-weights data/runs/start.pt \
  --name gpu-round --hours "$HOURS" --epochs 60 --batch "$BATCH" --workers "$WORKERS" \
  --device "$DEVICE" --cache --optimizer AdamW --lr0 "$LR0" --warmup-epochs 0.5 \
  --close-mosaic 3 --imgsz 384 --onnx "$OUT/gpu-best.onnx" >>"$LOG" 2>&1
say "training exit $?"
W=data/runs/gpu-round/weights
cp data/runs/gpu-round/results.csv "$OUT/" 2>/dev/null
test -f "$W/last.pt" || { say "no last.pt"; exit 4; }
EPOCHS=$(ls "$W"/epoch*.pt 2>/dev/null | sed 's/.*epoch\([0-9]*\)\.pt/\1/' | sort -n | tail -1)
MID=$(((${EPOCHS:-0} * 3 + 4) / 5))
LATE=$(((${EPOCHS:-0} * 4 + 4) / 5))
if test -f "$W/epoch$LATE.pt" && test "$LATE" != "$EPOCHS"; then
  "$PY" scripts/train_detector.py --export-only "$W/epoch$LATE.pt" --onnx "$OUT/gpu-late.onnx" \
    >>"$LOG" 2>&1 &
fi
"$PY" scripts/train_detector.py --export-only "$W/last.pt" --onnx "$OUT/gpu-last.onnx" >>"$LOG" 2>&1 &
if test -f "$W/epoch$MID.pt"; then
  "$PY" scripts/train_detector.py --export-only "$W/epoch$MID.pt" --onnx "$OUT/gpu-mid.onnx" \
    >>"$LOG" 2>&1 &
fi
test -f "$OUT/gpu-best.onnx" || "$PY" scripts/train_detector.py --export-only "$W/best.pt" \
  --onnx "$OUT/gpu-best.onnx" >>"$LOG" 2>&1
wait
say "done: last epoch $EPOCHS, mid epoch $MID, late epoch $LATE"
ls -la "$OUT" | tee -a "$LOG"
