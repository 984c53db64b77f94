#!/usr/bin/env bash
# compare.sh - runs the Locus and the libgomp overhead benchmarks side by side
# and prints per-task cost and the ratio locus/libgomp for every
# (pattern, window).  The two runs of a pattern follow each other (and take
# turns going first), so slow phases of the machine hit both alike.
#
# Usage: benchmarks/overhead/compare.sh [--check] [--csv] [overhead options]
#   overhead options (--quick, --tasks, --window, --reps, --pattern) are passed
#   to both binaries; see build/bench/overhead --help.
#   --csv    print the joined results as CSV instead of a table (medians,
#            ratio, target, and the minimum ns/task of each)
#   --check  exit 1 if a target is missed (targets below)
# Beside each pattern it prints the round trip of a cache line between the
# first two CPUs, measured just before and just after that pattern's two
# runs (build/bench/corelat; column "rt ns").  On a virtual machine it
# swings (100-500 ns on the development VM) as the host moves the virtual
# CPUs, and every cross-core hand-over of a task costs at least one such
# trip: read a row together with its rt.
# Environment: THREADS (default: nproc) sets LOCUS_THREADS and OMP_NUM_THREADS;
#   OMP_PROC_BIND/OMP_PLACES default to true/cores, as Locus binds workers to
#   cores by default (LOCUS_BIND=core); LOCUS_BIN and OMP_BIN override the
#   binaries.
# Targets: locus/libgomp <= 0.2 for the dependent patterns (chain, chains,
#   fanin) and <= 1.0 for indep.
set -euo pipefail

prog=compare.sh
root=$(cd "$(dirname "$0")/../.." && pwd)
locus_bin=${LOCUS_BIN:-$root/build/bench/overhead}
omp_bin=${OMP_BIN:-$root/build/bench/overhead-omp}
corelat_bin=${CORELAT_BIN:-$root/build/bench/corelat}

die() { echo "$prog: $*" >&2; exit 2; }

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
}

patterns=()
pass=()
csv=0
check=0
while [ $# -gt 0 ]; do
    case $1 in
    -h|--help) usage; exit 0 ;;
    --csv) csv=1 ;;
    --check) check=1 ;;
    --pattern) [ $# -ge 2 ] || die "option '--pattern' needs a value"
               patterns+=("$2"); shift ;;
    --pattern=*) patterns+=("${1#--pattern=}") ;;
    --tasks|--window|--reps)
               [ $# -ge 2 ] || die "option '$1' needs a value"
               pass+=("$1" "$2"); shift ;;
    --quick|--tasks=*|--window=*|--reps=*) pass+=("$1") ;;
    *) die "unknown option '$1' (try --help)" ;;
    esac
    shift
done

# Expand 'all', check names, drop duplicates, keep the order given.
expanded=()
for p in "${patterns[@]:-all}"; do
    case $p in
    all) expanded+=(indep chain chains fanin) ;;
    indep|chain|chains|fanin) expanded+=("$p") ;;
    *) die "--pattern '$p': expected indep, chain, chains, fanin or all" ;;
    esac
done
patterns=()
for p in "${expanded[@]}"; do
    case " ${patterns[*]:-} " in *" $p "*) ;; *) patterns+=("$p") ;; esac
done

threads=${THREADS:-$(nproc)}
case $threads in
''|*[!0-9]*) die "THREADS='$threads': expected a positive integer" ;;
*) [ "$((10#$threads))" -gt 0 ] || die "THREADS='$threads': expected a positive integer" ;;
esac

for b in "$locus_bin" "$omp_bin"; do
    if [ ! -x "$b" ]; then
        echo "$prog: $b not found or not executable; build it first: make (in $root)" >&2
        exit 1
    fi
done

export LOCUS_THREADS=$threads OMP_NUM_THREADS=$threads
export OMP_PROC_BIND=${OMP_PROC_BIND:-true} OMP_PLACES=${OMP_PLACES:-cores}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Validate the options once, quickly, before any long run.
for b in "$locus_bin" "$omp_bin"; do
    "$b" "${pass[@]}" --pattern indep --tasks 1 --window 1 --reps 1 --csv \
        >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 2; }
done

corelat() { # prints the median round trip in ns, or - when it cannot be measured
    local out
    if [ "$threads" -gt 1 ] && [ -x "$corelat_bin" ] \
        && out=$("$corelat_bin" --trips 20000 --reps 3 2>/dev/null); then
        out=${out##*median_ns=}
        echo "${out%% *}"
    else
        echo -
    fi
}

run() { # run BIN PATTERN NAME: appends CSV lines to results, context to info
    if ! "$1" "${pass[@]}" --pattern "$2" --csv >"$tmp/out" 2>"$tmp/err"; then
        echo "$prog: $3 failed on pattern $2:" >&2
        cat "$tmp/err" "$tmp/out" >&2
        exit 1
    fi
    grep -v '^impl,' "$tmp/out" >>"$tmp/results" || true
    grep '^#' "$tmp/err" | head -n 1 >>"$tmp/info" || true
}

: >"$tmp/results"
: >"$tmp/info"
echo "# threads=$threads OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES options: ${pass[*]:-(defaults)}" >&2
k=0
for p in "${patterns[@]}"; do
    echo "# running $p ..." >&2
    rt_before=$(corelat)
    if [ $((k % 2)) -eq 0 ]; then
        run "$locus_bin" "$p" locus
        run "$omp_bin" "$p" libgomp
    else
        run "$omp_bin" "$p" libgomp
        run "$locus_bin" "$p" locus
    fi
    echo "rt,$p,$rt_before,$(corelat)" >>"$tmp/results"
    k=$((k + 1))
done
sort -u "$tmp/info" | sed 's/^/  /' >&2

# Join on (pattern, window); rows in the order the locus results came.
quick=0
case " ${pass[*]:-} " in *" --quick "*) quick=1 ;; esac
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
awk -F, -v csv="$csv" -v threads="$threads" -v quick="$quick" -v nodes="${nodes:-1}" \
    -v regime="${LOCUS_REGIME:-naft}" "$(cat "$root/benchmarks/common/targets.awk")"'
    $1 == "locus"   { key = $2 "," $3; if (!(key in lm)) order[n++] = key
                      lm[key] = $6; ln[key] = $7; lw[key] = $5; tasks[key] = $4 }
    $1 == "libgomp" { key = $2 "," $3; gm[key] = $6; gn[key] = $7; gw[key] = $5 }
    $1 == "rt"      { rt[$2] = ($3 == "-" && $4 == "-") ? "-" : $3 "/" $4 }
    END {
        if (csv) print "pattern,window,tasks,threads,locus_ns,libgomp_ns,ratio,target,met,locus_min_ns,libgomp_min_ns,rt_ns"
        else {
            printf "%-7s %8s %14s %16s %14s %7s %4s %11s\n", "pattern", "window",
                   "locus ns/task", "libgomp ns/task", "locus/libgomp", "target", "met", "rt ns"
        }
        bad = 0; missed = 0
        for (i = 0; i < n; i++) {
            key = order[i]; split(key, f, ",")
            if (!(key in gm)) { print "compare.sh: no libgomp result for " key > "/dev/stderr"; bad = 1; continue }
            if (lw[key] != threads || gw[key] != threads)
                printf "compare.sh: warning: %s ran with locus %s / libgomp %s workers, not %s\n",
                       key, lw[key], gw[key], threads > "/dev/stderr"
            target = (f[1] == "indep") ? 1.0 : 0.2
            ratio = (gm[key] > 0) ? lm[key] / gm[key] : 0
            met = (gm[key] > 0 && ratio <= target) ? "yes" : "no"
            win = (f[2] == tasks[key]) ? "N" : f[2]
            kind = (f[1] == "indep") ? "indep" : "dep"
            has[kind] = 1
            if (met == "no") {
                missed++
                miss[kind] = miss[kind] (miss[kind] == "" ? "" : ", ") f[1] " w=" win
            }
            r = (f[1] in rt) ? rt[f[1]] : "-"
            if (csv) printf "%s,%s,%s,%s,%s,%s,%.3f,%.1f,%s,%s,%s,%s\n", f[1], f[2], tasks[key],
                            threads, lm[key], gm[key], ratio, target, met, ln[key], gn[key], r
            else printf "%-7s %8s %14.1f %16.1f %14.3f %7s %4s %11s\n", f[1], win, lm[key],
                        gm[key], ratio, sprintf("<=%.1f", target), met, r
        }
        if (!csv) {
            printf "\nmedian ns per task (spawn + completion of %s tasks; window N = one taskwait at the end).\n", tasks[order[0]]
            printf "ratio = locus/libgomp, lower is better. Targets: dependent patterns (chain, chains,\n"
            printf "fanin) <= 0.2; indep <= 1.0. %d of %d rows miss their target.\n", missed, n
            printf "rt ns = round trip of a cache line between two CPUs before/after the pattern.\n"
            # What each kind of row targets, where the target comes from,
            # and what a miss says on this machine (a sentence each).
            print ""
            wrap("The targets are this project\047s (benchmarks/README.md, Targets), set against its peer libgomp (gcc `task depend`, the same task bodies), not figures of the paper; here " \
                 threads " thread" (threads == 1 ? "" : "s") " on " nodes " NUMA node" (nodes == 1 ? "" : "s") \
                 ", regime " toupper(regime) (nodes == 1 ? " (on one node every regime schedules alike)" : "") (quick ? ", --quick" : "") ":", "", " ")
            if (has["dep"])
                say("dep", "chain, chains, fanin (<= 0.2): Locus\047s cost per dependent task at most a fifth of libgomp\047s. " \
                    "A task handed from one core to another costs at least one rt, so a row measured while rt ns was high (it swings 70-500 ns on the development VM) measures the machine as much as Locus" \
                    (quick ? ", and --quick runs (1e5 tasks, 3 reps) swing the more: a miss says rerun without --quick, then benchmarks/overhead/ab.sh, before it says regression." : ": a miss wants a second invocation and benchmarks/overhead/ab.sh before it is called a regression."))
            if (has["indep"])
                say("indep", "indep (<= 1.0): independent tasks no dearer than libgomp\047s, which runs them inline when its queue is long; " \
                    "a miss means Locus spent more per spawn there" (quick ? ", often within the swing of --quick runs." : ", worth a benchmarks/overhead/ab.sh comparison."))
        }
        exit bad ? 3 : (missed ? 4 : 0)
    }' "$tmp/results" || status=$?
status=${status:-0}
case $status in
0) exit 0 ;;
4) [ "$check" -eq 1 ] && exit 1; exit 0 ;;
*) exit 1 ;;
esac
