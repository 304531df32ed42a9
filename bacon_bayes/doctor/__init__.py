"""``bacon doctor``: profile a table of judge scores and say what can be computed.

:func:`profile` finds the columns' roles (:mod:`.roles`), counts labels per group,
measures each judge's coverage and agreement (:mod:`.agreement`), checks what each judge
seems biased by (:mod:`.bias`) and builds the ``bacon estimate`` command to run;
:meth:`Profile.to_text` prints it all.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd

from bacon_bayes.crossfit import make_folds, most_folds
from bacon_bayes.doctor import agreement, bias
from bacon_bayes.doctor.cells import FAILED, doctor_again, empty_cells
from bacon_bayes.doctor.exports import JUDGE_OWN
from bacon_bayes.doctor.label import (
    DENSE,
    full_labels,
    label_scale,
    said_missing,
    simulate_command,
)
from bacon_bayes.doctor.long import read_call
from bacon_bayes.doctor.names import judge_aspects
from bacon_bayes.doctor.pilot import (
    EMPTY,
    SAMPLED_FORMATS,
    empty_label,
    judges_scale,
    new_label,
    sample_command,
    sample_note,
)
from bacon_bayes.doctor.relation import missingness_notes, near_duplicates
from bacon_bayes.doctor.roles import GENERIC_FORMATS, Roles, find_roles
from bacon_bayes.doctor.rows import check_ids, copied_rows, without_summary, without_units
from bacon_bayes.doctor.scores import ScoreFlag, absent_groups, judge_scales, score_flags
from bacon_bayes.doctor.text import glued, profile_text
from bacon_bayes.doctor.wide import wide_by_system
from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.shrink import MIN_SEPARATE_LABELS, choose_pooling
from bacon_bayes.io import row_place
from bacon_bayes.letters import LETTER_SCORES
from bacon_bayes.order import names_text, natural_key
from bacon_bayes.readers import TableMeta
from bacon_bayes.scale import (
    Scale,
    is_binary,
    label_codes,
    naive_left_out,
    open_scale,
    scale_args,
)
from bacon_bayes.words import PACKED

__all__ = ["Profile", "profile"]

#: fewest labels a group needs for its own interval in ``bacon estimate``
MIN_GROUP_LABELS = 5
#: ``bacon estimate``'s cross-fitting folds (its ``--folds`` default)
FOLDS = 5
#: labels per coefficient below which the frequentist default uses the judges' ridge
#: (:data:`bacon_bayes.surrogates.ALONE_BELOW`, which doctor may not import)
RIDGE_BELOW = 20.0
#: doctor says what happens with fewer labels than this per judge
FEW_PER_JUDGE = 3


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


def _common_prefix(names: list[str]) -> str:
    prefix = names[0]
    for j in names[1:]:
        while not j.startswith(prefix):
            prefix = prefix[:-1]
    return prefix


def _judge_args(judges: list[str], columns: list[str]) -> list[str]:
    """``--judge`` arguments: one shell pattern for judges that share a prefix or a
    suffix (and no other column has), else one per judge."""
    if len(judges) > 2:
        prefix = _common_prefix(judges)
        suffix = _common_prefix([j[::-1] for j in judges])[::-1]
        cut = max(prefix.rfind(c) for c in ":_-./|")
        start = min((k for k in map(suffix.find, ":_-./|") if k >= 0), default=-1)
        for pattern in (
            prefix[: cut + 1] + "*" if cut > 0 else "",
            "*" + suffix[start:] if start >= 0 and len(suffix) - start > 1 else "",
        ):
            if (
                pattern
                and not any(ch in pattern.strip("*") for ch in "*?[")
                and sorted(fnmatch.filter(columns, pattern)) == sorted(judges)
            ):
                return ["--judge", pattern]
    out: list[str] = []
    for j in judges:
        out += ["--judge", j]
    return out


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
        out["judge"] = _judge_args(judges, [str(c) for c in frame.columns])
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
        filter(None, (_many_judges(roles, y, columns), _aspects(roles, columns, p.sample)))
    )
    # a line that writes the file without some groups: not with labels joined from another
    read = read_call(file, meta.format) if labels is None else None
    p.can = _can(p, y) + _empty_notes(p) + _design_notes(kept, roles, y_kept, p.empty, read, file)
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


def _many_judges(roles: Roles, y: np.ndarray | None, columns: list[str]) -> str:
    """What ``bacon estimate`` does with fewer than :data:`FEW_PER_JUDGE` labels per
    judge, and the judges named like the label, if some are (a choice by name, not by
    the labels), else ``""``."""
    k, n = len(roles.judges), 0 if y is None else int(np.isfinite(y).sum())
    if k < 2 or n == 0 or n >= FEW_PER_JUDGE * k:
        return ""
    note = (
        f"{k} judges for {n} labels ({n / k:.1f} per judge): too few to weigh each judge by "
        f"the labels. With under {RIDGE_BELOW:g} labels per judge (per coefficient of its "
        "model), bacon estimate's frequentist default does not fit its model's weights for "
        "the means: it uses the judges' ridge, the label regressed on the judges' first "
        "principal component (what they agree on) with each judge's own deviation from it "
        "shrunk hard toward 0 (a fixed penalty), each labeled item predicted by the fit "
        "without it; so the judges count mostly through their consensus. The intervals stay "
        "valid whatever the judges; judges that only add noise widen them"
    )
    words = [w for w in _words(roles.label or "") if len(w) >= 4]
    for w in words:
        named = _named_for(w, roles.judges)
        if 0 < len(named) < k:
            args = shlex.join(glued(_judge_args(named, columns)))
            note += (
                f". {len(named)} of them are named for {w!r}, as the label is: {args} "
                "keeps only those (chosen by name before looking at the estimates, it costs "
                "no validity)"
            )
            break
    return note


def _words(name: str) -> list[str]:
    """The lower-case words of a column's name (split at what is no letter or digit)."""
    return re.split(r"[^a-z0-9]+", name.lower())


def _named_for(word: str, judges: list[str]) -> list[str]:
    """The judges one of whose name's words is ``word``."""
    return [j for j in judges if word in _words(j)]


def _aspects(roles: Roles, columns: list[str], sample: list[str] | None = None) -> str:
    """The aspects the judges score by their names (:func:`~.names.judge_aspects`) when
    the label's name says none of them, with the ``--judge`` arguments that keep each
    aspect's judges; else ``""``. With ``sample`` (the ``bacon sample`` command of a pool
    without labels) the label is the one that command adds, to be rated."""
    aspects = judge_aspects(roles.judges)
    label = sample[sample.index("--label") + 1] if sample else roles.label
    if not aspects or set(_words(label or "")) & set(aspects):
        return ""
    keep = []
    for a in aspects:
        named = _named_for(a, roles.judges)
        keep.append(f"{a}: {shlex.join(glued(_judge_args(named, columns)))}")
    which = (
        f"the labels in {label!r} will rate one of them, while the judges of the others "
        "mostly add noise (the intervals stay valid, wider). In the bacon sample command, keep the "
        "judges of the aspect the labellers will rate"
        if sample
        else f"the label {label!r} names none of them: a label rates one aspect, and the "
        "judges of the others mostly add noise (the intervals stay valid, wider). Keep the "
        "judges of the aspect the label rates"
    )
    return (
        f"the judges' names say they score {len(aspects)} aspects ({', '.join(aspects)}), and "
        f"{which} ({'; '.join(keep)}), chosen before looking at the estimates"
    )


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


def _can(p: Profile, y: np.ndarray | None) -> list[str]:
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
        return ["nothing yet: no judge column found; name one with --judge in bacon estimate"]
    n = 0 if y is None else int(np.isfinite(y).sum())
    if n == 0 and r.label_cells:
        then = " for the command" if r.label_cells.endswith("run again") else ""
        return [f"only the raw judge average: {r.label_cells}{then}"]
    if n == 0 and p.full_labels:
        return [p.full_labels]
    if n == 0 and p.sample:
        label = p.sample[p.sample.index("--label") + 1]
        scaled = any(w.startswith("--scale") for w in p.sample)
        new = label != r.label and label not in r.left_out  # a column the study adds
        return [sample_note(label, p.sample, scaled, new=new)] + [p.judges_note] * bool(
            p.judges_note
        )
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
    where = f" ({r.group} {p.unscored_where})" if p.unscored_where else ""
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
            "labeled: the command leaves them all out, their labels too (--drop-unscored), "
            "which is right when they are not part of what you report on (e.g. a reference "
            "system that reference-based metrics cannot score); if they are, score them "
            "(bacon judge) and run doctor again"
        )
    elif p.unscored[0]:
        out.append(
            f"{p.unscored[0]} row(s) have no judge score and no label{where}: nothing to "
            "estimate from, so the command leaves them out (--drop-unscored); if they belong "
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
    from bacon_bayes.order import names_text

    more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
    return names_text(rows[column].head(5)) + more
