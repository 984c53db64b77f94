#!/usr/bin/env bash
# trace-cost.sh - what tracing costs: benchmarks/overhead --quick (per-task
# overhead of empty tasks) and benchmarks/granularity --quick (throughput
# of calibrated bodies), run in one invocation with LOCUS_TRACE unset (off)
# and set (on), in alternating order round after round so that a slow
# stretch of the machine hits both alike; with --base DIR also a build
# without the trace hooks (DIR/overhead, DIR/granularity: copies of an
# older build/bench) against this one with tracing off, the cost of the
# hooks' branches.  Prints per measurement the median over the rounds of
# each side and of the per-round ratio (above 1: slower).  Read the median
# ratios, on a quiet machine; the traces themselves go to a temporary
# directory, removed at the end.
#
# Usage: benchmarks/overhead/trace-cost.sh [--rounds N] [--base DIR]
# Environment: BIN_DIR (default build/bench), THREADS (LOCUS_THREADS,
# default nproc).
set -euo pipefail

prog=trace-cost.sh
die() { echo "$prog: $*" >&2; exit 2; }
rounds=5 base=
while [ $# -gt 0 ]; do
    case $1 in
    --rounds) [ $# -ge 2 ] || die "--rounds needs a value"; rounds=$2; shift 2 ;;
    --base) [ $# -ge 2 ] || die "--base needs a directory"; base=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (try --help)" ;;
    esac
done
case $rounds in ''|*[!0-9]*|0) die "--rounds '$rounds': expected a positive integer" ;; esac
bin=${BIN_DIR:-build/bench}
for b in overhead granularity; do
    [ -x "$bin/$b" ] || die "$bin/$b is not built (make)"
    [ -z "$base" ] || [ -x "$base/$b" ] || die "$base/$b is not an executable"
done
export LOCUS_THREADS=${THREADS:-$(nproc)}
unset LOCUS_TRACE LOCUS_DAG

tmp=$(mktemp -d "${TMPDIR:-/tmp}/trace-cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0

# One run; prints "key value" lines (key: bench/pattern/size, value: ns per
# task for overhead, seconds for granularity: lower is better for both).
run() {   # side binary-dir
    local side=$1 dir=$2 env=()
    if [ "$side" = on ]; then
        n=$((n + 1))
        env=(LOCUS_TRACE="$tmp/t$n")
    fi
    env "${env[@]}" "$dir/overhead" --quick --csv 2>/dev/null |
        awk -F, 'NR > 1 { print "overhead/" $2 "/w" $3, $6 }'
    rm -rf "$tmp/t$n"   # LOCUS_TRACE refuses a directory holding a trace
    env "${env[@]}" "$dir/granularity" --quick 2>/dev/null |
        awk '/^RESULT/ { for (i = 1; i <= NF; i++) { split($i, kv, "=");
                           if (kv[1] == "seconds") s = kv[2];
                           if (kv[1] == "params") p = $i }
                         sub(/^params=pattern=/, "", p); sub(/,iters=.*/, "", p);
                         print "granularity/" p, s }'
    rm -rf "$tmp/t$n"
}

pairs() {   # label sideA dirA sideB dirB
    local label=$1 sa=$2 da=$3 sb=$4 db=$5
    : >"$tmp/a" ; : >"$tmp/b"
    for r in $(seq 1 "$rounds"); do
        if [ $((r % 2)) -eq 1 ]; then
            run "$sa" "$da" | sed "s/^/$r /" >>"$tmp/a"
            run "$sb" "$db" | sed "s/^/$r /" >>"$tmp/b"
        else
            run "$sb" "$db" | sed "s/^/$r /" >>"$tmp/b"
            run "$sa" "$da" | sed "s/^/$r /" >>"$tmp/a"
        fi
    done
    echo "=== $label: median over $rounds rounds (overhead: ns/task; granularity: seconds)"
    /usr/bin/env python3 - "$tmp/a" "$tmp/b" <<'EOF'
import statistics, sys
def load(p):
    d = {}
    for line in open(p):
        r, k, v = line.split()
        d.setdefault(k, {})[r] = float(v)
    return d
a, b = load(sys.argv[1]), load(sys.argv[2])
print("%-40s %12s %12s %8s" % ("measurement", "A", "B", "B/A"))
allr = {}
for k in a:
    if k not in b:
        continue
    rs = [b[k][r] / a[k][r] for r in a[k] if r in b[k] and a[k][r] > 0]
    allr.setdefault(k.split("/")[0], []).extend(rs)
    print("%-40s %12.4g %12.4g %8.3f" % (k, statistics.median(a[k].values()),
                                         statistics.median(b[k].values()),
                                         statistics.median(rs) if rs else float("nan")))
for bench, rs in allr.items():
    if rs:
        print("%-40s %12s %12s %8.3f" % ("median of the %s ratios" % bench, "", "",
                                         statistics.median(rs)))
EOF
}

pairs "tracing off (A) against on (B), $bin" off "$bin" on "$bin"
if [ -n "$base" ]; then
    pairs "no trace hooks (A, $base) against hooks with tracing off (B, $bin)" \
        off "$base" off "$bin"
fi
