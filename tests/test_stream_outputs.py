"""Streaming's inputs and outputs, tester F (session 38): a JSON Lines file refused by name
(finding 1), --save refused as --history is (5), the streamed --json with the in-memory
keys (10); doctor on a JSON Lines file as on the same CSV (13)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from bacon_bayes.cli import main

COMMON = ["--label", "label", "--item", "id", "--judge", "j*", "--group", "grp",
          "--engine", "freq", "--seed", "1"]  # fmt: skip


def table(n: int = 1200, seed: int = 2) -> pd.DataFrame:
    r = np.random.default_rng(seed)
    g = r.integers(0, 3, n)
    y = 0.5 * g + r.standard_normal(n)
    df = pd.DataFrame({"id": [f"it{i:05d}" for i in range(n)], "grp": np.array(list("abc"))[g]})
    for k in range(3):
        df[f"j{k}"] = y + r.standard_normal(n)
    df["label"] = np.where(r.random(n) < 0.2, y, np.nan)
    return df


def test_json_lines_with_chunk_rows_is_refused_by_name(tmp_path, capsys):
    """Finding 1: the stream read a .jsonl file as a CSV, took its first record for the
    header and said the label column was missing ("add the column")."""
    path = tmp_path / "pool.jsonl"
    table().to_json(path, orient="records", lines=True)
    assert main(["estimate", str(path), *COMMON, "--chunk-rows", "500"]) == 2
    err = capsys.readouterr().err
    assert "is JSON" in err and "Parquet or CSV" in err and "to_parquet" in err
    assert "has no column" not in err
    assert main(["estimate", str(path), *COMMON]) == 0  # read whole, as documented


def test_save_is_refused_when_streaming_and_nothing_is_written(tmp_path, capsys):
    """Finding 5: --save on a streamed estimate exited 0 and wrote nothing."""
    path = tmp_path / "pool.csv"
    table().to_csv(path, index=False)
    save = tmp_path / "cal.nc"
    code = main(["estimate", str(path), *COMMON, "--chunk-rows", "500", "--save", str(save)])
    assert code == 2
    assert "--save" in capsys.readouterr().err
    assert not save.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["pool.csv"]


def test_items_out_named_csv_with_a_scheduler_is_refused_before_the_cluster(tmp_path, capsys):
    """``--scheduler local:1 --items-out items.csv`` wrote a folder named items.csv of
    Parquet parts, which no CSV reader opens, and said "item scores written to"."""
    path = tmp_path / "pool.parquet"
    table().to_parquet(path, index=False)
    out = tmp_path / "items.csv"
    code = main(["estimate", str(path), *COMMON, "--scheduler", "local:1", "--items-out", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert "folder of Parquet parts, not a .csv file" in err
    assert f"name it {str(tmp_path / 'items')!r} or {str(tmp_path / 'items.parquet')!r}" in err
    assert "drop --scheduler to write one .csv file" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pool.parquet"]


def test_streamed_json_has_the_in_memory_keys(tmp_path, capsys):
    """Finding 10: streamed, --json lacked pool, surrogates, frozen and n_prompts."""
    path = tmp_path / "pool.csv"
    table().to_csv(path, index=False)
    assert main(["estimate", str(path), *COMMON, "--json"]) == 0
    memory = json.loads(capsys.readouterr().out)
    assert main(["estimate", str(path), *COMMON, "--json", "--chunk-rows", "500"]) == 0
    stream = json.loads(capsys.readouterr().out)
    assert set(memory) <= set(stream) and set(stream) - set(memory) == {"streamed"}
    assert set(stream["pool"]) == set(memory["pool"])
    for key in ("n_items", "n_labeled", "outcome", "levels", "judges", "missing_judge_scores",
                "n_groups", "n_prompts"):  # fmt: skip
        assert stream["pool"][key] == memory["pool"][key], key
    assert stream["surrogates"] == memory["surrogates"]
    assert stream["frozen"] is None and stream["n_prompts"] is None


def test_doctor_reads_a_json_lines_id_as_a_csv_one(tmp_path, capsys):
    """Finding 13: on a JSON Lines file the id was taken by its name alone (no distinct
    check) and the printed command dropped --item, which the CSV's has."""
    df = table()
    df.to_csv(tmp_path / "pool.csv", index=False)
    df.to_json(tmp_path / "pool.jsonl", orient="records", lines=True)
    out = {}
    for name in ("pool.csv", "pool.jsonl"):
        assert main(["doctor", str(tmp_path / name)]) == 0
        out[name] = capsys.readouterr().out.replace(name, "FILE").splitlines()[1:]
    assert out["pool.csv"] == out["pool.jsonl"]
    assert any("--item id" in line for line in out["pool.jsonl"])


def test_a_json_lines_pool_is_parsed_once(tmp_path, monkeypatch):
    """Finding 13 (memory, 4.6x the Parquet's at 2M rows): the reader parsed the whole
    file once to look at its first line (is it an lm-eval log?) and again to read it, and
    held the parsed and the flattened records at once; now each line is parsed once (and
    the first once more) and flattened as it is read."""
    import json as json_module

    import bacon_bayes.readers.jsonl as jsonl
    from bacon_bayes.readers import read_any

    df = table(n=500)
    path = tmp_path / "pool.jsonl"
    df.to_json(path, orient="records", lines=True)
    calls = []

    class Counting:
        JSONDecodeError = json_module.JSONDecodeError
        dumps = staticmethod(json_module.dumps)

        @staticmethod
        def loads(text, *a, **kw):
            calls.append(1)
            return json_module.loads(text, *a, **kw)

    monkeypatch.setattr(jsonl, "json", Counting)
    frame, meta = read_any(path)
    assert len(frame) == 500 and meta.format == "jsonl"
    assert len(calls) <= 500 + 2, len(calls)
