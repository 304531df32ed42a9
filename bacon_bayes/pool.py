"""``EvalPool``: the validated container of one evaluation.

One row per item. Judge scores come either as wide columns (one per judge) or
as a long table ``item x judge x run``. The label column holds the human
label, NaN where the item is not labeled. Every rule that input must meet is
checked here (the columns' checks in :mod:`bacon_bayes.pool_checks`), and a
violation stops with a message that names the column, the row and the fix; nothing
is dropped silently.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pandas as pd

from bacon_bayes.arguments import (
    judge_columns,
    named_keywords,
    need_column,
    number_list,
    suggest,
    values_equal,
)
from bacon_bayes.errors import RepeatedIdError, ValidationError
from bacon_bayes.inclusion import (
    Inclusion,
    added_propensity,
    groups_never_drawn,
    labeled_by_prompt,
    labeled_by_score,
)
from bacon_bayes.io import csv_lines, plural_places
from bacon_bayes.order import group_spellings, names_text, unique_codes, wave_codes
from bacon_bayes.pairs import Pairs, pairs_frame
from bacon_bayes.pool_checks import (
    Rows,
    blank_cells,
    check_infinite,
    check_labels,
    check_propensity,
    check_roles,
    check_rows_are_items,
    embedding_matrix,
    empty_cell_says,
    long_from_table,
    numeric_column,
    python_scalar,
)
from bacon_bayes.scale import INFERRED_LEVELS as _INFERRED

Kind = Literal["continuous", "ordinal", "nonnegative", "categorical"]
KINDS: tuple[str, ...] = ("continuous", "ordinal", "nonnegative", "categorical")


@dataclass(frozen=True)
class OutcomeSpec:
    """Declared type of the human label.

    ``levels`` lists the allowed values for ``ordinal`` and ``categorical``
    outcomes (numeric; binary is ``(0, 1)``).
    """

    kind: Kind
    levels: tuple[float, ...] | None = None

    @property
    def discrete(self) -> bool:
        return self.kind in ("ordinal", "categorical")

    @property
    def bounds(self) -> tuple[float, float]:
        """Range of the label: its lowest and highest level, ``(0, inf)`` for a
        non-negative label, unbounded for a continuous one."""
        if self.levels is not None:
            return float(min(self.levels)), float(max(self.levels))
        if self.kind == "nonnegative":
            return 0.0, math.inf
        return -math.inf, math.inf


@dataclass(frozen=True)
class EvalPool:
    """A validated pool of items with judge scores and (some) human labels.

    Build it with :meth:`from_frame`. Attributes are read-only arrays aligned
    with ``ids``.
    """

    ids: np.ndarray
    y: np.ndarray
    outcome: OutcomeSpec
    judge_scores: pd.DataFrame  # long: pos, judge, run, score[, entropy, perplexity]
    judges: tuple[str, ...]
    groups: np.ndarray | None = None
    text: np.ndarray | None = None
    embedding: np.ndarray | None = None
    propensity: np.ndarray | None = None
    label_name: str = "label"
    notes: tuple[str, ...] = field(default_factory=tuple)
    prompts: np.ndarray | None = None
    inclusion: Inclusion | None = None
    #: the columns the groups and prompts came from (None: not from a named column)
    group_name: str | None = None
    prompt_name: str | None = None
    #: each label's wave (look) as a code 0..K-1 in the waves' order, -1 where unlabeled;
    #: ``wave_names``: the waves as given (None: the labels' waves were not recorded)
    waves: np.ndarray | None = None
    wave_names: tuple[str, ...] | None = None
    #: a pool of comparisons (:meth:`from_pairs`): the two models of each row
    pairs: Pairs | None = None

    def __eq__(self, other: object) -> bool:
        """Same items, labels, scores and settings (arrays compared by value)."""
        return values_equal(self, other) if isinstance(other, EvalPool) else NotImplemented

    def __repr__(self) -> str:
        """A one-line summary (a notebook showed the dataclass's dump: the id and label
        arrays and the whole long judge-score frame); the arrays are the attributes."""
        kind: str = self.outcome.kind
        if self.outcome.levels is not None:
            kind += ", levels " + ", ".join(f"{v:g}" for v in self.outcome.levels)
        shown = names_text(self.judges[:6])
        more = f", ... ({len(self.judges) - 6} more)" if len(self.judges) > 6 else ""
        one = "judge" if len(self.judges) == 1 else "judges"
        parts = [
            f"{self.n_items} items",
            f"{self.n_labeled} labeled in {self.label_name!r} ({kind})",
            f"{len(self.judges)} {one}: {shown}{more}",
        ]
        if self.pairs is not None:
            parts.append(f"comparisons of {self.pairs.n_models} models")
        elif self.groups is not None:
            where = f" in {self.group_name!r}" if self.group_name else ""
            parts.append(f"{unique_codes(self.groups)[0].size} groups{where}")
        if self.prompts is not None:
            where = f" in {self.prompt_name!r}" if self.prompt_name else ""
            parts.append(f"{np.unique(self.prompts.astype(str)).size} prompts{where}")
        if self.wave_names is not None:
            parts.append(f"{len(self.wave_names)} waves")
        if self.propensity is not None or self.inclusion is not None:
            parts.append("propensity")
        if self.text is not None:
            parts.append("text")
        if self.embedding is not None:
            parts.append(f"embedding ({self.embedding.shape[1]} dims)")
        if self.notes:
            parts.append(f"{len(self.notes)} note{'s' * (len(self.notes) > 1)} (.notes)")
        return f"EvalPool({'; '.join(parts)})"

    @property
    def design(self) -> Inclusion | np.ndarray | None:
        """What the estimators take as ``pi``: the waves (:class:`Inclusion`) when a design
        drew prompts, else the items' inclusion probabilities (None: uniform)."""
        return self.inclusion if self.inclusion is not None else self.propensity

    # ------------------------------------------------------------------ basics
    @property
    def n_items(self) -> int:
        return int(self.ids.size)

    @property
    def labeled(self) -> np.ndarray:
        return ~np.isnan(self.y)

    @property
    def n_labeled(self) -> int:
        return int(self.labeled.sum())

    @cached_property
    def _judge_cells(self) -> np.ndarray:
        """Each score row's cell ``pos * n_judges + judge`` (-1 for a judge not in ``judges``;
        computed once per pool: the scores do not change, and a pool made by ``replace``
        computes its own)."""
        codes, uniques = pd.factorize(self.judge_scores["judge"])
        col = np.append(pd.Index(list(self.judges)).get_indexer(uniques), -1)[codes]
        pos = self.judge_scores["pos"].to_numpy()
        cells = np.where(col >= 0, pos * len(self.judges) + col, -1)
        cells.setflags(write=False)
        return cells

    def max_runs(self) -> int:
        """The most score rows any judge has for one item (runs; 1 for wide input)."""
        cell = self._judge_cells
        return int(np.bincount(cell[cell >= 0]).max(initial=0)) if cell.size else 0

    def judge_matrix(self, stat: str = "mean") -> pd.DataFrame:
        """Items x judges summary over runs (``mean`` or ``std`` with one degree of freedom
        spent, as pandas'); NaN where a judge gave none (or, for ``std``, fewer than two)."""
        if stat not in ("mean", "std"):
            raise ValueError(f"stat={stat!r}; use 'mean' or 'std'")
        out = self._judge_means.copy() if stat == "mean" else self._judge_summary("std")
        return pd.DataFrame(
            out,
            index=pd.Index(np.arange(self.n_items), name="pos"),
            columns=pd.Index(list(self.judges), name="judge"),
        )

    @cached_property
    def _judge_means(self) -> np.ndarray:
        """Items x judges mean over runs, once per pool (the features, the fit's check and
        the naive baselines all ask for it); read-only."""
        out = self._judge_summary("mean")
        out.setflags(write=False)
        return out

    def _judge_summary(self, stat: str) -> np.ndarray:
        value = self.judge_scores["score"].to_numpy(dtype=float)
        cell = self._judge_cells
        keep = (cell >= 0) & ~np.isnan(value)
        cell, value = cell[keep], value[keep]
        size = self.n_items * len(self.judges)
        count = np.bincount(cell, minlength=size)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = np.bincount(cell, weights=value, minlength=size) / count
            if stat == "std":
                dev = value - out[cell]
                ss = np.bincount(cell, weights=dev * dev, minlength=size)
                out = np.where(count > 1, np.sqrt(ss / (count - 1)), np.nan)
        return out.reshape(self.n_items, len(self.judges))

    def judge_average(self) -> np.ndarray:
        """Raw average over judges of each judge's mean score (the naive baseline's input)."""
        avg = self.judge_matrix().mean(axis=1, skipna=True).to_numpy()
        if np.isnan(avg).any():
            empty = np.isnan(avg)
            pos = int(np.argmax(empty))
            raise ValidationError(
                f"{int(empty.sum())} row(s) have no judge score at all "
                f"({Rows(self.ids)(pos)} the first), so the naive judge average is "
                "undefined; score them with at least one judge, or leave them out (bacon "
                "estimate --drop-unscored; in Python, drop those rows from the DataFrame)."
            )
        return avg

    def with_labels(
        self, ids: Sequence[Any], values: Sequence[float], propensity: Sequence[float] | None = None
    ) -> EvalPool:
        """Return a copy with labels set for ``ids`` (validated like the originals); on a pool
        with inclusion probabilities, ``propensity`` gives those of the items it labels."""
        ids, new = list(ids), np.asarray(values, dtype=float)
        if new.ndim != 1 or new.size != len(ids):
            raise ValidationError(
                f"with_labels got {len(ids)} id(s) and {new.size} value(s); give one label "
                "value per id, in the same order."
            )
        pos = pd.Index(self.ids).get_indexer(ids)
        if (pos < 0).any():
            missing = ids[int(np.argmax(pos < 0))]
            alike = [v for v in np.asarray(self.ids).tolist() if str(v) == str(missing)]
            hint = f" (the pool has {alike[0]!r}: pass the ids as the pool's)" if alike else ""
            raise ValidationError(f"item {missing!r} is not in the pool{hint}; check the item ids.")
        y = self.y.copy()
        y[pos] = new
        pi = added_propensity(self.propensity, self.inclusion, pos, propensity)
        if pi is not None:
            check_propensity(pi, ~np.isnan(y), Rows(self.ids), "propensity")
        check_labels(y, self.outcome, Rows(self.ids), self.label_name)
        if self.waves is None or self.wave_names is None:
            return replace(self, y=y, propensity=pi)
        # labels added to a pool with waves: a new wave after the recorded ones
        waves = np.where(np.isnan(y), -1, self.waves)
        fresh = (waves < 0) & ~np.isnan(y)
        if not fresh.any():
            return replace(self, y=y, waves=waves, propensity=pi)
        waves[fresh] = len(self.wave_names)
        added = (*self.wave_names, "added")
        return replace(self, y=y, waves=waves, wave_names=added, propensity=pi)

    def report(self) -> dict[str, Any]:
        """Counts a user should see: items, labels, judges, missing scores, notes."""
        mat = self.judge_matrix()
        return {
            "n_items": self.n_items,
            "n_labeled": self.n_labeled,
            "outcome": self.outcome.kind,
            "levels": list(self.outcome.levels) if self.outcome.levels else None,
            "judges": list(self.judges),
            "missing_judge_scores": {j: int(mat[j].isna().sum()) for j in self.judges},
            "n_groups": None if self.groups is None else int(unique_codes(self.groups)[0].size),
            "n_prompts": None if self.prompts is None else int(np.unique(self.prompts).size),
            "notes": list(self.notes),
        }

    # ------------------------------------------------------------ construction
    @classmethod
    def from_pairs(
        cls, df: pd.DataFrame, *, model_a: str, model_b: str, label: str,
        judges: Sequence[str], prompt: str | None = None, item: str | None = None,
        propensity: str | None = None,
    ) -> EvalPool:  # fmt: skip
        """A pool of pairwise comparisons, one per row: the label (and each judge's
        verdict) is "A", "B" or "tie" (any case; also left / right, model_a / model_b / "tie
        (bothbad)") or 1 / 0 / 0.5, a judge also a probability that A wins; see
        :func:`bacon_bayes.pairs.pairs_frame`; ``propensity``: the column of inclusion
        probabilities of the votes (e.g. ``bacon sample --pairwise``'s)."""
        frame, pairs, kw = pairs_frame(df, model_a=model_a, model_b=model_b, label=label,
                                       judges=judges, prompt=prompt, item=item,
                                       propensity=propensity)  # fmt: skip
        pool = cls.from_frame(frame, **kw)
        return replace(pool, label_name=label, prompt_name=prompt, pairs=pairs,
                       notes=(*pool.notes, *pairs.notes()))  # fmt: skip

    @classmethod
    @named_keywords
    def from_frame(
        cls,
        df: pd.DataFrame,
        *,
        label: str,
        judges: Sequence[str] | pd.DataFrame,
        outcome: str,
        levels: Sequence[float] | None = None,
        group: str | None = None,
        text: str | None = None,
        embedding: Sequence[str] | str | None = None,
        propensity: str | None = None,
        item: str | None = None,
        prompt: str | None = None,
        prompt_propensity: str | None = None,
        wave: str | None = None,
    ) -> EvalPool:
        """Validate a table and build the pool.

        Parameters
        ----------
        df : DataFrame
            One row per item.
        label : str
            Column of human labels; NaN (empty) means not labeled.
        judges : list of str or DataFrame
            Wide judge-score columns of ``df``, or a long table with columns
            ``item``, ``judge``, ``score`` and optionally ``run``, ``entropy``,
            ``perplexity`` (other columns are ignored).
        outcome : {"continuous", "ordinal", "nonnegative", "categorical"}
            Type of the label.
        levels : list of numbers, optional
            Allowed label values for ordinal/categorical outcomes; inferred from
            the labels (and said so in ``notes``) when omitted.
        group, text, propensity, item : str, optional
            Columns with the group (e.g. system), item text, inclusion
            probability of the label sample, and item id (default: the index).
        embedding : list of str or str, optional
            Embedding columns, or a prefix selecting them (e.g. ``"emb_"``).
        prompt : str, optional
            Column of the prompt (question, source segment, document) each item answers,
            when several groups answer the same prompts. Cross-fitting then splits folds
            by prompt, and designs that draw prompts get variances clustered by prompt.
            Several items of one group on one prompt (repeated samples) are separate
            items of that prompt: they are labeled together by a paired design and
            clustered together in the variance.
        prompt_propensity : str, optional
            With ``propensity``: the probability that the design drew the item's prompt
            (for labels drawn by prompt outside ``bacon sample``; equal to ``propensity``
            when every item of a drawn prompt was labeled).
        wave : str, optional
            Column of the wave (labelling round) each label came in: integers, ISO dates
            (2023-11-20; other date text is refused) or anything orderable; the looks of
            the anytime intervals (``Calibrator.estimate_mean(anytime=True)``). Every
            labeled row needs one, and an unlabeled row must have none.
        """
        if not isinstance(df, pd.DataFrame):
            raise ValidationError(
                f"expected a pandas DataFrame, got {type(df).__module__}.{type(df).__name__}; "
                "convert it first (a pyarrow Table or polars DataFrame: .to_pandas())."
            )
        if df.columns.duplicated().any():
            dup = df.columns[df.columns.duplicated()][0]
            raise ValidationError(f"column {dup!r} appears twice; rename one of them.")
        if len(df) == 0:
            raise ValidationError("the table has no rows; pass at least one item per row.")
        if outcome not in KINDS:
            raise ValidationError(
                f"outcome {outcome!r} is not known.{suggest(outcome, KINDS)} "
                f"Use one of {', '.join(KINDS)}."
            )
        notes: list[str] = []
        # ids
        if item is None:
            ids, id_role = df.index.to_numpy(), "index"
        else:
            need_column(df, item, "item id")
            ids, id_role = df[item].to_numpy(), f"item id column {item!r}"
        rows = Rows(ids, csv_lines(df), df.index)
        if (blank := blank_cells(ids)).any():
            pos = int(np.argmax(blank))
            spaces, hint = empty_cell_says(ids, pos, df)
            raise ValidationError(
                f"{id_role} is empty{spaces} at {rows.at(pos)}; give every item an id{hint}."
            )
        if (dup := pd.Index(ids).duplicated(keep=False)).any():
            at, more = np.flatnonzero(ids == ids[dup][0]), pd.Index(ids[dup]).nunique() - 1
            also = f" (and {more} more repeated id{'s' * (more > 1)})" if more else ""
            raise RepeatedIdError(
                f"{id_role} has a duplicate id {python_scalar(ids[at[0]])!r} at "
                f"{plural_places(rows.at(p) for p in at[:5])}{', ...' * (at.size > 5)}{also}; "
                "ids must be unique (one row per item). Aggregate repeated rows or pass a long "
                "judge table."
                + (
                    " The ids are the frame's index (no item= column given): a frame joined "
                    "with pd.concat keeps each part's index; pass item=COLUMN naming the id "
                    "column, or df.reset_index(drop=True) to number the rows afresh."
                    if item is None
                    else ""
                )
            )
        if item is None:  # the index numbers rows: are they items?
            check_rows_are_items(df, label, [] if isinstance(judges, pd.DataFrame) else judges)
        # label
        need_column(df, label, "label")
        y = numeric_column(df[label], "label", rows, notes)
        spec = _outcome_spec(outcome, levels, y, notes)
        check_labels(y, spec, rows, label)
        # judges
        if isinstance(judges, pd.DataFrame):
            long = long_from_table(judges, ids, notes)
            judge_names = tuple(dict.fromkeys(long["judge"].astype(str)))
        else:
            judges = judge_columns(judges, label, df.columns)
            judge_names = tuple(str(j) for j in judges)  # a column named 0 is the judge '0'
            frames, wide = [], []
            for j in judges:
                need_column(df, j, "judge")
                s = numeric_column(df[j], "judge", rows, notes)
                if np.isnan(s).all():
                    raise ValidationError(
                        f"judge column {j!r} has no score at all; drop it from the judges."
                    )
                keep = ~np.isnan(s)
                wide.append(s)
                frames.append(
                    pd.DataFrame(
                        {"pos": np.flatnonzero(keep), "judge": str(j), "run": 0, "score": s[keep]}
                    )
                )
            long = pd.concat(frames, ignore_index=True)
        check_infinite(long, rows)
        if levels is None and spec.kind == "ordinal":  # some level with no label yet?
            notes[:] = [_levels_note(n, spec, long) for n in notes]
        roles = {"item": item, "group": group, "prompt": prompt, "text": text, "wave": wave}
        roles |= {"propensity": propensity, "prompt_propensity": prompt_propensity}
        check_roles(label, judge_names, roles)
        # optional columns
        groups = codes = names = None
        if group is not None:
            need_column(df, group, "group")
            g = df[group]
            if (blank := blank_cells(g)).any():
                pos = int(np.argmax(blank))
                spaces, hint = empty_cell_says(g, pos, df)
                raise ValidationError(
                    f"group column {group!r} is empty{spaces} at {rows(pos)}; give every item "
                    f"a group (e.g. 'unknown') or leave out group{hint}."
                )
            if pd.api.types.is_float_dtype(g) and (g == np.round(g)).all():
                g = g.astype(np.int64)  # group 8, not 8.0
            # each distinct value to str once (a million arrow strings one by one: 1.5 s)
            codes, distinct = pd.factorize(g)
            names = np.array([str(v) for v in pd.Series(distinct).astype(str)], dtype=object)
            groups = names[codes]
            groups.setflags(write=False)  # read-only: its distinct names are kept (order)
            unique_codes(groups, factorized=(codes, names))
        texts = None
        if text is not None:
            need_column(df, text, "text")
            texts = df[text].fillna("").astype(str).to_numpy()
        emb = None
        if embedding is not None:
            emb = embedding_matrix(df, embedding, rows)
        pi = None
        if propensity is not None:
            need_column(df, propensity, "propensity")
            pi = numeric_column(df[propensity], "propensity", rows, notes)
            check_propensity(pi, ~np.isnan(y), rows, propensity)
        prompts = None
        if prompt is not None:
            need_column(df, prompt, "prompt")
            pr = df[prompt]
            if (blank := blank_cells(pr)).any():
                pos = int(np.argmax(blank))
                spaces, hint = empty_cell_says(pr, pos, df)
                raise ValidationError(
                    f"prompt column {prompt!r} is empty{spaces} at {rows(pos)} "
                    f"({int(blank.sum())} rows); give every item the id of the prompt it "
                    f"answers, or leave out prompt{hint}."
                )
            prompts = pr.astype(str).to_numpy()
        inclusion = None
        if prompt_propensity is not None:
            if propensity is None or prompts is None:
                raise ValidationError(
                    "prompt_propensity needs propensity (the items' probabilities) and "
                    "prompt (the prompt column) too."
                )
            need_column(df, prompt_propensity, "prompt propensity")
            b = numeric_column(df[prompt_propensity], "prompt propensity", rows)
            check_propensity(b, ~np.isnan(y), rows, prompt_propensity)
            inclusion = Inclusion.from_prompt(np.asarray(pi), b)
        waves, wave_names = (None, None) if wave is None else wave_codes(df, wave, y, rows)
        if codes is not None and names is not None:  # names written several ways; unlabeled
            drawn = groups_never_drawn(y, codes, names, group) if propensity is None else None
            notes += [n for n in (group_spellings(names, group), drawn) if n]
        if prompts is not None and propensity is None:  # the design unknown
            said = labeled_by_prompt(y, prompts, codes)
            notes += [said] if said else []
        if propensity is None:  # the judges' scores, items x judges (a long table's: means)
            if isinstance(judges, pd.DataFrame):
                mat = long.pivot_table("score", "pos", "judge").reindex(range(len(y))).to_numpy()
            else:
                mat = np.column_stack(wide)
            notes += [n for n in [labeled_by_score(y, mat, codes)] if n]
        return cls(
            ids=ids,
            y=y,
            outcome=spec,
            judge_scores=long,
            judges=judge_names,
            groups=groups,
            text=texts,
            embedding=emb,
            propensity=pi,
            label_name=label,
            notes=tuple(notes),
            prompts=prompts,
            inclusion=inclusion,
            group_name=None if groups is None else group,
            prompt_name=None if prompts is None else prompt,
            waves=waves,
            wave_names=wave_names,
        )


# ---------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------


def _levels_note(note: str, spec: OutcomeSpec, scores: pd.DataFrame) -> str:
    """``note``, or where it is the note of levels inferred from the labels and the judges
    (``scores``: the long table of their scores) score on a wider whole-number scale, one
    naming that scale's ``--levels`` (it offered the levels seen, which declare nothing
    more)."""
    from bacon_bayes.scale import wider_levels

    if spec.levels is None or not note.startswith(_INFERRED.format(_listed(spec.levels))):
        return note
    by_judge = [g.to_numpy(dtype=float) for _, g in scores.groupby("judge")["score"]]
    wider = wider_levels(spec.levels, by_judge)
    if wider is None:
        return note
    seen, listed = _listed(spec.levels), _listed(wider)
    python = ", ".join(listed.split(","))
    return (
        f"{_INFERRED.format(seen)} (only {len(spec.levels)} of the {len(wider)} levels of the "
        f"judges' {wider[0]:g}-{wider[-1]:g} scale have a label): estimates, intervals and "
        f"item scores are held within {min(spec.levels):g} to {max(spec.levels):g}; if the "
        f"label is on the judges' scale, --levels {listed} (levels=[{python}] in Python) "
        "declares it."
    )


def _listed(levels: Sequence[float] | np.ndarray) -> str:
    return ",".join(f"{v:g}" for v in levels)


def _outcome_spec(
    kind: str, levels: Sequence[float] | None, y: np.ndarray, notes: list[str]
) -> OutcomeSpec:
    if kind in ("ordinal", "categorical"):
        if levels is None:
            seen = np.unique(y[~np.isnan(y)])
            if seen.size < 2:
                raise ValidationError(
                    f"cannot infer the levels of a {kind} label from {seen.size} distinct "
                    "labeled value(s); declare them: --levels 1,2,3,4,5 (levels=[1, 2, 3, "
                    "4, 5] in Python), for example."
                )
            listed = _listed(seen)
            notes.append(
                f"{_INFERRED.format(listed)}; --levels {listed} (levels=[...] in Python) "
                "declares them, e.g. when some level has no label yet."
            )
            return OutcomeSpec(kind, tuple(float(v) for v in seen))  # type: ignore[arg-type]
        lv = number_list(levels, "levels", "[1, 2, 3, 4, 5]")
        if lv.size < 2 or np.unique(lv).size != lv.size:
            raise ValidationError(f"levels {list(levels)} must hold at least two distinct values.")
        return OutcomeSpec(kind, tuple(float(v) for v in np.sort(lv)))  # type: ignore[arg-type]
    if levels is not None:
        raise ValidationError(
            f"levels are only meaningful for ordinal or categorical labels, not {kind!r}; "
            "drop levels or change the outcome type."
        )
    return OutcomeSpec(kind)  # type: ignore[arg-type]
