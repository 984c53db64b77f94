#!/usr/bin/env bash
# regimes.sh - per-task overhead of the NUMA-aware scheduler against the
# oblivious one, in one invocation: runs build/bench/overhead under
# LOCUS_REGIME=dft and naft in turns (ROUNDS times, default 5) and prints,
# per pattern and window, the median of the per-round medians for each and
# the ratio naft/dft.  Target on one node: naft/dft <= 1.2.
# Usage: benchmarks/overhead/regimes.sh [overhead options, e.g. --quick]
# Environment: THREADS (default: nproc), ROUNDS.
set -euo pipefail
case ${1:-} in -h|--help) sed -n '2,/^set -/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/build/bench/overhead
[ -x "$bin" ] || { echo "regimes.sh: $bin missing: run make" >&2; exit 2; }
threads=${THREADS:-$(nproc)}
rounds=${ROUNDS:-5}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for r in $(seq 1 "$rounds"); do
    for regime in dft naft; do
        LOCUS_REGIME=$regime LOCUS_THREADS=$threads "$bin" --csv --reps 1 "$@" 2>/dev/null | grep -v "^impl," \
            | sed "s/^locus,/$regime,/" >>"$tmp/all.csv"
    done
done
python3 - "$tmp/all.csv" <<'PY'
import csv, statistics, sys
runs = {}
for row in csv.reader(open(sys.argv[1])):
    regime, pattern, window, median_ns = row[0], row[1], int(row[2]), float(row[5])
    runs.setdefault((pattern, window), {}).setdefault(regime, []).append(median_ns)
order = {"indep": 0, "chain": 1, "chains": 2, "fanin": 3}
print(f"{'pattern':8} {'window':>8} {'dft ns/task':>12} {'naft ns/task':>12} {'naft/dft':>9}")
for (pattern, window), by in sorted(runs.items(), key=lambda kv: (order.get(kv[0][0], 9), kv[0][1])):
    d, f = statistics.median(by.get("dft", [0])), statistics.median(by.get("naft", [0]))
    print(f"{pattern:8} {window:>8} {d:12.1f} {f:12.1f} {f / d if d else 0:9.3f}")
PY
echo "medians over $rounds rounds of alternating runs, $threads threads; target naft/dft <= 1.2 on one node"
