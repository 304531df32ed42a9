"""Designs report the inclusion probabilities they really have (checked by Monte Carlo)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from scipy import stats

from bacon_bayes.errors import ValidationError
from bacon_bayes.sampling import (
    adaptive,
    adaptive_probabilities,
    allocate,
    bernoulli,
    bin_feature,
    cap_probabilities,
    combine_waves,
    poisson,
    stratified,
    uniform,
)

N = 60
REPS = 2000


def inclusion_mismatch(draw: Callable[[int], np.ndarray], pi: np.ndarray) -> str | None:
    """Compare the empirical inclusion frequency over REPS seeds with ``pi``.

    Returns a description of the mismatch, or None when frequencies agree
    (max |z| < 4.5 over items and the chi-square of the z-scores is not
    extreme). Items with pi in {0, 1} must be never / always included.
    """
    counts = np.zeros(pi.size)
    for rep in range(REPS):
        counts += draw(rep)
    freq = counts / REPS
    sure = (pi == 0) | (pi == 1)
    if np.any(freq[sure] != pi[sure]):
        return "items with probability 0 or 1 were not excluded / included every time"
    p = pi[~sure]
    z = (freq[~sure] - p) / np.sqrt(p * (1 - p) / REPS)
    chi2_p = stats.chi2.sf(np.sum(z**2), df=z.size) if z.size else 1.0
    if np.max(np.abs(z), initial=0) > 4.5 or chi2_p < 1e-5:
        return f"max |z| = {np.max(np.abs(z)):.2f}, chi-square p = {chi2_p:.2g}"
    return None


@pytest.fixture(scope="module")
def sd() -> np.ndarray:
    rng = np.random.default_rng(7)
    return np.exp(1.2 * rng.normal(size=N))


@pytest.fixture(scope="module")
def strata() -> np.ndarray:
    return np.repeat(["a", "b", "c", "d"], [5, 10, 20, 25])


def test_uniform_fixed_size_and_probability() -> None:
    design = uniform(N, 12, seed=3)
    assert design.n_selected == 12
    assert np.allclose(design.pi, 0.2)
    assert inclusion_mismatch(lambda s: uniform(N, 12, seed=s).selected, design.pi) is None


def test_bernoulli_probability() -> None:
    pi = bernoulli(N, 0.3, seed=0).pi
    assert inclusion_mismatch(lambda s: bernoulli(N, 0.3, seed=s).selected, pi) is None


@pytest.mark.parametrize("allocation", ["proportional", "neyman"])
def test_stratified_probability(strata: np.ndarray, sd: np.ndarray, allocation: str) -> None:
    kwargs = {"allocation": allocation, "sd": sd if allocation == "neyman" else None}
    design = stratified(strata, 15, seed=0, **kwargs)
    assert design.n_selected == 15
    assert np.all(design.pi > 0), "every stratum keeps a positive probability"

    def draw(s: int) -> np.ndarray:
        return stratified(strata, 15, seed=s, **kwargs).selected

    assert inclusion_mismatch(draw, design.pi) is None


def test_neyman_follows_spread(strata: np.ndarray) -> None:
    spread = np.where(strata == "a", 10.0, 1.0)
    design = stratified(strata, 20, allocation="neyman", sd=spread)
    # stratum a: N_h S_h = 50 against 10 + 20 + 25 = 55 for the rest
    assert design.params["strata"]["a"] == 5
    assert design.params["strata"]["a"] > 20 * 5 / N


def test_poisson_probability(sd: np.ndarray) -> None:
    pi = np.clip(sd / sd.sum() * 15, 0, 1)
    pi[0], pi[1] = 0.0, 1.0
    assert inclusion_mismatch(lambda s: poisson(pi, seed=s).selected, pi) is None


def test_adaptive_budget_cap_and_share(sd: np.ndarray) -> None:
    pi = adaptive_probabilities(sd, 20, uniform_share=0.2)
    assert pi.sum() == pytest.approx(20, abs=1e-9)
    assert pi.max() <= 1.0 and np.any(pi == 1.0), "the largest sd is capped at one"
    assert pi.min() >= 0.2 * 20 / N - 1e-12, "the uniform share floors every probability"
    uncapped = pi < 1
    score = 0.8 * sd / sd.mean() + 0.2
    ratio = pi[uncapped] / score[uncapped]
    assert np.allclose(ratio, ratio[0]), "uncapped items stay proportional to their score"


def test_cap_probabilities_spends_the_budget_exactly() -> None:
    score = np.array([100.0, 50.0, 1.0, 1.0, 1.0, 1.0])
    pi = cap_probabilities(score, 3.0)
    assert pi[:2].tolist() == [1.0, 1.0]
    assert pi.sum() == pytest.approx(3.0)
    weight = np.array([0.0, 1.0, 1.0, 1.0, 0.5, 0.5])
    pi = cap_probabilities(score, 3.0, weight=weight)
    assert np.sum(weight * pi) == pytest.approx(3.0)
    with pytest.raises(ValidationError, match="lower the budget"):
        cap_probabilities(score, 7.0)


def test_second_wave_after_uniform_pilot_is_exact() -> None:
    """SRS of 12 then SRS of 12 among the rest: union probability 24/60."""

    def draw(s: int) -> np.ndarray:
        pilot = uniform(N, 12, seed=2 * s)
        wave = uniform(N, 12, eligible=~pilot.selected, seed=2 * s + 1)
        return pilot.selected | wave.selected

    pilot = uniform(N, 12)
    wave = uniform(N, 12, eligible=~pilot.selected)
    combined = combine_waves([pilot, wave])
    assert np.allclose(combined, 24 / N)
    assert inclusion_mismatch(draw, combined) is None
    # The check can fail: recording wave 2 as 12/N instead of 12/(N - 12) is caught.
    assert inclusion_mismatch(draw, combine_waves([pilot.pi, np.full(N, 12 / N)])) is not None
    # a probability that is none (NaN, past 1) is refused, not carried into the union
    for bad in (np.nan, 1.5):
        p = np.full(N, 0.1)
        p[7] = bad
        with pytest.raises(ValidationError, match=f"wave 2 gives item 7 the probability {bad}"):
            combine_waves([pilot, p])


def test_adaptive_second_wave_union_probability(sd: np.ndarray) -> None:
    """Bernoulli pilot at 0.2, then an adaptive wave of 15 expected new items."""
    prior = np.full(N, 0.2)
    p2 = adaptive_probabilities(sd, 15, prior=prior)
    assert np.sum((1 - prior) * p2) == pytest.approx(15)

    def draw(s: int) -> np.ndarray:
        pilot = bernoulli(N, 0.2, seed=2 * s)
        wave = adaptive(sd, 15, prior=prior, eligible=~pilot.selected, seed=2 * s + 1)
        assert np.array_equal(wave.pi, p2), "the wave's rule does not depend on the pilot"
        return pilot.selected | wave.selected

    combined = combine_waves([prior, p2])
    assert inclusion_mismatch(draw, combined) is None
    # Ignoring the pilot (using the wave-2 probability alone) is caught.
    assert inclusion_mismatch(draw, p2) is not None


def test_stratified_waves_combine_exactly(strata: np.ndarray) -> None:
    def draw(s: int) -> np.ndarray:
        first = stratified(strata, 12, seed=2 * s)
        second = stratified(strata, 12, eligible=~first.selected, seed=2 * s + 1)
        return first.selected | second.selected

    first = stratified(strata, 12)
    second = stratified(strata, 12, eligible=~first.selected)
    assert inclusion_mismatch(draw, combine_waves([first, second])) is None


def test_designs_are_deterministic_per_seed(strata: np.ndarray, sd: np.ndarray) -> None:
    for make in (
        lambda s: uniform(N, 10, seed=s),
        lambda s: bernoulli(N, 0.2, seed=s),
        lambda s: stratified(strata, 10, seed=s),
        lambda s: adaptive(sd, 10, seed=s),
    ):
        assert np.array_equal(make(5).selected, make(5).selected)
        assert not np.array_equal(make(5).selected, make(6).selected)


def test_allocate_respects_sizes_and_minimum() -> None:
    alloc = allocate(np.array([1.0, 0.0, 5.0, 100.0]), np.array([10, 5, 0, 3]), 10)
    assert alloc.tolist() == [6, 1, 0, 3]
    assert allocate(np.array([1.0, 1.0]), np.array([3, 3]), 6).tolist() == [3, 3]


def test_bin_feature_quantiles() -> None:
    codes = bin_feature(np.arange(100.0), 4)
    assert np.bincount(codes).tolist() == [25, 25, 25, 25]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: uniform(10, 11), "only 10 items"),
        (lambda: bernoulli(10, 1.5), r"\[0, 1\]"),
        (lambda: poisson(np.array([0.2, np.nan])), "position 1"),
        (lambda: stratified(np.zeros(10), 3, allocation="neyman"), "exactly one of"),
        (lambda: stratified(np.zeros(10), 3, allocation="optimal"), "unknown allocation"),
        (lambda: adaptive_probabilities(np.array([1.0, -1.0]), 1), "position 1"),
    ],
)
def test_bad_design_input_is_refused(call: Callable[[], object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        call()


def test_a_wave_after_a_pilot_tops_up_to_the_target(sd: np.ndarray) -> None:
    """The union of pilot and wave is max(pilot, c * score) (capped at one): the pilot's
    probability counts toward the target, and the wave spends exactly its budget."""
    from bacon_bayes.sampling import top_up_probabilities

    prior = np.full(N, 0.2)
    score = 0.2 + 0.8 * sd / sd.mean()
    p2 = top_up_probabilities(score, 8, prior)
    assert np.sum((1 - prior) * p2) == pytest.approx(8, rel=1e-9)
    union = combine_waves([prior, p2])
    raised = p2 > 0
    assert raised.any() and (~raised).any()
    ratio = union[raised & (union < 1)] / score[raised & (union < 1)]
    assert np.allclose(ratio, ratio[0])  # proportional to the score where topped up
    assert np.all(union[~raised] == prior[~raised])  # the pilot already exceeds the target
    assert np.all(score[~raised] <= score[raised].min() + 1e-12)
    # without a pilot it is the capped rule
    assert np.allclose(top_up_probabilities(score, 25, np.zeros(N)), cap_probabilities(score, 25))


def test_sd_wave_choice_needs_labels_per_coefficient_and_a_gain():
    from bacon_bayes.sampling import MIN_LABELS_PER_COEFFICIENT, sd_wave_choice

    enough = int(MIN_LABELS_PER_COEFFICIENT * 10)  # 9 features + the intercept
    assert sd_wave_choice(0.5, enough, 9) == "adaptive"
    assert sd_wave_choice(0.5, enough - 1, 9) == "uniform (small pilot)"
    assert sd_wave_choice(0.95, enough, 9) == "uniform"
    assert sd_wave_choice(float("nan"), enough, 9) == "uniform"
    assert sd_wave_choice(0.99, enough, 9, max_ratio=float("inf")) == "adaptive"


def test_a_later_wave_with_the_first_wave_s_seed_draws_what_its_pi_says() -> None:
    """A second wave drawn as the adaptive docstring shows, with the default seed of the
    first, reused its uniforms: the items left eligible (uniform above 0.3) were almost
    never under the new probabilities (2 items drawn of 100 expected). A wave with items not
    eligible now draws from a stream keyed by which items are."""
    from bacon_bayes import sampling as S

    sd = np.linspace(0.5, 1.5, 1000)
    counts = []
    for seed in range(40):
        w1 = S.bernoulli(1000, 0.3, seed=seed)
        w2 = S.adaptive(sd, 100, prior=w1.pi, eligible=~w1.selected, seed=seed)
        counts.append(w2.n_selected - 100)
    assert abs(np.mean(counts)) < 3 * 10 / np.sqrt(40)  # Poisson sd about 10 a wave
    # a first wave (every item eligible) draws as before: the seed's own stream
    p = np.full(1000, 0.3)
    assert (S.poisson(p, seed=3).selected == (np.random.default_rng(3).random(1000) < p)).all()


def test_design_arguments_are_refused_naming_the_argument_and_the_fix():
    """From a notebook: a rate or share given as text raised a raw TypeError, a 2-D sd was
    called a wrong "prior", a prior above one gave "at most -100 are available", a
    negative size was told to "lower the budget", and strata with a missing cell raised
    numpy's TypeError."""
    sd = np.linspace(0.2, 1.0, 100)
    with pytest.raises(ValidationError, match=r"rate='0\.1' must be one number in \[0, 1\]"):
        bernoulli(100, "0.1")
    with pytest.raises(ValidationError, match=r"uniform_share='0\.2' must be one number"):
        adaptive(sd, 10, uniform_share="0.2")
    with pytest.raises(
        ValidationError, match=r"sd must be 1-D \(one per item\); got shape \(100, 1\)"
    ):
        adaptive(sd.reshape(-1, 1), 10)
    with pytest.raises(ValidationError, match=r"prior probability of item at position 0 is 2\.0"):
        adaptive(sd, 10, prior=np.full(100, 2.0))
    with pytest.raises(
        ValidationError, match=r"prior must give one probability per item: 5 for 100"
    ):
        adaptive(sd, 10, prior=np.zeros(5))
    with pytest.raises(ValidationError, match=r"cannot draw -1 items: the number of items"):
        uniform(100, -1)
    strata = np.array(["a", "b"] * 50, dtype=object)
    strata[3] = None
    with pytest.raises(ValidationError, match=r"stratum of item at position 3 is missing"):
        stratified(strata, 10)
    strata[3] = 7
    with pytest.raises(ValidationError, match=r"strata mix kinds of names.*astype\(str\)"):
        stratified(strata, 10)


def test_a_design_prints_as_one_line() -> None:
    """Helper W6's walk: a Design printed its arrays (a notebook cell of thousands of
    numbers); it prints what it drew and how."""
    wave = uniform(N, 12, seed=3)
    text = repr(wave)
    assert text.startswith(f"Design('uniform': 12 of {N} items drawn, probabilities ")
    assert "seed=3" in text and "\n" not in text and len(text) < 200
