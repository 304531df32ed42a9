"""Group means of binary labels with a good surrogate, read at every look (issue 41): a
group whose few labels showed none of the pool's rare large residuals (the judges wrong)
has a tiny own variance; its bootstrap-t interval then misses (TriviaQA, 8 models, 10
uniform looks to 20%, the package's alpha-spending group means: some look missed 0.104 of
the time). The bootstrap branch's variance is at least the moderated one."""

from __future__ import annotations

import numpy as np

from bacon_bayes.estimate import aee_group_means, anytime

GROUPS, PER_GROUP, LOOKS, STEP = 8, 400, 4, 16  # 16, 32, 48, 64 labels a group


def sequence(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One sequence: the fixed group tables' (estimates, lows, highs) at each look with
    the anytime (alpha-spending) intervals, and the groups' true means."""
    rng = np.random.default_rng(seed)
    g = np.repeat(np.arange(GROUPS), PER_GROUP)
    y = (rng.random(g.size) < np.linspace(0.5, 0.85, GROUPS)[g]).astype(float)
    wrong = rng.random(g.size) < 0.04  # the judges disagree with the label
    f = np.where(wrong, 1.0 - y, y) * 0.9 + 0.05
    order = np.concatenate([rng.permutation(np.flatnonzero(g == h)) for h in range(GROUPS)])
    order = order.reshape(GROUPS, PER_GROUP)
    looks = np.arange(1, LOOKS + 1) * STEP * GROUPS
    info = anytime.effective_labels(np.arange(1, LOOKS + 1) * STEP, float(PER_GROUP))
    info = np.broadcast_to(info, (GROUPS, LOOKS))
    out = np.empty((LOOKS, 3, GROUPS))
    for k in range(LOOKS):
        labeled = np.zeros(g.size, dtype=bool)
        labeled[order[:, : (k + 1) * STEP].ravel()] = True
        pi = np.full(g.size, (k + 1) * STEP / PER_GROUP)
        table = aee_group_means(
            np.where(labeled, y, np.nan), f, g.astype(str), labeled, pi,
            simultaneous="none", n_boot=500, seed=seed,
        )  # fmt: skip
        seq = anytime.anytime_table(
            table, info[:, : k + 1], looks[: k + 1], max_labels=int(looks[-1])
        )
        out[k] = seq.estimate, seq.ci_low, seq.ci_high
    truth = np.array([y[g == h].mean() for h in range(GROUPS)])
    return out, truth


def test_binary_group_means_hold_over_the_looks() -> None:
    reps = 40
    some, widths = [], []
    for r in range(reps):
        out, truth = sequence(r)
        miss = (out[:, 1] > truth) | (out[:, 2] < truth)  # (looks, groups)
        some.append(miss.any(axis=0))
        widths.append((out[-1, 2] - out[-1, 1]) / 2)
    rate = float(np.mean(some))  # over 320 group sequences
    # the bootstrap-t on the own variance alone: 0.147; with the moderated variance in
    # the interval 0.056 (0.065 over 400 reps); its resamples studentised the same way 0.061
    # (0.073 over 400 reps: the early looks' rare-error problem, issue 41); bound 0.05 + 3 se
    assert rate <= 0.085, rate
    # not bought by width: the last look's half-width 0.067 on the own variance, 0.068 with
    # the moderated one, 0.054 with the resamples studentised like the interval
    assert 0.045 < float(np.mean(widths)) < 0.080
