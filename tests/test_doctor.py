"""bacon doctor: the columns it names on the shipped tables, its printed command runs,
its agreement measures, and the power of its length-bias check."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.doctor import agreement, bias
from tests.interval_checks import assert_two_sided

from .tool_fixtures import labels_frame, lm_eval_truth, write_lm_eval

SUMMEVAL = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "summeval_sample.csv.gz"


def doctor(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, list[str] | None]:
    """Run ``bacon doctor``; its output and the printed command (without ``bacon``)."""
    assert main(["doctor", *argv]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    if "run:" not in lines:
        return out, None
    command = shlex.split(lines[lines.index("run:") + 1])
    assert command[:2] == ["bacon", "estimate"]
    return out, command[1:]


def found(out: str, role: str) -> list[str]:
    """The columns the ``columns found`` block names for ``role``."""
    block = out.split("columns found:\n", 1)[1].split("\n\n", 1)[0]  # not the tables below
    return [ln.split()[1] for ln in block.splitlines() if ln.startswith(f"  {role:<9} ")]


def test_summeval_partly_labeled(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = pd.read_csv(SUMMEVAL)
    labeled = frame.groupby("system").head(15).index
    frame.loc[~frame.index.isin(labeled), "expert_mean_coherence"] = np.nan
    path = tmp_path / "summeval.csv"
    frame.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    assert found(out, "id") == ["item"]
    assert found(out, "label") == ["expert_mean_coherence"]
    assert found(out, "group") == ["system"] and found(out, "prompt") == ["doc_id"]
    assert found(out, "text") == ["summary"]
    judges = found(out, "judge")  # the label's aspect only: its twins of another are left out
    assert len(judges) >= 6 and all(j.startswith("judge:") for j in judges)
    assert all(j.endswith("|coherence") for j in judges)
    assert "judge:gpt-4-0314|rts|coherence" in judges
    assert "labels per system" in out and "biased by" in out
    assert "one score on every item of a group ('system'); a judge's" in out  # not "a system"
    assert command is not None and main(command) == 0
    assert "mean of 'expert_mean_coherence'" in capsys.readouterr().out


def test_judges_of_several_aspects_for_a_label_named_for_none_get_the_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SummEval's 36 judge columns score 4 aspects; a label named 'human' (relevance
    ratings) names none, and doctor took all 36 judges without a word. It now says the
    aspects and the --judge arguments that keep each one's judges, which run."""
    from bacon_bayes.doctor.names import judge_aspects

    frame = pd.read_csv(SUMMEVAL)
    judges = [c for c in frame.columns if c.startswith("judge:")]
    table = frame[["item", "system", *judges]].assign(
        human=frame["expert_mean_relevance"].where(frame.index % 10 == 0)
    )
    path = tmp_path / "aspects.csv"
    table.to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    flat = " ".join(out.split())
    said = "the judges' names say they score 4 aspects (coherence, consistency, fluency, relevance)"
    assert said in flat and "the label 'human' names none of them" in flat
    keep = shlex.split(flat.split("coherence: ", 1)[1].split(";", 1)[0])
    assert keep == ["--judge", "*|coherence"]
    assert command is not None
    cut = command.index("--judge")
    argv = [*command[:cut], *keep, "--engine", "freq", "--json"]
    assert main(argv) == 0 and "coherence" in capsys.readouterr().out
    # a label named for an aspect keeps its judges (other_aspects), with no such hint
    table.rename(columns={"human": "relevance_rating"}).to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert "names none of them" not in out
    # no labels yet (session 55's walk: SummEval's long file pivoted): the hint comes
    # with the bacon sample command, whose --judge it narrows; that command runs
    table.drop(columns="human").to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    flat = " ".join(out.split())
    assert said in flat and "the labels in 'human' will rate one of them" in flat, flat
    keep = shlex.split(flat.split("relevance: ", 1)[1].split(")", 1)[0])
    lines = out.splitlines()
    sample = shlex.split(lines[lines.index("run, to draw the first items to label:") + 1])
    assert sample[:2] == ["bacon", "sample"]
    judged = [k for k, w in enumerate(sample) if w == "--judge"]
    argv = [w for k, w in enumerate(sample[1:], 1) if k not in judged and k - 1 not in judged]
    with pytest.MonkeyPatch.context() as m:
        m.chdir(tmp_path)
        assert main([*argv, *keep]) == 0
    assert "relevance" in (tmp_path / "aspects.study" / "study.toml").read_text()
    assert "coherence" not in (tmp_path / "aspects.study" / "study.toml").read_text()
    # methods that vary for some judges only, sizes, or no shared words: no aspects
    names = [f"gpt4|{m}|{a}" for m in ("pairwise", "pointwise") for a in ("coherence", "fluency")]
    names += ["llama|chat|coherence", "llama|chat|fluency"]  # the methods: 4 judges of 6
    assert judge_aspects(names) == ["coherence", "fluency"]
    assert judge_aspects(["gpt4_score", "claude_score", "llama_score"]) == []
    # models as words as well as aspects: the names do not say which is the aspect
    both = [f"{m}_{a}" for m in ("llama", "claude") for a in ("coherence", "fluency")]
    assert judge_aspects(both) == []
    assert judge_aspects([c for c in judges if c.endswith("relevance")]) == []
    # WMT22's metrics on two references (session 55's walk): variants, not aspects
    wmt = [f"{m}-ref{r}" for m in ("BLEU", "chrF", "COMET-22", "BLEURT-20") for r in "AB"]
    assert judge_aspects([*wmt, "COMETKiwi-src", "COMET-QE-src"]) == []


def test_labels_written_as_no_value_are_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Helper W4's walk: a labeller's 'N/A' (pandas reads it as missing) left the item
    unlabeled without a word, though an item looked at and not rated is no item never
    drawn. Doctor counts such cells of the label column and says what they mean; empty
    cells alone say nothing."""
    frame = pd.read_csv(Path(__file__).resolve().parents[1] / "bacon_bayes/data/example_pool.csv")
    path = tmp_path / "plain.csv"
    frame.to_csv(path, index=False)
    out, _ = doctor([str(path)], capsys)
    assert "say no value" not in out
    human = frame["human"].astype(object)
    empty = frame.index[frame["human"].isna()]
    human[empty[:5]], human[empty[5:7]] = "N/A", " null"
    frame.assign(human=human).to_csv(path, index=False)
    out, command = doctor([str(path)], capsys)
    flat = " ".join(out.split())
    said = "7 cell(s) of the label 'human' say no value ('N/A' (5), 'null' (2)), read as no label"
    assert said in flat and command is not None


def test_a_repeated_doc_id_in_json_lines_is_the_prompt_not_the_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SummEval written as JSON Lines: the reader took ``doc_id`` (each document
    summarized by every system) as the id by its name alone, doctor said so, and its
    printed command failed on the duplicate ids. A repeated column is never the id; it is
    the prompt, as in the CSV."""
    frame = pd.read_csv(SUMMEVAL).drop(columns="item")
    frame = frame[[c for c in frame.columns if not c.endswith(("consistency", "fluency"))]]
    labeled = frame.groupby("system").head(8).index
    frame.loc[~frame.index.isin(labeled), "expert_mean_coherence"] = np.nan
    path = tmp_path / "wide.jsonl"
    frame.to_json(path, orient="records", lines=True)
    out, command = doctor([str(path)], capsys)
    assert found(out, "id") == ["-"]
    assert found(out, "group") == ["system"] and found(out, "prompt") == ["doc_id"]
    assert command is not None and "--item" not in command
    assert main(command) == 0, capsys.readouterr().err


def test_a_system_written_as_integer_codes_is_the_group_not_a_judge(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``system`` written as 12 integer codes of 100 rows each was taken as a judge
    (Spearman 0.34 with the label) and the group was none: the command fitted the system
    id as a score. A column named like a group with a few repeated whole numbers is the
    group; judges rating on integers (1-5) stay judges."""
    out, command = doctor([str(_system_codes(tmp_path, "system"))], capsys)
    assert found(out, "group") == ["system"] and "system" not in found(out, "judge")
    assert "judge:gpt-3.5-turbo-0301|mcq|coherence" in found(out, "judge")  # ratings 1-5
    assert command is not None and command[command.index("--group") + 1] == "system"
    assert main(command) == 0, capsys.readouterr().err
    assert "mean per 'system'" in capsys.readouterr().out


def _system_codes(folder: Path, system: str, doc: str = "doc_id") -> Path:
    """SummEval's coherence with the systems as 12 integer codes in column ``system``
    (and with ``doc`` other than doc_id, the documents numbered 1..100), 8 labels each."""
    frame = pd.read_csv(SUMMEVAL)
    frame = frame[[c for c in frame.columns if not c.endswith(("consistency", "fluency"))]]
    frame[system] = frame.pop("system").str[1:].astype(int)
    if doc != "doc_id":
        frame[doc] = pd.factorize(frame.pop("doc_id"))[0] + 1
    labeled = frame.groupby(system).head(8).index
    frame.loc[~frame.index.isin(labeled), "expert_mean_coherence"] = np.nan
    path = folder / "codes.csv"
    frame.to_csv(path, index=False)
    return path


def test_system_codes_named_like_nothing_are_the_group(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tester D finding 5: systems written as 12 integers in a column ``ver`` (documents
    as 1..100 in ``src``) became a judge, its Spearman just which systems are good, and
    the command had no --group. A column of a few whole numbers, each on a row with every
    value of another column of codes, is taken for the group, saying why."""
    out, command = doctor([str(_system_codes(tmp_path, "ver", "src"))], capsys)
    assert found(out, "group") == ["ver"] and "ver" not in found(out, "judge")
    assert "on a row with every value of 'src': a system or model id" in out
    assert found(out, "prompt") == ["src"]
    assert command is not None and command[command.index("--group") + 1] == "ver"


def test_human_ratings_of_other_aspects_are_no_judges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tester D finding 7: SummEval wholly labeled, its expert means named by aspect alone
    (``coherence``, ``consistency``...) beside ``judge:<model>|<method>|<aspect>``. Without
    --label doctor took the four human ratings as judges and told the team to label a
    sample; with --label coherence it kept the other three as judges (its simulate then
    counted them as free scores). They are human ratings of the aspects now, one --label
    each."""
    frame = pd.read_csv(SUMMEVAL)
    frame = frame.drop(columns=[c for c in frame.columns if c.startswith("expert") and
                                not c.startswith("expert_mean")])  # fmt: skip
    frame.columns = [c.removeprefix("expert_mean_") for c in frame.columns]
    path = tmp_path / "aspects.csv"
    frame.to_csv(path, index=False)
    aspects = ["coherence", "consistency", "fluency", "relevance"]
    out, command = doctor([str(path)], capsys)
    assert not set(aspects) & set(found(out, "judge"))
    left = [ln.split()[2] for ln in out.splitlines() if ln.startswith("  left out  ")]
    assert set(aspects) <= set(left), left
    assert "every item is labeled: bacon doctor" in out and "--label coherence gives" in out
    assert "(--label consistency, --label fluency and --label relevance likewise)" in out
    out, command = doctor([str(path), "--label", "coherence"], capsys)
    assert not set(aspects) & set(found(out, "judge")), found(out, "judge")
    assert "a human rating of consistency, a label rather than a judge" in out
    assert command is not None and "consistency" not in command


def test_inspect_log_with_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("inspect_ai")
    from .inspect_fixture import labels, make_log

    log = make_log(tmp_path / "logs")
    labels().to_csv(tmp_path / "labels.csv", index=False)
    out, command = doctor(
        [str(log), "--labels", str(tmp_path / "labels.csv"), "--label", "human"], capsys
    )
    assert found(out, "id") == ["id"] and found(out, "label") == ["human"]
    assert found(out, "judge") == ["model_graded_qa"]
    assert found(out, "text")[0] == "output"
    assert "match" in out and "not model-graded" in out
    assert command is not None and "--judge" not in command
    assert main(command) == 0


def test_lm_eval_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_lm_eval(tmp_path / "samples_t_2026.jsonl", n=80)
    labels_frame(list(range(60)), lm_eval_truth(80)[:60], "doc_id").to_csv(
        tmp_path / "l.csv", index=False
    )
    out, command = doctor(
        [str(path), "--labels", str(tmp_path / "l.csv"), "--label", "human"], capsys
    )
    assert found(out, "judge") == ["exact_match", "llm_judge"]
    assert "--scale" in (command or []) and main(command or []) == 0


def test_no_labels_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    frame = pd.read_csv(SUMMEVAL).filter(regex="^(item|system|judge:gpt-4)")
    frame.to_csv(tmp_path / "t.csv", index=False)
    out, command = doctor([str(tmp_path / "t.csv")], capsys)
    assert command is None and "no human labels" in out


def test_alpha_and_kappa() -> None:
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(0)
    data = rng.integers(1, 6, size=(3, 40)).astype(float)
    data[1] = np.clip(data[0] + rng.integers(-1, 2, 40), 1, 5)
    data[rng.random(data.shape) < 0.1] = np.nan
    ours = agreement.interval_alpha(data)
    theirs = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
    assert ours == pytest.approx(theirs, abs=1e-9)
    from sklearn.metrics import cohen_kappa_score

    a = np.tile(np.arange(1.0, 6.0), 8)
    b = np.clip(a + rng.integers(-1, 2, a.size), 1, 5)
    expected = cohen_kappa_score(a.astype(int), b.astype(int), weights="quadratic")
    assert agreement.kappa(a, b) == pytest.approx(expected)
    assert agreement.kappa(a, a[::-1]) == pytest.approx(-1.0)
    half = np.array([0, 0.5, 1, 1, 0.5, 0])  # steps of 0.5 are levels
    assert agreement.kappa(half, half) == pytest.approx(1.0)


def test_no_alpha_among_judges_that_only_lie_within_the_labels_range() -> None:
    """Tester D finding 6: an error score on -27..0 (WMT's MQM) and two metrics on their
    own ranges inside it (COMET -2.2..1, MetricX -0.1..1.1) got an alpha "of the 2
    judges on one scale", and the report "on the label's scale": each lay within the
    label's range, one way only. Judges must share the label's scale both ways."""
    rng = np.random.default_rng(0)
    label = -np.round(rng.gamma(0.6, 4.0, 400) + 0.1 * rng.integers(0, 3, 400), 1)
    label[0] = -27.0  # MQM-like: 0.1 steps (minor punctuation), no inferred scale
    frame = pd.DataFrame({"comet": rng.normal(0.3, 0.4, 400).clip(-2.2, 1.03),
                          "metricx": rng.uniform(-0.12, 1.1, 400)})  # fmt: skip
    between, judged = agreement.among_judges(frame, ["comet", "metricx"], label)
    assert judged is None and between.shape == (2, 2)
    for j in ("close", "closer"):  # near the label, on its -27..0
        frame[j] = np.clip(label + rng.normal(0.0, 0.5, 400), -27, 0)
        frame.loc[0, j] = -27.0
    judged = agreement.among_judges(frame, ["comet", "close", "closer"], label)[1]
    assert judged is not None and judged[2] == ["close", "closer"]


def test_group_bias_finds_a_favoured_group() -> None:
    rng = np.random.default_rng(1)
    groups = np.repeat(np.array(["a", "b", "c", "d"]), 50)
    label = rng.normal(size=200)
    judge = label + rng.normal(scale=0.5, size=200) + np.where(groups == "c", 1.0, 0.0)
    tab = bias.group_bias(label, judge, groups).set_index("group")
    assert tab.loc["c", "flagged"] and tab["over"].idxmax() == "c"
    # relative to the pooled fit: the other groups can only be flagged as under-rated
    assert (tab.drop(index="c")["over"] < 0).all()
    fair = bias.group_bias(label, label + rng.normal(scale=0.5, size=200), groups)
    assert not fair["flagged"].any()
    # a judge that equals the labels: intervals of width 0 about a rounding error of 0
    # flagged it (TriviaQA's GPT-4, "-0.00 [-0.00, -0.00]")
    binary = (label > 0).astype(float)
    perfect = bias.group_bias(binary, binary.copy(), groups)
    assert len(perfect) == 4 and not perfect["flagged"].any()
    # a group under 2 labeled items is not checked, and named (doctor said "over 12
    # groups" of a 16-system table without saying which were left out)
    few = np.where((groups == "d") & (np.arange(200) > 150), np.nan, label)
    tab = bias.group_bias(few, judge, groups)
    assert "d" not in set(tab["group"]) and tab.attrs["left_out"] == ["d"]


def test_a_judge_that_barely_tracks_the_label_gets_no_bias_in_label_points() -> None:
    """TriviaQA's JudgeLM (a 0/1 label) read 'llama2-70b-base +3.68 label points', WMT22's
    BLEU-refB a system over-rated by 116 on a 0-100 label: a shift divided by a slope
    near 0. Where the over-rating lies past the labels' whole range, both checks say why
    they give no figure; a judge that tracks the label keeps its check."""
    rng = np.random.default_rng(2)
    groups = np.repeat(np.array(["a", "b", "c", "d"]), 400)
    label = (rng.random(groups.size) < 0.7).astype(float)
    weak = 0.1 * label + rng.normal(scale=0.3, size=groups.size) + 0.2 * (groups == "c")
    tab = bias.group_bias(label, weak, groups)
    assert tab.empty and "tracks the label too weakly" in tab.attrs["why"]
    length = rng.uniform(20, 400, groups.size)
    got = bias.length_bias(label, weak + 0.002 * length, length, "weak")
    assert isinstance(got, str) and "too weakly" in got
    strong = label + rng.normal(scale=0.3, size=groups.size) + 0.2 * (groups == "c")
    assert bias.group_bias(label, strong, groups).set_index("group").loc["c", "flagged"]
    assert isinstance(bias.length_bias(label, strong, length, "strong"), bias.LengthBias)


def _groups_of_unequal_quality(rng, n_per: int, shift: float):
    """4 groups whose mean labels differ by up to 1.5; a judge 2 + 0.8 x label + noise of
    sd 0.5, scoring group c ``shift`` higher."""
    groups = np.repeat(np.array(["a", "b", "c", "d"]), n_per)
    label = rng.normal(size=groups.size) + np.repeat([0, 0.5, 1, -0.5], n_per)
    noise = rng.normal(scale=0.5, size=groups.size)
    return label, 2 + 0.8 * label + noise + np.where(groups == "c", shift, 0.0), groups


def _group_bias_samples(shift: float, sims: int) -> tuple[pd.Series, list[pd.DataFrame]]:
    """The over-ratings' truth (the same fit on 800,000 items) and ``sims`` samples'
    tables of 25 labels per group."""
    rng = np.random.default_rng(7)
    truth = bias.group_bias(*_groups_of_unequal_quality(rng, 200_000, shift))
    truth = truth.set_index("group")["over"]
    if shift:
        assert truth["c"] == pytest.approx(0.5 / 0.8 * 0.75, abs=0.01)
    tabs = [
        bias.group_bias(*_groups_of_unequal_quality(rng, 25, shift)).set_index("group")
        for _ in range(sims)
    ]
    return truth, tabs


def _assert_flag_rate(tabs: list[pd.DataFrame], shift: float) -> None:
    """A fair judge flagged within the nominal 5% (+ the binomial slack of the samples),
    a planted favour found in 80% of them."""
    flagged = np.mean([bool(tab["flagged"].any()) for tab in tabs])
    if not shift:
        assert flagged <= 0.05 + 2.58 * np.sqrt(0.05 * 0.95 / len(tabs)), flagged
    else:
        assert flagged >= 0.8, flagged


@pytest.mark.parametrize("shift", [0.0, 0.5])
def test_group_bias_intervals_are_neither_too_wide_nor_too_narrow(shift) -> None:
    """150 samples of 25 labels per group: the simultaneous 95% intervals of the
    over-ratings pass the fast check (tests/interval_checks.py: Sidak's t on 24 df),
    which they fail widened 1.5 times or narrowed to 0.6; the flag rates as below."""
    truth, tabs = _group_bias_samples(shift, 150)
    est_, lo, hi = (
        np.array([tab[k].reindex(truth.index).to_numpy() for tab in tabs])
        for k in ("over", "low", "high")
    )
    kw = {"simultaneous": True, "df": 24, "what": f"group bias, shift {shift}"}
    assert_two_sided(est_, lo, hi, truth.to_numpy(), 0.05, **kw)
    _assert_flag_rate(tabs, shift)


@pytest.mark.slow
@pytest.mark.parametrize("shift", [0.0, 0.5])
def test_group_bias_intervals_cover_both_ways(shift) -> None:
    """1,000 samples of 25 labels per group: the simultaneous 95% intervals cover the
    over-ratings (truth: the same fit on 800,000 items; shift 0.5 / slope 0.8 x 3/4 for c)
    in band, neither too short nor too wide, and a fair judge is flagged within the
    nominal 5% although the groups' quality differs (the regression of the label on the
    judge flagged such a judge in 36% of samples of 50 per group)."""
    truth, tabs = _group_bias_samples(shift, 1000)
    covered = np.mean([bool(((t["low"] <= truth) & (truth <= t["high"])).all()) for t in tabs])
    assert abs(covered - 0.95) <= 2.58 * np.sqrt(0.05 * 0.95 / len(tabs)), covered
    _assert_flag_rate(tabs, shift)


def test_length_check_keeps_its_level_when_longer_responses_are_better() -> None:
    """Length tracking the label (correlation 0.8) and a fair judge: flagged within the
    nominal 5% (the regression of the label on the judge and the length would read the
    quality the judge's noise hides as a length effect)."""
    rng = np.random.default_rng(5)
    sims, n = 400, bias.POWER_N
    label = rng.normal(size=(sims, n))
    length = 200 + 80 * label + rng.uniform(-100, 100, size=(sims, n))
    judge = label + rng.normal(scale=0.6, size=(sims, n))
    false = bias.length_flags(label, judge, length)[2].mean()
    assert false <= 0.05 + 2.33 * np.sqrt(0.05 * 0.95 / sims)


def test_length_check_power_and_level() -> None:
    """A planted bias of 0.3 label points per 100 words is found with power >= 0.8 at the
    documented sample size; without it the check flags within its nominal 5% (plus the
    binomial slack of 400 simulations)."""
    sims, n = 400, bias.POWER_N
    label, judge, length = bias.simulate_length(n, sims, bias=0.3, seed=11)
    power = bias.length_flags(label, judge, length)[2].mean()
    label, judge, length = bias.simulate_length(n, sims, bias=0.0, seed=12)
    false = bias.length_flags(label, judge, length)[2].mean()
    assert power >= 0.8
    assert false <= 0.05 + 2.33 * np.sqrt(0.05 * 0.95 / sims)


def test_full_summeval_table(capsys: pytest.CaptureFixture[str]) -> None:
    """The shipped table as it is (every row rated by experts): no sparse label, so the
    doctor points at the rating columns; with --label it names the rest and its command
    runs."""
    out, command = doctor([str(SUMMEVAL)], capsys)
    assert command is None and "pass --label NAME" in out and "expert1_coherence" in out
    out, command = doctor([str(SUMMEVAL), "--label", "expert_mean_relevance"], capsys)
    assert found(out, "group") == ["system"] and found(out, "prompt") == ["doc_id"]
    assert all(j.startswith("judge:") for j in found(out, "judge"))
    assert command is not None and main(command) == 0


@pytest.mark.parametrize("planted", [0.0, 0.3])
def test_length_intervals_cover_both_ways(planted) -> None:
    """1,000 samples of 60 labels: the 95% intervals of the over-rating per 100 words
    cover the planted value in the two-sided band (fails too narrow and too wide)."""
    sims = 1000
    label, judge, length = bias.simulate_length(bias.POWER_N, sims, bias=planted, seed=21)
    over, half, _ = bias.length_flags(label, judge, length)
    covered = float(np.mean(np.abs(over - planted) <= half))
    assert abs(covered - 0.95) <= 2.58 * np.sqrt(0.05 * 0.95 / sims), covered


def test_group_bias_intervals_hold_with_few_labels_per_group() -> None:
    """Tester A (session 36, finding 17): at 3 labels a group the intervals covered the
    full-table over-ratings 0.70-0.81 of the time on SummEval and most flags had the
    wrong sign: each group's HC3 variance rests on its own few residuals but took the
    fit's n - k - 1 degrees of freedom, and the delta method's ratio ignored a poorly
    determined slope. 300 samples of 12 fair groups of 3 labels: the family covers 0 in
    band (it covered 0.79), and a slope not clearly above 0 leaves the ratio unbounded."""
    rng = np.random.default_rng(0)
    groups = np.repeat([f"g{k}" for k in range(12)], 3)
    covered = []
    for _ in range(300):
        label = rng.normal(size=groups.size)
        tab = bias.group_bias(label, label + rng.normal(0, 0.5, groups.size), groups)
        covered.append(bool(((tab["low"] <= 0) & (0 <= tab["high"])).all()))
    assert np.mean(covered) >= 0.93, np.mean(covered)
    low, high = bias.fieller(np.array([0.3]), 0.1, np.array([0.01]), 0.01, np.array([0.0]), 2.0)
    assert low[0] == -np.inf and high[0] == np.inf  # slope 0.1 with se 0.1: no bound
    low, high = bias.fieller(np.array([0.3]), 1.0, np.array([0.01]), 1e-4, np.array([0.0]), 2.0)
    assert low[0] < 0.3 < high[0] and high[0] - low[0] == pytest.approx(0.4, rel=0.02)


def test_the_multiplicity_note_counts_the_judges_checked(capsys) -> None:
    """s39 nit: on the example pool doctor said "not adjusted for the 6 judges checked"
    while it had not checked two of them (slope too weak); the report's same sentence
    counts the checked ones, and so does doctor now."""
    example = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "example_pool.csv"
    out, _ = doctor([str(example), "--label", "human", "--group", "system", "--item", "id"],
                    capsys)  # fmt: skip
    block = out.split("what the judges seem biased by", 1)[1]
    judges = [ln.split()[0] for ln in block.splitlines() if ln.startswith("    ")]
    skipped = [ln.split()[0] for ln in block.splitlines() if "not checked:" in ln]
    assert skipped, block  # the case: some judge not checked
    n = len(set(judges)) - len(set(skipped))
    assert f"not adjusted for the {n} judges checked" in block, block
