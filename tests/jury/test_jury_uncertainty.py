"""Token entropy, perplexity and the judge's distribution over score levels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bacon_bayes.judges.uncertainty import level_distribution, token_uncertainty
from bacon_bayes.testing.fake_server import token_logprobs


def test_entropy_renormalises_top_k_and_perplexity_is_exp_mean_nll():
    # token 1: top-2 = (0.3, 0.3) -> renormalised (0.5, 0.5) -> ln 2
    # token 2: top-1 certain -> 0
    content = token_logprobs([("a", {"a": 0.3, "b": 0.3}), ("c", {"c": 0.9})])
    entropy, perplexity = token_uncertainty(content)
    assert entropy == pytest.approx(math.log(2) / 2)
    assert perplexity == pytest.approx(math.exp(-(math.log(0.3) + math.log(0.9)) / 2))


def test_no_logprobs_gives_nan():
    assert all(math.isnan(v) for v in token_uncertainty(None))
    assert all(math.isnan(v) for v in token_uncertainty([]))


def test_level_distribution_merges_spellings_and_renormalises():
    alts = {"4": 0.5, " 4": 0.1, "5": 0.2, "x": 0.1}
    content = token_logprobs([("4", alts)])
    dist = level_distribution(content, (0, 1), (1, 2, 3, 4, 5, 6))
    assert dist.mass == pytest.approx(0.8)
    assert dist.probs == pytest.approx({4.0: 0.75, 5.0: 0.25})
    assert dist.expected == pytest.approx(4.25)
    p = np.array([0.75, 0.25])
    assert dist.entropy == pytest.approx(-(p * np.log(p)).sum())


def test_level_distribution_finds_the_score_token_inside_a_longer_reply():
    content = token_logprobs(
        [("Score", {"Score": 1.0}), (":", {":": 1.0}), (" 3", {" 3": 0.5, " 2": 0.5})]
    )
    dist = level_distribution(content, (7, 8), (1, 2, 3))
    assert dist.expected == pytest.approx(2.5)


def test_multi_token_score_has_no_level_distribution():
    content = token_logprobs([("-", {"-": 1.0}), ("3", {"3": 0.7, "2": 0.3})])
    assert level_distribution(content, (0, 2), (-3, -2, -1, 0, 1, 2, 3)) is None


def test_each_webdesign_dimension_gets_its_own_level_distribution():
    from bacon_bayes.judges import load_template, parse_reply

    reply = "AE: 2\nTRU: -1"
    content = token_logprobs(
        [
            ("AE", {"AE": 1.0}),
            (":", {":": 1.0}),
            (" 2", {" 2": 0.5, " 3": 0.5}),
            ("\n", {"\n": 1.0}),
            ("TRU", {"TRU": 1.0}),
            (":", {":": 1.0}),
            (" -", {" -": 1.0}),
            ("1", {"1": 0.9, "2": 0.1}),
        ]
    )
    assert "".join(t["token"] for t in content) == reply
    parsed = {p.dimension: p for p in parse_reply(reply, load_template("webdesign"))}
    levels = (-3, -2, -1, 0, 1, 2, 3)
    ae = level_distribution(content, parsed["AE"].span, levels)
    assert ae.expected == pytest.approx(2.5)
    assert level_distribution(content, parsed["TRU"].span, levels) is None  # "-" + "1"
