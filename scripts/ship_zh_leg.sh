#!/usr/bin/env bash
# Turn a running CPU leg of the Chinese base into a model pair ready to read blind and ship
# (docs/results.md, "0.1.24750"): stop the leg (it checkpoints on SIGTERM), export the base, a copy
# without a block (runs/<leg>-plain, for the unsteered reading), train its block on from the shipped
# one for 22 minutes, export the int8 graphs the app loads, and probe the steering.
#
#   bash scripts/ship_zh_leg.sh zh12        # the leg started with `train --out runs/zh12 ...`
#
# Then read both blind (blind_reading.py make --set classical [--plan 0] --against models/zh) and,
# if they win, copy runs/<leg>-model over models/zh in one commit.
set -euxo pipefail
LEG=${1:?say which leg: the name under runs/, e.g. zh12}
PY=${PY:-.venv/bin/python}
MODEL=runs/$LEG-model
pkill -TERM -f "songwriter.train train --out runs/$LEG " || true
while pgrep -f "songwriter.train train --out runs/$LEG " >/dev/null; do sleep 2; done
"$PY" -m songwriter.train train --out "runs/$LEG" --export "$MODEL"
cp models/zh/plan.json models/zh/word_costs.json "$MODEL"/
rm -rf "runs/$LEG-plain" && cp -r "$MODEL" "runs/$LEG-plain"
"$PY" -m songwriter export-onnx "runs/$LEG-plain" --int8-weight-bits 8 --only-default
"$PY" -u -m songwriter.train train-cocon --base "$MODEL" --out "runs/cocon-$LEG" --init-block models/zh \
  --weights 1,0,0 --lr 3e-4 --warmup 30 --steps 1200 --minutes 22 --shares 0.6,0.25 \
  --keyword-words models/zh/plan.json --install "$MODEL"
"$PY" -m songwriter export-onnx "$MODEL" --int8-weight-bits 8 --only-default
"$PY" -m songwriter.train eval-cocon --probe-only --model "$MODEL" --out "runs/probe-$LEG.json"
