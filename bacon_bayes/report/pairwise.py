"""Bradley-Terry results of a pool of comparisons, as text, JSON and an HTML page.

:func:`pair_summary` gathers what ``bacon estimate --pairwise`` and ``bacon report
--pairwise`` show from a fitted calibrator of a pairwise pool
(:meth:`EvalPool.from_pairs`): the AEE strengths, the labels-alone strengths and the
ratio of their mean interval widths, the rank sets and tiers (simultaneous, from
:mod:`bacon_bayes.estimate.bradley_terry`) and the win-probability matrix.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.bradley_terry import win_probability
from bacon_bayes.estimate.bt_difference import strength_difference
from bacon_bayes.estimate.bt_guards import guessed
from bacon_bayes.estimate.bt_ranks import rank_sets, set_aside, tier_order_notes, tiers
from bacon_bayes.order import cell_name
from bacon_bayes.report.tables import esc, fixed, scroll_table
from bacon_bayes.report.text import pool_notes
from bacon_bayes.results import Estimate, EstimateTable, _plain

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator

__all__ = ["PairSummary", "pair_summary", "render_pairwise_report", "win_matrix"]

#: Each strength scale's unit and win probability of a strength difference ``d``.
STRENGTH_UNITS = {
    "logit": ("log-odds", "1 / (1 + exp(-d))"),
    "elo": ("Elo points", "1 / (1 + 10^(-d / 400))"),
}


def strength_axis(scale: str) -> str:
    """The strengths figure's axis label, in the unit of ``scale`` (``logit``, ``elo``)."""
    unit = STRENGTH_UNITS.get(scale, (scale, ""))[0]
    return f"strength ({unit}; intervals as in the table; x: no interval)"


def win_alt(win: pd.DataFrame) -> str:
    """The win-probability heatmap in words: its size and its extremes."""
    values = win.to_numpy(dtype=float)
    if not np.isfinite(values).any():
        return f"win probabilities of {len(win)} models: none"
    i, j = np.unravel_index(np.nanargmax(values), values.shape)
    return (
        f"win probabilities of {len(win)} models, strongest first: the largest, "
        f"P({win.index[i]} beats {win.columns[j]}) = {values[i, j]:.2f}; the table of "
        "strengths above gives each model's"
    )


def win_caption(scale: str) -> str:
    """How the win-probability heatmap reads the strengths of ``scale``."""
    unit, formula = STRENGTH_UNITS.get(scale, STRENGTH_UNITS["logit"])
    return (
        f"P(row model beats column model) = {formula}, d the row model's strength minus "
        f"the column model's, in {unit} (a tie counts half)."
    )


#: fewer labeled comparisons than this, and a rank set of every rank: said (rank_notes)
FEW_FOR_RANKS = 10


@dataclass(frozen=True)
class PairSummary:
    """What the pairwise commands show (see the module docstring)."""

    strengths: EstimateTable
    labels: EstimateTable | None
    labels_error: str
    ranks: pd.DataFrame
    tiers: list[list[str]]
    win: pd.DataFrame
    alpha: float
    fitted: str
    engine: str = ""
    #: what the pool says of its table (model names written several ways ...)
    notes: tuple[str, ...] = ()
    #: ``--difference A B``: the two models' difference, pointwise (the plan's test)
    difference: Estimate | None = None

    @property
    def width_ratio(self) -> float:
        """Mean interval width of the AEE strengths over the labels alone's, on the
        models with an interval in both (NaN without the labels-alone fit)."""
        if self.labels is None:
            return float("nan")
        w1 = self.strengths.ci_high - self.strengths.ci_low
        w0 = self.labels.ci_high - self.labels.ci_low
        both = np.isfinite(w1) & np.isfinite(w0)
        if not both.any() or not w0[both].mean() > 0:  # every vote in: no width to compare
            return float("nan")
        return float(w1[both].mean() / w0[both].mean())

    def _aee_width_on_labels(self) -> float:
        """The AEE strengths' mean interval width on the models with an interval in both
        (those :attr:`width_ratio` compares)."""
        w1 = self.strengths.ci_high - self.strengths.ci_low
        w0 = self.labels.ci_high - self.labels.ci_low if self.labels is not None else w1
        both = np.isfinite(w1) & np.isfinite(w0)
        return float(w1[both].mean()) if both.any() else float("nan")

    def labels_line(self) -> str:
        """The labels-alone comparison line (and, when every comparison has its vote and
        the target is the pool, that the strengths are exact)."""
        if self.labels is None:
            return f"labels alone: no Bradley-Terry fit ({self.labels_error})"
        s = self.strengths
        if (
            s.details.get("target") == "pool"
            and int(s.details.get("n_labeled_comparisons", 0))
            >= int(s.details.get("n_comparisons", -1))
            > 0
        ):
            return (
                "every comparison has its human vote: the pool's strengths are exact "
                "(intervals of width 0) and the judges add nothing to them; --target "
                "population for a population beyond these comparisons (to see what the "
                "judges would save, estimate a copy of the table with most votes emptied)"
            )
        ratio = self.width_ratio
        n = int(self.strengths.details.get("n_labeled_comparisons", 0))
        if none := self.labels.details.get("no_votes"):  # placed by the judges alone
            more = f" and {len(none) - 5} more" if len(none) > 5 else ""
            shown = ", ".join(map(repr, none[:5])) + more
            have = "has" if len(none) == 1 else "have"
            return (
                f"labels alone (Bradley-Terry on the {n} human votes only, over the models "
                f"with a vote; {shown} {have} no human vote, so no labels-alone strength): mean "
                f"interval width {np.nanmean(self.labels.ci_high - self.labels.ci_low):.3g}; "
                f"with the judges {self._aee_width_on_labels():.3g}, width ratio {ratio:.2f}"
            )
        return (
            f"labels alone (Bradley-Terry on the {n} human votes only): mean interval width "
            f"{np.nanmean(self.labels.ci_high - self.labels.ci_low):.3g}; with the judges "
            f"{np.nanmean(self.strengths.ci_high - self.strengths.ci_low):.3g}, width ratio "
            f"{ratio:.2f}"
        )

    @property
    def set_aside(self) -> list[str]:
        """The models without an interval: not ranked, in no tier (strongest first)."""
        return set_aside(self.strengths)

    def set_aside_line(self) -> str:
        """What the rank sets and tiers leave out, and why ("" when nothing)."""
        if not self.set_aside:
            return ""
        return (
            f"set aside, not ranked and in no tier: {', '.join(self.set_aside)} (no interval: "
            "the votes do not check the strength; the notes below say why)"
        )

    def strengths_frame(self) -> pd.DataFrame:
        """Model, strength, interval, labeled and all comparisons, strongest first; the
        models without an interval after those with one."""
        names = {"name": "model", "estimate": "strength", "n_labeled": "labeled"}
        frame = self.strengths.to_frame().drop(columns="se")
        frame = frame.rename(columns={**names, "n_items": "comparisons"})
        frame = frame.assign(_aside=~np.isfinite(frame["ci_low"]))
        frame = frame.sort_values(["_aside", "strength"], ascending=[True, False], kind="stable")
        return frame.drop(columns="_aside").reset_index(drop=True)

    def header(self) -> str:
        d = self.strengths.details
        level = round(100 * (1 - self.alpha), 1)
        joint = "simultaneous" if self.strengths.simultaneous != "none" else "per model"
        return (
            f"Bradley-Terry strengths ({d.get('scale')}, anchor {d.get('anchor')}; ties "
            f"{d.get('ties')}); {level:g}% intervals {joint}, target {d.get('target')}, "
            f"valid at one planned look, {self.clustering()}; "
            f"surrogate weight lambda {float(d.get('power_lambda', 0.0)):.2f}"
        )

    def clustering(self) -> str:
        """How the intervals treat comparisons on one prompt."""
        d = self.strengths.details
        if d.get("clustered_by") == "prompt":
            return f"comparisons clustered by prompt ({d.get('n_prompts')} prompts)"
        why = d.get("clustering", "no prompt column")
        return f"comparisons independent, not clustered by prompt ({why})"

    def difference_lines(self) -> list[str]:
        """The ``--difference A B`` lines: the difference with its pointwise interval,
        whether it separates the two, and ``P(A beats B)`` ([] without one)."""
        d = self.difference
        if d is None:
            return []
        i, j = d.details["models"]
        level = f"{round(100 * (1 - d.alpha), 1):g}%"
        if not np.isfinite(d.ci_low):
            return [f"difference {i} - {j}: {fixed(d.estimate, 3)}, no interval "
                    f"({d.details['no_interval']})"]  # fmt: skip
        win = d.details["win_probability"]
        said = (f"{i} is stronger" if d.ci_low > 0 else f"{j} is stronger" if d.ci_high < 0
                else "not separated")  # fmt: skip
        m = len(self.strengths)
        return [
            f"difference {i} - {j}: {fixed(d.estimate, 3)} [{fixed(d.ci_low, 3)}, "
            f"{fixed(d.ci_high, 3)}], {level} pointwise (the test bacon plan --pairwise "
            f"--difference sizes): {said}; P({i} beats {j}) {win['estimate']:.3f} "
            f"[{win['ci_low']:.3f}, {win['ci_high']:.3f}]",
            f"  (the rank sets and tiers hold jointly over all {m * (m - 1) // 2} pairs of "
            "models: a stricter level than this one pair's)",
        ]

    def to_text(self) -> str:
        frame = self.strengths_frame()
        frame["CI"] = [
            "no interval" if not np.isfinite(lo) else f"[{fixed(lo, 3)}, {fixed(hi, 3)}]"
            for lo, hi in zip(frame["ci_low"], frame["ci_high"], strict=True)
        ]
        frame["strength"] = [fixed(v, 3) for v in frame["strength"]]
        frame["model"] = [cell_name(n) for n in frame["model"]]  # ' gpt-4' beside gpt-4
        shown = frame[["model", "strength", "CI", "labeled", "comparisons"]]
        ranks = self.ranks.assign(
            name=[cell_name(n) for n in self.ranks["name"]],
            rank_set=[f"{lo}-{hi}" for lo, hi in zip(self.ranks["rank_low"],
                                                      self.ranks["rank_high"], strict=True)]
        )[["name", "rank", "rank_set"]]  # fmt: skip
        level = round(100 * (1 - self.alpha), 1)
        lines = [
            self.fitted,
            self.header(),
            shown.to_string(index=False),
            *self.difference_lines(),
            "",
            f"rank sets ({level:g}% simultaneous over all models"
            f"{' with an interval' if self.set_aside else ''}; 1 = strongest):",
            ranks.to_string(index=False),
            "",
            f"tiers (a model joins the first tier whose leader it is not distinguishable "
            f"from at joint {level:g}%; so a lower tier's models are below the leaders above):",
            *(f"  {k}. {', '.join(map(cell_name, t))}" for k, t in enumerate(self.tiers, start=1)),
            *([self.set_aside_line()] if self.set_aside else []),
            "",
            self.labels_line(),
        ]
        notes = self.strengths.details.get("no_interval", {})
        lines += [f"note: {why}" for why in self.warnings()]
        lines += [f"note: {name}: {why}" for name, why in notes.items()]
        lines += [f"note: {note}" for note in (*self.notes, *self.rank_notes())]
        return "\n".join(lines)

    def rank_notes(self) -> list[str]:
        """Why a model with an interval of its own has a rank set of every rank (tester T5,
        finding 7: 3 votes, a strength interval narrower than a 28-vote model's, rank set
        1-20 and tier 1): the rank sets hold for every pair at once, on each model's few
        labeled comparisons' degrees of freedom (under :data:`FEW_FOR_RANKS` of them)."""
        t, m, out = self.strengths, len(self.ranks), []
        for row in self.ranks.itertuples():
            k = t.names.index(row.name)
            n = int(t.n_labeled[k])
            if (
                np.isfinite(t.ci_low[k])
                and n < FEW_FOR_RANKS
                and row.rank_high - row.rank_low >= m - 1
            ):
                out.append(
                    f"{row.name}: rank set 1-{m} and tier 1 beside an interval of its own: the "
                    f"rank sets and tiers hold for every pair at once, and its {n} labeled "
                    "comparisons give them few degrees of freedom; more votes on its "
                    "comparisons resolve it"
                )
        return out + tier_order_notes(t, self.tiers)

    def warnings(self) -> list[str]:
        """What the votes leave unchecked in the whole table (every vote a tie, labeled
        comparisons in separate groups) and where the variance floor bound."""
        d = self.strengths.details
        return list(d.get("warnings", [])) + (
            [d["variance_floor"]] if d.get("variance_floor") else []
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: rows keyed ``name``/``estimate``/``ci_low``/``ci_high`` as in every
        table of bacon's JSON, strongest first and the models without an interval last
        (the text's order)."""

        def rows(t: EstimateTable) -> list[dict[str, Any]]:
            # strongest first, the models without an interval last (as the text; tester
            # D finding 6: table order put RWKV first)
            frame = t.to_frame()
            aside = ~np.isfinite(frame["ci_low"].to_numpy(dtype=float))
            frame = frame.assign(_aside=aside).sort_values(
                ["_aside", "estimate"], ascending=[True, False], kind="stable"
            )
            return frame.drop(columns="_aside").to_dict(orient="records")

        return _plain(
            {
                "fitted": self.fitted,
                "engine": self.engine,
                "alpha": self.alpha,
                "simultaneous": self.strengths.simultaneous,
                "difference": None if self.difference is None else self.difference.to_dict(),
                "strengths": rows(self.strengths),
                "details": self.strengths.details,
                "rank_sets": self.ranks.to_dict(orient="records"),
                "tiers": self.tiers,
                "set_aside": self.set_aside,
                "labels_alone": None if self.labels is None else rows(self.labels),
                "labels_alone_error": self.labels_error or None,
                "width_ratio": self.width_ratio,
                "notes": list(self.notes) + self.rank_notes() + self.warnings(),
                "win_probability": {
                    str(i): {str(j): float(self.win.loc[i, j]) for j in self.win.columns}
                    for i in self.win.index
                },
            }
        )


def win_matrix(table: EstimateTable) -> pd.DataFrame:
    """``P(row beats column)`` for every two models (:func:`win_probability`), NaN on the
    diagonal; rows and columns strongest first, the models set aside (no interval,
    :func:`set_aside`) last, as in the strengths table."""
    aside = set_aside(table)
    ranked = [table.names[k] for k in np.argsort(-table.estimate, kind="stable")]
    order = [m for m in ranked if m not in aside] + aside
    out = pd.DataFrame(np.nan, index=order, columns=order)
    for i in order:
        for j in order:
            if i != j:
                out.loc[i, j] = win_probability(table, i, j).estimate
    return out


def _labels_of_voted_models(
    cal: Calibrator, alpha: float, simultaneous: bool, scale: str
) -> EstimateTable | None:
    """The labels-alone strengths where some models have no human vote (which the labels
    alone cannot place): Bradley-Terry on the comparisons between the models with a vote,
    as :meth:`Calibrator.estimate_bradley_terry` fits them (anchored over those models),
    every other model a row of NaN, named in ``details["no_votes"]``; None where that
    fit fails too (the voted models apart, ...)."""
    from dataclasses import replace

    from bacon_bayes.estimate.bradley_terry import bradley_terry

    pool = cal.pool_
    pairs = pool.pairs
    m, voted = pairs.n_models, np.isfinite(pool.y)
    seen = (np.bincount(pairs.a[voted], minlength=m) + np.bincount(pairs.b[voted], minlength=m)) > 0
    if seen.all() or seen.sum() < 2:
        return None
    keep = seen[pairs.a] & seen[pairs.b]
    code = np.cumsum(seen) - 1  # a voted model's code among the voted ones
    prompts = getattr(pool, "prompts", None)
    try:
        sub = bradley_terry(
            code[pairs.a[keep]], code[pairs.b[keep]], pool.y[keep], None,
            None if pool.propensity is None else pool.propensity[keep],
            names=[n for n, s in zip(pairs.names, seen, strict=True) if s], alpha=alpha,
            simultaneous=simultaneous, power_tuning=cal.power_tuning,
            target="pool" if cal.target == "pool" else "population", scale=scale,
            prompts=None if prompts is None else np.asarray(prompts)[keep],
        )  # fmt: skip
    except ValidationError:
        return None
    where = np.flatnonzero(seen)

    def spread(values: np.ndarray, fill: float = np.nan) -> np.ndarray:
        out = np.full(m, fill, dtype=float)
        out[where] = values
        return out

    cov = np.full((m, m), np.nan)
    cov[np.ix_(where, where)] = sub.cov
    crit = np.asarray(sub.critical_value, dtype=float)
    counts = np.bincount(pairs.a, minlength=m) + np.bincount(pairs.b, minlength=m)
    return replace(
        sub,
        names=tuple(pairs.names),
        estimate=spread(sub.estimate),
        se=spread(sub.se),
        ci_low=spread(sub.ci_low),
        ci_high=spread(sub.ci_high),
        cov=cov,
        n_labeled=spread(sub.n_labeled, 0.0).astype(int),
        n_items=counts,
        critical_value=spread(crit) if crit.ndim else crit,
        details={**sub.details, "no_votes": [n for n, s in zip(pairs.names, seen, strict=True)
                                             if not s]},
    )  # fmt: skip


def pair_summary(
    cal: Calibrator,
    alpha: float = 0.05,
    *,
    simultaneous: bool = False,
    scale: str = "logit",
    fitted: str = "",
    difference: Sequence[str] | None = None,
) -> PairSummary:
    """The strengths of a fitted pairwise calibrator and everything shown beside them
    (``difference``: two models, their difference pointwise, :func:`strength_difference`)."""
    table = cal.estimate_bradley_terry(alpha, simultaneous, scale=scale)
    diff = None if difference is None else strength_difference(table, *difference, alpha=alpha)
    labels, error = None, ""
    try:
        labels = cal.estimate_bradley_terry(alpha, simultaneous, scale=scale, method="labels")
    except ValidationError as exc:  # e.g. a model without labeled comparisons
        error = str(exc)
        labels = _labels_of_voted_models(cal, alpha, simultaneous, scale)
    return PairSummary(
        strengths=table,
        labels=labels,
        labels_error=error,
        ranks=rank_sets(table, alpha),
        tiers=tiers(table, alpha),
        win=win_matrix(table),
        alpha=alpha,
        fitted=fitted,
        engine=str(getattr(cal, "engine_", "")),
        notes=tuple(pool_notes(cal)),
        difference=diff,
    )


# ---------------------------------------------------------------- HTML


def _diagnostics_table(diag: pd.DataFrame) -> str:
    def span(v: float, lo: float, hi: float) -> str:
        if not np.isfinite(v):
            return ""
        if not np.isfinite([lo, hi]).all():  # an AUC of 1 or 0, too few votes
            return f"{fixed(v, 3)} (no CI)"
        return f"{fixed(v, 3)} [{fixed(lo, 3)}, {fixed(hi, 3)}]"

    shown = pd.DataFrame(
        {
            "judge": diag["judge"],
            "role": diag["role"],
            "verdicts": diag["n"],
            "position bias (A - B)": [
                span(*r) for r in diag[["position_bias", "position_lo", "position_hi"]].to_numpy()
            ],
            "excess over humans": [
                span(*r)
                for r in diag[["excess_position_bias", "excess_lo", "excess_hi"]].to_numpy()
            ],
            "tie rate": [span(*r) for r in diag[["tie_rate", "tie_lo", "tie_hi"]].to_numpy()],
            "kappa": [span(*r) for r in diag[["kappa", "kappa_lo", "kappa_hi"]].to_numpy()],
            "AUC": [span(*r) for r in diag[["auc", "auc_lo", "auc_hi"]].to_numpy()],
        }
    )
    return scroll_table(shown, 3)


def _guess_legend(guesses: Sequence[str]) -> str:
    """The heatmap legend's line on the models marked with a guessed strength ("" when
    none)."""
    from bacon_bayes.order import names_text
    from bacon_bayes.report.figures import GUESS_MARK

    if not guesses:
        return ""
    return (
        f"<p class='note'><b>{esc(GUESS_MARK.strip())}</b>, hatched rows: "
        f"{esc(names_text(guesses))}: their votes put their strength at plus or minus "
        "infinity (labeled comparisons all won or all lost), and the strength shown "
        "is a guess (each comparison counted once more with the judges' predicted vote), "
        "so their win probabilities are guesses too, not measurements.</p>"
    )


def _strengths_html(summary: PairSummary) -> str:
    from bacon_bayes.report import figures

    tables = [summary.strengths] + ([summary.labels] if summary.labels is not None else [])
    frame = summary.strengths_frame()
    tier_items = "".join(
        f"<li>{esc(', '.join(t))}</li>" for t in summary.tiers
    )  # strongest tier first
    ranks = summary.ranks.rename(columns={"name": "model", "estimate": "strength"})
    guesses = guessed(summary.strengths)
    scale = str(summary.strengths.details.get("scale", "logit"))
    return (
        f"<p>{esc(summary.fitted)}</p><p>{esc(summary.header())}</p>"
        + f'<img src="{figures.groups_figure(tables, strength_axis(scale))}" '
        f'alt="{esc(figures.series_alt("strengths of the models", tables))}">'
        + "<p class='note'>Blue circles: the strengths from the judges and the human votes "
        "(AEE); orange squares: the human votes alone. Sorted by strength, strongest on "
        "top.</p>"
        + scroll_table(frame, 3)
        + "".join(f"<p>{esc(line)}</p>" for line in summary.difference_lines())
        + f"<p>{esc(summary.labels_line())}</p>"
        + "".join(f"<p class='note'>Note: {esc(w)}</p>" for w in summary.warnings())
        + "<h3>Win probabilities</h3>"
        + f'<img src="{figures.win_matrix_figure(summary.win, guesses)}" '
        f'alt="{esc(win_alt(summary.win))}">'
        + f"<p class='note'>{esc(win_caption(scale))}</p>"
        + _guess_legend(guesses)
        + "<h3>Tiers and rank sets</h3>"
        + f"<ol>{tier_items}</ol>"
        + (f"<p>{esc(summary.set_aside_line())}</p>" if summary.set_aside else "")
        + "<p class='note'>Going down the strengths, a model joins the "
        "first tier whose leader (its first model) it is not distinguishable from at joint "
        f"{100 * (1 - summary.alpha):g}% (simultaneous intervals of the differences), else "
        "opens a tier: a lower tier's models are resolved below the leaders above them, and "
        "a model that may rank first is in tier 1.</p>"
        + scroll_table(ranks, 3)
        + "".join(f"<p class='note'>Note: {esc(n)}</p>" for n in summary.rank_notes())
    )


def render_pairwise_report(
    cal: Calibrator,
    summary: PairSummary,
    diagnostics: pd.DataFrame | None = None,
    *,
    title: str | None = None,
) -> str:
    """The page of ``bacon report --pairwise``: settings, the strengths (forest plot,
    table, labels-alone line), the win-probability heatmap, tiers and rank sets, and the
    judges' pair diagnostics (``diagnostics``: from
    :func:`bacon_bayes.doctor.pairs.pair_judge_diagnostics`)."""
    from bacon_bayes import __version__
    from bacon_bayes.report.html import _SCRIPT, _STYLE, _settings

    title = title or "bacon_bayes report: pairwise preferences"
    parts = {"settings": _settings(cal), "strengths": _strengths_html(summary)}
    if diagnostics is not None:
        parts["judges"] = (
            "<p>Per judge: position bias (share of A verdicts minus share of B), its excess "
            "over the humans' on the same comparisons, tie rate, Cohen's kappa with the "
            "human votes and AUC (discrimination), each with its interval."
            + (
                " The human votes are weighed by the inverse of their inclusion "
                "probabilities (drawn with unequal probabilities, unweighted they would "
                "describe the mix of comparisons drawn)."
                if getattr(cal.pool_, "propensity", None) is not None
                else ""
            )
            + "</p>"
            + _diagnostics_table(diagnostics)
        )
    heads = {
        "settings": "Data and settings",
        "strengths": "Strengths",
        "judges": "Judges on pairs",
    }
    nav = "".join(f'<a href="#{k}">{esc(heads[k])}</a>' for k in parts)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    sections = "\n".join(
        f'<section id="{k}"><h2>{esc(heads[k])}</h2>\n{v}\n</section>' for k, v in parts.items()
    )
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{esc(title)}</h1><p class='note'>bacon_bayes {__version__}, {stamp}</p>"
        f"<nav>{nav}</nav>" + sections + f"<script>{_SCRIPT}</script></body></html>\n"
    )
