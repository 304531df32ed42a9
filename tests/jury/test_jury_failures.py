"""A request the endpoint refuses as sent (a 400: a wrong model name, a parameter it
takes not) is said once per distinct failure with its count, not once per item, and a
judge none of whose calls was answered stops after a few such refusals."""

from __future__ import annotations

import logging
import re

from bacon_bayes.cli import main
from bacon_bayes.judges import load_template, run_jury, runner
from bacon_bayes.testing.fake_server import Status, numeric_reply
from tests.jury.conftest import FAST_RETRY, essays, judge

ESSAY = load_template("essay")
BAD_MODEL = Status(400, '{"error": {"message": "invalid model ID"}}')


def _number(req) -> int:
    """The essay's number (``Essay number 7 about phones.``)."""
    return int(re.search(r"number (\d+)", req.user_text).group(1))


def _warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_a_400_on_every_call_stops_the_judge_and_is_said_three_times(serve, caplog):
    """200 items at a model name the endpoint does not know: 200 calls, 200 warnings."""
    srv = serve(lambda req: BAD_MODEL)
    good = serve()
    with caplog.at_level(logging.WARNING, logger="bacon_bayes"):
        res = run_jury(
            essays(200), [judge(srv, "typo-model"), judge(good)], ESSAY, retry=FAST_RETRY,
            concurrency=1,
        )  # fmt: skip
    stop = runner.REFUSALS_TO_STOP
    assert srv.count() == stop and good.count() == 200  # the other judge goes on
    assert res.summary.failed == {"http_400": stop, "not_sent": 200 - stop}
    said = _warnings(caplog)
    assert len(said) == 3, said
    assert "item 'e000' run 1 failed: http_400" in said[0] and "said once at the end" in said[0]
    assert "5 calls in a row were refused as sent and none of its calls was answered" in said[1]
    assert "Check the model name" in said[1] and "--top-logprobs" in said[1]
    assert said[2].startswith("judge typo-model: 5 calls failed with http_400")
    assert "(items 'e000', 'e001', 'e002', ...)" in said[2]
    reason = res.table.set_index("judge").loc["typo-model", "reason"].iloc[-1]
    assert "not_sent" in reason and "refused as sent" in reason


def test_a_400_on_some_items_is_said_once_and_every_call_is_sent(serve, caplog):
    """Items the endpoint refuses (too long) between answered ones: each call is sent,
    the refusal said once with its count; the numbers of the message aside."""

    def script(req):
        k = _number(req)
        if k % 3:
            return numeric_reply(req.user_text)
        return Status(400, f'{{"error": {{"message": "{1000 + k} tokens > 512"}}}}')

    srv = serve(script)
    with caplog.at_level(logging.WARNING, logger="bacon_bayes"):
        res = run_jury(essays(60), [judge(srv)], ESSAY, retry=FAST_RETRY, concurrency=1)
    assert srv.count() == 60 and res.summary.failed == {"http_400": 20}
    said = _warnings(caplog)
    assert len(said) == 2, said
    assert "1000 tokens > 512" in said[0]
    assert said[1].startswith("judge judge-a: 20 calls failed with http_400 (")


def test_a_judge_answered_in_an_earlier_run_is_not_stopped_by_400s(serve, tmp_path):
    """A rerun sends only the calls that failed: the items refused as sent. The judge
    answered the others (its cache), so its model and settings are not what is wrong."""
    srv = serve(lambda req: BAD_MODEL if _number(req) >= 30 else numeric_reply(req.user_text))
    items = essays(40)  # items 30-39 refused
    cache = tmp_path / "c.sqlite"
    first = run_jury(items, [judge(srv)], ESSAY, retry=FAST_RETRY, concurrency=1, cache=cache)
    assert first.summary.failed == {"http_400": 10}
    again = run_jury(items, [judge(srv)], ESSAY, retry=FAST_RETRY, concurrency=1, cache=cache)
    assert again.summary.failed == {"http_400": 10} and srv.count() == 50


def test_cli_judge_with_a_wrong_model_stops_early_with_three_warnings(serve, tmp_path, capsys):
    srv = serve(lambda req: BAD_MODEL)
    essays(120).to_csv(tmp_path / "items.csv", index=False)
    args = ["judge", str(tmp_path / "items.csv"), "--judge", f"no-such-model@{srv.url}",
            "--template", "essay", "--out", str(tmp_path / "o.csv"), "--api-key-env", "",
            "--concurrency", "2"]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("WARNING") == 3, err
    assert srv.count() <= runner.REFUSALS_TO_STOP + 2  # calls in flight finish
    assert "not_sent" in err and "invalid model ID" in err
    assert not (tmp_path / "o.csv").exists()
