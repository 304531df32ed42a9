"""Judge diagnostics for pairwise verdicts (A/B/tie): position bias, tie rate, agreement
with the human votes (Cohen's kappa) and discrimination (AUC), each with an interval.

Definitions (one row per judge, and a reference row for the humans):

- ``position_bias``: the share of ``A`` verdicts minus the share of ``B`` among the
  judge's verdicts (all rows it judged), with a Wald interval for the mean of
  ``1[A] - 1[B]`` (a judge of probabilities ``p`` that A wins: the mean of ``2 p - 1``,
  the same for verdicts scored 1 / 0.5 / 0; it has no tie rate or kappa). Where the two
  positions are assigned at random (Chatbot Arena), an unbiased judge has 0 up to the
  models' own mix; the human row gives the reference.
- ``excess_position_bias``: the same difference for the judge minus for the human, on the
  rows both voted on: the paired mean of ``(1[A] - 1[B])_judge - (1[A] - 1[B])_human``
  with a Wald interval. It is the position bias net of which models met where.
- ``tie_rate``: the share of ``tie`` verdicts, Wilson interval.
- ``kappa``: unweighted Cohen's kappa over A/B/tie against the human on the rows both
  voted on, with the large-sample standard error of Fleiss, Cohen and Everitt (1969) and
  a Wald interval; ``agreement`` is the raw share of equal verdicts.
- ``auc``: on rows where the human chose a side, the probability that the judge scores
  a human-``A`` row above a human-``B`` row (score 1 for A, 0.5 for tie, 0 for B; equal
  scores count one half), with DeLong's standard error and a Wald interval on the logit
  scale. 0.5 is no discrimination (a judge that always says A has 0.5).

Votes drawn with unequal probabilities (a propensity column) weigh each by the inverse of
its probability in every figure over the voted rows, intervals at Kish's effective size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.doctor.pair_stats import (
    auc_delong,
    auc_interval,
    cohen_kappa,
    effective_n,
    mean_interval,
    wilson,
    z_critical,
)
from bacon_bayes.errors import ValidationError
from bacon_bayes.io import row_place
from bacon_bayes.pairs import VERDICT_HELP, verdict_sides
from bacon_bayes.readers.pair_table import WAVE_COLUMNS, PairRoles, drawn_marks
from bacon_bayes.readers.pairwise import to_verdict
from bacon_bayes.readers.preferences import SIDES

__all__ = [
    "auc_delong",
    "auc_interval",
    "cohen_kappa",
    "mean_interval",
    "pair_judge_diagnostics",
    "pool_pair_diagnostics",
    "verdict_codes",
    "wilson",
]

#: what doctor's legend says of judges of probabilities
PROBABILITIES = (
    "probabilities that A wins, position bias the mean of 2p - 1 (no tie rate or kappa)."
)
#: what doctor's legend says of a value shown without its interval
NO_CI = (
    "no CI: too few votes for an interval, or an AUC of 1 or 0 (the decisive votes all on",
    "one side of the judge's verdicts), where its interval is not defined.",
)
#: what :func:`~bacon_bayes.doctor.relation.copy_of_label` says a copy of every
#: comparison's human vote is good for (a pool mean of it means nothing for strengths)
PAIR_WHOLE = (
    "If it is the human vote of every comparison, --label {j} gives the strengths from all of them"
)
#: verdict -> code (0 = A, 1 = B, 2 = tie) and the judge's score of model_a
CODES = {"A": 0, "B": 1, "tie": 2}
SCORE = np.array([1.0, 0.0, 0.5])


def verdict_codes(
    values: pd.Series, name: str, *, human: bool = False, models: tuple[str, str] = ("", "")
) -> np.ndarray:
    """Verdicts (A/B/tie, model_a/model_b/tie (bothbad), 1/0/0.5) as codes 0/1/2, -1 where
    missing. ``models``: the columns of model A and model B; where one is named
    ``model_a`` or ``model_b``, the verdict words ``model_a`` / ``model_b`` mean the column
    they name, whichever side it is on, as the pool reads them
    (:func:`bacon_bayes.pairs.verdict_sides`).

    Raises
    ------
    ValidationError
        A value that is no verdict, naming the column and its first such row.
    """
    out = np.full(len(values), -1, dtype=int)
    uniques = pd.unique(values.to_numpy(dtype=object))
    sides = verdict_sides(*models)
    table = {}
    for u in uniques:
        if isinstance(u, str) and (word := u.strip().lower()) in sides:
            if (side := sides[word]) is None:
                where = row_place(
                    values, int(np.flatnonzero(values.to_numpy(dtype=object) == u)[0])
                )
                raise ValidationError(
                    f"{'human vote ' if human else ''}column {name!r}, {where}: {u!r} names "
                    f"the column {word!r}, but the models compared are --model-a "
                    f"{models[0]!r} and --model-b {models[1]!r}: pass that column as one of "
                    "them, or write the verdicts as A / B / tie."
                )
            table[u] = CODES["A"] if side == 1.0 else CODES["B"]
            continue
        try:
            v = to_verdict(u, f"column {name!r}")
        except ValidationError:
            where = row_place(values, int(np.flatnonzero(values.to_numpy(dtype=object) == u)[0]))
            judge = (
                " A judge's probability that A wins is no verdict: threshold it, or leave "
                "the judge out of these diagnostics."
            )
            raise ValidationError(
                f"{'human vote ' if human else ''}column {name!r}, {where}: {u!r} is not "
                f"a verdict; {VERDICT_HELP}, or leave the cell empty where nobody voted."
                + ("" if human else judge)
            ) from None
        table[u] = CODES[v] if isinstance(v, str) else -1
    for u, code in table.items():
        out[values.to_numpy(dtype=object) == u] = code
    if values.isna().any():
        out[values.isna().to_numpy()] = -1
    return out


def _side(codes: np.ndarray) -> np.ndarray:
    """1[A] - 1[B] per verdict."""
    return (codes == 0).astype(float) - (codes == 1).astype(float)


def judge_codes(
    values: pd.Series, name: str, models: tuple[str, str] = ("", "")
) -> tuple[np.ndarray | None, np.ndarray]:
    """A judge's verdicts as codes (:func:`verdict_codes`, ``models`` its) and its scores
    of model A (1 /
    0.5 / 0; NaN where missing); for a judge of probabilities that A wins (numbers in
    [0, 1], not all 1 / 0.5 / 0), no codes and the probabilities as its scores.

    Raises
    ------
    ValidationError
        A value that is neither a verdict nor, in a column of numbers, a probability.
    """
    try:
        codes = verdict_codes(values, name, models=models)
    except ValidationError:
        number = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
        if np.isnan(number[values.notna().to_numpy()]).any():
            raise
        past = np.flatnonzero(np.isfinite(number) & ((number < 0) | (number > 1)))
        if len(past) and (number[np.isfinite(number)] % 0.5 != 0).any():  # probabilities
            k = int(past[0])  # not the first cell that is no verdict: a valid 0.9
            more = f" ({len(past)} of its cells are not)" if len(past) > 1 else ""
            raise ValidationError(
                f"column {name!r}, {row_place(values, k)}: {float(number[k])!r} is no "
                f"probability that A wins: a judge of probabilities has each in [0, 1]{more}; "
                "clip it (or fix how it was computed), or leave the judge out."
            ) from None
        if len(past):
            raise
        return None, number
    return codes, _code_scores(codes)


def _code_scores(codes: np.ndarray) -> np.ndarray:
    """Model A's score of each verdict code (1 = A wins, 0.5 = tie, 0 = B wins; NaN: none)."""
    return np.where(codes >= 0, SCORE[np.clip(codes, 0, 2)], np.nan)


def _human_votes(
    df: pd.DataFrame, label: str, models: tuple[str, str] = ("", "")
) -> tuple[np.ndarray, pd.Series]:
    """The human vote's codes and :func:`_code_scores` (a Series, as ``copy_of_label``
    takes it); ``models``: :func:`verdict_codes`'."""
    codes = verdict_codes(df[label], label, human=True, models=models)
    return codes, pd.Series(_code_scores(codes))


def _shares(
    codes: np.ndarray | None,
    level: float,
    score: np.ndarray | None = None,
    w: np.ndarray | None = None,
) -> dict[str, float]:
    """Shares of A / B / tie verdicts and the position bias; ``codes`` None: a judge of
    probabilities ``score``, whose position bias is the mean of ``2 p - 1`` (for verdicts
    the same as ``1[A] - 1[B]``) and whose shares are those of ``p > 0.5`` and ``p < 0.5``
    (no tie rate). ``w``: each row's weight (the human votes drawn with unequal
    probabilities): weighted shares, the tie rate's Wilson interval at Kish's effective
    sample size."""
    if w is not None and codes is not None:
        seen = codes >= 0
        c, ws = codes[seen], w[seen]
        wn = ws / ws.sum() if len(ws) else ws
        share = {v: float(wn @ (c == v)) if len(c) else float("nan") for v in (0, 1, 2)}
        n_eff = effective_n(ws)
        lo, hi = wilson(share[2] * n_eff, n_eff, level)  # type: ignore[arg-type]
        bias, blo, bhi = mean_interval(_side(c), level, ws)
        return {
            "n": len(c), "p_a": share[0], "p_b": share[1], "tie_rate": share[2],
            "tie_lo": lo, "tie_hi": hi, "position_bias": bias,
            "position_lo": max(blo, -1.0), "position_hi": min(bhi, 1.0),
        }  # fmt: skip
    if codes is None:
        assert score is not None
        p = score[np.isfinite(score)]
        n = len(p)
        bias, blo, bhi = mean_interval(2 * p - 1, level)
        return {
            "n": n, "p_a": float((p > 0.5).mean()) if n else np.nan,
            "p_b": float((p < 0.5).mean()) if n else np.nan, "tie_rate": np.nan,
            "tie_lo": np.nan, "tie_hi": np.nan, "position_bias": bias,
            "position_lo": max(blo, -1.0), "position_hi": min(bhi, 1.0),
        }  # fmt: skip
    seen = codes[codes >= 0]
    n = len(seen)
    ties = int((seen == 2).sum())
    lo, hi = wilson(ties, n, level)
    bias, blo, bhi = mean_interval(_side(seen), level)
    blo, bhi = max(blo, -1.0), min(bhi, 1.0)  # NaN stays NaN
    return {
        "n": n,
        "p_a": float((seen == 0).mean()) if n else float("nan"),
        "p_b": float((seen == 1).mean()) if n else float("nan"),
        "tie_rate": ties / n if n else float("nan"),
        "tie_lo": lo,
        "tie_hi": hi,
        "position_bias": bias,
        "position_lo": blo,
        "position_hi": bhi,
    }


def pair_judge_diagnostics(
    df: pd.DataFrame,
    label: str | None,
    judges: Sequence[str],
    *,
    level: float = 0.95,
    models: tuple[str, str] = ("", ""),
    weights: np.ndarray | None = None,
) -> pd.DataFrame:
    """Per-judge diagnostics of pairwise verdicts against the human votes.

    Parameters
    ----------
    df : DataFrame
        One row per comparison (the canonical frame of
        :mod:`bacon_bayes.readers.pairwise`, or any frame with these columns).
    label : str or None
        The human verdict column (A/B/tie, NaN where unlabeled); None for judges only.
    judges : sequence of str
        Judge verdict columns.
    level : float
        Confidence level of the intervals.
    models : (str, str)
        The columns of model A and model B, by which the verdict words ``model_a`` /
        ``model_b`` are read (:func:`verdict_codes`); unset, they mean A and B.
    weights : ndarray, optional
        Each row's weight, the inverse of the probability its human vote was drawn with
        (the waves of ``bacon sample --pairwise``): the human row, the excess position
        bias, kappa and AUC, all over the voted rows, weigh each vote by it (the voted
        rows as drawn, unweighted, describe the drawn mix of model pairs, not the
        table's); None: the votes a uniform draw.

    Returns
    -------
    DataFrame
        One row per judge and, first, a ``human`` row (``judge`` = the label column),
        with ``n``, ``p_a``, ``p_b``, ``tie_rate`` [``tie_lo``, ``tie_hi``],
        ``position_bias`` [``position_lo``, ``position_hi``], ``n_labeled``,
        ``excess_position_bias`` [``excess_lo``, ``excess_hi``], ``agreement``,
        ``kappa``, ``kappa_se`` [``kappa_lo``, ``kappa_hi``], ``n_decisive``, ``auc``
        [``auc_lo``, ``auc_hi``] (see the module docstring; NaN where undefined).
    """
    if not 0 < level < 1:
        raise ValidationError(f"level is {level}; pass a confidence level in (0, 1).")
    for c in [*([label] if label else []), *judges]:
        if c not in df.columns:
            raise ValidationError(
                f"column {c!r} is not in the table; its columns: {', '.join(map(str, df.columns))}."
            )
    if not judges:
        raise ValidationError("no judge columns given; pass judges=[...].")
    z = z_critical(level)
    human = (
        verdict_codes(df[label], label, human=True, models=models)
        if label
        else np.full(len(df), -1)
    )
    out: list[dict[str, object]] = []
    w = None if weights is None else np.asarray(weights, dtype=float)
    if label:
        out.append({"judge": label, "role": "human", **_shares(human, level, w=w)})
    for j in judges:
        codes, score = judge_codes(df[j], j, models)
        row: dict[str, object] = {"judge": j, "role": "judge", **_shares(codes, level, score)}
        both = np.isfinite(score) & (human >= 0)
        wb = None if w is None else w[both]
        row["n_labeled"] = int(both.sum())
        exc, elo, ehi = mean_interval(2 * score[both] - 1 - _side(human[both]), level, wb)
        row.update(excess_position_bias=exc, excess_lo=elo, excess_hi=ehi)
        kap, se, agree = (
            (np.nan,) * 3 if codes is None else cohen_kappa(codes[both], human[both], w=wb)
        )
        row.update(agreement=agree, kappa=kap, kappa_se=se)
        row.update(kappa_lo=kap - z * se, kappa_hi=kap + z * se)
        ia, ib = both & (human == 0), both & (human == 1)
        pos, neg = score[ia], score[ib]
        auc, ase = auc_delong(pos, neg, *((None, None) if w is None else (w[ia], w[ib])))
        row.update(n_decisive=len(pos) + len(neg), auc=auc)
        row.update(zip(("auc_lo", "auc_hi"), auc_interval(auc, ase, level), strict=True))
        out.append(row)
    columns = [
        "judge", "role", "n", "p_a", "p_b", "tie_rate", "tie_lo", "tie_hi",
        "position_bias", "position_lo", "position_hi", "n_labeled", "excess_position_bias",
        "excess_lo", "excess_hi", "agreement", "kappa", "kappa_se", "kappa_lo", "kappa_hi",
        "n_decisive", "auc", "auc_lo", "auc_hi",
    ]  # fmt: skip
    return pd.DataFrame(out).reindex(columns=columns)


def pool_pair_diagnostics(pool: Any, level: float = 0.95) -> pd.DataFrame:
    """:func:`pair_judge_diagnostics` of a pool of comparisons
    (:meth:`EvalPool.from_pairs`, also one a saved calibrator carries): its human scores
    of model A and its judges' scores (1 / 0.5 / 0, which are the verdicts A / tie / B),
    under the pool's label and judge names, so a report from a saved calibrator shows the
    same table as one from the fit."""
    frame = pool.judge_matrix().set_axis(list(pool.judges), axis=1)
    frame.insert(0, pool.label_name, np.asarray(pool.y, dtype=float))
    pi = getattr(pool, "propensity", None)
    weights = None if pi is None else 1.0 / np.asarray(pi, dtype=float)
    return pair_judge_diagnostics(
        frame, pool.label_name, list(pool.judges), level=level, weights=weights
    )


def unfit_judges(
    df: pd.DataFrame, label: str, judges: Sequence[str], models: tuple[str, str] = ("", "")
) -> dict[str, str]:
    """The judges the human votes cannot calibrate, each with why: scored on a far other
    share of the voted comparisons than of the others
    (:func:`~bacon_bayes.doctor.relation.coverage_split`, tester A finding 6), or equal to
    the human vote on every voted comparison
    (:func:`~bacon_bayes.doctor.relation.copy_of_label`: a leaked label, which as a judge
    gives intervals of almost no width), the order ``judge_warnings`` says them in."""
    from bacon_bayes.doctor.relation import COPY_HARM, copy_of_label, coverage_split

    codes, human = _human_votes(df, label, models)
    found = {}
    for j in judges:
        score = judge_codes(df[j], j, models)[1]
        if why := coverage_split(np.isfinite(score), codes >= 0):
            found[j] = why
        elif why := copy_of_label(pd.Series(score), human, whole=PAIR_WHOLE.format(j=j)):
            found[j] = f"{why}; {COPY_HARM}"
    return found


def maybe_judge_notes(df: pd.DataFrame, roles: PairRoles, judges: Sequence[str]) -> list[str]:
    """The notes on the columns that may be a judge's verdicts (``roles.maybe_judges``),
    each with the ``--judge`` options that take it beside ``judges`` (the printed
    command's); a column equal to the human vote on every voted comparison, or to a judge's
    verdicts on every comparison, is said to be one instead, and not proposed (tester A
    finding 8)."""
    from bacon_bayes.doctor.relation import COPY_HARM, copy_of_label
    from bacon_bayes.readers.pair_table import name_judges

    models = (roles.model_a, roles.model_b)
    _, human = _human_votes(df, roles.label, models)
    scores = {j: judge_codes(df[j], j, models)[1] for j in roles.judges}
    out, proposed = [], []
    for c, why in roles.maybe_judges.items():
        try:
            score = judge_codes(df[c], c, models)[1]
        except ValidationError:  # words naming A and B: not read as verdicts
            out.append(f"{why} {name_judges(judges, c)}")
            proposed.append(c)
            continue
        seen = np.isfinite(score)
        twin = next(
            (
                j for j, s in scores.items()
                if seen.any() and np.array_equal(seen, np.isfinite(s)) and (score == s)[seen].all()
            ),
            None,
        )  # fmt: skip
        if copy := copy_of_label(pd.Series(score), human, whole=PAIR_WHOLE.format(j=c)):
            out.append(f"column {c!r} {copy}; {COPY_HARM}: not taken as a judge")
        elif twin is not None:
            out.append(
                f"column {c!r} holds the verdicts of judge {twin!r} as numbers (1 = A wins, "
                "0.5 = tie, 0 = B wins) on every comparison: the same judge twice, so it is "
                "not taken as a judge"
            )
        else:
            out.append(f"{why} {name_judges(judges, c)}")
            proposed.append(c)
    if len(proposed) > 1:  # one list of options takes them all
        out.append(f"to take all {len(proposed)} as judges: {name_judges(judges, *proposed)}")
    return out


def estimate_command(path: str, roles: PairRoles, labels: str | None = None) -> str:
    """The ``bacon estimate FILE --pairwise ...`` command for a table whose columns
    ``roles`` (:class:`~bacon_bayes.readers.pair_table.PairRoles`) names, shell-quoted
    (the frequentist engine: seconds; drop ``--engine freq`` for the Bayesian one)."""
    import shlex

    given: list[tuple[str, object]] = [
        ("--model-a", roles.model_a),
        ("--model-b", roles.model_b),
        ("--label", roles.label),
        *(("--judge", j) for j in roles.judges),
        ("--prompt", roles.prompt),
        ("--item", roles.item),
        ("--labels", labels),
        ("--propensity", roles.propensity),
    ]
    options = " ".join(f"{k} {shlex.quote(str(v))}" for k, v in given if v)
    return f"bacon estimate {shlex.quote(str(path))} --pairwise {options} --engine freq"


def _vote_weights(df: pd.DataFrame, roles: PairRoles) -> np.ndarray | None:
    """Each comparison's weight, the inverse of its inclusion probability in the
    ``roles.propensity`` column (a table ``bacon sample --pairwise`` wrote, or
    ``--propensity``); None without one, or where a voted row's is not in (0, 1] (the
    estimate refuses it, naming the row)."""
    if not roles.propensity or roles.propensity not in df.columns:
        return None
    pi = pd.to_numeric(df[roles.propensity], errors="coerce").to_numpy(dtype=float)
    voted = df[roles.label].notna().to_numpy()
    if not ((pi[voted] > 0) & (pi[voted] <= 1)).all():
        return None
    return np.where(voted, 1.0 / np.where(voted, pi, 1.0), 1.0)


def pair_doctor_text(
    df: pd.DataFrame, roles: PairRoles, path: str, *, alpha: float = 0.05,
    labels: str | None = None, named: bool = False,
) -> str:  # fmt: skip
    """``bacon doctor`` on a table of comparisons: what was found, the per-judge pair
    diagnostics with their intervals, and the command to run. A judge that copies the
    human votes is said, and left out of the command unless ``named`` (``--judge``)."""
    from dataclasses import replace

    from bacon_bayes.doctor.cells import one_spelling_line
    from bacon_bayes.doctor.relation import COPY_HARM
    from bacon_bayes.estimate.bt_guards import graph_problem
    from bacon_bayes.order import natural_sorted
    from bacon_bayes.pairs import model_problems, model_problems_text, spellings_note

    label, judges = roles.label, list(roles.judges)
    columns = (roles.model_a, roles.model_b)  # verdicts model_a / model_b name these columns
    weights = _vote_weights(df, roles)
    diag = pair_judge_diagnostics(
        df, label, judges, level=1 - alpha, models=columns, weights=weights
    )
    unfit = unfit_judges(df, label, judges, columns)
    fix = "; left out of the command below (pass --judge to use it anyway)"
    copied = []
    for j, why in unfit.items():  # a split's why ends with its fix, a copy's with its harm
        named_fix = ": leave it out of the judges" if why.endswith(COPY_HARM) else ""
        copied.append(f"judge {j!r} {why}{named_fix if named else fix}")
    kept = replace(roles, judges=[j for j in judges if named or j not in unfit])
    maybe = maybe_judge_notes(df, roles, kept.judges)  # tester A finding 8
    blocked = model_problems_text(df, roles.model_a, roles.model_b)
    empty = np.zeros(len(df), dtype=bool)
    empty[model_problems(df, roles.model_a, roles.model_b)["empty"]] = True
    a, b = df[roles.model_a][~empty], df[roles.model_b][~empty]
    models = natural_sorted(set(a.astype(str)) | set(b.astype(str)))
    line = ""  # a table's: the line that writes each model one way
    if roles.format in ("csv", "parquet"):
        line = one_spelling_line(path, [roles.model_a, roles.model_b], "models")
    spellings = spellings_note(models, line)  # as the pool of these comparisons will say
    n_lab = int((verdict_codes(df[label], label, human=True, models=columns) >= 0).sum())

    def span(v: float, lo: float, hi: float) -> str:
        if not np.isfinite(v):
            return "-"
        return (
            f"{v:.3f} [{lo:.3f}, {hi:.3f}]" if np.isfinite([lo, hi]).all() else f"{v:.3f} (no CI)"
        )

    # two tables, each about 100 columns wide (one was 130-140 on Arena tables): how each
    # judge votes over all its verdicts, then how it relates to the human votes
    votes = [
        {
            "judge": f"{r['judge']} (human)" if r["role"] == "human" else r["judge"],
            "n": int(r["n"]),
            "position bias (A-B)": span(r["position_bias"], r["position_lo"], r["position_hi"]),
            "tie rate": span(r["tie_rate"], r["tie_lo"], r["tie_hi"]),
        }
        for _, r in diag.iterrows()
    ]
    against = [
        {
            "judge": r["judge"],
            "n voted": int(r["n_labeled"]),
            "excess over human": span(r["excess_position_bias"], r["excess_lo"], r["excess_hi"]),
            "kappa": span(r["kappa"], r["kappa_lo"], r["kappa_hi"]),
            "AUC": span(r["auc"], r["auc_lo"], r["auc_hi"]),
        }
        for _, r in diag.iterrows()
        if r["role"] == "judge"
    ]
    rows = votes + against
    level = round(100 * (1 - alpha), 1)
    how = str(df.attrs.get("read as", ""))  # a CSV not comma-separated UTF-8: how it was read
    read = f"{roles.format}, {how}" if how else roles.format
    probs = [  # judges of probabilities: no verdicts, so no tie rate
        str(r["judge"]) for _, r in diag.iterrows()
        if r["role"] == "judge" and r["n"] > 0 and not np.isfinite(r["tie_rate"])
    ]  # fmt: skip
    notes = [n for n in [*roles.notes, *roles.left_out, *maybe, spellings, *copied] if n]
    used = {roles.model_a, roles.model_b, label, *judges, roles.prompt, roles.item}
    used |= {roles.propensity, *roles.maybe_judges}
    other = [
        str(c) for c in df.columns if c not in used and not any(repr(str(c)) in n for n in notes)
    ]
    found = [
        f"{path}: pairwise comparisons ({read}), {len(df)} rows, "
        f"{len(models)} models, {n_lab} with a human vote",
        f"  model A: {roles.model_a}, model B: {roles.model_b}, human vote: {label}",
        f"  judges: {', '.join(judges)}",
        f"  prompt: {roles.prompt or 'none'}, id: {roles.item or 'row number'}",
        *([f"  not used: {', '.join(other)}"] if other else []),
        *(f"  note: {n}" for n in notes),
        "",
        f"judges on pairs ({level:g}% intervals; the first row is the humans' own):",
        pd.DataFrame(votes).to_string(index=False),
        "  n: verdicts; position bias: share of A verdicts minus share of B.",
        "",
        "judges against the human votes (the comparisons both voted on, n voted):",
        pd.DataFrame(against).to_string(index=False),
        "  excess over human: the position bias net of the humans' on those comparisons;",
        "  kappa: Cohen's, against the human votes; AUC: discrimination on the decisive",
        "  human votes (0.5 = none).",
        *([f"  {', '.join(probs)}: {PROBABILITIES}"] if probs else []),
        *(f"  {line}" for line in (NO_CI if "(no CI)" in str(rows) else ())),
        *(
            [
                f"  the human votes weighed by 1 / {roles.propensity}: drawn with unequal",
                "  probabilities, unweighted they describe the mix of comparisons drawn.",
            ]
            if weights is not None
            else []
        ),
        "",
    ]
    if n_lab < 2 and (missing := df.attrs.get("votes missing")):
        return "\n".join([*found, str(missing)])  # a format's own: where its votes are
    if n_lab < 2:
        found.append(
            f"no strengths yet: {n_lab} comparison(s) carry a human vote in {label!r} and "
            "Bradley-Terry needs at least 2; add human votes (A / B / tie) to that column "
            "(MT-Bench: pass FastChat's human judgments file with --labels FILE), then run "
            "bacon doctor again for the command."
        )
        return "\n".join(found)
    if {*a.astype(str), *b.astype(str)} == set(SIDES):  # as_positions' sides, no models
        found.append(
            "no strengths: the compared 'models' are the two sides of a preference set "
            "(chosen, rejected), and the chosen side wins every vote, so its strength says "
            "nothing; what this table gives is above, each judge against the human votes "
            "(kappa, AUC). For strengths, give each answer's model in model_a / model_b."
        )
        return "\n".join(found)
    if not blocked and (apart := graph_problem(a.astype(str), b.astype(str))):
        blocked = [apart.rstrip(".")]  # tester A finding 4: the command always failed
    if blocked:  # bacon estimate would refuse these rows: no command until they are fixed
        found += [f"not yet: {why}." for why in blocked]
        found.append("then run bacon doctor again for the bacon estimate command.")
        return "\n".join(found)
    head = "run (frequentist engine, seconds; drop --engine freq for the Bayesian judge model):"
    to_label = WAVE_COLUMNS[0]
    if roles.propensity and to_label in df.columns:  # a drawn wave: all its votes first
        todo = drawn_marks(df) & df[label].isna().to_numpy()
        if todo.any():
            head = (
                f"the drawn wave is not voted on yet: {int(todo.sum())} comparison(s) marked "
                f"to_label = 1 have no vote in {label!r} (line {int(todo.argmax()) + 2} the "
                "first), and its propensities hold only for the whole wave; fill them in, "
                "then run (frequentist engine):"
            )
    if not kept.judges:
        found.append(
            "no judge left for the command: the notes above leave out every judge; add a "
            "column of model verdicts on every comparison, then run bacon doctor again for "
            "the command."
        )
        return "\n".join(found)
    found += [head, "  " + estimate_command(path, kept, labels)]
    return "\n".join(found)
