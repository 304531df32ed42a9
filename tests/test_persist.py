"""Saving and loading a fitted Calibrator (NetCDF, no pickle) reproduces every result."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.errors import ValidationError


def _same(a: Calibrator, b: Calibrator) -> None:
    assert np.array_equal(a.surrogate_, b.surrogate_)
    assert a.estimate_mean().to_dict() == b.estimate_mean().to_dict()
    assert a.estimate_quantile(0.5).to_dict() == b.estimate_quantile(0.5).to_dict()
    ga, gb = a.estimate_groups(), b.estimate_groups()
    assert np.array_equal(ga.ci_low, gb.ci_low) and np.array_equal(ga.cov, gb.cov)
    pd.testing.assert_frame_equal(a.item_scores(), b.item_scores())
    pd.testing.assert_frame_equal(
        a.item_scores(method="posterior"), b.item_scores(method="posterior")
    )
    assert np.array_equal(a.crossfit_.var(), b.crossfit_.var())


@pytest.fixture(scope="module")
def pool():
    rng = np.random.default_rng(4)
    n = 300
    z = rng.normal(size=n)
    df = pd.DataFrame(
        {
            "item": [f"it{i}" for i in range(n)],
            "j1": z + rng.normal(0, 0.5, n),
            "j2": 2 * z + rng.normal(0, 1, n),
            "system": np.array(["a", "b", "c"])[np.arange(n) % 3],
            "text": [f"answer {i}" for i in range(n)],
            "pi": np.full(n, 0.3),
        }
    )
    df["human"] = np.where(rng.random(n) < 0.3, 3 + z + rng.normal(0, 0.5, n), np.nan)
    df.loc[5, "j2"] = np.nan  # a missing judge score round-trips too
    return EvalPool.from_frame(
        df,
        label="human",
        judges=["j1", "j2"],
        outcome="continuous",
        group="system",
        text="text",
        propensity="pi",
        item="item",
    )


def test_frequentist_calibrator_round_trips(pool, tmp_path):
    cal = Calibrator(engine="freq", seed=3, folds=4).fit(pool)
    back = Calibrator.load(cal.save(tmp_path / "cal.nc"))
    assert back.engine_ == "freq" and back.folds == 4 and back.seed == 3
    assert back.pool_.ids.tolist() == pool.ids.tolist() and back.pool_.text[0] == "answer 0"
    assert (back.pool_.group_name, back.pool_.prompt_name) == ("system", None)
    np.testing.assert_array_equal(back.pool_.y, pool.y)
    pd.testing.assert_frame_equal(back.pool_.judge_scores, pool.judge_scores)
    _same(cal, back)


def test_bayesian_calibrator_round_trips_without_refitting(pool, tmp_path):
    from bacon_bayes.bayes import GaussianJudgeModel
    from bacon_bayes.bayes.columns import ColumnSpec
    from bacon_bayes.features import build_features

    spec = ColumnSpec.from_features(build_features(pool))
    model = GaussianJudgeModel(spec, draws=40, tune=50, chains=2, seed=1, warn=False)
    cal = Calibrator(model, folds=2, seed=1).fit(pool)
    path = cal.save(tmp_path / "bayes.nc")
    back = Calibrator.load(path)
    assert [m.fit_id_ for m in back.crossfit_.models] == [m.fit_id_ for m in cal.crossfit_.models]
    recomputed = back.crossfit_._combine(
        [m.predict(back.crossfit_.X) for m in back.crossfit_.models]
    )
    np.testing.assert_array_equal(recomputed, cal.crossfit_.mean)
    _same(cal, back)


def test_refusals(pool, tmp_path):
    with pytest.raises(ValidationError, match="does not exist"):
        Calibrator.load(tmp_path / "missing.nc")
    from sklearn.linear_model import LinearRegression

    cal = Calibrator(LinearRegression()).fit(pool)
    with pytest.raises(ValidationError, match="custom LinearRegression"):
        cal.save(tmp_path / "x.nc")
    import xarray as xr

    xr.Dataset({"a": ("x", [1.0])}).to_netcdf(tmp_path / "other.nc", engine="h5netcdf")
    with pytest.raises(ValidationError, match="not a saved bacon_bayes calibrator"):
        Calibrator.load(tmp_path / "other.nc")


def _damaged_files(good, tmp_path):
    """A truncated, an empty, a non-NetCDF (CSV) and a foreign NetCDF file."""
    import xarray as xr

    raw = good.read_bytes()
    files = {
        "truncated": raw[: len(raw) // 2],
        "empty": b"",
        "csv": b"item,j1,j2\nit0,0.1,0.2\n",
    }
    out = {}
    for kind, data in files.items():
        out[kind] = tmp_path / f"{kind}.nc"
        out[kind].write_bytes(data)
    out["foreign"] = tmp_path / "foreign.nc"
    xr.Dataset({"a": ("x", [1.0])}).to_netcdf(out["foreign"], engine="h5netcdf")
    return out


@pytest.mark.parametrize("kind", ["truncated", "empty", "csv", "foreign"])
def test_damaged_saved_files_give_clear_errors(pool, tmp_path, kind):
    from bacon_bayes.bayes.io import load_model

    good = Calibrator(engine="freq", seed=0).fit(pool).save(tmp_path / "good.nc")
    path = _damaged_files(good, tmp_path)[kind]
    fixes = {Calibrator.load: "Calibrator.save()", load_model: "save_model()"}
    for loader, fix in fixes.items():
        with pytest.raises(ValidationError) as info:
            loader(path)
        message = str(info.value)
        assert str(path) in message and fix in message, message
        if kind != "foreign":
            assert "empty, truncated" in message
    # a calibrator is not a judge model (and says what to pass instead)
    with pytest.raises(ValidationError, match=r"not a bacon_bayes judge model.*save_model"):
        load_model(good)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"\x89HDF\r\n\x1a\n\x00\xff", "cannot be read"),  # binary, not TOML text
        (b"", "has no 'family'"),  # empty
        (b'family = "ordinal"\n[priors\n', "cannot be read"),  # truncated mid-table
        (b"[project]\nname = 'x'\n", "has no 'family'"),  # a foreign TOML file
        (b"family = 'ordinal'\nsampler = 3\n", "must be a table"),
    ],
)
def test_damaged_preset_files_give_clear_errors(tmp_path, capsys, content, match):
    from bacon_bayes.cli import main
    from bacon_bayes.presets import load_preset

    path = tmp_path / "mine.toml"
    path.write_bytes(content)
    with pytest.raises(ValidationError, match=match) as info:
        load_preset(str(path))
    assert str(path) in str(info.value)
    code = main(["estimate", "nothing.csv", "--label", "y", "--judge", "a", "--preset", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and str(path) in err and "Traceback" not in err


def test_pairs_round_trip(tmp_path) -> None:
    """A saved pool of comparisons keeps its pairs: the reloaded calibrator gives the
    same Bradley-Terry strengths (AEE and labels alone), exactly."""
    from importlib.resources import files

    from bacon_bayes.doctor.pairs import pair_judge_diagnostics, pool_pair_diagnostics

    df = pd.read_csv(files("bacon_bayes") / "data" / "arena_sample.csv.gz").iloc[:900]
    pool = EvalPool.from_pairs(
        df, model_a="model_a", model_b="model_b", label="label",
        judges=["gpt4", "claude3_opus", "gpt35"], prompt="prompt", item="id",
    )  # fmt: skip
    cal = Calibrator(engine="freq", folds=3).fit(pool)
    cal.save(tmp_path / "pairs.nc")
    back = Calibrator.load(tmp_path / "pairs.nc")
    assert back.pool_.pairs is not None
    assert back.pool_.pairs.names == pool.pairs.names
    assert np.array_equal(back.pool_.pairs.a, pool.pairs.a)
    assert np.array_equal(back.pool_.pairs.b, pool.pairs.b)
    for kw in ({}, {"method": "labels"}, {"scale": "elo", "simultaneous": True}):
        a, b = cal.estimate_bradley_terry(**kw), back.estimate_bradley_terry(**kw)
        assert a.to_dict() == b.to_dict()
    # the judges' pair diagnostics (bacon report --pairwise) from the saved pool, exactly
    # as from the table the fit read
    diag = pair_judge_diagnostics(df, "label", ["gpt4", "claude3_opus", "gpt35"], level=0.9)
    pd.testing.assert_frame_equal(pool_pair_diagnostics(back.pool_, level=0.9), diag)
    # intervals clustered by prompt (target population; 4 comparisons a prompt) too
    kw = {"model_a": "model_a", "model_b": "model_b", "label": "label", "judges": ["gpt4"]}
    topics = df.assign(topic=[f"t{k // 4}" for k in range(len(df))])
    pool = EvalPool.from_pairs(topics, **kw, prompt="topic")
    pop = Calibrator(engine="freq", folds=3, target="population").fit(pool)
    pop.save(tmp_path / "pop.nc")
    back = Calibrator.load(tmp_path / "pop.nc")
    a, b = pop.estimate_bradley_terry(), back.estimate_bradley_terry()
    assert a.details["clustered_by"] == "prompt" and a.to_dict() == b.to_dict()


@pytest.mark.parametrize(
    "ids",
    [
        pd.date_range("2024-01-01", periods=300, freq="h", tz="Europe/Paris"),
        [i if i % 2 else f"s{i}" for i in range(300)],  # ints and text: 1 is not '1'
        [b"x%d" % i for i in range(300)],
        pd.MultiIndex.from_arrays([np.arange(300) // 3, np.array(["a", "b", "c"] * 100)]),
    ],
    ids=["tz-timestamps", "mixed-int-str", "bytes", "multiindex"],
)
def test_item_ids_keep_their_type_through_save_and_load(ids, tmp_path):
    """Ids of every type a pool takes come back as they were (they came back as text,
    so joins on ``item`` silently lost rows; a MultiIndex pool could not be saved)."""
    rng = np.random.default_rng(0)
    z = rng.normal(size=300)
    df = pd.DataFrame(
        {"j1": z + rng.normal(0, 0.5, 300), "human": np.where(np.arange(300) % 4 == 0, z, np.nan)}
    )
    df.index = ids if isinstance(ids, pd.MultiIndex) else pd.Index(ids, dtype=object)
    pool = EvalPool.from_frame(df, label="human", judges=["j1"], outcome="continuous")
    cal = Calibrator(engine="freq").fit(pool)
    back = Calibrator.load(cal.save(tmp_path / "cal.nc"))
    assert [(type(i), i) for i in back.pool_.ids] == [(type(i), i) for i in pool.ids]
    assert list(back.item_scores().item) == list(cal.item_scores().item)
    assert back.pool_.with_labels([pool.ids[1]], [0.5]).n_labeled == pool.n_labeled + 1


def test_item_ids_of_a_type_save_cannot_keep_are_refused_with_the_fix(tmp_path):
    class Key:  # hashable, but not a value a file can hold
        def __init__(self, k):
            self.k = k

    df = pd.DataFrame({"j1": np.arange(20.0), "human": [1.0, np.nan] * 10})
    df.index = pd.Index([Key(i) for i in range(20)], dtype=object)
    cal = Calibrator(engine="freq").fit(
        EvalPool.from_frame(df, label="human", judges=["j1"], outcome="continuous")
    )
    with pytest.raises(ValidationError, match=r"cannot save the pool's ids.*astype\(str\)"):
        cal.save(tmp_path / "cal.nc")


def test_a_saved_calibrator_missing_a_part_names_it_not_a_truncation(pool, tmp_path):
    """W12: a file without its `config` (or `save_id`...) attribute, or its `/crossfit`
    group, was called "empty, truncated (a copy cut short, a full disk?)" with a bare
    `KeyError: 'config'`; it now names the part, and a setting this version does not know
    names the version that saved it."""
    import json

    import xarray as xr

    good = Calibrator(engine="freq", seed=0).fit(pool).save(tmp_path / "good.nc")
    tree = xr.open_datatree(str(good), engine="h5netcdf").load()
    no_config = tree.copy()
    del no_config.attrs["config"]
    no_config.to_netcdf(tmp_path / "a.nc", engine="h5netcdf")
    with pytest.raises(ValidationError) as info:
        Calibrator.load(tmp_path / "a.nc")
    assert "has no attribute 'config'" in str(info.value)
    assert "truncated" not in str(info.value)
    no_crossfit = xr.DataTree.from_dict(
        {k: v.to_dataset() for k, v in tree.subtree_with_keys if not k.startswith("crossfit")}
    )
    no_crossfit.attrs = dict(tree.attrs)
    no_crossfit.to_netcdf(tmp_path / "b.nc", engine="h5netcdf")
    with pytest.raises(ValidationError, match="has no group '/crossfit'"):
        Calibrator.load(tmp_path / "b.nc")
    newer = tree.copy()
    newer.attrs["bacon_bayes_version"] = "99.0"
    newer.attrs["config"] = json.dumps({**json.loads(tree.attrs["config"]), "future": 1})
    newer.to_netcdf(tmp_path / "c.nc", engine="h5netcdf")
    with pytest.raises(ValidationError, match=r"saved by bacon_bayes 99\.0.*unknown saved setting"):
        Calibrator.load(tmp_path / "c.nc")


def _edited(source, target, drop_root=(), drop_config=(), drop_pool=()):
    """A copy of a saved calibrator file with root attributes, settings and pool
    attributes removed (as an earlier release's file, or an edited one, lacks them)."""
    import json

    import xarray as xr

    from bacon_bayes.io import write_tree

    tree = xr.open_datatree(str(source), engine="h5netcdf").load()
    tree.close()
    attrs = {k: v for k, v in tree.attrs.items() if k not in drop_root}
    config = json.loads(attrs["config"])
    attrs["config"] = json.dumps({k: v for k, v in config.items() if k not in drop_config})
    tree.attrs = attrs
    ds = tree["pool"].to_dataset()
    ds.attrs = {k: v for k, v in ds.attrs.items() if k not in drop_pool}
    tree["pool"] = xr.DataTree(ds, children=dict(tree["pool"].children))
    return write_tree(tree, target)


def test_a_file_of_this_release_missing_a_setting_is_refused_naming_it(pool, tmp_path):
    """A saved calibrator without its `pooling` setting loaded with the default 'auto'
    without a word (the estimates could differ from the saved ones); a file this release
    wrote lacking a key is now refused, naming the file, the key and the fix."""
    good = Calibrator(engine="freq", seed=0, pooling="separate").fit(pool).save(tmp_path / "g.nc")
    for drop in ({"drop_config": ["pooling"]}, {"drop_pool": ["wave_names"]}):
        bad = _edited(good, tmp_path / "bad.nc", **drop)
        with pytest.raises(ValidationError) as info:
            Calibrator.load(bad)
        text = str(info.value)
        assert "bad.nc" in text and "which this release writes in every save" in text
        assert ("'pooling'" if "drop_config" in drop else "'wave_names'") in text
        assert "fit the calibrator again and save it" in text


def test_a_file_of_an_earlier_release_loads_saying_each_value_assumed(pool, tmp_path):
    """A file saved before the `layout` attribute (an earlier release's) without settings
    and attributes added since loads with their earlier values, each named in a warning,
    and gives the estimates it was saved with."""
    from bacon_bayes.errors import OlderFileWarning

    cal = Calibrator(engine="freq", seed=0).fit(pool)
    good = cal.save(tmp_path / "g.nc")
    old = _edited(
        good, tmp_path / "old.nc", drop_root=["layout", "seed_used"],
        drop_config=["group_effects"], drop_pool=["column_names", "pair_names"],
    )  # fmt: skip
    with pytest.warns(OlderFileWarning) as caught:
        back = Calibrator.load(old)
    said = "\n".join(str(w.message) for w in caught)
    for words in (
        "without the setting 'group_effects'; loaded with group_effects='auto'",
        "without attribute 'seed_used'; loaded with seed 0",
        "without pool attribute 'column_names'; loaded with column_names={}",
        "without pool attribute 'pair_names'; loaded with pair_names=null",
    ):
        assert words in said
    assert "old.nc" in said
    _same(cal, back)


def test_an_earlier_release_files_warnings_point_at_the_users_call(pool, tmp_path):
    """Each OlderFileWarning names the user's line whatever the path to it: a fixed
    ``stacklevel=5`` pointed into bacon_bayes (calibrator.py for the settings, one call
    deeper than the seed's) instead of the line that loaded the file."""
    from bacon_bayes.errors import OlderFileWarning
    from bacon_bayes.persist import load_calibrator

    good = Calibrator(engine="freq", seed=0).fit(pool).save(tmp_path / "g.nc")
    old = _edited(
        good, tmp_path / "old.nc", drop_root=["layout", "seed_used"],
        drop_config=["group_effects"], drop_pool=["column_names"],
    )  # fmt: skip
    for load in (Calibrator.load, lambda path: load_calibrator(path, Calibrator)):
        with pytest.warns(OlderFileWarning) as caught:
            load(old)
        assert len(caught) == 3
        assert {w.filename for w in caught} == {__file__}
