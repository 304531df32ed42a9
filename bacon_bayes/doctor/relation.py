"""How a numeric column relates to the labels, for ``bacon doctor``'s choice of judges:
its Spearman correlation on the labeled rows, or why the labels cannot calibrate it."""

from __future__ import annotations

from collections.abc import Callable, Collection

import numpy as np
import pandas as pd
from scipy import stats

#: judges with |Spearman| below this against the labels are left out, when its interval
#: rules out :data:`MODERATE_RHO` (a pilot's few labels do not)
MIN_RHO = 0.1
#: a moderate correlation: a judge is called unrelated only when its interval excludes it
MODERATE_RHO = 0.3
#: fewest labeled rows on which a judge equal to labels of 3 or more levels is a copy of
#: the label, and of 0/1 labels (a good judge may agree with 20 verdicts; with 200, no)
COPY_ROWS = 20
COPY_ROWS_BINARY = 200
#: what a copy of the label does as a judge (the notes of estimate and doctor)
COPY_HARM = (
    "as a judge it makes every labeled residual 0, and the intervals claim a certainty they "
    "do not have"
)


def flat_on_labels(x: pd.Series, label: pd.Series | None) -> str | None:
    """Why a judge that varies over the table is no judge for these labels: it gives the
    same score (or none) on every labeled item, so the labels cannot calibrate it (no
    correlation, no slope; the estimator would extrapolate its other values blind). None
    with fewer than 5 labels or when its scores vary on the labeled items."""
    if label is None or int(label.notna().sum()) < 5:
        return None
    on = x[label.notna()].dropna()
    if on.nunique() >= 2:
        return None
    n = int(label.notna().sum())
    what = "no score on any" if on.empty else f"the same score ({on.iloc[0]:g}) on every"
    return f"{what} one of the {n} labeled items: the labels cannot calibrate it"


def label_rho(x: pd.Series, label: pd.Series | None) -> float | None:
    """Spearman correlation on the rows with both (None without 5 such rows, or where
    either is constant on them: no correlation is defined)."""
    if label is None:
        return None
    both = x.notna() & label.notna()
    if both.sum() < 5 or x[both].nunique() < 2 or label[both].nunique() < 2:
        return None
    return float(stats.spearmanr(x[both], label[both]).statistic)


def rho_interval(rho: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Confidence interval of a Spearman correlation ``rho`` on ``n`` pairs: Fisher's z
    with Bonett and Wright's (2000) variance, ``(1 + rho**2 / 2) / (n - 3)``."""
    z = float(np.arctanh(np.clip(rho, -0.9999, 0.9999)))
    half = float(stats.norm.ppf(0.5 + level / 2)) * np.sqrt((1 + rho**2 / 2) / max(n - 3, 1))
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def weak_relation(x: pd.Series, label: pd.Series | None) -> tuple[str, bool] | None:
    """What to say of a judge whose Spearman correlation with the labels is under
    :data:`MIN_RHO`, and whether to leave it out: only when its 95% interval lies within
    :data:`MODERATE_RHO` of 0; on a pilot's few labels the interval reaches moderate
    values, so the relation is not clear yet and the judge is kept. None: related (or no
    correlation defined)."""
    rho = label_rho(x, label)
    if rho is None or abs(rho) >= MIN_RHO:
        return None
    n = int((x.notna() & label.notna()).sum()) if label is not None else 0
    if np.isnan(rho):
        return f"unrelated to the label (no Spearman correlation on its {n} labels)", True
    low, high = rho_interval(rho, n)
    said = f"Spearman {rho:.2f}, 95% CI {low:.2f} to {high:.2f} on {n} labels"
    if max(abs(low), abs(high)) < MODERATE_RHO:
        return f"unrelated to the label ({said})", True
    return f"no clear relation to the label yet ({said}): kept, more labels will tell", False


def copy_of_label(x: pd.Series, label: pd.Series | None, whole: str | None = None) -> str | None:
    """Why a judge equal to the label on every labeled row is a copy of it (a leaked
    reference, the label pasted twice), where no real judge would agree on so many
    (:data:`COPY_ROWS`, :data:`COPY_ROWS_BINARY`); None otherwise. As a judge it makes
    every labeled residual 0, and the intervals claim a certainty they do not have.
    ``whole``: what a copy of every row's label gives (default: its exact mean)."""
    if label is None:
        return None
    on = label.notna()
    n, levels = int(on.sum()), label[on].nunique()
    if levels < 2 or n < (COPY_ROWS if levels > 2 else COPY_ROWS_BINARY):
        return None
    a, b = x[on].to_numpy(dtype=float), label[on].to_numpy(dtype=float)
    if not np.isfinite(a).all() or not np.allclose(a, b, rtol=0, atol=1e-9):
        return None
    whole = whole or f"If it is the label of every item, its mean ({float(x.mean()):.4g}) is exact"
    return f"equals the label on all {n} labeled rows: a copy of the label? {whole}"


#: a column within half a rating step of the label on this share of the labeled rows,
#: and equal to another column on :data:`ELSEWHERE` of the unlabeled ones, is the label
#: where there is one and that column elsewhere (a spreadsheet's ``=IF(label<>"", ...)``)
NEAR_SHARE = 0.9
ELSEWHERE = 0.95


def _half_step(b: np.ndarray) -> float:
    """Half a rating step of labels ``b``: 0.5 on a scale of ratings (a range of 2 or
    more: 1-5, 0-100), else half the smallest gap between two of its levels."""
    levels = np.unique(b)
    if levels[-1] - levels[0] >= 2:
        return 0.5
    return float(np.diff(levels).min()) / 2


def near_copy(
    x: pd.Series, label: pd.Series | None, others: pd.DataFrame | None = None
) -> str | None:
    """Why a column that is not an exact copy of the label is one all the same: within
    half a rating step of it (the label rounded, ``round(human)``) on every labeled row,
    or on most of them (:data:`NEAR_SHARE`) while equal to another column of ``others``
    on the unlabeled rows (:data:`ELSEWHERE`: a "final score" that is the label where
    there is one and a judge's score elsewhere). No judge comes so close to labels of 3
    levels or more on :data:`COPY_ROWS` rows; as a judge such a column makes the labeled
    residuals about 0 while its other rows are a judge's raw scores, so the correction is
    about 0 and the intervals are far too narrow around a biased mean. Labels of 2 levels
    (verdicts, which a good judge may all match under :data:`COPY_ROWS_BINARY`) count
    only when matched on every labeled row and another column is matched elsewhere.
    None otherwise."""
    if label is None:
        return None
    on = label.notna().to_numpy()
    n, levels = int(on.sum()), label[on].nunique()
    if levels < 2 or n < COPY_ROWS:
        return None
    a, b = x[on].to_numpy(dtype=float), label[on].to_numpy(dtype=float)
    if not np.isfinite(a).all():
        return None
    tol = 0.0 if levels == 2 else _half_step(b)
    close = np.abs(a - b) <= tol + 1e-9
    within = f"within {tol:g} of the label on {int(close.sum())} of the {n} labeled rows"
    if levels == 2:  # verdicts: equal on all of them, and another column elsewhere
        if not close.all():
            return None
        within = f"equals the label on all {n} labeled rows"
    elif close.all():
        return f"{within} (the label rounded?): a copy of the label"
    if close.mean() < NEAR_SHARE or others is None or on.all():
        return None
    rest = x[~on].to_numpy(dtype=float)
    for c in others.columns:
        column = pd.to_numeric(others[c], errors="coerce").to_numpy(dtype=float)
        same = np.isclose(rest, column[~on], rtol=0, atol=1e-9)
        if levels == 2 and not _verdicts_switch(a, column[on], same):
            continue
        if same.mean() >= ELSEWHERE:
            return (
                f"{within}, and equal to {str(c)!r} on {int(same.sum())} of the "
                f"{len(rest)} unlabeled rows: the label where there is one and {str(c)!r} "
                "elsewhere, a copy of the label"
            )
    return None


def could_copy(x: np.ndarray, label: np.ndarray) -> bool:
    """False where :func:`copy_of_label` and :func:`near_copy` of the column ``x`` are
    both None whatever the other columns, told from arrays (``label``: NaN where not
    labeled): fewer than :data:`COPY_ROWS` labels or one level, or ``x`` within the
    half step of :func:`near_copy` (equal, for verdicts) on less than :data:`NEAR_SHARE`
    of the labeled rows, which an exact copy is on all of them. ``Calibrator.fit`` asks
    of every judge (pandas took 10 ms a fit of 5 judges, most of it building each
    judge's ``others``)."""
    on = ~np.isnan(label)
    b = label[on]
    levels = np.unique(b).size
    if levels < 2 or b.size < COPY_ROWS:
        return False
    tol = 0.0 if levels == 2 else _half_step(b)
    return bool(np.mean(np.abs(x[on] - b) <= tol + 1e-9) >= NEAR_SHARE)


def _verdicts_switch(a: np.ndarray, other: np.ndarray, same: np.ndarray) -> bool:
    """Whether a column of verdicts, ``a`` on the labeled rows (where it equals the
    labels), is another column (``other`` on the labeled rows) on the rest: equal to it
    on every unlabeled row (``same``) while it differs on labeled ones far more often
    than chance (Fisher's exact test, :data:`SPLIT_P`). Two judges that agree on 95% of
    the rows, one of which happened to match every label, do not."""
    k = int((~np.isclose(a, other, rtol=0, atol=1e-9)).sum())
    if not same.all() or k == 0:
        return False
    return bool(stats.fisher_exact([[k, len(a) - k], [0, len(same)]]).pvalue < SPLIT_P)


#: a judge's share of scored rows may differ this much between labeled and unlabeled rows
#: (with :data:`SPLIT_P`) before it is said to depend on which rows were labeled
SPLIT_SHARE = 0.5
#: Fisher's exact test: the difference in shares is no chance of a uniform label draw
SPLIT_P = 1e-3


def coverage_split(scored: np.ndarray, labeled: np.ndarray) -> str | None:
    """Why a judge scored on a far larger share of the labeled rows than of the unlabeled
    ones, or the other way round, is no judge for these labels: the model learns it on the
    rows where it is there (or missing) and applies it where it is missing (or there), and
    the labeled residuals, on which the correction and the variance rest, do not represent
    the others (a rater's own score, or a judge run after labelling on the rows still to
    label). None when the shares differ by less than :data:`SPLIT_SHARE`, or by chance
    (Fisher's exact test, :data:`SPLIT_P`), or without rows of both kinds.

    ``scored``, ``labeled``: boolean per row, the judge has a score / the row a label."""
    scored, labeled = np.asarray(scored, dtype=bool), np.asarray(labeled, dtype=bool)
    n_lab, n_un = int(labeled.sum()), int((~labeled).sum())
    if n_lab == 0 or n_un == 0:
        return None
    s_lab, s_un = int((scored & labeled).sum()), int((scored & ~labeled).sum())
    a, b = s_lab / n_lab, s_un / n_un
    if abs(a - b) < SPLIT_SHARE:
        return None
    table = [[s_lab, n_lab - s_lab], [s_un, n_un - s_un]]
    if stats.fisher_exact(table).pvalue >= SPLIT_P:
        return None
    harm = (
        "the labels cannot calibrate it, so it only adds noise"
        if s_lab == 0
        else "its scores depend on which rows were labeled, so the model learns it on rows "
        "unlike those it is applied to and the intervals do not hold"
    )
    return (
        f"scored {s_lab} of the {n_lab} labeled rows ({a:.0%}) but {s_un} of the {n_un} "
        f"unlabeled ones ({b:.0%}): {harm}; drop it from the judges, or score the "
        f"{'unlabeled' if a > b else 'labeled'} rows too"
    )


#: fewest labeled rows with, and without, a judge's score for its missingness to be
#: compared across the labels
MISSING_ROWS = 10
#: Mann-Whitney's p (before the Bonferroni split over the judges tested) below which a
#: judge's missingness is said to depend on the label
MISSING_P = 0.01


def label_missingness(
    scored: np.ndarray, label: np.ndarray, p_max: float = MISSING_P
) -> str | None:
    """Why a judge's missing scores look related to the label, from the labeled rows: the
    labels where it gave no score against those where it did (Mann-Whitney, two-sided,
    below ``p_max``), with both means and the harm (tester G finding 6: a judge failing
    on the bad items). The intervals still hold (they rest on the labels, drawn apart
    from the judge), but what is read of the judge on the rows it scored (its mean, its
    bias, the naive average) is of a biased subset. None below :data:`MISSING_ROWS`
    labeled rows of either kind, or when the difference may be chance.

    ``scored``: bool per row, the judge has a score; ``label``: float per row, NaN where
    unlabeled."""
    scored = np.asarray(scored, dtype=bool)
    label = np.asarray(label, dtype=float)
    on = np.isfinite(label)
    a, b = label[on & scored], label[on & ~scored]
    if a.size < MISSING_ROWS or b.size < MISSING_ROWS or np.unique(label[on]).size < 2:
        return None
    p = float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue)
    if not p < p_max:
        return None
    side = "low" if b.mean() < a.mean() else "high"
    return (
        f"has no score on {b.size} of the {a.size + b.size} labeled rows, where the label "
        f"averages {b.mean():.3g} against {a.mean():.3g} where it scored (Mann-Whitney p = "
        f"{p:.2g}): it fails more on {side} labels. The intervals still hold (they rest on "
        "the labels), but its mean, its bias and the naive average are of the rows it "
        "scored, not of the pool; find why it fails there (rescore those rows?)"
    )


def missingness_notes(
    scores: pd.DataFrame, label: np.ndarray, groups: np.ndarray | None = None
) -> list[str]:
    """:func:`label_missingness` of every judge of ``scores`` with a missing score, the
    level split over them (Bonferroni), each on the rows of the groups it scores some item
    of (a judge absent on whole groups is said by
    :func:`~bacon_bayes.doctor.scores.absent_groups`: those groups' means differ, not its
    failures). Said by ``bacon doctor``, ``bacon estimate`` and ``bacon report``."""
    label = np.asarray(label, dtype=float)
    g = None if groups is None else pd.Series(np.asarray(groups, dtype=object)).astype(str)
    partial = [c for c in scores.columns if scores[c].isna().any()]
    out = []
    for c in partial:
        x = scores[c].to_numpy(dtype=float)
        rows = np.ones(x.size, dtype=bool)
        if g is not None:
            rows = g.isin(set(g[np.isfinite(x)])).to_numpy()
        if why := label_missingness(np.isfinite(x)[rows], label[rows], MISSING_P / len(partial)):
            out.append(f"judge {str(c)!r} {why}")
    return out


#: two judges equal on this share of the rows both score, and whose errors given the label
#: correlate at least :data:`TWIN_RESIDUAL` on the labeled rows, are near copies
TWIN_SHARE = 0.85
TWIN_RESIDUAL = 0.75


def _residual(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``x`` less its least-squares line on ``y``: the judge's error given the label."""
    slope, intercept = np.polyfit(y, x, 1)
    return x - (intercept + slope * y)


def _rescaled(a: np.ndarray, b: np.ndarray) -> bool:
    """``b`` is a linear function of ``a`` (another range: 1-5 mapped to 0-1, a
    percentage of a share) on every row, both varying."""
    if a.size < 3 or a.std() == 0 or b.std() == 0:
        return False
    slope, intercept = np.polyfit(a, b, 1)
    return bool(np.allclose(b, intercept + slope * a, rtol=1e-9, atol=1e-9 * np.abs(b).max()))


def _span(values: list[float], fmt: str) -> str:
    """``values``' range in words: ``0.89-0.92``, one figure when they are all one."""
    lo, hi = format(min(values), fmt), format(max(values), fmt)
    return lo if lo == hi else f"{lo}-{hi}"


def near_duplicates(
    scores: pd.DataFrame,
    label: np.ndarray,
    again: Callable[[str, str], str] | None = None,
    worded: Collection[str] = (),
) -> list[str]:
    """Sets of judges that are near copies of one another (the same model at another
    temperature, a prompt reworded): each pair equal on :data:`TWIN_SHARE` of the rows
    both score, and their errors given the label (residuals of each on the label's line)
    correlated at least :data:`TWIN_RESIDUAL` on at least :data:`COPY_ROWS` labeled rows.
    The Bayesian judge model takes the judges' errors as independent given the quality, so
    it reads their shared error as the quality (tester G finding 8: gpt4's noise 1.10 ->
    0.04 with two copies, the others' signal down 2-4x). One sentence per set, with the
    fix (``again``: the line that writes the table with the set averaged into one judge,
    :func:`~bacon_bayes.doctor.cells.doctor_again`; else the pandas; a judge in ``worded``,
    written as words in the file, is read as bacon reads it,
    :func:`~bacon_bayes.words.as_numbers`); [] when there is none."""
    y = np.asarray(label, dtype=float)
    cols = [str(c) for c in scores.columns]
    x = {c: scores[c].to_numpy(dtype=float) for c in cols}
    pairs: dict[tuple[str, str], tuple[float, float, int]] = {}
    rescaled: set[str] = set()
    for k, a in enumerate(cols):
        for b in cols[k + 1 :]:
            both = np.isfinite(x[a]) & np.isfinite(x[b])
            on = both & np.isfinite(y)
            if on.sum() < COPY_ROWS or np.unique(y[on]).size < 2:
                continue
            equal = float(np.mean(x[a][both] == x[b][both]))
            if equal < TWIN_SHARE and _rescaled(x[a][both], x[b][both]):
                equal, rescaled = 1.0, rescaled | {a, b}  # gpt4 on 1-5, gpt4_norm on 0-1
            if equal < TWIN_SHARE:
                continue
            ra, rb = _residual(x[a][on], y[on]), _residual(x[b][on], y[on])
            if ra.std() == 0 or rb.std() == 0:
                continue
            r = float(np.corrcoef(ra, rb)[0, 1])
            if r >= TWIN_RESIDUAL:
                pairs[a, b] = (equal, r, int(on.sum()))
    sets: list[set[str]] = []  # connected sets of near copies
    for a, b in pairs:
        joined = [s for s in sets if a in s or b in s]
        merged = set().union(*joined, {a, b})
        sets = [s for s in sets if s not in joined] + [merged]
    out = []
    for twins in sets:
        names = [c for c in cols if c in twins]
        stats_ = [v for (a, b), v in pairs.items() if a in twins]
        eq, rs = [v[0] for v in stats_], [v[1] for v in stats_]
        n = max(v[2] for v in stats_)
        span, rspan = _span(eq, ".0%"), _span(rs, ".2f")
        listed = ", ".join(repr(c) for c in names)
        mean = "_".join(names) + "_mean"
        code = f"df[{mean!r}] = df[[{listed}]].mean(axis=1)"
        if twins & set(worded):  # 'yes' / 'no', 'C' / 'I' in the file: read as bacon does
            code = code.replace("].mean(", "].apply(as_numbers).mean(")
            code = f"from bacon_bayes.words import as_numbers; {code}"
        drop = f"{code}; df = df.drop(columns=[{listed}])"
        average = f"({code})" if again is None else f"in their place: {again('judges', drop)}"
        once = " once one is rescaled to the other's range" if twins & rescaled else ""
        out.append(
            f"judges {listed} are near copies: equal on {span} of the rows both score{once}, "
            f"their errors given the label correlated {rspan} (up to {n} labeled rows). The "
            "Bayesian judge model takes judges' errors as independent given the quality, so "
            "it reads their shared error as the quality: their noise is understated and the "
            "other judges' overstated in its per-judge figures (the estimates' intervals "
            "rest on the labels and hold). Keep one of them"
            + (
                " (the one on the label's scale: the copy adds nothing)"
                if once
                else f", or average them into one judge column {average}"
            )
        )
    return out


def split_judges(
    frame: pd.DataFrame, judges: list[str], again: Callable[[str, str], str] | None = None
) -> dict[str, str]:
    """Judges that never score the same row while each scores some: one judge renamed
    mid-run (``scores.gpt4`` on the first rows, ``scores.gpt-4`` on the others, a scorer
    renamed ``_v2``), kept as two half-empty judges whose agreement cannot be measured and
    whose per-judge diagnostics each see part of the rows. Each such judge, the later of a
    pair in ``judges``, with what to say of it; the first pair a judge is in only."""
    scored = {j: frame[j].notna().to_numpy() for j in judges}
    out: dict[str, str] = {}
    for k, a in enumerate(judges):
        for b in judges[k + 1 :]:
            if a in out or b in out or not scored[a].any() or not scored[b].any():
                continue
            if (scored[a] & scored[b]).any():
                continue
            both = float((scored[a] | scored[b]).mean())
            code = f"df[{a!r}] = df[{a!r}].fillna(df[{b!r}]); df = df.drop(columns={b!r})"
            how = f"(in pandas: {code}) and run again" if again is None else again("merged", code)
            out[b] = (
                f"never on a row with {a!r}: {a!r} scores {scored[a].mean():.0%} of the rows, "
                f"{b!r} {scored[b].mean():.0%}, the two together {both:.0%}; one judge renamed "
                f"mid-run? Then merge them into one column: {how}"
            )
    return out
