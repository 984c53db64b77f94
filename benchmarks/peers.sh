#!/usr/bin/env bash
# peers.sh - the benchmarks against their peers, in one invocation, the
# programs taking turns so that noise hits all alike: tiled Cholesky on
# Locus against the same tiles on libgomp, OpenBLAS's own multithreaded
# dpotrf and the DGEMM rate; Jacobi on Locus against its libgomp version and
# the STREAM triad.  Where clang-14 built the OpenMP peers (NAME-clang),
# they run on LLVM's libomp and, unchanged, on liblocus-omp too: Locus
# against libomp with the same tiles, and Locus through its libomp layer.  Prints medians over ROUNDS rounds and the ratios the
# targets are about (benchmarks/README.md), and for each tile size the
# Cholesky kernel bound (lapack_peer --bound: the rate its tile kernels
# allow when no worker ever waits) with each runtime's share of it.
# Usage: benchmarks/peers.sh   Environment: THREADS (default nproc), ROUNDS
#   (default 5), N (Cholesky order, default 8192), TILES (default "256 512"),
#   JACOBI (jacobi preset, default small).
set -euo pipefail
case ${1:-} in
-h|--help) sed -n '2,/^set -/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
'') ;;
*) echo "peers.sh: unexpected argument '$1' (settings are environment variables; try --help)" >&2
   exit 2 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
b=$root/build/bench
for p in cholesky cholesky-omp lapack_peer jacobi jacobi-omp stream; do
    [ -x "$b/$p" ] || { echo "peers.sh: $b/$p missing: run make" >&2; exit 2; }
done
clang=0
[ -x "$b/cholesky-clang" ] && [ -x "$b/jacobi-clang" ] && [ -e "$root/build/liblocus-omp.so" ] &&
    clang=1
threads=${THREADS:-$(nproc)}
rounds=${ROUNDS:-5}
n=${N:-8192}
tiles=${TILES:-256 512}
jsize=${JACOBI:-small}
export LOCUS_THREADS=$threads OMP_NUM_THREADS=$threads OMP_PROC_BIND=true OMP_PLACES=cores
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
metric() { sed -n 's/.*RESULT .* metric=\([^ ]*\) .*/\1/p' | tail -1; }
blas=$("$b/cholesky" --size test | sed -n 's/.* blas=\([^ ]*\).*/\1/p')
echo "# $threads threads, $rounds rounds, cholesky n=$n tiles: $tiles, jacobi $jsize; BLAS $blas"
for r in $(seq 1 "$rounds"); do
    echo "# round $r/$rounds" >&2
    for t in $tiles; do
        echo "chol_locus_$t $("$b/cholesky" --n "$n" --tile "$t" | metric)" >>"$tmp/m"
        echo "chol_omp_$t $("$b/cholesky-omp" --n "$n" --tile "$t" | metric)" >>"$tmp/m"
        if [ "$clang" = 1 ]; then
            echo "chol_libomp_$t $("$b/cholesky-clang" --n "$n" --tile "$t" | metric)" >>"$tmp/m"
            echo "chol_locusomp_$t $(LD_PRELOAD=$root/build/liblocus-omp.so \
                "$b/cholesky-clang" --n "$n" --tile "$t" | metric)" >>"$tmp/m"
        fi
        echo "chol_bound_$t $("$b/lapack_peer" --bound "$n" --tile "$t" --threads "$threads" \
                             | metric)" >>"$tmp/m"
    done
    echo "potrf $("$b/lapack_peer" --potrf "$n" --threads "$threads" | metric)" >>"$tmp/m"
    echo "dgemm $("$b/lapack_peer" --dgemm "$n" --threads "$threads" | metric)" >>"$tmp/m"
    echo "jacobi_locus $("$b/jacobi" --size "$jsize" | metric)" >>"$tmp/m"
    echo "jacobi_omp $("$b/jacobi-omp" --size "$jsize" | metric)" >>"$tmp/m"
    if [ "$clang" = 1 ]; then
        echo "jacobi_libomp $("$b/jacobi-clang" --size "$jsize" | metric)" >>"$tmp/m"
        echo "jacobi_locusomp $(LD_PRELOAD=$root/build/liblocus-omp.so \
            "$b/jacobi-clang" --size "$jsize" | metric)" >>"$tmp/m"
    fi
    echo "stream $("$b/stream" --threads "$threads" | metric)" >>"$tmp/m"
done
python3 - "$tmp/m" "$tiles" <<'PY'
import statistics, sys
vals = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    vals.setdefault(k, []).append(float(v))
med = {k: statistics.median(v) for k, v in vals.items()}
tiles = sys.argv[2].split()
best = max(tiles, key=lambda t: med[f"chol_locus_{t}"])
for k in sorted(med):
    print(f"{k:18} {med[k]:10.2f}  (min {min(vals[k]):.2f}, max {max(vals[k]):.2f})")
cl, co = med[f"chol_locus_{best}"], med[f"chol_omp_{best}"]
jl = med["jacobi_locus"]
# the targets of issue 15: (what, ratio, at least)
checks = [
    (f"cholesky (best tile {best}) / DGEMM rate", cl / med["dgemm"], 0.9),
    (f"cholesky (best tile {best}) / OpenBLAS dpotrf", cl / med["potrf"], 1.0),
    (f"cholesky (best tile {best}) / libgomp, same tiles", cl / co, 1.05),
    ("jacobi / STREAM triad", jl / med["stream"], 0.9),
]
if f"chol_libomp_{best}" in med:
    # issue 29: the clang peers at least as fast on Locus (liblocus-omp) as
    # on libomp; and Locus itself against libomp
    checks += [
        (f"cholesky (best tile {best}) / libomp, same tiles", cl / med[f"chol_libomp_{best}"], 1.0),
        (f"cholesky-clang on liblocus-omp / on libomp", med[f"chol_locusomp_{best}"]
         / med[f"chol_libomp_{best}"], 1.0),
        ("jacobi-clang on liblocus-omp / on libomp", med["jacobi_locusomp"]
         / med["jacobi_libomp"], 1.0),
    ]
print(f"cholesky: {cl:.2f} GFLOP/s (tile {best}); jacobi: {jl:.2f} GB/s, "
      f"{jl / med['jacobi_omp']:.3f} x libgomp (no target)")
for t in tiles:
    kb = med[f"chol_bound_{t}"]
    print(f"cholesky tile {t}: kernel bound {kb:.2f} GFLOP/s = {kb / med['dgemm']:.3f} x DGEMM; "
          f"Locus {med[f'chol_locus_{t}'] / kb:.3f} of it, libgomp {med[f'chol_omp_{t}'] / kb:.3f}"
          + (f", libomp {med[f'chol_libomp_{t}'] / kb:.3f}, liblocus-omp "
             f"{med[f'chol_locusomp_{t}'] / kb:.3f}" if f"chol_libomp_{t}" in med else ""))
for what, r, target in checks:
    print(f"{what:48} {r:6.3f}  target >= {target:<4}  {'met' if r >= target else 'MISSED'}")
PY
