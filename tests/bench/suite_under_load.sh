#!/usr/bin/env bash
# The whole default test run, RUNS times in a row (default 3), beside two CPU-burning processes:
# the suite must pass on a loaded machine, not only on a quiet one. Prints one line per run.
#   bash tests/bench/suite_under_load.sh [RUNS]
# Run it from a checkout whose package is the one installed (or set PYTHONPATH=src).
set -uo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
out=tests/bench/out/suite-under-load
mkdir -p "$out"
python3 -c "while True: pass" & burner1=$!
python3 -c "while True: pass" & burner2=$!
trap 'kill $burner1 $burner2 2>/dev/null' EXIT
failed=0
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  python3 -m pytest -rs > "$out/run-$i.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || failed=1
  echo "run $i: exit $rc, $(( $(date +%s) - start )) s, load $(cut -d' ' -f1-3 /proc/loadavg); $(tail -1 "$out/run-$i.log")"
done
exit $failed
