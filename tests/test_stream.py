"""Streaming estimates over Parquet/CSV datasets: equal to the in-memory path (to
floating-point summation order, ``RTOL``), on Dask equal to the local stream, bad input
stopped with file, row and column before anything is written."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool, ValidationError
from bacon_bayes import estimate as est
from bacon_bayes.cli import main
from bacon_bayes.features import build_features
from bacon_bayes.stream import estimate_stream
from bacon_bayes.stream.scan import exact_quantile, keep_count

#: streamed vs in-memory: the same arithmetic but sums taken in another order
RTOL = 1e-10
JUDGES = ["j0", "j1", "j2"]


def frame(n: int = 6000, seed: int = 0, ordinal: bool = False) -> pd.DataFrame:
    """A pool with groups, a stratified label sample (recorded propensities), heavy
    judge tails (so winsorising clips) and missing scores."""
    r = np.random.default_rng(seed)
    g = r.integers(0, 4, n)
    y = 0.4 * g + r.standard_normal(n)
    if ordinal:
        y = np.clip(np.round(y + 2), 1, 5)
    df = pd.DataFrame({"grp": np.array(["a", "b", "c", "d"])[g]})
    for k, name in enumerate(JUDGES):
        s = 0.2 * k + (0.8 + 0.2 * k) * y + r.standard_t(3, n)
        s[r.random(n) < 0.05 * k] = np.nan  # j0 complete, j1/j2 missing some
        df[name] = s
    pi = np.where(g == 0, 0.12, 0.05)  # stratified: group a oversampled
    df["pi"] = pi
    df["label"] = np.where(r.random(n) < pi, y, np.nan)
    return df


def split(df: pd.DataFrame, parts: int) -> list[pd.DataFrame]:
    return [df.iloc[idx] for idx in np.array_split(np.arange(len(df)), parts)]


def write_dataset(df: pd.DataFrame, folder, parts: int = 3, row_group: int = 700):
    folder.mkdir()
    for k, part in enumerate(split(df, parts)):
        part.to_parquet(folder / f"part-{k}.parquet", row_group_size=row_group, index=False)
    return folder


def in_memory(df: pd.DataFrame, outcome: str = "continuous") -> Calibrator:
    """The in-memory fit a stream equals: the model's surrogate alone (the frequentist
    small-budget rule's principal component is not streamed)."""
    pool = EvalPool.from_frame(
        df, label="label", judges=JUDGES, outcome=outcome, group="grp", propensity="pi"
    )
    return Calibrator(engine="freq", seed=1, surrogates=[]).fit(pool)


def streamed(
    path, outcome: str = "continuous", threads: int = 2, chunk_rows=500, calibrator=None, **kw
):
    return estimate_stream(
        path,
        calibrator or Calibrator(engine="freq", seed=1),
        label="label",
        judges=["j*"],
        outcome=outcome,
        group="grp",
        propensity="pi",
        chunk_rows=chunk_rows,
        progress=False,
        threads=threads,
        **kw,
    )


def close(a, b) -> None:
    """Two estimates (or tables) agree to RTOL in estimate, se and interval."""
    for k in ("estimate", "se", "ci_low", "ci_high"):
        np.testing.assert_allclose(getattr(a, k), getattr(b, k), rtol=RTOL, atol=1e-13)
    assert a.method == b.method and np.all(a.n_labeled == b.n_labeled)
    assert a.details.keys() == b.details.keys()
    assert np.all(a.n_items == b.n_items)


@pytest.fixture(scope="module")
def pools(tmp_path_factory):
    df = frame()
    path = write_dataset(df, tmp_path_factory.mktemp("s") / "pool")
    return df, path, in_memory(df), streamed(path, quantiles=[0.5], items_out=path.parent / "i.pq")


@pytest.mark.parametrize("pooling", ["separate", "auto"])
def test_groups_with_few_labels_stream_as_in_memory(tmp_path, pooling):
    """Groups under 10 labels: separately, the moderated t; by default, shrunk toward the
    pool's correction (issue 40), the classical means each group's own labels' (T1
    finding 1): the same tables as in memory either way."""
    df = frame(n=600, seed=3)
    res = streamed(
        write_dataset(df, tmp_path / "small", row_group=100),
        calibrator=Calibrator(engine="freq", seed=1, pooling=pooling),
    )
    cal = in_memory(df)
    for t, method in zip(res.groups[:2], ("aee", "classical"), strict=True):
        ref = cal.estimate_groups(0.05, True, method, pooling=pooling)
        if pooling == "separate" or method == "classical":  # the labels' own means
            assert ref.details["interval"] == ("t" if method == "aee" else "score t")
        else:
            assert ref.details["interval"] == "robust EBCI"
        assert "df" in ref.details
        close(t, ref)
        np.testing.assert_allclose(t.critical_value, ref.critical_value, rtol=RTOL)


def test_exact_quantile_matches_numpy_from_the_tails():
    r = np.random.default_rng(4)
    for n in (2, 7, 1000, 12345):
        x = np.round(r.standard_t(2, n), 2)  # ties too
        keep = keep_count(n, (0.005, 0.995))
        s = np.sort(x)
        for q in (0.005, 0.995, 0.0, 1.0):
            low = exact_quantile(s[:keep], n, q, lowest=True) if q < 0.5 else None
            high = exact_quantile(s[-keep:], n, q, lowest=False) if q > 0.5 else None
            assert (low if q < 0.5 else high) == np.quantile(x, q)


def test_features_equal_the_in_memory_ones(pools):
    df, _, cal, res = pools
    feats = res.fit.model.features
    X = feats.transform(df[JUDGES].to_numpy())
    ref = build_features(cal.pool_)
    assert feats.names == ref.names
    assert (feats.winsorised > 0).all()  # the heavy tails were clipped
    np.testing.assert_allclose(X, ref.X, rtol=1e-13, atol=0)


def test_streamed_estimates_equal_the_in_memory_ones(pools):
    _, _, cal, res = pools
    for e, method in zip(res.means, ("aee", "classical", "naive"), strict=True):
        close(e, cal.estimate_mean(0.05, method))
    for t, method in zip(res.groups, ("aee", "classical", "naive"), strict=True):
        close(t, cal.estimate_groups(0.05, True, method))
        np.testing.assert_allclose(
            t.critical_value, cal.estimate_groups(0.05, True, method).critical_value, rtol=RTOL
        )
    # continuous label: the stream's grid is fixed at fit time; the same grid in memory
    grid = res.fit.model.grid
    p = cal.pool_
    ref = est.aee_quantile(p.y, cal.crossfit_.cdf(grid), grid, 0.5, pi=p.propensity)
    close(res.quantiles[0.5][0], ref.clip(*cal.bounds_))
    assert res.means[0].ci_low < res.means[0].estimate < res.means[0].ci_high


def test_ridge_folds_need_no_second_pass_and_give_its_sums(pools, monkeypatch):
    """Without quantiles or item scores, the ridge fold models' sums come from the first
    pass alone (clipped sums from the kept extremes, imputed and missing-indicator
    columns, labeled rows taken away): the second pass's sums and the in-memory
    estimates."""
    _, path, cal, two = pools
    from bacon_bayes.stream import runner

    def no_second_pass(*args, **kw):
        raise AssertionError("second pass run")

    monkeypatch.setattr(runner, "predict_piece", no_second_pass)
    one = streamed(path)
    K = len(one.fit.crossfit.models)
    cols = [f"p{k}" for k in range(K)] + ["n_unlabeled"]
    a = one.sums.groups[cols].sort_index()
    b = two.sums.groups[cols].sort_index()
    assert list(a.index) == list(b.index) == ["a", "b", "c", "d"]
    np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=1e-12)
    for e, method in zip(one.means, ("aee", "classical", "naive"), strict=True):
        close(e, cal.estimate_mean(0.05, method))
    for t, method in zip(one.groups, ("aee", "classical", "naive"), strict=True):
        close(t, cal.estimate_groups(0.05, True, method))


@pytest.mark.parametrize("order", ["shuffled", "sorted"])
def test_guessed_cuts_of_the_extremes_give_the_in_memory_features(tmp_path, monkeypatch, order):
    """A pass gathers only the scores beyond cuts guessed from its first chunk; when the
    guess fails (rows sorted by a judge's score: the first chunk holds the lowest), the
    pass is run again without it. Either way: the in-memory features and estimates."""
    from bacon_bayes.stream import passes, runner

    df = frame(n=24_000, seed=6)
    if order == "sorted":
        df = df.sort_values("j0", kind="stable").reset_index(drop=True)
    path = write_dataset(df, tmp_path / order, parts=2, row_group=4000)
    calls = []
    monkeypatch.setattr(
        runner,
        "scan_piece",
        lambda *a, **kw: calls.append(kw["guess"]) or passes.scan_piece(*a, **kw),
    )
    res = streamed(path, chunk_rows=2000)
    n_pieces = len(calls) // (2 if order == "sorted" else 1)
    assert calls[0] is not None and all(g is not None for g in calls[:n_pieces])
    assert calls[n_pieces:] == ([None] * n_pieces if order == "sorted" else [])
    cal = in_memory(df)
    ref = build_features(cal.pool_)
    np.testing.assert_allclose(
        res.fit.model.features.transform(df[JUDGES].to_numpy()), ref.X, rtol=1e-13, atol=0
    )
    for e, method in zip(res.means, ("aee", "classical", "naive"), strict=True):
        close(e, cal.estimate_mean(0.05, method))
    for t, method in zip(res.groups, ("aee", "classical", "naive"), strict=True):
        close(t, cal.estimate_groups(0.05, True, method))


def test_the_judge_mean_surrogate_streams_as_in_memory(pools):
    """With ``surrogates=["judge_mean"]`` (the Bayesian engine's default) the streamed AEE
    mean and group means combine the model's surrogate and the judge mean as in memory
    (the judge mean's sums over the pool from the first pass); quantiles use the model's
    own surrogate, noted as in memory; other extra surrogates are refused."""
    df, path, _, _ = pools
    pool = EvalPool.from_frame(
        df, label="label", judges=JUDGES, outcome="continuous", group="grp", propensity="pi"
    )
    cal = Calibrator(engine="freq", seed=1, surrogates=["judge_mean"]).fit(pool)
    kw = dict(label="label", judges=["j*"], group="grp", propensity="pi", chunk_rows=500)
    res = estimate_stream(
        path, Calibrator(engine="freq", seed=1, surrogates=["judge_mean"]), progress=False,
        quantiles=[0.5], **kw,
    )  # fmt: skip
    aee = res.means[0]
    ref = cal.estimate_mean(0.05, "aee")
    close(aee, ref)
    assert len(aee.details["power_lambda"]) == 2
    assert aee.details["surrogates"] == ref.details["surrogates"] == ["ridge (freq)", "judge_mean"]
    np.testing.assert_allclose(aee.details["power_lambda"], ref.details["power_lambda"], rtol=RTOL)
    plain = Calibrator(engine="freq", seed=1).fit(pool).estimate_mean(0.05, "aee")
    assert abs(aee.estimate - plain.estimate) > 1e-6  # the extra surrogate changes it
    table = res.groups[0]
    ref_t = cal.estimate_groups(0.05, True, "aee")
    close(table, ref_t)
    np.testing.assert_allclose(table.critical_value, ref_t.critical_value, rtol=RTOL)
    assert table.details["surrogates"] == ref_t.details["surrogates"]
    q = res.quantiles[0.5][0]
    assert q.details["surrogates_note"] == "quantiles use the model's own surrogate only"
    with pytest.raises(ValidationError, match="not streamed"):
        estimate_stream(path, Calibrator(engine="freq", surrogates=["hurdle"]), **kw)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_item_ids_are_read_for_the_labeled_rows(tmp_path, fmt):
    """With an item column the labeled rows carry their ids (read for those rows only)
    and written item scores carry every item's id."""
    df = frame(n=1200, seed=7)
    df.insert(0, "id", [f"it{i:05d}" for i in range(len(df))])
    folder = tmp_path / fmt
    if fmt == "parquet":
        write_dataset(df, folder, parts=2, row_group=300)
    else:
        folder.mkdir()
        for k, part in enumerate(split(df, 2)):
            part.to_csv(folder / f"p{k}.csv", index=False)
    res = estimate_stream(
        folder, Calibrator(engine="freq", seed=1), label="label", judges=["j*"], group="grp",
        item="id", chunk_rows=250, progress=False, items_out=tmp_path / f"{fmt}.pq",
    )  # fmt: skip
    lab = df["label"].notna().to_numpy()
    assert list(res.fit.labeled.items) == list(df["id"][lab])
    assert list(res.fit.pool.ids) == list(df["id"][lab])
    assert list(pd.read_parquet(res.items_out)["item"]) == list(df["id"])


def test_csv_item_ids_keep_their_leading_zeros(tmp_path):
    """Ids are text as the CSV writes them: ``0001`` comes back as ``0001``, not ``1``, so
    the item file joins back to the table."""
    df = frame(n=1200, seed=7)
    df.insert(0, "id", [f"{i:04d}" for i in range(1, len(df) + 1)])
    path = tmp_path / "pool.csv"
    df.to_csv(path, index=False)
    res = estimate_stream(
        path, Calibrator(engine="freq", seed=1), label="label", judges=["j*"], group="grp",
        item="id", chunk_rows=500, progress=False, items_out=tmp_path / "items.csv",
    )  # fmt: skip
    items = pd.read_csv(res.items_out, dtype={"item": str})
    assert list(items["item"]) == list(df["id"])
    assert list(res.fit.pool.ids) == list(df["id"][df["label"].notna()])


def test_items_out_equal_the_in_memory_item_scores(pools):
    _, _, cal, res = pools
    items = pd.read_parquet(res.items_out)
    ref = cal.item_scores(0.9)
    assert len(items) == len(ref)
    np.testing.assert_allclose(items["score"], ref["score"], rtol=RTOL, atol=1e-12)
    np.testing.assert_allclose(items["upper"], ref["upper"], rtol=RTOL, atol=1e-12)
    assert (items["labeled"].to_numpy() == ref["labeled"].to_numpy()).all()
    assert (items["group"].to_numpy() == ref["group"].to_numpy()).all()


def test_items_out_stay_in_the_scale_as_in_memory(tmp_path):
    """With ``scale``, written item intervals are intersected with it, as in memory."""
    df = frame(n=800, seed=5)
    scale = (float(df["label"].min()), float(df["label"].max()))  # the labels' own range
    path = write_dataset(df, tmp_path / "sc", parts=2, row_group=200)
    res = estimate_stream(
        path, Calibrator(engine="freq", seed=1, scale=scale), label="label",
        judges=["j*"], group="grp", propensity="pi", chunk_rows=300, progress=False,
        items_out=tmp_path / "items.pq",
    )  # fmt: skip
    pool = EvalPool.from_frame(
        df, label="label", judges=JUDGES, outcome="continuous", group="grp", propensity="pi"
    )
    wide = Calibrator(engine="freq", seed=1).fit(pool).item_scores(0.9)
    assert (wide["lower"] < scale[0]).any() or (wide["upper"] > scale[1]).any()
    ref = Calibrator(engine="freq", seed=1, scale=scale).fit(pool).item_scores(0.9)
    items = pd.read_parquet(res.items_out)
    assert items["lower"].min() >= scale[0] and items["upper"].max() <= scale[1]
    assert ((items["lower"] <= items["score"]) & (items["score"] <= items["upper"])).all()
    for col in ("lower", "upper", "score"):
        np.testing.assert_allclose(items[col], ref[col], rtol=RTOL, atol=1e-12)


def test_ordinal_quantiles_equal_the_in_memory_ones_and_csv_streams(tmp_path):
    df = frame(4000, seed=2, ordinal=True)
    cal = in_memory(df, "ordinal")
    path = write_dataset(df, tmp_path / "ord", parts=2)
    res = streamed(path, "ordinal", quantiles=[0.25, 0.5])
    for q in (0.25, 0.5):
        for e in res.quantiles[q]:
            close(e, cal.estimate_quantile(q, 0.05, e.method))
    csv = tmp_path / "csv"
    csv.mkdir()
    for k, part in enumerate(split(df, 2)):
        part.to_csv(csv / f"p{k}.csv", index=False)
    again = streamed(csv, "ordinal")
    for a, b in zip(again.means, res.means, strict=True):
        close(a, b)


def test_dask_cluster_on_loopback_equals_the_local_stream(pools, tmp_path):
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    _, path, _, local = pools
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):  # fmt: skip
        stale = tmp_path / "items" / "part-999999-0000.parquet"  # an earlier run's extra part
        stale.parent.mkdir()
        pd.DataFrame({"item": ["x"], "score": [0.0]}).to_parquet(stale)
        res = streamed(path, quantiles=[0.5], scheduler=client, items_out=tmp_path / "items")
        assert not stale.exists()  # the new folder of parts replaces the old one whole
        one = streamed(path, scheduler=client)  # ridge folds: the first pass only
    for a, b in zip(one.means + one.groups, local.means + local.groups, strict=True):
        close(a, b)
    for a, b in zip(res.means, local.means, strict=True):
        close(a, b)
    for a, b in zip(res.groups, local.groups, strict=True):
        close(a, b)
    close(res.quantiles[0.5][0], local.quantiles[0.5][0])
    items = pd.read_parquet(tmp_path / "items").sort_values("item")
    np.testing.assert_allclose(items["score"], pd.read_parquet(local.items_out)["score"])


def _broken(tmp_path, how: str):
    df = frame(3000, seed=5)
    path = write_dataset(df, tmp_path / how, parts=3)
    victim = path / "part-1.parquet"
    part = pd.read_parquet(victim)
    if how == "text":
        part["j1"] = part["j1"].astype(object)
        part.loc[part.index[17], "j1"] = "unsure"  # 'n/a' is an empty cell, as in memory
        part["j1"] = part["j1"].astype(str).replace("nan", None)
        part.to_parquet(victim, index=False)
    elif how == "missing":
        part.drop(columns="j2").to_parquet(victim, index=False)
    elif how == "infinite":  # found by the compiled sweep, named by the checks
        part.loc[part.index[23], "j2"] = -np.inf
        part.to_parquet(victim, index=False)
    elif how == "unscored":
        part.loc[part.index[31], JUDGES] = np.nan
        part.to_parquet(victim, index=False)
    elif how == "infinite label":  # found among the labeled rows, named by the checks
        part.loc[part.index[41], "label"] = np.inf
        part.to_parquet(victim, index=False)
    else:
        victim.write_bytes(b"PAR1 this is not parquet")
    return path


@pytest.mark.parametrize(
    ("how", "needles"),
    [
        ("text", ["part-1.parquet", "row 17", "'j1'", "'unsure'"]),
        ("missing", ["part-1.parquet", "no column 'j2'"]),
        ("infinite", ["part-1.parquet", "row 23", "'j2'", "infinite"]),
        ("unscored", ["part-1.parquet", "row 31", "no judge score"]),
        ("infinite label", ["part-1.parquet", "row 41", "'label'", "infinite"]),
        ("unreadable", ["part-1.parquet", "cannot be read"]),
    ],
)
def test_bad_input_names_file_row_column_and_writes_nothing(tmp_path, capsys, how, needles):
    path = _broken(tmp_path, how)
    out = tmp_path / "items.parquet"
    args = ["estimate", str(path), "--label", "label", "--judge", "j*", "--group", "grp",
            "--engine", "freq", "--items-out", str(out)]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err
    for needle in needles:
        assert needle in err
    assert "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob(".items*"))


def test_a_file_copied_twice_is_named_by_its_files_and_rows(tmp_path, capsys):
    """Labeled ids repeated across files got the Python API's message: "row 407 by
    position", "pass item=COLUMN" (given as --item), "pd.concat", no file named."""
    df = frame(1200, seed=3)
    df.insert(0, "id", [f"it{i:05d}" for i in range(len(df))])
    path = write_dataset(df, tmp_path / "copied", parts=2, row_group=300)
    (path / "part-2.parquet").write_bytes((path / "part-0.parquet").read_bytes())
    first = int(np.flatnonzero(df["label"].notna())[0])
    args = ["estimate", str(path), "--label", "label", "--judge", "j*", "--item", "id",
            "--engine", "freq"]  # fmt: skip
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"item 'it{first:05d}' is labeled on two rows: file " in err, err
    assert f"part-0.parquet', row {first} and file " in err
    assert f"part-2.parquet', row {first} (" in err and "remove the file copied twice" in err
    assert "pd.concat" not in err and "item=COLUMN" not in err


def test_cli_streams_a_dataset_folder(pools, capsys):
    _, path, _, res = pools
    args = ["estimate", str(path), "--label", "label", "--judge", "j*", "--group", "grp",
            "--propensity", "pi", "--engine", "freq", "--seed", "1", "--json"]  # fmt: skip
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["streamed"] and out["n_items"] == 6000
    np.testing.assert_allclose(out["mean"]["aee"]["estimate"], res.means[0].estimate, rtol=RTOL)
    with pytest.raises(ValidationError, match="embedding"):
        from bacon_bayes.cli import build_parser
        from bacon_bayes.cli.stream import run_stream

        ns = build_parser().parse_args([*args, "--embedding", "emb_"])
        run_stream(ns, Calibrator(), None)


def test_threads_do_not_change_the_result(pools):
    _, path, _, _ = pools
    one = streamed(path, quantiles=[0.5], threads=1)
    res = streamed(path, quantiles=[0.5], threads=3)
    for a, b in zip(one.means + one.quantiles[0.5], res.means + res.quantiles[0.5], strict=True):
        assert a == b
    for a, b in zip(one.groups, res.groups, strict=True):
        np.testing.assert_array_equal(a.estimate, b.estimate)
        np.testing.assert_array_equal(a.ci_high, b.ci_high)


def test_cli_stream_prints_what_in_memory_prints(tmp_path, capsys):
    """Issue 43: streamed, the item ids were row numbers, the target line and the
    comparisons were missing and the groups came M10 before M8."""
    df = frame(n=1600, seed=3)
    df["grp"] = df["grp"].map({"a": "M8", "b": "M9", "c": "M10", "d": "M11"})
    df.insert(0, "id", [f"it{i:05d}" for i in range(len(df))])
    folder = write_dataset(df, tmp_path / "pool", parts=2, row_group=400)
    df.to_csv(tmp_path / "pool.csv", index=False)
    common = ["--label", "label", "--judge", "j*", "--group", "grp", "--propensity", "pi",
              "--engine", "freq", "--seed", "1", "--surrogates", "none"]  # fmt: skip
    assert main(["estimate", str(tmp_path / "pool.csv"), *common]) == 0
    memory = capsys.readouterr().out.splitlines()
    items = tmp_path / "items.pq"
    assert main(["estimate", str(folder), *common, "--items-out", str(items)]) == 0
    stream = capsys.readouterr().out.splitlines()
    assert stream[0] == memory[0] + "; streamed"
    assert stream[1] == memory[1] == "target: pool (the 1,600 items of this pool)"
    body = [line for line in memory[2:] if not line.startswith("bacon plan")]
    assert stream[2 : 2 + len(body)] == body  # groups, comparisons and ranks alike
    groups = [line.split()[0] for line in body if line.strip().startswith("M")][:4]
    assert groups == ["M8", "M9", "M10", "M11"]
    assert any(line.startswith("comparisons of 'grp'") for line in stream)
    assert list(pd.read_parquet(items)["item"]) == list(df["id"])  # ids, not row numbers
    assert main(["estimate", str(folder), *common, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["target"]["target"] == "pool" and out["comparisons"]["n_pairs"] == 6


def test_stream_says_why_it_takes_no_prompt_and_where_the_plan_line_stands(tmp_path, capsys):
    """Issue 43: streaming refused --prompt without saying why, and its comparisons had no
    line where the in-memory plan line stands."""
    df = frame(n=1200, seed=4)
    df["label"] = df["label"] - 0.4 * df["grp"].map({"a": 0, "b": 1, "c": 2, "d": 3})
    df["doc"] = np.arange(len(df)) // 4
    folder = write_dataset(df, tmp_path / "pool", parts=2, row_group=300)
    common = ["--label", "label", "--judge", "j*", "--group", "grp", "--propensity", "pi",
              "--engine", "freq", "--surrogates", "none"]  # fmt: skip
    assert main(["estimate", str(folder), *common, "--prompt", "doc"]) == 2
    err = capsys.readouterr().err
    assert "--prompt is not supported when streaming: it does not use prompts" in err
    assert "estimate in memory" in err
    assert main(["estimate", str(folder), *common]) == 0
    out = capsys.readouterr().out
    assert "best grp not clear" in out
    assert "not predicted when streaming (the plan needs the pool's items in memory)" in out


def test_streamed_blank_strings_are_empty_cells(tmp_path):
    """As in EvalPool.from_frame: a cell of spaces only in a number column is empty."""
    rng = np.random.default_rng(1)
    n = 200
    y = np.where(np.arange(n) < 60, rng.normal(3, 1, n).round(2).astype(str), " ")
    frame = pd.DataFrame({"y": y, "j": rng.normal(3, 1, n)})
    frame.to_csv(tmp_path / "t.csv", index=False)
    result = estimate_stream(tmp_path / "t.csv", Calibrator(engine="freq"), label="y", judges=["j"])
    assert result.means[0].n_labeled == 60


def test_streamed_cells_read_as_in_memory_and_errors_name_csv_lines(tmp_path, capsys):
    """Finding T1-14: streamed, verdict words ('Correct') and percentages ('80%') were
    refused that the in-memory command reads, and a bad cell was named by its row from 0
    where the other commands name its CSV line."""
    rng = np.random.default_rng(2)
    n = 400
    y = np.where(rng.random(n) < 0.6, 1.0, 0.0)
    judge = np.clip(np.round(100 * (0.3 + 0.4 * y + 0.2 * rng.random(n))), 0, 100)
    labeled = rng.random(n) < 0.3
    numbers = pd.DataFrame({"id": [f"q{i}" for i in range(n)], "j": judge})
    numbers["human"] = np.where(labeled, y, np.nan)
    words = numbers.assign(
        j=[f"{v:g}%" for v in judge],
        human=np.where(labeled, np.where(y == 1, "Correct", "Incorrect"), None),
    )
    numbers.to_csv(tmp_path / "numbers.csv", index=False)
    words.to_csv(tmp_path / "words.csv", index=False)
    args = ["--label", "human", "--item", "id", "--judge", "j", "--engine", "freq",
            "--outcome", "continuous", "--json", "--chunk-rows", "100"]  # fmt: skip
    assert main(["estimate", str(tmp_path / "numbers.csv"), *args]) == 0
    want = json.loads(capsys.readouterr().out)
    assert main(["estimate", str(tmp_path / "words.csv"), *args]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["streamed"] and got["mean"] == want["mean"]
    words.loc[6, "human"] = "unsure"  # line 8 of the CSV (header on line 1)
    words.to_csv(tmp_path / "bad.csv", index=False)
    assert main(["estimate", str(tmp_path / "bad.csv"), *args[:-3]]) == 2
    assert "line 8" in capsys.readouterr().err  # in memory
    assert main(["estimate", str(tmp_path / "bad.csv"), *args]) == 2
    err = capsys.readouterr().err
    assert "line 8, column 'human': non-numeric value 'unsure'" in err


def test_streamed_dashes_and_decimal_commas_read_as_in_memory(tmp_path, capsys):
    """A decimal-comma CSV whose judge column holds '-' in its empty cells and '3,5'
    beside whole numbers: the in-memory reader takes '-' as empty and '3,5' as 3.5; the
    streamed one stopped at the first '-', then at the first '3,5'."""
    rng = np.random.default_rng(3)
    n = 400
    y = np.round(rng.uniform(1, 5, n) * 2) / 2
    judge = np.clip(np.round((y + rng.normal(0, 0.6, n)) * 2) / 2, 1, 5)
    other = np.clip(np.round(y + rng.normal(0, 0.8, n)), 1, 5)
    clean = pd.DataFrame({"id": [f"q{i}" for i in range(n)], "j": judge, "k": other})
    clean["human"] = np.where(rng.random(n) < 0.3, y, np.nan)
    dashed = clean.astype({"j": object})
    dashed.loc[[5, 50, 150], "j"] = "-"
    clean.loc[[5, 50, 150], "j"] = np.nan
    for name, frame in (("clean", clean), ("dashed", dashed)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False, sep=";", decimal=",")
    args = ["--label", "human", "--item", "id", "--judge", "j", "--judge", "k", "--engine",
            "freq", "--outcome", "continuous", "--json", "--chunk-rows", "100"]  # fmt: skip
    assert main(["estimate", str(tmp_path / "clean.csv"), *args]) == 0
    want = json.loads(capsys.readouterr().out)
    assert main(["estimate", str(tmp_path / "dashed.csv"), *args]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["streamed"] and got["mean"] == want["mean"]


def _zero_one_table(tmp_path) -> None:
    """t.csv in ``tmp_path``: 600 items of three groups, a 0/1 label on about 15%."""
    rng = np.random.default_rng(4)
    n = 600
    p = np.repeat([0.95, 0.5, 0.2], n // 3)
    y = (rng.random(n) < p).astype(float)
    frame = pd.DataFrame({"id": np.arange(n), "g": np.repeat(["a", "b", "c"], n // 3),
                          "j": np.clip(p + rng.normal(0, 0.2, n), 0, 1),
                          "human": np.where(rng.random(n) < 0.15, y, np.nan)})  # fmt: skip
    frame.to_csv(tmp_path / "t.csv", index=False)


def test_streamed_zero_one_label_is_binary_as_in_memory(tmp_path, capsys):
    """Tester D finding 12: a 0/1 label streamed without --outcome was fitted by the ridge,
    its group intervals ran past 1 and nothing said which outcome it took; it is read as
    binary as in memory, said in a note."""
    _zero_one_table(tmp_path)
    args = ["estimate", str(tmp_path / "t.csv"), "--label", "human", "--item", "id",
            "--judge", "j", "--group", "g", "--engine", "freq", "--json"]  # fmt: skip
    assert main([*args, "--chunk-rows", "100"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["streamed"] and got["model"] == "multinomial"
    assert any("takes only 0 and 1: estimated as a binary" in note for note in got["notes"])
    for table in got["groups"].values():
        assert all(0 <= row["ci_low"] and row["ci_high"] <= 1 for row in table["rows"])
    assert main([*args[:-1], "--chunk-rows", "100"]) == 0
    assert "note: 'human' takes only 0 and 1" in capsys.readouterr().out


def _zero_one_notes(out: str) -> list[str]:
    """The notes of ``out`` on a label's 0 and 1 (its levels, its binary outcome)."""
    return [x for x in out.splitlines() if x.startswith("note:") and re.search("0,1|0 and 1", x)]


def test_a_zero_one_label_gets_one_note_not_two_overlapping(tmp_path, capsys):
    """H1 item 6: `bacon estimate` on a 0/1 label with --group (a TriviaQA subset) printed
    two notes of one fact, "levels 0,1 inferred from the labels; --levels 0,1 ... declares
    them, e.g. when some level has no label yet" and "'human' takes only 0 and 1: estimated
    as a binary (categorical) label". Now one note says both, in memory, streamed and from
    a study folder alike."""
    _zero_one_table(tmp_path)
    args = ["estimate", str(tmp_path / "t.csv"), "--label", "human", "--item", "id",
            "--judge", "j", "--group", "g", "--engine", "freq"]  # fmt: skip
    for extra in ([], ["--chunk-rows", "100"]):
        assert main([*args, *extra]) == 0
        notes = _zero_one_notes(capsys.readouterr().out)
        assert len(notes) == 1 and "takes only 0 and 1" in notes[0], notes
        assert "levels 0,1 (--outcome categorical --levels 0,1" in notes[0]
    study = tmp_path / "s"
    assert main(["sample", str(tmp_path / "t.csv"), "--study", str(study), "--label", "human",
                 "--item", "id", "--judge", "j", "--group", "g", "--budget", "10",
                 "--out", str(tmp_path / "todo.csv")]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["estimate", str(study), "--engine", "freq", "--fixed", "--allow-pending"]) == 0
    notes = _zero_one_notes(capsys.readouterr().out)
    assert len(notes) == 1, notes  # the study records categorical: its levels' note alone


def test_stream_says_the_small_budget_rule_is_not_streamed(tmp_path, capsys):
    """Finding A8: with fewer than 20 labels per model coefficient the in-memory estimate
    uses the judges' leave-one-out ridge (the small-budget rule) and the stream the
    model's surrogate; the stream did not say so, and took --surrogates small-budget
    without a word."""
    df = frame(n=400, seed=6)  # 21 labels, 3 coefficients: 7 each, below the rule's 20
    df.to_csv(tmp_path / "pool.csv", index=False)
    common = ["estimate", str(tmp_path / "pool.csv"), "--label", "label", "--judge", "j*",
              "--group", "grp", "--propensity", "pi", "--engine", "freq", "--json"]  # fmt: skip
    assert main(common) == 0
    memory = json.loads(capsys.readouterr().out)
    assert memory["surrogates"] == ["ridge (freq), not in the means", "judge_ridge"]
    assert main([*common, "--chunk-rows", "100"]) == 0
    notes = json.loads(capsys.readouterr().out)["notes"]
    said = [n for n in notes if "small-budget rule" in n]
    assert len(said) == 1 and "model's surrogate alone" in said[0]
    assert "judge_ridge" in said[0] and "not streamed" in said[0]
    assert main([*common, "--chunk-rows", "100", "--surrogates", "small-budget"]) == 2
    err = capsys.readouterr().err
    assert "--surrogates small-budget" in err and "not streamed" in err
    assert "--surrogates none" in err
    # where the rule keeps the model's surrogate, the two agree and nothing is said
    assert main([*common, "--chunk-rows", "100", "--surrogates", "none"]) == 0
    assert not [n for n in json.loads(capsys.readouterr().out)["notes"] if "small-budget" in n]
