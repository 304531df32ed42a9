"""`bacon judge` / `bacon embed` as subprocesses: kill and resume, secrets, exit codes."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.judges import CallCache, JudgeSpec, load_template
from bacon_bayes.judges.runner import plan_calls
from bacon_bayes.testing.fake_server import Reply, Status, numeric_reply
from benchmarks.faults_lib import default_sigint
from tests.jury.conftest import essays

# the installed `bacon` console script next to this interpreter, else the same entry point
_SCRIPT = Path(sys.executable).parent / "bacon"
BACON = (
    [str(_SCRIPT)]
    if _SCRIPT.is_file()
    else [sys.executable, "-c", "import sys; from bacon_bayes.cli import main; sys.exit(main())"]
)


def bacon(*args: str, env: dict | None = None, **kw) -> subprocess.Popen:
    kw.setdefault("preexec_fn", default_sigint)
    return subprocess.Popen(
        [*BACON, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        **kw,
    )


def judge_args(url: str, out: Path, *extra: str) -> list[str]:
    return [
        "--judge",
        f"a=judge-a@{url}",
        "--judge",
        f"b=judge-b@{url}",
        "--template",
        "essay",
        "--out",
        str(out),
        "--api-key-env",
        "",
        "--concurrency",
        "4",
        "--backoff-base",
        "0.01",
        *extra,
    ]


def test_sigkill_mid_run_then_resume_repeats_no_completed_call(serve, tmp_path):
    srv = serve(
        lambda req: Reply(
            numeric_reply(req.user_text).content, numeric_reply(req.user_text).logprobs, delay=0.03
        )
    )
    items = essays(60)
    items.to_csv(tmp_path / "items.csv", index=False)
    out = tmp_path / "scores.parquet"
    args = judge_args(srv.url, out)

    proc = bacon("judge", str(tmp_path / "items.csv"), *args)
    deadline = time.monotonic() + 60
    while srv.count() < 40 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    assert not out.exists()

    # calls the killed run completed (committed to the cache)
    judges = [
        JudgeSpec("judge-a", name="a", base_url=srv.url),
        JudgeSpec("judge-b", name="b", base_url=srv.url),
    ]
    calls = plan_calls(items, judges, load_template("essay"))
    with CallCache(str(out) + ".cache.sqlite") as cache:
        done_keys = set(cache.get_many(c.key for c in calls))
    done = {(c.judge.model, c.messages[1]["content"]) for c in calls if c.key in done_keys}
    assert 20 <= len(done) < len(calls)
    before = srv.count()

    proc = bacon("judge", str(tmp_path / "items.csv"), *args)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    again = [(r.model, r.user_text) for r in srv.requests[before:]]
    assert not done & set(again), "a completed call was repeated"
    assert len(again) == len(calls) - len(done)  # each missing call exactly once
    assert f"{len(done)} from cache" in err

    resumed = pd.read_parquet(out)
    assert len(resumed) == 120 and resumed["score"].notna().all()
    # run once more, all from the cache: the very same bytes, no request
    first_bytes, before = out.read_bytes(), srv.count()
    assert main(["judge", str(tmp_path / "items.csv"), *args]) == 0
    assert out.read_bytes() == first_bytes and srv.count() == before

    ref_out = tmp_path / "ref.parquet"
    proc = bacon("judge", str(tmp_path / "items.csv"), *judge_args(srv.url, ref_out))
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    reference = pd.read_parquet(ref_out)
    # identical except latency, a wall-clock measurement of each (separately made) call
    pd.testing.assert_frame_equal(
        resumed.drop(columns="latency"), reference.drop(columns="latency")
    )
    assert resumed["latency"].notna().all()


def test_ctrl_c_stops_cleanly_and_keeps_completed_calls(serve, tmp_path):
    seen = itertools.count()
    # the first 12 replies come fast, later ones slowly, so the run cannot finish before
    # the signal arrives however the test process is scheduled (80 fast calls took 1.2 s)
    srv = serve(lambda req: Reply("4", delay=0.05 if next(seen) < 12 else 1.0))
    essays(40).to_csv(tmp_path / "items.csv", index=False)
    out = tmp_path / "s.parquet"
    proc = bacon("judge", str(tmp_path / "items.csv"), *judge_args(srv.url, out))
    deadline = time.monotonic() + 60
    while srv.count() < 12 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Run the same command again to resume" in err and "Traceback" not in err
    with CallCache(str(out) + ".cache.sqlite") as cache:
        assert 8 <= len(cache) < 80


def test_api_key_never_reaches_cache_output_or_logs(serve, tmp_path):
    key = "sk-SECRET-do-not-leak-4f9c2a"

    def echo_auth(req):
        # a careless endpoint that echoes the Authorization header in its errors
        auth = req.headers.get("authorization", "")
        if req.user_text.endswith("3 about phones."):
            return Status(401, f'{{"error": "bad key {auth}"}}')
        if req.attempt % 2 == 0:  # first attempt of each run fails
            return Status(500, f'{{"error": "oops {auth}"}}', {"Retry-After": "0"})
        return numeric_reply(req.user_text)

    srv = serve(echo_auth)
    essays(6).to_csv(tmp_path / "items.csv", index=False)
    log = tmp_path / "run.log"
    for out in (tmp_path / "s.parquet", tmp_path / "s.csv"):
        args = judge_args(
            srv.url, out, "--api-key-env", "JURY_KEY", "-v", "--log", str(log), "--progress"
        )
        proc = bacon("judge", str(tmp_path / "items.csv"), *args, env={"JURY_KEY": key})
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
        assert key not in stdout + stderr
        assert "http_500" in stderr and "http_401" in stderr and "***" in stderr
        assert "judging" in stderr and "12/12" in stderr  # the progress bar's last frame
    assert srv.requests[0].headers["authorization"] == f"Bearer {key}"
    table = pd.read_csv(tmp_path / "s.csv")
    assert table["reason"].str.contains("http_401", na=False).sum() == 2
    files = [p for p in tmp_path.iterdir() if p.is_file()]
    assert any(p.name.endswith(".sqlite") for p in files) and log.stat().st_size > 0
    for path in files:
        assert key.encode() not in path.read_bytes(), f"API key found in {path.name}"


def test_cli_errors_exit_2_with_a_message(tmp_path, capsys):
    essays(2).drop(columns="full_text").to_csv(tmp_path / "items.csv", index=False)
    args = ["--template", "essay", "--out", str(tmp_path / "o.parquet"), "--api-key-env", ""]
    code = main(["judge", str(tmp_path / "items.csv"), "--judge", "m@http://127.0.0.1:9/v1", *args])
    err = capsys.readouterr().err
    assert code == 2 and "needs column 'full_text'" in err and "Traceback" not in err
    assert main(["judge", str(tmp_path / "nope.csv"), "--judge", "m", *args]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["judge", str(tmp_path / "items.csv"), *args]) == 2
    assert "no judge given" in capsys.readouterr().err


def test_embed_cli_tfidf(tmp_path, capsys):
    texts = [f"the cat sat on mat {i}" for i in range(5)] + [
        f"stock market fell {i}" for i in range(5)
    ]
    pd.DataFrame({"item": range(10), "text": texts}).to_csv(tmp_path / "items.csv", index=False)
    out = tmp_path / "e.parquet"
    assert (
        main(
            [
                "embed",
                str(tmp_path / "items.csv"),
                "--text",
                "text",
                "--dim",
                "4",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    emb = pd.read_parquet(out)
    assert list(emb.columns) == ["item", "emb_1", "emb_2", "emb_3", "emb_4"]
    assert emb["item"].tolist() == list(range(10))
    # fewer dimensions than --dim are said (W11: 20 items, --dim 64 wrote 19 without a word)
    capsys.readouterr()
    args = ["embed", str(tmp_path / "items.csv"), "--text", "text", "--dim", "64", "--out"]
    assert main([*args, str(tmp_path / "e2.parquet")]) == 0
    assert pd.read_parquet(tmp_path / "e2.parquet").shape[1] - 1 == 9
    assert "note: 9 dimensions, fewer than --dim 64: TF-IDF + SVD gives at most one fewer " in (
        capsys.readouterr().err
    )


def test_judge_specs_and_judges_file(tmp_path):
    from bacon_bayes.errors import ValidationError
    from bacon_bayes.judges.client import load_judges, parse_judge

    j = parse_judge("fast=gpt-x@http://127.0.0.1:8000/v1", rate=2.0)
    assert (j.name, j.model, j.base_url, j.rate) == (
        "fast",
        "gpt-x",
        "http://127.0.0.1:8000/v1",
        2.0,
    )
    assert parse_judge("org/model-7b").name == "org/model-7b"
    path = tmp_path / "judges.toml"
    path.write_text(
        '[[judge]]\nname = "a"\nmodel = "m1"\nbase_url = "http://127.0.0.1:1/v1"\n'
        'api_key_env = "KEY_A"\ntemperature = 0.7\nextra = { seed = 3 }\n'
        '[[judge]]\nmodel = "m2"\nrate = 5\n'
    )
    a, b = load_judges(path, base_url="http://127.0.0.1:2/v1")
    assert a.params() == {"temperature": 0.7, "logprobs": True, "top_logprobs": 5, "seed": 3}
    assert (b.name, b.base_url, b.rate) == ("m2", "http://127.0.0.1:2/v1", 5)
    path.write_text('[[judge]]\nmodel = "m"\napi_key = "sk-x"\n')
    with pytest.raises(ValidationError, match="unknown field"):
        load_judges(path)
    with pytest.raises(ValidationError, match="no model name"):
        parse_judge("name=")


def test_dry_run_counts_calls_and_sends_nothing(serve, tmp_path, capsys):
    srv = serve()
    essays(5).to_csv(tmp_path / "items.csv", index=False)
    out = tmp_path / "s.parquet"
    args = ["judge", str(tmp_path / "items.csv"), *judge_args(srv.url, out), "--runs", "2"]
    assert main([*args, "--dry-run"]) == 0
    text = capsys.readouterr().out
    assert "20 calls planned, 0 already in the cache, 20 to make" in text
    assert "Essay number 0 about phones." in text and srv.count() == 0 and not out.exists()
    assert main(args) == 0 and srv.count() == 20
    assert main([*args, "--dry-run"]) == 0
    assert "20 already in the cache, 0 to make" in capsys.readouterr().out


def test_a_judge_whose_replies_give_no_score_is_said_with_a_reply_and_the_fix(
    serve, tmp_path, capsys
):
    """Every reply 'I cannot rate this.' wrote a table of NA and exited 0 with one count."""
    srv = serve(
        lambda req: Reply("I cannot rate this.") if req.model == "shy" else numeric_reply("x")
    )
    essays(6).to_csv(tmp_path / "items.csv", index=False)
    out = tmp_path / "scores.csv"
    args = ["--judge", f"shy@{srv.url}", "--judge", f"ok@{srv.url}", "--template", "essay"]
    assert main(["judge", str(tmp_path / "items.csv"), *args, "--out", str(out),
                 "--api-key-env", ""]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "judge 'shy': 6 of 6 replies gave no score (no number in the reply)" in err, err
    assert "e.g. 'I cannot rate this.'" in err and "parser 'first_digit' on levels 1..6" in err
    assert "judge 'ok'" not in err  # a judge read well is not named


def test_replies_cut_at_the_token_limit_are_said_with_max_tokens(serve, tmp_path, capsys):
    """A reply cut before its score (finish_reason=length) was 'no number in the reply',
    and the advice was to change the template's parser."""
    srv = serve(
        lambda req: Reply("Let me weigh the essay's structure first. The", finish_reason="length")
    )
    essays(3).to_csv(tmp_path / "items.csv", index=False)
    out = tmp_path / "scores.csv"
    assert main(["judge", str(tmp_path / "items.csv"), "--judge", f"m@{srv.url}", "--template",
                 "essay", "--out", str(out), "--api-key-env", ""]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "3 of 3 replies gave no score (reply cut at the token limit" in err, err
    assert "Raise --max-tokens" in err and "change its parser" not in err
    assert pd.read_csv(out)["reason"].str.startswith("reply cut at the token limit").all()


def test_judge_and_embed_find_the_id_column_as_the_other_commands_do(serve, tmp_path, capsys):
    """A table whose ids are in ``id`` (as bacon estimate finds them without --item) was
    refused by judge and embed, "no id column 'item' ...; pass --id COLUMN", naming the
    older spelling; ``--item`` and ``--id`` both name the column."""
    srv = serve()
    items = essays(3).rename(columns={"item": "id"})
    items.to_csv(tmp_path / "items.csv", index=False)
    out = tmp_path / "s.csv"
    args = ["judge", str(tmp_path / "items.csv"), *judge_args(srv.url, out)]
    assert main(args) == 0
    assert pd.read_csv(out)["item"].unique().tolist() == ["e000", "e001", "e002"]
    for flag in ("--item", "--id"):
        assert main([*args, flag, "full_text", "--dry-run"]) == 0
    capsys.readouterr()
    assert main([*args, "--item", "nope", "--dry-run"]) == 2
    assert "pass --item COLUMN" in capsys.readouterr().err
    embed = ["embed", str(tmp_path / "items.csv"), "--text", "full_text", "--dim", "2"]
    assert main([*embed, "--out", str(tmp_path / "e.csv")]) == 0
    assert pd.read_csv(tmp_path / "e.csv")["id"].tolist() == ["e000", "e001", "e002"]
    assert main([*embed, "--id", "prompt_name", "--out", str(tmp_path / "f.csv")]) == 2
    assert "duplicate id 'Phones and driving'" in capsys.readouterr().err


def test_judge_writing_to_a_log_shows_plain_progress_lines(serve, tmp_path, monkeypatch, capsys):
    """`bacon judge ... 2> run.log` in CI showed nothing until the end: off a terminal
    it writes a plain line after each tenth of the calls (30 s apart at least; 0 here)."""
    from bacon_bayes import progress

    monkeypatch.setattr(progress, "PLAIN_SECONDS", 0.0)
    monkeypatch.delenv("BACON_PROGRESS", raising=False)
    srv = serve()
    essays(10).to_csv(tmp_path / "items.csv", index=False)
    args = ["judge", str(tmp_path / "items.csv"), *judge_args(srv.url, tmp_path / "s.csv")]
    assert main([*args, "--concurrency", "1"]) == 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("judging: ")]
    assert lines[0].startswith("judging: 2/20 calls (10%), 0 s elapsed, about 0 s left")
    assert len(lines) == 10 and lines[-1].startswith("judging: 20/20 calls (100%)")
    assert "\r" not in err
    assert main([*args, "--no-progress", "--force"]) == 0  # all cached: nothing to say
    assert "judging" not in capsys.readouterr().err
