"""The jury against a real chat-completions server on 127.0.0.1 with scripted behaviour."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.errors import ValidationError
from bacon_bayes.judges import COLUMNS, CallCache, RetryPolicy, load_template, plan_jury, run_jury
from bacon_bayes.testing.fake_server import (
    Drop,
    Hang,
    Raw,
    Reply,
    Status,
    numeric_reply,
    stable_level,
    token_logprobs,
)
from tests.jury.conftest import FAST_RETRY, essays, judge

ESSAY = load_template("essay")


def test_numeric_scores_with_logprobs(serve):
    srv = serve()
    items = essays(6)
    res = run_jury(items, [judge(srv, "a"), judge(srv, "b")], ESSAY, runs=2, retry=FAST_RETRY)
    t = res.table
    assert list(t.columns) == list(COLUMNS)
    assert len(t) == 6 * 2 * 2 and t["score"].notna().all() and t["reason"].isna().all()
    assert list(t[["item", "judge", "run"]].itertuples(index=False, name=None))[:4] == [
        ("e000", "a", 1),
        ("e000", "a", 2),
        ("e000", "b", 1),
        ("e000", "b", 2),
    ]
    # the fake server scores by a hash of the user text: check one item end to end
    user = ESSAY.render(items.iloc[3].to_dict())[1]["content"]
    expect = stable_level(user, (1, 2, 3, 4, 5, 6))
    assert (t.loc[t["item"] == "e003", "score"] == expect).all()
    # its logprobs: 0.6 on the level, 0.1 on four others (top-5 of five alternatives)
    p = np.array([0.6, 0.1, 0.1, 0.1, 0.1])
    assert t["entropy"].to_numpy() == pytest.approx(np.full(len(t), -(p * np.log(p)).sum()))
    assert t["perplexity"].to_numpy() == pytest.approx(np.full(len(t), 1 / 0.6))
    assert t["level_entropy"].to_numpy() == pytest.approx(t["entropy"].to_numpy())
    probs = json.loads(t["level_probs"].iloc[0])
    assert sum(probs.values()) == pytest.approx(1.0)
    assert t["expected_score"].iloc[0] == pytest.approx(sum(float(k) * v for k, v in probs.items()))
    assert (t["latency"] > 0).all() and (t["raw"] == t["score"].astype(int).astype(str)).all()
    assert res.summary.made == 24 and res.summary.requests == 24 and res.summary.cached == 0
    assert res.summary.completion_tokens == 24


def test_sampling_params_are_sent_and_no_logprobs_when_off(serve):
    srv = serve()
    j = judge(srv, temperature=0.7, max_tokens=3, top_logprobs=0, extra={"seed": 11})
    res = run_jury(essays(2), [j], ESSAY, retry=FAST_RETRY)
    body = srv.requests[0].body
    assert body["temperature"] == 0.7 and body["max_tokens"] == 3 and body["seed"] == 11
    assert "logprobs" not in body
    assert res.table["entropy"].isna().all() and res.table["expected_score"].isna().all()
    assert res.table["score"].notna().all()


def test_mqm_json_replies(serve):
    reply = {
        "errors": [
            {"category": "Accuracy/Mistranslation", "severity": "Major", "span": "x"},
            {"category": "Fluency/Punctuation", "severity": "Minor", "span": ","},
        ]
    }
    srv = serve(lambda req: Reply(json.dumps(reply)))
    items = pd.DataFrame({"item": [1, 2], "source": ["Hallo", "Welt"], "hypothesis": ["Hi", "W"]})
    t = run_jury(items, [judge(srv)], load_template("mqm"), retry=FAST_RETRY).table
    assert t["score"].tolist() == pytest.approx([5.1, 5.1])
    assert t["item"].dtype == np.int64
    assert "[Source]\nHallo\n\n[Hypothesis]\nHi" in srv.requests[0].user_text


def test_webdesign_gives_one_row_per_dimension(serve, tmp_path):
    img = tmp_path / "s.png"
    img.write_bytes(b"png")
    srv = serve(lambda req: Reply("AE: 1\nTRU: 2\nTYP: 3\nEXMPL: 0\nAVG: -1\nUS: 9"))
    items = pd.DataFrame({"item": ["w1"], "domain": ["fashion"], "image": [str(img)]})
    t = run_jury(items, [judge(srv, "vlm")], load_template("webdesign"), retry=FAST_RETRY).table
    assert t["judge"].tolist() == [f"vlm:{d}" for d in ("AE", "TRU", "TYP", "EXMPL", "AVG", "US")]
    assert t["score"].tolist()[:5] == [1, 2, 3, 0, -1] and math.isnan(t["score"].iloc[5])
    assert "US: 9" in t["reason"].iloc[5] and (t["raw"] == t["raw"].iloc[0]).all()
    assert srv.requests[0].messages[1]["content"][1]["image_url"]["url"].startswith("data:image")


def test_429_waits_at_least_retry_after(serve):
    srv = serve(
        lambda req: (
            Status(429, headers={"Retry-After": "0.4"}) if req.attempt == 0 else numeric_reply("x")
        )
    )
    res = run_jury(essays(1), [judge(srv)], ESSAY, retry=FAST_RETRY)
    assert res.table["score"].notna().all()
    first, second = srv.requests
    assert second.time - first.time >= 0.4
    assert res.summary.retried == {"http_429": 1} and res.summary.requests == 2


def test_500s_are_retried_until_success(serve):
    srv = serve(lambda req: Status(500) if req.attempt < 2 else numeric_reply("x"))
    res = run_jury(essays(3), [judge(srv)], ESSAY, retry=FAST_RETRY)
    assert res.table["score"].notna().all()
    assert srv.count() == 9 and res.summary.retried == {"http_500": 6}


def test_other_4xx_is_not_retried_and_gives_na_with_reason(serve):
    srv = serve(lambda req: Status(400, '{"error": {"message": "bad model"}}'))
    res = run_jury(essays(2), [judge(srv)], ESSAY, retry=FAST_RETRY)
    assert srv.count() == 2
    assert res.table["score"].isna().all()
    assert res.table["reason"].str.contains("http_400.*bad model.*not retryable").all()
    assert res.summary.failed == {"http_400": 2}


def test_persistent_5xx_gives_na_after_max_attempts_and_is_not_cached(serve, tmp_path):
    srv = serve(lambda req: Status(503))
    cache = tmp_path / "c.sqlite"
    res = run_jury(essays(1), [judge(srv)], ESSAY, retry=FAST_RETRY, cache=cache)
    assert srv.count() == FAST_RETRY.max_attempts
    assert "after 4 attempts" in res.table["reason"].iloc[0]
    assert len(CallCache(cache)) == 0  # a rerun tries again


def test_timeouts_are_retried(serve):
    srv = serve(lambda req: Hang(5.0) if req.attempt == 0 else numeric_reply("x"))
    res = run_jury(essays(2), [judge(srv)], ESSAY, retry=FAST_RETRY, timeout=0.6)
    assert res.table["score"].notna().all()
    assert res.summary.retried == {"timeout": 2}


def test_dropped_connections_are_retried(serve):
    srv = serve(lambda req: Drop() if req.attempt < 2 else numeric_reply("x"))
    res = run_jury(essays(2), [judge(srv)], ESSAY, retry=FAST_RETRY)
    assert res.table["score"].notna().all()
    assert res.summary.retried == {"connection": 4}


def test_malformed_bodies_are_retried_then_na(serve):
    bodies = {0: Raw(b"<html>oops"), 1: Raw(b'{"choices": []}')}
    srv = serve(lambda req: bodies.get(req.attempt, numeric_reply("x")))
    res = run_jury(essays(1), [judge(srv)], ESSAY, retry=FAST_RETRY)
    assert res.table["score"].notna().all() and res.summary.retried == {"malformed_response": 2}
    srv2 = serve(lambda req: Raw(b"not json"))
    res2 = run_jury(essays(1), [judge(srv2)], ESSAY, retry=FAST_RETRY)
    assert "malformed_response" in res2.table["reason"].iloc[0]


def test_unparseable_reply_is_kept_verbatim_and_cached(serve, tmp_path):
    srv = serve(lambda req: Reply("This essay is rather good!", token_logprobs([("x", {"x": 1})])))
    cache = tmp_path / "c.sqlite"
    res = run_jury(essays(2), [judge(srv)], ESSAY, retry=FAST_RETRY, cache=cache)
    t = res.table
    assert t["score"].isna().all() and (t["raw"] == "This essay is rather good!").all()
    assert t["reason"].str.startswith("no number").all()
    assert res.summary.unparsed and res.summary.made == 2
    again = run_jury(essays(2), [judge(srv)], ESSAY, retry=FAST_RETRY, cache=cache)
    assert srv.count() == 2 and again.summary.cached == 2
    pd.testing.assert_frame_equal(again.table, t)


def test_empty_reply_reason_names_finish_reason(serve):
    srv = serve(lambda req: Reply("", finish_reason="content_filter"))
    t = run_jury(essays(1), [judge(srv)], ESSAY, retry=FAST_RETRY).table
    assert t["reason"].iloc[0] == "empty reply (finish_reason=content_filter)"


def test_cache_resume_makes_no_new_calls_and_runs_are_distinct(serve, tmp_path):
    srv = serve()
    cache = tmp_path / "c.sqlite"
    items = essays(5)
    first = run_jury(items, [judge(srv)], ESSAY, runs=3, cache=cache, retry=FAST_RETRY)
    assert srv.count() == 15 and len(CallCache(cache)) == 15
    second = run_jury(items, [judge(srv)], ESSAY, runs=3, cache=cache, retry=FAST_RETRY)
    assert srv.count() == 15 and second.summary.cached == 15 and second.summary.made == 0
    pd.testing.assert_frame_equal(first.table, second.table)
    # a new run index, a new template version or new sampling parameters are new calls
    run_jury(items, [judge(srv)], ESSAY, runs=4, cache=cache, retry=FAST_RETRY)
    assert srv.count() == 20
    run_jury(items, [judge(srv, temperature=0.5)], ESSAY, cache=cache, retry=FAST_RETRY)
    assert srv.count() == 25
    bumped = dataclasses.replace(ESSAY, version="paper-2")
    run_jury(items, [judge(srv)], bumped, cache=cache, retry=FAST_RETRY)
    assert srv.count() == 30


def test_concurrency_is_bounded(serve):
    srv = serve(lambda req: Reply("3", delay=0.02))
    run_jury(essays(40), [judge(srv)], ESSAY, concurrency=5, retry=FAST_RETRY)
    assert srv.max_in_flight == 5


def test_rate_limit_spaces_requests_per_judge(serve):
    srv = serve()
    run_jury(essays(6), [judge(srv, "a", rate=10.0)], ESSAY, concurrency=6, retry=FAST_RETRY)
    times = sorted(r.time for r in srv.requests)
    # 6 requests at <= 10/s are sent over at least 5 intervals of 100 ms; allow 20% for
    # the first request's connection set-up delaying its arrival
    assert times[-1] - times[0] >= 0.8 * 5 / 10.0


def test_api_key_is_sent_as_bearer_and_missing_key_is_a_clear_error(serve, monkeypatch):
    srv = serve()
    monkeypatch.setenv("JURY_TEST_KEY", "sk-test-123")
    run_jury(essays(1), [judge(srv, api_key_env="JURY_TEST_KEY")], ESSAY, retry=FAST_RETRY)
    assert srv.requests[0].headers["authorization"] == "Bearer sk-test-123"
    monkeypatch.delenv("JURY_TEST_KEY")
    with pytest.raises(ValidationError, match="JURY_TEST_KEY is not set"):
        run_jury(essays(1), [judge(srv, "b", api_key_env="JURY_TEST_KEY")], ESSAY)


@pytest.mark.parametrize(
    ("items", "match"),
    [
        (pd.DataFrame({"id": [1]}), "no id column 'item'"),
        (pd.DataFrame({"item": [1, 1], "prompt_name": "p", "full_text": "t"}), "duplicate id 1"),
        (
            pd.DataFrame({"item": [1.0, None], "prompt_name": "p", "full_text": "t"}),
            "empty in row 1",
        ),
    ],
)
def test_bad_items_are_rejected(serve, items, match):
    with pytest.raises(ValidationError, match=match):
        run_jury(items, [judge(serve())], ESSAY)


def test_retry_policy_backoff_grows_within_bounds_and_honours_retry_after():
    import random

    policy = RetryPolicy(base_delay=1.0, max_delay=8.0)
    rng = random.Random(0)
    for attempt, cap in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (6, 8.0)]:
        waits = [policy.delay(attempt, rng=rng) for _ in range(200)]
        assert cap / 2 <= min(waits) and max(waits) <= cap
        assert max(waits) - min(waits) > cap / 4  # jittered
    assert policy.delay(1, retry_after=30.0, rng=rng) >= 30.0
    assert RetryPolicy(max_retry_after=5.0).delay(1, retry_after=3600.0, rng=rng) <= 5.0


def test_retry_after_header_forms():
    from email.utils import formatdate

    from bacon_bayes.judges.retry import parse_retry_after

    assert parse_retry_after("2") == 2.0 and parse_retry_after("0.5") == 0.5
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    now = 1_700_000_000.0
    assert parse_retry_after(formatdate(now + 10, usegmt=True), now=now) == pytest.approx(10, abs=1)


def test_env_proxy_is_used_except_for_loopback(monkeypatch):
    from bacon_bayes.judges.client import env_proxy

    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("NO_PROXY", "internal.invalid")
    env_proxy.cache_clear()
    try:
        assert env_proxy("https://api.example.invalid/v1") == "http://proxy.invalid:3128"
        assert env_proxy("https://internal.invalid/v1") is None
        assert env_proxy("http://127.0.0.1:8000/v1") is None
        assert env_proxy("http://localhost:8000/v1") is None
    finally:
        env_proxy.cache_clear()


def test_runs_inside_a_running_event_loop(serve):
    import asyncio

    srv = serve()

    async def notebook_cell():
        return run_jury(essays(3), [judge(srv)], ESSAY, retry=FAST_RETRY)

    assert asyncio.run(notebook_cell()).table["score"].notna().all()


def _answers(level: int):
    """A script that gives every essay the same level (tells two servers apart)."""
    return lambda request: numeric_reply(request.user_text, levels=(level,))


def test_same_model_on_two_servers_gets_each_servers_answers(serve, tmp_path):
    low, high = serve(_answers(2)), serve(_answers(5))
    cache = tmp_path / "c.sqlite"
    items = essays(4)
    panel = [judge(low, name="local"), judge(high, name="hosted")]  # one model name, two servers
    for _ in range(2):  # the second run answers from the cache, still per server
        out = run_jury(items, panel, ESSAY, cache=cache, retry=FAST_RETRY).table
        scores = out.groupby("judge")["score"].agg(["min", "max"])
        assert scores.loc["local"].tolist() == [2, 2]
        assert scores.loc["hosted"].tolist() == [5, 5]
    assert low.count() == 4 and high.count() == 4


def test_endpoint_is_normalised_in_the_key():
    from bacon_bayes.judges.cache import call_key, normalize_endpoint

    assert normalize_endpoint("HTTPS://API.Example.com:443/v1/") == "https://api.example.com/v1"
    assert normalize_endpoint("http://localhost:8000/v1") == "http://localhost:8000/v1"
    args = ("m", [{"role": "user", "content": "x"}], {"temperature": 0.0}, "v1")
    assert call_key(*args, "https://api.example.com/v1") == call_key(
        *args, "https://API.example.com:443/v1/"
    )
    assert call_key(*args, "http://a:8000/v1") != call_key(*args, "http://b:8000/v1")


def _write_old_cache(path, calls, answers):
    """A cache as the version before endpoint-keyed entries wrote it."""
    import sqlite3

    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE calls (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
        "template_version TEXT NOT NULL, body TEXT NOT NULL, latency REAL NOT NULL, "
        "created REAL NOT NULL)"
    )
    for call, body in zip(calls, answers, strict=True):
        db.execute(
            "INSERT INTO calls VALUES (?, ?, ?, ?, ?, ?)",
            (call.legacy_key, call.judge.model, ESSAY.version, json.dumps(body), 0.1, 0.0),
        )
    db.commit()
    db.close()


def _old_body(level: int) -> dict:
    return {"choices": [{"message": {"content": str(level)}, "finish_reason": "stop"}]}


def test_cache_of_the_old_format_is_reused_without_calls_and_claimed(serve, tmp_path):
    from bacon_bayes.judges.runner import plan_calls

    srv, other = serve(_answers(6)), serve(_answers(6))
    items = essays(3)
    cache = tmp_path / "old.sqlite"
    _write_old_cache(cache, plan_calls(items, [judge(srv)], ESSAY), [_old_body(3)] * 3)
    again = run_jury(items, [judge(srv)], ESSAY, cache=cache, retry=FAST_RETRY)
    assert srv.count() == 0, "an old-format cache must answer without new calls"
    assert again.summary.cached == 3 and again.table["score"].tolist() == [3, 3, 3]
    assert plan_jury(items, [judge(srv)], ESSAY, cache=cache).cached == 3
    # srv's endpoint has claimed the old entries: the same model elsewhere is asked anew
    assert plan_jury(items, [judge(other)], ESSAY, cache=cache).cached == 0
    moved = run_jury(items, [judge(other)], ESSAY, cache=cache, retry=FAST_RETRY)
    assert other.count() == 3 and moved.table["score"].tolist() == [6, 6, 6]


def test_old_entries_are_not_used_when_a_run_asks_one_model_at_two_endpoints(serve, tmp_path):
    from bacon_bayes.judges.runner import plan_calls

    a, b = serve(_answers(2)), serve(_answers(4))
    items = essays(2)
    cache = tmp_path / "old.sqlite"
    calls = plan_calls(items, [judge(a)], ESSAY)
    _write_old_cache(cache, calls, [_old_body(1)] * len(calls))
    out = run_jury(
        items, [judge(a, name="x"), judge(b, name="y")], ESSAY, cache=cache, retry=FAST_RETRY
    )
    assert a.count() == 2 and b.count() == 2 and out.summary.cached == 0
