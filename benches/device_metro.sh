#!/usr/bin/env bash
# One prepared run for a lent many-core machine (16 cores): `metro-ai bench` with parallel search
# at 1-16 workers, growth, memory and the engine ratios, then the Metro strength matches that are
# too long for a 2-core laptop. Writes everything under $OUT (or ./out). Needs Python with numpy,
# joblib, Cython and setuptools; builds the package into /tmp/site. OpenSpiel is not needed (its
# sections are skipped when it is missing).
set -uo pipefail
source "$(dirname "$0")/device_setup.sh"
python3 -c "import metro_ai, os; print('metro_ai ok, cpus', os.cpu_count())" || exit 1
python3 -m metro_ai bench --workers 1 2 4 8 16 \
  --markdown "$OUT/bench.md" --json "$OUT/bench.json" 2> "$OUT/bench.log"
S="$REPO/benches/strength.py --game metro --bot ismcts --games 200 --jobs $J --json $OUT/strength.jsonl"
python3 $S --players 4 --opponent greedy --time 0.5 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --opponent random --time 0.1 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --opponent flat-mc --time 0.1 --opponent-time 0.1 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --opponent pimc --time 0.1 --opponent-time 0.1 2>&1 | tail -1 | tee -a "$OUT/strength.md"
