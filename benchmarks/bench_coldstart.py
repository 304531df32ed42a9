"""Cold start: a first Bayesian fit in a fresh process with empty compiler caches vs warm ones.

Every run is a fresh subprocess doing the ordinal whole 5-fold cross-fit of
:mod:`benchmarks.bench_bayes` (5,000 items, 1,000 labeled, 8 judges, 32 embedding
components; compile, sampling and predictions of every item) with the same seed:

* ``cold``: empty directories for every compiler cache involved: ours (JAX's persistent
  compilation cache and numba's, ``BACON_CACHE_DIR``), PyTensor's compiledir
  (``PYTENSOR_FLAGS=base_compiledir=...``), numba's own (``NUMBA_CACHE_DIR``), the XDG
  cache (``XDG_CACHE_HOME``) and matplotlib's (``MPLCONFIGDIR``);
* ``warm``: the same directories again, as the cold run left them;
* ``warm, cache off``: the same, with ``BACON_CACHE=0`` (what every fresh process paid
  before the compiled-code cache: JAX compiled everything again);
* ``hot``: a second cross-fit in the warm run's process (nothing left to compile).

The three fresh-process runs are interleaved in rounds (new empty directories each
round; the machine's load drifts) and reported as medians. Each is printed as a ratio
to one default ``pm.sample()`` of a small reference model (hierarchical linear
regression, 500 observations, 8 groups) timed in this process after an untimed short
run that compiles it. The fits' predictions must be identical
bit for bit across the runs (checked; a mismatch raises).

Run: ``python -m benchmarks coldstart`` (``make bench``); ``python -m
benchmarks.bench_coldstart --quick`` (or ``BACON_BENCH_QUICK=1``) samples 100 tune +
100 draws per stage instead of the defaults (the compile work is the same) and runs 3
rounds (default 1); ``--rounds=N`` sets the rounds, ``--bytecode`` also starts the cold
runs without Python bytecode (``PYTHONPYCACHEPREFIX`` in the empty directory: an
environment whose installer wrote no ``.pyc`` files).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

QUICK_DRAWS = 100
CACHE_ENV = ("BACON_CACHE", "BACON_CACHE_DIR", "JAX_COMPILATION_CACHE_DIR", "NUMBA_CACHE_DIR")


def _load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def child(quick: bool, repeat: bool) -> dict:
    """One cross-fit in this (fresh) process; its timings, JAX's compile counts and a
    hash of the predictions."""
    start = time.perf_counter()
    import bacon_bayes.bayes  # noqa: F401  (configures PyTensor first)
    from benchmarks.bench_bayes import _data, crossfit, preimport

    preimport()
    import jax.monitoring

    counts = {"compiles": 0, "compile_s": 0.0, "cache_hits": 0}

    def listen(event: str, secs: float, **_: object) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            counts["compiles"] += 1
            counts["compile_s"] += secs
        elif event == "/jax/compilation_cache/cache_retrieval_time_sec":
            counts["cache_hits"] += 1

    jax.monitoring.register_event_duration_secs_listener(listen)
    imports = time.perf_counter() - start
    sim, y = _data()
    kw = {}
    if quick:
        kw = {"draws": QUICK_DRAWS, "tune": QUICK_DRAWS, "label_draws": QUICK_DRAWS}
    secs, cpu, diags, pred, _ = crossfit(sim, y, **kw)
    out = {
        "imports": imports,
        "fit": secs,
        "cpu": cpu,
        **counts,
        "max_rhat": max(d["max_rhat"] for d in diags),
        "pred_hash": hashlib.sha256(np.ascontiguousarray(pred).tobytes()).hexdigest()[:16],
    }
    if repeat:
        before = counts["compiles"]
        out["hot_fit"], *_ = crossfit(sim, y, **kw)
        out["hot_compiles"] = counts["compiles"] - before
    return out


def run_child(
    root: Path, quick: bool, repeat: bool = False, cache: bool = True, bytecode: bool = False
) -> dict:
    """A fresh process with every compiler cache under ``root``; its result plus the
    process's wall time up to the end of its first fit. ``bytecode``: Python's bytecode
    cache under ``root`` too (an environment whose installer wrote no ``.pyc`` files)."""
    env = {k: v for k, v in os.environ.items() if k not in CACHE_ENV}
    env |= {
        "BACON_CACHE_DIR": str(root / "bacon"),
        "NUMBA_CACHE_DIR": str(root / "numba"),
        "XDG_CACHE_HOME": str(root / "xdg"),
        "MPLCONFIGDIR": str(root / "mpl"),
        "PYTENSOR_FLAGS": ",".join(
            f
            for f in (os.environ.get("PYTENSOR_FLAGS", ""), f"base_compiledir={root}/pytensor")
            if f
        ),
    }
    if not cache:
        env["BACON_CACHE"] = "0"
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(root / "pyc")
    args = [sys.executable, "-m", "benchmarks.bench_coldstart", "--child"]
    args += ["--quick"] * quick + ["--repeat"] * repeat
    start = time.perf_counter()
    proc = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"cold-start child failed:\n{proc.stderr[-3000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    # the process up to the end of its first fit (the hot second fit ran last)
    return {**result, "process": wall - result.get("hot_fit", 0.0)}


RUNS = (
    ("cold", {}),
    ("warm", {"repeat": True}),
    ("warm, cache off", {"cache": False}),
)


def rounds(n: int, quick: bool, bytecode: bool) -> dict[str, list[dict]]:
    """``n`` rounds of cold, warm and warm-with-the-cache-off runs, interleaved (the
    machine's load drifts), each round in new empty cache directories."""
    runs: dict[str, list[dict]] = {name: [] for name, _ in RUNS}
    for i in range(n):
        with tempfile.TemporaryDirectory(prefix="bacon-coldstart-") as tmp:
            for name, kw in RUNS:
                load = _load()
                runs[name].append(run_child(Path(tmp), quick, bytecode=bytecode, **kw))
                print(f"  round {i + 1} {name}: ran at {load} -> {_load()}", flush=True)
    return runs


def reference_fit() -> float:
    """Seconds of one default ``pm.sample()`` of a small hierarchical regression (after an
    untimed short run that compiles the same model)."""
    import pymc as pm  # after bacon_bayes.bayes (main), which sets PyTensor's backend

    rng = np.random.default_rng(0)
    groups = rng.integers(0, 8, 500)
    x = rng.normal(size=500)
    y = 1.0 + (0.5 + 0.3 * rng.normal(size=8))[groups] * x + rng.normal(size=500)
    with pm.Model():
        mu = pm.Normal("slope_mu", 0.0, 1.0)
        sd = pm.HalfNormal("slope_sd", 1.0)
        slope = pm.Normal("slope", mu, sd, shape=8)
        intercept = pm.Normal("intercept", 0.0, 2.0)
        noise = pm.HalfNormal("noise", 2.0)
        pm.Normal("y", intercept + slope[groups] * x, noise, observed=y)
        pm.sample(draws=10, tune=10, progressbar=False, random_seed=1)
        start = time.perf_counter()
        pm.sample(progressbar=False, random_seed=0, compute_convergence_checks=False)
        return time.perf_counter() - start


def _median(runs: list[dict], key: str) -> float:
    return float(np.median([r[key] for r in runs]))


def _line(name: str, runs: list[dict], ref: float) -> str:
    m = {k: _median(runs, k) for k in ("process", "imports", "fit", "cpu", "compile_s")}
    each = ", ".join(f"{r['fit']:.1f}" for r in runs)
    return (
        f"  {name}: process {m['process']:.1f} s ({m['process'] / ref:.2f}x ref), of it "
        f"imports {m['imports']:.1f} s and the cross-fit {m['fit']:.1f} s "
        f"({m['fit'] / ref:.2f}x ref; CPU {m['cpu']:.1f} s; each run {each} s); JAX "
        f"compilations {runs[0]['compiles']} ({m['compile_s']:.1f} s), loaded from the cache "
        f"{runs[0]['cache_hits']}; max R-hat {runs[0]['max_rhat']:.4f}"
    )


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    quick = "--quick" in argv or os.environ.get("BACON_BENCH_QUICK", "") not in ("", "0")
    if "--child" in argv:
        print(json.dumps(child(quick, "--repeat" in argv)), flush=True)
        return
    n = next(
        (int(a.split("=", 1)[1]) for a in argv if a.startswith("--rounds=")), 3 if quick else 1
    )
    bytecode = "--bytecode" in argv
    what = f"{QUICK_DRAWS} tune + {QUICK_DRAWS} draws per stage" if quick else "default draws"
    print(f"ordinal whole 5-fold cross-fit ({what}), each in a fresh process; {n} round(s)")
    if bytecode:
        print("  Python bytecode cache also empty in the cold runs (PYTHONPYCACHEPREFIX)")
    runs = rounds(n, quick, bytecode)
    import bacon_bayes.bayes  # noqa: F401  (PyTensor's backend as for our fits)

    load = _load()
    ref = reference_fit()
    print(f"reference: one default pm.sample() of a small hierarchical regression {ref:.1f} s")
    print(f"  (reference ran at {load}); medians over the rounds:")
    for name, r in runs.items():
        print(_line(name, r, ref))
    warm, cold, off = runs["warm"], runs["cold"], runs["warm, cache off"]
    print(
        f"  hot (second cross-fit in the warm process): {_median(warm, 'hot_fit'):.1f} s "
        f"({_median(warm, 'hot_fit') / ref:.2f}x ref), JAX compilations {warm[0]['hot_compiles']}"
    )
    ratio = {k: _median(cold, k) / _median(warm, k) for k in ("process", "fit")}
    print(
        f"cold / warm: process {ratio['process']:.2f}, cross-fit {ratio['fit']:.2f}; warm with "
        f"the cache off / warm: cross-fit {_median(off, 'fit') / _median(warm, 'fit'):.2f}"
    )
    hashes = {r["pred_hash"] for rs in runs.values() for r in rs}
    if len(hashes) != 1:
        raise AssertionError(f"predictions differ between cold and warm runs: {hashes}")
    print("predictions identical bit for bit in every run")


if __name__ == "__main__":
    main()
