"""What ``--group`` adds to ``bacon estimate`` on a large pool (issue 40, "group work is
done once").

Writes (once; reused when present) with ``examples/make_big_pool.py`` a pool of
``BACON_GROUP_ITEMS`` items (default 1,000,000) in one Parquet file: 3 judges, 10 groups
whose true means are equal (``effect_sd=0``), 1% labeled, under ``BACON_GROUP_DIR``
(default ``/tmp/bacon_group_pool_<items>``). Then, in one child process (imports and
compilation warmed up by a first run), alternately ``ROUNDS`` times each:

    bacon estimate POOL --label label --judge 'judge_*' --engine freq
    bacon estimate POOL --label label --judge 'judge_*' --engine freq --group group

(the in-memory path: a single file, not streamed), timed around ``bacon_bayes.cli.main``
with the output discarded. Printed: the best time of each and their ratio (wall clock;
and CPU time of the process, steadier on a shared machine), and the comparisons block of
the ``--group`` run (its plan note included); the time of the plan's line
(``resolution_note``, wrapped in the child) as a share of each ``--group`` run.

Run: ``python -m benchmarks group_overhead`` (``BACON_GROUP_ROUNDS``: rounds, default
3; ``BACON_GROUP_EFFECT``: sd of the groups' true effects, default 0, e.g. 0.03 for
systems whose differences the plan's line plans for). Targets: ratio <= 2, the plan's
line <= 10% of the command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
JUDGES = 3
GROUPS = 10
LABEL_SHARE = 0.01
ROUNDS = int(os.environ.get("BACON_GROUP_ROUNDS", "3"))
CHILD = """
import contextlib, io, json, sys, time
import bacon_bayes.planning as planning
from bacon_bayes.cli import main
plain, rounds = sys.argv[1:-1], int(sys.argv[-1])
note_times = []
def timed(*args, _note=planning.resolution_note, **kwargs):
    t = time.perf_counter()
    try:
        return _note(*args, **kwargs)
    finally:
        note_times.append(time.perf_counter() - t)
# the plan's line, timed inside the --group runs (the command imports it when it runs)
planning.resolution_note = timed
grouped = [*plain, "--group", "group"]
with contextlib.redirect_stdout(io.StringIO()):
    main(plain)  # warm-up: imports, compiled code
times = {"plain": [], "group": [], "plain_cpu": [], "group_cpu": [], "note": []}
for _ in range(rounds):
    for name, args in (("plain", plain), ("group", grouped)):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            t, cpu = time.perf_counter(), time.process_time()
            rc = main(args)
            times[name].append(time.perf_counter() - t)
            times[name + "_cpu"].append(time.process_time() - cpu)
        if rc != 0:
            raise SystemExit(f"bacon {' '.join(args)} exited {rc}")
        if name == "group":
            text = out.getvalue()
            times["note"].append(sum(note_times))
        note_times.clear()
print(json.dumps({"times": times, "text": text}))
"""


def dataset(items: int, effect_sd: float = 0.0) -> Path:
    """The benchmark's Parquet file, written when absent."""
    tail = f"_{effect_sd:g}" if effect_sd else ""
    folder = Path(os.environ.get("BACON_GROUP_DIR", f"/tmp/bacon_group_pool_{items}{tail}"))
    path = folder / "part-00000.parquet"
    if (folder / "TRUTH.json").is_file() and path.is_file():
        return path
    sys.path.insert(0, str(REPO / "examples"))
    from make_big_pool import write_pool

    t = time.perf_counter()
    labels = round(LABEL_SHARE * items)
    write_pool(folder, items, JUDGES, GROUPS, labels, rows_per_file=items, effect_sd=effect_sd)
    print(
        f"wrote {items:,} items ({labels:,} labeled) to {folder} in {time.perf_counter() - t:.0f} s"
    )
    return path


def main() -> None:
    items = int(os.environ.get("BACON_GROUP_ITEMS", "1_000_000").replace("_", ""))
    effect_sd = float(os.environ.get("BACON_GROUP_EFFECT", "0"))
    path = dataset(items, effect_sd)
    args = ["estimate", str(path), "--label", "label", "--judge", "judge_*", "--engine", "freq"]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    load = os.getloadavg()[0]
    out = subprocess.run(
        [sys.executable, "-c", CHILD, *args, str(ROUNDS)],
        capture_output=True,
        text=True,
        env=env,
    )
    if out.returncode != 0:
        raise RuntimeError(f"bacon estimate failed: {out.stderr[-2000:]}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    times = result["times"]
    plain, group = min(times["plain"]), min(times["group"])
    plain_cpu, group_cpu = min(times["plain_cpu"]), min(times["group_cpu"])
    means = f"group effects sd {effect_sd:g}" if effect_sd else "equal true means"
    print(f"N = {items:,} items, {round(LABEL_SHARE * items):,} labeled, {JUDGES} judges, "
          f"{GROUPS} groups with {means}")  # fmt: skip
    print(f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(f"command: bacon {' '.join(args)} [--group group]")
    for name, label in (("plain", "without --group"), ("group", "with --group   ")):
        wall = ", ".join(f"{t:.2f}" for t in times[name])
        cpu = ", ".join(f"{t:.2f}" for t in times[name + "_cpu"])
        print(f"{label}  {wall} s  (CPU {cpu} s)")
    print(
        f"ratio (best of {ROUNDS} each)  {group / plain:.2f}x  (target <= 2); "
        f"CPU {group_cpu / plain_cpu:.2f}x"
    )
    share = [n / g for n, g in zip(times["note"], times["group"], strict=True)]
    print(
        "the plan's line (resolution_note) in the --group runs  "
        + ", ".join(f"{n:.3f}" for n in times["note"])
        + f" s, at most {max(share):.1%} of the command (target <= 10%)"
    )
    text = result["text"]
    start = text.find("comparisons of")
    print("\n" + (text[start:] if start >= 0 else "(no comparisons block)").rstrip())


if __name__ == "__main__":
    main()
