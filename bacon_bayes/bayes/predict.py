"""Predictions of a fitted judge model: posterior-mean moments, variance and the
predictive CDF, in chunks of draws x items, sharing z's per-draw moments between the
fold models of a cut fit."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import numpy as np

from bacon_bayes.bayes.closed_forms import latent_posterior
from bacon_bayes.errors import NotFittedError

if TYPE_CHECKING:
    pass

from bacon_bayes.bayes.defaults import LATENT_CACHE_SIZE


class JudgeModelPrediction:
    """Prediction (mixed into :class:`~bacon_bayes.bayes.base.JudgeModel`)."""

    # -------------------------------------------------------------- predict
    def _check_fitted(self) -> None:
        if not hasattr(self, "posterior_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted; call fit first")

    def _collapse_arrays(self, arr: dict, post: dict) -> tuple[np.ndarray, np.ndarray]:
        """Per-draw posterior mean and variance of z given the judges, each (d, n)."""
        Q = arr["Q"]
        mu = post["theta"] @ Q.T if "theta" in post else np.zeros((1, Q.shape[0]))
        log_sd = post["log_noise"][:, None, :]
        for k in range(arr["U"].shape[2]):  # broadcasting: einsum here was 7x slower
            log_sd = log_sd + arr["U"][None, :, :, k] * post["uncertainty"][:, k, None, None]
        c = np.exp(post["log_scale"])
        return latent_posterior(arr["L"], arr["obs"], post["offset"], c, log_sd, mu)

    def _chunks(self, n_draws: int, n_items: int, width: int = 0):
        """Draw slices whose (draws, items, max(judges, width)) arrays hold ~4e6 numbers."""
        size = max(1, int(4e6 // max(n_items * max(self.columns.n_judges, width), 1)))
        for start in range(0, n_draws, size):
            yield slice(start, min(start + size, n_draws))

    def _per_draw(self, X: np.ndarray, fn, width: int = 0) -> list:
        """``fn(post, m, v, q, off)`` per chunk of draws: z's per-draw moments (d, n),
        the items' QR embedding rows ``q`` (n, E) and the link's judge-weight plus
        group-effect terms ``off`` (each (d, n); None without either; an item of no group
        or of one the model never saw has group effect 0)."""
        self._check_fitted()
        X = np.asarray(X, dtype=float)
        arr = self.design_.transform(X)
        weighted = self.judge_weight_names[0] in self.posterior_
        r = arr["L"] @ self._weight_basis() if weighted else None
        group = None
        if self.group_effect_names[0] in self.posterior_:
            group = self.design_.group_index(X)
        n_draws = next(iter(self.posterior_.values())).shape[0]
        out = []
        cache = getattr(self, "_latent_cache_", None)
        chunks = None
        if cache is not None:
            chunks = _cache_entry(cache, _array_key(X), 2 * n_draws * X.shape[0])
        for sl in self._chunks(n_draws, X.shape[0], width):
            post = {k: v[sl] for k, v in self.posterior_.items()}
            if chunks is None:
                m, v = self._collapse_arrays(arr, post)
            else:
                if (sl.start, sl.stop) not in chunks:
                    chunks[sl.start, sl.stop] = self._collapse_arrays(arr, post)
                m, v = chunks[sl.start, sl.stop]
            off = None  # the link's own weights and group effects: this fold's, not cached
            if r is not None:
                off = tuple(post[name] @ r.T for name in self.judge_weight_names)
            if group is not None:
                names = self.group_effect_names
                effects = tuple(_group_terms(post[name], group) for name in names)
                if off is not None:
                    effects = tuple(a + b for a, b in zip(off, effects, strict=True))
                off = effects
            out.append(fn(post, m, v, arr["Q"], off))
        return out

    def predict_moments(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean of E[Y|x] and posterior predictive Var(Y|x) (total variance).

        The last X's result is kept (``predict`` then ``predict_var`` of the same rows,
        as cross-fitting does, compute it once); copies are returned.
        """
        self._check_fitted()
        X = np.asarray(X, dtype=float)
        key = (_array_key(X), id(self.posterior_))  # a copy with other draws: recompute
        kept = self.__dict__.get("_moments_kept_")
        if kept is None or kept[0] != key:
            acc = _DrawMoments()
            self._per_draw(
                X, lambda p, m, v, q, o: acc.add(*self._moments(p, self.constants_, m, v, q, o))
            )
            kept = (key, *acc.result())
            self._moments_kept_ = kept
        return kept[1].copy(), kept[2].copy()

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Posterior mean over draws of E[Y | judges, embedding] for each row."""
        return self.predict_moments(X)[0]

    def predict_var(self, X: np.ndarray) -> np.ndarray:
        """Posterior predictive variance of Y for each row (law of total variance)."""
        return self.predict_moments(X)[1]

    def predict_cdf(self, X: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Posterior predictive P(Y <= t_k | x_i), shape (n, len(t))."""
        t = np.atleast_1d(np.asarray(t, dtype=float))
        total = np.zeros((np.shape(X)[0], t.size))

        def add(p, m, v, q, o) -> None:  # accumulate: one (n, len(t)) array whatever chunking
            np.add(total, self._cdf(p, self.constants_, m, v, t, q, o).sum(0), out=total)

        self._per_draw(X, add, width=t.size)
        n_draws = next(iter(self.posterior_.values())).shape[0]
        return np.clip(total / n_draws, 0.0, 1.0)


class _DrawMoments:
    """Running posterior mean of E[Y|x] and predictive variance over blocks of draws
    (each (draws, items)), never holding a draws x items array of all draws: block means
    and squared deviations merged by Chan's formula, plus the summed within-draw variance."""

    def __init__(self) -> None:
        self.n = 0
        self.mean: np.ndarray | None = None
        self.m2: np.ndarray | None = None
        self.var_sum: np.ndarray | None = None

    def add(self, mean_d: np.ndarray, var_d: np.ndarray) -> None:
        d = mean_d.shape[0]
        mean = mean_d.mean(axis=0)
        m2 = ((mean_d - mean) ** 2).sum(axis=0)
        var_sum = var_d.sum(axis=0)
        if self.mean is None or self.m2 is None or self.var_sum is None:
            self.n, self.mean, self.m2, self.var_sum = d, mean, m2, var_sum
            return
        n = self.n + d
        delta = mean - self.mean
        self.mean = self.mean + delta * (d / n)
        self.m2 = self.m2 + m2 + delta * delta * (self.n * d / n)
        self.var_sum = self.var_sum + var_sum
        self.n = n

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean, and mean within-draw variance plus the variance of the means."""
        assert self.mean is not None and self.m2 is not None and self.var_sum is not None
        return self.mean, self.var_sum / self.n + self.m2 / self.n


def _group_terms(effects: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Each item's group effect per draw, (d, n), from the draws' effects (d, G) and the
    items' group index (-1: no group or an unseen one, effect 0)."""
    padded = np.concatenate([effects, np.zeros((effects.shape[0], 1))], axis=1)
    return padded[:, group]  # index -1 reads the padding's 0


def _cache_entry(cache: dict, key: Any, size: int) -> dict | None:
    """The chunks of z's moments kept for the X of ``key`` (``size`` numbers), or None
    when it exceeds :data:`LATENT_CACHE_SIZE`. The most recent Xs are kept up to that
    size (a cross-fit predicts each fold's own items and then the unlabeled ones: with
    only the last X kept, every fold recomputed the unlabeled items' moments)."""
    if size > LATENT_CACHE_SIZE:
        return None
    entry = cache.pop(key, None) or {"size": size, "chunks": {}}
    while cache and sum(e["size"] for e in cache.values()) + size > LATENT_CACHE_SIZE:
        cache.pop(next(iter(cache)))  # the least recently used X
    cache[key] = entry
    return entry["chunks"]


def _array_key(X: np.ndarray) -> tuple[str, tuple[int, ...]]:
    """A key identifying an array's contents and shape (for the prediction caches)."""
    return hashlib.blake2b(X.tobytes(), digest_size=16).hexdigest(), X.shape
