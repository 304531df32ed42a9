"""Reply parsing as the paper's scoring protocol specifies."""

from __future__ import annotations

import json
import math

import pytest

from bacon_bayes.judges import load_template, mqm_score, parse_reply

ESSAY = load_template("essay")
WEB = load_template("webdesign")


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("4", 4.0),
        (" 5\n", 5.0),
        ("Score: 3 out of 6", 3.0),
        ("I'd say 10", 1.0),
        ("0 or 7 or 2", 2.0),
    ],
)
def test_essay_takes_first_digit_in_scale(reply, score):
    (p,) = parse_reply(reply, ESSAY)
    assert p.score == score and p.reason is None
    assert reply[p.span[0] : p.span[1]] == str(int(score))


@pytest.mark.parametrize("reply", ["", "excellent essay", "0 7 8 9"])
def test_essay_without_digit_is_na_with_reason(reply):
    (p,) = parse_reply(reply, ESSAY)
    assert math.isnan(p.score)
    assert "no digit" in p.reason


def _mqm(*errors):
    return json.dumps(
        {"errors": [dict(zip(("category", "severity", "span"), e, strict=True)) for e in errors]}
    )


def test_mqm_standard_weights():
    reply = _mqm(
        ("Accuracy/Mistranslation", "Major", "a"),
        ("Fluency/Grammar", "Minor", "b"),
        ("Fluency/Punctuation", "Minor", "c"),
        ("Style", "Neutral", "d"),
        ("Source error", "Major", "e"),
    )
    assert mqm_score(reply).score == pytest.approx(5 + 1 + 0.1 + 0)


def test_mqm_non_translation_and_empty_and_fenced():
    assert mqm_score(_mqm(("Non-translation", "Major", "x"))).score == 25.0
    assert mqm_score('{"errors": []}').score == 0.0
    fenced = "```json\n" + _mqm(("Terminology", "minor", "t")) + "\n```"
    assert mqm_score(fenced).score == 1.0


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("no errors found", "no JSON object"),
        ('{"issues": []}', "no 'errors' array"),
        (_mqm(("Accuracy", "Critical", "x")), "severity 'Critical'"),
        ('{"errors": ["oops"]}', "not an object"),
    ],
)
def test_mqm_unreadable_is_na_with_reason(reply, why):
    p = parse_reply(reply, load_template("mqm"))[0]
    assert math.isnan(p.score) and why in p.reason


def test_webdesign_six_lines():
    reply = "AE: 2\nTRU: -1\nTYP: 0\n**EXMPL**: 3\nAVG: -3\nUS: 1\n"
    got = {p.dimension: p.score for p in parse_reply(reply, WEB)}
    assert got == {"AE": 2, "TRU": -1, "TYP": 0, "EXMPL": 3, "AVG": -3, "US": 1}


def test_webdesign_missing_or_out_of_range_line_is_na_for_that_dimension():
    parsed = {p.dimension: p for p in parse_reply("AE: 2\nTRU: 5\nTYP: 1\nEXMPL: 0\nUS: 1", WEB)}
    assert parsed["AE"].score == 2
    assert math.isnan(parsed["TRU"].score) and "not one of" in parsed["TRU"].reason
    assert math.isnan(parsed["AVG"].score) and "no 'AVG: <score>' line" in parsed["AVG"].reason
