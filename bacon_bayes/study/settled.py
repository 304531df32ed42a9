"""Deciding from the anytime intervals of a study: whether a question is settled, and about
how many more labels would settle it (``bacon status``, ``bacon sample --until``).

Questions. The pool mean is settled when its anytime interval's half-width is at most the
one asked; a pair of groups when the anytime interval of their difference excludes 0 (the
simultaneous intervals of all pairs, as ``compare_groups`` gives them); the best group
(highest mean) when its anytime rank interval is [1, 1], i.e. every difference to it
excludes 0. The intervals are those of :mod:`bacon_bayes.estimate.anytime`:
alpha-spending when the study records a maximum budget (``max_labels``), else the
confidence sequence; so reading them after every wave and stopping once settled keeps the
stated level.

More labels (approximate). At the current rate, ``m`` more labels spread over the groups
as a uniform wave over the open items spreads them (so labelling the whole pool labels
every group wholly and settles every sign with a non-zero estimate): a half-width ``h``
at ``n`` labels becomes about ``h sqrt(I(n) / I(n + m)) c(n + m) / c(n)``, with ``c``
the sequential critical value of a look at ``n + m`` labels (one more look with the
information ``I`` grown in proportion, with the finite-pool correction the intervals
take: :func:`~bacon_bayes.estimate.anytime.effective_labels`; on the correlation of the
looks the interval's boundary is on: the pool mean's looks' own where its interval uses it,
:mod:`bacon_bayes.look_fits`, the look to come assumed to meet the latest as the latest met
the one before, else the canonical one; where the pool mean weighs
waves of items and of prompts by their precision, by what a uniform wave adds to it:
:func:`~bacon_bayes.sequential.uniform_wave_gain`); a Student-t row's ``c`` is read at
its df grown with the labels (:func:`~bacon_bayes.estimate.anytime.studentised`), not
kept at a pilot's few. The intervals are taken to narrow about their centres (a
difference's interval centred on ``c`` excludes 0 once the half-width is below ``|c|``;
a shrunk interval need not be centred on its estimate). For a sign or the best group this is a
point projection: if the estimate holds, the question settles by then; it moves as the
labels come, and on WMT22 (refA - refB, 16 systems) it moved toward 0, so that waves of
the projected size (196, 54, 67 labels) each left it open, while on TriviaQA pilots of
100 (gpt-4t - llama2-13b-base) the first wave settled the sign in 12 of 14 studies,
which ``bacon status`` and ``bacon sample --until`` say (:data:`POINT_PROJECTION`). The
finite-pool correction also shrinks a group's standard error faster than a study mixing
designs saw (WMT22: about halfway between it and the labels' square root; TriviaQA: as
it says). A guide for the size of the next wave, not a guarantee.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate import anytime
from bacon_bayes.estimate.core import RANGE_LEVEL, VARIANCE_FLOOR
from bacon_bayes.estimate.groups import rank_intervals
from bacon_bayes.estimate.tables import pair_notes
from bacon_bayes.order import best_words, check_better, name_text, names_text, natural_sorted
from bacon_bayes.study.looks import (
    complete_look,
    fit_study,
    last_labeled_wave,
    look_estimates,
    pending_text,
    pending_waves,
)
from bacon_bayes.study.panel import replaced_after
from bacon_bayes.study.projection import (
    labels_needed,
    levels,
    needed_range,
    pair_needs,
    separate_needs,
)

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.results import Estimate, EstimateTable

__all__ = [
    "POINT_PROJECTION",
    "Goal",
    "Question",
    "complete_look",
    "fit_study",
    "goal_question",
    "labels_needed",
    "last_labeled_wave",
    "look_estimates",
    "parse_goal",
    "pending_text",
    "pending_waves",
    "question_lines",
    "question_notes",
    "questions",
    "replaced_after",
    "until_budget",
    "wave_budget",
]


@dataclass(frozen=True)
class Question:
    """One question and what the anytime intervals say about it.

    ``settled`` is None when no target was given (the pool mean without a half-width);
    ``more_labels`` is about how many more labels would settle it (0 when settled, inf
    when not within ``cap``, None without a target). ``name`` is the question's key
    (``pool mean within +-H``, ``sign of A - B``, ``best group (highest mean)``), kept
    as it was for code that looks questions up; ``shown``, where set, is how it is
    printed (the best group named by the group column, as ``bacon plan`` names it:
    ``top system (highest mean)``): :attr:`title`.
    """

    name: str
    settled: bool | None
    answer: str
    more_labels: float | None
    #: a caveat shared by several questions, said once (:data:`SHRUNK_PAIRS`)
    caveat: str | None = None
    #: an open sign or best group whose lead is under one standard error
    #: (:data:`NOISE_LEAD`): its count holds a lead that may be noise where it is
    noise: bool = False
    #: the words printed for the question where they are not its key ``name``
    shown: str | None = None
    #: its count is past the labels left under ``--max-labels`` (said in ``answer``)
    past: bool = False

    @property
    def title(self) -> str:
        """The question as ``bacon status`` and ``bacon sample --until`` print it."""
        return self.shown or self.name


#: the caveat of pairs whose anytime intervals are shrunk (a group under 10 labels)
SHRUNK_PAIRS = (
    "the pairs' intervals are shrunk toward the pool's correction (some group has under 10 "
    "labels): valid on average over the pairs, not each on its own; once every group has 10 "
    "labels each gets its own interval, which may be wider, so a sign settled now can reopen; "
    "the 'more labels' above are those of the groups' own intervals where they bring every "
    "group to 10 labels"
)


@dataclass(frozen=True)
class Goal:
    """What ``bacon sample --until`` labels for: a half-width of the pool mean, the sign
    of a pair's difference, or the best group."""

    kind: Literal["half-width", "sign", "best"]
    half_width: float | None = None
    pair: tuple[str, str] | None = None


def parse_goal(text: str) -> Goal:
    """``half-width=0.1``, ``sign=A,B`` (or ``pair=A:B``), or ``best``."""
    key, _, value = text.partition("=")
    key = key.strip().lower()
    if key == "best" and not value:
        return Goal("best")
    if key == "half-width":
        try:
            h = float(value)
        except ValueError:
            h = float("nan")
        if not (math.isfinite(h) and h > 0):
            raise ValidationError(f"--until half-width={value}: give a positive number")
        return Goal("half-width", half_width=h)
    if key in ("sign", "pair"):
        names = [v.strip() for v in value.replace(":", ",").split(",")]
        if len(names) != 2 or not all(names):
            raise ValidationError(f"--until {text}: name two groups, e.g. sign=M14,M15")
        return Goal("sign", pair=(names[0], names[1]))
    raise ValidationError(
        f"--until {text!r} is not a goal; give half-width=H, sign=A,B (or pair=A:B) or best"
    )


#: what a sign's or the best group's "more labels" assume (:func:`question_notes`)
POINT_PROJECTION = (
    "a sign's or the top group's 'more labels' keep the estimate where it is and narrow its "
    "interval by the labels: the question settles by then if the estimate holds or moves away "
    "from 0, later or never if it moves toward 0 (first waves of that size settled the sign "
    "on 12 of 14 TriviaQA pilots, none of three on WMT22's refA - refB, which moved toward 0)"
)


#: said of an open sign or best group whose lead is under one standard error
NOISE_LEAD = "a lead under one standard error"
#: said of an open sign of a group of one label (no standard error of its own)
LONE_LEAD = "a group of one label, no standard error of its own"
#: what an open question whose lead is noise says instead of a count, as ``bacon
#: estimate``'s plan line says it (its count holds a lead that may be noise where it is)
UNTOLD = "; the labels needed cannot be told from these labels"


def _more_text(
    m: float | None, cap_note: str, point: bool = False, left: float | None = None
) -> str:
    """The projection's words; ``cap_note``: what a count that cannot be projected says
    (:func:`_cap_note`); ``point``: a sign's or the best group's, which holds the
    estimate where it is (:data:`POINT_PROJECTION`); ``left``: the labels left under
    ``--max-labels`` (None: no budget), said beside a count past them (:func:`_past`)."""
    if m is None or m == 0:
        return ""
    if not np.isfinite(m):
        return f"; {cap_note}"
    words = f"; about {int(m)} more labels at the current rate"
    if point:  # "..., past the 23 left under --max-labels" after its condition
        return f"{words} if the estimate holds{_past(m, left)}"
    return f"{words}{_past(m, left)} (approximate)"


def _past(m: float, left: float | None) -> str:
    """ ", past the 240 left under --max-labels" where the count ``m`` is past the labels
    ``left`` of the budget (None: no budget): the projection itself, then the budget (the
    count came out as the budget left, a cap that read as a projection)."""
    if left is None or m <= left:
        return ""
    return f", past the {int(max(left, 0))} left under --max-labels"


def question_notes(found: list[Question]) -> list[str]:
    """The notes under the questions: their caveats, once each, and what the projection of
    an open sign or best group assumes (:data:`POINT_PROJECTION`)."""
    notes = list(dict.fromkeys(q.caveat for q in found if q.caveat))
    point = [q for q in found if q.name.startswith(("sign of ", "best group"))]
    if any(q.settled is False and _finite(q.more_labels) for q in point):
        notes.append(POINT_PROJECTION)
    return notes


def _mean_question(
    cal: Calibrator,
    e: Estimate,
    half_width: float | None,
    max_labels: int | None,
    cap: float,
    left: float | None = None,
) -> Question:
    from bacon_bayes import sequential

    half = 0.5 * (e.ci_high - e.ci_low)
    shown = _beside(half, half_width)
    interval = f"{e.estimate:.4g} [{e.ci_low:.4g}, {e.ci_high:.4g}], half-width {shown}"
    if half_width is None:
        return Question("pool mean", None, interval + " (--half-width H: within H yet?)", None)
    note = e.details["anytime"]
    looks = np.asarray(note["labels_at_looks"], float)
    info = sequential.mean_information(cal)
    n_items = sequential.mean_counts(cal, items=True)[1]
    now = anytime.effective_labels(looks[-1], n_items)

    # the information grows as the items' does (labels over the pool's items), from what
    # it is now: counted in labeled prompts (after a wave drew prompts), the labeled
    # prompts' count ran into the pool's prompts and promised the goal in a few labels
    # (91 of 100 prompts touched, most with 1-3 of 12 items labeled: "29 more" where
    # about 270 were needed)
    # where the estimator weighs mixed waves by precision, by what a uniform wave of the
    # rest adds to it (:func:`~bacon_bayes.sequential.uniform_wave_gain`)
    gain = sequential.uniform_wave_gain(cal)

    def grow(total: float) -> np.ndarray:
        if gain is not None:
            return np.atleast_1d(info[-1] * gain(total - looks[-1]))
        return np.atleast_1d(info[-1] * anytime.effective_labels(total, n_items) / now)

    def needed(row: Estimate, ends: bool = False) -> tuple[float, ...]:
        """The count at ``row``'s variance; ``ends``: at its range's ends too
        (:func:`~bacon_bayes.study.projection.needed_range`)."""
        df = np.array([float(row.details.get("df") or np.nan)])
        half = np.array([0.5 * (row.ci_high - row.ci_low)])
        level, goal = levels(row.details["anytime"]), np.array([half_width])
        # the boundary on the row's own correlation of the looks where its interval is
        # (look_fits; the next look's cosine assumed the last one's), else canonical
        own = row.details["anytime"].get("cosines")
        cosines = None if own is None else np.asarray(own, float)

        def count(h: np.ndarray) -> np.ndarray:
            return labels_needed(
                looks, info[None, :], level, h, goal,
                grow=grow, max_labels=max_labels, cap=cap, df=df, cosines=cosines,
            )  # fmt: skip

        point = float(count(half)[0])
        return (point, *(float(v[0]) for v in needed_range(count, half, df))) if ends else (point,)

    settled = bool(half <= half_width)
    m, *ends = needed(e, ends=not settled)
    sign = "<=" if settled else ">"
    cap_note = _cap_note(max_labels, cal.pool_.n_labeled)
    more = _more_text(m, cap_note, left=left)
    if not settled and e.details.get(VARIANCE_FLOOR) and _finite(m):
        # the variance sits at the residual floor, a lower bound: the misses not drawn yet
        # raise it as labels come (TriviaQA, 96 labels: "about 89 more" where 288 more
        # were needed); the labels alone's variance bounds it from above
        alone = cal.estimate_mean(e.alpha, "classical", anytime=True, max_labels=max_labels)
        high = needed(alone)[0]
        why = f"{int(m)} from the variance at the residual floor, a lower bound that the "
        why += "judges' misses not drawn yet will raise; " + (
            f"{int(high)} from the labels alone's"
            if np.isfinite(high)
            else f"by the labels alone's, {cap_note}"
        )
        more = _range_more_text(m, m, high, cap_note, why, left)
    elif not settled and _finite(m):
        # the count holds today's variance, estimated on the row's df: its range
        df = float(e.details.get("df") or np.nan)
        why = "approximate; the range from the residual variance's "
        why += f"{RANGE_LEVEL:.0%} interval on its {df:.0f} df"
        why += "" if np.isfinite(ends[1]) else f"; at its high end, {cap_note}"
        more = _range_more_text(m, ends[0], ends[1], cap_note, why, left)
    answer = f"{interval} {sign} {half_width:g}" + more
    past = bool(_past(m, left)) if _finite(m) else False
    return Question(f"pool mean within +-{half_width:g}", settled, answer, m, past=past)


#: a range of more labels is said where its ends are further apart than this ratio
RANGE_SPREAD = 1.3


def _range_more_text(
    m: float, low: float, high: float, cap_note: str, why: str, left: float | None = None
) -> str:
    """The projection ``m`` with its range ``low``-``high`` and ``why`` (the variance's own
    error, or the residual floor's bounds): "about N (between L and U) more labels", "about
    N (at least L)" where ``high`` is out of reach; the count alone where the ends are
    within :data:`RANGE_SPREAD` of each other."""
    if np.isfinite(high) and high <= RANGE_SPREAD * max(low, 1.0):
        return _more_text(m, cap_note, left=left)
    within = f"between {int(low)} and {int(high)}" if np.isfinite(high) else f"at least {int(low)}"
    return f"; about {int(m)} ({within}) more labels at the current rate{_past(m, left)} ({why})"


def _beside(value: float, goal: float | None) -> str:
    """``value`` to 3 significant digits, or as many more as tell it from ``goal`` (a
    half-width of 0.10043 against a goal of 0.1 read "0.1 > 0.1")."""
    for digits in range(3, 10):
        text = f"{value:.{digits}g}"
        if goal is None or value == goal or float(text) != goal:
            return text
    return text


def _cap_note(max_labels: int | None, used: int = 0) -> str:
    """What an open question whose count cannot be projected says: that ``max_labels`` is
    spent (``used`` of them: a walk's status read "not within max-labels 300 at the
    current rate" at 300 of 300), else that even every unlabeled item of the pool would
    not settle it at the current rate. A count past the budget is said as a count
    (:func:`_past`), no longer as "not within max-labels"."""
    if max_labels is not None and used >= max_labels:
        return f"max-labels {max_labels}, which is spent"
    return "cannot be projected: not within the pool's unlabeled items at the current rate"


def questions(
    cal: Calibrator,
    *,
    alpha: float = 0.05,
    half_width: float | None = None,
    max_labels: int | None = None,
    better: str = "higher",
) -> list[Question]:
    """The pool mean (within ``half_width``), each pair's sign and the best group (with
    two or more groups; the highest mean, or the lowest with ``better="lower"``: an
    error score), from the anytime intervals of ``cal``'s pool (whose waves are the
    looks); ``max_labels``: alpha-spending, else the confidence sequence."""
    better = check_better(better)
    pool = cal.pool_
    # the projection runs to the pool's open items; the budget left is said beside it
    open_items = float(pool.n_items - pool.n_labeled)
    budget = float(max_labels - pool.n_labeled) if max_labels else None
    e = cal.estimate_mean(alpha, anytime=True, max_labels=max_labels)
    out = [_mean_question(cal, e, half_width, max_labels, open_items, budget)]
    if pool.groups is None or np.unique(pool.groups).size < 2:
        return out
    means = cal.estimate_groups(alpha, True)
    diffs = cal.compare_groups(alpha, anytime=True, max_labels=max_labels)
    need = pair_needs(cal, means, diffs, max_labels, open_items)
    se = np.asarray(diffs.se, float)
    if diffs.details.get("pooling") == "shrink":  # the lead's noise: the pair's own se
        need, own = separate_needs(cal, alpha, max_labels, open_items, need, diffs.details["pairs"])
        se = np.fmax(se, own)
    # a settled sign needs no more labels (its interval, shrunk or clipped to the label's
    # range, need not be centred on the estimate: half its width may exceed |estimate|),
    # an open one at least one
    settled = (diffs.ci_low > 0) | (diffs.ci_high < 0)
    need = np.where(settled, 0.0, np.maximum(need, 1.0))
    # a lead under one standard error: held where it is, it gives a count with nothing to
    # go on (SummEval coherence at 90 labels: 835 more for a leader that was not the best);
    # so is one of a group of one label, which has no standard error of its own (TriviaQA,
    # 14 labels: 281 asked for a lead of 0.21 between two groups of one label each)
    lone = {str(g) for g, n in zip(means.names, means.n_labeled, strict=True) if n == 1}
    alone = np.array([a in lone or b in lone for a, b in diffs.details["pairs"]], bool)
    noise = ~settled & ((np.abs(diffs.estimate) < se) | alone)
    reason = np.where(alone, LONE_LEAD, NOISE_LEAD)
    cap = _cap_note(max_labels, cal.pool_.n_labeled)
    caveat = SHRUNK_PAIRS if diffs.details.get("pooling") == "shrink" else None
    withheld, why = pair_notes(means, diffs), means.details.get("no_interval", {})
    for k, (a, b) in enumerate(diffs.details["pairs"]):
        d, lo, hi = diffs.estimate[k], diffs.ci_low[k], diffs.ci_high[k]
        if withheld[k]:  # a group without an interval: its labels come first
            first = " and ".join(g for g in (a, b) if g in why) or f"more prompts of {a} and {b}"
            answer = f"{d:+.3g}, no interval ({withheld[k]}): label {first} first"
            out.append(Question(f"sign of {a} - {b}", False, answer, None, caveat))
            continue
        interval = f"{d:+.3g} [{lo:+.3g}, {hi:+.3g}]"
        known = bool(lo > 0 or hi < 0)
        verdict = f"{a} {'>' if d > 0 else '<'} {b}" if known else "sign not yet known"
        answer = f"{interval}: {verdict}"
        more = _more_text(need[k], cap, point=True, left=budget)
        answer += f"{UNTOLD} ({reason[k]})" if noise[k] else more
        past = bool(_past(need[k], budget)) and not noise[k]
        out.append(
            Question(
                f"sign of {a} - {b}",
                known,
                answer,
                float(need[k]),
                caveat,
                bool(noise[k]),
                past=past,
            )
        )
    from bacon_bayes.planning.note import top_lead_untold  # estimate's decision, shared

    # whether the top group's count can be told is estimate's plan line's decision alone
    # (a lead under one standard error, or over a group of one label), on the same pooling
    untold = top_lead_untold(cal, better, cal.pooling)
    best = _best_question(means, diffs, need, cap, better, untold=untold, left=budget)
    shown = f"top {pool.group_name or 'group'} ({best_words(better)})"  # as bacon plan says
    out.append(replace(best, caveat=caveat, shown=shown))
    return out


#: unsettled pairs named by ``question_lines``' summary (those nearest to settled)
NEAREST = 3


def question_lines(found: list[Question], limit: int | None = None) -> list[str]:
    """The questions as ``bacon status`` prints them, one line each; with more than
    ``limit`` pairs (None: no limit), every settled pair, then one line counting the
    pairs whose sign is not known yet, naming the :data:`NEAREST` nearest to settled."""
    pairs = [q for q in found if q.name.startswith("sign of ")]

    def line(q: Question) -> str:
        state = {True: "settled: ", False: "not yet: ", None: ""}[q.settled]
        return f"{q.title}: {state}{q.answer}"

    if limit is None or len(pairs) <= limit:
        return [line(q) for q in found]
    open_ = [q for q in pairs if not q.settled]
    # only pairs that would settle within the labels left are "near": in table order the
    # others named pairs no nearer than the rest
    # nor those whose lead is noise: bacon sample --until refuses to count from them
    near = [q for q in open_ if _finite(q.more_labels) and not q.noise and not q.past]
    near.sort(key=lambda q: q.more_labels or 0)
    noisy = sum(q.noise for q in open_)
    shown = [
        f"{name_text(q.name[len('sign of ') :])} (about {int(q.more_labels or 0)} more labels)"
        for q in near[:NEAREST]
    ]
    at = [k for k, q in enumerate(found) if q.name.startswith("sign of ")]
    out = [line(q) for q in found[: at[0]]] + [line(q) for q in pairs if q.settled]
    if open_:
        out.append(
            f"{len(open_)} of {len(pairs)} pairs: sign not yet known"
            + (
                f" (nearest to settled: {'; '.join(shown)})"
                if shown
                else f" (no lead to count from: {noisy} under their noise)"
                if noisy
                else " (none would settle within the labels left)"
            )
            + "; --pairs all lists every pair"
        )
    out += [line(q) for q in found[at[-1] + 1 :]]
    return out


def _finite(m: float | None) -> bool:
    return m is not None and bool(np.isfinite(m))


def _best_question(
    means: EstimateTable,
    diffs: EstimateTable,
    need: np.ndarray,
    cap: str,
    better: str,
    untold: str = "",
    left: float | None = None,
) -> Question:
    """The best group's question; ``untold``: the words of a top group whose count cannot
    be told (:func:`~bacon_bayes.planning.note.top_lead_untold`, as ``bacon estimate``'s
    plan line decides it), printed instead of a count."""
    ranks = rank_intervals(means, descending=better == "higher", diffs=diffs)
    top = int(np.nanargmin(ranks["rank"]))
    name = str(means.names[top])
    settled = bool(ranks["rank_high"][top] == 1)
    touching = [k for k, pair in enumerate(diffs.details["pairs"]) if name in pair]
    m = max((need[k] for k in touching), default=0.0)
    title = f"best group ({best_words(better)})"
    if settled:
        return Question(title, True, f"{name} (rank interval [1, 1])", 0.0)
    lo, hi = int(ranks["rank_low"][top]), int(ranks["rank_high"][top])
    answer = f"{name} leads, rank interval [{lo}, {hi}]"
    why = means.details.get("no_interval", {})
    bare = {g: n for g, n in zip(map(str, means.names), means.n_labeled, strict=True) if g in why}
    if bare:  # as bacon sample --until best refuses: no interval, no rate to count from
        from bacon_bayes.planning.note import unlabeled_text  # as estimate's plan line says

        zero = [g for g, n in bare.items() if n == 0]
        other = [g for g, n in bare.items() if n != 0]
        said = [unlabeled_text(zero)] if zero else []
        said += [f"no interval for {name_text(g)} ({why[g]}): label it first" for g in other]
        return Question(title, False, "; ".join([answer, *said]), None)
    answer += f"; {untold}" if untold else _more_text(m, cap, point=True, left=left)
    past = not untold and bool(_past(m, left))
    return Question(title, False, answer, float(m), noise=bool(untold), past=past)


def goal_question(
    cal: Calibrator,
    goal: Goal,
    *,
    alpha: float = 0.05,
    max_labels: int | None = None,
    better: str = "higher",
) -> Question:
    """The question ``goal`` asks, answered as :func:`questions` does (``better``: which
    way the best group's mean is better)."""
    if goal.kind == "half-width":
        return questions(cal, alpha=alpha, half_width=goal.half_width, max_labels=max_labels)[0]
    names = () if cal.pool_.groups is None else {str(g) for g in np.unique(cal.pool_.groups)}
    if len(names) < 2:
        raise ValidationError(
            f"--until {goal.kind}: the study has no groups to compare; give the study's "
            "group column (study.toml `group`), or ask for half-width=H"
        )
    found = questions(cal, alpha=alpha, max_labels=max_labels, better=better)
    if goal.kind == "best":
        return found[-1]
    assert goal.pair is not None
    a, b = goal.pair
    for name in (a, b):
        if name not in names:
            raise ValidationError(
                f"--until sign={a},{b}: no group {name!r}; the groups are "
                + names_text(sorted(names))
            )
    for q in found:
        if q.name in (f"sign of {a} - {b}", f"sign of {b} - {a}"):
            return q
    raise ValidationError(f"--until sign={a},{b}: name two different groups")


def wave_budget(question: Question, left: float) -> int:
    """The next wave's size for an unsettled ``question``: the labels it predicts, at most
    what is ``left`` of the budget (or of the pool)."""
    if left < 1:
        raise ValidationError(
            "no labels are left of the budget (max-labels) or the pool; the question stays "
            "open at this budget"
        )
    m = question.more_labels
    return int(left if m is None or not np.isfinite(m) else max(1.0, min(m, left)))


def _refuse_unlabeled_groups(root: str | Path, cal: Calibrator, goal: Goal) -> None:
    """A group of ``goal`` (its pair; every group for ``best``) without a label has no
    interval and no rate to project: say so and how to label it, rather than an interval
    of NaN that "the whole pool would not settle"."""
    if goal.kind == "half-width" or cal.pool_.groups is None:
        return
    groups = np.asarray(cal.pool_.groups).astype(str)
    asked = goal.pair or tuple(map(str, natural_sorted(np.unique(groups))))
    bare = [g for g in asked if not cal.pool_.labeled[groups == g].any()]
    if bare:
        column = cal.pool_.group_name or "GROUP"
        raise ValidationError(
            f"--until {'best' if goal.kind == 'best' else 'sign=' + ','.join(asked)}: "
            f"group{'s' if len(bare) > 1 else ''} {', '.join(map(repr, bare))} "
            f"{'have' if len(bare) > 1 else 'has'} no labels yet, so no interval and no "
            "rate to size a wave from; nothing was drawn. Label every group first: bacon "
            f"sample {root} --design stratified --strata {column} --budget N"
        )


def until_budget(
    root: str | Path,
    goal: str,
    *,
    max_labels: int | None = None,
    alpha: float = 0.05,
    better: str | None = None,
    allow_pending: bool = False,
    **fit: Any,
) -> tuple[int | None, str]:
    """The size of the next wave of a study for ``goal`` (:func:`parse_goal`), and a line
    saying why; None when the goal is settled (draw nothing). ``max_labels`` (default: the
    study's) caps the wave at what is left of it; ``better`` (default: the study's, else
    higher) which way the best group's mean is better; ``allow_pending``: decide after the
    latest wave, its items without a label missing at random and a wave with none back not
    drawn, for the budget left too (as ``bacon status --allow-pending`` reads the study);
    ``fit``: :func:`fit_study`'s options."""
    from bacon_bayes.study import Study

    wanted = parse_goal(goal)
    study = Study.open(root)
    table = study.status()
    wave = last_labeled_wave(root)
    waiting = pending_waves(table)
    if allow_pending and waiting and study.labels.size:
        wave = int(table["wave"].max())
    elif wave is None or wave != int(table["wave"].max()):
        raise ValidationError(
            f"--until decides from the labels of every wave so far; import the labels of "
            f"{pending_text(waiting) or 'wave 1'} first (`bacon status {root} --pending-out "
            "FILE` lists them). If they will never come, add --allow-pending: the wave is "
            f"then sized as `bacon status {root} --allow-pending` reads the study (the "
            "pending items missing at random, a wave with no label back not drawn, for the "
            "budget left too)"
        )
    max_labels = max_labels or study.config.max_labels
    cal = fit_study(root, wave=wave, allow_pending=allow_pending, **fit)
    better = check_better(better or study.config.better)
    q = goal_question(cal, wanted, alpha=alpha, max_labels=max_labels, better=better)
    kind = "alpha-spending" if max_labels else "confidence sequence"
    if allow_pending and waiting:  # said on every line, as bacon status says it
        kind += f"; {pending_text(waiting)} pending: missing at random"
    if q.settled:
        return None, f"settled, nothing drawn: {q.title}: {q.answer} ({kind})"
    _refuse_unlabeled_groups(root, cal, wanted)
    used = int(table["selected"].sum())
    if allow_pending:  # a wave with no label back counts as not drawn, as the read above
        used -= sum(study.never_back().values())
    left = float(max_labels - used if max_labels else study.n_items - used)
    if q.noise:  # a count "if the estimate holds" of a lead that may be noise
        from bacon_bayes.planning.note import narrowing
        from bacon_bayes.planning.predict import pilot_statistics

        n = cal.pool_.n_labeled
        cut = narrowing(pilot_statistics(cal.pool_, cal), int(min(n, left)))
        said = (  # as bacon estimate's plan line reckons it
            ", the pool's means then exact"
            if cut is None
            else f" and narrows one look's interval of the pool mean by about {cut:.0%}"
        )
        more = (
            f"--budget {n} doubles the labels{said}"
            if n < left
            else f"--budget {int(left)} is all that is left{said}"
        )
        raise ValidationError(
            f"{q.title}: not yet: {q.answer} ({kind}); nothing was drawn. Draw a wave of your "
            f"size with --budget N ({more}), or ask a goal within reach"
        )
    if left >= 1 and (not _finite(q.more_labels) or (q.more_labels or 0) > left):
        # out of reach (or no interval to project): one behaviour under both kinds; the
        # rest of a fixed budget spent on a goal it will not meet used to end the study
        where = f"max_labels = {max_labels}" if max_labels else "the pool's open items"
        raise ValidationError(
            f"{q.title}: not yet: {q.answer} ({kind}); at the current rate even the "
            f"{int(left)} labels left ({where}) would not settle it, so nothing was drawn. "
            "Draw a wave of your size with --budget N, or ask a goal within reach"
        )
    budget = wave_budget(q, left)
    if budget >= left and not max_labels:  # a census of the pool, not a wave
        raise ValidationError(
            f"{q.title}: not yet: {q.answer} ({kind}); at the current rate only labelling "
            f"every one of the {int(left)} open items of the pool settles it, so nothing was "
            f"drawn. Label them all with --budget {int(left)}, draw a wave of your size with "
            "--budget N, or ask a goal within reach"
        )
    why = f" (all that is left of max_labels = {max_labels})" if budget >= left else ""
    if wanted.kind != "half-width" and not why:  # a point projection: not worth re-running
        why = (
            " (sized as if the estimate holds: if it moves toward 0 the question stays open; "
            "a larger wave, --budget N, has better odds than --until again in small steps)"
        )
    return budget, f"{q.title}: not yet: {q.answer} ({kind}); next wave: {budget} labels{why}"
