"""conformance - what the two conformance stages share.

tests/libgomp-conformance/run (gcc's libgomp testsuite on liblocus-gomp)
and tests/llvm-conformance/run (LLVM's libomp testsuite on liblocus-omp)
differ in where their tests come from, how a test is compiled and run, and
which library is the reference; they share the rest, here: the lists of
exceptions and not-yet tests, a run under a limit on its own clock
(tools/scaled-timeout), the environment a run starts from, and the
verdicts and the summary (judge), whose rules each runner's docstring
states.
"""
import importlib.machinery
import importlib.util
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load_scaled_timeout():
    path = os.path.join(ROOT, "tools", "scaled-timeout")
    loader = importlib.machinery.SourceFileLoader("scaled_timeout", path)
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(mod)
    return mod


scaled_timeout = _load_scaled_timeout()

# variables of the caller that would change what a run does: none reaches it
RUNTIME_VAR_PREFIXES = ("LOCUS_", "OMP_", "GOMP_", "KMP_")


def skip(reason):
    """Exit 77 (skipped) with the reason."""
    print(reason)
    sys.exit(77)


def load_list(path):
    """{name: reason} of an exceptions or not-yet file ("NAME: reason",
    # starts a comment); a name without a reason is an error."""
    d = {}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, why = line.partition(":")
            if not why.strip():
                print(f"conformance: {os.path.basename(path)}: '{name}' gives no reason")
                sys.exit(1)
            d[name.strip()] = why.strip()
    return d


def sanitizer_runtime(cc, sanitizer):
    """The path of cc's runtime of sanitizer (asan, tsan), to preload ahead
    of a test program so that a sanitized Locus layer can run in it;
    skips the stage when cc has none."""
    lib = f"lib{sanitizer}.so"
    path = subprocess.run([cc, f"-print-file-name={lib}"], capture_output=True,
                          text=True).stdout.strip()
    if not os.path.isabs(path) or not os.path.exists(path):
        skip(f"conformance: {cc} has no {lib} (the {sanitizer} runtime): not installed")
    return os.path.realpath(path)


def base_env():
    """The caller's environment less every runtime variable and LD_PRELOAD."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(RUNTIME_VAR_PREFIXES) and k != "LD_PRELOAD"}


def run_limited(argv, timeout, label, env, cwd):
    """(status or None past the limit, stdout, stderr) of argv run under a
    limit of `timeout` seconds on its own clock; past it, the backtrace of
    each thread follows stderr."""
    rc, out, err, report = scaled_timeout.run(
        argv, timeout, kill_after=5, label=label, env=env, stdin=subprocess.DEVNULL, cwd=cwd)
    if report:   # past its limit: what each thread was doing goes with the verdict
        err = err + b"\n" + report.encode()
    return rc, out.decode(errors="replace"), err.decode(errors="replace")


def judge(configs, built, res, *, ok, exceptions, notyet, stop_re, timeout, ref, det,
          exit0_what, kind, check_passing, check_names, verbose=False, sanitizer=""):
    """Verdicts of every Locus run, the summary table and the failures.

    configs: [(name, reference thread count, environment)]; built: the
    tests run (each with .name); res: {(test, "ref", n): (rc, out, err)}
    for the reference at n threads and {(test, config, 0): ...} for Locus
    (a test without the latter is not judged in that configuration);
    ok(test, rc, out, err): whether a run passed; det: the two reference
    thread counts whose stdout, when identical, is the stdout a passing
    Locus run must give (None: stdout is not compared); ref: the reference library's name; exit0_what(t):
    what is wrong with a run that exits 0 and does not pass; kind: what a
    listed test must be ("compiled host run-test"); check_passing: whether
    a not-yet test that passes in every configuration fails the stage;
    check_names: whether a listed name that is not a test run does.
    Returns the failure lines (printed by the caller)."""
    failures = []
    passed_all = {}   # test -> passes in every config where the reference passes
    print(f"conformance: config       compiled {ref + '-pass':>12} locus-pass   stop  WRONG "
          f"not-yet exceptions failures")
    for cname, n, _ in configs:
        c_ref = c_locus = c_stop = c_wrong = c_ny = c_ex = c_fail = 0
        for t in built:
            if (t.name, cname, 0) not in res:
                continue   # not run in this configuration (the runner says why)
            r = res[(t.name, "ref", n)]
            ok_ref = ok(t, *r)
            d0, d1 = (res.get((t.name, "ref", n)) for n in det) if det else (None, None)
            is_det = d0 is not None and d1 is not None and d0[1] == d1[1]
            rc, out, err = res[(t.name, cname, 0)]
            stop = stop_re.search(err)
            passed = ok(t, rc, out, err) and (not is_det or not ok_ref or out == r[1])
            if ok_ref:
                c_ref += 1
            if passed:
                c_locus += 1
                if ok_ref:
                    passed_all.setdefault(t.name, True)
                continue
            if not ok_ref:
                continue  # a test the reference fails here says nothing about Locus
            passed_all[t.name] = False
            if stop:
                c_stop += 1
            if t.name in exceptions:
                c_ex += 1
                continue
            if stop:
                what = f"stopped at {stop.group(1)} ({stop.group(2)})"
                wrong = False
            else:
                wrong = True
                if rc is None:
                    what = f"timed out after {timeout} s on its own clock"
                    print(f"--- {cname} {t.name}: timed out\n" + err[err.find("scaled-timeout:"):])
                elif rc == 0:
                    what = "exit 0 but " + exit0_what(t)
                elif rc < 0:
                    what = f"killed by signal {-rc}"
                else:
                    what = f"exit {rc}"
                tail = (err.strip().splitlines() or [""])[-1][:160] if rc is not None else ""
                if tail:
                    what += f" ({tail})"
                if sanitizer and re.search(r"Sanitizer|runtime error", err):
                    print(f"--- {cname} {t.name}: {sanitizer} report\n"
                          + "\n".join(err.strip().splitlines()[-60:]))
            if verbose:
                print(f"  {cname} {t.name}: {what}")
            if wrong:
                c_wrong += 1
                c_fail += 1
                failures.append(f"WRONG {cname} {t.name}: {what}")
            elif t.name in notyet:
                c_ny += 1
            else:
                c_fail += 1
                failures.append(f"FAIL {cname} {t.name}: {what} (not in not-yet or exceptions)")
        print(f"conformance: {cname:<12} {len(built):8} {c_ref:12} {c_locus:10} {c_stop:6} "
              f"{c_wrong:6} {c_ny:7} {c_ex:10} {c_fail:8}", flush=True)
    names = {t.name for t in built}
    for name in sorted(notyet):
        if check_passing and name in names and passed_all.get(name):
            failures.append(f"FAIL {name}: now passing, remove from not-yet")
    if check_names:
        for fname, listed in (("not-yet", notyet), ("exceptions", exceptions)):
            for name in sorted(listed):
                if name not in names:
                    failures.append(f"FAIL {name}: in {fname} but not a {kind}")
    return failures
