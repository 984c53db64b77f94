#!/bin/sh
# compare.sh - the parallelism probe (probe.c, probe_omp.c) as the README
# reports it: Locus with 1 and 2 workers and libgomp with 2 threads, taking
# turns, ROUNDS rounds, default settings otherwise.  With --rt each program
# runs under `chrt -f 10` (root only) so that other jobs on a shared machine
# cannot preempt it: on a busy 2-CPU VM that is the only way to get numbers
# that mean something.  Extra arguments go to both programs (--body-ns 1000).
#
#   benchmarks/probe/compare.sh [--rt] [--rounds N] [probe options]
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BUILD:-$here/build}/bench
rt=
rounds=2
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) sed -n '2,/^set -/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    --rt) rt="chrt -f 10"; shift ;;
    --rounds) [ $# -ge 2 ] || { echo "compare.sh: option '--rounds' needs a value" >&2; exit 2; }
              rounds=$2; shift 2 ;;
    *) break ;;
    esac
done
for p in probe probe-omp; do
    [ -x "$bin/$p" ] || { echo "compare.sh: $bin/$p not built (make -j2)" >&2; exit 2; }
done
r=0
while [ $r -lt "$rounds" ]; do
    LOCUS_THREADS=1 $rt "$bin/probe" "$@"
    LOCUS_THREADS=2 $rt "$bin/probe" "$@"
    OMP_NUM_THREADS=2 OMP_PROC_BIND=true $rt "$bin/probe-omp" "$@"
    r=$((r + 1))
done
