"""The jury stops a judge whose key is refused, says long Retry-After waits, refuses a
timeout of 0 or less, refuses a run that could not send (no aiohttp, no API key) before
writing any file, and reads MQM replies that are ambiguous or not JSON by their cause."""

from __future__ import annotations

import logging
import math
import os
import sys

import pytest

from bacon_bayes.cli import main
from bacon_bayes.errors import ValidationError
from bacon_bayes.judges import RetryPolicy, load_template, run_jury, runner
from bacon_bayes.judges.client import JudgeSpec, parse_judge
from bacon_bayes.judges.parsing import mqm_score
from bacon_bayes.testing.fake_server import Status, numeric_reply
from tests.jury.conftest import FAST_RETRY, essays, judge

ESSAY = load_template("essay")
REFUSALS_TO_STOP = getattr(runner, "REFUSALS_TO_STOP", 5)


def judge_on(url: str) -> JudgeSpec:
    """A judge at ``url`` that sends no key."""
    return JudgeSpec(model="m", base_url=url, api_key_env=None)


def test_a_refused_key_stops_that_judge_after_a_few_calls(serve):
    bad = serve(lambda req: Status(401, '{"error": {"message": "invalid api key"}}'))
    good = serve()
    items = essays(200)
    res = run_jury(
        items,
        [judge(bad, "judge-bad"), judge(good, "judge-good")],
        ESSAY,
        retry=FAST_RETRY,
        concurrency=4,
    )
    # the calls in flight when the judge is stopped still finish; the other ~190 are not sent
    assert REFUSALS_TO_STOP <= bad.count() <= REFUSALS_TO_STOP + 4
    assert good.count() == 200  # the other judge of the panel goes on
    out = res.table.set_index("judge")
    assert out.loc["judge-good", "score"].notna().all()
    assert out.loc["judge-bad", "score"].isna().all()  # nothing dropped: every call has a row
    reasons = out.loc["judge-bad", "reason"]
    assert reasons.str.contains("http_401").all()
    not_sent = reasons[reasons.str.contains("not_sent")]
    assert len(not_sent) == 200 - bad.count()
    assert "calls in a row to judge 'judge-bad'" in not_sent.iloc[0]
    assert res.summary.failed["http_401"] + res.summary.failed["not_sent"] == 200
    advice = res.summary.advice(rerun="run it again")
    assert "fix the endpoint, model name or API key" in advice and "not_sent" in advice


def test_a_success_between_refusals_keeps_the_judge_going(serve):
    # every other call refused: never REFUSALS_TO_STOP in a row, so every call is sent
    srv = serve(
        lambda req: (
            Status(403)
            if int(req.user_text.split("number ")[1][:2]) % 2
            else numeric_reply(req.user_text)
        )
    )
    res = run_jury(essays(40), [judge(srv)], ESSAY, retry=FAST_RETRY, concurrency=1)
    assert srv.count() == 40 and res.summary.failed == {"http_403": 20}


def test_exhausted_quota_is_not_retried_and_stops_the_judge(serve):
    body = '{"error": {"message": "You exceeded your quota", "code": "insufficient_quota"}}'
    srv = serve(lambda req: Status(429, body))
    res = run_jury(essays(30), [judge(srv)], ESSAY, retry=FAST_RETRY, concurrency=1)
    assert srv.count() == REFUSALS_TO_STOP  # no retries, then no more calls
    assert res.summary.retried == {}
    assert "add credit" in res.summary.advice(rerun="rerun")


def test_a_long_retry_after_is_said_without_verbose(serve, caplog):
    srv = serve(
        lambda req: (
            Status(429, headers={"Retry-After": "3600"}) if req.attempt == 0 else numeric_reply("x")
        )
    )
    policy = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.05, max_retry_after=0.3)
    with caplog.at_level(logging.WARNING, logger="bacon_bayes"):
        res = run_jury(essays(2), [judge(srv)], ESSAY, retry=policy, concurrency=1)
    assert res.table["score"].notna().all()
    said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(said) == 1, said  # once per judge, not once per call
    assert "asked to wait 3600s (Retry-After)" in said[0]
    assert "longer than --backoff-max 0.05s" in said[0]
    assert "at most 0.3s (--max-retry-after)" in said[0]


def test_an_unknown_model_stops_that_judge_after_a_few_calls(serve):
    """A 404 (no such model) was sent for every item, each logged: 200 items, 200 calls."""
    srv = serve(lambda req: Status(404, '{"error": {"message": "model does not exist"}}'))
    res = run_jury(essays(40), [judge(srv)], ESSAY, retry=FAST_RETRY, concurrency=1)
    assert srv.count() == REFUSALS_TO_STOP
    assert res.summary.failed == {"http_404": REFUSALS_TO_STOP, "not_sent": 40 - REFUSALS_TO_STOP}


def test_an_endpoint_nothing_listens_at_stops_that_judge(serve):
    """Every call was retried with backoff at a closed port: 200 items took ten minutes."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    good = serve()
    down = JudgeSpec(model="m", base_url=f"http://127.0.0.1:{port}/v1", api_key_env=None)
    res = run_jury(essays(30), [down, judge(good)], ESSAY, retry=FAST_RETRY, concurrency=1)
    failed = res.summary.failed
    assert failed["connection"] == REFUSALS_TO_STOP and failed["not_sent"] == 30 - REFUSALS_TO_STOP
    assert res.summary.requests == REFUSALS_TO_STOP * FAST_RETRY.max_attempts + 30
    reason = res.table.set_index("judge").loc["m", "reason"].iloc[-1]
    assert "could not reach the endpoint" in reason
    assert good.count() == 30  # the other judge goes on


@pytest.mark.parametrize("timeout", [0, -1, math.nan, math.inf])
def test_a_timeout_of_zero_or_less_is_refused(serve, timeout):
    srv = serve()
    with pytest.raises(
        ValidationError, match=r"timeout \(--timeout\) must be a positive number of seconds"
    ):
        run_jury(essays(1), [judge(srv)], ESSAY, timeout=timeout)
    assert srv.count() == 0


@pytest.mark.parametrize(
    ("option", "said"), [("--timeout", "--timeout 60"), ("--rate", "(--rate) must be a positive")]
)
def test_cli_timeout_or_rate_zero_exits_2_before_any_call(serve, tmp_path, capsys, option, said):
    """``--rate 0`` was refused too, but after the cache was created: an empty
    ``OUT.cache.sqlite`` was left behind (session 38, fixer F2)."""
    srv = serve()
    essays(2).to_csv(tmp_path / "items.csv", index=False)
    out = tmp_path / "o.parquet"
    args = ["judge", str(tmp_path / "items.csv"), "--judge", f"m@{srv.url}", "--template"]
    args += ["essay", "--out", str(out), "--api-key-env", "", option, "0"]
    assert main(args) == 2
    assert said in capsys.readouterr().err
    assert srv.count() == 0 and not out.exists()
    assert not (tmp_path / "o.parquet.cache.sqlite").exists()


def _judge_args(tmp_path, url: str, *extra: str) -> list[str]:
    """``bacon judge`` on two essays written to ``tmp_path``, with a log, to ``o.parquet``."""
    essays(2).to_csv(tmp_path / "items.csv", index=False)
    args = ["judge", str(tmp_path / "items.csv"), "--judge", f"m@{url}", "--template", "essay"]
    return [*args, "--out", str(tmp_path / "o.parquet"), "--log", str(tmp_path / "run.log"), *extra]


def test_bacon_judge_without_aiohttp_refuses_before_writing_anything(tmp_path, capsys, monkeypatch):
    """Without aiohttp, `bacon judge` created its log and cache, then failed at the first
    call: it refuses before any file is opened, naming the extra to install."""
    monkeypatch.setitem(sys.modules, "aiohttp", None)  # `import aiohttp` raises ImportError
    args = _judge_args(tmp_path, "http://127.0.0.1:9/v1", "--api-key-env", "")
    assert main(args) == 2
    assert "pip install 'bacon_bayes[judge]'" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["items.csv"]
    with pytest.raises(ValidationError, match="needs aiohttp"):  # the library's run too
        run_jury(essays(1), [judge_on("http://127.0.0.1:9/v1")], ESSAY, cache=tmp_path / "c")
    assert sorted(os.listdir(tmp_path)) == ["items.csv"]


def test_an_unset_api_key_refuses_before_writing_anything(serve, tmp_path, capsys, monkeypatch):
    """With the variable of --api-key-env unset, `bacon judge` created its log and cache
    before refusing: it refuses first, naming the variable and the fix, and sends nothing.
    A cache that already holds every call needs no key."""
    monkeypatch.delenv("BACON_TEST_NO_KEY", raising=False)
    srv = serve()
    args = _judge_args(tmp_path, srv.url, "--api-key-env", "BACON_TEST_NO_KEY")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "environment variable BACON_TEST_NO_KEY is not set" in err and "--api-key-env ''" in err
    assert srv.count() == 0 and sorted(os.listdir(tmp_path)) == ["items.csv"]
    keyed = judge(srv, api_key_env="BACON_TEST_NO_KEY")
    with pytest.raises(ValidationError, match="BACON_TEST_NO_KEY is not set"):
        run_jury(essays(1), [keyed], ESSAY, cache=tmp_path / "c.sqlite")
    assert sorted(os.listdir(tmp_path)) == ["items.csv"]
    monkeypatch.setenv("BACON_TEST_NO_KEY", "sk-test")  # fill the cache, then drop the key
    run_jury(essays(1), [keyed], ESSAY, cache=tmp_path / "c.sqlite")
    monkeypatch.delenv("BACON_TEST_NO_KEY")
    again = run_jury(essays(1), [keyed], ESSAY, cache=tmp_path / "c.sqlite")
    assert again.summary.cached == 1 and srv.count() == 1


def test_a_refusal_leaves_no_log_behind(serve, tmp_path, capsys):
    """`bacon judge --log run.log` created the log before refusing (an id column not in
    the items, an output bacon did not write): a refusal leaves no new log, and a log
    that was there (appended to) as it was; a run that succeeds leaves its log."""
    srv = serve()
    args = _judge_args(tmp_path, srv.url, "--api-key-env", "")
    assert main([*args, "--id", "no_such_column"]) == 2
    assert "no id column 'no_such_column'" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["items.csv"]
    (tmp_path / "o.parquet").write_text("not bacon's")  # an output bacon refuses to replace
    assert main(args) == 2
    assert "o.parquet" in capsys.readouterr().err and not (tmp_path / "run.log").exists()
    (tmp_path / "run.log").write_text("an earlier run\n")
    assert main([*args, "--id", "no_such_column"]) == 2
    assert (tmp_path / "run.log").read_text() == "an earlier run\n"
    assert srv.count() == 0
    (tmp_path / "run.log").unlink()
    (tmp_path / "o.parquet").unlink()
    assert main(args) == 0 and (tmp_path / "run.log").exists()  # a run's log, if empty


@pytest.mark.parametrize(
    "url", ["ftp://host/x", "http:///v1", "https://", "localhost:8000/v1", "127.0.0.1:8000"]
)
def test_a_judge_endpoint_not_http_with_a_host_is_refused(serve, tmp_path, capsys, url):
    """`--judge m@ftp://host/x` (or a URL without a host, or without http://) was sent to
    the default endpoint as model 'm@ftp://host/x', or failed call by call: it is refused
    before any file or call, naming the judge and the fix."""
    srv = serve()  # the default endpoint, which must get no call
    args = _judge_args(tmp_path, url, "--api-key-env", "", "--base-url", srv.url)
    assert main([*args, "--max-attempts", "1"]) == 2
    err = capsys.readouterr().err
    assert "judge 'm'" in err and "http:// or https:// URL with a host" in err, err
    assert "http://localhost:8000/v1" in err  # the fix's example
    assert srv.count() == 0 and sorted(os.listdir(tmp_path)) == ["items.csv"]


def test_a_judge_base_url_without_a_host_is_refused_in_the_library():
    for url in ("http://", "https:///v1", "ftp://host/v1"):
        with pytest.raises(ValidationError, match=r"judge 'm': endpoint .* with a host"):
            judge_on(url)
    # a model name holding '@' but no endpoint stays a model name
    assert parse_judge("claude-3@20240229", base_url="http://h/v1").model == "claude-3@20240229"
    spec = parse_judge("a=m@http://user:pw@host:8000/v1")
    assert (spec.name, spec.model, spec.base_url) == ("a", "m", "http://user:pw@host:8000/v1")


MAJOR = '{"category": "Accuracy", "severity": "Major", "span": "a"}'


def test_mqm_conflicting_objects_are_na_and_agreeing_ones_scored():
    two = mqm_score(f'{{"errors": [{MAJOR}]}}\n{{"errors": []}}')
    assert math.isnan(two.score)
    assert "several JSON objects" in two.reason and "5, 0" in two.reason
    same = mqm_score(f'{{"errors": [{MAJOR}]}} or again: {{"errors": [{MAJOR}]}}')
    assert same.score == 5.0 and same.reason is None
    nested = mqm_score(f'{{"errors": [{MAJOR}], "note": {{"errors": []}}}}')
    assert nested.score == 5.0  # an object inside the answer is not a second answer


def test_mqm_invalid_json_is_named_as_such():
    parsed = mqm_score('{"errors": [{"category": "Accuracy", "severity": "Minor", "span": "a"},]}')
    assert math.isnan(parsed.score)
    assert parsed.reason.startswith("the reply's JSON is not valid")
    assert "no 'errors' array" not in parsed.reason
    # a valid object without the array keeps its reason
    assert mqm_score('{"score": 3}').reason == "the JSON object has no 'errors' array"
    assert mqm_score("No errors found.").reason == "no JSON object in the reply"
    assert mqm_score('```json\n{"errors": []}\n```').score == 0.0
