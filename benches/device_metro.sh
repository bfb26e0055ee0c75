#!/usr/bin/env bash
# One prepared run for a lent 16-core machine: parallel scaling, speed, memory and the Metro
# strength matches that are too long for a 2-core laptop. Writes everything under $OUT (or ./out).
# Needs Python with numpy, joblib, Cython and setuptools; builds the package into /tmp/site.
set -uo pipefail
OUT=${OUT:-$PWD/out}; mkdir -p "$OUT"
REPO=$PWD
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-build-isolation --no-deps --no-index --target /tmp/site . > "$OUT/install.log" 2>&1 \
  || { tail -30 "$OUT/install.log"; exit 1; }
export PYTHONPATH=/tmp/site
cd /tmp
python3 -c "import metro_ai, os; print('metro_ai ok, cpus', os.cpu_count())" || exit 1
J=$(python3 -c "import os; print(os.cpu_count())")
python3 "$REPO/benches/search_speed.py" --workers 1 2 4 8 16 --json "$OUT/search_speed.json" 2>&1 | tee "$OUT/search_speed.md"
S="$REPO/benches/strength.py --game metro --bot ismcts --games 200 --jobs $J --json $OUT/strength.jsonl"
python3 $S --players 4 --opponent greedy --time 0.5 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --opponent random --time 0.1 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --opponent flat-mc --time 0.1 --opponent-time 0.1 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --opponent pimc --time 0.1 --opponent-time 0.1 2>&1 | tail -1 | tee -a "$OUT/strength.md"
