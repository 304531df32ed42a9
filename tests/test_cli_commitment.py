"""Issue 33, "nothing a user has is ever lost": a refused command commits nothing.

Every option of ``bacon sample`` and ``bacon label import`` is checked before the
study folder is created or a wave (or label) is committed, so the corrected rerun
draws the wave the user meant; ``bacon simulate``, the streaming folder reader, the
scheduler option and ``bacon judge`` refuse what they cannot do with exit 2 and a
message, instead of a wrong result, a hang or a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.study import Study

N = 40
NEW = ["--item", "id", "--label", "human", "--judge", "judge_a", "--outcome", "ordinal"]
NEW += ["--levels", "1,2,3,4,5"]


def bacon(*argv: str) -> int:
    return main(list(argv))


@pytest.fixture
def pool(tmp_path: Path) -> Path:
    rng = np.random.default_rng(1)
    truth = rng.integers(1, 6, N)
    frame = pd.DataFrame(
        {
            "id": [f"d{i:02d}" for i in range(N)],
            "judge_a": np.clip(truth + rng.normal(0, 0.7, N), 1, 5).round(2),
            "system": rng.choice(["s1", "s2"], N),
            "seg": [f"p{i // 4}" for i in range(N)],
            "p": 0.2,
            "truth": truth,
        }
    )
    path = tmp_path / "pool.csv"
    frame.to_csv(path, index=False)
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of the folder (hidden ones too), by relative path."""
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def waves(root: Path) -> list[int]:
    return [int(w["wave"]) for w in json.loads((root / "waves.json").read_text())]


# -- bacon sample: a new study ----------------------------------------------------------

NEW_STUDY_REFUSALS = {
    "show column": (["--budget", "5", "--show", "nope"], "--show column 'nope'"),
    "budget zero": (["--budget", "0"], "--budget 0"),
    "budget 1.5": (["--budget", "1.5"], "--budget 1.5"),
    "no budget": ([], "--budget N"),
    "budget above pool": (["--budget", "50"], "only 40 items"),
    "strata column": (["--budget", "5", "--design", "stratified", "--strata", "x"], "--strata"),
    "bins": (["--budget", "5", "--design", "stratified", "--strata", "judge_a", "--bins", "0"],
             "--bins"),
    "pi column": (["--design", "poisson", "--pi-column", "judge_a"], "--pi-column 'judge_a'"),
    "prompt column": (["--budget", "8", "--design", "paired", "--prompt", "x"], "--prompt"),
    "paired without prompt": (["--budget", "8", "--design", "paired"], "--prompt COLUMN"),
    "per prompt": (["--budget", "8", "--design", "paired-subset", "--prompt", "seg",
                    "--per-prompt", "0.5"], "--per-prompt"),
    "folds": (["--budget", "5", "--design", "adaptive", "--folds", "1"], "--folds"),
    "adaptive without labels": (["--budget", "5", "--design", "adaptive"], "pilot"),
}  # fmt: skip


@pytest.mark.parametrize("case", NEW_STUDY_REFUSALS)
def test_a_refused_first_wave_creates_no_study(case, pool, tmp_path, capsys):
    argv, message = NEW_STUDY_REFUSALS[case]
    root = tmp_path / "s"
    assert bacon("sample", str(pool), *NEW, "--study", str(root), *argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("bacon sample: error: ") and message in err, err
    assert not root.exists()
    assert bacon("sample", str(pool), *NEW, "--study", str(root), "--budget", "5") == 0
    assert waves(root) == [1]


def test_a_refused_first_wave_leaves_an_existing_empty_folder_empty(pool, tmp_path, capsys):
    root = tmp_path / "s"
    root.mkdir()
    argv = ["--study", str(root), "--design", "stratified", "--budget", "5"]
    assert bacon("sample", str(pool), *NEW, *argv, "--strata", "nope") == 2
    assert list(root.iterdir()) == []
    assert bacon("sample", str(pool), *NEW, *argv, "--strata", "system") == 0
    assert waves(root) == [1]


def test_budget_of_a_whole_float_is_a_count(pool, tmp_path, capsys):
    root = tmp_path / "s"
    assert bacon("sample", str(pool), *NEW, "--study", str(root), "--budget", "2.0") == 0
    assert int(Study.open(root).manifest["selected"].sum()) == 2


# -- bacon sample: an existing study ----------------------------------------------------

EXISTING_REFUSALS = {
    "show column": (["--budget", "5", "--show", "nope"], "--show column 'nope'"),
    "show clashes": (["--budget", "5", "--show", "id"], "clashes"),
    "budget 1.5": (["--budget", "1.5"], "--budget 1.5"),
    "budget zero": (["--budget", "0"], "--budget 0"),
    "budget above open items": (["--budget", "36"], "only 35 items"),
    "strata column": (["--budget", "5", "--design", "stratified", "--strata", "x"], "--strata"),
    "uniform share": (["--budget", "5", "--design", "adaptive", "--uniform-share", "2"],
                      "--uniform-share"),
    "max ratio": (["--budget", "5", "--design", "adaptive", "--max-ratio", "-1"], "--max-ratio"),
}  # fmt: skip


@pytest.mark.parametrize("case", EXISTING_REFUSALS)
def test_a_refused_wave_leaves_the_study_byte_for_byte(case, pool, tmp_path, capsys):
    argv, message = EXISTING_REFUSALS[case]
    root = tmp_path / "s"
    assert bacon("sample", str(pool), *NEW, "--study", str(root), "--budget", "5") == 0
    (root / ".manifest.csv.tmp-999999").write_text("left by a killed writer")
    before = snapshot(root)
    capsys.readouterr()
    assert bacon("sample", str(root), *argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("bacon sample: error: ") and message in err, err
    assert snapshot(root) == before
    assert bacon("sample", str(root), "--budget", "5", "--show", "system") == 0
    assert waves(root) == [1, 2]
    todo = pd.read_csv(root / "todo-wave2.csv")
    assert list(todo.columns) == ["id", "human", "wave", "system"] and len(todo) == 5


# -- bacon label import -----------------------------------------------------------------


@pytest.fixture
def study(pool: Path, tmp_path: Path) -> Path:
    root = tmp_path / "s"
    assert bacon("sample", str(pool), *NEW, "--study", str(root), "--budget", "6") == 0
    todo = pd.read_csv(root / "todo-wave1.csv", dtype=str)
    truth = pd.read_csv(pool, dtype={"id": str}).set_index("id")["truth"]
    todo["human"] = truth.loc[todo["id"]].to_numpy()
    todo.iloc[:3].to_csv(tmp_path / "first.csv", index=False)
    assert bacon("label", "import", str(tmp_path / "first.csv"), "--study", str(root)) == 0
    todo.to_csv(tmp_path / "all.csv", index=False)
    return root


def _labels(tmp_path: Path, rows: list[tuple[str, str]], columns=("id", "human")) -> Path:
    path = tmp_path / "in.csv"
    pd.DataFrame(rows, columns=list(columns)).to_csv(path, index=False)
    return path


IMPORT_REFUSALS = {
    "unknown id": (lambda ids: [(ids[4], "3"), ("nope", "2")], ("id", "human"), "not in the pool"),
    "not a number": (lambda ids: [(ids[4], "three")], ("id", "human"), "not numbers"),
    "no label column": (lambda ids: [(ids[4], "3")], ("id", "score"), "no label column"),
    "off the levels": (lambda ids: [(ids[4], "9")], ("id", "human"), "one of 1, 2"),
}


@pytest.mark.parametrize("case", IMPORT_REFUSALS)
def test_a_refused_import_leaves_the_study_byte_for_byte(case, study, tmp_path, capsys):
    rows, columns, message = IMPORT_REFUSALS[case]
    ids = list(pd.read_csv(study / "todo-wave1.csv", dtype=str)["id"])
    (study / ".labels.csv.tmp-999999").write_text("left by a killed writer")
    before = snapshot(study)
    capsys.readouterr()
    path = _labels(tmp_path, rows(ids), columns)
    assert bacon("label", "import", str(path), "--study", str(study)) == 2
    err = capsys.readouterr().err
    assert err.startswith("bacon label: error: ") and message in err, err
    assert snapshot(study) == before
    assert bacon("label", "import", str(tmp_path / "all.csv"), "--study", str(study)) == 0
    assert len(Study.open(study).labels) == 6


def test_a_missing_label_file_changes_nothing(study, tmp_path, capsys):
    before = snapshot(study)
    assert bacon("label", "import", str(tmp_path / "nope.csv"), "--study", str(study)) == 2
    assert "does not exist" in capsys.readouterr().err
    assert snapshot(study) == before


def test_import_into_a_missing_study_folder_creates_nothing(study, tmp_path, capsys):
    typo = tmp_path / "stduy"
    assert bacon("label", "import", str(tmp_path / "all.csv"), "--study", str(typo)) == 2
    assert "not a study folder" in capsys.readouterr().err
    assert not typo.exists()


# -- bacon simulate: labels the outcome does not allow ----------------------------------


def _labeled_table(tmp_path: Path, label: list[int]) -> Path:
    rng = np.random.default_rng(0)
    y = np.asarray(label, dtype=float)
    path = tmp_path / "table.csv"
    pd.DataFrame({"id": range(y.size), "y": y, "j": y + rng.normal(0, 1, y.size)}).to_csv(
        path, index=False
    )
    return path


#: 20 labels of 400 per trial: the bad row is not drawn (before, only a trial that drew it
#: failed, and one that did not went on with a table the outcome does not allow)
SIMULATE = ["--label", "y", "--judge", "j", "--trials", "2", "--budgets", "0.05"]


@pytest.mark.parametrize(
    ("argv", "bad", "message"),
    [
        (["--outcome", "ordinal", "--levels", "1,2,3,4,5"], 9, "not one of the levels"),
        (["--outcome", "nonnegative"], -2, "must be >= 0"),
    ],
)
def test_simulate_refuses_labels_the_outcome_does_not_allow(argv, bad, message, tmp_path, capsys):
    labels = [1 + i % 5 for i in range(400)]
    labels[7] = bad
    data = _labeled_table(tmp_path, labels)
    out = tmp_path / "out"
    assert bacon("simulate", str(data), *SIMULATE, *argv, "--out", str(out)) == 2
    err = capsys.readouterr().err
    assert err.startswith("bacon simulate: error: label column 'y'") and "row 7" in err, err
    assert message in err and not out.exists()


# -- streaming: what a dataset folder holds ---------------------------------------------


def _stream_table(n: int = 1200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    return pd.DataFrame(
        {
            "j0": y + rng.normal(0, 0.5, n),
            "label": np.where(rng.random(n) < 0.2, y, np.nan),
        }
    )


STREAM = ["--label", "label", "--judge", "j0", "--engine", "freq", "--json"]


def test_a_folder_of_parquet_and_csv_files_is_refused(tmp_path, capsys):
    folder = tmp_path / "data"
    folder.mkdir()
    df = _stream_table()
    df.iloc[:600].to_parquet(folder / "a.parquet", index=False)
    df.iloc[600:900].to_parquet(folder / "b.parquet", index=False)
    df.iloc[900:].to_csv(folder / "c.csv", index=False)
    assert bacon("estimate", str(folder), *STREAM) == 2
    err = capsys.readouterr().err
    assert "2 Parquet and 1 CSV file(s)" in err and "move the other kind out" in err, err


def test_files_a_dataset_folder_does_not_read_are_named(tmp_path, capsys):
    folder = tmp_path / "data"
    (folder / "sub").mkdir(parents=True)
    df = _stream_table()
    df.iloc[:700].to_csv(folder / "a.csv", index=False)
    df.iloc[700:].to_csv(folder / "sub" / "b.csv", index=False)
    (folder / "README.txt").write_text("where the data came from")
    (folder / "sub" / "notes.json").write_text("{}")
    (folder / ".DS_Store").write_text("")
    (folder / ".a.csv.tmp-123").write_text("half a file")
    (folder / "_SUCCESS").write_text("")
    assert bacon("estimate", str(folder), *STREAM) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["n_items"] == 1200
    note = [line for line in captured.err.splitlines() if "not read:" in line]
    assert len(note) == 1 and "README.txt" in note[0] and "sub/notes.json" in note[0], note
    assert ".DS_Store" not in captured.err and "tmp-123" not in captured.err


# -- --scheduler: refused with a message, never a hang or a traceback -------------------


def _stream_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    _stream_table(600).to_parquet(folder / "a.parquet", index=False)
    return folder


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run_with_scheduler(command: str, scheduler: str, tmp_path: Path) -> int:
    if command == "estimate":
        return bacon("estimate", str(_stream_folder(tmp_path)), *STREAM, "--scheduler", scheduler)
    data = _labeled_table(tmp_path, [1 + i % 5 for i in range(60)])
    argv = ["--label", "y", "--judge", "j", "--trials", "2", "--budgets", "0.5"]
    return bacon("simulate", str(data), *argv, "--scheduler", scheduler, "--out",
                 str(tmp_path / "out"))  # fmt: skip


@pytest.mark.parametrize("command", ["estimate", "simulate"])
@pytest.mark.parametrize("scheduler", ["local:0", "local:-1", "local:x"])
def test_a_bad_local_scheduler_is_refused(command, scheduler, tmp_path, capsys):
    assert _run_with_scheduler(command, scheduler, tmp_path) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"bacon {command}: error: --scheduler {scheduler!r}") and "local:2" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["estimate", "simulate"])
def test_an_unreachable_scheduler_is_refused(command, tmp_path, capsys):
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{_free_port()}"
    assert _run_with_scheduler(command, address, tmp_path) == 2
    err = capsys.readouterr().err
    assert f"--scheduler {address!r}: cannot reach a Dask scheduler there within 5 s" in err, err


@pytest.mark.parametrize("command", ["estimate", "simulate"])
def test_without_the_dask_extra_the_fix_is_named(command, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    assert _run_with_scheduler(command, "local:2", tmp_path) == 2
    err = capsys.readouterr().err
    assert "pip install 'bacon_bayes[dask]'" in err and "Traceback" not in err, err


# -- bacon judge: every call failed ---------------------------------------------------


def _essays(tmp_path: Path, n: int) -> Path:
    from tests.jury.conftest import essays

    path = tmp_path / "items.csv"
    essays(n).to_csv(path, index=False)
    return path


def _judge(items: Path, url: str, out: Path, *extra: str) -> int:
    return bacon("judge", str(items), "--judge", f"m@{url}", "--template", "essay",
                 "--out", str(out), "--api-key-env", "", "--max-attempts", "1",
                 "--backoff-base", "0", *extra)  # fmt: skip


def test_judge_writes_no_table_when_every_call_failed(tmp_path, capsys):
    items = _essays(tmp_path, 6)
    url = f"http://127.0.0.1:{_free_port()}/v1"  # nothing listens there
    out = tmp_path / "scores.csv"
    out.write_text("the user's earlier scores\n")  # replaced only if a table is written
    assert _judge(items, url, out, "--force") == 2
    err = capsys.readouterr().err
    assert f"bacon judge: error: 6 calls failed: 6 connection ({url})" in err, err
    assert "was not written" in err and "connection: fix the endpoint" in err
    assert out.read_text() == "the user's earlier scores\n"
    assert not (tmp_path / "scores.csv.cache.sqlite").exists()  # no call answered: no cache
    fresh = tmp_path / "fresh.csv"
    assert _judge(items, url, fresh) == 2 and not fresh.exists()


def test_judge_names_the_failures_of_a_partly_failed_run(tmp_path, capsys):
    from bacon_bayes.testing.fake_server import FakeChatServer, Status, default_script

    def script(request):
        if "number 1 " in request.user_text or "number 4 " in request.user_text:
            return Status(400)
        return default_script(request)

    items = _essays(tmp_path, 6)
    out = tmp_path / "scores.csv"
    with FakeChatServer(script) as srv:
        assert _judge(items, srv.url, out) == 0
    err = capsys.readouterr().err
    assert f"2 calls failed: 2 http_400 ({srv.url})" in err, err
    table = pd.read_csv(out)
    assert table["score"].notna().sum() == 4 and table["score"].isna().sum() == 2


@pytest.mark.parametrize(
    ("code", "body", "said", "unsaid"),
    [
        (
            400,
            '{"error": {"message": "context length exceeded"}}',
            ["http_400: the server refused the request as sent", "context length exceeded",
             "sending it again gets the same answer"],
            ["fix the endpoint", "run the same command again"],
        ),
        (
            429,
            "{}",
            ["http_429: the server limits the request rate", "--rate", "--max-attempts"],
            ["fix the endpoint"],
        ),
    ],
)  # fmt: skip
def test_judge_advice_follows_the_failure_kind(tmp_path, capsys, code, body, said, unsaid):
    """Tester C finding 7: a 429 or a 400 (context too long) was told to fix the endpoint,
    model or key, and a 400 that is not retried was promised a rerun would retry it."""
    from bacon_bayes.testing.fake_server import FakeChatServer, Status, default_script

    status = Status(code, body, {"Retry-After": "0"})
    items = _essays(tmp_path, 4)
    with FakeChatServer(lambda request: status) as srv:
        assert _judge(items, srv.url, tmp_path / "all.csv") == 2
    err = capsys.readouterr().err
    assert all(s in err for s in said) and not any(s in err for s in unsaid), err

    def script(request):
        return status if "number 1 " in request.user_text else default_script(request)

    with FakeChatServer(script) as srv:
        assert _judge(items, srv.url, tmp_path / "some.csv") == 0
    err = capsys.readouterr().err
    assert all(s in err for s in said) and not any(s in err for s in unsaid), err


def test_a_second_judge_run_on_a_cache_in_use_is_refused(tmp_path, capsys):
    """Tester J s39 finding 3: two runs sharing one --cache both ran, the second asking
    again the calls the first had in flight (727 requests for 400 calls), while README
    says a second run writing an output another one writes is refused. The cache is
    locked as --out is: while a run holds it (here paused before writing its table,
    its calls made), another is refused at once; once the first has ended, it runs from
    the cache."""
    import os
    import subprocess
    import time

    from bacon_bayes.testing.fake_server import FakeChatServer

    items, cache = _essays(tmp_path, 4), str(tmp_path / "shared.sqlite")
    paused = tmp_path / "paused"
    repo = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": repo, "BACON_PAUSE_BEFORE_COMMIT": str(paused)}
    env.pop("BACON_PAUSE_STAGE", None)  # the default: before the table's rename
    with FakeChatServer() as srv:
        first = subprocess.Popen(
            [sys.executable, "-m", "bacon_bayes", "judge", str(items), "--judge",
             f"m@{srv.url}", "--template", "essay", "--out", str(tmp_path / "a.csv"),
             "--api-key-env", "", "--cache", cache],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        try:
            for _ in range(1200):  # until it pauses (or ends: then the test fails below)
                if paused.exists() or first.poll() is not None:
                    break
                time.sleep(0.05)
            assert paused.exists() and srv.count() == 4
            code = _judge(items, srv.url, tmp_path / "b.csv", "--cache", cache)
        finally:
            first.kill()
            first.wait(30)
        err = " ".join(capsys.readouterr().err.split())
        assert code == 2, err
        assert f"--cache {cache!r} is being written by another bacon process" in err, err
        assert not (tmp_path / "b.csv").exists()
        assert _judge(items, srv.url, tmp_path / "b.csv", "--cache", cache) == 0
        assert srv.count() == 4  # every call answered from the cache
