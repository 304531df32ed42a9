"""Convergence checks run after every fit: R-hat, bulk/tail ESS, divergences."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from bacon_bayes.errors import ConvergenceWarning

__all__ = [
    "BARELY_VARIES",
    "ConvergenceWarning",
    "Diagnostics",
    "check_convergence",
    "convergence_note",
    "merge_diagnostics",
    "preset_file",
    "warn_if_poor",
]

RHAT_MAX = 1.01

#: How a Python user sets each sampler setting the advice names (``Diagnostics.advice``).
PYTHON_SETTINGS: dict[str, str] = {
    "draws": "draws=",
    "tune": "tune=",
    "chains": "chains=",
    "target_accept": "target_accept=",
    "priors": "priors= or a preset",
}
#: The same through a preset file, the command line's way (``--preset FILE.toml``).
PRESET_SETTINGS: dict[str, str] = {
    **{k: f"[sampler] {k} in a --preset FILE.toml" for k in ("draws", "tune", "chains")},
    "target_accept": "[sampler] target_accept in a --preset FILE.toml",
    "priors": "a --preset FILE.toml with a [priors] table",
}
#: ``Diagnostics.stage`` of a cut fit's judge stage (one run shared by every fold).
SHARED_STAGE = "judge stage"
#: The advice on divergences that points at the data (``bacon estimate`` and the report
#: name the judges ``bacon doctor`` flags as constant on a group after it).
BARELY_VARIES = "check for a judge that barely varies"
#: The target_accept the advice suggests next, by the one in use: below 0.95 -> 0.95,
#: below 0.99 -> 0.99; from 0.99 on, raising it is no advice.
ACCEPT_STEPS = (0.95, 0.99)


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
    #: target_accept of the run these diagnostics are of (None: not recorded, older files)
    target_accept: float | None = None
    #: the part of a cut fit that did not converge ("judge stage": label-free, shared
    #: by every fold; "label link": the fold's own), "" when it converged or is not said
    stage: str = ""
    #: the target_accept the user set, where an automatic retry ran at a higher one
    #: (``target_accept``); None when the run used the user's
    asked_accept: float | None = None

    @property
    def ok(self) -> bool:
        """R-hat <= 1.01 and no divergence."""
        return bool(self.max_rhat <= RHAT_MAX and self.n_divergent == 0)

    def to_dict(self) -> dict[str, float | int | str | bool]:
        return {**asdict(self), "ok": self.ok}

    def advice(self, settings: Mapping[str, str] = PYTHON_SETTINGS) -> str:
        """What to try, given what went wrong; ``settings``: how the user sets each
        sampler setting (``draws``, ``tune``, ``chains``, ``target_accept``, ``priors``;
        a setting left out is not advised)."""
        tips = []
        if self.n_divergent:
            ways = []
            ta, raise_to = self.target_accept, ACCEPT_STEPS[0]
            if ta is not None:
                raise_to = next((s for s in ACCEPT_STEPS if ta < s), None)
            if raise_to is not None and "target_accept" in settings:
                now = "" if ta is None else f" above its {ta:g}"
                ways.append(
                    f"raise target_accept{now}, e.g. to {raise_to:g} ({settings['target_accept']})"
                )
            if "priors" in settings:
                ways.append(f"use tighter priors ({settings['priors']})")
            ways.append(BARELY_VARIES)
            already = "" if raise_to is not None else f" (target_accept is already {ta:g})"
            if self.asked_accept is not None and ta is not None and self.asked_accept != ta:
                already = (
                    f" left after an automatic retry at target_accept {ta:g} (the setting: "
                    f"{self.asked_accept:g})"
                )
            tips.append(f"{self.n_divergent} divergent transitions{already}: {', or '.join(ways)}")
        more = [
            f"{what} ({settings[key]})"
            for key, what in (("tune", "tuning"), ("draws", "draws"), ("chains", "chains"))
            if key in settings
        ]
        if self.max_rhat > RHAT_MAX:
            listed = " or ".join([", ".join(more[:-1]), more[-1]] if len(more) > 1 else more)
            todo = f": run more {listed}" if more else ""
            tips.append(f"R-hat {self.max_rhat:.3f} on {self.worst_rhat} (> {RHAT_MAX}){todo}")
        if self.min_ess_bulk < 100 * self.n_chains:
            todo = f": increase draws ({settings['draws']})" if "draws" in settings else ""
            tips.append(
                f"bulk ESS only {self.min_ess_bulk:.0f} on {self.worst_ess}{todo} for stable "
                "intervals"
            )
        return "; ".join(tips)


def preset_file(family: str, advice: str = "", preset: str | None = None) -> str:
    """What a ``--preset FILE.toml`` holds beside the setting ``advice`` (a convergence
    note) names: a preset without ``family`` is refused (helper W14: the advice
    "[sampler] target_accept in a --preset FILE.toml", followed, gave "preset has no
    'family'"). ``preset``: the one the fit used (a file, or a shipped name and its
    file's path), which the file starts from: a file of the family alone would drop its
    other settings (``hurdle_mqm``'s square root and judge weights)."""
    import re

    to = re.search(r"target_accept above its [0-9.]+, e\.g\. to ([0-9.]+)", advice)
    example = f"target_accept = {to[1]}" if to else "draws = 3000"
    if preset is None:
        return (
            f'FILE.toml names the family first, family = "{family}", then the table named '
            f"above and the setting under it as key = value (e.g. [sampler], then {example} "
            "on the next line); the settings it does not give keep their defaults"
        )
    shipped = "" if str(preset).endswith(".toml") else "the shipped preset "
    return (
        f"FILE.toml: a copy of {shipped}{preset}, the preset used here, with the setting set "
        f"under the table named above (e.g. {example} under [sampler])"
    )


def convergence_note(
    diagnostics: Sequence[Diagnostics | None], settings: Mapping[str, str] = PYTHON_SETTINGS
) -> str:
    """One line saying that the fits of ``diagnostics`` (one per fold, None: no sampler)
    did not converge, which ones, and what to try; "" when every one converged."""
    bad = [(k, d) for k, d in enumerate(diagnostics) if d is not None and not d.ok]
    if not bad:
        return ""
    worst = max(bad, key=lambda kd: (kd[1].n_divergent > 0, kd[1].max_rhat))[1]
    which = (
        ""
        if len(diagnostics) == 1
        else f" in all {len(diagnostics)} folds"
        if len(bad) == len(diagnostics)  # "in fold 1, 2, 3, 4, 5 of 5" said it the long way
        else f" in fold {', '.join(str(k + 1) for k, _ in bad)} of {len(diagnostics)}"
    )
    if all(d.stage == SHARED_STAGE for _, d in bad):  # one run, the same in every fold
        shared = f", shared by all {len(diagnostics)} folds" if len(diagnostics) > 1 else ""
        which = f" in its {SHARED_STAGE} (label-free{shared})"
    elif all(d.stage for _, d in bad):
        which += f" (in the {' and the '.join(dict.fromkeys(d.stage for _, d in bad))})"
    return (
        f"the Bayesian fit did not converge{which} ({worst.sampler} sampler); its numbers "
        f"are printed as they came out, to be read with care: {worst.advice(settings)}"
    )


def _flat_min(ds) -> tuple[float, str]:
    best, name = np.inf, ""
    for var, da in ds.data_vars.items():
        vals = np.asarray(da.values, dtype=float)
        if vals.size and np.nanmin(vals) < best:
            best, name = float(np.nanmin(vals)), str(var)
    return best, name


def check_convergence(
    idata: Any,
    *,
    sampler: str,
    seconds: float,
    warn: bool = True,
    target_accept: float | None = None,
) -> Diagnostics:
    """Compute R-hat, ESS and divergences of ``idata`` (sampled at ``target_accept``);
    warn with advice when poor.

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
        target_accept=target_accept,
    )
    if warn:
        warn_if_poor(diag, stacklevel=3)
    return diag


def warn_if_poor(diag: Diagnostics, stacklevel: int = 1, where: str = "") -> None:
    """A ``ConvergenceWarning`` with advice when ``diag`` is not :attr:`~Diagnostics.ok`
    (``stacklevel`` counted from the caller; ``where``: which fit, e.g. ``" in fold 3 of
    5"``); the warning carries ``diag``."""
    if not diag.ok:
        warning = ConvergenceWarning(
            f"the {diag.sampler} sampler did not converge{where} (the fit is kept as it is): "
            f"{diag.advice()}"
        )
        warning.diagnostics = diag
        warnings.warn(warning, stacklevel=stacklevel + 1)


def merge_diagnostics(parts: list[Diagnostics]) -> Diagnostics:
    """One summary of several sampler runs behind one posterior (a cut fit's stages):
    worst R-hat and ESS, all divergences, total time, the smallest draw count, the
    target_accept of the runs that diverged (else of all; the largest)."""
    rhat = max(parts, key=lambda d: d.max_rhat)
    diverged = [d.target_accept for d in parts if d.n_divergent] or [d.target_accept for d in parts]
    accept = [a for a in diverged if a is not None]
    top = max(accept) if accept else None
    asked = [d.asked_accept for d in parts if d.target_accept == top and d.asked_accept]
    stages = [d.stage for d in parts if not d.ok and d.stage]
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
        target_accept=top,
        stage=" and ".join(dict.fromkeys(stages)),
        asked_accept=asked[0] if asked else None,
    )
