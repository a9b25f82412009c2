#!/usr/bin/env bash
# One GPU window as one prepared command, in four stages, each with its share of the budget:
#   1. every chapter at the smoke profile on the device (the code paths run on it at all; ≤ 90 s), and the tests
#      that need a GPU;
#   2. the step micro-benchmark (benchmarks/gpu_window.py, ≤ 80 s);
#   3. a dry run on the device in the campaign's order, until its share (≤ 150 s): the estimates it saves are the
#      device's measured rates, and they order stage 4;
#   4. the campaign — every chapter's paper-scale experiments not yet kept, the most paper claims per estimated
#      second first (`companion run … --order value`, companion.pipeline.campaign) — until the budget, finished
#      experiments kept under results/paper/;
# then what came of it packed into $OUT (the device tool's folder) in at most 8 files of ≤ 16 MiB.
# The campaign counts claims from the last build's _build/claims (copy it along when the machine has no build).
#
# Usage: bash benchmarks/gpu_window.sh BUDGET_SECONDS [JOBS]   (PYTHON: the interpreter with torch + CUDA)
# STAGES (default "smoke bench dry campaign") runs fewer: a second call on a machine still warm runs
# STAGES=campaign, which resumes the runs the first one checkpointed (its cache is still there).
# The optional stage "precision" (not in the default) runs issue 37 item 4's comparison for one family: its paper
# runs at float32, then at TF32 (COMPANION_PRECISION=tf32), both kept under their own keys; by default GrokTransfer's
# 8-layer transformers on addition (PRECISION_CHAPTER and PRECISION_ONLY pick others). With the campaign it takes
# half the budget. benchmarks/gpu_engine.md, "Item 4: precision", says how the two are then compared.
set -uo pipefail
cd "$(dirname "$0")/.."
budget=${1:?give the seconds this window has for the whole script}
jobs=${2:-8}
py=${PYTHON:-python3}
out=${OUT:-_build/gpu_window}
mkdir -p "$out"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
export COMPANION_CACHE_DIR=${COMPANION_CACHE_DIR:-/tmp/companion_window_cache}
chapters="grokking linear_estimators progress_measures lazy_rich groktransfer"
start=$(date +%s)
left() { echo $(( budget - ($(date +%s) - start) - 45 )); }  # 45 s kept to pack
stages=" ${STAGES:-smoke bench dry campaign} "
has() { [[ $stages == *" $1 "* ]]; }
marker=$(mktemp)  # kept results newer than this are the window's (the machine's copy may not be a git checkout)
{ nvidia-smi -L; "$py" -c "import torch; print('torch', torch.__version__, torch.cuda.get_device_name())"; } \
  > "$out/machine.txt" 2>&1
# guard VARIABLE SECONDS "-k ..." FILES...: run a feature's GPU tests; if they fail, turn the feature off with
# VARIABLE=0 for this call and for a later call on this machine (a marker file), and say so in smoke.txt
guard() {
  local var=$1 secs=$2 sel=$3; shift 3
  timeout "$secs" "$py" -m pytest -q -p no:cacheprovider -k "$sel" "$@" >> "$out/smoke.txt" 2>&1 && return
  echo "GPU tests of $* failed: the window runs with $var=0" >> "$out/smoke.txt"
  echo 0 > "/tmp/companion_window_$var"
}
if has smoke; then
COMPANION_CACHE_DIR=/tmp/companion_window_smoke timeout 100 "$py" -m companion run $chapters synthesis \
  --profile smoke --device cuda --jobs "$jobs" --time-limit 90 > "$out/smoke.txt" 2>&1
echo "smoke exit $?" >> "$out/smoke.txt"
# a replayed step that does not equal the eager one must not compute kept results (Kumar et al.'s nets on the
# device are checked with it)
guard COMPANION_CUDA_GRAPHS 90 "gpu or device" tests/test_graph.py tests/test_lazy_rich.py
# a batch evaluated at once against member by member, on the device
guard COMPANION_BATCHED_EVAL 60 gpu tests/test_batched_eval.py
# the precision scope (IEEE float32 for matmuls and convolutions; TF32 and bf16 where asked): every GPU run trains
# inside it, so a scope that fails there must not take the window's runs with it
guard COMPANION_PRECISION_SCOPE 60 gpu tests/test_precision.py
fi
for var in COMPANION_CUDA_GRAPHS COMPANION_BATCHED_EVAL COMPANION_PRECISION_SCOPE; do
  [ -f "/tmp/companion_window_$var" ] && export "$var=0"
done
if has bench; then
timeout 90 "$py" benchmarks/gpu_window.py --device cuda --seconds 75 > "$out/gpu_window.txt" 2>&1
cp benchmarks/gpu_window.json "$out/" 2>/dev/null
fi
if has precision; then
  share=$(left); has campaign && share=$(( share / 2 ))
  until=$(( $(date +%s) + share ))
  for p in float32 tf32; do  # float32 first: the reference a reduced precision is compared with
    t=$(( until - $(date +%s) ))
    (( t > 60 )) || break
    COMPANION_PRECISION=$p timeout $(( t + 30 )) "$py" -m companion run "${PRECISION_CHAPTER:-groktransfer}" \
      --profile paper --device cuda --keep --jobs "$jobs" --time-limit "$t" \
      --only "${PRECISION_ONLY:-^tf_run .*op='add'.*n_layers=8,}" > "$out/precision_$p.txt" 2>&1
    echo "precision $p exit $?" >> "$out/precision_$p.txt"
  done
fi
dry=$(( $(left) / 3 )); (( dry > 150 )) && dry=150
if has dry && (( dry > 30 )); then
  timeout $(( dry + 30 )) "$py" -m companion run $chapters --profile paper --device cuda --order value --dry-run \
    --time-limit "$dry" > "$out/dry_run.txt" 2>&1
  echo "dry run exit $?" >> "$out/dry_run.txt"
fi
rest=$(left)
if has campaign && (( rest > 60 )); then
  timeout $(( rest + 30 )) "$py" -m companion run $chapters --profile paper --device cuda --order value --keep \
    --jobs "$jobs" --time-limit "$rest" > "$out/campaign.txt" 2>&1
  echo "campaign exit $?" >> "$out/campaign.txt"
fi
cp "$COMPANION_CACHE_DIR/estimates.json" "$out/estimates.json" 2>/dev/null
# the kept results this window wrote (files under results/ newer than the start), in one archive, split at 15 MiB
find results -type f -newer "$marker" | tar -czf "$out/kept.tgz" -T - 2>/dev/null
if [ "$(stat -c %s "$out/kept.tgz")" -gt 15728640 ]; then
  split -b 15m -d "$out/kept.tgz" "$out/kept.tgz." && rm "$out/kept.tgz"
fi
ls -la "$out"
