"""The judges' consensus (one-factor scores): on the covariance vs sklearn on the data.

``bayes.selection.consensus`` (behind ``judge_weights="auto"`` of the Bayesian ordinal
and hurdle families, once per fit on every item's judge scores) ran sklearn's
``FactorAnalysis(n_components=1)``: each step a randomized SVD of the n x k data. It now
runs the same steps on the k x k covariance (``one_factor_scores``). Both run here on the
same simulated judges (WMT22's size: 30,000 items; 5 metrics with four missing on a
quarter of the items and filled, and 60 metrics), sklearn as the baseline in this process;
printed: CPU seconds, the ratio, sklearn's steps (ours take the same), and the largest
difference of the scores (up to sign).

Run: ``python -m benchmarks consensus`` (``make bench``).
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from bacon_bayes.bayes.selection import one_factor_scores

ITEMS = 30_000


def judges(k: int, filled: bool, seed: int = 0) -> np.ndarray:
    """Standardised scores of ``k`` judges of one quality (noise sd 0.1 to 1.2)."""
    rng = np.random.default_rng(seed)
    z = rng.normal(size=ITEMS)
    scores = z[:, None] + rng.normal(size=(ITEMS, k)) * np.linspace(0.1, 1.2, k)
    if filled:
        scores[: ITEMS // 4, 1:] = scores[ITEMS // 4 :, 1:].mean(axis=0)
    return (scores - scores.mean(axis=0)) / scores.std(axis=0)


def main() -> None:
    from sklearn.decomposition import FactorAnalysis

    head = ("judges", "sklearn s", "steps", "ours s", "ratio", "max diff")
    print(f"{head[0]:<12} {head[1]:>9} {head[2]:>5} {head[3]:>7} {head[4]:>7} {head[5]:>9}")
    for k, filled in ((5, True), (60, False)):
        scores = judges(k, filled)
        fa = FactorAnalysis(n_components=1, random_state=0)
        start = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = fa.fit_transform(scores)[:, 0]
        base = time.process_time() - start
        start = time.process_time()
        ours = one_factor_scores(scores)
        took = time.process_time() - start
        diff = np.abs(np.abs(theirs) - np.abs(ours)).max()
        name = f"{k}, filled" if filled else f"{k}"
        print(f"{name:<12} {base:9.2f} {fa.n_iter_:5d} {took:7.3f} {base / took:6.0f}x {diff:9.1e}")


if __name__ == "__main__":
    main()
