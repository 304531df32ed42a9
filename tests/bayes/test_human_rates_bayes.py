"""Judges' rates against the human label with the Bayesian engine: the same AEE ratio
estimates on the Dawid-Skene model's cross-fitted class probabilities, on pools whose
judges err together (the model assumes they do not). Slow: one NUTS cross-fit per pool;
writes its section of VALIDATION.md."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest
from scipy import stats

from bacon_bayes import Calibrator
from tests.test_human_rates import err_together

from .conftest import write_section

POOLS = 80
LEVEL = 0.9
PRESET = """
family = "multinomial"
description = "validation: fewer draws"
[sampler]
draws = 300
tune = 300
chains = 2
"""
SECTION = "## Judges' rates against people, Bayesian engine (simulation)"


@pytest.mark.slow
def test_bayesian_engine_rates_against_people_cover_both_ways(tmp_path):
    preset = tmp_path / "fast.toml"
    preset.write_text(PRESET)
    start = time.perf_counter()
    covered, errors, widths = [], [], []
    for seed in range(POOLS):
        pool, conf = err_together(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # short chains: R-hat warnings expected
            table = Calibrator(preset=str(preset), seed=seed).fit(pool).judge_bias(LEVEL)
        cat = table.iloc[:4]
        truth = np.r_[conf[:, 0, 1], conf[:, 1, 0]]
        lo = np.r_[cat["fpr_human_low"], cat["fnr_human_low"]]
        hi = np.r_[cat["fpr_human_high"], cat["fnr_human_high"]]
        covered.append((lo <= truth) & (truth <= hi))
        errors.append(np.r_[cat["fpr_human"], cat["fnr_human"]] - truth)
        widths.append(hi - lo)
    covered_ = np.array(covered)
    rate, per_rate = float(covered_.mean()), covered_.mean(axis=0)
    lo, hi = stats.binom.ppf([0.005, 0.995], POOLS, LEVEL) / POOLS
    err = np.array(errors)
    se = err.std(axis=0, ddof=1) / np.sqrt(POOLS)
    write_section(
        SECTION,
        f"Produced by `make validate` (tests/bayes/test_human_rates_bayes.py); took "
        f"{time.perf_counter() - start:.0f} s. {POOLS} pools from `err_together` "
        "(tests/test_human_rates.py: 600 items, 20% labels, 4 binary judges whose errors "
        "share each item's difficulty, one continuous judge); `Calibrator(engine='bayes')` "
        "multinomial (Dawid-Skene, which assumes independent errors), 5-fold cross-fit, 2 "
        "chains x 300 draws after 300 tuning; 90% intervals of each judge's `fpr_human` "
        "and `fnr_human` against the pool's true rates. Band: the two-sided 99% binomial "
        f"band of {POOLS} pools for the pooled share (a pool's 8 intervals share its "
        "label draw).\n\n"
        "| rates | coverage | band | per rate (min-max) | mean width | max abs. mean error |\n"
        "|---|---|---|---|---|---|\n"
        f"| 8 per pool x {POOLS} | {rate:.3f} | {lo:.3f}-{hi:.3f} | {per_rate.min():.2f}-"
        f"{per_rate.max():.2f} | {np.mean(widths):.3f} | "
        f"{np.abs(err.mean(axis=0)).max():.4f} |",
    )
    assert lo <= rate <= hi, (rate, per_rate)
    assert np.all(np.abs(err.mean(axis=0)) <= 3.5 * se + 0.003), (err.mean(axis=0), se)
