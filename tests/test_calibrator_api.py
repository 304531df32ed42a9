"""The Calibrator's API on the shipped example pool: arguments refused the same way
whatever the path taken, and baselines left out (with the reason) where they are none."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool, ValidationError

EXAMPLE = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "example_pool.csv"
JUDGES = ["gpt4", "gpt35", "llama70b"]


def _pool(frame: pd.DataFrame) -> EvalPool:
    return EvalPool.from_frame(
        frame, label="human", judges=JUDGES, outcome="continuous", group="system", item="id"
    )


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return pd.read_csv(EXAMPLE)


def test_summary_and_report_leave_the_naive_baseline_out_for_unscored_rows(frame, tmp_path):
    """Rows no judge scored leave the naive average undefined: the summary and the report
    leave it out with the reason, and give everything else (they raised before)."""
    d = frame.copy()
    d.loc[0:5, JUDGES] = np.nan
    cal = Calibrator(engine="freq").fit(_pool(d))
    s = cal.summary(quantiles=(0.5,))
    assert "6 row(s) have no judge score" in s["naive_left_out"]
    assert set(s["mean"]) == {"aee", "classical"} and set(s["quantiles"]["0.5"]) == set(s["mean"])
    assert set(s["groups"]) == {"aee", "classical"}
    page = cal.report(tmp_path / "x.html").read_text()
    assert "naive (raw judge average) left out: 6 row(s) have no judge score" in page


@pytest.mark.parametrize("winsor", [(0.9, 0.1), (0.5, 0.5), (-0.1, 0.9), (0.1,)])
def test_a_winsor_pair_out_of_order_or_range_is_refused_at_fit(frame, winsor):
    """A reversed or equal pair clipped every judge to a constant, and the estimate
    silently became the classical mean; it is refused, naming winsor and its form."""
    with pytest.raises(ValidationError, match=r"winsor .* 0 <= lower < upper <= 1"):
        Calibrator(engine="freq", winsor=winsor).fit(_pool(frame))
    from bacon_bayes.stream import estimate_stream

    with pytest.raises(ValidationError, match=r"winsor .* 0 <= lower < upper <= 1"):
        estimate_stream(EXAMPLE, Calibrator(winsor=winsor), label="human", judges=JUDGES)


@pytest.fixture(scope="module")
def cal(frame) -> Calibrator:
    return Calibrator(engine="freq", scale=(1, 5)).fit(_pool(frame))


@pytest.mark.parametrize("pooling", ["shrink", "separate"])
def test_unknown_simultaneous_or_interval_is_refused_whatever_the_pooling(cal, pooling):
    """Shrunk group means took 'holm' (or 'yes', 0) as family-wise, recorded it as the
    rule, and took interval='z'; separate means refused them. Both refuse now."""
    for bad in ("holm", "yes", 0):
        with pytest.raises(ValidationError, match=f"simultaneous={bad!r} is not known"):
            cal.estimate_groups(simultaneous=bad, pooling=pooling)
    with pytest.raises(ValidationError, match="simultaneous='holm' is not known"):
        cal.compare_groups(simultaneous="holm", pooling=pooling)
    with pytest.raises(ValidationError, match="interval='z' is not known"):
        cal.estimate_groups(interval="z", pooling=pooling)  # type: ignore[arg-type]
    assert cal.estimate_groups(simultaneous=np.True_, pooling=pooling).simultaneous == "maxt"


def test_groups_without_labels_have_no_classical_mean_and_no_se_made_up(frame):
    """M8 with no label and M9 with one: the classical (labels-only) mean of M8 was the
    pool's labels' mean, noted as the surrogate's mean plus the pool's correction, and the
    separate means gave M8 and M9 (and their differences) an se of 0."""
    d = frame.copy()
    d.loc[d.system == "M8", "human"] = np.nan
    d.loc[d.index[(d.system == "M9") & d.human.notna()][1:], "human"] = np.nan
    cal = Calibrator(engine="freq", scale=(1, 5)).fit(_pool(d))
    for pooling in ("shrink", "separate"):
        f = cal.estimate_groups(method="classical", pooling=pooling).to_frame().set_index("name")
        assert f.loc["M8", ["estimate", "se", "ci_low", "ci_high"]].isna().all()
        assert "no classical (labels-only) mean" in f.loc["M8", "note"]
        assert np.isfinite(f.loc["M10", ["estimate", "se", "ci_low"]].astype(float)).all()
        diffs = cal.compare_groups(method="classical", pooling=pooling).to_frame()
        m8 = diffs["name"].str.startswith("M8 ")
        assert diffs.loc[m8, "estimate"].isna().all()
        assert diffs.loc[~m8, "estimate"].notna().all()  # M8's NaN spoils no other pair
    for method in ("aee", "classical"):
        f = cal.estimate_groups(method=method, pooling="separate").to_frame().set_index("name")
        assert f.loc[["M8", "M9"], "se"].isna().all() and f.loc["M10", "se"] > 0
        diffs = cal.compare_groups(method=method, pooling="separate").to_frame()
        assert diffs.loc[diffs["name"].str.contains("M8 |M9 "), "se"].isna().all()
    aee = cal.estimate_groups(pooling="separate").to_frame().set_index("name")
    assert np.isfinite(aee.loc["M8", "estimate"])  # the surrogate's mean: UNVALIDATED


def test_max_labels_without_anytime_is_refused(cal):
    """max_labels is the anytime intervals' horizon: without anytime=True it was ignored."""
    calls = (cal.estimate_mean, cal.estimate_groups, cal.compare_groups, cal.rank_groups)
    for call in calls:
        with pytest.raises(ValidationError, match="max_labels=400 goes with anytime=True"):
            call(max_labels=400)
        call(max_labels=None)


@pytest.mark.parametrize(
    ("settings", "needle"),
    [
        ({"scale": "1:5"}, "scale='1:5' must be two numbers (low, high), e.g. scale=(1, 5)"),
        ({"scale": 5}, "scale=5 must be two numbers"),
        ({"scale": (1, 5, 7)}, "scale=(1, 5, 7) must be two numbers"),
        ({"folds": "5"}, "folds='5'; cross-fitting needs a whole number"),
        ({"folds": 2.5}, "folds=2.5; cross-fitting needs a whole number"),
        ({"power_tuning": "no"}, "power_tuning='no' must be True or False"),
    ],
)
def test_calibrator_settings_of_the_wrong_type_are_refused_at_fit(frame, settings, needle):
    """Finding T4-8: the command line's spellings and other wrong types gave raw
    TypeError / ValueError, or ran (folds=2.5, power_tuning='no' taken as True)."""
    with pytest.raises(ValidationError, match=re.escape(needle)):
        Calibrator(engine="freq", **settings).fit(_pool(frame))


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda c: c.estimate_mean(alpha="0.05"), "between 0 and 1 (a number, e.g. 0.05)"),
        (lambda c: c.estimate_quantile([0.25, 0.5]), "between 0 and 1; call once per level"),
        (lambda c: c.item_scores(threshold="3"), "threshold='3' must be one number"),
    ],
)
def test_estimand_arguments_of_the_wrong_type_are_refused(cal, call, needle):
    """Finding T4-8: a string alpha, a list of quantile levels or a string threshold."""
    with pytest.raises(ValidationError, match=re.escape(needle)):
        call(cal)


def test_levels_written_as_on_the_command_line_are_refused_with_the_python_form(frame):
    """Finding T4-8: ``levels="1,2,3,4,5"`` (the CLI's spelling) gave a raw ValueError."""
    with pytest.raises(ValidationError, match=re.escape("levels=[1, 2, 3, 4, 5] (the command")):
        EvalPool.from_frame(
            frame, label="gpt4", judges=["gpt35"], outcome="ordinal", levels="1,2,3,4,5"
        )


def test_a_naive_estimate_off_the_label_s_scale_says_so(frame):
    """Finding T4-4: the summary leaves the raw judge average out when the judges score on
    another scale, but estimate_mean/groups/quantile(method="naive") gave it bare."""
    scaled = frame.assign(**{j: frame[j] * 20 for j in JUDGES})  # judges on 0-100
    cal = Calibrator(engine="freq", scale=(1, 5)).fit(_pool(scaled))
    why = cal.summary()["naive_left_out"]
    assert why
    for e in (
        cal.estimate_mean(method="naive"),
        cal.estimate_quantile(0.5, method="naive"),
        cal.estimate_groups(method="naive"),
    ):
        assert e.details["not_comparable"] == why
        assert f"not an estimate of the label: {why}" in str(e)
    assert (
        "not_comparable"
        not in Calibrator(engine="freq").fit(_pool(frame)).estimate_mean(method="naive").details
    )


def test_python_errors_give_the_python_spelling_beside_the_flag(frame, tmp_path):
    """Finding T4-12: errors raised from the Python API prescribed --folds, --outcome,
    --refit, --drop-unscored only, flags a notebook user has not got."""
    with pytest.raises(ValidationError, match=re.escape("--folds (folds= in Python)")):
        Calibrator(engine="freq", folds=200).fit(_pool(frame))
    cal = Calibrator(engine="freq").fit(_pool(frame))
    with pytest.raises(ValidationError, match=re.escape("apply(pool, refit=True) in Python")):
        cal.apply(_pool(frame)).save(tmp_path / "x.nc")
    ordinal = EvalPool.from_frame(
        frame.assign(human=frame["human"].round()), label="human", judges=JUDGES,
        outcome="ordinal", item="id",
    )  # fmt: skip
    with pytest.raises(ValidationError, match=re.escape("outcome='continuous' in EvalPool")):
        cal.apply(ordinal)
    unscored = frame.copy()
    unscored.loc[0, JUDGES] = np.nan
    with pytest.raises(ValidationError, match="in Python, drop those rows from the DataFrame"):
        Calibrator(engine="freq").fit(_pool(unscored)).estimate_mean(method="naive")


def test_a_notebook_shows_the_readable_table_not_the_dataclass_dump(cal):
    """Finding T4-14: a cell ending in ``cal.estimate_groups()`` showed the dataclass repr
    (arrays and the covariance matrix); it now shows what ``print`` shows."""
    for result in (cal.estimate_mean(), cal.estimate_groups(), cal.compare_groups()):
        assert repr(result) == str(result) and "cov=" not in repr(result)
    assert "shrunk toward the other groups" in repr(cal.estimate_groups(pooling="shrink"))
