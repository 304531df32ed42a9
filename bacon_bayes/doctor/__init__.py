"""``bacon doctor``: profile a table of judge scores and say what can be computed.

:func:`profile` finds the columns' roles (:mod:`.roles`), counts labels per group,
measures each judge's coverage and agreement (:mod:`.agreement`), checks what each judge
seems biased by (:mod:`.bias`) and builds the ``bacon estimate`` command to run;
:meth:`Profile.to_text` prints it all.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from bacon_bayes.crossfit import make_folds, most_folds
from bacon_bayes.doctor import agreement, bias
from bacon_bayes.doctor.cells import doctor_again, empty_cells
from bacon_bayes.doctor.computable import FOLDS, can
from bacon_bayes.doctor.exports import JUDGE_OWN
from bacon_bayes.doctor.judge_notes import (
    aspects_note,
    judge_args,
    many_judges,
)
from bacon_bayes.doctor.label import (
    full_labels,
    label_scale,
    said_missing,
)
from bacon_bayes.doctor.long import read_call
from bacon_bayes.doctor.pilot import (
    EMPTY,
    SAMPLED_FORMATS,
    empty_label,
    judges_scale,
    new_label,
    sample_command,
)
from bacon_bayes.doctor.relation import missingness_notes, near_duplicates
from bacon_bayes.doctor.roles import GENERIC_FORMATS, Roles, find_roles
from bacon_bayes.doctor.rows import check_ids, copied_rows, without_summary, without_units
from bacon_bayes.doctor.scores import ScoreFlag, absent_groups, judge_scales, score_flags
from bacon_bayes.doctor.text import glued, profile_text
from bacon_bayes.doctor.wide import wide_by_system
from bacon_bayes.errors import ValidationError
from bacon_bayes.group_gaps import whole_groups_dropped
from bacon_bayes.io import row_place
from bacon_bayes.letters import LETTER_SCORES
from bacon_bayes.order import natural_key
from bacon_bayes.readers import TableMeta
from bacon_bayes.scale import (
    Scale,
    is_binary,
    label_codes,
    naive_left_out,
    open_scale,
    scale_args,
)

__all__ = ["Profile", "profile"]


@dataclass
class Profile:
    """What ``bacon doctor`` found in a table; see :func:`profile`."""

    file: str
    meta: TableMeta
    n_rows: int
    roles: Roles
    alpha: float
    #: how a CSV that is not comma-separated UTF-8 was read (:func:`bacon_bayes.csv_format.read_as`)
    read_as: str = ""
    labels_per_group: pd.DataFrame | None = None
    coverage: dict[str, float] = field(default_factory=dict)
    with_label: pd.DataFrame | None = None
    between: pd.DataFrame | None = None
    judges_alpha: tuple[float, str, list[str]] | None = None
    length: list[bias.LengthBias] = field(default_factory=list)
    length_note: str = ""
    length_skipped: dict[str, str] = field(default_factory=dict)
    length_left_out: int = 0
    groups: dict[str, pd.DataFrame] = field(default_factory=dict)
    scale: Scale | None = None
    scales: dict[str, str] = field(default_factory=dict)
    flags: list[ScoreFlag] = field(default_factory=list)
    naive_note: str = ""
    binary: bool = False
    command: list[str] | None = None
    can: list[str] = field(default_factory=list)
    #: rows with a label (every row of the table, whether a judge scored it or not)
    n_labels: int = 0
    #: without a label column, what the one named like it with a value on most rows can
    #: compute (:func:`.label.full_labels`; ``""``: none such)
    full_labels: str = ""
    too_few: str = ""
    #: the folds the command lowers to when ``too_few`` (None: too few for any)
    folds: int | None = None
    #: rows without any judge score: (without a label, with a label), and where they are
    unscored: tuple[int, int] = (0, 0)
    unscored_where: str = ""
    #: the groups those rows are every row of, said (:func:`~bacon_bayes.group_gaps.
    #: whole_groups_dropped`; "" where none)
    unscored_groups: str = ""
    #: what happens with many judges for few labels ("" otherwise)
    judges_note: str = ""
    #: group or prompt -> where its column is empty (bacon estimate refuses it, so the
    #: command leaves it out)
    empty: dict[str, str] = field(default_factory=dict)
    #: what the bias checks negated (a reversed judge, an error-score label)
    bias_note: str = ""
    #: the hint to pass --better lower (an error-score label; "" otherwise)
    better_hint: str = ""
    #: "lower" where the name and the judges both say lower is better: the command
    #: passes --better lower (:func:`.bias.lower_is_better`); "" otherwise
    better: str = ""
    #: labels far outside the others' scale, and the fix (``""``: none; :func:`.label_scale`)
    far: str = ""
    #: why no command is printed: rows that are not one item each (:mod:`.rows`)
    blocked: list[str] = field(default_factory=list)
    #: the ``bacon sample`` command that draws the first items to label into the pool's
    #: own empty label column (:mod:`.pilot`; None: no such column, or labels already)
    sample: list[str] | None = None

    def to_text(self) -> str:
        """The profile as the text ``bacon doctor`` prints."""
        return profile_text(self)


def _columns(p: Profile, frame: pd.DataFrame) -> dict[str, list[str]] | None:
    """The options that name the columns of doctor's printed commands (``--item``,
    ``--judge``, ``--group``, ``--prompt``: what the reader fixes left out, as are judges
    with infinite scores and a group or prompt column with empty cells); None without a
    judge left."""
    r, meta = p.roles, p.meta
    judges = [j for j in r.judges if j not in {f.judge for f in p.flags if f.kind == "infinite"}]
    if not judges:
        return None
    out: dict[str, list[str]] = {}
    if r.item and (r.item != meta.item or meta.format in GENERIC_FORMATS):  # as for a CSV
        out["item"] = ["--item", r.item]
    if judges != meta.judges:
        out["judge"] = judge_args(judges, [str(c) for c in frame.columns])
    if r.group and r.group != meta.group and "group" not in p.empty:
        out["group"] = ["--group", r.group]
    if r.prompt and r.prompt != meta.prompt and "prompt" not in p.empty:
        out["prompt"] = ["--prompt", r.prompt]
    return out


def _sample(p: Profile, frame: pd.DataFrame, labels: str | None) -> list[str] | None:
    """``bacon sample`` for the pool's own empty label column (:mod:`.pilot`), or None:
    labels in it or joined from a file, no id (a study records items by id), rows that
    are not one item each, or a format ``bacon sample`` does not read."""
    r = p.roles
    if labels or r.long or p.blocked or r.item is None or p.n_labels or r.label_cells:
        return None
    if p.full_labels or p.meta.format not in SAMPLED_FORMATS or not r.judges:
        return None
    label = empty_label(r, frame)
    if label is None and r.label is None and "label" not in r.reasons:
        if EMPTY not in r.left_out.values():  # no label column at all: the study adds one
            label = new_label([str(c) for c in frame.columns])
    columns = _columns(p, frame)
    if label is None or columns is None:
        return None
    columns = {"item": ["--item", r.item], **columns}  # bacon sample needs it
    if r.label is None and label in frame.columns:
        r.left_out[label] = f"{EMPTY}: the label column to fill, it seems (bacon sample below)"
    scale = judges_scale(r.judges, p.scales)
    kept = p.n_rows - sum(p.unscored)
    return glued(sample_command(p.file, frame, label, r, columns, scale, kept, any(p.unscored)))


def _command(p: Profile, frame: pd.DataFrame, labels: str | None) -> list[str] | None:
    r = p.roles
    columns = _columns(p, frame)
    if r.label is None or columns is None:
        return None
    cmd = ["bacon", "estimate", p.file]
    if labels:
        cmd += ["--labels", labels]
    cmd += ["--label", r.label]
    for words in columns.values():
        cmd += words
    if p.scale is not None and p.scale.evident and not p.binary:
        cmd += scale_args(p.scale)
    cmd += ["--wave", r.wave] if r.wave else []
    cmd += ["--better", p.better] if p.better else []
    cmd += ["--folds", str(p.folds)] if p.folds else []  # a small pilot: the most it carries
    if any(p.unscored):
        cmd += ["--drop-unscored"]
    return glued(cmd)


def profile(
    frame: pd.DataFrame,
    meta: TableMeta,
    file: str,
    *,
    label: str | None = None,
    item: str | None = None,
    labels: str | None = None,
    alpha: float = 0.05,
    judges: list[str] | None = None,
    group: str | None = None,
    prompt: str | None = None,
    item_joined: bool = False,
) -> Profile:
    """Profile a table of judge scores.

    Parameters
    ----------
    frame : DataFrame
        The table (with the labels of ``labels`` already joined).
    meta : TableMeta
        What the reader found (:func:`bacon_bayes.readers.read_any`).
    file : str
        The file name as given (it goes into the printed command).
    label, item : str, optional
        The label and id columns when named by the user.
    labels : str, optional
        The labels file joined (it goes into the printed command).
    alpha : float
        1 - confidence level of the bias intervals.
    judges, group, prompt : optional
        The judge columns, group and prompt column when named by the user (taken as
        given, and passed on in the printed command).
    item_joined : bool
        Whether ``item`` is the id the labels file was joined on, found, not named.

    Returns
    -------
    Profile
    """
    frame, units = without_units(frame, meta.format, file)  # 'Punkte' under the header
    frame, summary = without_summary(frame, meta.format, None if labels else file)
    roles = find_roles(
        frame,
        meta,
        label=label,
        item=item,
        labels_joined=labels is not None,
        judges=judges,
        group=group,
        prompt=prompt,
        item_joined=item_joined,
        read=read_call(file, meta.format),
        file=file,
    )
    # the doctor a printed line ends with joins the same labels
    joined = "" if labels is None else f" --labels {shlex.quote(str(labels))}"
    joined += f" --label {shlex.quote(str(roles.label))}" if labels and roles.label else ""
    if labels is not None and roles.label is not None:
        for c, why in roles.left_out.items():
            ours = why.startswith(JUDGE_OWN) and ", then bacon doctor " in why  # Phoenix's
            roles.left_out[c] = why + joined if why.startswith(LETTER_SCORES) or ours else why
    p = Profile(file=file, meta=meta, n_rows=len(frame), roles=roles, alpha=alpha)
    read = None if labels else read_call(file, meta.format)  # a joined table: not the file
    ids = check_ids(frame, roles, meta.format, read, file)
    p.blocked = [b for b in (units, summary, ids) if b]
    wide = (
        ""
        if roles.group or roles.long or labels
        else wide_by_system(frame, read, file, unlabeled=roles.label is None)
    )
    p.blocked += [wide] * bool(wide)  # M10_gpt4, M10_human, ...: the other notes wait
    p.read_as = str(frame.attrs.get("read as", ""))
    y = frame[roles.label].to_numpy(dtype=float) if roles.label else None
    p.n_labels = 0 if y is None else int(np.isfinite(y).sum())
    p.full_labels = "" if roles.label else full_labels(frame, roles.item, file)
    p.coverage = {j: float(frame[j].notna().mean()) for j in roles.judges}
    scores = frame[roles.judges]
    p.scales = judge_scales(scores)
    groups = frame[roles.group].to_numpy() if roles.group else None
    p.flags = score_flags(scores, groups, y, None if read is None else (read, file))
    if y is not None:
        p.scale, p.far = label_scale(y, str(roles.label), lambda k: row_place(frame, k), p.scales)
        p.binary = is_binary(y)
        if not p.far:  # an error score: bounded at 0 only
            p.scale = open_scale(y, p.scale, str(roles.label))
        if roles.judges:
            ends = None if p.scale is None else (p.scale.low, p.scale.high)
            one_end = ends is not None and not np.isfinite(ends).all()  # an error scale
            p.naive_note = naive_left_out(y, scores, ends if one_end or p.far else None)
    dropped = np.zeros(len(frame), dtype=bool)  # rows the command leaves out
    if roles.judges and not roles.long:  # a long table's row unscored: a cell of its pivot
        empty = scores.isna().all(axis=1).to_numpy()
        has = np.isfinite(y) if y is not None else np.zeros(len(frame), dtype=bool)
        p.unscored = (int((empty & ~has).sum()), int((empty & has).sum()))
        dropped = empty  # --drop-unscored: labeled ones too (said in what can be computed)
        if empty.any() and roles.group:
            top = frame.loc[empty, roles.group].value_counts().head(3)
            p.unscored_where = ", ".join(f"{k}: {v}" for k, v in top.items())
            p.unscored_groups = whole_groups_dropped(frame, empty, roles.group)
    for role in ("group", "prompt"):  # on the rows the command keeps
        if column := getattr(roles, role):
            cells = frame[[column]].where(~dropped[:, None], "-")  # the rows left out: filled
            if where := empty_cells(cells, column, meta.format):
                p.empty[role] = where
    if roles.group and y is not None:  # the items the command estimates from
        kept = frame.assign(_labeled=np.isfinite(y))[~dropped]
        key = roles.long_key if roles.long else roles.item  # a row per judge, or per rater
        if key and kept.duplicated(key).any():  # each item once (a key of columns too)
            by = kept.groupby(key, sort=False, observed=True, dropna=False)
            labeled = by["_labeled"].transform("any")  # the key may hold the group
            first = kept.drop_duplicates(key)
            kept = first.assign(_labeled=labeled.loc[first.index])
        counts = kept.groupby(roles.group, observed=True)["_labeled"].agg(
            items="size", labels="sum"
        )
        counts = counts.reset_index()
        order = sorted(range(len(counts)), key=lambda k: natural_key(counts[roles.group][k]))
        p.labels_per_group = counts.iloc[order].reset_index(drop=True)  # M8 before M10
    if y is not None and roles.judges:
        p.with_label = agreement.with_label(frame, roles.judges, roles.label or "")
    if len(roles.judges) > 1:
        ref = y if y is not None else agreement.stated_reference(frame, roles.judges, p.scales)
        p.between, p.judges_alpha = agreement.among_judges(frame, roles.judges, ref)
    if y is not None and roles.judges:
        text = frame[roles.response].where(np.isfinite(y)) if roles.response else None
        length = None if text is None else bias.words(text)  # the labeled items' lengths
        error = p.scale is not None and not np.isfinite([p.scale.low, p.scale.high]).all()
        how, p.length, p.groups, p.length_skipped = bias.oriented_biases(
            y, frame[roles.judges], length, groups, roles.label or "", error, alpha
        )
        for j in how.reversed:
            roles.reasons[f"judge:{j}"] += "; falls as the label rises: a reversed scale?"
        p.bias_note = how.note
        p.better_hint = bias.better_lower_hint(roles.label or "", how.label_negated, y)
        if roles.group and bias.lower_is_better(roles.label or "", how.label_negated, y):
            p.better, p.better_hint = "lower", bias.better_lower_passed(roles.label or "")
        p.length_left_out = bias.without_text(y, length)
        if length is None:
            p.length_note = "no response text column: response length not checked"
        elif not p.length:
            p.length_note = f"too few labeled items (< {bias.MIN_LENGTH_N}) with a response"
    kept, y_kept = frame[~dropped], None if y is None else y[~dropped]  # what the command uses
    p.too_few, p.folds = _too_few(kept, None if "prompt" in p.empty else roles.prompt, y_kept)
    blocked = (p.too_few and p.folds is None) or roles.long or p.blocked
    p.sample = _sample(p, frame, labels)
    p.command = None if blocked or p.sample else _command(p, frame, labels)  # no labels yet
    columns = [str(c) for c in frame.columns]
    p.judges_note = "; ".join(
        filter(None, (many_judges(roles, y, columns), aspects_note(roles, columns, p.sample)))
    )
    # a line that writes the file without some groups: not with labels joined from another
    read = read_call(file, meta.format) if labels is None else None
    p.can = can(p, y) + _empty_notes(p) + _design_notes(kept, roles, y_kept, p.empty, read, file)
    p.can[1:1] = [roles.raters] * bool(roles.raters)  # beside what the label's mean is
    p.can += [p.better_hint] if p.better_hint and roles.group else []  # "best" of groups
    if roles.judges and y_kept is not None:  # near copies, missing on low labels (G 6, 8)
        judged = kept[roles.judges].reset_index(drop=True)
        whole = read_call(file, meta.format)  # the judges are FILE's, labels joined or not
        twins = (
            None
            if whole is None or roles.long
            else partial(doctor_again, whole, file, after=joined)
        )
        p.can += near_duplicates(judged, y_kept, twins, frame.attrs.get("verdicts", {}))
        p.can += missingness_notes(
            judged, y_kept, kept[roles.group].to_numpy() if roles.group else None
        )
    if roles.judges and roles.group:  # judges absent on whole groups (tester G finding 11)
        p.can += absent_groups(kept[roles.judges], kept[roles.group].to_numpy())
    codes = label_codes(y, str(roles.label), lambda k: row_place(frame, k)) if y is not None else ""
    keys = [c for c in (roles.prompt, roles.group) if c] if roles.prompt and roles.group else []
    copied = (
        copied_rows(frame, roles.label, file, keys=keys)
        if roles.item is None and not roles.long
        else ""
    )
    said = said_missing(file, roles.label, meta.format) if labels is None else ""  # 'N/A'
    p.can[:0] = [n for n in (codes, p.far, copied, said) if n]  # 0 for 'not rated'
    if wide:  # its columns read as one system's label and the others' judges: nothing else
        p.can = [n for n in (units, codes, copied, said) if n] + [f"nothing yet: {wide}"]
    return p


def _empty_notes(p: Profile) -> list[str]:
    """Where the group or prompt column is empty, and the fix: bacon estimate refuses
    such a column, so the command leaves it out."""
    out = []
    for role, where in p.empty.items():
        column = getattr(p.roles, role)
        fix = "a group (e.g. 'unknown')" if role == "group" else "the id of the prompt it answers"
        out.append(
            f"{role} column {column!r} is {where}: bacon estimate refuses a {role} column "
            f"with empty cells, so the command leaves out --{role} {column}; give every item "
            f"{fix}, and run doctor again for the command with it"
        )
    return out


def _design_notes(
    frame: pd.DataFrame,
    roles: Roles,
    y: np.ndarray | None,
    empty: dict[str, str],
    read: str | None = None,
    file: str | None = None,
) -> list[str]:
    """What the pool's own notes will say of how the labels were drawn (whole groups
    never labeled, a prompt's items labeled together), said before the estimate; not of
    a group or prompt column with ``empty`` cells (the command leaves it out). With the
    file's pandas call ``read`` and its ``file``, the groups never labeled are left out by
    a line that runs (:func:`~bacon_bayes.doctor.cells.without_groups_line`)."""
    from bacon_bayes.doctor.cells import without_groups_line
    from bacon_bayes.inclusion import groups_never_drawn, labeled_by_prompt, labeled_by_score

    leave_out = (
        None
        if read is None or file is None
        else partial(without_groups_line, read, file, label=roles.label)
    )

    if y is None or not np.isfinite(y).any():
        return []
    codes = names = None
    if roles.group and "group" not in empty:
        codes, names = pd.factorize(frame[roles.group].astype(str))
    out = []
    if codes is not None and names is not None:
        out.append(groups_never_drawn(y, codes, np.asarray(names), roles.group, leave_out))
    if roles.prompt and "prompt" not in empty:
        out.append(labeled_by_prompt(y, frame[roles.prompt].astype(str).to_numpy(), codes))
    if roles.judges:
        scores = frame[roles.judges].apply(pd.to_numeric, errors="coerce").to_numpy(float)
        out.append(labeled_by_score(y, scores, codes))
    return [n for n in out if n]


def _too_few(
    frame: pd.DataFrame, prompt: str | None, y: np.ndarray | None
) -> tuple[str, int | None]:
    """Why ``bacon estimate`` would refuse the labels (too few for its folds, split by
    ``prompt`` if any), or ``""``; and the most folds they carry (None: too few for any)."""
    if y is None or not np.isfinite(y).any():
        return "", None
    clusters = frame[prompt].to_numpy() if prompt else None
    try:
        make_folds(np.isfinite(y), FOLDS, 0, clusters)
    except ValidationError as exc:
        return str(exc), most_folds(np.isfinite(y), FOLDS, 0, clusters)
    return "", None
