"""One answer everywhere (issues 40 and 41, "Deciding"): what ``bacon estimate`` prints,
its ``--json``, ``bacon status`` and ``bacon report`` say the same of one study, from the
same functions, with the same settings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main
from bacon_bayes.study import import_labels


def _study(root: Path, seed: int = 2, budget: int = 60, max_labels: int | None = 400) -> Path:
    """Four systems of 150 items (C ahead), two judges, three embedding columns and a
    text column; one uniform wave of ``budget`` labeled from the truth."""
    rng = np.random.default_rng(seed)
    means = {"A": 3.0, "B": 3.1, "C": 3.6, "D": 2.9}
    system = np.repeat(list(means), 150)
    z = np.repeat(list(means.values()), 150) + rng.normal(0, 1, system.size)
    k = np.tile(np.arange(150), len(means))
    full = pd.DataFrame({"id": [f"{g}{i}" for g, i in zip(system, k, strict=True)]})
    full["system"], full["truth"] = system, z + rng.normal(0, 0.5, z.size)
    full["j1"], full["j2"] = z + rng.normal(0, 0.7, z.size), z + rng.normal(0, 0.9, z.size)
    full["emb_1"] = z + rng.normal(0, 1.0, z.size)
    full["emb_2"], full["emb_3"] = rng.normal(0, 1, (2, z.size))
    full["answer"] = [f"answer {'word ' * int(i % 7)}{i}" for i in k]
    root.mkdir(parents=True, exist_ok=True)
    pool = root / "pool.csv"
    full.drop(columns="truth").assign(human=np.nan).to_csv(pool, index=False)
    study, todo = root / "s.study", root / "todo.csv"
    budget_args = [] if max_labels is None else ["--max-labels", str(max_labels)]
    assert main(["sample", str(pool), "--label", "human", "--judge", "j1", "--judge", "j2",
                 "--group", "system", "--item", "id", "--budget", str(budget), "--study",
                 str(study), "--out", str(todo), *budget_args]) == 0  # fmt: skip
    drawn = pd.read_csv(todo)
    drawn["human"] = full.set_index("id").loc[drawn["id"], "truth"].to_numpy()
    drawn.to_csv(todo, index=False)
    import_labels(study, todo)
    return study


@pytest.fixture(scope="module")
def early_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An alpha-spending study at its first wave (60 of 400 labels): an early look."""
    return _study(tmp_path_factory.mktemp("early"))


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_estimate_json_carries_every_note_the_text_prints(early_study, capsys):
    """``--json`` lacked the early-look note (and the classical column's and the range
    note) that the text prints: a user piping it lost them."""
    capsys.readouterr()
    read = [str(early_study), "--engine", "freq"]
    assert main(["estimate", *read]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert main(["estimate", *read, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # a command a note prints is the one just run, which carried --json
    said = [s.replace(" --json", "") for s in _strings(out)]
    notes = [ln.removeprefix("note: ") for ln in lines if ln.startswith("note: ")]
    assert any("alpha-spending at 60 of the 400 labels" in n for n in notes), notes
    for note in notes:
        assert any(note in s for s in said), note
    early = next(n for n in notes if n.startswith("alpha-spending at"))
    assert early in out["notes"]
    engine = next((ln for ln in lines if ln.startswith("engine: ")), None)
    if engine is not None:  # which engine auto took, and why
        assert out["engine_reason"] in engine


def _sequence_rows(page: str) -> list[list[str]]:
    """The cells of the report's table of the study's looks ("Across the study's waves")."""
    import re

    part = page[page.index("Across the study's waves") :]
    table = part[part.index("<table") : part.index("</table>")]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
    return [re.sub(r"<[^>]+>", " ", row).split() for row in rows if "<td" in row]


def test_the_reports_latest_look_is_estimates_with_the_commands_embedding(
    early_study, tmp_path, capsys
):
    """The report refitted its looks without ``--embedding``: its latest look differed
    from ``bacon estimate STUDY --embedding ...`` on the same labels."""
    read = [str(early_study), "--engine", "freq", "--embedding", "emb_", "--surrogates", "none"]
    assert main(["estimate", *read, "--json"]) == 0
    aee = json.loads(capsys.readouterr().out)["mean"]["aee"]
    page = tmp_path / "r.html"
    assert main(["report", *read, "--out", str(page)]) == 0
    capsys.readouterr()
    last = _sequence_rows(page.read_text())[-1]
    # wave, labels, estimate, fixed low, fixed high, anytime low, anytime high, kind
    assert int(last[1]) == 60
    shown = [float(last[k]) for k in (2, 5, 6)]
    assert shown == pytest.approx([aee["estimate"], aee["ci_low"], aee["ci_high"]], abs=6e-5)
    assert main(["estimate", str(early_study), "--engine", "freq", "--surrogates", "none",
                 "--json"]) == 0  # fmt: skip
    plain = json.loads(capsys.readouterr().out)["mean"]["aee"]
    assert abs(plain["ci_low"] - aee["ci_low"]) > 1e-3  # the embedding changes the fit


def _lone_study(root: Path) -> Path:
    """Four systems of 200 items, A ahead; a pilot of 15, 15, 15 and 1 labels (D's one),
    recorded as drawn by system, and a wave of one item still pending."""
    rng = np.random.default_rng(3)
    means, labeled = {"A": 3.8, "B": 3.0, "C": 3.1, "D": 3.0}, {"A": 15, "B": 15, "C": 15, "D": 1}
    system = np.repeat(list(means), 200)
    z = np.repeat(list(means.values()), 200) + rng.normal(0, 1, system.size)
    k = np.tile(np.arange(200), len(means))
    frame = pd.DataFrame({"id": [f"{g}{i}" for g, i in zip(system, k, strict=True)]})
    frame["system"] = system
    first = k < np.array([labeled[g] for g in system])  # each system's first items labeled
    frame["human"] = np.where(first, z + rng.normal(0, 0.5, z.size), np.nan)
    frame["j1"], frame["j2"] = z + rng.normal(0, 0.7, z.size), z + rng.normal(0, 0.9, z.size)
    root.mkdir(parents=True, exist_ok=True)
    frame.to_csv(root / "pool.csv", index=False)
    study = root / "pool.study"
    assert main(["sample", str(root / "pool.csv"), "--label", "human", "--judge", "j1",
                 "--judge", "j2", "--group", "system", "--item", "id", "--prior-design",
                 "stratified:system", "--budget", "1", "--study", str(study), "--out",
                 str(root / "todo.csv")]) == 0  # fmt: skip
    return study


def test_status_and_estimate_say_alike_that_a_lead_over_a_one_label_group_gives_no_count(
    tmp_path, capsys
):
    """A top group leading a group of one label: ``bacon status`` said the labels needed
    cannot be told (that group has no standard error of its own) while ``bacon
    estimate``'s plan line counted "about 68 more labels" from the same lead. One
    decision (``planning.note.top_untold``) and one wording now serve both."""
    study = _lone_study(tmp_path)
    capsys.readouterr()
    assert main(["estimate", str(study), "--engine", "freq"]) == 0
    plan = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("bacon plan:"))
    assert "D has one label, no standard error of its own" in plan, plan
    assert "in all, " not in plan  # no count from that lead ("68 more labels (114 in all")
    said = plan.split("(shrunk means), ", 1)[1].split(". ", 1)[0]  # A leads D by ...
    assert main(["status", str(study), "--engine", "freq"]) == 0
    top = next(ln for ln in capsys.readouterr().out.splitlines() if "top system" in ln)
    assert said in top and "more labels" not in top, (said, top)


def test_status_takes_pooling_and_answers_from_estimates_intervals(early_study, capsys):
    """``bacon status`` had no ``--pooling``: a user estimating with ``--pooling
    separate`` got a status computed with the default (shrunk) intervals."""
    read = [str(early_study), "--engine", "freq", "--pooling", "separate"]
    assert main(["estimate", *read, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["comparisons"]["differences"]
    assert main(["status", *read, "--pairs", "all"]) == 0
    out = capsys.readouterr().out
    for row in rows:
        line = next(ln for ln in out.splitlines() if f"sign of {row['pair']}:" in ln)
        interval = f"[{row['ci_low']:+.3g}, {row['ci_high']:+.3g}]"
        assert interval in line, (interval, line)


def test_status_and_estimate_name_the_engine_in_the_same_words(early_study, capsys):
    """Which engine ``auto`` took and why: ``bacon status --engine auto`` says it in
    ``bacon estimate``'s words (one function, ``model_choice.engine_words``)."""
    assert main(["estimate", str(early_study)]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("engine: "))
    why = line.split("(", 1)[1].rsplit(")", 1)[0]
    assert main(["status", str(early_study), "--engine", "auto"]) == 0
    head = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("questions"))
    assert why in head, (why, head)


def test_the_printed_status_command_carries_the_fits_settings(tmp_path):
    """The ``bacon status STUDY`` estimate's plan line prints answers from the intervals
    printed: the Bayesian engine's (status's default is freq), the pooling, the level."""
    import argparse

    from bacon_bayes.cli.pool_args import plan_note_anytime

    study = tmp_path / "s.study"
    study.mkdir()
    (study / "study.toml").write_text('pool = "pool.csv"\nitem = "id"\n')
    args = argparse.Namespace(file=str(study), group=None, model=None, pooling="separate",
                              alpha=0.1, better="lower", allow_pending=False)  # fmt: skip
    command = plan_note_anytime(args, {"anytime": True, "max_labels": None}, "bayes")
    assert command == (
        f"bacon status {study} --engine bayes --pooling separate --alpha 0.1 --better lower"
    )
    assert plan_note_anytime(args, None, "bayes") is None


def test_the_more_labels_projection_reads_the_boundary_on_the_looks_own_correlation():
    """The pool mean's alpha-spending boundary is on the looks' own correlation
    (``details["anytime"]["cosines"]``), but "about N more labels" projected the looks on
    the canonical one. It now takes the cosines (the next look's assumed the last one's):
    the count is the fewest labels whose projected width, under that boundary, meets the
    goal."""
    from bacon_bayes.estimate import anytime
    from bacon_bayes.study.projection import labels_needed

    looks, n_items, most = np.array([60.0, 120.0]), 1200, 400
    info = anytime.effective_labels(looks, n_items)[None, :]
    level, half, goal, cos = np.array([0.05]), np.array([0.3]), np.array([0.2]), [0.5]

    def grow(total: float) -> np.ndarray:
        return np.atleast_1d(anytime.effective_labels(total, n_items))

    def width(total: float, steps: list[float] | None) -> float:
        """The half-width at one more look of ``total`` labels, the boundary on ``steps``."""
        grown = np.column_stack([info, grow(total)])
        times = np.append(looks, total) / most
        now_info = info if steps is None else anytime.correlated_information(info, steps[:1])
        then = grown if steps is None else anytime.correlated_information(grown, steps)
        c_now = anytime.sequential_critical_values(now_info, level, times=looks / most)
        c_then = anytime.sequential_critical_values(then, level, times=times)
        return float(half[0] * np.sqrt(info[0, -1] / grow(total)[0]) * c_then[0] / c_now[0])

    kw = {"grow": grow, "max_labels": most, "cap": float(most - looks[-1])}
    own = float(labels_needed(looks, info, level, half, goal, cosines=np.array(cos), **kw)[0])
    canonical = float(labels_needed(looks, info, level, half, goal, **kw)[0])
    n, more = looks[-1], np.arange(1, most - looks[-1] + 1)
    for count, steps in ((own, cos * 2), (canonical, None)):
        exact = next(m for m in more if width(n + m, steps) <= goal[0])  # the fewest
        # the projection reads c between its candidate totals a little high: a few more
        assert exact <= count <= exact + max(3.0, 0.1 * exact), (count, exact, steps)
    assert own > canonical  # less correlated looks: a higher boundary, more labels


def _printed_commands(text: str) -> list[str]:
    """The ``bacon ...`` commands a note prints for the user to run: quoted in backticks,
    after ``run:``, or the status command the plan line names ("bacon status STUDY ...
    gives another count")."""
    import html
    import re

    text = html.unescape(text)
    found = re.findall(r"`(bacon [^`]+)`", text)
    found += re.findall(r"run: (bacon [^<\n]+)", text)
    found += re.findall(r"(bacon status .+?) gives another count", text)
    return list(dict.fromkeys(c.strip() for c in found))


def test_every_command_estimate_status_and_report_print_runs_as_printed(
    tmp_path, capsys, monkeypatch
):
    """Walked as a new user: each ``bacon ...`` command the notes of ``bacon estimate``,
    ``bacon status`` and ``bacon report`` print on a study runs as printed, with the
    settings of the run that printed it (the plan line's ``bacon status`` lacked
    ``--pooling``, which status did not take)."""
    import shlex

    monkeypatch.chdir(tmp_path)
    study = _study(tmp_path / "w", seed=2, budget=100)
    settings = ["--engine", "freq", "--pooling", "separate", "--alpha", "0.1"]
    capsys.readouterr()
    printed: list[str] = []
    for command in (["estimate"], ["status", "--half-width", "0.1"]):
        assert main([command[0], str(study), *command[1:], *settings]) == 0
        printed += _printed_commands(capsys.readouterr().out)
    assert main(["report", str(study), *settings, "--out", "r.html"]) == 0
    capsys.readouterr()
    printed += _printed_commands((tmp_path / "r.html").read_text())
    printed = list(dict.fromkeys(printed))
    status = [c for c in printed if c.startswith("bacon status ")]
    assert status and all("--pooling separate --alpha 0.1" in c for c in status), printed
    assert any(c.startswith("bacon plan ") for c in printed), printed
    for command in printed:
        words = shlex.split(command)
        assert words[0] == "bacon", command
        code = main(words[1:])
        assert code == 0, (command, capsys.readouterr())
        capsys.readouterr()


def test_streamed_estimate_json_carries_the_notes_its_text_prints(tmp_path, capsys):
    """The streamed ``bacon estimate --json`` (``--chunk-rows``) lacked the classical
    column's note its text prints under a shrunk group table."""
    rng = np.random.default_rng(4)
    system = np.repeat(["A", "B", "C", "D"], 150)
    z = rng.normal(3, 1, system.size) + 0.3 * (system == "C")
    frame = pd.DataFrame({"id": [f"x{k}" for k in range(system.size)], "system": system})
    frame["j1"], frame["j2"] = z + rng.normal(0, 0.7, z.size), z + rng.normal(0, 0.9, z.size)
    frame["human"] = np.where(rng.random(z.size) < 0.05, z + rng.normal(0, 0.5, z.size), np.nan)
    frame.to_csv(table := tmp_path / "pool.csv", index=False)
    read = [str(table), "--label", "human", "--judge", "j1", "--judge", "j2", "--group",
            "system", "--item", "id", "--chunk-rows", "200", "--engine", "freq"]  # fmt: skip
    capsys.readouterr()
    assert main(["estimate", *read]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert main(["estimate", *read, "--json"]) == 0
    said = _strings(json.loads(capsys.readouterr().out))
    notes = [ln.removeprefix("note: ") for ln in lines if ln.startswith("note: ")]
    assert any(n.startswith("classical (labels only)") for n in notes), lines
    for note in notes:
        assert any(note in s for s in said), note


def test_sample_until_pools_the_groups_as_status_does(tmp_path, capsys):
    """``bacon sample --until sign=A,B`` answered from the default (shrunk) group means
    where ``bacon status --pooling separate`` answered from each group's own: the same
    ``--pooling`` now gives the same pair."""
    study = _study(tmp_path / "u", seed=3, budget=36)  # under 10 labels a group: auto shrinks
    capsys.readouterr()
    assert main(["status", str(study), "--engine", "freq", "--pooling", "separate"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if "sign of A - C:" in ln)
    said = line.split("sign of A - C: ", 1)[1].split(";", 1)[0]  # state, interval, verdict
    code = main(["sample", str(study), "--until", "sign=A,C", "--engine", "freq",
                 "--pooling", "separate", "--out", str(tmp_path / "next.csv")])  # fmt: skip
    out = capsys.readouterr()
    assert said.split(": ", 1)[1] in out.out + out.err, (said, out)
    assert code in (0, 2)  # a wave drawn, or refused with the reason (e.g. out of reach)
    assert main(["status", str(study), "--engine", "freq"]) == 0  # shrunk: another interval
    assert said not in capsys.readouterr().out


def _pool_mean_interval(out: str) -> tuple[float, float]:
    """The pool mean's interval in ``bacon status --half-width``'s or ``bacon sample
    --until half-width=``'s line ("pool mean within +-H: not yet: 3.07 [2.51, 3.62] ...")."""
    import re

    line = next(ln for ln in out.splitlines() if "pool mean within +-" in ln)
    found = re.search(r"\[([-+\d.e]+), ([-+\d.e]+)\]", line)
    assert found is not None, line
    return float(found[1]), float(found[2])


def test_status_and_until_read_the_study_with_estimates_embedding(tmp_path, capsys):
    """``bacon status`` and ``bacon sample --until`` took no ``--embedding`` (nor
    ``--text``, ``--prompt``, ``--outcome``, ``--levels``): on a study estimated with
    ``--embedding`` they answered from another fit than ``bacon estimate``'s. They read
    the study as estimate does (``cli.pool_args.study_pool_options``), and the ``bacon
    status`` command estimate prints carries the embedding."""
    study = _study(tmp_path / "e")  # --until draws a wave in it
    read = [str(study), "--engine", "freq", "--embedding", "emb_"]
    capsys.readouterr()
    assert main(["estimate", *read, "--json"]) == 0
    aee = json.loads(capsys.readouterr().out)["mean"]["aee"]
    assert main(["estimate", *read]) == 0
    plan = capsys.readouterr().out
    command = _printed_commands(plan)
    assert any(c.startswith("bacon status ") and "--embedding emb_" in c for c in command), plan
    assert main(["status", *read, "--half-width", "0.1"]) == 0
    status = _pool_mean_interval(capsys.readouterr().out)
    assert status == pytest.approx((aee["ci_low"], aee["ci_high"]), abs=6e-4)
    code = main(["sample", *read, "--until", "half-width=0.1", "--out",
                 str(tmp_path / "next.csv")])  # fmt: skip
    out = capsys.readouterr()
    assert code in (0, 2), out
    assert _pool_mean_interval(out.out + out.err) == pytest.approx(status, abs=1e-9)
    assert main(["status", str(study), "--engine", "freq", "--half-width", "0.1"]) == 0
    plain = _pool_mean_interval(capsys.readouterr().out)
    assert abs(plain[0] - status[0]) > 1e-3  # the embedding changes the fit


def test_status_and_estimate_say_one_sentence_of_a_group_without_labels(tmp_path, capsys):
    """A group with no labels: ``bacon estimate``'s plan line said "the 1 system without
    labels taken at the judges' estimate plus the pool's correction, UNVALIDATED" (or,
    under anytime intervals, nothing of it) and ``bacon status`` "no interval for D (no
    labels): label it first". One sentence (``planning.note.unlabeled_text``) now
    serves both."""
    from bacon_bayes.planning.note import unlabeled_text

    rng = np.random.default_rng(5)
    sizes, means = {"A": 200, "B": 200, "C": 200, "D": 3}, {"A": 3.8, "B": 3.0, "C": 3.1, "D": 3.0}
    system = np.concatenate([[g] * n for g, n in sizes.items()])
    z = np.array([means[g] for g in system]) + rng.normal(0, 1, system.size)
    full = pd.DataFrame({"id": [f"x{i}" for i in range(system.size)], "system": system})
    full["truth"] = z + rng.normal(0, 0.5, z.size)
    full["j1"], full["j2"] = z + rng.normal(0, 0.7, z.size), z + rng.normal(0, 0.9, z.size)
    full.drop(columns="truth").assign(human=np.nan).to_csv(pool := tmp_path / "pool.csv",
                                                            index=False)  # fmt: skip
    study, todo = tmp_path / "s.study", tmp_path / "todo.csv"
    assert main(["sample", str(pool), "--label", "human", "--judge", "j1", "--judge", "j2",
                 "--group", "system", "--item", "id", "--budget", "40", "--seed", "1",
                 "--study", str(study), "--out", str(todo)]) == 0  # fmt: skip
    drawn = pd.read_csv(todo)
    truth = full.set_index("id").loc[drawn["id"]]
    assert not (truth["system"] == "D").any()  # the draw missed D's three items
    drawn.assign(human=truth["truth"].to_numpy()).to_csv(todo, index=False)
    import_labels(study, todo)
    sentence = unlabeled_text(["D"])
    capsys.readouterr()
    assert main(["estimate", str(study), "--engine", "freq"]) == 0
    plan = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("bacon plan:"))
    assert sentence in plan, plan
    assert main(["status", str(study), "--engine", "freq"]) == 0
    top = next(ln for ln in capsys.readouterr().out.splitlines() if "top system" in ln)
    assert sentence in top, top
