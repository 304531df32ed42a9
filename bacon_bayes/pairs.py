"""Pools of pairwise comparisons: model A vs model B, a human verdict and judge verdicts.

:func:`pairs_frame` (behind :meth:`EvalPool.from_pairs`) turns a table with one
comparison per row into an :class:`~bacon_bayes.pool.EvalPool` whose label is the human
score of model A (1 win, 0.5 tie, 0 loss; an ordinal outcome with levels 0, 0.5, 1, so
the outcome models and cross-fitting work unchanged) and whose judges are numeric scores
of A (a verdict as 1 / 0.5 / 0, or a probability that A wins). The models sit in
``pool.pairs``; :func:`bradley_terry_table` hands a fitted calibrator's surrogate to
:func:`~bacon_bayes.estimate.bradley_terry.bradley_terry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import NotFittedError, ValidationError
from bacon_bayes.io import row_place
from bacon_bayes.order import natural_sorted
from bacon_bayes.order import spellings_note as order_spellings_note
from bacon_bayes.pool_checks import check_rows_are_items
from bacon_bayes.results import RankTable

if TYPE_CHECKING:
    from bacon_bayes.results import EstimateTable

#: verdict spellings (lower case, stripped) and the score of model A they mean: every
#: word the readers take for a verdict (:mod:`bacon_bayes.readers.pairwise`)
#: the verdict spellings every reader of comparisons accepts, for its refusals; 2 is not
#: one: in a coding of 1 / 2 for the first / second answer, 0 may be a tie, which 0 = B
#: wins would misread
VERDICT_HELP = (
    "write A, B or tie (also left / right, model_a / model_b, Assistant A / Assistant B, "
    "Response 1 / Response 2, "
    "tie (bothbad), draw, =, "
    "Arena-Hard's A>B / A=B / B>A; or 1 = A wins, 0 = B wins, 0.5 = tie; a coding of 1 / 2 "
    "for the first / second answer is not read: write it as A / B)"
)
VERDICTS: dict[str, float] = {
    "a": 1.0,
    "model_a": 1.0,
    "model_1": 1.0,
    "b": 0.0,
    "model_b": 0.0,
    "model_2": 0.0,
    "left": 1.0,  # a labelling tool's first / second answer, as shown
    "right": 0.0,
    "tie": 0.5,
    "tie (bothbad)": 0.5,
    "tie (inconsistent)": 0.5,
    "bothbad": 0.5,
    "both_bad": 0.5,
    "draw": 0.5,
    "=": 0.5,  # A / B / = (a spreadsheet's tie)
    # a judge's reply naming the answer it prefers, as its prompt called the two
    # (MT-Bench's "Assistant A", AlpacaEval's "Output (a)")
    **{
        f"{who}{side}": v
        for who in ("assistant ", "response ", "model ", "answer ", "output ")
        for side, v in (("a", 1.0), ("b", 0.0), ("(a)", 1.0), ("(b)", 0.0), ("1", 1.0), ("2", 0.0))
    },  # "Response 1" / "Response 2": the first / second answer shown, named with its word
    "[[a]]": 1.0,  # the MT-Bench / FastChat pair judge's raw verdicts ([[C]]: a tie)
    "[[b]]": 0.0,
    "[[c]]": 0.5,
    # Arena-Hard's judge scale, a strong preference a win (readers.pairwise._WORDS)
    **{
        f"{o}{w}{c}": v
        for w, v in (
            ("a>>b", 1.0),
            ("a>b", 1.0),
            ("a=b", 0.5),
            ("b=a", 0.5),
            ("b>a", 0.0),
            ("b>>a", 0.0),
        )
        for o, c in (("", ""), ("[[", "]]"))
    },
    "1": 1.0,
    "0": 0.0,
    "0.5": 0.5,
}


@dataclass(frozen=True)
class Pairs:
    """The two models of each comparison: codes into ``names`` (natural order)."""

    a: np.ndarray
    b: np.ndarray
    names: tuple[str, ...]

    @property
    def n_models(self) -> int:
        return len(self.names)

    def notes(self) -> tuple[str, ...]:
        """A note when model names differ only in case, spaces around them or the
        separators between words (:func:`spellings_note`)."""
        note = spellings_note(self.names)
        return (note,) if note else ()


def spellings_note(names: Sequence[str], line: str = "") -> str:
    """A note when model ``names`` differ only in case or spaces (around them, or the
    separators between words: :func:`~bacon_bayes.order.spelling_key`): the table
    reads them as different models (60 models where there were 20); "" otherwise. Said by
    a pool of comparisons and by ``bacon doctor`` on a table of them, whose ``line`` (a
    command that writes the table so) replaces the pandas hint."""
    hint = line or (
        "e.g. df[col].str.strip().str.lower().str.replace('[ _-]+', '-', regex=True) on "
        "both model columns"
    )
    return order_spellings_note(names, "models", f"write each model one way ({hint})")


def verdict_sides(model_a: str, model_b: str) -> dict[str, float | None]:
    """The score of model A that the verdict words ``model_a`` / ``model_b`` mean when
    the model columns carry those names: each word names its column, whichever side the
    command puts it on (tester D finding 3: ``--model-a model_b --model-b model_a`` read
    "model_a" as A and silently reversed the ranking). None: the word names a column that
    is neither model; {}: neither model column is so named (the words mean A and B)."""
    if not {"model_a", "model_b"} & {model_a, model_b}:
        return {}
    return {w: 1.0 if w == model_a else 0.0 if w == model_b else None
            for w in ("model_a", "model_b")}  # fmt: skip


def _score(value: Any, *, probability: bool, sides: dict[str, float | None] | None = None) -> float:
    """One cell as the score of model A (NaN when empty); ``sides``: the words naming the
    model columns (:func:`verdict_sides`).

    Raises
    ------
    ValueError
        A value that is no verdict (:func:`_scores` says where it is).
    """
    if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
        return np.nan
    if isinstance(value, str):
        key = value.strip().lower()
        if sides and key in sides:
            side = sides[key]
            if side is None:
                raise LookupError(key)
            return side
        if key in VERDICTS:
            return VERDICTS[key]
        if key == "":
            return np.nan
    # a number, or one written as text: '1.0' beside words in a column filled in by hand
    try:
        num = float(value)
    except (TypeError, ValueError):
        num = np.nan
    if num in (0.0, 0.5, 1.0) or (probability and 0.0 <= num <= 1.0):
        return num
    raise ValueError(value)


def _scores(
    df: pd.DataFrame,
    col: str,
    *,
    probability: bool,
    role: str,
    models: tuple[str, str] = ("", ""),
) -> np.ndarray:
    out = np.empty(len(df), dtype=float)
    sides = verdict_sides(*models)
    for pos, value in enumerate(df[col].to_numpy(dtype=object)):
        try:
            out[pos] = _score(value, probability=probability, sides=sides)
        except LookupError:
            raise ValidationError(
                f"{role} column {col!r} has {value!r} at {row_place(df, pos)}, which names "
                f"the column {str(value).strip()!r}, but the models compared are "
                f"--model-a {models[0]!r} and --model-b {models[1]!r}: pass that column as "
                "one of them, or write the verdicts as A / B / tie."
            ) from None
        except ValueError:
            allowed = (
                "; a judge may give a probability in [0, 1] that A wins" if probability else ""
            )
            raise ValidationError(
                f"{role} column {col!r} has {value!r} at {row_place(df, pos)}, which is not "
                f"a verdict; {VERDICT_HELP}{allowed} (empty = missing)."
            ) from None
    return out


def model_problems(df: pd.DataFrame, model_a: str, model_b: str) -> dict[str, np.ndarray]:
    """The rows (positions from 0) no comparison can be made of: ``"empty"``, a model cell
    empty (or blank); ``"self"``, a model compared with itself (model A equals model B)."""
    ma, mb = df[model_a], df[model_b]

    def empty(s: pd.Series) -> np.ndarray:
        blank = s.astype(str).str.strip().eq("").to_numpy()
        return s.isna().to_numpy() | blank

    gone = empty(ma) | empty(mb)
    same = ~gone & (ma.astype(str) == mb.astype(str)).to_numpy()
    return {"empty": np.flatnonzero(gone), "self": np.flatnonzero(same)}


def model_problems_text(df: pd.DataFrame, model_a: str, model_b: str) -> list[str]:
    """:func:`model_problems` in words, each with where the rows are (their CSV lines)
    and the fix; [] when every row compares two models."""
    bad = model_problems(df, model_a, model_b)
    out = []
    for kind, rows in bad.items():
        if not len(rows):
            continue
        places = ", ".join(row_place(df, int(r)) for r in rows[:5])
        more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
        first = int(rows[0])
        if kind == "empty":
            out.append(
                f"{len(rows)} comparison(s) have an empty model cell in {model_a!r} or "
                f"{model_b!r} ({places}{more}): every comparison needs both models; fill "
                "the model in or drop the row"
            )
        else:
            model = str(df[model_a].iloc[first])
            out.append(
                f"{len(rows)} comparison(s) compare a model with itself ({places}{more}; "
                f"the first: {model!r} in both {model_a!r} and {model_b!r}): drop the row or "
                "fix the model names"
            )
    return out


def pairs_frame(
    df: pd.DataFrame,
    *,
    model_a: str,
    model_b: str,
    label: str,
    judges: Sequence[str],
    prompt: str | None = None,
    item: str | None = None,
    propensity: str | None = None,
) -> tuple[pd.DataFrame, Pairs, dict[str, Any]]:
    """The comparisons of ``df`` as a table for :meth:`EvalPool.from_frame` (label and
    judges as scores of model A), their :class:`Pairs`, and ``from_frame``'s keywords
    (:meth:`EvalPool.from_pairs` puts the three together)."""
    if not isinstance(df, pd.DataFrame):
        raise ValidationError(
            f"expected a pandas DataFrame, got {type(df).__module__}.{type(df).__name__}; "
            "convert it first (a pyarrow Table or polars DataFrame: .to_pandas())."
        )
    judges = [judges] if isinstance(judges, str) else list(judges)
    if not judges:
        raise ValidationError("pass at least one judge column (judges=[...]).")
    roles = [(model_a, "model_a"), (model_b, "model_b"), (label, "label")]
    roles += [(j, "judge") for j in judges] + [(c, r) for c, r in ((prompt, "prompt"),
              (item, "item id"), (propensity, "propensity")) if c is not None]  # fmt: skip
    for col, role in roles:
        if col not in df.columns:
            raise ValidationError(
                f"{role} column {col!r} is not in the table (columns: "
                f"{', '.join(map(str, df.columns[:12]))}); pass the name of an existing column."
            )
    problems = model_problems_text(df, model_a, model_b)
    if problems:
        raise ValidationError(problems[0] + ".")
    if item is None:  # one row per comparison and judge: each vote counted once a judge
        check_rows_are_items(df, label, judges, pairs=True)
    ma, mb = df[model_a], df[model_b]
    names = tuple(natural_sorted(set(ma.astype(str)) | set(mb.astype(str))))
    code = {n: k for k, n in enumerate(names)}
    sides = (str(model_a), str(model_b))  # verdicts model_a / model_b name these columns
    a = np.array([code[v] for v in ma.astype(str)], dtype=np.intp)
    b = np.array([code[v] for v in mb.astype(str)], dtype=np.intp)
    frame = pd.DataFrame(
        {
            "__label": _scores(df, label, probability=False, role="label", models=sides),
            **{
                str(j): _scores(df, j, probability=True, role="judge verdict", models=sides)
                for j in judges
            },
        },
        index=df.index,
    )
    frame.attrs.update(df.attrs)  # the CSV's lines, so the pool's errors name them
    kw: dict[str, Any] = {"label": "__label", "judges": [str(j) for j in judges]}
    kw.update(outcome="ordinal", levels=(0.0, 0.5, 1.0))
    for col, key in ((item, "item"), (prompt, "prompt")):
        if col is not None:  # under its own name, so errors name it (unless a judge's)
            name = str(col) if str(col) not in frame or str(col) == kw.get("item") else f"__{key}"
            frame[name] = df[col].to_numpy()
            kw[key] = name
    if propensity is not None:  # under its own name: errors name the user's column
        frame[str(propensity)] = df[propensity].to_numpy()
        kw["propensity"] = str(propensity)
    return frame, Pairs(a=a, b=b, names=names), kw


def bayes_family(pool: Any, name: str) -> str:
    """The Bayesian family for ``name`` on ``pool``: ``"pairwise"`` (the pairwise judge
    model, :mod:`bacon_bayes.bayes.pairwise_model`) in place of ``"ordinal"`` on a pairs
    pool whose judge verdicts are all 0, 0.5 or 1 (missing allowed); ``name`` otherwise."""
    if name != "ordinal" or getattr(pool, "pairs", None) is None:
        return name
    v = pool.judge_matrix().to_numpy(dtype=float)
    v = v[np.isfinite(v)]
    return "pairwise" if np.isin(v, (0.0, 0.5, 1.0)).all() else name


def bradley_terry_table(
    calibrator: Any,
    *,
    alpha: float = 0.05,
    simultaneous: bool = False,
    scale: str = "logit",
    method: str = "aee",
) -> EstimateTable:
    """:meth:`Calibrator.estimate_bradley_terry`: the fitted calibrator's cross-fitted
    surrogate (its predicted ``E[y]``) into
    :func:`~bacon_bayes.estimate.bradley_terry.bradley_terry`; ``method="labels"``: the
    human labels alone. With a prompt column and ``target="population"`` the intervals
    are clustered by prompt."""
    from bacon_bayes.estimate.bradley_terry import bradley_terry

    pool = getattr(calibrator, "pool_", None)
    if pool is None:
        raise NotFittedError("call fit(pool) before estimate_bradley_terry().")
    pairs = getattr(pool, "pairs", None)
    if pairs is None:
        raise ValidationError(
            "the pool has no pairs: build it with EvalPool.from_pairs(df, model_a=..., "
            "model_b=..., label=..., judges=[...]) to estimate Bradley-Terry strengths."
        )
    if method not in ("aee", "labels"):
        raise ValidationError(f"method={method!r} is not known; use 'aee' or 'labels'.")
    if pool.inclusion is not None:
        raise ValidationError(
            "Bradley-Terry intervals take labels drawn comparison by comparison (uniform or "
            "with a propensity column); this pool's labels were drawn by prompt."
        )
    f = None if method == "labels" else np.clip(calibrator.surrogate_, 0.0, 1.0)
    target = "pool" if calibrator.target == "pool" else "population"
    return bradley_terry(
        pairs.a, pairs.b, pool.y, f, pool.propensity, names=pairs.names, alpha=alpha,
        simultaneous=simultaneous, power_tuning=calibrator.power_tuning, target=target,
        scale=scale, prompts=getattr(pool, "prompts", None),
    )  # fmt: skip


def _strengths(calibrator: Any, alpha: float, method: str) -> EstimateTable:
    if method not in ("aee", "labels", "classical"):
        raise ValidationError(
            f"method={method!r} does not apply to comparisons; use 'aee' or 'classical' "
            "(Bradley-Terry on the human votes alone)."
        )
    m = "labels" if method == "classical" else method
    return bradley_terry_table(calibrator, alpha=alpha, method=m)


def strength_differences(
    calibrator: Any,
    alpha: float = 0.05,
    simultaneous: bool | str = True,
    method: str = "aee",
    baseline: str | None = None,
) -> EstimateTable:
    """:meth:`Calibrator.compare_groups` on a pool of comparisons: every difference of two
    models' Bradley-Terry strengths (log-odds), or with ``baseline`` (a model's name) every
    other model's against it, joint over those pairs by ``simultaneous`` (True: max-|t|;
    False: pointwise; or a rule of :func:`~bacon_bayes.estimate.groups.compare`)."""
    from dataclasses import replace

    from bacon_bayes.estimate.critical import simultaneous_rule
    from bacon_bayes.estimate.groups import compare

    rule = simultaneous_rule(simultaneous)
    table = _strengths(calibrator, alpha, method)
    return compare(replace(table, alpha=alpha), simultaneous=rule, baseline=baseline)


def strength_ranks(
    calibrator: Any, alpha: float = 0.05, method: str = "aee", descending: bool = True
) -> RankTable:
    """:meth:`Calibrator.rank_groups` on a pool of comparisons: the strengths' table with
    each model's rank and its rank interval (joint over the models at ``1 - alpha``, from
    the max-|t| differences; :func:`~bacon_bayes.estimate.groups.rank_intervals`)."""
    from bacon_bayes.estimate.groups import rank_intervals

    table = _strengths(calibrator, alpha, method)
    diffs = strength_differences(calibrator, alpha, True, method)
    ranks = rank_intervals(table, descending=descending, diffs=diffs)
    return RankTable.of(table, ranks, diffs, descending)
