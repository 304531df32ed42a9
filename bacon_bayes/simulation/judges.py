"""Simulated judge data with known per-judge bias (for tests and benchmarks)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bacon_bayes.bayes.columns import ColumnSpec

__all__ = ["SimulatedJudges", "simulate_judges"]


@dataclass
class SimulatedJudges:
    """X in ``ColumnSpec.simple`` layout, all labels y, the truth and the spec."""

    X: np.ndarray
    y: np.ndarray
    quality: np.ndarray  # human-scale latent quality E[y | z] (gaussian) or z (others)
    offsets: np.ndarray
    scales: np.ndarray
    noise: np.ndarray
    columns: ColumnSpec
    levels: np.ndarray | None


def _phi(x: np.ndarray) -> np.ndarray:
    from scipy import special

    return special.ndtr(x)


def simulate_judges(
    n: int = 2000,
    n_judges: int = 5,
    n_emb: int = 4,
    *,
    family: str = "gaussian",
    n_levels: int = 5,
    missing: float = 0.05,
    uncertainty_effect: float = 0.3,
    label_noise: float = 0.5,
    nonlinear: float = 0.0,
    positive_scale: str = "log",
    seed: int = 0,
) -> SimulatedJudges:
    """Draw items, judge scores and human labels from the collapsed judge model.

    Judge j scores ``offsets[j] + scales[j] * q + noise`` where q is the item's
    latent quality on the human scale (``nonlinear`` > 0 adds a judge-specific
    quadratic bias the model does not have, for misspecification tests). Each
    judge has one uncertainty feature that scales its noise by
    ``exp(uncertainty_effect * u)``; ``noise`` is each judge's noise sd at ``u = 0``, while
    a judge model that standardises ``u`` on the scored rows has its noise at their mean
    ``ubar_j``: ``noise * exp(uncertainty_effect * ubar_j)`` is its truth.
    ``missing`` is the share of missing scores.
    The hurdle's positive labels are log-normal (``positive_scale="log"``) or squares
    of a normal that is positive but for 0.3% of items (``"sqrt"``).
    """
    rng = np.random.default_rng(seed)
    E = rng.normal(size=(n, n_emb))
    beta = rng.normal(0, 0.4 / np.sqrt(max(n_emb, 1)), size=n_emb)
    z = E @ beta + rng.normal(0, 1.0, size=n)
    if family == "gaussian":
        q = 3.0 + z
        y = q + rng.normal(0, label_noise, size=n)
        levels = None
    elif family == "ordinal":
        levels = np.arange(1.0, n_levels + 1)
        cut = np.linspace(-1.5, 1.5, n_levels - 1)
        q = z
        y = levels[np.searchsorted(cut, z + rng.normal(0, label_noise, size=n))]
    elif family == "hurdle":
        levels = None
        q = z
        positive = rng.random(n) < _phi(0.3 + 1.2 * z)
        if positive_scale == "sqrt":
            size = (2.5 + 0.8 * z + label_noise * rng.normal(size=n)) ** 2
        else:
            size = np.exp(0.5 + 0.6 * z + label_noise * rng.normal(size=n))
        y = np.where(positive, size, 0.0)
    else:
        raise ValueError(f"unknown family {family!r}")
    offsets = rng.normal(0.5, 0.8, size=n_judges)
    scales = np.exp(rng.normal(0.0, 0.3, size=n_judges))
    noise = np.exp(rng.normal(np.log(0.6), 0.3, size=n_judges))
    U = rng.normal(size=(n, n_judges))
    sd = noise * np.exp(uncertainty_effect * U)
    qc = q - q.mean()
    bend = nonlinear * rng.choice([-1.0, 1.0], size=n_judges) * (qc[:, None] ** 2 - 1.0)
    L = offsets + scales * q[:, None] + bend + sd * rng.normal(size=(n, n_judges))
    L[rng.random((n, n_judges)) < missing] = np.nan
    all_missing = np.isnan(L).all(axis=1)
    L[all_missing, 0] = offsets[0] + scales[0] * q[all_missing]
    X = np.column_stack([L, U, E])
    return SimulatedJudges(
        X=X,
        y=y,
        quality=q,
        offsets=offsets,
        scales=scales,
        noise=noise,
        columns=ColumnSpec.simple(n_judges, 1, n_emb),
        levels=levels,
    )
