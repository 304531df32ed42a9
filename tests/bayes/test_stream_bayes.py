"""The Bayesian engine streams: fold models predict a pool chunk by chunk (means and the
predictive CDF on a grid) with the same sums as all items at once."""

from __future__ import annotations

import numpy as np

from bacon_bayes.stream.fit import FeatureStats, StreamModel, predict_chunk
from bacon_bayes.stream.source import Chunk


class Unchanged(FeatureStats):
    """Feature statistics that hand the model's own columns through (NaN included)."""

    def transform(self, scores: np.ndarray) -> np.ndarray:
        return scores


def test_bayesian_fold_models_predict_the_same_sums_chunk_by_chunk(gaussian_folds, gaussian_sim):
    models, y, _ = gaussian_folds
    X = np.asarray(gaussian_sim.X, dtype=float)
    p = X.shape[1]
    same = Unchanged(
        tuple(f"x{k}" for k in range(p)),
        np.full(p, -np.inf),
        np.full(p, np.inf),
        np.zeros(p),
        np.zeros(p, dtype=int),
        np.zeros(p, dtype=int),
    )
    grid = np.quantile(y[~np.isnan(y)], [0.1, 0.5, 0.9])
    lab = np.flatnonzero(~np.isnan(y))
    model = StreamModel(same, list(models), np.array([0.5, 0.5]), grid, lab, np.zeros(lab.size))
    total = None
    for rows in np.array_split(np.arange(y.size), 4):
        chunk = Chunk(rows, y[rows], X[rows], None, None, None, None)
        part, _ = predict_chunk(chunk, model)
        total = part if total is None else total.merge(part)
    assert total is not None and total.cdf is not None
    unl = np.isnan(y)
    sums = [m.predict(X[unl]).sum() for m in models]
    np.testing.assert_allclose(total.groups[["p0", "p1"]].to_numpy()[0], sums, rtol=1e-10)
    cdf = np.stack([m.predict_cdf(X[unl], grid).sum(0) for m in models])
    np.testing.assert_allclose(total.cdf, cdf, rtol=1e-10)
    assert int(total.groups["n_unlabeled"].iloc[0]) == unl.sum()
