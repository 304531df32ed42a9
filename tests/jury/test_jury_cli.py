"""`bacon judge` / `bacon embed` as subprocesses: kill and resume, secrets, exit codes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
from conftest import essays

from bacon_bayes.judges import CallCache, JudgeSpec, load_template
from bacon_bayes.judges.fake_server import Reply, Status, numeric_reply
from bacon_bayes.judges.runner import plan_calls

MAIN = "import sys; from bacon_bayes.cli import main; sys.exit(main())"


def bacon(*args: str, env: dict | None = None, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", MAIN, *args],
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
        args = judge_args(srv.url, out, "--api-key-env", "JURY_KEY", "-v", "--log", str(log))
        proc = bacon("judge", str(tmp_path / "items.csv"), *args, env={"JURY_KEY": key})
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
        assert key not in stdout + stderr
        assert "http_500" in stderr and "http_401" in stderr and "***" in stderr
    assert srv.requests[0].headers["authorization"] == f"Bearer {key}"
    table = pd.read_csv(tmp_path / "s.csv")
    assert table["reason"].str.contains("http_401", na=False).sum() == 2
    files = [p for p in tmp_path.iterdir() if p.is_file()]
    assert any(p.name.endswith(".sqlite") for p in files) and log.stat().st_size > 0
    for path in files:
        assert key.encode() not in path.read_bytes(), f"API key found in {path.name}"


def test_cli_errors_exit_2_with_a_message(tmp_path):
    essays(2).drop(columns="full_text").to_csv(tmp_path / "items.csv", index=False)
    proc = bacon(
        "judge",
        str(tmp_path / "items.csv"),
        "--judge",
        "m@http://127.0.0.1:9/v1",
        "--template",
        "essay",
        "--out",
        str(tmp_path / "o.parquet"),
        "--api-key-env",
        "",
    )
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "needs column 'full_text'" in err and "Traceback" not in err
    proc = bacon(
        "judge", str(tmp_path / "nope.csv"), "--judge", "m", "--template", "essay", "--out", "o.csv"
    )
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "does not exist" in err


def test_embed_cli_tfidf(tmp_path):
    texts = [f"the cat sat on mat {i}" for i in range(5)] + [
        f"stock market fell {i}" for i in range(5)
    ]
    pd.DataFrame({"item": range(10), "text": texts}).to_csv(tmp_path / "items.csv", index=False)
    proc = bacon(
        "embed",
        str(tmp_path / "items.csv"),
        "--text",
        "text",
        "--dim",
        "4",
        "--out",
        str(tmp_path / "e.parquet"),
    )
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    emb = pd.read_parquet(tmp_path / "e.parquet")
    assert list(emb.columns) == ["item", "emb_1", "emb_2", "emb_3", "emb_4"]
    assert emb["item"].tolist() == list(range(10))
