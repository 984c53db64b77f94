#!/usr/bin/env bash
# dirquery-ab.sh - compares two builds of build/bench/dirquery (the cost of
# one data-location directory lookup, see dirquery.c) in one invocation:
# ROUNDS rounds (default 5), in each every configuration (1 and 2 query
# threads, with and without a writer thread) run by A then B, or B then A
# on even rounds.  Prints per (mode, threads, writer) the median over the
# rounds of each build's median and minimum ns/query and the median and
# range of the per-round ratio B/A (below 1: B is faster).
# Usage: benchmarks/overhead/dirquery-ab.sh BIN_A BIN_B [dirquery options]
# Example (A: the directory at some older commit C):
#   git -C . archive C | (mkdir -p /tmp/old && tar -x -C /tmp/old)
#   cp benchmarks/overhead/dirquery.c /tmp/old/benchmarks/overhead/
#   make -C /tmp/old build/bench/dirquery
#   benchmarks/overhead/dirquery-ab.sh /tmp/old/build/bench/dirquery build/bench/dirquery
set -euo pipefail
case ${1:-} in -h|--help) sed -n '2,/^set -/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -ge 2 ] || { echo "dirquery-ab.sh: two dirquery binaries expected (try --help)" >&2; exit 2; }
a=$1 b=$2
shift 2
for x in "$a" "$b"; do
    [ -x "$x" ] || { echo "dirquery-ab.sh: '$x' is not an executable file" >&2; exit 2; }
done
rounds=${ROUNDS:-5}
tmp=$(mktemp); trap 'rm -f "$tmp"' EXIT
for r in $(seq 1 "$rounds"); do
    for t in 1 2; do
        for w in "" --writer; do
            if ((r % 2)); then order="A B"; else order="B A"; fi
            for side in $order; do
                bin=$a; [ "$side" = B ] && bin=$b
                "$bin" --csv --threads "$t" $w "$@" | grep -v '^mode,' | sed "s/^/$r,$side,/" >>"$tmp"
            done
        done
    done
done
python3 - "$tmp" "$rounds" <<'PY'
import csv, statistics, sys
runs = {}
for row in csv.reader(open(sys.argv[1])):
    rnd, side, mode, threads, writer, med, mn = row
    runs.setdefault((mode, int(threads), writer), {}).setdefault(rnd, {})[side] = (float(med), float(mn))
print(f"{'mode':6} {'thr':>3} {'writer':>6} {'A med':>8} {'A min':>8} {'B med':>8} {'B min':>8} {'B/A':>6} {'B/A range':>11}")
for (mode, threads, writer), by in sorted(runs.items()):
    pairs = [v for v in by.values() if "A" in v and "B" in v]
    am = statistics.median(p["A"][0] for p in pairs); amin = statistics.median(p["A"][1] for p in pairs)
    bm = statistics.median(p["B"][0] for p in pairs); bmin = statistics.median(p["B"][1] for p in pairs)
    r = [p["B"][0] / p["A"][0] for p in pairs]
    print(f"{mode:6} {threads:>3} {'yes' if writer == '1' else 'no':>6} {am:8.1f} {amin:8.1f} {bm:8.1f} {bmin:8.1f}"
          f" {statistics.median(r):6.2f} {min(r):5.2f}-{max(r):<5.2f}")
print(f"# {sys.argv[2]} rounds; ns per query: medians over the rounds")
PY
