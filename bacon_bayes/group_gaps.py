"""Groups a pool loses whole, said by name: the systems ``--drop-unscored`` leaves out
entirely (WMT22's ``refA``, which the reference-based metrics cannot score, went with
"500 rows" said and the system never named), and the groups of a study none of whose
drawn items came back (``--allow-pending``: WMT22's four systems without MQM, read as
"missing at random" while their labels were missing by system)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["BY_GROUP", "named", "pending_by_group", "whole_groups_dropped"]

#: the words that mark :func:`pending_by_group`'s note (``bacon status`` prints it)
BY_GROUP = "not at random: none of the"


def named(names: Sequence[str], limit: int = 6) -> str:
    """``'a', 'b' and 'c'`` (the first ``limit``, then how many more)."""
    quoted = [repr(str(n)) for n in names[:limit]]
    if len(names) > limit:
        return f"{', '.join(quoted)} and {len(names) - limit} more"
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"


def whole_groups_dropped(frame: pd.DataFrame, dropped: np.ndarray, group: str | None) -> str:
    """The end of ``--drop-unscored``'s note naming the groups of ``frame``'s ``group``
    column whose every row is among the ``dropped`` ones (``""`` when none): a system no
    judge scored leaves the estimates whole, not a few rows of it."""
    if not group or group not in frame.columns or not np.any(dropped):
        return ""
    column = frame[group].astype(str).where(frame[group].notna())
    lost = column[np.asarray(dropped, bool)].value_counts()
    kept = set(column[~np.asarray(dropped, bool)].dropna())
    whole = [g for g in lost.index if g not in kept]
    if not whole:
        return ""
    rows = int(lost[whole].sum())
    some = "it" if len(whole) == 1 else "them"
    return (
        f"; among them every row of {group} {named(whole)} ({rows} rows): no judge scored "
        f"{some}, so the estimates and the group table have no {named(whole)} at all: no "
        f"mean for {some} and no comparison with {some} (score {some} with a judge to keep "
        f"{some})"
    )


def pending_by_group(
    groups: pd.Series | np.ndarray, drawn: np.ndarray, back: np.ndarray, group: str
) -> str | None:
    """The note of a read with items pending (``--allow-pending``) whose groups never sent
    a label back while the others did: those items are missing by group, not at random
    (said where labels missing at random, at the rate the others came back, would leave
    all of those groups' drawn items without one with a chance under 5%). ``drawn``: the
    items the waves drew; ``back``: those with a label. None otherwise."""
    groups = pd.Series(np.asarray(groups, dtype=object)).astype(str)
    drawn, back = np.asarray(drawn, bool), np.asarray(back, bool)
    pending = drawn & ~back
    if not pending.any() or not back.any():
        return None
    n_drawn = groups[drawn].value_counts()
    n_back = groups[back].value_counts()
    silent = [g for g in n_drawn.index if n_back.get(g, 0) == 0]
    if not silent:
        return None
    rate = back.sum() / drawn.sum()  # at random, a group misses all its d with (1-rate)^d
    if (1.0 - rate) ** float(n_drawn[silent].sum()) >= 0.05:
        return None  # a few items of small groups: chance can leave them all pending
    silent = sorted(silent)
    theirs = int(groups[pending].isin(silent).sum())
    total = int(pending.sum())
    share = (
        f"all {total} items pending are theirs"
        if theirs == total
        else f"{theirs} of the {total} items pending are theirs"
    )
    others = [g for g in n_drawn.index if g not in silent]
    o_back, o_drawn = int(n_back[others].sum()), int(n_drawn[others].sum())
    return (
        f"the labels not back are missing by {group}, {BY_GROUP} "
        f"{int(n_drawn[silent].sum())} items drawn from {group} {named(silent)} came back "
        f"({share}; the other {group} values have {o_back} of {o_drawn} back). "
        f"{named(silent)} {'has' if len(silent) == 1 else 'have'} no label, so "
        f"{'its mean is' if len(silent) == 1 else 'their means are'} the judges' estimate "
        f"plus the pool's correction, UNVALIDATED, and the pool mean takes "
        f"{'its' if len(silent) == 1 else 'their'} correction from the other {group} "
        f"values' labels: right only if the judges err on {'it' if len(silent) == 1 else 'them'} "
        "as on the others. Later waves still draw their items: a few labels of each "
        "check it"
    )
