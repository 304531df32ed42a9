"""The report's data check (``bacon doctor``'s diagnostics of the calibrator's pool):
present with its agreement and bias tables on the shipped example pool, and a planted
length bias shows flagged in its length table."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.cli import main
from bacon_bayes.doctor.pooled import profile_pool
from bacon_bayes.report.doctor import data_check

EXAMPLE = Path(__file__).resolve().parents[1] / "bacon_bayes" / "data" / "example_pool.csv"
JUDGES = ["gpt4", "gpt35", "gpt35_mcq", "llama70b", "llama13b", "llama7b"]


def _section(page: str) -> str:
    found = re.search(r'<section id="doctor">(.*?)</section>', page, re.S)
    assert found, "no data check section"
    return found.group(1)


def _rows(html: str, heading: str | None) -> list[list[str]]:
    """The body rows (cell texts) of the first table under ``<h3>heading</h3>`` (of
    ``html`` when None)."""
    part = html if heading is None else html.split(f"<h3>{heading}</h3>", 1)[1]
    part = part.split("</table>", 1)[0]
    body = part.split("<tbody>", 1)[1]
    return [re.findall(r"<td>(.*?)</td>", row, re.S) for row in body.split("</tr>")[:-1]]


def _example_pool() -> EvalPool:
    frame = pd.read_csv(EXAMPLE)
    return EvalPool.from_frame(
        frame, label="human", judges=JUDGES, outcome="continuous", group="system", item="id"
    )


def test_example_pool_matches_doctor():
    """The pool adapter gives doctor's figures (the same functions on the same data)."""
    from bacon_bayes.doctor import profile
    from bacon_bayes.readers import read_any

    check = profile_pool(_example_pool())
    frame, meta = read_any(EXAMPLE)
    full = profile(frame, meta, str(EXAMPLE), label="human")
    assert check.coverage == {j: 1.0 for j in JUDGES}
    assert full.with_label is not None and check.with_label is not None
    mine = check.with_label.set_index("judge").loc[full.roles.judges, "spearman"]
    theirs = full.with_label.set_index("judge")["spearman"]
    np.testing.assert_allclose(mine.to_numpy(), theirs.to_numpy())
    for j in full.roles.judges:
        pd.testing.assert_frame_equal(check.groups[j], full.groups[j])
    assert not check.length and "no response text" in check.length_note


def test_cli_report_has_the_data_check_on_the_example_pool(tmp_path):
    args = ["--label", "human", "--judge", "gpt*", "--judge", "llama*", "--group", "system",
            "--item", "id", "--scale", "1:5", "--engine", "freq"]  # fmt: skip
    out = tmp_path / "r.html"
    save = tmp_path / "cal.nc"
    assert main(["report", str(EXAMPLE), *args, "--out", str(out)]) == 0
    section = _section(out.read_text())
    assert "<h2>Data check</h2>" in section
    agree = _rows(section, "Judges: coverage and agreement with the labels")
    assert [r[0] for r in agree] == JUDGES and all(r[1] == "1.00" for r in agree)
    between = _rows(section, "Agreement between judges")
    assert len(between) == len(JUDGES) and between[0][1] == "1.00"
    # 72 rows, none flagged (as bacon doctor says): the note, all rows folded. (The
    # regression of the label on the judge flagged M13 and M23 for every judge: the
    # systems' unequal quality, not the judges' bias.)
    assert "over-rating of a group is flagged." in section
    groups = _rows(section.split("<details>", 1)[1], None)
    # every group has 2 labels or more; a judge that barely tracks the label (a shift
    # reads past the labels' whole range) has no table, and the page says why
    weak = section.count("tracks the label too weakly")
    assert weak <= 2 and len(groups) == (len(JUDGES) - weak) * 12
    assert "response length not checked" in section
    assert section.count('<div class="scroll">') == 3  # coverage, between judges, folded groups
    # a saved calibrator's report has it too (it only needs the pool)
    assert main(["estimate", str(EXAMPLE), *args, "--save", str(save)]) == 0
    assert main(["report", str(save), "--out", str(tmp_path / "s.html")]) == 0
    saved = _section((tmp_path / "s.html").read_text())
    assert _rows(saved.split("<details>", 1)[1], None) == groups


def _planted(seed: int = 0, n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    q = rng.normal(3, 0.8, n)
    words = rng.integers(20, 400, n)
    vocab = np.array(["alpha", "beta", "gamma", "delta"])
    return pd.DataFrame(
        {
            "id": [f"i{i}" for i in range(n)],
            "response": [" ".join(rng.choice(vocab, k)) for k in words],
            "fair": q + rng.normal(0, 0.5, n),
            "wordy": q + 0.5 * words / 100 + rng.normal(0, 0.5, n),  # favours long answers
            "system": np.array(["A", "B", "C"])[np.arange(n) % 3],
            "y": np.where(rng.random(n) < 0.4, q + rng.normal(0, 0.3, n), np.nan),
        }
    )


def test_a_planted_length_bias_is_flagged(tmp_path):
    frame = _planted()
    pool = EvalPool.from_frame(
        frame,
        label="y",
        judges=["fair", "wordy"],
        outcome="continuous",
        group="system",
        item="id",
        text="response",
    )
    rows = {r[0]: r for r in _rows(data_check(pool), "Response length")}
    assert rows["wordy"][-1] == "biased by length" and float(rows["wordy"][2]) > 0.2
    assert rows["fair"][-1] == ""
    # bacon report finds the response column itself (bacon doctor's roles), no --text
    table = tmp_path / "pool.csv"
    frame.to_csv(table, index=False)
    out = tmp_path / "r.html"
    args = ["--label", "y", "--judge", "fair", "--judge", "wordy", "--group", "system",
            "--item", "id", "--engine", "freq"]  # fmt: skip
    assert main(["report", str(table), *args, "--out", str(out)]) == 0
    found = {r[0]: r for r in _rows(_section(out.read_text()), "Response length")}
    assert found["wordy"][-1] == "biased by length" and found["fair"][-1] == ""


def test_no_labels_no_bias_tables():
    frame = _planted().assign(y=np.nan)
    frame.loc[:1, "y"] = 3.0
    pool = EvalPool.from_frame(
        frame, label="y", judges=["fair", "wordy"], outcome="continuous", item="id"
    )
    check = profile_pool(pool)
    assert check.with_label is not None and not check.groups and not check.length
    html = data_check(pool)
    assert "Agreement between judges" in html and "over-rating by group" not in html


def test_calibrator_report_places_the_section_after_the_settings(tmp_path):
    cal = Calibrator(engine="freq", scale=(1, 5)).fit(_example_pool())
    page = cal.report(tmp_path / "r.html").read_text()
    ids = re.findall(r'<section id="([a-z]+)">', page)
    assert ids[:2] == ["settings", "doctor"]


def test_report_on_a_study_finds_the_response_text(tmp_path):
    """`bacon report STUDY` checks response length as `bacon report FILE` does: the study
    records no text column, so the report finds the pool's response column itself (it said
    "No response text: response length not checked" where doctor found `summary`)."""
    table = tmp_path / "pool.csv"
    _planted().to_csv(table, index=False)
    study = tmp_path / "study"
    args = ["--label", "y", "--judge", "fair", "--judge", "wordy", "--group", "system",
            "--item", "id", "--budget", "10", "--out", str(tmp_path / "todo.csv")]  # fmt: skip
    assert main(["sample", str(table), "--study", str(study), *args]) == 0
    out = tmp_path / "r.html"
    argv = ["report", str(study), "--allow-pending", "--engine", "freq", "--out", str(out)]
    assert main(argv) == 0
    section = _section(out.read_text())
    assert "response length not checked" not in section
    found = {r[0]: r for r in _rows(section, "Response length")}
    assert found["wordy"][-1] == "biased by length" and found["fair"][-1] == ""


def test_a_table_of_unbounded_group_intervals_is_one_sentence():
    """The report's over-rating table on the README's round-1 pool (7-12 labels a group,
    judges that barely track the label) was 24 rows of [-inf, inf]: it is said in one
    sentence, the rows kept behind a summary."""
    path = EXAMPLE.parent / "example_round1.csv"
    pool = EvalPool.from_frame(
        pd.read_csv(path), label="human", judges=["gpt4", "gpt35", "llama70b"],
        outcome="continuous", group="system",
    )  # fmt: skip
    html = data_check(pool)
    part = html.split("<h3>Judges' over-rating by group</h3>", 1)[1]
    assert "Every interval is unbounded" in part
    assert part.index("<details>") < part.index("<table")  # the rows only behind it


def test_no_flag_among_unbounded_intervals_is_not_a_clean_bill():
    """Where nothing is flagged but some intervals are unbounded (a weak judge, a few labels
    a group), the report said only "No judge's over-rating of a group is flagged" (doctor's
    text says "not settled"; fixer G1, session 38): it now says how many are unbounded."""
    import re

    rng = np.random.default_rng(1)
    n = 1200
    q = rng.normal(3, 1, n)
    frame = pd.DataFrame(
        {"system": np.repeat([f"S{k}" for k in range(30)], 40),
         "a": q + rng.normal(0, 0.3, n), "b": 0.1 * q + rng.normal(0, 1, n),
         "human": np.where(rng.random(n) < 0.3, q + rng.normal(0, 0.3, n), np.nan)}
    )  # fmt: skip
    pool = EvalPool.from_frame(
        frame, label="human", judges=["a", "b"], outcome="continuous", group="system"
    )
    part = data_check(pool).split("<h3>Judges' over-rating by group</h3>", 1)[1]
    text = re.sub(r"\s+", " ", re.sub("<[^>]+>", " ", part.split("<h3>", 1)[0]))
    said = re.search(r"No judge's over-rating of a group is flagged\. (\d+) of the 60 interv", text)
    assert said is not None and int(said.group(1)) > 0


def _mqm_frame(seed: int = 0, n: int = 400) -> pd.DataFrame:
    """An MQM-like label: error points >= 0, about half of them 0 (no error), one judge
    scoring quality (falling as the errors rise), every second item labeled."""
    rng = np.random.default_rng(seed)
    err = np.where(rng.random(n) < 0.5, 0.0, rng.gamma(2.0, 2.0, n))
    return pd.DataFrame(
        {
            "id": [f"i{k}" for k in range(n)],
            "mqm": np.where(np.arange(n) % 2 == 0, err, np.nan),
            "q": -err + rng.normal(0, 1.0, n),
        }
    )


def test_the_data_check_says_the_scale_doctor_reads():
    """I9 (s39): doctor reads an MQM label (all >= 0, half at 0) as 0:inf and says to pass
    --scale 0:inf / --outcome nonnegative; the report's Data check said nothing of it while
    its items showed negative error points. It now carries doctor's line where the
    report's range does not bound the labels so, and not once it does."""
    from bacon_bayes.doctor import profile
    from bacon_bayes.readers.meta import TableMeta

    frame = _mqm_frame()
    doctor = profile(frame, TableMeta("csv"), "t.csv", label="mqm", judges=["q"], item="id")
    assert doctor.scale is not None and doctor.scale.text == "0:inf"
    pool = EvalPool.from_frame(frame, label="mqm", judges=["q"], outcome="continuous", item="id")
    html = data_check(pool, bounds=(-np.inf, np.inf))
    line = re.search(r"<p class='note'>Label scale: (.*?)</p>", html)
    assert line, html[:2000]
    said = line.group(1)
    assert "bacon doctor reads 0:inf (an error score (0 = no error)" in said, said
    assert "report&#x27;s label range is unbounded: pass --scale 0:inf" in said, said
    assert "--outcome nonnegative" in said
    assert "Label scale" not in data_check(pool, bounds=(0.0, np.inf))


def test_over_rating_rows_without_figures_say_why_and_no_inf_is_on_the_page():
    """H1 item 4: the over-rating table printed unbounded intervals as "-inf" and "inf"
    (the README's round-1 pool: 43 of its 48 rows), and left out without a row a group
    under 2 labels. Now such a figure is "—" with the reason in a note column (the
    labels it had; unbounded at n labels), and no inf is on the page."""
    import re

    frame = pd.read_csv(EXAMPLE.parent / "example_round1.csv")
    m8 = frame.index[(frame["system"] == "M8") & frame["human"].notna()]
    frame.loc[m8[1:], "human"] = np.nan  # M8: one label
    pool = EvalPool.from_frame(
        frame, label="human", judges=["gpt4", "gpt35_mcq"], outcome="continuous",
        group="system",
    )  # fmt: skip
    part = data_check(pool).split("<h3>Judges' over-rating by group</h3>", 1)[1]
    part = part.split("<h3>", 1)[0]
    assert not re.search(r"\binf\b", part), part
    rows = {(r[0], r[1]): r for r in _rows(part, None)}
    assert rows[("gpt4", "M8")][2:6] == ["1", "—", "—", "—"]
    assert rows[("gpt4", "M8")][-1] == "1 labeled item: 2 needed for a check"
    unbounded = [r for r in rows.values() if r[-1].startswith("unbounded: at ")]
    assert unbounded and all(r[4] == r[5] == "—" and r[3] != "—" for r in unbounded)
