#!/usr/bin/env bash
# One prepared run for a lent 16-core machine: parallel scaling, speed, memory and the Metro
# strength matches that are too long for a 2-core laptop. Writes everything under $OUT (or ./out).
# Needs Python with numpy, joblib, Cython and setuptools; builds the package into /tmp/site.
set -uo pipefail
source "$(dirname "$0")/device_setup.sh"
python3 -c "import metro_ai, os; print('metro_ai ok, cpus', os.cpu_count())" || exit 1
python3 "$REPO/benches/search_speed.py" --workers 1 2 4 8 16 --json "$OUT/search_speed.json" 2>&1 | tee "$OUT/search_speed.md"
S="$REPO/benches/strength.py --game metro --bot ismcts --games 200 --jobs $J --json $OUT/strength.jsonl"
python3 $S --players 4 --opponent greedy --time 0.5 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --opponent random --time 0.1 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --opponent flat-mc --time 0.1 --opponent-time 0.1 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --opponent pimc --time 0.1 --opponent-time 0.1 2>&1 | tail -1 | tee -a "$OUT/strength.md"
