"""Doctor's notes on the judges: the ``--judge`` arguments that name them (one shell
pattern where they share a prefix or suffix), what ``bacon estimate`` does with few labels
per judge, and the aspects the judges' names say they score."""

from __future__ import annotations

import fnmatch
import re
import shlex

import numpy as np

from bacon_bayes.doctor.names import judge_aspects
from bacon_bayes.doctor.roles import Roles
from bacon_bayes.doctor.text import glued

#: labels per coefficient below which the frequentist default uses the judges' ridge
#: (:data:`bacon_bayes.surrogates.ALONE_BELOW`, which doctor may not import)
RIDGE_BELOW = 20.0
#: doctor says what happens with fewer labels than this per judge
FEW_PER_JUDGE = 3


def _common_prefix(names: list[str]) -> str:
    prefix = names[0]
    for j in names[1:]:
        while not j.startswith(prefix):
            prefix = prefix[:-1]
    return prefix


def judge_args(judges: list[str], columns: list[str]) -> list[str]:
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


def many_judges(roles: Roles, y: np.ndarray | None, columns: list[str]) -> str:
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
            args = shlex.join(glued(judge_args(named, columns)))
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


def aspects_note(roles: Roles, columns: list[str], sample: list[str] | None = None) -> str:
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
        keep.append(f"{a}: {shlex.join(glued(judge_args(named, columns)))}")
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
