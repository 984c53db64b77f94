#!/usr/bin/env bash
# ab.sh - compares two builds of the Locus overhead benchmark (say, before
# and after a change) in alternating pairs: run A then B, then B then A, and
# so on, so that a slow stretch of the machine hits both alike.  For every
# (pattern, window) it prints the median ns/task of each build over the
# pairs, their minimum, and the median and range of the per-pair ratio B/A
# (below 1: B is faster).  On a noisy machine read the median ratio, never
# two figures from different runs.
#
# Usage: benchmarks/overhead/ab.sh [--pairs N] BIN_A BIN_B [overhead options]
#   --pairs N   pairs of runs (default 10)
#   BIN_A/B     two builds of build/bench/overhead (copy one aside first)
#   overhead options (--pattern, --window, --tasks, --reps, --quick) are
#   passed to both; see build/bench/overhead --help.
# Environment: THREADS (default: nproc) sets LOCUS_THREADS.
# Example:
#   cp build/bench/overhead /tmp/overhead-before; <change, make>
#   benchmarks/overhead/ab.sh --pairs 20 /tmp/overhead-before build/bench/overhead \
#       --pattern indep --window N --reps 1
set -euo pipefail

prog=ab.sh
die() { echo "$prog: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

pairs=10
case ${1:-} in
-h|--help) usage; exit 0 ;;
--pairs) [ $# -ge 2 ] || die "option '--pairs' needs a value"
         pairs=$2; shift 2 ;;
--pairs=*) pairs=${1#--pairs=}; shift ;;
esac
case $pairs in
''|*[!0-9]*|0) die "--pairs '$pairs': expected a positive integer" ;;
esac
[ $# -ge 2 ] || die "two benchmark binaries expected (try --help)"
bin_a=$1 bin_b=$2
shift 2
for b in "$bin_a" "$bin_b"; do
    [ -x "$b" ] || die "'$b' is not an executable file"
done
threads=${THREADS:-$(nproc)}

raw=$(mktemp)
trap 'rm -f "$raw"' EXIT

run() {  # run SIDE PAIR BIN: appends "key pair side ns" lines
    LOCUS_THREADS=$threads "$3" --csv "${@:4}" >"$raw.out" 2>"$raw.err" || {
        cat "$raw.err" >&2
        rm -f "$raw.out" "$raw.err"
        die "'$3' failed"
    }
    awk -F, -v side="$1" -v pair="$2" '
        $1 != "impl" && $1 !~ /^#/ && NF >= 7 { print $2 "/" $3, pair, side, $6 }' \
        "$raw.out" >>"$raw"
    rm -f "$raw.out" "$raw.err"
}

for ((i = 1; i <= pairs; i++)); do
    echo "# pair $i of $pairs" >&2
    if ((i % 2)); then
        run A "$i" "$bin_a" "$@"; run B "$i" "$bin_b" "$@"
    else
        run B "$i" "$bin_b" "$@"; run A "$i" "$bin_a" "$@"
    fi
done

echo "# A = $bin_a, B = $bin_b, $pairs pairs, LOCUS_THREADS=$threads"
awk '
function sort(v, n,    i, j, x) {
    for (i = 2; i <= n; i++) {
        x = v[i]
        for (j = i - 1; j >= 1 && v[j] > x; j--)
            v[j + 1] = v[j]
        v[j + 1] = x
    }
}
function median(v, n) {
    sort(v, n)
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
{
    if (!($1 in seen)) { seen[$1] = 1; keys[++nk] = $1 }
    val[$1, $2, $3] = $4
    if ($2 > maxpair) maxpair = $2
}
END {
    printf "%-18s %10s %8s %10s %8s %8s %13s\n", "pattern/window", "A median", "A min",
           "B median", "B min", "B/A", "B/A range"
    for (k = 1; k <= nk; k++) {
        key = keys[k]; n = 0
        for (p = 1; p <= maxpair; p++) {
            if (((key, p, "A") in val) && ((key, p, "B") in val)) {
                n++
                a[n] = val[key, p, "A"]; b[n] = val[key, p, "B"]
                r[n] = b[n] / a[n]
            }
        }
        if (!n)
            continue
        amin = a[1]; bmin = b[1]; rmin = r[1]; rmax = r[1]
        for (i = 2; i <= n; i++) {
            if (a[i] < amin) amin = a[i]
            if (b[i] < bmin) bmin = b[i]
            if (r[i] < rmin) rmin = r[i]
            if (r[i] > rmax) rmax = r[i]
        }
        am = median(a, n); bm = median(b, n); rm = median(r, n)
        printf "%-18s %10.1f %8.1f %10.1f %8.1f %8.2f %6.2f-%-6.2f\n", key, am, amin, bm, bmin,
               rm, rmin, rmax
    }
}' "$raw"
