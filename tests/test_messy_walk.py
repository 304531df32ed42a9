"""The property test of issue 43: a table nobody prepared walks every command a new user
would run, and every step either works and says something sensible or refuses it plainly.

Each table comes from :func:`tests.messy_tables.messy_specs` (drawn by hypothesis): sparse
groups, one with 0 labels and one with 1; ``-1`` failure codes in a 1-5 judge; judges on
1-5, 0-1, 0-100 and no evident scale; empty response cells; numeric id and prompt
columns; a duplicated column name; a reference-based metric constant on its reference
system; a judge that wrote ``error`` in two cells; the label on 0-1 (``yes`` / ``no`` or
1 / 0), 1-5 or 0-100 (one rating, or the mean of three); the file written as a European
spreadsheet writes a CSV (``;``, decimal commas), and its to-label file filled in so. The
walk:

1. ``bacon doctor FILE``;
2. the ``bacon estimate`` command doctor prints (its ``run:`` line);
3. ``bacon report FILE`` with the same reading options;
4. ``bacon plan FILE`` with the same reading options and a drawn goal;
5. the ``bacon sample`` command plan prints, which starts a study from the pool and keeps
   its labels as the first wave (``bacon sample FILE`` with the reading options and
   ``--budget 0.25`` when the plan asks for no more labels or refuses: too few of them);
6. label import: the to-label file filled in with the table's full labels, then the
   ``bacon label import`` command that sample prints;
7. ``bacon estimate STUDY --json``.

Every step exits 0 with output that makes sense, or 2 with a one-line message that names
a column or option and the fix; never an exception (a traceback, exit 1), and never an
estimate outside its own interval (the text tables and the JSON are parsed). A duplicated
column name must be refused (naming it); the walk then renames it, as a user would, and
goes on. :func:`test_walk_of_typical_messy_tables` walks a few tables with every kind of
mess and asks each step to work; the property test draws more, where a refusal (too few
labels, say) is an answer too.

Speed: ``--engine freq`` is added to the commands that would fit the Bayesian judge model
(``bacon estimate``'s ``auto`` takes it for the gaussian, ordinal and hurdle families: 15-50 s
a fit) and to report; the commands are otherwise run exactly as printed. They run in this
process (:func:`bacon_bayes.cli.main`, output captured), on tables of 3-5 systems x 16-30
prompts, 3 typical and 5 drawn tables (derandomized, no deadline, no shrinking; a walk
takes about 3 s, half of it the HTML report). The ``slow`` variants (``make validate``)
draw 12 such tables and 40 of up to 11 systems x 96 prompts (2 min 21 s), and walk the
typical tables with every printed command exactly as printed (the default engine's
Bayesian fits; the first of them, 30-40 s, in ``make test``).
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import shlex
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field, replace
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bacon_bayes.cli import main

from .messy_tables import TITLE, Messy, messy_specs, messy_table

FILE = "messy.csv"
SCALES = {"0-1": (0.0, 1.0), "1-5": (1.0, 5.0), "0-100": (0.0, 100.0)}
#: words of a refusal that say what to do (with an option or a quoted column name)
FIX_WORDS = re.compile(
    r"\b(pass|rename|drop|remove|blank|fill|add|label|use|give|run|lower|raise|set|check|"
    r"choose|name|keep|split|delete|correct|fix)\b",
    re.IGNORECASE,
)
NUMBER = r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf)"
BRACKETED = re.compile(rf"({NUMBER})\s+\[({NUMBER}),\s*({NUMBER})\]")


@dataclass
class Walk:
    """One table's walk: the folder it runs in, the table, and the steps so far."""

    folder: Path
    spec: Messy
    frame: pd.DataFrame
    steps: list[tuple[str, int, float]] = field(default_factory=list)
    #: run the printed commands with their own engine (the Bayesian fits of ``auto``)
    exact: bool = False

    @property
    def engine(self) -> list[str]:
        """``--engine freq`` for speed, nothing when the walk runs commands exactly."""
        return [] if self.exact else ["--engine", "freq"]

    def bacon(self, argv: list[str], *, may_refuse: bool = True) -> tuple[int, str]:
        """Run ``bacon ARGV`` here; the exit code and stdout. A refusal (exit 2) must say
        what is wrong and how to fix it; anything else but 0 fails the test."""
        out, err = io.StringIO(), io.StringIO()
        command = "bacon " + shlex.join(argv)
        start = time.perf_counter()
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse's usage errors
                code = exc.code if isinstance(exc.code, int) else 2
            except BaseException as exc:
                raise AssertionError(f"{command} raised {exc!r}\n{self.spec}") from exc
        self.steps.append((argv[0], code, round(time.perf_counter() - start, 1)))
        text, message = out.getvalue(), err.getvalue()
        assert "Traceback" not in text + message, (command, message)
        assert code in (0, 2), f"{command} exited {code}: {message}\n{self.spec}"
        if code == 2:
            assert may_refuse, f"{command} refused: {message}\n{self.spec}"
            refusal_is_plain(message, self.frame.columns, command)
        return code, text


def refusal_is_plain(message: str, columns: pd.Index, command: str) -> None:
    """A refusal: one ``bacon CMD: error:`` (or argparse ``usage``) message naming a column
    of the table, an option or what the command was given, and saying what to do."""
    lines = [ln for ln in message.strip().splitlines() if ln.strip()]
    assert lines, f"{command} exited 2 without a message"
    error = next((ln for ln in lines if ": error:" in ln), "")
    assert error, (command, message)
    named = [*map(str, columns), *shlex.split(command)]
    names = any(f"'{c}'" in error for c in named) or "--" in error
    assert names, f"{command}: the refusal names no column or option: {error}"
    assert FIX_WORDS.search(error.split("error:", 1)[1]), f"{command}: no fix in: {error}"


@contextmanager
def walking(spec: Messy) -> Iterator[Walk]:
    """A fresh folder holding the table as ``messy.csv``, as the working directory."""
    frame = messy_table(spec)
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        spec.write(frame, folder / FILE)
        os.chdir(folder)
        try:
            yield Walk(folder, spec, frame)
        finally:
            os.chdir(here)


def run_lines(text: str) -> list[list[str]]:
    """The commands of the ``run:`` lines (the line itself or the one after a bare
    ``run:``), split as a shell would, without ``bacon``."""
    lines = text.splitlines()
    found = []
    for k, line in enumerate(lines):
        head, _, rest = line.strip().partition("run:")
        if head or not _:
            continue
        words = shlex.split(rest.strip() or (lines[k + 1] if k + 1 < len(lines) else ""))
        assert words and words[0] == "bacon", line
        found.append(words[1:])
    return found


def option(words: list[str], name: str) -> str | None:
    return words[words.index(name) + 1] if name in words else None


def intervals_hold(text: str, what: str) -> int:
    """Every ``x [lo, hi]`` of ``text`` and every row ``name est se lo hi width n`` of its
    mean table has lo <= x <= hi; how many were checked."""
    checked = 0
    for match in BRACKETED.finditer(text):
        x, lo, hi = (float(v) for v in match.groups())
        if all(map(math.isfinite, (x, lo, hi))):
            assert lo - 1e-9 <= x <= hi + 1e-9, f"{what}: {match.group(0)} outside its interval"
            checked += 1
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("mean of ") and k + 1 < len(lines) and "ci_low" in lines[k + 1]:
            for row in lines[k + 2 :]:
                if not row.strip():
                    break
                est, _se, lo, hi = (float(v) for v in row.split()[-6:-2])
                if all(map(math.isfinite, (est, lo, hi))):
                    assert lo - 1e-9 <= est <= hi + 1e-9, f"{what}: {row.strip()}"
                    checked += 1
    return checked


def json_intervals_hold(node: object, what: str, path: str = "") -> int:
    """Every object of the JSON with an estimate (or difference) and ci_low, ci_high has
    ci_low <= estimate <= ci_high; how many were checked."""
    checked = 0
    if isinstance(node, dict):
        value = node.get("estimate", node.get("difference"))
        lo, hi = node.get("ci_low"), node.get("ci_high")
        if all(isinstance(v, int | float) for v in (value, lo, hi)):
            if all(map(math.isfinite, (value, lo, hi))):
                assert lo - 1e-9 <= value <= hi + 1e-9, f"{what}: {path} {node}"
                checked += 1
        for key, child in node.items():
            checked += json_intervals_hold(child, what, f"{path}.{key}")
    elif isinstance(node, list):
        for k, child in enumerate(node):
            checked += json_intervals_hold(child, what, f"{path}[{k}]")
    return checked


class _Tables(HTMLParser):
    """The tables of an HTML page, as lists of rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.row: list[str] | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.row = []
            self.tables[-1].append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row.append(" ".join("".join(self.cell).split()))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


#: the report's columns of a value and its interval (item scores where the table has no
#: prediction ``set``: a categorical label's interval is the span of its prediction set,
#: which the probability of a 1 need not lie in)
REPORT_INTERVALS = [
    ("score", "lower", "upper"),
    ("estimate", "ci_low", "ci_high"),
    ("difference", "ci_low", "ci_high"),
    ("over", "low", "high"),
    ("over per word", "low", "high"),
    ("over per 10 words", "low", "high"),
    ("over per 100 words", "low", "high"),
    ("bias", "bias low", "bias high"),
]


def report_intervals_hold(page: str) -> int:
    """Every value of the report's tables lies in its interval; how many were checked."""
    parser = _Tables()
    parser.feed(page)
    checked = 0
    for table in parser.tables:
        if not table:
            continue
        head = table[0]
        for value, low, high in REPORT_INTERVALS:
            if not {value, low, high} <= set(head) or (value == "score" and "set" in head):
                continue
            at = [head.index(c) for c in (value, low, high)]
            for row in table[1:]:
                try:
                    x, lo, hi = (float(row[k]) for k in at)
                except (ValueError, IndexError):
                    continue  # an empty cell: no interval
                if all(map(math.isfinite, (x, lo, hi))):
                    assert lo - 1e-9 <= x <= hi + 1e-9, f"report: {head} {row}"
                    checked += 1
    return checked


# ----------------------------------------------------------------------------- the steps
ROLES = {"id": "--item", "label": "--label", "judge": "--judge", "group": "--group",
         "prompt": "--prompt"}  # fmt: skip


def found(out: str) -> list[str]:
    """The reading options of what doctor found (its ``columns found`` lines)."""
    options = []
    lines = out.splitlines()
    start = lines.index("columns found:") + 1
    for line in lines[start : lines.index("", start)]:
        words = line.split()
        if line.startswith("  ") and len(words) > 1 and words[0] in ROLES and words[1] != "-":
            options += [ROLES[words[0]], words[1]]
    return options


def doctor(walk: Walk, *given: str) -> tuple[list[str], list[str]] | None:
    """Step 1: doctor names what it finds; the command it prints (empty when it says why
    it prints none) and the reading options of what it found. None when it refused."""
    spec = walk.spec
    code, out = walk.bacon(["doctor", FILE, *given], may_refuse=spec.duplicate_judge)
    if spec.duplicate_judge:
        assert code == 2, "a duplicated column name 'llm_a' was not refused"
        return None
    printed = run_lines(out)
    labels = int(walk.frame["human"].notna().sum())
    if not printed and "--label" not in given and re.search(r"^  label\s+-\s", out, re.M):
        assert labels < 2 and "pass --label NAME" in out, out
        return doctor(walk, "--label", "human")  # as it says
    if not printed:
        assert "too few for bacon estimate" in out and "label more items" in out, out
        return [], found(out)
    (command,) = printed
    assert command[:2] == ["estimate", FILE], command
    assert option(command, "--label") == "human", command
    scale = option(command, "--scale")
    if scale is not None:  # a scale it states holds the labels, within the label's
        lo, hi = (float(v) for v in scale.split(":"))
        seen = walk.frame["human"].dropna()
        true_lo, true_hi = SCALES[spec.label_scale]
        assert true_lo <= lo <= seen.min() and seen.max() <= hi <= true_hi, scale
    if spec.sentinels >= 3 and re.search(r"^  judge\s+llm_b ", out, re.M):
        assert re.search(r"llm_b\s+codes\s+\d+ scores of -1", out), "the -1 codes not flagged"
    if spec.reference is not None and re.search(r"^  judge\s+ref_match ", out, re.M):
        assert re.search(rf"ref_match\s+constant .* of {spec.reference}\b", out), out
    assert re.search(r"^\s+prompt\s+prompt\s", out, re.M), "the prompt column missed"
    return command, command[2:]


def rename_duplicate(walk: Walk) -> None:
    """What a user does with the refusal: rename the second ``llm_a`` and go on."""
    text = (walk.folder / FILE).read_text().removeprefix(TITLE if walk.spec.title else "")
    header, _, rest = text.partition("\n")
    sep = walk.spec.csv().get("sep", ",")
    names = header.split(sep)
    assert names.count("llm_a") == 2
    names[len(names) - 1 - names[::-1].index("llm_a")] = "llm_a2"
    (walk.folder / FILE).write_text(
        (TITLE if walk.spec.title else "") + sep.join(names) + "\n" + rest
    )
    attrs = walk.frame.attrs
    walk.frame = pd.read_csv(
        walk.folder / FILE, skiprows=2 if walk.spec.title else 0, **walk.spec.csv()
    )
    walk.frame.attrs = attrs
    walk.spec = replace(walk.spec, duplicate_judge=False)


def estimate_as_printed(walk: Walk, command: list[str]) -> None:
    """Step 2: doctor's command runs; every estimate lies in its interval, on the scale."""
    code, out = walk.bacon([*command, *walk.engine])
    if code:
        return
    assert "mean of 'human'" in out, out
    assert intervals_hold(out, "estimate") >= 2, out
    lo, hi = SCALES[walk.spec.label_scale]
    aee = next(ln for ln in out.splitlines() if ln.strip().startswith("calibrated (AEE)"))
    assert lo <= float(aee.split()[2]) <= hi, aee


def report(walk: Walk, reading: list[str]) -> None:
    """Step 3: the report is written."""
    code, out = walk.bacon(["report", FILE, *reading, *walk.engine, "--out", "r.html"])
    if code == 0:
        page = (walk.folder / "r.html").read_text()
        assert page.lstrip().lower().startswith("<!doctype html") or "<html" in page[:500]
        assert "r.html" in out
        assert report_intervals_hold(page) >= 2


def plan(walk: Walk, reading: list[str], goal: list[str]) -> list[str]:
    """Step 4: plan recommends a design; the ``bacon sample`` command it prints, or, when
    it asks for no more labels, finds none that reaches the goal within the pool, or
    refuses (too few pilot labels), one of our own that
    draws a quarter of the pool, as doctor's advice to label more would have it."""
    own = ["sample", FILE, *reading, "--budget", "0.25"]
    code, out = walk.bacon(["plan", FILE, *reading, *goal])
    if code or "no design reaches the goal short of labeling all" in out:
        return own  # (--top on systems the pilot's table has all but tied: none reaches it)
    assert "recommended:" in out, out
    for line in out.splitlines():
        if "power @" in line or "half-width @" in line:
            assert "nan" not in line.lower(), line
    printed = run_lines(out)
    assert len(printed) <= 1, printed
    if printed:
        assert printed[0][:2] == ["sample", FILE], printed
        return printed[0]
    assert re.search(r"\b0 more\b", out), f"no command, yet more labels asked for:\n{out}"
    return own


def sample_and_label(walk: Walk, command: list[str]) -> Path | None:
    """Steps 5 and 6: the wave is drawn, its to-label file filled in from the full labels
    and imported by the command sample prints; the study folder (None if refused)."""
    code, out = walk.bacon(command)
    if code:
        return None
    match = re.search(r"fill in column '([^']+)' and run `(bacon label import [^`]+)`", out)
    assert match, out
    label, printed = match.group(1), shlex.split(match.group(2))[1:]
    todo = Path(printed[2])
    frame = pd.read_csv(todo, dtype=str, keep_default_na=False)
    assert label in frame and len(frame), frame.head()
    truth = dict(zip(walk.frame["id"].astype(str), walk.frame.attrs["truth"], strict=True))
    key = frame.columns[0]
    frame[label] = [repr(float(truth[v])) for v in frame[key]]
    if walk.spec.spreadsheet:  # filled in and saved by the same spreadsheet
        frame[label] = frame[label].str.replace(".", ",")
    frame.to_csv(todo, index=False, sep=walk.spec.csv().get("sep", ","))
    code, said = walk.bacon(printed)
    if code:
        return None
    added = re.search(r"(\d+) labels added, .* (\d+) rows without a label left pending", said)
    assert added and int(added.group(1)) == len(frame) and added.group(2) == "0", said
    return Path(option(printed, "--study") or ".")


def estimate_study(walk: Walk, study: Path) -> None:
    """Step 7: the study's estimate, from the pilot and the new wave."""
    code, out = walk.bacon(["estimate", str(study), *walk.engine, "--json"])
    if code:
        return
    result = json.loads(out)
    pilot = int(walk.frame["human"].notna().sum())
    assert result["n_labeled"] >= pilot, (result["n_labeled"], pilot)
    assert json_intervals_hold(result, "study estimate") >= 1
    lo, hi = SCALES[walk.spec.label_scale]
    for row in result["mean"].values():
        assert lo <= row["estimate"] <= hi, row


def goals(spec: Messy) -> list[list[str]]:
    lo, hi = SCALES[spec.label_scale]
    return [
        ["--half-width", f"{0.05 * (hi - lo):g}"],
        ["--top"],
        ["--difference", "M1", f"M{spec.systems}", "--delta", f"{0.2 * (hi - lo):g}"],
    ]


#: the other commands a duplicated column name must stop (with the options each needs)
REFUSE_DUPLICATE = [
    ["estimate"],
    ["report", "--out", "r.html"],
    ["plan", "--half-width", "1"],
    ["sample", "--budget", "10"],
]


def walk_table(spec: Messy, goal: int = 0, exact: bool = False) -> Walk:
    """Every step of the walk on the table of ``spec`` (see the module docstring); ``exact``:
    every printed command as printed, its default engine included."""
    with walking(spec) as walk:
        walk.exact = exact
        found = doctor(walk)
        if found is None:  # a duplicated column: refused everywhere, then renamed
            for more in REFUSE_DUPLICATE:
                walk.bacon([more[0], FILE, "--label", "human", *more[1:]])
            assert all(code == 2 for _, code, _ in walk.steps), walk.steps
            rename_duplicate(walk)
            found = doctor(walk)
            assert found is not None
        command, reading = found
        if command:
            estimate_as_printed(walk, command)
        report(walk, reading)
        sample = plan(walk, reading, goals(walk.spec)[goal])
        study = sample_and_label(walk, sample)
        if study is not None:
            estimate_study(walk, study)
        return walk


# ------------------------------------------------------------------------------ the tests
#: hypothesis settings of the walks: the same examples on every run (CI), no deadline
#: (a walk takes seconds), no example database written into the tree, and no shrinking
#: (a failing walk is reported as drawn: shrinking would rerun walks for minutes)
WALK_SETTINGS: dict = {
    "deadline": None,
    "derandomize": True,
    "database": None,
    "phases": [Phase.explicit, Phase.generate],
    "suppress_health_check": [HealthCheck.too_slow],
}

#: tables with every kind of mess, each step asked to work
TYPICAL = [
    Messy(seed=1, systems=4, prompts=24, label_scale="1-5", ratings=3, labeled=0.2,
          sentinels=5, reference="M2", numeric_id=True, few_labels=(0, 1),
          missing_text=0.15),
    Messy(seed=2, systems=3, prompts=24, label_scale="0-1", ratings=1, labeled=0.25,
          sentinels=4, reference="M3", words=(1, 11), duplicate_judge=True, failed_cells=2,
          verdict_words=True, title=True),
    Messy(seed=3, systems=5, prompts=20, label_scale="0-100", ratings=1, labeled=0.2,
          sentinels=3, reference=None, few_labels=(1, 0), missing_text=0.15,
          spreadsheet=True),
]  # fmt: skip


#: PyTensor raises the recursion limit on first use; hypothesis then warns it cannot reset it
QUIET = pytest.mark.filterwarnings("ignore:The recursion limit will not be reset")


@pytest.mark.parametrize("k", range(len(TYPICAL)))
def test_walk_of_typical_messy_tables(k: int) -> None:
    walk = walk_table(TYPICAL[k], goal=k)
    refused = [(verb, code) for verb, code, _ in walk.steps if code]
    expected = 5 if TYPICAL[k].duplicate_judge else 0  # doctor, then the four commands
    assert len(refused) == expected, walk.steps
    assert [verb for verb, _, _ in walk.steps][-4:] == ["plan", "sample", "label", "estimate"]


@QUIET
@settings(max_examples=5, **WALK_SETTINGS)
@given(spec=messy_specs(), goal=st.integers(0, 2))
def test_walk_of_drawn_messy_tables(spec: Messy, goal: int) -> None:
    walk_table(spec, goal)


@pytest.mark.slow
@QUIET
@settings(max_examples=12, **WALK_SETTINGS)
@given(spec=messy_specs(), goal=st.integers(0, 2))
def test_walk_of_more_drawn_messy_tables(spec: Messy, goal: int) -> None:
    """The small tables ``make test`` walks, more of them (it drew 12 until 2026-12-03)."""
    walk_table(spec, goal)


@pytest.mark.parametrize(
    "k", [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)]
)
def test_walk_of_typical_messy_tables_exactly_as_printed(k: int) -> None:
    """The same walks with no ``--engine freq`` added: the default engine's fits (the first
    table, a 1-5 label, in ``make test``; all three in ``make validate``)."""
    walk = walk_table(TYPICAL[k], goal=k, exact=True)
    refused = [(verb, code) for verb, code, _ in walk.steps if code]
    assert len(refused) == (5 if TYPICAL[k].duplicate_judge else 0), walk.steps


@pytest.mark.slow
@QUIET
@settings(max_examples=40, **WALK_SETTINGS)
@given(spec=messy_specs(small=False), goal=st.integers(0, 2))
def test_walk_of_drawn_messy_tables_long(spec: Messy, goal: int) -> None:
    walk_table(spec, goal)


def test_the_checks_fail_on_an_estimate_outside_its_interval() -> None:
    """The parsers catch what they are for (a walk that checked nothing would pass)."""
    text = "mean of 'human' (95% CI):\n  method estimate se ci_low ci_high width labels used\n"
    with pytest.raises(AssertionError):
        intervals_hold(text + "naive (raw judge avg) 0.0123 0.01 1.0 1.0 0.0 53\n", "t")
    with pytest.raises(AssertionError):
        intervals_hold("M1 2.9 [1.857, 2.711]", "t")
    with pytest.raises(AssertionError):
        json_intervals_hold({"groups": [{"estimate": 3.0, "ci_low": 1.0, "ci_high": 2.0}]}, "t")
    assert intervals_hold("M1 2.3958 [1.857, 2.711]", "t") == 1
    row = "<tr><td>{}</td><td>{}</td><td>{}</td></tr>"
    page = "<table>" + row.format("estimate", "ci_low", "ci_high") + row + "</table>"
    assert report_intervals_hold(page.format(0.5, 0.1, 0.9)) == 1
    with pytest.raises(AssertionError):
        report_intervals_hold(page.format(0.0123, 1.0, 1.0))
    with pytest.raises(AssertionError):
        refusal_is_plain("bacon estimate: error: something went wrong\n", pd.Index(["x"]), "t")
    refusal_is_plain(
        "bacon estimate: error: column 'x' row 3: not a number; blank it\n", pd.Index(["x"]), "t"
    )
    assert run_lines("run:\n  bacon estimate a.csv --label 'my label'\n") == [
        ["estimate", "a.csv", "--label", "my label"]
    ]
