"""Where Bradley-Terry votes cannot carry an interval, and the least variance they can.

:func:`~bacon_bayes.estimate.bradley_terry.bradley_terry` withholds the interval of a
model (``details["no_interval"]``, the reason per model) when the human votes cannot
check its strength:

- no labeled comparison (:data:`NO_LABELED`), or fewer than :data:`MIN_LABELED`
  (:func:`few_labeled_note`). At 400 of arena_sample's votes a model with 1, 2, 3 or 5
  labeled comparisons (the rest of its votes emptied) covered its pool strength 0.55,
  0.88, 0.93 and 0.93 of the time with a 95% interval (40 draws each, T3 finding 2);
  from 3 on, the interval is the estimator's usual one;
- separation (:func:`separated`): a model or group of models whose labeled comparisons
  with the others are all won, or all lost (ties counting both ways). The votes alone put
  its strength at plus or minus infinity; whatever finite number the judges give it, no
  vote bounds its distance to the others.

Table-wide warnings (``details["warnings"]``): every human vote a tie, and labeled
comparisons that fall apart into groups (the offsets between the groups then rest on the
judges alone). And :func:`vote_floor`, the least variance of a strength: as
:func:`~bacon_bayes.estimate.core.residual_floor` for means, a model whose ``n`` votes
the strengths fit exactly (all ties between equal models, a unanimous run) shows
residuals of 0, so its sandwich variance is 0; the floor is the variance of a miss of one
vote step (0.5: a tie against a win) at the plus-four rate ``2 / (n + 4)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from bacon_bayes.errors import ValidationError
from bacon_bayes.estimate.core import FLOOR_PSEUDO_LABELS
from bacon_bayes.results import EstimateTable

#: the fewest labeled comparisons of a model that gets an interval (module docstring)
MIN_LABELED = 3
#: the smallest step between two votes (a tie against a win or a loss)
VOTE_STEP = 0.5

#: What the reasons of a model whose strength the virtual votes guessed say of it
#: (:data:`INFINITE`, :func:`separated_note`; :func:`guessed`).
GUESS = "a guess, not a measurement"
INFINITE = (
    "its strength ran away: the estimating equation has no finite root for it (as when "
    "its labeled comparisons are all won or all lost and the surrogate cannot keep it "
    "finite); "
    "each of its comparisons is counted once more with the judges' predicted vote "
    f"(a tie without judges), which keeps its estimate finite: {GUESS}, "
    "and it has no interval"
)
NO_LABELED = (
    "no labeled comparison: its strength rests on the surrogate alone (UNVALIDATED), so it "
    "has no interval"
)
ALL_TIES = (
    "every human vote is a tie: the votes say nothing about which model is stronger, and "
    "the intervals are only the least width {n} votes allow (plus-four); check that the "
    "label column holds A / B / tie as meant (were the wins mapped?)"
)


def few_labeled_note(n: int, n_compared: int | None = None) -> str:
    """Why a model with ``n`` (1 to ``MIN_LABELED - 1``) labeled comparisons, of
    ``n_compared`` in the table, has no interval, and the fix."""
    more = MIN_LABELED - n
    fix = f"label {more} more of its comparisons"
    if n_compared is not None and n_compared < MIN_LABELED:  # no more to label
        fix = (
            f"it has only {n_compared} comparison{'s' if n_compared != 1 else ''} in the "
            f"table: add {MIN_LABELED - n_compared} more of it (with the judges' verdicts) "
            "and label them"
        )
    elif n_compared is not None and n_compared - n < more:
        fix = f"label its {n_compared - n} unlabeled comparisons and add more"
    return (
        f"only {n} labeled comparison{'s' if n != 1 else ''}, fewer than {MIN_LABELED}: too "
        "few to check its strength (with 1 and 2 a 95% interval covered 55% and 88% of the "
        f"time), so it has no interval (UNVALIDATED); {fix}"
    )


def separated_note(group: Sequence[str]) -> str:
    """Why a model of a separated ``group`` (its other members named) has no interval, and
    what its printed strength is."""
    with_ = f" (with {', '.join(group)}, as a group)" if group else ""
    return (
        f"its labeled comparisons with the other models{with_} are all won or all lost "
        "(ties counting both ways): the votes alone put its strength at plus or minus "
        f"infinity, so it has no interval; its printed strength is {GUESS}: each of its "
        "comparisons counted once more with the judges' predicted "
        "vote (a tie without judges) keeps it finite, between what its votes and the "
        "judges say"
    )


def guessed(table: EstimateTable) -> list[str]:
    """The models of a Bradley-Terry ``table`` whose printed strength is a guess: those
    that won or lost every voted comparison (alone or as a group), kept finite by the
    virtual votes (:data:`INFINITE`, :func:`separated_note`), in the table's order."""
    reasons = table.details.get("no_interval", {})
    return [str(n) for n in table.names if GUESS in reasons.get(n, "")]


def check_graph(a: np.ndarray, b: np.ndarray, m: int, names: Sequence[str], what: str) -> None:
    """Refuse models without comparisons and a comparison graph in several pieces."""
    seen = np.bincount(a, minlength=m) + np.bincount(b, minlength=m)
    if (seen == 0).any():
        missing = [names[int(k)] for k in np.flatnonzero(seen == 0)]
        raise ValidationError(
            f"model(s) {', '.join(map(repr, missing))} have no {what}; their strength is not "
            "estimable. Add comparisons with them or drop them from the names."
        )
    parts = groups(a, b, m, names)
    if len(parts) > 1:
        raise ValidationError(
            f"the {what} fall apart into {len(parts)} groups of models never compared with "
            f"each other ({'; '.join(', '.join(p) for p in parts)}): strengths across groups "
            "are not identified. Add comparisons between the groups."
        )


def graph_problem(model_a: Sequence[str], model_b: Sequence[str]) -> str:
    """Why comparisons named by their two models (``model_a``, ``model_b``) give no
    strengths, when the models fall apart into groups never compared with each other (as
    :func:`check_graph` says it, for doctor and ``bacon sample`` before a wave is drawn);
    "" when connected."""
    names, codes = np.unique(np.concatenate([np.asarray(model_a, dtype=str),
                                             np.asarray(model_b, dtype=str)]),
                             return_inverse=True)  # fmt: skip
    n = len(model_a)
    try:
        check_graph(codes[:n], codes[n:], names.size, [str(x) for x in names], "comparisons")
    except ValidationError as exc:
        return str(exc)
    return ""


def groups(a: np.ndarray, b: np.ndarray, m: int, names: Sequence[str]) -> list[list[str]]:
    """The models in connected groups of the comparisons ``a``-``b`` (models without one
    left out)."""
    seen = (np.bincount(a, minlength=m) + np.bincount(b, minlength=m)) > 0
    graph = coo_matrix((np.ones(a.size), (a, b)), shape=(m, m))
    _, lab = connected_components(graph, directed=False)
    parts = [[names[int(k)] for k in np.flatnonzero((lab == c) & seen)] for c in np.unique(lab)]
    return [p for p in parts if p]


def separated(a: np.ndarray, b: np.ndarray, y: np.ndarray, m: int) -> np.ndarray:
    """Each model's separated group (code ``>= 0``; ``-1``: not separated) in the labeled
    comparisons ``a``-``b`` with votes ``y``.

    The labels-alone maximum-likelihood strengths are finite exactly when the graph with
    an edge ``a -> b`` for a vote ``y >= 0.5`` and ``b -> a`` for ``y <= 0.5`` is strongly
    connected (Zermelo; Ford 1957). In each connected group of the labeled comparisons,
    the models outside its largest strongly connected component (by models, then labeled
    comparisons; none when it has one model) are separated from it, each strongly
    connected component its own group.
    """
    a, b, y = np.asarray(a), np.asarray(b), np.asarray(y, dtype=float)
    out = np.full(m, -1)
    votes = np.bincount(a, minlength=m) + np.bincount(b, minlength=m)
    seen = votes > 0
    if not a.size:
        return out
    src = np.concatenate([a[y >= 0.5], b[y <= 0.5]])
    dst = np.concatenate([b[y >= 0.5], a[y <= 0.5]])
    directed = coo_matrix((np.ones(src.size), (src, dst)), shape=(m, m))
    _, strong = connected_components(directed, directed=True, connection="strong")
    undirected = coo_matrix((np.ones(a.size), (a, b)), shape=(m, m))
    _, weak = connected_components(undirected, directed=False)
    for c in np.unique(weak[seen]):
        members = np.flatnonzero((weak == c) & seen)
        comps = np.unique(strong[members])
        if comps.size == 1:
            continue
        size = {int(s): (int((strong[members] == s).sum()), int(votes[strong == s].sum()))
                for s in comps}  # fmt: skip
        core = max(size, key=lambda s: size[s])
        for k in members:
            if strong[k] != core or size[core][0] < 2:
                out[k] = strong[k]
    return out


def vote_floor(n_labeled: np.ndarray) -> np.ndarray:
    """The least residual variance per vote that a model's ``n`` labeled comparisons
    establish: a miss of one vote step at the plus-four rate, ``step^2 p0 (1 - p0)``,
    ``p0 = 2 / (n + 4)`` (module docstring)."""
    n = np.asarray(n_labeled, dtype=float)
    p0 = 0.5 * FLOOR_PSEUDO_LABELS / (n + FLOOR_PSEUDO_LABELS)
    return VOTE_STEP * VOTE_STEP * p0 * (1.0 - p0)


def floor_covariance(
    cov: np.ndarray, unit: np.ndarray, n_labeled: np.ndarray, names: Sequence[str]
) -> tuple[np.ndarray, dict[str, str]]:
    """``cov`` with each model's variance raised to at least ``vote_floor(n_k) unit_kk``
    (``unit`` the covariance the same votes give with residuals of variance 1), its
    correlations kept (rows and columns rescaled), and the details that say where."""
    floor = vote_floor(n_labeled)
    var = np.diag(cov)
    least = floor * np.diag(unit)
    flat = var <= 1e-12 * max(float(least.max(initial=0.0)), 1e-300)
    if flat.all():  # no spread at all (every vote fitted exactly): the floor's covariance
        out = np.asarray(unit * np.sqrt(np.outer(floor, floor)))
    else:
        up = (least > var) & ~flat
        scale = np.ones_like(var)
        scale[up] = np.sqrt(least[up] / var[up])
        out = cov * np.outer(scale, scale) + np.diag(np.where(flat, least, 0.0))
    raised = (np.diag(out) > var * (1 + 1e-9)) & (np.asarray(n_labeled) > 0)
    if not raised.any():
        return cov, {}
    return out, {
        "variance_floor": (
            f"the variance of {', '.join(names[int(k)] for k in np.flatnonzero(raised))} was "
            "raised to the least their votes establish: the strengths fit their votes "
            "(nearly) exactly, so it is a miss of one vote step at the plus-four rate "
            "2 / (n + 4), n the model's labeled comparisons"
        )
    }


def all_ties(y: np.ndarray) -> bool:
    """Whether there are votes and every one is a tie (0.5): they order no models."""
    y = np.asarray(y, dtype=float)
    return bool(y.size) and bool((y == 0.5).all())


def vote_warnings(
    a: np.ndarray, b: np.ndarray, y: np.ndarray, m: int, names: Sequence[str]
) -> list[str]:
    """What the labeled comparisons ``a``-``b`` with votes ``y`` leave unchecked, for the
    whole table (``details["warnings"]``)."""
    out = [ALL_TIES.format(n=y.size)] if all_ties(y) else []
    parts = groups(a, b, m, names)
    if len(parts) > 1:
        out.append(
            f"the labeled comparisons fall apart into {len(parts)} groups of models no human "
            f"vote compares with each other ({'; '.join(', '.join(p) for p in parts)}): the "
            "differences between the groups, and the tiers and rank sets across them, rest "
            "on the judges alone (not validated by any vote); add comparisons between them"
        )
    return out


def withhold_unvalidated(
    table: EstimateTable, n_labeled: np.ndarray, group: np.ndarray, runaway: np.ndarray
) -> EstimateTable:
    """``table`` without the interval and standard error of each model its votes do not
    check (module docstring): no labeled comparison, fewer than ``MIN_LABELED``, a
    ``group`` (:func:`separated`) or a ``runaway`` strength the fit kept finite by virtual
    ties; the reason per model in ``details["no_interval"]``."""
    n = np.asarray(n_labeled)
    m = n.size
    few = (n > 0) & (n < MIN_LABELED)
    withheld = runaway | few | (group >= 0) | (n == 0)
    table = replace(table, se=np.where(withheld, np.nan, table.se))
    for k in np.flatnonzero(group >= 0):
        others = [table.names[j] for j in np.flatnonzero(group == group[k]) if j != k]
        table = table.withhold(np.arange(m) == k, separated_note(others))
    table = table.withhold(runaway & (group < 0), INFINITE)
    for k in np.flatnonzero(few):
        note = few_labeled_note(int(n[k]), int(table.n_items[k]))
        table = table.withhold(np.arange(m) == k, note)
    return table.withhold(n == 0, NO_LABELED)
