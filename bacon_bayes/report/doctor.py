"""The report's data check: ``bacon doctor``'s diagnostics of the calibrator's pool.

:func:`data_check` is the body of the "Data check" section: each judge's coverage and
agreement with the labels, the agreement between judges, and what the judges seem biased
by (response length, when the pool has a text; the group, when it has groups), each as a
table with a line on how to read it. It runs :func:`bacon_bayes.doctor.pooled.profile_pool`
on the pool alone (no model fit, no file read), so a saved calibrator's report has it too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from bacon_bayes.doctor.bias import MIN_LENGTH_N, left_out_note, unit_words
from bacon_bayes.doctor.pooled import PoolCheck, profile_pool
from bacon_bayes.order import cell_name
from bacon_bayes.report.tables import esc, fixed, scroll_table
from bacon_bayes.scale import scale_args

if TYPE_CHECKING:
    from bacon_bayes.pool import EvalPool

__all__ = ["MAX_GROUP_ROWS", "data_check"]

#: rows of the group-bias table shown whole; a longer one shows its flagged rows, and
#: all its rows folded (``<details>``)
MAX_GROUP_ROWS = 24


def _note(text: str) -> str:
    return f"<p class='note'>{text}</p>"


def _agreement(check: PoolCheck) -> str:
    frame = pd.DataFrame(
        {"judge": check.judges, "coverage": [check.coverage[j] for j in check.judges]}
    )
    if check.with_label is not None:
        frame = frame.merge(check.with_label, on="judge").rename(columns={"kappa_w": "kappa w"})
    body = "<h3>Judges: coverage and agreement with the labels</h3>" + scroll_table(frame, 2)
    reading = "<b>coverage</b>: share of the items the judge scored."
    if check.with_label is not None:
        reading += (
            " Against the labels, on the <b>n</b> labeled items it scored: <b>spearman</b> "
            "(rank correlation), <b>kappa w</b> (Cohen's kappa with quadratic weights; "
            "ordinal scores on the label's scale only) and <b>alpha</b> (Krippendorff's "
            "interval alpha; same scale only); 1 is full agreement, 0 no more than chance, "
            "empty where it does not apply."
        )
    return body + _note(reading)


def _between(check: PoolCheck) -> str:
    if check.between is None:
        return ""
    frame = check.between.copy()
    frame.insert(0, "judge", frame.index.astype(str))
    reading = (
        "Spearman's rank correlation of each pair of judges, on the items both scored: "
        "judges that agree closely add little to each other."
    )
    if check.judges_alpha is not None:
        value, how, on = check.judges_alpha
        shown = "-" if not np.isfinite(value) else f"{value:.2f}"
        reading += (
            f" Krippendorff's interval alpha of the {len(on)} judges on the label's scale: "
            f"<b>{shown}</b> ({esc(how)})."
        )
    return "<h3>Agreement between judges</h3>" + scroll_table(frame, 2) + _note(reading)


def _length(check: PoolCheck) -> str:
    level = f"{1 - check.alpha:.0%}"
    head = "<h3>Response length</h3>"
    left_out = left_out_note(check.length_left_out)
    if not check.length:
        note = check.length_note + (f"; {left_out}" if left_out else "")
        return head + _note(esc(f"{note[:1].upper()}{note[1:]}."))
    per = unit_words(check.length[0].per)
    frame = pd.DataFrame(
        {
            "judge": [b.judge for b in check.length],
            "n": [b.n for b in check.length],
            f"over per {per}": [b.over for b in check.length],
            "low": [b.low for b in check.length],
            "high": [b.high for b in check.length],
            "flagged": ["biased by length" if b.flagged else "" for b in check.length],
        }
    )
    reading = (
        f"How much higher the judge rates a response per {per} more than its label "
        "warrants, in label points: the coefficient of length over the label's in judge ~ "
        f"label + length on the labeled items with a text, {level} interval (HC3, robust "
        "to unequal variance). <b>biased by length</b>: the interval excludes 0 (positive: "
        f"the judge favours long responses). Needs at least {MIN_LENGTH_N} labeled items."
        + (f" {esc(left_out[:1].upper() + left_out[1:])}." if left_out else "")
    )
    return (
        head
        + scroll_table(frame, 3)
        + _note(reading + _adjust(check, len(check.length)) + _skipped(check.length_skipped))
    )


def _skipped(why: dict[str, str]) -> str:
    """The judges a check left out, each with its reason."""
    if not why:
        return ""
    return " Not checked: " + "; ".join(f"{esc(j)} ({esc(w)})" for j, w in why.items()) + "."


#: The data check's heading of the judges' over-rating by group (the page's "Group means
#: and ranks" is the estimates').
GROUPS_HEAD = "<h3>Judges' over-rating by group</h3>"


def _groups(check: PoolCheck) -> str:
    tables = [t.assign(judge=j) for j, t in check.groups.items() if not t.empty]
    skipped = _skipped(
        {j: t.attrs.get("why", "no fit") for j, t in check.groups.items() if t.empty}
    )
    if not tables:
        return GROUPS_HEAD + _note(skipped.strip()) if skipped else ""
    k = pd.concat(tables)["group"].nunique()  # the groups checked
    frame = pd.concat([*tables, *_left_out(check)], ignore_index=True)
    frame = frame[["judge", "group", "n", "over", "low", "high", "flagged"]]
    frame = frame.assign(group=[cell_name(g) for g in frame["group"]])  # ' M8' beside M8
    flagged = frame["flagged"].astype(bool)
    frame = frame.assign(flagged=np.where(flagged, "yes", ""))
    frame = pd.concat([frame[flagged], frame[~flagged]], ignore_index=True)
    checked = np.isfinite(frame["over"].to_numpy(float))  # not a group under 2 labels
    ends = np.isfinite(frame[["low", "high"]].to_numpy(float))
    bounded = ends.all(axis=1)
    reading = (
        "Over-rating of each group in label points: how much higher the judge scores the "
        "group's items than items of other groups with the same label (judge ~ label + "
        "group, each group's level against the average, so the figures are relative: a "
        "judge that favours one group shows the others slightly under-rated), with "
        f"simultaneous {1 - check.alpha:.0%} (Sidak, Fieller) intervals over the {k} "
        "groups, each on its own labels' degrees of freedom (a group with few labels "
        "gets a wide interval, unbounded where the judge barely tracks the label). "
        "<b>flagged</b> (listed first): the interval excludes 0."
    )
    note = _note(reading + _adjust(check, len(tables)) + skipped)
    frame = _shown(frame)
    every = (
        f"<details><summary>All {len(frame)} rows ({len(tables)} judges; a group with "
        "under 2 labeled items has no check)</summary>" + scroll_table(frame, 3) + "</details>"
    )
    if not ends.any():  # a table of (-inf, inf) says less
        n = frame["n"].to_numpy()[checked]
        said = (
            f"Every interval is unbounded: within the groups' {n.min()}-{n.max()} labels "
            "each, the judges track the label too little for an interval to close, so no "
            "group's over-rating can be measured here (none is flagged; more labels a group "
            "would)."
        )
        return GROUPS_HEAD + _note(said) + note + every
    if len(frame) <= MAX_GROUP_ROWS:
        return GROUPS_HEAD + scroll_table(frame, 3) + note
    n_flagged = int(flagged.sum())
    unbounded = int((checked & ~bounded).sum())
    open_ = (  # as doctor's text says it: not a clean bill where most could not be bounded
        f" {unbounded} of the {int(checked.sum())} intervals {'is' if unbounded == 1 else 'are'} "
        "unbounded: there the judge tracks the "
        "label too little at these labels for its over-rating to be measured (more labels "
        "a group would)."
        if unbounded
        else ""
    )
    shown = (
        scroll_table(frame.head(n_flagged), 3)
        if n_flagged
        else _note("No judge's over-rating of a group is flagged." + open_)
    )
    return GROUPS_HEAD + shown + note + every


def _left_out(check: PoolCheck) -> list[pd.DataFrame]:
    """Rows for the groups each judge's check left out (under 2 labeled items with a
    score), with their counts and no figures, said by :func:`_shown`."""
    rows = []
    for j, t in check.groups.items():
        counts = t.attrs.get("left_out_n", {})
        if not t.empty and counts:
            rows.append(
                pd.DataFrame({"judge": j, "group": list(counts), "n": list(counts.values()),
                              "over": np.nan, "low": np.nan, "high": np.nan, "flagged": False})
            )  # fmt: skip
    return rows


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    """The over-rating rows as the page shows them: a figure the check has none of (a
    group under 2 labels; an unbounded interval's end, -inf or inf) is "—", and the
    ``note`` column says why (no inf on the page)."""
    n = frame["n"].to_numpy(int)
    over, low, high = (frame[c].to_numpy(float) for c in ("over", "low", "high"))
    open_ = np.isfinite(over) & ~(np.isfinite(low) & np.isfinite(high))

    def cell(v: float) -> str:
        return fixed(v, 3) if np.isfinite(v) else "—"

    why = np.where(
        ~np.isfinite(over),
        [f"{k} labeled item{'' if k == 1 else 's'}: 2 needed for a check" for k in n],
        np.where(
            open_,
            [
                f"unbounded: at {k} labels the judge's slope on the label is not clearly "
                "above 0, so no shift can be told from none"
                for k in n
            ],
            "",
        ),
    )
    shown = frame.assign(**{c: [cell(v) for v in frame[c]] for c in ("over", "low", "high")})
    return shown.assign(note=why) if why.any() else shown


def _adjust(check: PoolCheck, n_judges: int) -> str:
    if n_judges < 2:
        return ""
    return (
        f" Each judge at level {1 - check.alpha:.0%}, not adjusted for the {n_judges} "
        "judges: expect a few flags by chance among many judges."
    )


def data_check(
    pool: EvalPool,
    alpha: float = 0.05,
    text: np.ndarray | pd.Series | None = None,
    bounds: tuple[float, float] | None = None,
) -> str:
    """The body of the report's "Data check" section (see the module docstring).

    Parameters
    ----------
    pool : EvalPool
        The calibrator's pool.
    alpha : float
        1 - confidence level of the bias intervals.
    text : array-like of str, optional
        The items' response text (default ``pool.text``).
    bounds : tuple of float, optional
        The label's range (the calibrator's ``bounds_``): an error score's bias checks run
        on -label as ``bacon doctor``'s do.

    Returns
    -------
    str
        HTML.
    """
    check = profile_pool(pool, alpha, text, bounds)
    intro = _note(
        "What <code>bacon doctor</code> checks, on this pool: the judges' mean score per "
        "item and the human labels. Nothing here changes the estimates (their intervals "
        "are valid whatever the judges' biases); it says which judges to trust and what "
        "to look into."
    )
    oriented = _note(esc(f"Bias checks: {check.bias_note}.")) if check.bias_note else ""
    return (
        intro + _scale(check, bounds) + _agreement(check) + _between(check) + oriented
        + _length(check) + _groups(check)
    )  # fmt: skip


def _scale(check: PoolCheck, bounds: tuple[float, float] | None) -> str:
    """Doctor's reading of the label's scale where the report's range is open and the
    labels show a scale it does not bound (an MQM score, all >= 0: estimates and item
    intervals below 0 otherwise); "" where they agree or nothing is evident."""
    s = check.scale
    if s is None or not s.evident or bounds is None or np.isfinite(bounds).all():
        return ""
    if (s.low, s.high) == tuple(map(float, bounds)):
        return ""
    used = "unbounded" if not np.isfinite(bounds).any() else f"{bounds[0]:g}:{bounds[1]:g}"
    return _note(
        esc(
            f"Label scale: bacon doctor reads {s.text} ({s.how}); this report's label range "
            f"is {used}: pass {' '.join(scale_args(s))} to keep the estimates and item "
            "intervals within it."
        )
    )
