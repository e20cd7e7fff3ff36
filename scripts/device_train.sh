#!/usr/bin/env bash
# One leg of training on a lent GPU (docs/device-training.md). On the device, from the repo root:
#
#   LEG=1 MINUTES=7.5 bash scripts/device_train.sh        # first call: fresh run, cosine over STEPS
#   LEG=last MINUTES=7.5 bash scripts/device_train.sh     # next call (machine still warm): resumes,
#                                                         # cosine down to the floor on the clock
#
# Needs runs/devkit (made here by `python -m songwriter.train.device_kit pack`, wheels in
# runs/devkit/whl) carried with the call. Installs pypinyin from the wheel, restores the corpus
# (sha256-checked; kept if already there), trains with bf16 autocast and large batches, exports the
# fp16 model folder and splits it with the logs into pieces of at most 16 MiB under $OUT.
# The training is sent SIGTERM (it checkpoints and stops) so that the script ends by DEADLINE
# seconds after it started, inside the 600 s a device command may run.
set -uo pipefail
T0=$(date +%s)
KIT=${KIT:-runs/devkit}
RUN=${RUN:-runs/dev}
CORPUS=${CORPUS:-runs/corpus/zh}
DEST=${OUT:-/tmp/device-out}
LAYERS=${LAYERS:-8}
DMODEL=${DMODEL:-320}
HEADS=${HEADS:-5}
BATCH_TOKENS=${BATCH_TOKENS:-32768}
LR=${LR:-2e-3}
WARMUP=${WARMUP:-150}
STEPS=${STEPS:-100000}
MINUTES=${MINUTES:-7.5}
LEG=${LEG:-1}
DEADLINE=${DEADLINE:-560}
EVAL_EVERY=${EVAL_EVERY:-1000}
PRECISION=${PRECISION:-bf16}
# batches planned in one background process and made in BATCH_WORKERS others (train/prefetch.py;
# the same batches as in the loop); -1 makes them in the training loop as before
export SONGWRITER_BATCH_WORKERS=${BATCH_WORKERS:-2}
PY=${PY:-python3}
export PYTHONUNBUFFERED=1
say() { echo "[device_train +$(( $(date +%s) - T0 ))s] $*"; }

if ! $PY -c "import pypinyin, pronouncing" 2>/dev/null; then
  $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$KIT"/whl/*.whl || exit 3
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true
$PY -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" || exit 3
say "packages ready"

$PY -m songwriter.train.device_kit unpack --kit "$KIT" --corpus "$CORPUS" --run "$RUN" || exit 4
say "corpus ready"

EXTRA=()
[ "$LEG" = last ] && EXTRA+=(--time-schedule)
[ -n "${INIT_FROM:-}" ] && EXTRA+=(--init-from "$INIT_FROM")
LEFT=$(( DEADLINE - ($(date +%s) - T0) - 45 ))   # 45 s kept for the export and the split
if [ "$MINUTES" = auto ]; then
  # the time schedule's clock starts after the pieces are laid out (SETUP_S): end inside LEFT
  MINUTES=$($PY -c "print(round(max(0.5, ($LEFT - ${SETUP_S:-75}) / 60), 2))")
fi
train_leg() {
  say "training leg $LEG: ${LAYERS}x${DMODEL} heads $HEADS, $BATCH_TOKENS tokens a batch, batch workers $SONGWRITER_BATCH_WORKERS, $MINUTES min (hard stop in ${1}s)"
  timeout -s TERM -k 30 "$1" $PY -m songwriter.train train --corpus "$CORPUS" --out "$RUN" \
    --layers "$LAYERS" --d-model "$DMODEL" --heads "$HEADS" --batch-tokens "$BATCH_TOKENS" --lr "$LR" \
    --warmup "$WARMUP" --steps "$STEPS" --minutes "$MINUTES" --precision "$PRECISION" --ckpt-minutes 2 \
    --eval-every "$EVAL_EVERY" --log-every 50 "${EXTRA[@]}" ${TRAIN_ARGS:-}
}
# the GPU's load every 5 s beside the run: whether the feed or the GPU limits the positions/s
GPU_LOG="$RUN/gpu.csv"
mkdir -p "$RUN"
nvidia-smi --query-gpu=timestamp,utilization.gpu,utilization.memory,memory.used --format=csv,noheader -l 5 \
  > "$GPU_LOG" 2>/dev/null &
GPU_PID=$!
train_leg "$LEFT"
rc=$?
say "training ended ($rc)"
if [ "$rc" != 0 ] && [ ! -f "$RUN/ckpt.pt" ] && [ "$SONGWRITER_BATCH_WORKERS" != -1 ]; then
  # a failure before the first checkpoint: once more with the batches made in the loop (the
  # layout is cached by now), in whatever time is left
  export SONGWRITER_BATCH_WORKERS=-1
  LEFT=$(( DEADLINE - ($(date +%s) - T0) - 45 ))
  MINUTES=$($PY -c "print(round(max(0.5, min($MINUTES, ($LEFT - 20) / 60)), 2))")
  [ "$LEFT" -gt 90 ] && { train_leg "$LEFT"; say "training ended ($?)"; }
fi
kill "$GPU_PID" 2>/dev/null
[ -s "$GPU_LOG" ] && say "GPU utilisation % (every 5 s): $(cut -d, -f2 "$GPU_LOG" | tr -d ' %' | tr '\n' ' ')"
[ -f "$RUN/ckpt.pt" ] || { say "no checkpoint"; exit 5; }

rm -rf "$RUN-model"
$PY -m songwriter.train train --out "$RUN" --export "$RUN-model" || exit 6
mkdir -p "$DEST"
$PY -m songwriter.train.device_kit split "$RUN-model" "$RUN/log.jsonl" "$RUN/train.txt" $([ -s "$GPU_LOG" ] && echo "$GPU_LOG") \
  --out "$DEST" --name model || exit 7
ls -l "$DEST"
say "done"
