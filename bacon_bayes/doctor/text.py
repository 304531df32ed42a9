"""The text ``bacon doctor`` prints of a :class:`~bacon_bayes.doctor.Profile`."""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from bacon_bayes.doctor import bias
from bacon_bayes.doctor.names import REFERENCE_NAME
from bacon_bayes.inclusion import NOT_DRAWN
from bacon_bayes.order import cell_name, names_text, natural_sorted

#: the options of doctor's printed commands that take a value
VALUED = frozenset({"--labels", "--label", "--item", "--judge", "--group", "--prompt", "--wave"})


def glued(words: list[str]) -> list[str]:
    """A printed command's ``words`` with each value that starts with ``-`` joined to its
    option (``--judge=-llama70b``): argparse reads ``--judge -llama70b`` as two options
    and refuses the command (as ``--scale=-inf:0``, :func:`bacon_bayes.scale.scale_args`)."""
    out: list[str] = []
    for k, word in enumerate(words):
        if k and words[k - 1] in VALUED and word.startswith("-") and out[-1] == words[k - 1]:
            out[-1] = f"{out[-1]}={word}"
        else:
            out.append(word)
    return out


if TYPE_CHECKING:
    from bacon_bayes.doctor import Profile


def _f(v: float, nd: int = 2) -> str:
    return "-" if v is None or not np.isfinite(v) else f"{v:.{nd}f}"


def profile_text(p: Profile) -> str:
    """The profile as the text ``bacon doctor`` prints (:meth:`Profile.to_text`)."""
    r = p.roles
    read = f"{p.meta.format}, {p.read_as}" if p.read_as else p.meta.format
    lines = [f"bacon doctor: {p.file} ({read}, {p.n_rows} rows)", "", "columns found:"]
    rows: list[tuple[str, str, str]] = []

    def row(role: str, value: str | None, reason: str) -> None:
        rows.append((role, value or "-", reason))

    if r.long:
        row("long", r.reasons["long"], "names the judge of each row: pivot the table (below)")
    row("id", r.item, r.reasons.get("id", "none: rows are items by position"))
    row("label", r.label, r.reasons.get("label", "none: no sparse numeric column"))
    if r.label:
        how = "none evident (continuous values)" if p.scale is None else p.scale.how
        row("scale", p.scale.text if p.scale else None, how)
    for j in r.judges:
        row("judge", j, r.reasons[f"judge:{j}"])
    if not r.judges:
        row("judge", None, "none: no dense numeric column related to the label")
    row("group", r.group, r.reasons.get("group", "none: no column of a few repeated strings"))
    row("prompt", r.prompt, r.reasons.get("prompt", "none: no strings shared across groups"))
    if r.wave:
        row("wave", r.wave, r.reasons["wave"])
    for t in r.text:
        what = " (the response)" if t == r.response else ""
        what = " (the reference, not the response)" if REFERENCE_NAME.search(t) else what
        row("text", t, r.reasons[f"text:{t}"] + what)
    for c, why in r.left_out.items():
        row("left out", c, why)
    lines += _aligned(rows)
    for note in p.meta.notes:
        lines.append(f"  note: {note}")
    if p.labels_per_group is not None:
        lines += ["", f"labels per {r.group}:"]
        shown = p.labels_per_group.copy()
        shown[r.group] = shown[r.group].map(cell_name)  # ' M8' apart from M8
        lines += ["  " + s for s in shown.to_string(index=False).splitlines()]
        if "written several ways" in r.reasons.get("group", ""):
            lines.append(
                f"  (names written several ways, each a group of its own: see {r.group} above)"
            )
        if any(p.unscored):
            what = "without a judge score" + ("" if p.unscored[1] else " or a label")
            lines.append(
                f"  (items: the rows the command keeps; {sum(p.unscored)} {what} left out, "
                "--drop-unscored)"
            )
    elif r.label:
        lines += ["", f"labels: {p.n_labels} of {p.n_rows} items"]
    if r.judges:
        head = "judges: coverage (share of items scored)"
        lines += ["", head + (" and agreement with the labels" if p.with_label is not None else "")]
        tab = pd.DataFrame(
            {
                "judge": r.judges,
                "scale": [p.scales.get(j, "-") for j in r.judges],
                "coverage": [f"{np.floor(p.coverage[j] * 100) / 100:.2f}" for j in r.judges],
            }
        )
        if p.with_label is not None:
            tab = tab.merge(p.with_label, on="judge")
        w = _width(r.judges)  # names flush left, as wide as the longest
        text = tab.drop(columns="judge").to_string(
            index=False, float_format=lambda v: f"{v:.2f}", na_rep="-"
        )
        names = ["judge", *tab["judge"]]
        lines += [f"  {n:<{w}} {s}" for n, s in zip(names, text.splitlines(), strict=True)]
        if p.with_label is not None:
            lines.append(
                "  (spearman: rank correlation; kappa_w: Cohen's kappa, quadratic weights, "
                "ordinal scores on the label's scale; alpha: Krippendorff's interval alpha, "
                "same scale only)"
            )
    if p.between is not None:
        lines += ["", "agreement between judges (Spearman):"]
        if len(r.judges) <= 6:
            text = p.between.to_string(float_format=lambda v: f"{v:.2f}", na_rep="-")
            lines += ["  " + s for s in text.splitlines()]
        else:
            m = p.between.to_numpy()
            iu = np.triu_indices_from(m, 1)
            vals = m[iu]
            order = np.argsort(np.nan_to_num(vals, nan=2.0))
            lo, hi = order[0], np.argsort(np.nan_to_num(vals, nan=-2.0))[-1]
            names = p.between.index
            lines.append(f"  median over {vals.size} pairs {_f(float(np.nanmedian(vals)))}")
            lines.append(f"  highest {_f(vals[hi])}: {names[iu[0][hi]]} ~ {names[iu[1][hi]]}")
            lines.append(f"  lowest  {_f(vals[lo])}: {names[iu[0][lo]]} ~ {names[iu[1][lo]]}")
        if p.judges_alpha is not None:
            value, how, on = p.judges_alpha
            which = f" ({', '.join(on)})" if len(on) < len(r.judges) else ""
            lines.append(
                f"  Krippendorff's alpha (interval) of the {len(on)} judges on one scale"
                f"{which}: {_f(value)} ({how})"
            )
    lines += _flags_text(p) + _bias_text(p)
    lines += ["", "what can be computed:"] + [f"  - {c}" for c in p.can]
    if p.command is not None:
        lines += ["", "run, once those labels are fixed:" if p.far else "run:"]
        lines += ["  " + shlex.join(p.command)]
        if any(NOT_DRAWN in c for c in p.can):
            lines += ["  (over every group: those without labels rest on the judges alone, above)"]
    if p.sample is not None:
        lines += ["", "run, to draw the first items to label:", "  " + shlex.join(p.sample)]
    return "\n".join(lines)


#: The widest column of names in doctor's columns-found table; a longer name has its
#: reason on the next line.
NAME_WIDTH = 48


def _width(names: Iterable[str]) -> int:
    """The width of a column of ``names`` in doctor's text tables: the longest name's (at
    least 8)."""
    return max([8, *(len(str(n)) for n in names)])


def _aligned(rows: list[tuple[str, str, str]]) -> list[str]:
    """The columns-found rows (role, column, reason) with the reasons in one column: as
    wide as the longest column name, a longer name's reason on the next line."""
    width = min(_width(value for _, value, _ in rows), NAME_WIDTH)
    out = []
    for role, value, reason in rows:
        if len(value) > width:
            out += [f"  {role:<9} {value}", f"  {'':<9} {'':<{width}} {reason}"]
        else:
            out.append(f"  {role:<9} {value:<{width}} {reason}")
    return out


def _flags_text(p: Profile) -> list[str]:
    if not p.roles.judges:
        return []
    # the group column's name quoted, not made a noun ("a Exam taker", "per systems")
    group = f"group ({p.roles.group!r})" if p.roles.group else "group"
    lines = [
        "",
        f"the judges' scores (failure codes outside a judge's scale, infinite scores; one "
        f"score on every item of a {group}; a judge's scale changing from group to group):",
    ]
    if not p.flags:
        return [*lines, f"  nothing found in the {len(p.roles.judges)} judges"]
    w = _width(f.judge for f in p.flags)
    for f in p.flags:
        lines.append(f"  {f.judge:<{w}} {f.kind:<8} {f.text}")
    return lines


def _bias_text(p: Profile) -> list[str]:
    r = p.roles
    if not p.length and not p.groups and not p.length_note:
        return []
    level = f"{1 - p.alpha:.0%}"
    lines = ["", "what the judges seem biased by (on the labeled items):"]
    lines += [f"  ({p.bias_note})"] if p.bias_note else []
    w = _width(r.judges)
    if p.length:
        per = bias.unit_words(p.length[0].per)
        lines.append(
            f"  response length ({r.response}, words): over-rating in label points per {per} "
            f"(judge ~ label + length), {level} CI (HC3):"
        )
        for b in p.length:
            flag = "  <- biased by length" if b.flagged else ""
            lines.append(
                f"    {b.judge:<{w}} {b.over:+.3f} [{b.low:+.3f}, {b.high:+.3f}] n={b.n}{flag}"
            )
        for j, why in p.length_skipped.items():
            lines.append(f"    {j:<{w}} not checked: {why}")
    elif p.length_note:
        lines.append(f"  response length: {p.length_note}")
    if p.length_left_out and (p.length or p.length_note):
        lines.append(f"    ({bias.left_out_note(p.length_left_out)})")
    tables = {j: t for j, t in p.groups.items() if not t.empty}
    if tables:
        k = max(len(t) for t in tables.values())
        left = natural_sorted({g for t in tables.values() for g in t.attrs.get("left_out", [])})
        lines.append(
            f"  {r.group}: over-rating in label points (judge ~ label + {r.group}, each level "
            f"against the average), simultaneous {level} intervals over {k} groups"
            + (
                f" (not checked, under 2 labeled items with a score: {names_text(left[:5])}"
                + (f" and {len(left) - 5} more" if len(left) > 5 else "")
                + ")"
                if left
                else ""
            )
            + "; those excluding 0:"
        )
    elif p.groups:
        lines.append(f"  {r.group}: over-rating per {r.group} (judge ~ label + {r.group}):")
    open_ = [j for j, t in tables.items() if len(t.attrs.get("unbounded", [])) == len(t)]
    if len(open_) > 1 and len(open_) == len(p.groups):  # one line, not one a judge
        lines.append(
            f"    not settled for any judge: no slope on the label is clearly above 0 at "
            f"these few labels per {r.group}, so every interval is unbounded (more labels "
            f"per {r.group} to check it)"
        )
        return lines
    for j, tab in p.groups.items():
        if tab.empty:
            lines.append(f"    {j:<{w}} not checked: {tab.attrs.get('why', 'no fit')}")
            continue
        flagged = tab[tab["flagged"]].sort_values("over", key=abs, ascending=False)
        shown = [
            f"{g} {o:+.2f} [{lo:+.2f}, {hi:+.2f}]"
            for g, o, lo, hi in flagged[["group", "over", "low", "high"]]
            .head(3)
            .itertuples(index=False)
        ]
        more = f" and {len(flagged) - 3} more" if len(flagged) > 3 else ""
        same = [f.group for f in p.flags if f.judge == j and f.kind == "constant"]
        note = f" (one score on every item of {', '.join(same)}: see above)" if same else ""
        body = ", ".join(shown) + more if shown else "none"
        if len(tab.attrs.get("unbounded", [])) == len(tab) and not shown:
            body = (
                f"not settled: its slope on the label is not clearly above 0 at these few "
                f"labels per {r.group}, so every interval is unbounded (more labels per "
                f"{r.group} to check it)"
            )
        else:
            note += _unsettled(tab)
        lines.append(f"    {j:<{w}} {body}{note}")
    checked = {b.judge for b in p.length} | set(tables)  # not those "not checked"
    if len(p.length) > 1 or len(tables) > 1:
        lines.append(
            f"  (each judge at level {level}, not adjusted for the {len(checked)} judges "
            "checked: expect a few flags by chance among many judges)"
        )
    return lines


def _listed(names: list[str], shown: int = 4) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _unsettled(tab: pd.DataFrame) -> str:
    """What a judge's group-bias line cannot say: the groups whose interval excludes 0
    but reaches past the labels' range (too weak to say, not flagged), and the groups
    whose interval is unbounded (its slope on the label not clearly above 0 at their
    few labels: no shift there is checked)."""
    wide, unbounded = tab.attrs.get("wide", []), tab.attrs.get("unbounded", [])
    out = ""
    if wide:
        out += (
            f"; too weak to say for {_listed(wide)} (an interval wider than the labels' "
            "whole range)"
        )
    if unbounded:
        out += f"; unbounded for {_listed(unbounded)} (too few labels there to check)"
    return out
