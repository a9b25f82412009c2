#!/usr/bin/env bash
# One GPU window as one prepared command: the step micro-benchmark (≤ 90 s), then the campaign — every chapter's
# paper-scale experiments not yet kept, the most paper claims per estimated second first
# (`companion run … --order value`, companion.pipeline.campaign) — until the budget, finished experiments kept under
# results/paper/, and what came of it packed into $OUT (the device tool's folder) in at most 8 files of ≤ 16 MiB.
#
# Usage: bash benchmarks/gpu_window.sh BUDGET_SECONDS [JOBS]   (PYTHON: the interpreter with torch + CUDA)
set -uo pipefail
cd "$(dirname "$0")/.."
budget=${1:?give the seconds this window has for the whole script}
jobs=${2:-4}
py=${PYTHON:-python3}
out=${OUT:-_build/gpu_window}
mkdir -p "$out"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
start=$(date +%s)
marker=$(mktemp)  # kept results newer than this are the window's (the machine's copy may not be a git checkout)
timeout 90 "$py" benchmarks/gpu_window.py --device cuda --seconds 75 > "$out/gpu_window.txt" 2>&1
cp benchmarks/gpu_window.json "$out/" 2>/dev/null
rest=$(( budget - ($(date +%s) - start) - 60 ))  # a minute left to pack
if (( rest > 60 )); then
  "$py" -m companion run grokking linear_estimators progress_measures lazy_rich groktransfer --profile paper \
    --device cuda --order value --keep --jobs "$jobs" --time-limit "$rest" > "$out/campaign.txt" 2>&1
  echo "campaign exit $?" >> "$out/campaign.txt"
fi
# the kept results this window wrote (files under results/ newer than the start), in one archive, split at 15 MiB
find results -type f -newer "$marker" | tar -czf "$out/kept.tgz" -T - 2>/dev/null
if [ "$(stat -c %s "$out/kept.tgz")" -gt 15728640 ]; then
  split -b 15m -d "$out/kept.tgz" "$out/kept.tgz." && rm "$out/kept.tgz"
fi
ls -la "$out"
