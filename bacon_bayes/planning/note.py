"""The comparisons' line on the labels that would resolve the top group
(:func:`resolution_note`, printed by ``bacon estimate`` and ``bacon report``)."""

from __future__ import annotations

import math

import numpy as np

from bacon_bayes.calibrator import Calibrator
from bacon_bayes.errors import ValidationError
from bacon_bayes.order import names_text, natural_sorted, unique_codes
from bacon_bayes.planning.outlook import (
    planning_basis,
    planning_means,
    shrink_prior,
    weakest_lead,
)
from bacon_bayes.planning.plan import DesignPlan, Goal, plan
from bacon_bayes.planning.predict import PilotStatistics, pilot_statistics, predict
from bacon_bayes.pool import EvalPool

__all__ = [
    "NOTE_ALL_DESIGNS_ITEMS",
    "NOTE_DESIGNS",
    "goal_examples",
    "indistinguishable",
    "lone_lead",
    "narrowing",
    "resolution_note",
    "top_lead_untold",
    "top_untold",
    "unlabeled_text",
]

#: The designs :func:`resolution_note` compares on a pool past
#: :data:`NOTE_ALL_DESIGNS_ITEMS` items (see there).
NOTE_DESIGNS = ("uniform", "paired")
#: The most items on which :func:`resolution_note` compares every design, as ``bacon
#: plan --top`` does.
NOTE_ALL_DESIGNS_ITEMS = 100_000


def round_plan_note(group_column: str | None, command: str) -> str:
    """The comparisons' plan line after a round estimated with a saved calibrator (frozen
    or refit): ``bacon plan --top`` plans a fresh calibration of the pool, not the
    estimator just printed, and with ``--calibrator`` plan answers a half-width only, so
    no top-group plan is offered (tester B finding 4: the printed command planned a fresh
    3-judge fit on the round's 41 labels, and adding --calibrator was refused).
    ``command``: ``bacon plan FILE ... --calibrator PATH`` as this command read FILE."""
    what = group_column or "group"
    return (
        f"bacon plan: the labels that would resolve the top {what} are not predicted for a "
        "saved calibrator (`bacon plan --top` plans a fresh calibration of this pool, not "
        "the estimates above); for the fresh labels it needs for a half-width of a "
        f"{what}'s mean: {command} --half-width H --group-mean NAME"
    )


def unlabeled_text(names: list[str]) -> str:
    """The one sentence ``bacon estimate``'s plan line and ``bacon status``'s top group
    say of the groups without labels (they said it in two ways: "the 1 system without
    labels taken at the judges' estimate ..." and "no interval for D (no labels): label
    it first"): no interval, the mean UNVALIDATED and taken as it stands by the top
    group's answer, and labelling it first."""
    one = len(names) == 1
    return (
        f"{names_text(names)} {'has' if one else 'have'} no labels, so no interval: "
        f"{'its mean is' if one else 'their means are'} the judges' estimate plus the "
        f"pool's correction, UNVALIDATED, taken as {'it stands' if one else 'they stand'} "
        f"(label {'it' if one else 'them'} first)"
    )


def resolution_note(
    pool: EvalPool,
    alpha: float = 0.05,
    *,
    power: float = 0.8,
    group_column: str | None = None,
    calibrator: Calibrator | None = None,
    plan_command: str | None = None,
    pooling: str = "auto",
    anytime: str | None = None,
    better: str = "higher",
    max_labels: int | None = None,
) -> str | None:
    """One line for the comparisons: the labels that :func:`plan` says would resolve the
    top group from the rest with ``power``, under its recommended design (None when the
    pool has fewer than two groups, no labels, or every item labeled: nothing is left to
    label, or when the search fails for a reason the user cannot act on). ``calibrator``:
    one already fitted on ``pool`` (its residuals are the pilot's; default: a frequentist
    one is fitted). ``plan_command``: the ``bacon plan ... --top`` command that prints
    the table of every design, as it runs (a ``run:`` line after the sentence);
    ``pooling``: the group estimator's, as :func:`plan` takes it.
    ``anytime``: the comparisons above the line are anytime intervals; the plan's count is
    one look's (``--fixed``), which the line says, naming this command (``bacon status
    STUDY``: empty for none) for the anytime intervals' own projection, and that it is
    another kind of count (the estimates held where they are, not the power), which may
    be fewer or more. ``better``: which way a mean is better (``"lower"``: the top group
    is the lowest mean, an error score), as ``bacon plan --top --better`` takes it.
    ``max_labels``: the labelling budget a study recorded (the "more labels" of a tied
    lead stop at what is left of it, said; labels past it that would resolve the top are
    not recommended: the line says the labels left do not, :func:`_over_budget`).

    A plan takes the pilot's gaps between the groups as the truth. When the top group's
    lead over some group is under one standard error (:func:`indistinguishable`), that
    gap is noise: the labels it would ask for mean nothing (on 10 equal systems, hundreds
    of thousands), so the line says the lead is indistinguishable from zero and what
    doubling the labels would do to the intervals instead, and that ``bacon plan --top``
    (its command, when given) takes the lead as the truth, with that caution.

    The designs compared are those of ``bacon plan ... --top``, so that the line names its
    recommendation, up to :data:`NOTE_ALL_DESIGNS_ITEMS` items (TriviaQA: it said paired,
    884 labels, where the plan recommends adaptive, 902, and paired is within its error).
    On a larger pool they are :data:`NOTE_DESIGNS` (paired where the pool has prompts),
    and the line says so: it must cost little beside the command (issue 40: at most 10%),
    and the adaptive rows sort the pool's items (0.3-0.4 s of a 1.5 s command on a million
    items, 2026-11-30), while stratified (proportional) needs about what uniform does (it
    removes only the groups' random sizes: 205,829 labels against 205,846 on 10 systems of
    a 1M pool) for as many evaluations of the simulated power."""
    if pool.groups is None or pool.n_labeled == 0 or pool.n_labeled >= pool.n_items:
        return None
    what = group_column or "group"
    run = f"\n  run: {plan_command}" if plan_command else ""
    if unique_codes(pool.groups)[0].size < 2:
        return None
    try:
        st = pilot_statistics(pool, calibrator)
    except ValidationError as exc:  # e.g. too few labels to fit the pilot's calibrator
        return (
            f"bacon plan: the labels that would resolve the top {what} cannot be predicted "
            f"from this pilot yet ({str(exc).rstrip('.')})."
        )
    unlabeled = [str(st.names[k]) for k in np.flatnonzero(np.asarray(st.labels) == 0)]
    bare = f"; {unlabeled_text(unlabeled)}" if unlabeled else ""  # as bacon status says it
    untold = top_untold(st, pooling, better, "these labels" if anytime else "this pilot")
    if untold is not None:
        basis = planning_basis(st, shrink_prior(st), pooling)[1]
        which = "" if "bacon estimate" in basis else _other_surrogate(calibrator)
        if anytime:  # a study's labels, gathered in waves: not a pilot
            basis = basis.replace("the pilot's", "the study's")
        whose = "the study's" if anytime else "the pilot's"
        untold = (untold[0], untold[1] + bare)
        return _tied_note(st, untold, what, which, basis, anytime, max_labels) + (
            f" `bacon plan --top` takes {whose} lead as the truth and gives, with this "
            f"caution, the labels each design would then need:{run}"
            if run
            else ""
        )
    few = pool.n_items > NOTE_ALL_DESIGNS_ITEMS  # uniform and paired: `bacon plan` has all
    designs = (NOTE_DESIGNS if pool.prompts is not None else NOTE_DESIGNS[:1]) if few else None
    only = f"; only {' and '.join(designs)} compared on a pool this large" if designs else ""
    try:  # one budget for the (unprinted) table: the labels in hand, evaluated anyway
        top = Goal("top", power=power, better=better)
        result = plan(pool, top, alpha=alpha, group_column=group_column, pilot=st,
                      designs=designs, budgets=[float(st.n_labeled)], ranges=False,
                      pooling=pooling)  # fmt: skip
    except ValidationError:  # a design the search cannot draw: nothing the user can act on
        return None
    best = next((d for d in result.designs if d.design == result.recommended), None)
    if best is None or best.new_labels is None:
        return (
            f"bacon plan: no design resolves the top {what} from the rest "
            f"with {power:.0%} power within this pool{only}{bare}.{run}"
        )
    table = "; the table of every design:" + (run or " `bacon plan` with --top")
    short = _over_budget(best, st.n_labeled, max_labels)
    if short is not None:
        look = " in one look's interval (bacon estimate --fixed)" if anytime is not None else ""
        return (
            f"bacon plan: {short} resolve the top {what} from the rest with "
            f"{power:.0%} power{look}: the {best.design} design{only} needs about "
            f"{best.new_labels} more, and bacon sample refuses a wave past the budget"
            f"{bare}{table}"
        )
    if anytime is not None:  # the plan's count is one look's interval, not those above
        # status's count answers another question (a point projection, not this power):
        # it may be fewer or more (T4 finding 10: "need more" here, fewer there)
        status = (
            f". {anytime} gives another count for those: the labels that settle it if the "
            f"current estimates hold (even odds at best, not {power:.0%} power), which may "
            "be fewer or more than this one"
            if anytime
            else ""
        )
        count = (
            "the labels in hand would"
            if best.new_labels == 0
            else f"about {best.new_labels} more labels ({best.labels_needed} in all, "
            f"{best.design} design{only}) would"
        )
        return (
            f"bacon plan: {count} resolve the top {what} from the rest with {power:.0%} "
            "power in one look's interval (bacon estimate --fixed), not in the anytime "
            f"intervals above, which need more labels for that power{bare}{status}{table}"
        )
    if best.new_labels == 0:  # the plan's power at the labels in hand, this draw short
        return (
            f"bacon plan: were the pilot's gaps the truth, the labels in hand "
            f"({best.labels_needed} in all, {best.design} design{only}) would resolve the "
            f"top {what} from the rest with {power:.0%} power{bare}; a top left open "
            f"with them says the gaps are smaller than they look{table}"
        )
    return (
        f"bacon plan: about {best.new_labels} more labels ({best.labels_needed} in all, "
        f"{best.design} design{only}) would resolve the top {what} from the "
        f"rest with {power:.0%} power{bare}{table}"
    )


def _leads(st: PilotStatistics, top: int, other: int, gap: float, better: str) -> str:
    """``"A leads B by 0.12"`` (with ``(lower is better)`` on an error score)."""
    lower = " (lower is better)" if better == "lower" else ""
    return f"{st.names[top]} leads {st.names[other]} by {gap:.3g}{lower}"


def top_lead_untold(cal: Calibrator, better: str = "higher", pooling: str = "auto") -> str:
    """The words of :func:`top_untold` on the pilot statistics of ``cal`` (the one
    decision ``bacon estimate``'s plan line takes) where the labels needed to resolve the
    top group cannot be told, else ``""``: ``bacon status`` then gives no count for the
    top group where estimate says it cannot be told (H5, WMT22: status said "about 3339
    more labels" with a caution); ``pooling``: the group estimator's, as the command's."""
    try:
        st = pilot_statistics(cal.pool_, cal)
    except ValidationError:  # too few labels for the pilot: estimate's line says so
        return ""
    untold = top_untold(st, pooling, better, "these labels")
    return "" if untold is None else untold[1]


def top_untold(
    st: PilotStatistics, pooling: str = "auto", better: str = "higher", source: str = ""
) -> tuple[str, str] | None:
    """Whether the labels needed to resolve the top group cannot be told from ``source``
    (``"these labels"``): its lead over some group is under one standard error
    (:func:`indistinguishable`), or the top group or a group it leads has one label, no
    standard error of its own (:func:`lone_lead`: the lead is then the shrinkage's guess
    of that group's mean, not its labels'; ``bacon status`` said so on the top group
    while ``bacon estimate``'s plan line counted labels from it). Returns what the lead
    is (``"is indistinguishable from zero"``) and the words both commands print, or None
    where a count can be given."""
    tied = indistinguishable(st, pooling, better)
    if tied is not None:
        top, other, gap, se = tied
        return "is indistinguishable from zero", (
            f"{_leads(st, top, other, gap, better)}, a lead under one standard error "
            f"({se:.3g}), so the labels needed to resolve it cannot be told from {source} "
            "(if the two are equal, none would)"
        )
    lone = lone_lead(st, pooling, better)
    if lone is None:
        return None
    top, other, alone, gap = lone
    return "rests on a group of one label", (
        f"{_leads(st, top, other, gap, better)}, and {st.names[alone]} has one "
        f"label, no standard error of its own, so the labels needed to resolve it cannot be "
        f"told from {source} (label {st.names[alone]} first)"
    )


#: a lead over a group of one label (or of a top of one label) counts as resting on it
#: while under this many standard errors of the pilot: beyond, the pair is resolved
#: whatever that group's own variance (its interval excludes 0 at about 95%)
LONE_LEAD_SE = 2.0


def lone_lead(
    st: PilotStatistics, pooling: str = "auto", better: str = "higher"
) -> tuple[int, int, int, float] | None:
    """The top group on the plan's means (as :func:`~bacon_bayes.planning.outlook.
    weakest_lead` takes it) where its lead over a group of exactly one label (over any
    group, where the top has one) is under :data:`LONE_LEAD_SE` standard errors of the
    pilot (uniform design): the top, the group it leads by the fewest standard errors
    among those, the group of one label, and the lead; None otherwise."""
    labels = np.asarray(st.labels)
    if len(st.names) < 2 or st.n_labeled == 0 or not (labels == 1).any():
        return None
    means = planning_means(st, shrink_prior(st), pooling) * (-1.0 if better == "lower" else 1.0)
    if not np.isfinite(means).any():
        return None
    top = int(np.nanargmax(means))
    cov = predict(st, "uniform", st.n_labeled).cov
    near: list[tuple[float, int]] = []
    for k in np.flatnonzero(np.isfinite(means)):
        var = cov[top, top] + cov[k, k] - 2.0 * cov[top, k]
        if k == top or 1 not in (labels[top], labels[k]) or not var > 0:
            continue
        z = float(means[top] - means[k]) / math.sqrt(var)
        if z < LONE_LEAD_SE:
            near.append((z, int(k)))
    if not near:
        return None
    other = min(near)[1]
    alone = top if labels[top] == 1 else other
    return top, other, alone, float(means[top] - means[other])


def indistinguishable(
    st: PilotStatistics, pooling: str = "auto", better: str = "higher"
) -> tuple[int, int, float, float] | None:
    """:func:`~bacon_bayes.planning.outlook.weakest_lead` when that lead is under one standard
    error (predicted for the pilot's labels, uniform design); else None."""
    lead = weakest_lead(st, pooling, better)
    return lead if lead is not None and lead[2] < lead[3] else None


def _over_budget(best: DesignPlan, n_labeled: int, max_labels: int | None) -> str | None:
    """The labels left of a study's budget, as the plan line says them, when the design
    ``best`` needs more new labels than are left of ``max_labels`` (tester, session 41:
    the line recommended 73 more labels where 20 were left, a wave `bacon sample`
    refuses); None within the budget or without one.

    Parameters
    ----------
    best : DesignPlan
        The recommended design's row of the plan.
    n_labeled : int
        The labels in hand.
    max_labels : int, optional
        The labelling budget the study recorded.

    Returns
    -------
    str or None
        The line's subject and verb, e.g. ``"the 20 labels left of the study's budget
        (max_labels = 60) do not"``.
    """
    if max_labels is None or best.new_labels is None:
        return None
    left = max(int(max_labels) - n_labeled, 0)
    if best.new_labels <= left:
        return None
    budget = f"of the study's budget (max_labels = {max_labels})"
    if left == 0:
        return f"no labels are left {budget}: they do not"
    return f"the {left} label{' left' if left == 1 else 's left'} {budget} " + (
        "does not" if left == 1 else "do not"
    )


def _other_surrogate(cal: Calibrator | None) -> str:
    """Where the estimates above take other surrogates than the plan's (the model's own):
    said, since close groups may then be ordered otherwise (tester T4, finding 3)."""
    names = [n for n in getattr(cal, "surrogate_names_", []) if "not in the means" not in n]
    if cal is None or not getattr(cal, "extras_", None) or not names:
        return ""
    return f" (the model's own surrogate; the estimates above take {' + '.join(names)})"


def _tied_note(
    st: PilotStatistics,
    untold: tuple[str, str],
    what: str,
    which: str = "",
    basis: str = "the pilot's shrunk means",
    anytime: str | None = None,
    max_labels: int | None = None,
) -> str:
    """The line of a lead whose labels cannot be told (:func:`top_untold`: what the lead
    is, and its words): what doubling the labels (at most what is left of
    ``max_labels``) would do to one look's interval of the pool mean (under ``anytime``
    intervals, said to be one look's, not theirs)."""
    n0, N = st.n_labeled, st.n_items
    more = min(n0, N - n0)
    capped = ""
    if max_labels is not None and max_labels - n0 < more:
        more = max(int(max_labels) - n0, 0)
        capped = f"; the {more} left of the study's budget, max_labels = {max_labels}"
    said = f"bacon plan: the top {what}'s lead {untold[0]} here: in {basis}{which}, {untold[1]}."
    if more <= 0:
        return said
    shrink = narrowing(st, more)
    if shrink is None:  # the rest of the pool: its means exact, not "narrowed by 100%"
        return (
            f"{said} Labelling the {more} items left (the whole pool{capped}) would give "
            "its means exactly, and so which is first, unless they are equal."
        )
    whose = (
        "one look's interval of the pool mean (bacon estimate --fixed; not the anytime "
        "intervals above, whose critical values change with the looks)"
        if anytime is not None
        else "the intervals"
    )
    narrow = f"{more} more labels (uniform{capped}) would narrow {whose}"
    return f"{said} {narrow} by about {shrink:.0%}."


def narrowing(st: PilotStatistics, more: int) -> float | None:
    """How much ``more`` labels drawn uniformly narrow one look's interval of the pool
    mean from the labels of ``st``: 1 minus the ratio of the widths, as ``bacon
    estimate``'s plan line and ``bacon sample --until``'s refusal say it; None when they
    label the rest of the pool, whose means are then exact."""
    n0 = st.n_labeled
    now, later = predict(st, "uniform", n0), predict(st, "uniform", n0 + more)
    if n0 + more >= st.n_items and later.var_pool <= 1e-12 * max(now.var_pool, 1e-300):
        return None
    return 1.0 - math.sqrt(later.var_pool / now.var_pool) if now.var_pool > 0 else 0.0


def _round2(x: float) -> float:
    """``x`` to two significant figures."""
    return float(f"{x:.2g}")


def goal_examples(
    pool: EvalPool, alpha: float = 0.05, now: float | None = None
) -> list[tuple[str, str]]:
    """The goals ``bacon plan`` answers, each as its options with example values from
    ``pool`` and the question it asks: the pool mean's half-width (half the one
    ``bacon estimate`` gives now, ``now``, or without it half the labels-only one with the
    finite-population correction, or a tenth of the judges' sd without labels), one
    group's, a difference of two groups to detect, and the top group (the last three with
    two or more groups). Tester B finding 3: half the labels-only half-width without the
    correction (0.1 for 60 of 70 items labeled, where estimate gave 0.039 and the judges
    0.018) was a goal already met."""
    from scipy import stats

    y = pool.y[pool.labeled]
    n = y.size
    if n >= 2 and np.std(y, ddof=1) > 0:
        sd = float(np.std(y, ddof=1))
        fpc = max(0.0, 1.0 - n / pool.n_items)
        alone = float(stats.t.ppf(1 - alpha / 2, n - 1) * sd * math.sqrt(fpc / n))
        if now is not None and now > 0:
            h, why = _round2(now / 2), f"half the {now:.2g} the pilot's interval gives now"
        elif alone > 0:
            h, why = _round2(alone / 2), f"half the {alone:.2g} the {n} labels alone give now"
        else:  # every item labeled: the pool mean is known, any goal met
            h, why = _round2(sd / 10), "a tenth of the labels' sd (every item is labeled)"
    else:
        sd = float(np.nanstd(pool.judge_matrix().mean(axis=1).to_numpy(float))) or 1.0
        h, why = _round2(sd / 10), "a tenth of the judges' average's sd (no labels yet)"
    level = f"{100 * (1 - alpha):g}%"
    out = [(f"--half-width {h:g}", f"the pool mean's {level} interval within +-{h:g} ({why})")]
    groups = [] if pool.groups is None else natural_sorted(np.unique(pool.groups))
    if len(groups) >= 2:
        a, b = (str(g) for g in groups[:2])
        # a group's interval is about sqrt(G) times the pool mean's: half of it, as the
        # pool mean's goal (2 h, the pool mean's width now, took 16 systems' labels x 16)
        gh, delta = _round2(math.sqrt(len(groups)) * h), _round2(sd / 2)
        out += [
            (
                f"--half-width {gh:g} --group-mean {a}",
                f"{a}'s mean within +-{gh:g} (about half its interval's now)",
            ),
            (
                f"--difference {a} {b} --delta {delta:g} --power 0.8",
                f"80% power to tell {a} from {b} when their means differ by {delta:g}",
            ),
            ("--top --power 0.8", f"80% power to tell which {pool.group_name or 'group'} is best"),
        ]
    return out
