#!/usr/bin/env bash
# demo.sh - what `make demo` runs after building: a small sweep of the five
# benchmarks in the three regimes (DFT, DI, NAFT), on this machine with 1 and
# 2 workers and on the virtual bullion-s16 (the paper's 16-node machine,
# modelled by Locus; its 16 workers share the real cores, so its times say
# little but its byte counts say what NAFT saves), then the figures and the
# Table 3 analogue (benchmarks/plot), then the per-task overhead comparison
# (benchmarks/overhead/compare.sh --quick), one OTF2 trace of cholesky per
# regime on bullion-s16 with its timelines (build/demo/traces/, the PNGs in
# build/demo/plots/), and the same OpenMP binaries on
# libgomp and on Locus (benchmarks/gomp-compare.sh --quick).  A few minutes
# on 2 cores.
#
# Writes build/demo/results.csv (started afresh each time) and
# build/demo/plots/.  A benchmark whose program is not built is skipped with
# a warning; a built one that fails or fails verification makes the demo
# exit 1 (after the rest has run).
#
# Environment: DEMO_SIZE (benchmarks/run --size; default: small, with
#   streamcluster and inthist at test: their small presets take seconds to
#   minutes here), DEMO_REPS (default 3), DEMO_DIR (default build/demo),
#   BIN_DIR (default build/bench).
# Usage: benchmarks/demo.sh [--help]   (no other argument: settings are
#   the environment variables above)
set -uo pipefail

case ${1:-} in
-h|--help) sed -n '2,/^set -/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
'') ;;
*) echo "demo: unexpected argument '$1' (settings are environment variables; try --help)" >&2
   exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1

size=${DEMO_SIZE:-small,streamcluster=test,inthist=test}
reps=${DEMO_REPS:-3}
dir=${DEMO_DIR:-build/demo}
bin=${BIN_DIR:-build/bench}

present=()
for b in cholesky smi jacobi streamcluster inthist; do
    if [ -x "$bin/$b" ]; then
        present+=("$b")
    else
        echo "demo: warning: $bin/$b is not built: $b left out" >&2
    fi
done

rc=0
fail() { echo "demo: $*" >&2; rc=1; }

rm -rf "$dir"
mkdir -p "$dir"
csv=$dir/results.csv

if [ ${#present[@]} -eq 0 ]; then
    echo "demo: warning: no benchmark program built in $bin: no sweep" >&2
else
    list=$(IFS=,; echo "${present[*]}")
    common=(--bench "$list" --size "$size" --reps "$reps" --csv "$csv" --bin-dir "$bin")

    echo "=== benchmarks/run on this machine, workers 1 and 2"
    benchmarks/run "${common[@]}" --workers 1,2 || fail "a run on this machine failed (see above)"

    echo "=== benchmarks/run on the virtual bullion-s16 (16 nodes), 16 workers"
    benchmarks/run "${common[@]}" --topology bullion-s16 --workers 16 ||
        fail "a run on bullion-s16 failed (see above)"

    echo "=== benchmarks/plot $csv --out $dir/plots"
    if [ -s "$csv" ]; then
        benchmarks/plot "$csv" --out "$dir/plots" || fail "benchmarks/plot failed"
    else
        fail "no results to plot"
    fi
fi

# One trace per regime of cholesky on bullion-s16 (LOCUS_TRACE, locus(7))
# and its timelines beside the figures: where each regime ran what, and
# (--color far) how far from its data.
trace_demo() {
    local b=$bin/cholesky tdir=$dir/traces plots=$dir/plots
    if [ ! -x "$b" ]; then
        echo "demo: warning: $b is not built: no traces" >&2
        return 0
    fi
    if ! /usr/bin/python3 -c 'import otf2, matplotlib' 2>/dev/null; then
        echo "demo: warning: python3-otf2 or python3-matplotlib missing: no timelines" >&2
        return 0
    fi
    mkdir -p "$tdir" "$plots"
    for regime in dft di naft; do
        rm -rf "$tdir/cholesky-$regime"
        local out
        if ! out=$(LOCUS_TOPOLOGY=bullion-s16 LOCUS_THREADS=16 LOCUS_REGIME=$regime \
                   LOCUS_TRACE=$tdir/cholesky-$regime "$b" --size small 2>&1); then
            if grep -q 'built without OTF2' <<<"$out"; then
                echo "demo: warning: Locus was built without OTF2: no traces" >&2
                return 0
            fi
            echo "$out" >&2
            fail "the traced cholesky run ($regime) failed"
            continue
        fi
        tools/locus-trace timeline "$tdir/cholesky-$regime" \
            --title "cholesky small, bullion-s16, 16 workers, $regime (colour: kernel)" \
            -o "$plots/timeline-cholesky-$regime.png" || fail "locus-trace timeline ($regime) failed"
        tools/locus-trace timeline "$tdir/cholesky-$regime" --color far \
            --title "cholesky small, bullion-s16, 16 workers, $regime (colour: far bytes)" \
            -o "$plots/timeline-cholesky-$regime-far.png" || fail "locus-trace timeline --color far ($regime) failed"
    done
    tools/locus-trace compare "$tdir/cholesky-dft" "$tdir/cholesky-naft" \
        -o "$plots/timeline-cholesky-dft-vs-naft.png" >"$plots/trace-compare-cholesky.txt" &&
        cat "$plots/trace-compare-cholesky.txt" || fail "locus-trace compare failed"
}
echo "=== traces of cholesky on bullion-s16, one per regime ($dir/traces), timelines in $dir/plots"
trace_demo

if [ -f benchmarks/overhead/compare.sh ]; then
    echo "=== benchmarks/overhead/compare.sh --quick"
    bash benchmarks/overhead/compare.sh --quick || fail "benchmarks/overhead/compare.sh --quick failed"
fi

if [ -x "$bin/cholesky-omp" ] && [ -f build/liblocus-gomp.so ]; then
    echo "=== benchmarks/gomp-compare.sh --quick (the same OpenMP binaries on libgomp and on Locus)"
    bash benchmarks/gomp-compare.sh --quick || fail "benchmarks/gomp-compare.sh --quick failed"
fi

if [ $rc -ne 0 ]; then
    echo "demo: FAILED (see the messages above)" >&2
else
    echo "demo: done; results in $csv, figures and table3.md in $dir/plots"
fi
exit $rc
