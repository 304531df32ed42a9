"""What ``bacon doctor`` says can be computed from a profiled table (:func:`can`): the
estimates ``bacon estimate`` will give, and what blocks or limits them."""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from bacon_bayes.doctor.cells import FAILED
from bacon_bayes.doctor.exports import evaluated_only
from bacon_bayes.doctor.label import DENSE, simulate_command
from bacon_bayes.doctor.pilot import sample_note
from bacon_bayes.estimate.shrink import MIN_SEPARATE_LABELS, choose_pooling
from bacon_bayes.order import names_text
from bacon_bayes.words import PACKED

if TYPE_CHECKING:
    from bacon_bayes.doctor import Profile

#: fewest labels a group needs for its own interval in ``bacon estimate``
MIN_GROUP_LABELS = 5
#: ``bacon estimate``'s cross-fitting folds (its ``--folds`` default)
FOLDS = 5


def can(p: Profile, y: np.ndarray | None) -> list[str]:
    r = p.roles
    if r.long or p.blocked:
        return [f"nothing yet: {b}" for b in ([r.long] if r.long else p.blocked)]
    failed = [c for c, why in r.left_out.items() if why.startswith(FAILED)]
    held = (
        f"column{'s' * (len(failed) > 1)} {names_text(map(repr, failed))} "
        f"hold{'s' * (len(failed) == 1)} scores but for a few cells of other text (above): "
        "empty those cells" + (f": {r.failed_fix}" if r.failed_fix else " and run doctor again")
    )
    if not r.judges:
        # a score column left out for a few cells of other text: that fix first (a long
        # table's score column is told once it is read; --judge on it is refused as long)
        if failed:
            return [f"nothing yet: no judge column found; {held}"]
        if packed := [c for c, why in r.left_out.items() if why.startswith(PACKED)]:
            return [
                f"nothing yet: no judge column found; {names_text(map(repr, packed))}: "
                f"{PACKED} (above), which its fix writes as numbers"
            ]
        if part := evaluated_only(r.left_out):  # Phoenix's evaluations on some spans
            return [part]
        return ["nothing yet: no judge column found; name one with --judge in bacon estimate"]
    n = 0 if y is None else int(np.isfinite(y).sum())
    if n == 0 and r.label_cells:
        then = " for the command" if r.label_cells.endswith("run again") else ""
        return [f"only the raw judge average: {r.label_cells}{then}"]
    if n == 0 and p.full_labels:
        return [p.full_labels]
    where = f" ({r.group} {p.unscored_where})" if p.unscored_where else ""
    if n == 0 and p.sample:
        label = p.sample[p.sample.index("--label") + 1]
        scaled = any(w.startswith("--scale") for w in p.sample)
        new = label != r.label and label not in r.left_out  # a column the study adds
        dropped = (
            f"{sum(p.unscored)} row(s) have no judge score{where}: the command leaves them "
            f"out of the study (--drop-unscored){p.unscored_groups}"
        )
        return [sample_note(label, p.sample, scaled, new=new)] + [
            note for note in (dropped * any(p.unscored), p.judges_note) if note
        ]
    if n == 0:
        return [
            "only the raw judge average (no human labels): label a sample of items "
            "(bacon sample), then pass them with --labels FILE --label COLUMN"
        ]
    if p.too_few and p.folds is None:
        return [
            f"only the raw judge average: {n} label(s) are too few for bacon estimate "
            f"({p.too_few.rstrip('.')}); label more items (bacon sample), then run doctor "
            "again for the command"
        ]
    n -= p.unscored[1]
    baselines = (
        "labels-only and raw-judge estimates"
        if not p.naive_note
        else f"a labels-only estimate (no raw-judge average: {p.naive_note})"
    )
    kept = p.n_rows - sum(p.unscored)
    out = [
        f"the mean label over {'all ' if kept == p.n_rows else ''}{kept} items from {n} labels "
        f"and {len(r.judges)} judge(s): calibrated (AEE), {baselines}, with intervals"
    ]
    out += [f"the command leaves out judge scores: {held}"] * bool(failed)  # 'refused'
    if p.command and not p.unscored[1] and n >= DENSE * kept:  # mostly labeled
        words = simulate_command(p.command, n < p.n_rows, n)
        out.append(
            ("every item is labeled: the means of these items are exact (intervals of width "
             "0) and the judges add nothing to them, and --target population gives intervals "
             "for a population beyond these items; " if n == kept else
             f"{n} of {kept} items are labeled; ")
            + ("bacon simulate measures what the judges would save at a label budget (it "
               f"hides the labels and draws samples of them): {shlex.join(words)}" if words
               else f"bacon simulate needs more labeled rows than {n} (two labels per "
               "cross-fitting fold at a share of them under 1)")
        )  # fmt: skip
    if p.folds:
        why = re.split(r"[;:] label ", p.too_few)[0]
        out.append(
            f"{n} labels are too few for bacon estimate's default {FOLDS} cross-fitting folds "
            f"({why}): the command takes --folds {p.folds}, the most they carry; label more "
            "items (bacon sample) for the default"
        )
    if p.judges_note:
        out.append(p.judges_note)
    if p.unscored[1]:
        out.append(
            f"{sum(p.unscored)} row(s) have no judge score{where}, {p.unscored[1]} of them "
            "labeled: the command leaves them all out, their labels too (--drop-unscored)"
            f"{p.unscored_groups}; right when they are not part of what you report on (e.g. "
            "a reference system that reference-based metrics cannot score); if they are, score "
            "them "
            "(bacon judge) and run doctor again"
        )
    elif p.unscored[0]:
        out.append(
            f"{p.unscored[0]} row(s) have no judge score and no label{where}: nothing to "
            f"estimate from, so the command leaves them out (--drop-unscored){p.unscored_groups}"
            "; if they belong "
            "to the population you report on, score them with the judges instead"
        )
    if p.binary:
        out.append(
            f"{r.label} is 0/1: bacon estimate takes it as a binary (categorical) label, "
            "the estimates are shares of 1"
        )
    if p.labels_per_group is not None and "group" not in p.empty:
        counts = p.labels_per_group["labels"].to_numpy()
        none = p.labels_per_group[p.labels_per_group["labels"] == 0]
        if choose_pooling("auto", counts) == "shrink":
            out.append(
                f"a mean per {r.group} and their comparisons, shrunk toward the pool's "
                f"correction (some have fewer than {MIN_SEPARATE_LABELS} labels): an interval "
                "for every one with a label, valid on average over them and about 90% each (less "
                "for a group of few, skewed labels: README, Groups)"
                + (
                    f"; none for {len(none)} without labels ({_names(none, r.group)}): "
                    "label a few of those"
                    if len(none)
                    else ""
                )
            )
        elif (counts >= MIN_GROUP_LABELS).all():
            out.append(f"a mean per {r.group} and their comparisons (each has >= 5 labels)")
        else:
            few = p.labels_per_group[p.labels_per_group["labels"] < MIN_GROUP_LABELS]
            some = few[few["labels"] > 0]
            parts = [f"{len(none)} without labels ({_names(none, r.group)})"] if len(none) else []
            parts += (
                [f"{len(some)} with fewer than {MIN_GROUP_LABELS} ({_names(some, r.group)})"]
                if len(some)
                else []
            )
            out.append(
                f"means per {r.group}, except {' and '.join(parts)}: label those for their "
                "intervals"
            )
    if r.prompt and "prompt" not in p.empty:
        out.append(f"folds split by {r.prompt} (items answering one prompt stay together)")
    return out


def _names(rows: pd.DataFrame, column: str | None) -> str:
    """The first five names (quoted where a list would hide them: :func:`names_text`), and
    how many more (doctor counted them all)."""
    more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
    return names_text(rows[column].head(5)) + more
