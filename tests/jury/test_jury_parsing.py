"""Reply parsing as the paper's scoring protocol specifies."""

from __future__ import annotations

import json
import math

import pytest

from bacon_bayes.judges import load_template, mqm_score, parse_reply
from bacon_bayes.judges.templates import Template

ESSAY = load_template("essay")
WEB = load_template("webdesign")
NUMBER = Template(
    name="t", version="1", system="", user="{text}", parser="number", levels=(1, 2, 3, 4, 5)
)


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("4", 4.0),
        (" 5\n", 5.0),
        ("Score: 3 out of 6", 3.0),
        ("3/6", 3.0),
        ("I give it 4.", 4.0),
        ("4\n\nFinal score: 4", 4.0),
    ],
)
def test_essay_takes_the_one_level_in_the_reply(reply, score):
    (p,) = parse_reply(reply, ESSAY)
    assert p.score == score and p.reason is None
    assert reply[p.span[0] : p.span[1]] == str(int(score))


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("", "no number"),
        ("excellent essay", "no number"),
        ("0 7 8 9", "several numbers"),
        # tester C finding 2: a digit inside a longer number, a decimal, a score out of
        # another scale or a sentence with several numbers was scored (10 -> 1, 7/10 -> 1,
        # 4.5 -> 4, "On a 1-6 scale I give it 3." -> 1)
        ("I'd say 10", "number not one of the levels 1, 2, 3, 4, 5, 6; the reply has 10"),
        ("7/10", "a score on another scale than 1..6; the reply has 7/10"),
        ("4.5", "the reply has 4.5"),
        ("On a 1-6 scale I give it 3.", "unclear which is the score; the reply has 1, 6, 3"),
        ("0 or 7 or 2", "several numbers"),
    ],
)
def test_essay_reply_without_one_clear_level_is_na_with_reason(reply, why):
    (p,) = parse_reply(reply, ESSAY)
    assert math.isnan(p.score)
    assert why in p.reason


@pytest.mark.parametrize(
    ("reply", "score", "why"),
    [
        ("3", 3.0, None),
        ("Score: 4 out of 5", 4.0, None),
        ("10", None, "number outside the scale 1..5; the reply has 10"),
        ("4.5", None, "number not one of the levels 1, 2, 3, 4, 5; the reply has 4.5"),
        ("On a 1-6 scale I give it 3.", None, "several numbers"),
    ],
)
def test_number_parser_reads_one_level_or_says_why(reply, score, why):
    (p,) = parse_reply(reply, NUMBER)
    if score is None:
        assert math.isnan(p.score) and why in p.reason
    else:
        assert p.score == score and p.reason is None


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
