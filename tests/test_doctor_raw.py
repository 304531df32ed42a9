"""``bacon doctor`` on raw tables nobody prepared for it (a new user's first run): a
machine-translation table with a domain column, a segment id, source / reference /
hypothesis texts and an MQM-like metric whose best score is 0; a long table of judge
responses. Small synthetic frames, shaped like WMT22's and SummEval's raw files."""

from __future__ import annotations

import re
import shlex

import numpy as np
import pandas as pd

from bacon_bayes.cli import main
from bacon_bayes.doctor.roles import find_roles
from bacon_bayes.readers import TableMeta
from bacon_bayes.scale import sentinel_codes

from .printed import run_python_line


def mt_table(seed: int = 0, systems: int = 6, segments: int = 60) -> pd.DataFrame:
    """One row per system x segment: ``lp`` (constant), ``system``, ``seg_id`` (1..S),
    ``domain`` (4 values, each spanning many segments), ``source``, ``reference_A``,
    ``hypothesis``, a sparse label ``mqm`` (0 best, negative), a dense metric ``comet``
    and ``matese`` (integer MQM-like levels -25..0, mostly 0 and -1)."""
    rng = np.random.default_rng(seed)
    system = np.tile([f"sys{k}" for k in range(systems)], segments)
    seg = np.repeat(np.arange(1, segments + 1), systems)
    domain = np.array(["news", "social", "ecommerce", "conversation"])[(seg - 1) * 4 // segments]
    quality = rng.normal(0, 1, seg.size) + rng.normal(0, 0.5, systems)[seg % systems]
    mqm = np.minimum(0.0, np.round(-3 + 2 * quality + rng.normal(0, 1, seg.size)))
    comet = 0.8 + 0.05 * quality + rng.normal(0, 0.03, seg.size)
    matese = np.clip(np.round(1.5 * quality - 1 + rng.normal(0, 1, seg.size)), -25, 0)
    matese = np.where(rng.random(seg.size) < 0.05, -rng.integers(2, 26, seg.size), matese)
    labeled = rng.random(seg.size) < 0.3
    words = ["the", "cat", "sat", "on", "a", "mat", "today", "again", "quickly"]

    def sentence(k: int) -> str:
        return " ".join(rng.choice(words, 8 + k % 7))

    refs = [sentence(k) + " reference" for k in range(segments)]
    return pd.DataFrame(
        {
            "lp": "zh-en",
            "system": system,
            "seg_id": seg,
            "domain": domain,
            "source": [f"源句子{k}" for k in seg],
            "reference_A": [refs[k - 1] for k in seg],
            "hypothesis": [sentence(k) for k in range(seg.size)],
            "mqm": np.where(labeled, mqm, np.nan),
            "comet": comet,
            "matese": matese.astype(float),
        }
    )


def test_a_domain_column_is_not_the_prompt() -> None:
    """Four domains, each answered by every system about 15 times: a category, not the
    prompt (it left 4 'prompts' for 5 folds, and doctor said no estimate could be made);
    the segment (its id or its source text) is the prompt."""
    frame = mt_table()
    roles = find_roles(frame, TableMeta(format="csv"))
    assert roles.group == "system"
    assert roles.prompt in ("seg_id", "source")  # both name the segment
    assert "domain" in roles.left_out and "not a prompt" in roles.left_out["domain"]


def test_a_domain_column_is_not_the_prompt_without_a_segment_id() -> None:
    """Without a segment column at all, the domain is still no prompt."""
    frame = mt_table().drop(columns=["seg_id", "source", "reference_A"])
    roles = find_roles(frame, TableMeta(format="csv"))
    assert roles.prompt is None


def test_an_id_column_is_never_a_judge() -> None:
    """A numeric ``seg_id`` (segments sorted by domain correlate with the label) is an id,
    not a judge, even where it is not the prompt (a subset with few repeats)."""
    frame = mt_table().sample(frac=0.3, random_state=1)
    roles = find_roles(frame, TableMeta(format="csv"), label="mqm")
    assert "seg_id" not in roles.judges
    assert "seg_id" in roles.left_out or roles.prompt == "seg_id"


def test_mqm_like_levels_up_to_zero_are_no_failure_codes() -> None:
    """A metric on integer levels -25..0 whose commonest scores are 0 and -1: they
    continue its levels, they are no failure codes (doctor told the user to blank 40%
    of the scores)."""
    codes, scale = sentinel_codes(mt_table()["matese"].to_numpy())
    assert codes == {}
    assert scale is not None and scale.high == 0.0


def test_failure_codes_next_to_an_unusual_scale_still_found() -> None:
    """-1 below levels 2..30 (no common scale) is not next to them: still a code; 999
    above is one too."""
    rng = np.random.default_rng(3)
    x = rng.integers(2, 31, 400).astype(float)
    x[:12] = -1.0
    x[12:20] = 999.0
    codes, _ = sentinel_codes(x)
    assert codes == {-1.0: 12, 999.0: 8}


def test_the_hypothesis_is_the_response() -> None:
    """The length check reads the system's output (``hypothesis``), not the reference."""
    roles = find_roles(mt_table(), TableMeta(format="csv"))
    assert roles.response == "hypothesis"


def test_a_text_column_is_not_the_id() -> None:
    """Responses that happen to be distinct are texts, not the id of the items."""
    frame = mt_table().drop(columns=["seg_id"])
    roles = find_roles(frame, TableMeta(format="csv"))
    assert roles.item is None
    assert "hypothesis" in roles.text


def test_without_an_id_doctor_says_what_sample_needs() -> None:
    """No id column: fine for an estimate, but `bacon sample` refuses the table; doctor
    says so, and which two columns together key the rows."""
    roles = find_roles(mt_table(), TableMeta(format="csv"))
    assert roles.item is None
    why = roles.reasons["id"]
    assert "bacon sample" in why and "add a column of unique ids" in why
    assert f"{roles.group} and {roles.prompt} joined" in why


def long_table(seed: int = 0) -> pd.DataFrame:
    """One row per judge response (SummEval's raw file): judge model, method, dimension,
    system, document (a hash), the judge's reply and its parsed score."""
    rng = np.random.default_rng(seed)
    rows = [
        (m, meth, "relevance", f"M{s}", f"dm-test-{d:040x}")
        for m in ("gpt-4", "llama-2-7b", "gpt-3.5")
        for meth in ("rts", "mcq")
        for s in range(4)
        for d in range(10)
    ]
    frame = pd.DataFrame(rows, columns=["judge_model", "method", "dimension", "system", "doc_id"])
    frame["response"] = [f"The summary is fine, I would say {k}" for k in range(len(frame))]
    frame["parsed_score"] = rng.integers(1, 6, len(frame)).astype(float)
    return frame


def test_a_long_table_is_said_to_be_one_and_how_to_pivot_it(tmp_path, capsys) -> None:
    """A long table (one row per item and judge) is no table of items whose group is the
    judge: doctor says it is long, prints no command, and the pivot it gives runs and
    makes one row per item. A column of one value per item (the dimension, here one for
    the table) is joined back, not made part of every judge's name (session 46)."""
    frame = long_table()
    roles = find_roles(frame, TableMeta(format="csv"))
    assert roles.long is not None and roles.group == "system"
    path = tmp_path / "long.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert "long      judge_model" in out and "run:" not in out
    run_python_line(out, cwd=tmp_path)  # as printed: it reads the file as doctor did
    wide = pd.read_csv(tmp_path / "wide.csv")
    assert len(wide) == 40 and "gpt-4|rts" in wide.columns
    assert (wide["dimension"] == "relevance").all()


def test_a_wide_table_with_a_rater_column_is_not_long() -> None:
    """A column naming who rated (a string) beside many judge columns: a wide table."""
    frame = mt_table().assign(annotator=lambda f: np.where(f.index % 2, "a1", "a2"))
    assert find_roles(frame, TableMeta(format="csv")).long is None


def summeval_like(seed: int = 0, n: int = 240) -> pd.DataFrame:
    """SummEval's wide shape: long `judge:MODEL|METHOD|DIMENSION` names, a sparse label,
    and a judge that says 5 on 97% of the summaries (Llama-2-7B's relevance), 5 on every
    labeled one."""
    rng = np.random.default_rng(seed)
    q = rng.normal(3.5, 0.7, n)
    labeled = np.arange(n) % 8 == 0
    flat = np.where(rng.random(n) < 0.1, rng.integers(1, 5, n), 5).astype(float)
    flat[labeled] = 5.0
    words = np.array(["the", "report", "said", "that", "prices", "rose", "in", "march"])
    return pd.DataFrame(
        {
            "id": [f"s{k}" for k in range(n)],
            "system": [f"M{k % 4}" for k in range(n)],
            "summary": [" ".join(rng.choice(words, 20 + k % 40)) for k in range(n)],
            "judge:gpt-4-0314|rts|relevance": np.round(q + rng.normal(0, 0.5, n)),
            "judge:gpt-3.5-turbo-0301|stareval|relevance": np.round(q + rng.normal(0, 0.7, n)),
            "judge:llama-2-7b-chat-hf|rts|relevance": flat,
            "human": np.where(labeled, np.round(q * 3) / 3, np.nan),
        }
    )


def test_a_judge_constant_on_the_labeled_items_is_left_out_and_said_why(tmp_path, capsys):
    """A column with one score on every labeled item cannot be calibrated by the labels
    (no Spearman; Krippendorff's alpha -0.46 on SummEval's): doctor leaves it out of the
    printed command, says why, and the command runs; named with --judge it is kept and
    the reason says the labels cannot calibrate it."""
    from bacon_bayes.cli import main

    flat = "judge:llama-2-7b-chat-hf|rts|relevance"
    roles = find_roles(summeval_like(), TableMeta("csv"), label="human")
    assert flat not in roles.judges and len(roles.judges) == 2
    assert "the same score (5) on every one of the 30 labeled items" in roles.left_out[flat]
    given = find_roles(summeval_like(), TableMeta("csv"), label="human", judges=[flat])
    assert "the labels cannot calibrate it" in given.reasons[f"judge:{flat}"]
    path = tmp_path / "wide.csv"
    summeval_like().to_csv(path, index=False)
    assert main(["doctor", str(path), "--label", "human"]) == 0
    out = capsys.readouterr().out
    command = shlex.split(out.split("\nrun:\n", 1)[1].strip().splitlines()[0])
    assert command[:2] == ["bacon", "estimate"] and flat not in " ".join(command)
    assert main([*command[1:], "--engine", "freq"]) == 0


def test_doctor_tables_align_long_judge_names(tmp_path, capsys):
    """SummEval's `judge:MODEL|METHOD|DIMENSION` names (up to 44 characters) are wider
    than the 28 the text tables gave a name: every row's next column now starts at one
    position, from the longest name (the columns found, the judges' agreement table, the
    length and group bias lines)."""
    from bacon_bayes.cli import main

    path = tmp_path / "wide.csv"
    summeval_like().to_csv(path, index=False)
    assert main(["doctor", str(path), "--label", "human"]) == 0
    out = capsys.readouterr().out

    def block(start: str) -> list[str]:
        lines = out.split(start, 1)[1].split("\n\n", 1)[0].splitlines()[1:]
        return [line for line in lines if line.startswith("  ")]

    def field_after(line: str, start: int) -> int:
        """Where the field after the space-free one starting at ``start`` begins."""
        i = line.index(" ", start)
        return i + len(line[i:]) - len(line[i:].lstrip())

    found = block("columns found:")
    assert len(found) >= 7 and found[0].startswith("  id")
    assert len({field_after(line, 12) for line in found}) == 1, found  # one reason column
    table = block("agreement with the labels")[:3]  # the header and two judges
    assert table[0].startswith("  judge ") and len({len(line) for line in table}) == 1
    assert len({field_after(line, 2) for line in table[1:]}) == 1, table
    biased = [line for line in out.splitlines() if line.startswith("    judge:")]
    assert len(biased) == 4  # two judges x (length, system)
    numbers = {field_after(line, 4) for line in biased}
    assert len(numbers) == 1, biased


def test_a_labeled_reference_system_no_metric_scores_has_a_printed_way_out(tmp_path, capsys):
    """WMT22's refA rows are labeled but reference-based metrics (against refA) cannot
    score them: doctor said "nothing yet ... score them or remove them" and printed no
    command, and --drop-unscored left labeled rows in. --drop-unscored now leaves out every
    row no judge scored, labeled ones too (the note counts them); doctor says which rows
    and labels its command leaves out and why, and the command runs as printed."""
    import json

    from bacon_bayes.cli import main

    frame = mt_table(seed=2)
    ref = frame["system"] == "sys5"
    frame.loc[ref, ["comet", "matese"]] = np.nan
    n_labels_ref = int(frame.loc[ref, "mqm"].notna().sum())
    assert n_labels_ref > 0
    path = tmp_path / "mt.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    said = f"{int(ref.sum())} row(s) have no judge score (system sys5: {int(ref.sum())}), "
    assert said + f"{n_labels_ref} of them labeled" in out, out
    assert "their labels too (--drop-unscored)" in out
    command = shlex.split(out.split("\nrun:\n", 1)[1].strip().splitlines()[0])
    assert command[-1] == "--drop-unscored"
    assert main([*command[1:], "--engine", "freq", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    kept = int(frame["mqm"].notna().sum()) - n_labels_ref
    assert result["pool"]["n_labeled"] == kept
    note = f"left out {int(ref.sum())} row(s) with no judge score, {n_labels_ref} of them labeled"
    assert any(note in n for n in result["pool"]["notes"]), result["pool"]["notes"]
    names = {row["name"] for row in result["groups"]["aee"]["rows"]}
    assert "sys5" not in names and len(names) == 5


def test_the_finer_of_two_shared_columns_is_the_prompt(tmp_path, capsys) -> None:
    """WMT22 as shipped: its documents and its segments are both shared by every system;
    doctor took the document (about 8 rows a system, named like a prompt) where the
    segment is what each system answers once."""
    rng = np.random.default_rng(0)
    seg = np.tile(np.arange(120), 4)
    frame = pd.DataFrame(
        {"system": np.repeat(list("abcd"), 120), "doc": [f"d{k}" for k in seg // 8],
         "segment": [f"s{k}" for k in seg], "judge": rng.normal(size=480),
         "human": np.where(rng.random(480) < 0.2, rng.normal(size=480), np.nan)}
    )  # fmt: skip
    path = tmp_path / "mt.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^  prompt +segment ", out, re.M), out


def test_integer_codes_named_like_a_group_are_no_judge() -> None:
    """A ``model`` column of whole numbers too many for a group (60 codes) was a judge;
    it is left out with the option to use it. ``reward_model`` rating 1-5 (named like a
    judge, not a group) stays a judge."""
    rng = np.random.default_rng(0)
    label = rng.integers(1, 6, 600).astype(float)
    frame = pd.DataFrame(
        {
            "model": np.repeat(np.arange(60), 10),
            "reward_model": np.clip(label + rng.integers(-1, 2, 600), 1, 5),
            "human": np.where(rng.random(600) < 0.2, label, np.nan),
        }
    )
    roles = find_roles(frame, TableMeta(format="csv"))
    assert roles.judges == ["reward_model"] and roles.group is None
    assert "named like a group (pass --group" in roles.left_out["model"]


def test_many_distinct_negative_scores_are_no_failure_codes() -> None:
    """A metric on 0-1 with 4% real scores below 0, all distinct (WMT22's
    KG-BERTScore-src): doctor listed each as a failure code in one 2,777-character line
    and advised blanking them. Only code-like negatives (few, whole or repeated) are
    codes, and a listing names the 5 most frequent."""
    from bacon_bayes.doctor.scores import score_flags

    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, 2400)
    x[:96] = -rng.uniform(0.01, 0.4, 96)
    assert sentinel_codes(x)[0] == {}
    x[:96] = np.repeat([-2.0, -0.5], 48)  # code-like: two values, repeated
    assert sentinel_codes(x)[0] == {-2.0: 48, -0.5: 48}
    codes = np.r_[-1, np.repeat([-1, 99, 999, 9999, -99, -999, -5], 2)]
    (flag,) = score_flags(pd.DataFrame({"j": np.r_[np.tile([1.0, 2, 3, 4, 5], 40), codes]}))
    assert flag.text.startswith(
        "3 scores of -1, 2 scores of -999, 2 scores of -99, 2 scores of -5, 2 scores of 99 "
        "and 2 more values, outside its 1:5 scale"
    )


def test_a_second_sparse_label_says_how_to_take_it(tmp_path, capsys) -> None:
    """WMT22 has two sparse human columns: doctor took one and said only "another column
    was taken as the label" of the other; it names the one taken and the option."""
    frame = mt_table()
    frame["appraise"] = np.where(np.arange(len(frame)) % 6 == 0, 50 + 10 * frame["comet"], np.nan)
    path = tmp_path / "two_labels.csv"
    frame.to_csv(path, index=False)
    assert main(["doctor", str(path)]) == 0
    out = capsys.readouterr().out
    label = re.search(r"^  label +(\S+)", out, re.M).group(1)
    other = ({"mqm", "appraise"} - {label}).pop()
    line = next(x for x in out.splitlines() if x.startswith(f"  left out  {other}"))
    assert f"{label} was taken as the label; pass --label {other} to use this one" in line
