"""The shared tables with their prompt and system columns, for ``bacon simulate --prompt``.

    python -m benchmarks.comparison_data OUTDIR

writes ``OUTDIR/trivia.csv`` (TriviaQA: label ``y`` = Human-Eval as 0/1, the 9 judges as
0/1, ``model`` the answering model, ``question`` the prompt; 3,200 rows) and
``OUTDIR/wmt22.parquet`` (WMT22 zh-en, MQM-rated rows: label ``y`` = -MQM, the 10 metrics
of :mod:`benchmarks.bench_simulate`, ``system``, ``seg_id`` the source segment; 30,000
rows). SummEval needs nothing: the shipped ``bacon_bayes/data/summeval_sample.csv.gz`` has
``doc_id`` and ``system``. A table whose shared data is absent is skipped with where it
was looked for (absolute paths, :func:`~benchmarks.adaptive_experiment.shared_data_roots`);
the exit status is 1 when nothing was written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from benchmarks.adaptive_experiment import find_shared_data, shared_data_roots
from benchmarks.bench_bayes_multinomial import JUDGES, RELATIVE
from benchmarks.bench_simulate import METRICS, WMT_FILE


def trivia(path: Path) -> pd.DataFrame:
    df = pd.read_csv(path)
    df = df[df["Human-Eval"].notna()].reset_index(drop=True)
    out = df[list(JUDGES)].astype(float)
    out["y"] = df["Human-Eval"].astype(float)
    out["model"], out["question"] = df["model"], df["question"]
    return out


def wmt22(path: Path) -> pd.DataFrame:
    frame = pd.read_csv(path, usecols=["system", "seg_id", "mqm", *METRICS])
    frame = frame[frame["mqm"].notna()].reset_index(drop=True)
    frame["y"] = -frame["mqm"]
    return frame.drop(columns="mqm")


def main(argv: list[str] | None = None) -> int:
    """Write the tables to OUTDIR; 1 (with where the data were looked for) when none was
    written, 0 otherwise."""
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else ".").absolute()
    out.mkdir(parents=True, exist_ok=True)
    wrote = 0
    for name, rel, load, write in (
        ("trivia.csv", RELATIVE, trivia, "to_csv"),
        ("wmt22.parquet", WMT_FILE, wmt22, "to_parquet"),
    ):
        path = find_shared_data(rel)
        if path is None:
            looked = ", ".join(str(root / rel) for root in shared_data_roots())
            print(f"skipped {name}: {rel} is absent; looked for {looked}", file=sys.stderr)
            continue
        getattr(load(path), write)(out / name, index=False)
        print(f"wrote {out / name} (from {path})")
        wrote += 1
    if not wrote:
        print(
            "wrote nothing: set BACON_SHARED_DATA to the folder holding the shared data "
            "(its judging_the_judges_triviaqa/ and wmt22_zhen_mqm/)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
