"""Convergence checks run after every fit: R-hat, bulk/tail ESS, divergences."""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import numpy as np

__all__ = [
    "ConvergenceWarning",
    "Diagnostics",
    "check_convergence",
    "merge_diagnostics",
    "warn_if_poor",
]

RHAT_MAX = 1.01


class ConvergenceWarning(UserWarning):
    """The sampler did not converge well enough to trust the posterior."""


@dataclass(frozen=True)
class Diagnostics:
    """Summary of one fit's convergence (every parameter, worst value reported)."""

    max_rhat: float
    worst_rhat: str
    min_ess_bulk: float
    min_ess_tail: float
    worst_ess: str
    n_divergent: int
    n_draws: int
    n_chains: int
    sampler: str
    seconds: float

    @property
    def ok(self) -> bool:
        """R-hat <= 1.01 and no divergence."""
        return bool(self.max_rhat <= RHAT_MAX and self.n_divergent == 0)

    def to_dict(self) -> dict[str, float | int | str | bool]:
        return {**asdict(self), "ok": self.ok}

    def advice(self) -> str:
        """What to try, given what went wrong."""
        tips = []
        if self.n_divergent:
            tips.append(
                f"{self.n_divergent} divergent transitions: raise target_accept (e.g. 0.95), "
                "or use stronger priors (a preset), or check for a judge that barely varies"
            )
        if self.max_rhat > RHAT_MAX:
            tips.append(
                f"R-hat {self.max_rhat:.3f} on {self.worst_rhat} (> {RHAT_MAX}): run more "
                "tuning and draws (tune=, draws=) or more chains"
            )
        if self.min_ess_bulk < 100 * self.n_chains:
            tips.append(
                f"bulk ESS only {self.min_ess_bulk:.0f} on {self.worst_ess}: "
                "increase draws= for stable intervals"
            )
        return "; ".join(tips)


def _flat_min(ds) -> tuple[float, str]:
    best, name = np.inf, ""
    for var, da in ds.data_vars.items():
        vals = np.asarray(da.values, dtype=float)
        if vals.size and np.nanmin(vals) < best:
            best, name = float(np.nanmin(vals)), str(var)
    return best, name


def check_convergence(idata, *, sampler: str, seconds: float, warn: bool = True) -> Diagnostics:
    """Compute R-hat, ESS and divergences of ``idata``; warn with advice when poor.

    Warns (``ConvergenceWarning``) when max R-hat > 1.01 or any transition diverged.
    """
    import arviz as az

    post = idata.posterior
    # the sampler's unconstrained copies (``log_sd_log__``, ``cut_ordered__``) are the
    # same parameters reparametrised; PyMC leaves them out of its posterior too
    post = post[[v for v in post.data_vars if not str(v).endswith("__")]]
    rhat = az.rhat(post)
    neg = rhat.map(lambda x: -np.nan_to_num(x, nan=np.inf))
    mr, wr = _flat_min(neg)
    bulk, wb = _flat_min(az.ess(post, method="bulk"))
    tail, _ = _flat_min(az.ess(post, method="tail"))
    div = 0
    stats = getattr(idata, "sample_stats", None)
    if stats is not None:  # a cut fit has both stages' ("diverging", "judges_diverging")
        for name in stats.data_vars:
            if str(name).endswith("diverging"):
                div += int(np.asarray(stats[name]).sum())
    diag = Diagnostics(
        max_rhat=-mr,
        worst_rhat=wr,
        min_ess_bulk=bulk,
        min_ess_tail=tail,
        worst_ess=wb,
        n_divergent=div,
        n_draws=int(post.sizes["draw"]),
        n_chains=int(post.sizes["chain"]),
        sampler=sampler,
        seconds=float(seconds),
    )
    if warn:
        warn_if_poor(diag, stacklevel=3)
    return diag


def warn_if_poor(diag: Diagnostics, stacklevel: int = 1) -> None:
    """A ``ConvergenceWarning`` with advice when ``diag`` is not :attr:`~Diagnostics.ok`
    (``stacklevel`` counted from the caller)."""
    if not diag.ok:
        warnings.warn(
            f"the {diag.sampler} sampler did not converge: {diag.advice()}",
            ConvergenceWarning,
            stacklevel=stacklevel + 1,
        )


def merge_diagnostics(parts: list[Diagnostics]) -> Diagnostics:
    """One summary of several sampler runs behind one posterior (a cut fit's stages):
    worst R-hat and ESS, all divergences, total time, the smallest draw count."""
    rhat = max(parts, key=lambda d: d.max_rhat)
    ess = min(parts, key=lambda d: d.min_ess_bulk)
    return Diagnostics(
        max_rhat=rhat.max_rhat,
        worst_rhat=rhat.worst_rhat,
        min_ess_bulk=ess.min_ess_bulk,
        min_ess_tail=min(d.min_ess_tail for d in parts),
        worst_ess=ess.worst_ess,
        n_divergent=sum(d.n_divergent for d in parts),
        n_draws=min(d.n_draws for d in parts),
        n_chains=min(d.n_chains for d in parts),
        sampler=parts[0].sampler,
        seconds=sum(d.seconds for d in parts),
    )
