#!/bin/sh
# prio-compare.sh - critical-path priorities on against off in cholesky and
# smi (their --priorities switch), taking turns: each round runs on then
# off, the next off then on, so that a slow stretch of the machine hits
# both alike.  Prints, per benchmark, the median seconds of each setting and
# the median and range of the per-round ratio on/off (below 1: priorities
# help).  With --rt each run is under `chrt -f 10` (root only), as
# benchmarks/probe/compare.sh does.  Extra arguments go to every run
# (--size small, --reps ...; each run's best repetition is taken).
#
#   benchmarks/cholesky/prio-compare.sh [--rt] [--rounds N] [options]
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD:-$here/build}/bench
rt=
rounds=5
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) sed -n '2,/^set -/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    --rt) rt="chrt -f 10"; shift ;;
    --rounds) [ $# -ge 2 ] || { echo "prio-compare.sh: option '--rounds' needs a value" >&2; exit 2; }
              rounds=$2; shift 2 ;;
    *) break ;;
    esac
done
case $rounds in ''|*[!0-9]*|0) echo "prio-compare.sh: --rounds '$rounds': expected a positive integer" >&2; exit 2 ;; esac
for p in cholesky smi; do
    [ -x "$bin/$p" ] || { echo "prio-compare.sh: $bin/$p not built (make -j2)" >&2; exit 2; }
done
# the best seconds= of one run's RESULT lines
best() {
    prog=$1 setting=$2
    shift 2
    $rt "$bin/$prog" --priorities "$setting" "$@" | sed -n 's/.* seconds=\([0-9.e+-]*\) .*/\1/p' \
        | sort -g | head -1
}
for p in cholesky smi; do
    r=0
    out=
    while [ $r -lt "$rounds" ]; do
        if [ $((r % 2)) -eq 0 ]; then a=on b=off; else a=off b=on; fi
        ta=$(best "$p" "$a" "$@")
        tb=$(best "$p" "$b" "$@")
        if [ "$a" = on ]; then out="$out$ta $tb
"; else out="$out$tb $ta
"; fi
        r=$((r + 1))
    done
    printf '%s' "$out" | awk -v p="$p" -v args="$*" '
        function med(a, n,   i, j, t) {
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
            return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        }
        { on[NR] = $1; off[NR] = $2; q[NR] = $1 / $2; lo = NR == 1 || q[NR] < lo ? q[NR] : lo;
          hi = NR == 1 || q[NR] > hi ? q[NR] : hi }
        END { printf "%-8s %s rounds=%d  on %.4f s  off %.4f s (medians)  on/off median %.3f range %.3f-%.3f\n",
                     p, args, NR, med(on, NR), med(off, NR), med(q, NR), lo, hi }'
done
