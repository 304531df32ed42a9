"""Study folder workflow: waves, status, and the frame handed to the estimator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.errors import ValidationError
from bacon_bayes.sampling import combine_waves
from bacon_bayes.study import (
    PROPENSITY_COLUMN,
    Study,
    StudyConfig,
    draw_wave,
    import_labels,
    load_study,
    pending_items,
)
from bacon_bayes.study.folder import WAVE_COLUMN

from .conftest import N_POOL, bacon, fill, record_budget


def label_all_pending(root: Path, pool_file: Path, tmp_path: Path) -> None:
    todo = tmp_path / "pending.csv"
    assert bacon("status", str(root), "--pending-out", str(todo)) == 0
    import_labels(root, fill(todo, pool_file, tmp_path / "filled.csv"))


def test_three_waves_and_recorded_probabilities(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    with pytest.raises(ValidationError, match="no label yet"):
        load_study(study)
    with pytest.raises(ValidationError, match="have no label yet"):
        draw_wave(study, "adaptive", 30)
    label_all_pending(study, pool_file, tmp_path)
    wave2, adaptive_design = draw_wave(study, "adaptive", 30, seed=4, max_ratio=np.inf)
    # a study without groups keeps the library's default share (0.5 with groups)
    assert Study.open(study).config.group is None
    assert adaptive_design.params["uniform_share"] == 0.2
    label_all_pending(study, pool_file, tmp_path)
    assert bacon("sample", str(study), "--design", "two-stage", "--budget", "30",
                 "--seed", "5", "--out", str(tmp_path / "t3.csv")) == 0  # fmt: skip
    capsys.readouterr()
    assert bacon("status", str(study)) == 0
    table = capsys.readouterr().out
    assert "adaptive" in table and "two-stage" in table and "pending" in table

    s = Study.open(study)
    assert s.wave_numbers == [1, 2, 3]
    probs = s.wave_probabilities()
    assert np.allclose(probs[:, 0], 40 / N_POOL)
    assert np.array_equal(probs[:, 1], adaptive_design.pi), "manifest round-trips exactly"
    assert wave2 == 2
    status = s.status()
    assert status["selected"].iloc[0] == 40
    assert status["pending"].iloc[:2].tolist() == [0, 0]

    data = load_study(study, allow_pending=True)
    frame = data.frame
    labeled = frame[data.label].notna()
    union = combine_waves(list(probs[:, :2].T))  # wave 3, none of it back, counts as not drawn
    # an adaptive wave (fitted on wave 1's labels): the labels weigh wave by wave, with
    # each wave's share of the expected labels and the probability that drew them
    assert np.allclose(frame.loc[~labeled, PROPENSITY_COLUMN], union[~labeled])
    first = s.first_wave()
    planned = [probs[:, 0].sum(), probs[first != 1, 1].sum()]
    share = np.array(planned) / sum(planned)
    in1, in2 = (labeled & (first == 1)).to_numpy(), (labeled & (first == 2)).to_numpy()
    got = frame[PROPENSITY_COLUMN].to_numpy()
    assert np.allclose(got[in1], 1 / (share[0] / probs[in1, 0] + share[1]))
    assert np.allclose(got[in2], 1 / (share[1] / probs[in2, 1]))
    assert not np.allclose(got[labeled.to_numpy()], union[labeled.to_numpy()])
    # before the adaptive wave: the union (here wave 1's probabilities)
    early = load_study(study, allow_pending=True, up_to_wave=1).frame
    assert np.allclose(early[PROPENSITY_COLUMN], probs[:, 0])
    assert labeled.sum() == 40 + status["selected"].iloc[1]
    assert data.n_pending == status["selected"].iloc[2]
    assert frame.loc[labeled, PROPENSITY_COLUMN].gt(0).all()
    truth = frame.loc[labeled, "truth"].to_numpy(float)
    assert np.array_equal(frame.loc[labeled, data.label].to_numpy(float), truth)
    assert data.pool_kwargs() == {
        "label": "human",
        "judges": ["judge_a", "judge_b"],
        "outcome": "ordinal",
        "levels": [1.0, 2.0, 3.0, 4.0, 5.0],
        "group": None,
        "propensity": PROPENSITY_COLUMN,
        "item": "id",
        "wave": WAVE_COLUMN,
    }


def test_stratified_and_bernoulli_waves(study: Path, pool_file: Path, tmp_path: Path) -> None:
    _, strat = draw_wave(study, "stratified", 30, strata="system", allocation="proportional")
    assert strat.n_selected == 30
    label_all_pending(study, pool_file, tmp_path)
    _, neyman = draw_wave(study, "stratified", 20, strata="judge_a", bins=4, allocation="neyman")
    assert neyman.n_selected == 20 and len(neyman.params["strata"]) == 4
    _, bern = draw_wave(study, "bernoulli", 0.1, seed=3)
    eligible_before = N_POOL - 90
    assert np.allclose(bern.pi, 20 / eligible_before)
    s = Study.open(study)
    first = s.first_wave()
    assert np.bincount(first[first > 0]).tolist()[1:] == [40, 30, 20, bern.n_selected]


def test_a_stratified_wave_of_a_study_with_groups_is_by_its_groups(
    tmp_path: Path, pool_file: Path, capsys: pytest.CaptureFixture
) -> None:
    """A study walk: `bacon sample pool.csv --group system --design stratified` was
    refused, "needs --strata", though the study names its groups; it draws by them now and
    says so (a study without groups is still refused: the test above)."""
    root = tmp_path / "grouped"
    argv = ["--study", str(root), "--item", "id", "--label", "truth", "--existing-labels",
            "ignore", "--judge", "judge_a", "--group", "system"]  # fmt: skip
    assert bacon("sample", str(pool_file), *argv, "--design", "stratified", "--budget", "30") == 0
    assert "strata: the study's group column 'system'" in capsys.readouterr().out
    wave = Study.open(root).waves[-1]
    assert wave["design"] == "stratified" and set(wave["params"]["strata"]) == {"s1", "s2", "s3"}


def test_poisson_wave_from_a_column(tmp_path: Path, pool_file: Path) -> None:
    frame = pd.read_csv(pool_file)
    frame["p"] = np.linspace(0.05, 0.5, len(frame))
    frame.to_csv(pool_file, index=False)
    root = tmp_path / "poisson"
    argv = ["--design", "poisson", "--pi-column", "p", "--item", "id"]
    assert bacon("sample", str(pool_file), "--study", str(root), *argv) == 0
    assert np.array_equal(Study.open(root).inclusion_probability(), frame["p"].to_numpy())


def test_poisson_zero_probability_is_refused_at_sample_time(
    tmp_path: Path, pool_file: Path, capsys: pytest.CaptureFixture
) -> None:
    """A --pi-column of zeros was recorded, and every later estimate failed naming the
    study's internal column (T4 finding 7): refused at once, naming the user's column and
    row, with nothing recorded."""
    frame = pd.read_csv(pool_file)
    frame["p"] = 0.3
    frame.loc[[3, 7, 9], "p"] = 0.0
    frame.to_csv(pool_file, index=False)
    root = tmp_path / "poisson"
    argv = ["--design", "poisson", "--pi-column", "p", "--item", "id"]
    capsys.readouterr()
    assert bacon("sample", str(pool_file), "--study", str(root), *argv) == 2
    err = capsys.readouterr().err
    assert "--pi-column 'p' holds 0.0 in row 5 of the pool file" in err
    assert f"(item {frame.loc[3, 'id']!r}) and in 2 other rows" in err
    assert "inclusion_probability" not in err
    assert not root.exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--design", "stratified", "--budget", "10"], "needs --strata"),
        (["--design", "uniform", "--budget", "500"], "only 160 items"),
        (["--design", "uniform", "--budget", "-1"], "budget must be"),
        (["--design", "poisson"], "needs --pi-column"),
    ],
)
def test_bad_sample_requests_are_refused(
    study: Path, argv: list[str], message: str, capsys: pytest.CaptureFixture
) -> None:
    capsys.readouterr()
    assert bacon("sample", str(study), *argv) == 2
    assert message in capsys.readouterr().err


def test_pool_problems_are_named(tmp_path: Path, pool_file: Path) -> None:
    frame = pd.read_csv(pool_file)
    frame.loc[5, "id"] = frame.loc[4, "id"]
    bad = tmp_path / "dup.csv"
    frame.to_csv(bad, index=False)
    with pytest.raises(ValidationError, match="appears more than once"):
        draw_wave_new(bad, tmp_path / "s1")
    with pytest.raises(ValidationError, match="no id column 'doc'"):
        draw_wave_new(pool_file, tmp_path / "s2", item="doc")
    with pytest.raises(ValidationError, match="not a study folder"):
        Study.open(tmp_path)


def test_a_pool_grown_after_sampling_is_named_not_the_manifest(
    study: Path, pool_file: Path
) -> None:
    """Tester T3, finding 3: rows appended to the pool file after sampling were blamed on
    the study ("the manifest is damaged"); the pool file changed, and the error says so."""
    frame = pd.read_csv(pool_file, dtype={"id": str})
    more = frame.iloc[:5].assign(id=lambda f: f["id"] + "x")
    pd.concat([frame, more]).to_csv(pool_file, index=False)
    with pytest.raises(ValidationError, match="has 5 item") as caught:
        Study.open(study)
    message = str(caught.value)
    assert "changed after sampling" in message and "x'" in message
    assert "damaged" not in message and "new study" in message


def draw_wave_new(pool: Path, root: Path, item: str = "id") -> None:
    from bacon_bayes.study import StudyConfig, create_study

    create_study(root, StudyConfig(pool=str(pool.resolve()), item=item))


def test_loaded_study_feeds_the_pool_and_the_estimator(
    study: Path, pool_file: Path, tmp_path: Path
) -> None:
    from bacon_bayes.estimate import aee_mean

    label_all_pending(study, pool_file, tmp_path)
    draw_wave(study, "adaptive", 40, seed=2, max_ratio=np.inf)
    label_all_pending(study, pool_file, tmp_path)
    data = load_study(study)
    pool = data.to_pool(judges=None, text="system")
    assert pool.text is not None
    assert pool.n_labeled == int(data.frame[data.label].notna().sum())
    assert np.array_equal(pool.propensity, data.frame[PROPENSITY_COLUMN].to_numpy())
    judge_mean = data.frame[["judge_a", "judge_b"]].mean(axis=1).to_numpy()
    est = aee_mean(pool.y, judge_mean, pool.labeled, pool.propensity)
    assert est.ci_low < est.estimate < est.ci_high


def test_strata_with_gaps_are_refused(study: Path, pool_file: Path) -> None:
    frame = pd.read_csv(pool_file)
    frame.loc[7, "system"] = None
    frame.to_csv(pool_file, index=False)
    with pytest.raises(ValidationError, match="strata column 'system' is empty in row 9"):
        draw_wave(study, "stratified", 10, strata="system")


def test_adaptive_wave_from_the_calibrator(study: Path, pool_file: Path, tmp_path: Path) -> None:
    """The wave follows the calibrator's predictive sd (ordinal model: item-specific)."""
    from bacon_bayes.sampling import adaptive_probabilities
    from bacon_bayes.study.waves import calibrator_sd

    label_all_pending(study, pool_file, tmp_path)
    s = Study.open(study)
    sd = calibrator_sd(s, None, "freq", 5, 0)
    assert sd.std() > 0.05 * sd.mean(), "an ordinal model's predictive sd varies by item"
    _, wave = draw_wave(
        study, "adaptive", 30, sd_model="calibrator", engine="freq", max_ratio=np.inf
    )
    expected = adaptive_probabilities(sd, 30, prior=s.inclusion_probability())
    assert np.allclose(wave.pi, expected)


def test_todo_file_shows_pool_columns(study: Path, tmp_path: Path, pool_file: Path) -> None:
    out = tmp_path / "todo2.csv"
    argv = ["--budget", "10", "--show", "system,judge_a", "--out", str(out)]
    assert bacon("sample", str(study), *argv) == 0
    todo = pd.read_csv(out, dtype={"id": str})
    assert todo.columns.tolist() == ["id", "human", "wave", "system", "judge_a"]
    pool = pd.read_csv(pool_file, dtype={"id": str}).set_index("id")
    assert todo["system"].tolist() == pool.loc[todo["id"], "system"].tolist()
    filled = fill(out, pool_file, tmp_path / "filled.csv")
    assert import_labels(study, filled).added == 10, "extra columns are ignored on import"
    with pytest.raises(ValidationError, match="--show column 'nope'"):
        pending_items(Study.open(study), show=["nope"])


def test_bacon_estimate_reads_a_study_with_its_probabilities(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    import json

    assert bacon("estimate", str(study)) == 2
    assert "no label yet" in capsys.readouterr().err
    label_all_pending(study, pool_file, tmp_path)
    draw_wave(study, "adaptive", 30, seed=4, max_ratio=np.inf)
    label_all_pending(study, pool_file, tmp_path)
    capsys.readouterr()
    assert bacon("estimate", str(study), "--engine", "freq", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    data = load_study(study)
    pool = data.to_pool()
    assert out["n_labeled"] == pool.n_labeled and out["n_items"] == pool.n_items
    assert pool.propensity is not None and np.ptp(pool.propensity[pool.labeled]) > 0
    assert bacon("estimate", str(study), "--propensity", "p") == 2
    assert "cannot be given for a study" in capsys.readouterr().err
    assert bacon("estimate", str(study), "--drop-unscored") == 2
    assert "--drop-unscored is for a table" in capsys.readouterr().err


def test_adaptive_wave_steps_back_to_uniform_when_no_gain_is_expected(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Same rule as `bacon simulate`: the labels in hand predict the variance ratio of an
    sd-proportional wave against a uniform one; at or above --max-ratio the wave is
    uniform, and says so."""
    label_all_pending(study, pool_file, tmp_path)
    capsys.readouterr()
    argv = [
        "--design",
        "adaptive",
        "--budget",
        "30",
        "--max-ratio",
        "0",
        "--out",
        str(tmp_path / "t.csv"),
    ]
    assert bacon("sample", str(study), *argv) == 0
    assert "drawing this wave uniformly" in capsys.readouterr().out
    s = Study.open(study)
    info = s.waves[-1]
    assert info["design"] == "uniform" and info["params"]["requested"] == "adaptive"
    assert 0 < info["params"]["expected_variance_ratio"] < 10
    assert np.allclose(s.wave_probabilities()[~(s.first_wave() == 1), 1], 30 / 160)


def test_bacon_estimate_on_a_study_gives_anytime_intervals_over_its_waves(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """The study's waves are the looks: its estimate is a confidence sequence by default
    (alpha-spending with --max-labels), --fixed gives one look's interval."""
    import json

    label_all_pending(study, pool_file, tmp_path)
    draw_wave(study, "adaptive", 30, seed=4, max_ratio=np.inf)
    label_all_pending(study, pool_file, tmp_path)
    pool = load_study(study).to_pool()
    assert pool.waves is not None and pool.wave_names == ("1", "2")
    assert ((pool.waves >= 0) == pool.labeled).all()
    first = load_study(study, up_to_wave=1)  # the study as it stood after wave 1
    look = first.to_pool()
    assert look.n_labeled == 40 and look.wave_names == ("1",)
    assert np.allclose(first.frame.loc[look.labeled, PROPENSITY_COLUMN], 40 / N_POOL)
    with pytest.raises(ValidationError, match="has no wave 7"):
        load_study(study, up_to_wave=7)
    capsys.readouterr()
    runs = {}
    for extra in ([], ["--fixed"]):
        assert bacon("estimate", str(study), "--engine", "freq", "--json", *extra) == 0
        runs[" ".join(extra)] = json.loads(capsys.readouterr().out)
    default, fixed = runs[""], runs["--fixed"]
    # a budget is the study's, recorded once: one tried while reading the estimates is
    # refused (several tried, the narrowest kept, would void the intervals)
    assert bacon("estimate", str(study), "--engine", "freq", "--max-labels", "100") == 2
    assert "records no labelling budget" in capsys.readouterr().err
    assert bacon("sample", str(study), "--max-labels", "100") == 2  # labels came in
    assert "has labels already" in capsys.readouterr().err
    record_budget(study, 100)  # as if recorded before the first labels
    assert bacon("estimate", str(study), "--engine", "freq", "--max-labels", "90") == 2
    assert "records max_labels = 100" in capsys.readouterr().err
    assert bacon("estimate", str(study), "--engine", "freq", "--json") == 0
    spend = json.loads(capsys.readouterr().out)
    assert default["interval_kind"] == "confidence sequence"
    assert spend["interval_kind"] == "alpha-spending"
    assert "interval_kind" not in fixed

    def width(out: dict) -> float:
        return out["mean"]["aee"]["ci_high"] - out["mean"]["aee"]["ci_low"]

    assert width(fixed) < width(spend) < width(default)
    assert bacon("estimate", str(study), "--engine", "freq", "--fixed", "--anytime") == 2
    assert bacon("estimate", str(study), "--engine", "freq", "--wave", "wave") == 2


def test_a_study_created_without_a_budget_says_how_to_record_one_while_it_can(
    tmp_path: Path, pool_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A walk (session 57): a study begun as doctor prints it (no --max-labels) gets the
    confidence sequence, and once labels are in a budget can no longer be recorded; nothing
    said so while it could. Created without one, sample says what each gives and prints the
    command that records one, which runs before the first labels; with one it says nothing."""
    root = tmp_path / "s.study"
    first = ["sample", str(pool_file), "--study", str(root), "--item", "id", "--label", "human"]
    assert bacon(*first, "--judge", "judge_a", "--budget", "20") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "no labelling budget recorded" in out and "confidence sequence" in out
    line = out.split("record it before the first labels come in, with `")[1].split("`")[0]
    assert line == f"bacon sample {root} --max-labels N"
    assert bacon(*line.replace("N", "100").split()[1:]) == 0
    assert "records max_labels = 100" in capsys.readouterr().out
    assert StudyConfig.read(root).max_labels == 100
    budgeted = tmp_path / "b.study"
    again = ["sample", str(pool_file), "--study", str(budgeted), "--item", "id", "--label", "x"]
    assert bacon(*again, "--judge", "judge_a", "--budget", "20", "--max-labels", "100") == 0
    assert "no labelling budget" not in capsys.readouterr().out


def test_a_new_wave_never_overwrites_labels_not_imported(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Tester T3, finding 5: `bacon sample --out todo2.csv` over wave 2's to-label file,
    filled in but not imported, was refused with 'pass --force to replace it', and --force
    dropped its 40 labels. The refusal names the labels and the import; --force too is
    refused. Once they are imported the file may be replaced."""
    import_labels(study, fill(tmp_path / "todo.csv", pool_file, tmp_path / "f1.csv"))
    todo2 = tmp_path / "todo2.csv"
    assert bacon("sample", str(study), "--budget", "20", "--out", str(todo2)) == 0
    fill(todo2, pool_file, todo2)
    capsys.readouterr()
    for force in ((), ("--force",)):
        code = bacon("sample", str(study), "--budget", "20", "--out", str(todo2), *force)
        err = capsys.readouterr().err
        assert code == 2 and "holds 20 label(s) the study has not imported yet" in err, err
        assert f"bacon label import {todo2}" in err
    assert Study.open(study).waves[-1]["wave"] == 2 and pd.read_csv(todo2)["human"].notna().all()
    import_labels(study, todo2)
    assert bacon("sample", str(study), "--budget", "20", "--out", str(todo2), "--force") == 0


def test_status_pending_out_never_overwrites_labels_not_imported(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Session 46 walk: the labeller filled in 100 rows of the file `bacon status
    --pending-out` wrote; running that printed command again refused with "pass --force
    to replace it", and --force dropped the 100 labels. It is refused as `bacon sample
    --out` is, before anything is printed, naming the import; --force too."""
    pending = tmp_path / "pending.csv"
    assert bacon("status", str(study), "--pending-out", str(pending), "--no-questions") == 0
    fill(pending, pool_file, pending, slice(0, 10))
    capsys.readouterr()
    for force in ((), ("--force",)):
        code = bacon("status", str(study), "--pending-out", str(pending), *force)
        out, err = capsys.readouterr()
        assert code == 2 and "--pending-out" in err and "holds 10 label(s)" in err, err
        assert f"bacon label import {pending}" in err and not out
    assert pd.read_csv(pending)["human"].notna().sum() == 10


def test_pending_labels_error_names_the_option(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """`bacon report STUDY` with labels pending says which option allows them (it said
    "allow pending items" without naming --allow-pending), and that option takes."""
    todo = tmp_path / "todo.csv"
    import_labels(study, fill(todo, pool_file, tmp_path / "half.csv", slice(0, 20)))
    assert bacon("estimate", str(study), "--engine", "freq") == 2
    err = capsys.readouterr().err
    assert "--allow-pending" in err and "20 selected items have no label yet" in err
    assert bacon("estimate", str(study), "--engine", "freq", "--allow-pending") == 0


def test_a_study_with_no_label_back_says_so_and_plans_without_a_pilot(
    study: Path, capsys: pytest.CaptureFixture
) -> None:
    """Tester B finding 18: on a study whose only wave had no label back, estimate,
    report and plan offered --allow-pending, which then failed on "propensity column
    'inclusion_probability' is 0.0 at line 2", a column the user never made. Now estimate
    and report say no label has come back and how to import some, whether or not
    --allow-pending is given; plan --allow-pending plans without a pilot, as on a table
    without labels."""
    for extra in ([], ["--allow-pending"]):
        assert bacon("estimate", str(study), "--engine", "freq", *extra) == 2
        err = capsys.readouterr().err
        assert "no label yet" in err and "0 of 40 selected items labeled" in err, err
        assert "inclusion_probability" not in err and "bacon label import" in err
    assert bacon("plan", str(study), "--half-width", "0.1", "--allow-pending") == 0
    out = capsys.readouterr().out
    assert "NO PILOT" in out
    assert load_study(study, allow_pending=True).frame["human"].isna().all()
    # the 40 pending items are among the new labels: the printed wave draws 40 fewer (a
    # checker: 420 planned in all, and the printed wave drew 420 beside 60 pending)
    line = next(t for t in out.splitlines() if t.startswith("recommended:"))
    more = int(line.split(" more")[0].rsplit(", ", 1)[1])
    run = next(t for t in out.splitlines() if t.strip().startswith("run: bacon sample"))
    assert f"--budget {more - 40}" in run and "40 fewer" in out, out


def _uniform_then_adaptive(
    frame: pd.DataFrame, group: str, tmp_path: Path, capsys, *options: str
) -> tuple[Path, str, str]:
    """A study of ``frame`` (label ``human`` from ``truth``, judge ``judge``, groups
    ``group``): a uniform wave of 60 labeled, then an adaptive one of 60 that follows the
    sd (with ``options``); what ``bacon sample`` printed for each wave."""
    tmp_path.mkdir(exist_ok=True)
    pool = tmp_path / "pool.csv"
    frame.to_csv(pool, index=False)
    root = tmp_path / "study"
    assert bacon("sample", str(pool), "--study", str(root), "--budget", "60", "--item", "id",
                 "--label", "human", "--judges", "judge", "--group", group,
                 "--out", str(tmp_path / "todo.csv")) == 0  # fmt: skip
    first = capsys.readouterr().out
    todo = tmp_path / "pending.csv"
    assert bacon("status", str(root), "--pending-out", str(todo)) == 0
    import_labels(root, fill(todo, pool, tmp_path / "filled.csv"))
    capsys.readouterr()
    assert bacon("sample", str(root), "--design", "adaptive", "--budget", "60",
                 "--max-ratio", "inf", "--out", str(tmp_path / "w2.csv"),
                 *options) == 0  # fmt: skip
    return root, first, capsys.readouterr().out


def test_adaptive_wave_names_the_groups_it_gives_few_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A group whose labels look easy (a reference: judged 5, labeled 5) gets few labels
    from a wave that follows the predicted sd; each is weighted heavily, and a skewed
    group's mean then misses far more often than its interval says (WMT22's reference
    under adaptive waves: 0.18). `bacon sample` names such groups with the labels each is
    expected to get against a uniform wave's, and the wave record keeps them."""
    rng = np.random.default_rng(1)
    n = 300
    system = np.repeat(["ref", "s1", "s2"], n // 3)
    truth = np.where(system == "ref", 5, rng.integers(1, 5, n))
    judge = np.where(system == "ref", 5.0, np.clip(truth + rng.normal(0, 0.8, n), 1, 4.6))
    frame = pd.DataFrame({"id": [f"i{k}" for k in range(n)], "judge": judge.round(2),
                          "system": system, "truth": truth})  # fmt: skip
    root, _, out = _uniform_then_adaptive(
        frame, "system", tmp_path, capsys, "--uniform-share", "0.2"
    )
    assert "expects few labels in 1 group(s)" in out and "ref " in out, out
    assert "a larger --uniform-share (this wave's: 0.2)" in out
    # session 46 walk (WMT22): the note's list of groups was printed again after the wave's
    # line, a character a line (`for note in shown`, the name reused), and the --show
    # notes it stood for were lost
    assert all(len(line) > 1 for line in out.splitlines() if line), out
    # a wave that follows the sd says so, with the gain it expects (it said nothing)
    assert "adaptive wave: it follows the predicted sd" in out and "uniform share 0.2" in out
    # the ratio it prints is said to be a hopeful model's (tester C finding 6)
    assert "That ratio is a model's prediction from the labels so far, and optimistic" in out
    few = Study.open(root).waves[-1]["params"]["few_labels"]
    assert [g for g, _, _ in few] == ["ref"] and few[0][1] < 0.75 * few[0][2]


def test_adaptive_wave_says_its_budget_is_an_expected_size(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Tester C finding 4: an adaptive wave is a Poisson draw (219 items for --budget 200)
    and neither the output nor --help said so; a uniform wave draws the budget exactly."""
    rng = np.random.default_rng(2)
    n = 300
    truth = rng.integers(1, 6, n)
    judge = (truth + rng.normal(0, 0.8, n)).round(2)
    ids = [f"i{k}" for k in range(n)]
    frame = pd.DataFrame(
        {"id": ids, "system": rng.choice(["a", "b"], n), "judge": judge, "truth": truth}
    )
    root, first, out = _uniform_then_adaptive(frame, "system", tmp_path, capsys)
    drawn = Study.open(root).waves[-1]
    assert drawn["design"] == "adaptive"
    assert "draws each item on its own" not in first
    assert (
        f"wave 2 draws each item on its own: {len(pd.read_csv(tmp_path / 'w2.csv'))} items, "
        f"about {drawn['expected']:.0f} expected (--budget is its expected size: the count "
        "drawn varies around it)" in out
    ), out
    with pytest.raises(SystemExit):
        bacon("sample", "--help")
    assert "With --design adaptive, bernoulli or two-" in " ".join(capsys.readouterr().out.split())


def test_adaptive_wave_on_binary_labels_with_groups_says_not_for_group_means(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """On 0/1 labels adaptive waves broke the anytime group means (TriviaQA: 0.077 on
    average, one model 0.24) though no group was starved: `bacon sample` says so when a
    study of binary labels with groups draws an adaptive wave, at any uniform share (the
    default 0.5 on a study with groups helps, but not over 20 waves), and not on a uniform
    one."""
    rng = np.random.default_rng(2)
    n = 300
    truth = (rng.random(n) < 0.7).astype(int)
    judge = np.clip(truth + rng.normal(0, 0.3, n), 0, 1).round(3)
    frame = pd.DataFrame({"id": [f"i{k}" for k in range(n)], "judge": judge,
                          "model": rng.choice(["a", "b", "c"], n), "truth": truth})  # fmt: skip
    _, first, out = _uniform_then_adaptive(
        frame, "model", tmp_path / "a", capsys, "--uniform-share", "0.2"
    )
    assert "0/1 labels" not in first
    assert "on 0/1 labels adaptive waves" in out and "uniform or stratified" in out, out
    assert "This wave's share is 0.2" in out
    # half of every item's probability uniform, the default on a study with groups, held
    # them over 10 waves (TriviaQA: worst 0.066 over 1,000 sequences) but not over 20
    # (0.167): still said
    root, _, default = _uniform_then_adaptive(frame, "model", tmp_path / "b", capsys)
    assert "adaptive wave not worth it" not in default
    assert "This wave's share is 0.5" in default and "uniform or stratified" in default
    # and the pool mean's interval too can come out wider than a uniform wave's (tester T4,
    # finding 6), however the variance is predicted
    assert "the pool mean's interval wider than a uniform wave's" in default
    assert Study.open(root).waves[-1]["params"]["uniform_share"] == 0.5


def test_an_empty_wave_is_refused_and_one_past_the_budget_spends_what_is_left(
    tmp_path: Path, pool_file: Path, capsys: pytest.CaptureFixture
) -> None:
    """A wave of random size that drew nothing was recorded and moved the estimates (its
    planned share enters the weights) with no new label; it is refused. One that overran
    the recorded budget left the study unusable ("labels exceed max_labels"); its
    alpha-spending intervals now spend what is left of alpha at it."""
    import json

    frame = pd.read_csv(pool_file).assign(tiny=1e-12, half=0.5)
    pool = tmp_path / "pool2.csv"
    frame.to_csv(pool, index=False)
    root = tmp_path / "s"
    assert bacon("sample", str(pool), "--study", str(root), "--budget", "40", "--item", "id",
                 "--label", "human", "--levels", "1,2,3,4,5", "--outcome", "ordinal",
                 "--judges", "judge_a,judge_b", "--max-labels", "60",
                 "--out", str(tmp_path / "w1.csv")) == 0  # fmt: skip
    label_all_pending(root, pool, tmp_path)
    capsys.readouterr()
    assert bacon("sample", str(root), "--design", "poisson", "--pi-column", "tiny") == 2
    assert "drew no item" in capsys.readouterr().err
    assert Study.open(root).wave_numbers == [1]
    assert bacon("sample", str(root), "--design", "poisson", "--pi-column", "half",
                 "--out", str(tmp_path / "w2.csv")) == 0  # fmt: skip
    assert "past its labelling budget (max_labels = 60)" in capsys.readouterr().out
    label_all_pending(root, pool, tmp_path)
    capsys.readouterr()
    assert bacon("estimate", str(root), "--engine", "freq", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["interval_kind"] == "alpha-spending"
    assert out["mean"]["aee"]["details"]["anytime"]["alpha_spent"] == pytest.approx(0.05)


def test_new_study_options_on_a_study_folder_are_refused_not_ignored(
    study: Path, capsys: pytest.CaptureFixture
) -> None:
    """`bacon sample STUDY --scale 0:10 --label foo --judge x` drew a wave and silently
    kept the study's own settings; options that repeat them are fine."""
    capsys.readouterr()
    args = ("sample", str(study), "--budget", "5")
    assert bacon(*args, "--scale", "0:10", "--label", "foo", "--judge", "x") == 2
    err = capsys.readouterr().err
    assert "--label 'foo' (the study has 'human')" in err
    # a scale where the study records none is no clash: it is recorded (session 61,
    # study.core.record_scale), and here nothing is, the command refused
    assert "--scale" not in err and Study.open(study).config.scale is None
    assert "--judge ['x']" in err and "--judges" not in err  # --judges: the old spelling
    assert Study.open(study).wave_numbers == [1]
    assert bacon(*args, "--label", "human", "--judge", "judge_b,judge_a") == 0
    assert Study.open(study).wave_numbers == [1, 2]


def test_a_study_moved_without_its_pool_names_the_setting_to_fix(
    study: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """It said only "pool file elsewhere/pool.csv does not exist"."""
    import shutil

    moved = tmp_path / "elsewhere" / "study"
    moved.parent.mkdir()
    shutil.move(study, moved)
    capsys.readouterr()
    assert bacon("status", str(moved)) == 2
    err = capsys.readouterr().err
    assert "study.toml names it as pool = '../pool.csv', relative to the study folder" in err


def test_a_wave_none_of_whose_labels_came_back_changes_nothing(
    study: Path, pool_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """Drawing a wave and importing none of its labels changed `--allow-pending`'s interval
    of the labels in hand (2x wider in a tester's study with an adaptive wave), and so
    `status --allow-pending` (tester T4, finding 2): such a wave counts as not drawn."""
    import json

    label_all_pending(study, pool_file, tmp_path)
    draw_wave(study, "adaptive", 30, seed=4, max_ratio=np.inf)
    label_all_pending(study, pool_file, tmp_path)
    capsys.readouterr()

    def mean(*extra: str) -> dict:
        assert bacon("estimate", str(study), "--engine", "freq", "--json", *extra) == 0
        return json.loads(capsys.readouterr().out)["mean"]["aee"]

    before = mean()
    draw_wave(study, "uniform", 60, seed=5)
    after = mean("--allow-pending")
    assert load_study(study, allow_pending=True).n_pending == 60
    for key in ("estimate", "se", "ci_low", "ci_high"):
        assert after[key] == pytest.approx(before[key], rel=1e-12), key


def test_a_study_of_0_1_labels_is_estimated_as_binary_and_takes_outcome(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """A study sampled before its first labels records 'continuous'; its 0/1 labels stayed a
    ridge's for ever and `estimate STUDY --outcome categorical` was ignored without a word,
    intervals reaching past 1 (tester T4, finding 1). Read as a table's would be, and the
    option taken."""
    rng = np.random.default_rng(3)
    truth = (rng.random(N_POOL) < 0.7).astype(int)
    judge = np.where(rng.random(N_POOL) < 0.85, truth, 1 - truth)
    pool = tmp_path / "pool.csv"
    pd.DataFrame({"id": [f"q{i}" for i in range(N_POOL)], "judge": judge, "truth": truth}).to_csv(
        pool, index=False
    )
    root = tmp_path / "study"
    assert bacon("sample", str(pool), "--study", str(root), "--budget", "60", "--item", "id",
                 "--label", "human", "--judges", "judge",
                 "--out", str(tmp_path / "todo.csv")) == 0  # fmt: skip
    assert Study.open(root).config.outcome == "continuous"
    todo = tmp_path / "pending.csv"
    assert bacon("status", str(root), "--pending-out", str(todo)) == 0
    said = import_labels(root, fill(todo, pool, tmp_path / "filled.csv"))
    # H1 item 7: study.toml kept 'continuous' while every estimate read the labels as
    # binary; the import that brings them records what the estimate uses, and says so
    assert Study.open(root).config.outcome == "categorical"
    assert "study.toml now records outcome = 'categorical'" in str(said)
    capsys.readouterr()
    assert bacon("estimate", str(root), "--engine", "freq") == 0
    out = capsys.readouterr().out
    assert "model multinomial (freq)" in out and "levels 0,1 inferred" in out
    assert bacon("estimate", str(root), "--engine", "freq", "--outcome", "continuous") == 0
    out = capsys.readouterr().out
    assert "model ridge (freq)" in out and "takes only 0 and 1" not in out


def test_every_item_labeled_gives_the_labels_means_after_an_adaptive_wave(
    study: Path, pool_file: Path, tmp_path: Path
) -> None:
    """With every item labeled, a study with an adaptive wave kept its wave-by-wave weights:
    the pool's and groups' means differed from the labels' own, shown as exact with width-0
    intervals that missed them (tester T4, finding 11: 0.6355 for 0.6372)."""
    from bacon_bayes import Calibrator

    label_all_pending(study, pool_file, tmp_path)
    draw_wave(study, "adaptive", 30, seed=4, max_ratio=np.inf)
    label_all_pending(study, pool_file, tmp_path)
    rest = N_POOL - int(load_study(study).frame["human"].notna().sum())
    draw_wave(study, "uniform", rest, seed=5)
    label_all_pending(study, pool_file, tmp_path)
    data = load_study(study)
    truth = pd.read_csv(pool_file)["truth"].to_numpy(float)
    assert data.frame["human"].notna().all()
    cal = Calibrator(engine="freq").fit(data.to_pool())
    for method in ("aee", "classical"):
        e = cal.estimate_mean(method=method)
        assert e.estimate == pytest.approx(truth.mean(), abs=1e-12) and e.se == 0.0, method
