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
# on 2 cores.  The figures and timelines say which topology they ran on
# (here: real; bullion-s16: virtual, 16 workers on this machine's CPUs) and,
# on one NUMA node, that the regimes coincide; each comparison table says
# what its targets are and what a miss means here; the demo ends with what
# its results say on this machine, a sentence each.
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

# This machine, for what the figures and the closing words say of it.
cpus=$(nproc)
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
[ "$nodes" -ge 1 ] || nodes=1

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
    # What every timeline says of its topology: bullion-s16 is modelled
    # (LOCUS_TOPOLOGY), its 16 workers take turns on this machine's CPUs.
    local note="bullion-s16 is a VIRTUAL topology (16 NUMA nodes modelled by Locus, no page moves): \
its 16 workers took turns on this machine's $cpus CPUs ($nodes real NUMA node$([ "$nodes" = 1 ] || echo s)). \
Which node ran each task and how far its bytes were are the modelled machine's; the times are not."
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
        local R=${regime^^}
        tools/locus-trace timeline "$tdir/cholesky-$regime" --note "$note" \
            --title "cholesky small, $R, bullion-s16 (virtual), 16 workers on $cpus CPUs (colour: kernel)" \
            -o "$plots/timeline-cholesky-$regime.png" || fail "locus-trace timeline ($regime) failed"
        tools/locus-trace timeline "$tdir/cholesky-$regime" --color far --note "$note" \
            --title "cholesky small, $R, bullion-s16 (virtual), 16 workers on $cpus CPUs (colour: far bytes)" \
            -o "$plots/timeline-cholesky-$regime-far.png" || fail "locus-trace timeline --color far ($regime) failed"
    done
    tools/locus-trace compare "$tdir/cholesky-dft" "$tdir/cholesky-naft" --note "$note" \
        --title "cholesky small on bullion-s16 (virtual), 16 workers on $cpus CPUs: DFT against NAFT" \
        --title-a "DFT (NUMA-oblivious scheduling, first-touch pages)" \
        --title-b "NAFT (NUMA-aware scheduling, first-touch tasks dealt over the nodes)" \
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

# What the figures and rows above mean on this machine, in a sentence each.
over=$((16 / cpus))
echo "=== what these results say on this machine ($cpus CPUs, $nodes NUMA node$([ "$nodes" = 1 ] || echo s))"
{
    if [ "$nodes" = 1 ]; then
        echo "- One NUMA node here: DFT, DI and NAFT are one schedule (interleaving over one node is first touch, NAFT's per-node queues are one), so the figures of topology 'machine' draw one series, 'DFT = DI = NAFT (one NUMA node)', and table3.md's ratios for it are run-to-run spread, not NUMA effects."
    fi
    echo "- bullion-s16 is a virtual topology (16 NUMA nodes modelled by Locus, no page moves): its 16 workers ran on these $cpus CPUs$([ "$over" -gt 1 ] && echo " (${over}x oversubscribed)"), as its figures and timelines say; its byte counts (what NAFT keeps local) are the runtime's accounting for the modelled machine, its times and speedups are not that machine's."
    echo "- The 'rows miss their target' lines: each table says under it what its targets are (this project's, against its peer libgomp, not the paper's) and what a miss means on $cpus CPUs; with --quick a miss is a reason to rerun the full comparison, not a verdict."
} | fold -s -w 100

if [ $rc -ne 0 ]; then
    echo "demo: FAILED (see the messages above)" >&2
else
    echo "demo: done; results in $csv, figures and table3.md in $dir/plots"
fi
exit $rc
