"""The plan -> sample -> estimate loop of ``--pairwise`` and the votes it takes: the
engine carried along every printed command, the difference a plan sized reported by
estimate, votes outside the drawn wave, several votes per comparison, judges spelled
another way and judges that always say the same (tester T3's findings)."""

from __future__ import annotations

import pandas as pd

from .test_pairwise_cli import SAMPLE, _printed, _run

FREQ = ["--engine", "freq"]


def test_a_uniform_plan_carries_the_engine_to_the_estimate_command(capsys, tmp_path):
    """T3 #12: the uniform design's sample command dropped --engine, so the estimate
    command it printed ran the Bayesian engine, not the frequentist fit the plan used."""
    src = tmp_path / "arena.csv"
    pd.read_csv(SAMPLE).to_csv(src, index=False)
    argv = ["plan", str(src), "--pairwise", "--half-width", "0.3", "--designs", "uniform"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    sample = _printed(out, "sample")
    assert sample[sample.index("--engine") + 1] == "freq", sample
    code, out, err = _run([*sample, "--out", str(tmp_path / "w.csv")], capsys)
    assert code == 0, err
    estimate = _printed(out, "estimate")
    assert estimate[estimate.index("--engine") + 1] == "freq", estimate
    # sample run by hand without --engine: auto, the frequentist pilot, said so
    code, out, err = _run(["sample", str(src), "--pairwise", "--budget", "50", "--out",
                           str(tmp_path / "w2.csv")], capsys)  # fmt: skip
    assert code == 0, err
    estimate = _printed(out, "estimate")
    assert estimate[estimate.index("--engine") + 1] == "freq", estimate
