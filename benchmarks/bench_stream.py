"""``bacon estimate`` streamed over a Parquet dataset larger than memory (issue 16).

Writes (once; reused when present) a synthetic dataset with ``examples/make_big_pool.py``:
``BACON_STREAM_ITEMS`` items (default 100,000,000), 8 judges, 50 groups, 0.1% labeled
(100,000 at full size), in files of 4,000,000 rows under ``BACON_STREAM_DIR`` (default
``/tmp/bacon_big_pool_<items>``). Then, in this run:

1. the baseline: a plain ``pyarrow`` scan of the same columns (label, 8 judges, group),
   batch by batch, timed twice (before and after ``bacon``; the faster one is used);
2. ``bacon estimate DATA --engine freq --group group`` (mean + groups; one pass over
   the data: ridge fold models need no second) in a child process, timed, with the
   child's peak resident memory (``ru_maxrss``) and CPU time (the scan's CPU time too:
   on a shared machine the CPU ratio is the steadier figure);
3. streaming prediction of the Bayesian engine (``--engine bayes`` fold models, fitted
   on 2,000 of the labels) against the frequentist one on the same 1,000,000 items (the
   second pass's per-chunk work), in items per second (``BACON_STREAM_BAYES=0`` skips
   it).

Run: ``python -m benchmarks stream`` (small: ``BACON_STREAM_ITEMS=10_000_000``).
Targets (full size, 2 cores): peak RSS <= 2 GB, time <= 3x the pyarrow scan.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
JUDGES = 8
GROUPS = 50
COLUMNS = ["label", *(f"judge_{j}" for j in range(JUDGES)), "group"]
CHILD = (
    "import resource, sys, time\n"
    "from bacon_bayes.cli import main\n"
    "t = time.perf_counter(); rc = main(sys.argv[1:]); t = time.perf_counter() - t\n"
    "print(f'BENCH {t} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}', file=sys.stderr)\n"
    "sys.exit(rc)\n"
)


def dataset(items: int) -> Path:
    """The benchmark's dataset folder, written when absent."""
    folder = Path(os.environ.get("BACON_STREAM_DIR", f"/tmp/bacon_big_pool_{items}"))
    if (folder / "TRUTH.json").is_file():
        return folder
    sys.path.insert(0, str(REPO / "examples"))
    from make_big_pool import write_pool

    t = time.perf_counter()
    write_pool(folder, items, JUDGES, GROUPS, max(items // 1000, 10 * GROUPS))
    print(f"wrote {items:,} items to {folder} in {time.perf_counter() - t:.0f} s")
    return folder


def _cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def pyarrow_scan(folder: Path) -> tuple[float, float]:
    """Seconds and CPU seconds to read the columns of every file, batch by batch
    (nothing kept)."""
    import pyarrow.parquet as pq

    t, cpu = time.perf_counter(), _cpu(resource.RUSAGE_SELF)
    rows = 0
    for path in sorted(folder.glob("*.parquet")):
        for batch in pq.ParquetFile(path).iter_batches(batch_size=1_000_000, columns=COLUMNS):
            rows += batch.num_rows
    return time.perf_counter() - t, _cpu(resource.RUSAGE_SELF) - cpu


def run_bacon(folder: Path) -> tuple[float, float, float, dict]:
    """Seconds, CPU seconds, peak RSS (GB) and JSON output of ``bacon estimate`` in a
    child process."""
    args = ["estimate", str(folder), "--label", "label", "--judge", "judge_*"]
    args += ["--group", "group", "--engine", "freq", "--json"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cpu = _cpu(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, *args], capture_output=True, text=True, env=env
    )
    cpu = _cpu(resource.RUSAGE_CHILDREN) - cpu
    if out.returncode != 0:
        raise RuntimeError(f"bacon estimate failed: {out.stderr[-2000:]}")
    line = next(s for s in out.stderr.splitlines() if s.startswith("BENCH "))
    _, secs, rss_kb = line.split()
    return float(secs), cpu, int(rss_kb) / 1e6, json.loads(out.stdout)


def predict_rates(folder: Path, n_items: int = 1_000_000) -> dict[str, float]:
    """Items/s of the second pass's per-chunk work, frequentist and Bayesian fold models."""
    from bacon_bayes import Calibrator
    from bacon_bayes.stream.fit import fit_stream, predict_chunk
    from bacon_bayes.stream.passes import scan_piece
    from bacon_bayes.stream.runner import resolve_columns
    from bacon_bayes.stream.scan import keep_count
    from bacon_bayes.stream.source import plan, read_frames, to_chunk

    files, columns = resolve_columns(folder, label="label", judges=["judge_*"], group="group")
    pieces = plan(files[:1], columns)
    keep = keep_count(sum(p.n_rows for p in pieces), (0.005, 0.995))
    scan = None
    for piece in pieces:
        scan = scan_piece(piece, columns, keep, 1_000_000, acc=scan)
    assert scan is not None
    lab = scan.labeled
    take = np.sort(np.random.default_rng(0).choice(len(lab), min(2000, len(lab)), replace=False))
    for name in ("rows", "y", "scores", "pi", "groups", "items"):
        value = getattr(lab, name)
        if value is not None:
            setattr(lab, name, value[take])
    start, first = next(read_frames(pieces[0], columns, n_items))
    chunk = to_chunk(first, start, pieces[0], columns)
    rates = {}
    for engine in ("freq", "bayes"):
        t = time.perf_counter()
        fit = fit_stream(scan, columns, Calibrator(engine=engine), outcome="continuous")
        fit_time = time.perf_counter() - t
        predict_chunk(chunk, fit.model)  # warm-up (compilation, caches)
        t = time.perf_counter()
        predict_chunk(chunk, fit.model)
        rates[engine] = chunk.rows.size / (time.perf_counter() - t)
        rates[f"{engine}_fit_s"] = fit_time
    return rates


def main() -> None:
    items = int(os.environ.get("BACON_STREAM_ITEMS", "100_000_000").replace("_", ""))
    folder = dataset(items)
    truth = json.loads((folder / "TRUTH.json").read_text())
    load = os.getloadavg()[0]
    scan1, cpu1 = pyarrow_scan(folder)
    secs, cpu, rss, out = run_bacon(folder)
    scan2, cpu2 = pyarrow_scan(folder)
    base, base_cpu = min(scan1, scan2), min(cpu1, cpu2)
    aee = out["mean"]["aee"]
    print(f"N = {items:,} items, {out['n_labeled']:,} labeled, {JUDGES} judges, {GROUPS} groups")
    print(f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(
        f"pyarrow scan of {len(COLUMNS)} columns  {scan1:7.1f} s / {scan2:7.1f} s (baseline), "
        f"CPU {cpu1:.1f} s / {cpu2:.1f} s"
    )
    print(
        f"bacon estimate (freq, mean+groups) {secs:7.1f} s   {secs / base:5.2f}x the scan; "
        f"CPU {cpu:.1f} s, {cpu / base_cpu:5.2f}x the scan's"
    )
    print(f"  peak RSS                          {rss:7.2f} GB  (target <= 2 GB)")
    print(
        f"  AEE mean {aee['estimate']:.5f} [{aee['ci_low']:.5f}, {aee['ci_high']:.5f}], "
        f"true pool mean {truth['mean']:.5f}"
    )
    if os.environ.get("BACON_STREAM_BAYES", "1") == "0":
        return
    rates = predict_rates(folder)
    print(f"second-pass prediction, freq   {rates['freq']:12,.0f} items/s")
    print(
        f"second-pass prediction, bayes  {rates['bayes']:12,.0f} items/s   "
        f"{rates['bayes'] / rates['freq']:.3f}x freq (Bayesian fit on 2,000 labels: "
        f"{rates['bayes_fit_s']:.0f} s)"
    )


if __name__ == "__main__":
    main()
