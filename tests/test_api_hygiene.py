"""The Python API's hygiene (tester E, round 38): outputs written under the commands'
rules, the fitted pool not taken as a fresh one, messages that name the row's index
label and the fix, and results that round-trip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool, ValidationError

EXAMPLE = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "example_pool.csv"
JUDGES = ["gpt4", "gpt35", "llama70b"]


def _pool(frame: pd.DataFrame, **kwargs) -> EvalPool:
    return EvalPool.from_frame(
        frame, label="human", judges=JUDGES, outcome="continuous", group="system", item="id",
        **kwargs,
    )  # fmt: skip


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return pd.read_csv(EXAMPLE)


@pytest.fixture(scope="module")
def cal(frame) -> Calibrator:
    return Calibrator(engine="freq", seed=0, scale=(1, 5)).fit(_pool(frame))


def test_save_and_report_never_overwrite_a_file_bacon_did_not_write(cal, frame, tmp_path):
    """cal.save/cal.report replaced the user's own table (any suffix) silently: they now
    check the suffix and refuse an existing file bacon did not write, naming the fix."""
    data = tmp_path / "mydata.csv"
    frame.to_csv(data, index=False)
    before = data.read_bytes()
    for write, suffix in ((cal.save, ".nc"), (cal.report, ".html")):
        with pytest.raises(ValidationError, match=f"use a {suffix}"):
            write(data)
        with pytest.raises(ValidationError, match=f"use a {suffix}"):
            write(tmp_path / "noext")
        with pytest.raises(ValidationError, match=f"use a {suffix}"):
            write(data, overwrite=True)  # the suffix is checked even then
    assert data.read_bytes() == before and not (tmp_path / "noext").exists()
    theirs = tmp_path / "theirs.nc"
    theirs.write_text("someone else's file")
    with pytest.raises(ValidationError, match=r"not written by bacon.*overwrite=True"):
        cal.save(theirs)
    assert theirs.read_text() == "someone else's file"
    assert cal.save(theirs, overwrite=True) == theirs.resolve()
    assert Calibrator.load(theirs).estimate_mean().estimate == cal.estimate_mean().estimate
    cal.save(theirs)  # bacon's own file, unchanged since: replaced without asking
    page = tmp_path / "page.html"
    cal.report(page)
    cal.report(page)
    page.write_text(page.read_text() + "<!-- edited -->")
    with pytest.raises(ValidationError, match="changed since"):
        cal.report(page)


def test_predict_and_apply_refuse_the_labels_the_calibrator_was_fitted_on(cal, frame):
    """cal.fit(pool).predict(pool) took the training labels as fresh ones (items covered
    0.879 at 0.9, the mean 0.895 at 0.95): refused, naming the fix; fresh labels on the
    same items, or the same pool without its labels' overlap, are still applied."""
    with pytest.raises(ValidationError, match=r"pool the calibrator was fitted on.*item_scores"):
        cal.predict(cal.pool_)
    with pytest.raises(ValidationError, match="fitted on"):
        cal.apply(_pool(frame.copy()), refit=True)
    more = frame.copy()  # the old labels and 30 more: the old ones are in-sample
    extra = more.index[more["human"].isna()][:30]
    more.loc[extra, "human"] = 3.0
    n_old = int(frame["human"].notna().sum())
    with pytest.raises(ValidationError, match=rf"{n_old} of the new pool's {n_old + 30} labels"):
        cal.apply(_pool(more))
    fresh = frame.copy()  # the same items, other labels: fresh
    fresh["human"] = float("nan")
    fresh.loc[extra, "human"] = 3.0
    fresh.loc[fresh.index[:10], "human"] = 4.0
    assert cal.predict(_pool(fresh)).shape[0] == len(frame)


def test_messages_name_the_row_by_its_index_label_and_the_item(frame):
    """A filtered notebook frame's rows are found by index label (df.loc[1042]); the
    messages named the position alone ('row 6'), and the scale check named no item."""
    d = frame.copy()
    d.index = d.index * 7 + 1000
    d["human"] = d["human"].astype(object)
    d.loc[1042, "human"] = "4,5"
    with pytest.raises(ValidationError, match=r"row 6 by position \(index 1042, item 'd000-M14'\)"):
        _pool(d)
    d = frame.copy()
    d.index = d.index * 7 + 1000
    d["human"] = d["human"] * 2
    with pytest.raises(ValidationError, match=r"is 6\.6666 for item 'd000-M14', outside"):
        Calibrator(engine="freq", scale=(1, 5)).fit(_pool(d))


def test_messages_give_the_notebook_fix_and_flags_are_checked(frame, cal):
    """The fixes a notebook user needs: a concatenated index, MultiIndex columns, the
    command line's judge patterns; descending='no' and alpha=0.95 were taken silently."""
    both = pd.concat([frame, frame])
    with pytest.raises(ValidationError, match=r"item=COLUMN.*reset_index\(drop=True\)"):
        EvalPool.from_frame(both, label="human", judges=JUDGES, outcome="continuous")
    multi = frame.copy()
    multi.columns = pd.MultiIndex.from_tuples([("a", c) for c in frame.columns])
    with pytest.raises(ValidationError, match=r"MultiIndex.*flatten"):
        _pool(multi)
    for spelled in ("gpt*", "gpt4,gpt35"):
        with pytest.raises(ValidationError, match=r"in Python pass a list of column names"):
            EvalPool.from_frame(frame, label="human", judges=[spelled], outcome="continuous",
                                item="id")  # fmt: skip
    with pytest.raises(ValidationError, match="descending='no' must be True or False"):
        cal.rank_groups(descending="no")
    with pytest.raises(ValidationError, match=r"alpha=0\.95 asks for a 5% interval.*alpha=0\.05"):
        cal.estimate_mean(alpha=0.95)
    with pytest.raises(ValidationError) as said:  # the fix said once (W10: said twice)
        cal.estimate_mean(alpha=0.95)
    assert str(said.value).count("alpha=0.05") == 1
    with pytest.raises(ValidationError, match=r"alpha=0\.1 for the 90% interval you may"):
        cal.estimate_mean(alpha=0.9)
    assert list(cal.rank_groups(descending=False)["rank"])[:2] == [1, 2]


def test_estimate_table_from_dict_round_trips_exactly(cal):
    """EstimateTable had to_dict but no way back (Estimate has from_dict)."""
    import json

    from bacon_bayes.results import EstimateTable

    for table in (
        cal.estimate_groups(),
        cal.compare_groups(),
        cal.estimate_groups(method="classical"),
    ):
        data = json.loads(json.dumps(table.to_dict()))
        back = EstimateTable.from_dict(data)
        assert back.to_dict() == table.to_dict() and str(back) == str(table)
        for name in ("estimate", "se", "ci_low", "ci_high", "cov", "critical_value",
                     "n_labeled", "n_items"):  # fmt: skip
            mine, theirs = getattr(back, name), getattr(table, name)
            assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs, equal_nan=True)
        assert (back.names, back.alpha, back.simultaneous) == (
            table.names, table.alpha, table.simultaneous,
        )  # fmt: skip


def test_a_difference_counts_both_groups_labels(cal):
    """A difference's n_labeled was the smaller group's ('7 labeled of 200' for M8 - M9,
    19 labels between them) beside both groups' n_items; a default df still comes from
    the smaller group (n - 1)."""
    from bacon_bayes.estimate.tables import group_table

    groups = cal.estimate_groups(method="classical", simultaneous=False)
    diffs = cal.compare_groups(method="classical", simultaneous=False)
    a, b = groups["M8"], groups["M9"]
    d = diffs["M8 - M9"]
    assert d.n_labeled == a.n_labeled + b.n_labeled and d.n_items == a.n_items + b.n_items
    assert f"{a.n_labeled + b.n_labeled} labeled of {a.n_items + b.n_items}" in str(d)
    table = group_table("difference", "aee", ["d"], np.zeros(1), np.eye(1), [19], [200], 0.05,
                        "none", n_df=[7])  # fmt: skip
    assert table.details["df"] == [6.0] and table.n_labeled[0] == 19


def test_the_readmes_python_pointers_resolve():
    """README prose pointed at `bacon_bayes.estimate.bradley_terry`'s `rank_sets` and
    `tiers` (in bt_ranks) and at read_pairwise as returning one frame (it returns a frame
    and its TableMeta): every `from bacon_bayes... import ...` in the prose imports, every
    "`module`'s `name`" names an attribute of it."""
    import importlib
    import re

    from bacon_bayes.readers import read_pairwise

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    prose = re.sub(r"```.*?```", "", readme, flags=re.S).replace("\n", " ")
    for module, names in re.findall(
        r"`(bacon_bayes(?:\.\w+)+)`'s ((?:`\w+`(?:,| and| or)? ?)+)", prose
    ):
        found = importlib.import_module(module)
        for name in re.findall(r"`(\w+)`", names):
            assert hasattr(found, name), f"README: {module} has no {name}"
    imports = re.findall(r"`(from bacon_bayes[\w.]* import [\w, ]+)`", prose)
    assert imports
    for line in imports:
        exec(line, {})
    arena = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "arena_sample.csv.gz"
    frame, _meta = read_pairwise(arena)
    assert (
        isinstance(frame, pd.DataFrame)
        and "frame, meta = bacon_bayes.readers.read_pairwise" in prose
    )


@pytest.mark.parametrize("method", ["item_scores", "judge_bias"])
def test_a_level_is_checked_as_a_coverage_naming_level(cal, method):
    """level='0.9' raised a raw TypeError; judge_bias(level=0.05) answered with
    alpha=0.95's message (a level the user never passed), and item_scores(level=0.05)
    gave 5% intervals without a word."""
    call = getattr(cal, method)
    with pytest.raises(ValidationError, match=r"level='0\.9' must be one number.*level=0\.9"):
        call(level="0.9")
    with pytest.raises(ValidationError, match=r"level=0\.05 asks for 5% intervals.*level=0\.95"):
        call(level=0.05)
    with pytest.raises(ValidationError, match=r"level=90 must lie strictly between 0 and 1"):
        call(level=90)
    assert len(call(level=np.float64(0.8))) > 0
