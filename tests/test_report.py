"""The HTML report: every section filled, user text escaped, and a real headless Chromium
renders it without script errors (skipped with a message when Chromium is missing)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes import Calibrator, EvalPool
from bacon_bayes.cli import main
from bacon_bayes.report.html import SECTIONS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
LONG = "judge:gpt-3.5-turbo-0301|altmcq|relevance"


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("report")
    rng = np.random.default_rng(3)
    n = 400
    q = rng.normal(3, 0.8, n)
    frame = pd.DataFrame(
        {
            "item": [f"<b>item{i}</b>&" for i in range(n)],  # user text must be escaped
            "j1": q + rng.normal(0.4, 0.5, n),
            LONG: q + rng.normal(-0.3, 0.8, n),  # a long name: the bias table must still fit
            "flat": rng.normal(3, 1, n),  # no signal: marked uninformative
            "system": np.array(["sys<A>", "B", "C"])[np.arange(n) % 3],
            "y": np.where(rng.random(n) < 0.2, np.clip(q + rng.normal(0, 0.4, n), 1, 5), np.nan),
        }
    )
    pool = EvalPool.from_frame(
        frame,
        label="y",
        judges=["j1", LONG, "flat"],
        outcome="continuous",
        group="system",
        item="item",
    )
    sim = tmp / "sim"
    sim.mkdir()
    pd.DataFrame(
        {
            "design": ["uniform"] * 3 + ["adaptive"] * 3,
            "method": "aee",
            "budget": [0.05, 0.1, 0.2] * 2,
            "rmse": [0.1, 0.07, 0.05, 0.09, 0.06, 0.045],
            "width": [0.4, 0.28, 0.2, 0.36, 0.25, 0.18],
            "coverage": [0.95, 0.94, 0.96, 0.95, 0.95, 0.94],
            "band_low": 0.92,
            "band_high": 0.975,
        }
    ).to_csv(sim / "summary.csv", index=False)
    pd.DataFrame(
        {"config": ["judges", "intercept"], "type": ["calibrated", "baseline"],
         "family": ["ridge", ""], "engine": "freq", "r2": [0.41, 0.0], "rmse": [0.5, 0.7],
         "spearman": [0.6, float("nan")], "note": ""}
    ).to_csv(sim / "ablation.csv", index=False)  # fmt: skip
    cal = Calibrator(engine="freq", scale=(1, 5)).fit(pool)
    return cal.report(tmp / "report.html", simulate=sim, title="test <report>")


def test_every_section_is_filled_and_user_text_is_escaped(page):
    text = page.read_text()
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in text
    for key, heading in SECTIONS.items():
        if key == "round":  # only for a pool scored by a saved calibrator, or a ledger
            assert '<section id="round">' not in text
            continue
        assert f'<section id="{key}"><h2>{heading}</h2>' in text, key
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', text)
    assert len(images) == 6 and min(map(len, images)) > 2000
    assert "<b>item" not in text and "&lt;b&gt;item" in text
    assert "sys<A>" not in text and "sys&lt;A&gt;" in text
    assert "http://" not in text and "https://" not in text, "no network resource"
    assert "Oracle ablation" in text and "0.4100" in text
    assert text.count("uninformative</td>") == 1  # the judge without signal, in the table
    assert re.search(r"<th>AEE means from</th><td>[^<]+</td>", text)  # which surrogates


def test_headings_are_unique_and_the_differences_are_shown_once(page):
    """The page had two headings "Groups" (the data check's judges' over-rating by group,
    and the estimates' section), and the groups section repeated the Comparisons table of
    pairwise differences: every heading is now unique, and the differences are one table,
    in the comparisons section, the groups section pointing to it."""
    text = page.read_text()
    headings = re.findall(r"<h[23]>([^<]*)</h[23]>", text)
    assert len(headings) == len(set(headings)), headings
    assert "Group means and ranks" in headings and "Comparisons of groups" in headings
    assert "Judges' over-rating by group" in headings
    sections = dict(re.findall(r'<section id="([a-z]+)">(.*?)</section>', text, re.S))
    pairs = re.compile(r"<td>(sys&lt;A&gt;|B|C) - (sys&lt;A&gt;|B|C)</td>")
    assert not pairs.search(sections["groups"]) and '<a href="#comparisons">' in sections["groups"]
    assert len(pairs.findall(sections["comparisons"])) == 3
    assert len(pairs.findall(text)) == 3


def test_cli_report_from_a_table_and_from_a_saved_calibrator(tmp_path, capsys):
    from bacon_bayes.demo import load_summeval

    frame = load_summeval().head(300).copy()
    frame["y"] = frame["expert_mean_relevance"].where(np.arange(len(frame)) % 5 == 0)
    table = tmp_path / "pool.csv"
    frame.to_csv(table, index=False)
    args = ["--label", "y", "--judge", "judge:gpt-4-0314|rts|relevance",
            "--judge", "judge:llama-2-70b-chat-hf|rts|relevance", "--group", "system",
            "--engine", "freq", "--scale", "1:5"]  # fmt: skip
    assert main(["report", str(table), *args, "--out", str(tmp_path / "a.html")]) == 0
    assert "report written to" in capsys.readouterr().out
    cal = Calibrator(engine="freq", scale=(1, 5)).fit(
        EvalPool.from_frame(
            frame,
            label="y",
            judges=["judge:gpt-4-0314|rts|relevance"],
            outcome="continuous",
            group="system",
        )
    )
    saved = cal.save(tmp_path / "cal.nc")
    assert main(["report", str(saved), "--out", str(tmp_path / "b.html")]) == 0
    # the pool has groups: a Comparisons section beside the seven others (Data check too)
    assert (tmp_path / "b.html").read_text().count("<section") == 8
    assert main(["report", str(saved), "--out", str(tmp_path / "b.txt")]) == 2
    (tmp_path / "sim").mkdir()
    assert main(["report", str(saved), "--out", str(tmp_path / "c.html"),
                 "--simulate", str(tmp_path / "sim")]) == 2  # fmt: skip
    assert "no summary.csv" in capsys.readouterr().err
    # an output inside an input folder is refused (it would be read, or replaced, with it)
    assert main(["report", str(saved), "--out", str(tmp_path / "sim" / "c.html"),
                 "--simulate", str(tmp_path / "sim")]) == 2  # fmt: skip
    assert "is inside the input folder" in capsys.readouterr().err


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed: apt-get install chromium")
def test_report_renders_in_headless_chromium_without_errors(page, tmp_path):
    flags = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars"]
    url = page.resolve().as_uri()
    dom = subprocess.run(
        [*flags, "--dump-dom", url], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert 'data-ready="1"' in dom, "the page's script did not run to its end"
    assert "data-errors=" not in dom, re.search(r"data-errors=\"[^\"]*\"", dom)
    shot = tmp_path / "report.png"
    subprocess.run(
        [*flags, "--window-size=1200,3000", f"--screenshot={shot}", url],
        capture_output=True,
        timeout=120,
        check=True,
    )
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (3000, 1200) and pixels.std() > 0.05, "a blank page"
    # at 1,400 px the page never scrolls sideways and the judge-bias table fits whole
    wide = subprocess.run(
        [*flags, "--window-size=1400,3000", "--dump-dom", url],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    assert 'data-overflow="0"' in wide, re.search(r"<html[^>]*>", wide)
    clipped = re.search(r'data-clipped="([^"]*)"', wide)
    assert clipped and "bias" not in clipped.group(1).split(","), clipped
    # a phone (390 px; headless windows are at least 500 px wide, so the page is shown in
    # a 390 px frame): no sideways scroll, no figure narrower than 300 px
    frame = tmp_path / "phone.html"
    frame.write_text(
        f'<html><body style="margin:0"><iframe id="f" src="{url}" '
        'style="width:390px;height:3000px;border:0"></iframe><script>'
        "document.getElementById('f').addEventListener('load',function(){"
        "var r=this.contentDocument.documentElement;"
        "document.documentElement.setAttribute('data-phone',r.clientWidth+'/'+"
        "r.getAttribute('data-overflow')+'/'+r.getAttribute('data-min-figure'));});"
        "</script></body></html>"
    )
    phone = subprocess.run(
        [*flags, "--allow-file-access-from-files", "--window-size=1400,3000", "--dump-dom",
         frame.resolve().as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    ).stdout  # fmt: skip
    found = re.search(r'data-phone="(\d+)/(-?\d+)/(\d+)"', phone)
    assert found, re.search(r"<html[^>]*>", phone)
    width, overflow, narrowest = map(int, found.groups())
    assert width == 390 and overflow <= 0 and narrowest >= 300, found.groups()


def test_the_report_says_what_the_pool_notes_of_its_labels(tmp_path):
    """`bacon estimate` prints the pool's notes (two systems no one labeled, where random
    draws would have reached them); the report showed none of them."""
    rng = np.random.default_rng(0)
    g = np.repeat([f"s{i}" for i in range(6)], 100)
    y = rng.normal(size=g.size)
    lab = (rng.random(g.size) < 0.3) & ~np.isin(g, ["s4", "s5"])
    frame = pd.DataFrame({"y": np.where(lab, y, np.nan), "j": y + rng.normal(size=g.size), "g": g})
    frame.to_csv(tmp_path / "t.csv", index=False)
    out = tmp_path / "r.html"
    argv = ["report", str(tmp_path / "t.csv"), "--label", "y", "--judge", "j", "--group", "g"]
    assert main([*argv, "--engine", "freq", "--out", str(out)]) == 0
    assert "Note: 2 of 6 &#x27;g&#x27; groups (200 of 600 items) have no label (s4, s5)" in (
        out.read_text()
    )


def test_a_simulation_of_another_table_is_said_in_the_report(tmp_path, capsys):
    """Tester C finding 8: `bacon report --simulate` embedded a simulation of another
    label and other judges (the README's SummEval run in a report of pool.csv) and never
    said what it simulated: the section now states the folder's settings, and warns (on
    the page and the console) when they name another label or other judges."""
    rng = np.random.default_rng(4)
    n = 200
    q = rng.normal(3, 0.8, n)
    frame = pd.DataFrame({"id": np.arange(n), "ja": q + rng.normal(0, 0.5, n),
                          "jb": q + rng.normal(0, 0.7, n),
                          "y": np.where(np.arange(n) % 4 == 0, q, np.nan)})  # fmt: skip
    table = tmp_path / "pool.csv"
    frame.to_csv(table, index=False)
    sim = tmp_path / "sim"
    sim.mkdir()
    summary = {"design": "uniform", "method": "aee", "budget": [0.1], "rmse": [0.1],
               "width": [0.3], "coverage": [0.95]}  # fmt: skip
    pd.DataFrame(summary).to_csv(sim / "summary.csv", index=False)
    args = ["report", str(table), "--label", "y", "--judge", "ja,jb", "--item", "id",
            "--engine", "freq", "--simulate", str(sim)]  # fmt: skip
    settings = {"label": "expert", "judges": ["judge:a", "judge:b"], "budgets": [0.1],
                "trials": 10, "designs": ["uniform"], "methods": ["aee"]}  # fmt: skip
    (sim / "settings.json").write_text(json.dumps(settings))
    assert main([*args, "--out", str(tmp_path / "other.html")]) == 0
    said = "The simulation was run on label 'expert', not this report's 'y' and judges"
    assert said in capsys.readouterr().out
    text = (tmp_path / "other.html").read_text()
    assert "Simulated on label &#x27;expert&#x27;; 2 judge(s) (judge:a, judge:b)" in text, text
    assert "not this report&#x27;s &#x27;y&#x27;" in text and "trials 10" in text
    (sim / "settings.json").write_text(json.dumps({**settings, "label": "y",
                                                    "judges": ["jb", "ja"]}))  # fmt: skip
    assert main([*args, "--out", str(tmp_path / "same.html")]) == 0
    assert "The simulation was run on" not in capsys.readouterr().out
    text = (tmp_path / "same.html").read_text()
    assert "Simulated on label &#x27;y&#x27;" in text and "The simulation was run on" not in text
