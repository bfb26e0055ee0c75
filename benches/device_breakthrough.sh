#!/usr/bin/env bash
# One prepared run for a lent 16-core machine: Breakthrough strength matches, 200 games each,
# most important first (a run cut short still leaves the finished lines in $OUT/strength.md).
set -uo pipefail
source "$(dirname "$0")/device_setup.sh"
T=${T:-0.05}
S="$REPO/benches/strength.py --game breakthrough --games 200 --jobs $J --json $OUT/strength.jsonl"
python3 $S --players 2 --bot ismcts --opponent greedy --time $T 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 4 --bot ismcts --opponent greedy --time $T 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --bot mo-ismcts --opponent ismcts --time $T --opponent-time $T 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --bot ismcts --opponent flat-mc --time $T --opponent-time $T 2>&1 | tail -1 | tee -a "$OUT/strength.md"
python3 $S --players 2 --bot ismcts --opponent pimc --time $T --opponent-time $T 2>&1 | tail -1 | tee -a "$OUT/strength.md"
