"""The report's round section (``bacon report NEW --calibrator OLD.nc [--history FILE]``),
its judge-drift table (``--anchor``) and a study's waves.

:func:`round_section` says which calibration scored the pool (the saved calibrator's id
and sizes, frozen or refit), shows the transport check with its verdicts
(:func:`bacon_bayes.transport.transport_check`) and, with a history ledger
(:mod:`bacon_bayes.history`), the trend of the pool mean (and of the groups seen in
several rounds, when few) over the ledger's rounds with their intervals, this round last.
:func:`drift_html` is the judge-drift table (:func:`bacon_bayes.drift.judge_drift`), shown
below the judge-bias table. :func:`sequence_html` is a study's anytime intervals over its
waves beside the fixed ones (``bacon report STUDY``). All return HTML bodies that
:func:`bacon_bayes.report.html.render_report` places (its ``extra`` argument).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.frozen import MIN_FRESH_LABELS
from bacon_bayes.history import latest_rounds, round_record
from bacon_bayes.order import cell_name
from bacon_bayes.report import figures
from bacon_bayes.report.tables import scroll_table
from bacon_bayes.transport import NEW, NEW_NOTE, pointwise_note, settle_text, transport_check

__all__ = ["drift_html", "round_section", "sequence_html"]

_VERDICT_CLASS = {"holds": "ok", "drifted": "bad", NEW: "new"}


def _esc(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _table(frame: pd.DataFrame, digits: int = 4, verdicts: bool = False) -> str:
    """A sortable table, values escaped; with ``verdicts`` the verdict cells coloured."""
    head = "".join(f"<th>{_esc(c)}</th>" for c in frame.columns)
    rows = []
    for rec in frame.itertuples(index=False):
        cells = []
        for col, v in zip(frame.columns, rec, strict=True):
            if isinstance(v, float | np.floating):
                text = "" if not np.isfinite(v) else f"{v:.{digits}f}"
            else:
                text = "" if v is None else str(v)
            cls = _VERDICT_CLASS.get(text, "") if verdicts and col == "verdict" else ""
            cells.append(
                f'<td class="{cls}">{_esc(text)}</td>' if cls else f"<td>{_esc(text)}</td>"
            )
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<table class="sortable"><thead><tr>{head}</tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table>"
    )


def _source(cal: Any, calibrator: str | None) -> str:
    """Which calibration scored the pool, as a small table."""
    pool = cal.pool_
    if hasattr(cal, "frozen_"):
        src = cal.frozen_.to_dict()
        rows = [
            ("calibrator", f"{calibrator or ''} (id {src['calibrator_id']})"),
            ("fitted on", f"{src['n_labeled']:,} labels of {src['n_items']:,} items"),
            ("mode", "frozen: its fold models score this pool, unchanged"),
            ("fresh labels", f"{pool.n_labeled:,} of {pool.n_items:,} items (they alone "
             "correct the surrogate)"),
        ]  # fmt: skip
        if src["residual_sd"] is not None:
            rows.append(("old residual sd", f"{src['residual_sd']:.4f}"))
        from bacon_bayes.frozen import new_groups
        from bacon_bayes.order import names_text

        found = new_groups(cal) or {"new": [], "absent": []}
        if found["new"]:
            rows.append(("new to the calibrator", names_text(found["new"])))
        if found["absent"]:
            rows.append(("in its round, not here", names_text(found["absent"])))
    elif hasattr(cal, "refit_"):
        info = cal.refit_
        rows = [
            ("calibrator", f"{calibrator or ''} (id {info['calibrator_id']})"),
            ("mode", f"refit: models trained on its {info['n_old_labels']:,} labels and this "
             f"pool's, {cal.folds}-fold cross-fitting over this pool's labels"),
            ("fresh labels", f"{pool.n_labeled:,} of {pool.n_items:,} items (they alone "
             "correct the surrogate)"),
        ]  # fmt: skip
    else:
        rows = [("calibration", f"fitted on this pool's {pool.n_labeled:,} labels (fresh)")]
    return (
        "<table>"
        + "".join(f"<tr><th>{_esc(k)}</th><td>{_esc(v)}</td></tr>" for k, v in rows)
        + "</table>"
    )


def _transport(cal: Any, tolerance: float | None, alpha: float) -> str:
    if hasattr(cal, "refit_"):
        return (
            "<p class='note'>Refit: the models learnt from this pool's labels too, so there "
            "is no frozen calibration to check; run without --refit for the transport check "
            "of the saved calibration.</p>"
        )
    if not hasattr(cal, "frozen_"):
        return ""
    if cal.pool_.n_labeled < MIN_FRESH_LABELS:
        return (
            f"<p class='bad'>UNVALIDATED: {cal.pool_.n_labeled} fresh label(s), fewer than the "
            f"{MIN_FRESH_LABELS} an interval needs; no transport check.</p>"
        )
    table, tol = transport_check(cal, tolerance, alpha)
    shown = table.drop(columns="labels_to_settle").assign(labels_to_settle=settle_cells(table))
    shown["group"] = [cell_name(g) for g in shown["group"]]  # ' M8' beside M8
    note = pointwise_note(table, alpha)
    new = f" <b class='new'>{NEW}</b>: {_esc(NEW_NOTE)}." if (table["verdict"] == NEW).any() else ""
    return (
        f"<h3>Transport check</h3><p>Fresh residual mean (label minus the frozen surrogate) "
        f"overall and per group, {1 - alpha:.0%} intervals; tolerance {tol:.4g} on the "
        "label's scale. <b>holds</b>: equivalence within the tolerance shown; "
        "<b>drifted</b>: the surrogate is biased here (the interval excludes 0); "
        "<b>not enough labels</b>: neither yet, <i>labels_to_settle</i> fresh labels of the "
        f"group would settle it with 80% probability.{new} The estimates above stay "
        "valid whatever the verdict; it says whether the old calibration can be trusted "
        "where there are no fresh labels, and whether a refit is worth it.</p>"
        + _table(shown, 4, verdicts=True)
        + (f"<p class='note'>{_esc(note.capitalize())}.</p>" if note else "")
    )


def _trend(records: Sequence[dict[str, Any]], current: dict[str, Any]) -> str:
    earlier = [r for r in latest_rounds(records) if r["round"] != current["round"]]
    rounds = [*earlier, current]
    rows = []
    for r in rounds:
        mean = r["mean"]
        rows.append(
            {
                "round": r["round"],
                "time": r.get("time", ""),
                "mode": r.get("mode", ""),
                "calibrator": str((r.get("calibrator") or {}).get("used") or "")[:8],
                "items": r.get("n_items"),
                "labels": r.get("n_labels"),
                "mean": mean.get("estimate"),
                "ci_low": mean.get("ci_low"),
                "ci_high": mean.get("ci_high"),
                "verdict": ((r.get("transport") or {}).get("rows") or [{}])[0].get("verdict", ""),
            }
        )
    frame = pd.DataFrame(rows).astype({"mean": float, "ci_low": float, "ci_high": float})
    return (
        f"<h3>Rounds</h3><p>The pool mean of each round of the history ledger "
        f"({len(earlier)} earlier round(s); a round estimated again shows its latest line) "
        "and this round last, with their intervals; groups seen in two rounds or more "
        "beside it when they are few. <i>verdict</i>: the round's overall transport "
        "verdict; <i>calibrator</i>: the first characters of the id of the calibrator that "
        "scored it (empty: a fresh calibration).</p>"
        + f'<img src="{figures.trend_figure(rounds)}" alt="trend across rounds">'
        + _table(frame, 4, verdicts=True)
    )


def round_section(
    cal: Any,
    *,
    alpha: float = 0.05,
    calibrator: str | None = None,
    tolerance: float | None = None,
    history: Sequence[dict[str, Any]] | None = None,
    round_name: str = "this round",
) -> str:
    """The body of the report's round section (see the module docstring).

    Parameters
    ----------
    cal : Calibrator
        The pool's calibrator: frozen or refit (``Calibrator.apply``), or fresh (then
        only with ``history``).
    alpha : float
        The intervals are ``1 - alpha``.
    calibrator : str, optional
        The saved calibrator's path, for the page.
    tolerance : float, optional
        The transport check's tolerance (its default when None).
    history : sequence of dict, optional
        The ledger's records (:func:`bacon_bayes.history.read_history`): adds the trend.
    round_name : str
        This round's name in the trend (a ledger line of the same name is replaced by
        this round).
    """
    body = _source(cal, calibrator) + _transport(cal, tolerance, alpha)
    if history is not None:
        validated = not hasattr(cal, "frozen_") or cal.pool_.n_labeled >= MIN_FRESH_LABELS
        transport = None
        if hasattr(cal, "frozen_") and validated:
            transport = transport_check(cal, tolerance, alpha)
        current = round_record(
            cal, round_name=round_name, alpha=alpha, transport=transport, validated=validated
        )
        body += _trend(history, current)
    return body


def drift_html(table: pd.DataFrame, alpha: float, scale: str) -> str:
    """The judge-drift table (:func:`bacon_bayes.drift.judge_drift`) with its reading;
    ``scale``: what its scale is (:func:`bacon_bayes.drift.scale_words`)."""
    return (
        "<h3>Judge drift on the anchor set</h3><p class='note'>The same anchor items scored "
        "by the old and the new version of each judge. <b>shift_judge</b>: mean new minus "
        "old score on the judge's own scale (paired interval); <b>shift_human</b>: that "
        f"shift divided by the judge's <b>scale</b> ({_esc(scale)}), "
        "the change of the human label that would move the judge as much: how "
        f"much higher the new version reads on the label's scale ({1 - alpha:.0%} Fieller "
        "interval, which also carries the scale's uncertainty). An interval covering 0: "
        "no drift shown.</p>" + _table(table, 4)
    )


def settle_cells(table: pd.DataFrame) -> list[str]:
    """The transport table's ``labels_to_settle`` in words (:func:`settle_text`)."""
    return [
        settle_text(v, n, e)
        for v, n, e in zip(
            table["labels_to_settle"], table["n_items"], table["estimate"], strict=True
        )
    ]


def sequence_html(looks: pd.DataFrame, alpha: float = 0.05) -> str:
    """The study's looks (:func:`bacon_bayes.study.looks.look_estimates`): the figure of
    the sequence beside the fixed intervals, and its table (for ``extra["estimates"]``)."""
    if looks.empty:
        return ""
    kind = str(looks["interval_kind"].iloc[-1])
    changed = looks.attrs.get("changed", [])  # labels replaced after a look
    why = (
        "alpha-spending up to the budget the study recorded (max_labels)"
        if kind == "alpha-spending"
        else "a confidence sequence (no maximum budget recorded)"
    )
    return (
        "<h3>Across the study's waves</h3>"
        + f'<img src="{figures.sequence_figure(looks, alpha)}" '
        + f'alt="{_esc(figures.sequence_alt(looks))}">'
        + f"<p>Blue circles: the anytime interval, {_esc(why)}: the intervals of all waves "
        "hold together, whenever you stop. Grey squares: the fixed interval of each wave alone "
        "(valid at one planned look only).</p>"
        f"<p class='note'>{_esc(RECOMPUTED_LOOKS)}</p>"
        + "".join(f"<p class='note'>{_esc(c[:1].upper() + c[1:])}.</p>" for c in changed)
        + scroll_table(looks, 4)
    )


#: What the table of past looks is (tester C s36 finding 6): each wave's look refitted now,
#: not the numbers printed then.
RECOMPUTED_LOOKS = (
    "Each wave's row is recomputed now, with this report's settings (engine, model, judges) "
    "and the study's as they are today (its prompt column, which splits the cross-fitting "
    "folds by prompt, included), on the labels of the waves up to it: where a setting "
    "changed since, its estimate and intervals differ from what bacon estimate or bacon "
    "status printed at that wave, and so do the rows of waves whose labels were replaced "
    "since (bacon label import --replace; named below when so): the sequence you read then "
    "is the one the guarantee speaks of, and the study does not record its numbers."
)
