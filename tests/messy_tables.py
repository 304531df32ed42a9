"""Messy tables nobody prepared, as a new user brings them (issue 43), for the doctor and
estimate tests and for property tests that draw their settings (:class:`Messy`).

:func:`messy_table` builds one: ``systems`` systems (``M1``... so ``M8`` and ``M10``
sort wrongly as strings) answering ``prompts`` prompts (a numeric ``prompt`` column), a
human label on a few rows (on ``0-1``, ``1-5`` or ``0-100``; optionally the mean of
``ratings`` integer ratings), three LLM judges on 1-5 (``llm_b`` writes ``-1`` as a
failure code on ``sentinels`` rows), automatic metrics on their own scales (``bleu`` in
0-1, ``chrf`` in 0-100, ``bertscore`` near 0.85-0.95) and a reference-based metric
``ref_match`` that scores the reference system 1.0 on every item, an error rate ``ter``
in 0-1 (lower is better: it falls as the label rises), a numeric latency, and the
responses' text.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import strategies as st

#: the judge columns of :func:`messy_table` (a reader may find them in this order)
LLM_JUDGES = ("llm_a", "llm_b", "llm_c")
METRICS = ("bleu", "chrf", "bertscore", "ref_match", "ter")


@dataclass(frozen=True)
class Messy:
    """Settings of a messy table (every field can be drawn by a property test).

    Attributes
    ----------
    seed : int
        Seed of the draws.
    systems, prompts : int
        Systems (``M1``...) and prompts; one row per system x prompt.
    label_scale : str
        ``"0-1"``, ``"1-5"`` or ``"0-100"``.
    ratings : int
        The label is the mean of this many integer ratings (1: one rating; on ``0-1``
        with 1 rating the label is 0/1).
    labeled : float
        Share of rows with a label.
    sentinels : int
        Rows where ``llm_b`` wrote ``-1`` (a failure code).
    reference : str or None
        The system ``ref_match`` takes as its reference (scored 1.0 on every item).
    words : tuple of int
        Fewest and most words of a response.
    numeric_id : bool
        Ids are numbers (else strings ``p<prompt>-<system>``).
    few_labels : tuple of int
        Labels of the first systems, exactly (e.g. ``(0, 1)``: none on ``M1``, one on
        ``M2``); the other systems keep theirs.
    missing_text : float
        Share of responses left empty (NaN).
    duplicate_judge : bool
        A second column named ``llm_a`` (another judge's scores under the same name).
    failed_cells : int
        Cells where ``llm_c`` wrote ``error`` (a judge's failures written as text).
    verdict_words : bool
        A 0/1 label (``0-1``, one rating) written as ``yes`` / ``no``.
    spreadsheet : bool
        Written as a European spreadsheet writes a CSV (``;`` between cells, decimal
        commas), and so is the to-label file the user fills in (:data:`SPREADSHEET`).
    title : bool
        A title and a blank line above the header (:data:`TITLE`), as spreadsheet exports
        write.
    """

    seed: int = 0
    systems: int = 11
    prompts: int = 96
    label_scale: str = "1-5"
    ratings: int = 3
    labeled: float = 0.05
    sentinels: int = 28
    reference: str | None = "M3"
    words: tuple[int, int] = (20, 300)
    numeric_id: bool = False
    few_labels: tuple[int, ...] = ()
    missing_text: float = 0.0
    duplicate_judge: bool = False
    failed_cells: int = 0
    verdict_words: bool = False
    spreadsheet: bool = False
    title: bool = False

    def csv(self) -> dict[str, str]:
        """The ``to_csv`` options of the table's file."""
        return SPREADSHEET if self.spreadsheet else {}

    def write(self, frame: pd.DataFrame, path: Path) -> None:
        """Write the table's file as the spec says."""
        text = frame.to_csv(index=False, **self.csv())
        path.write_text((TITLE if self.title else "") + text)


#: how a spreadsheet with a decimal comma writes a CSV
SPREADSHEET = {"sep": ";", "decimal": ","}
#: the lines a spreadsheet export may put above the header
TITLE = "Evaluation export, 30 Nov 2026\n\n"


def _ratings(q: np.ndarray, lo: int, hi: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """Mean of ``k`` integer ratings of quality ``q`` in [0, 1] on ``lo..hi``."""
    raw = lo + q[:, None] * (hi - lo) + rng.normal(0, 0.06 * (hi - lo), (q.size, k))
    return np.clip(np.round(raw), lo, hi).mean(axis=1)


def messy_table(spec: Messy | None = None) -> pd.DataFrame:
    """A messy table (see the module docstring).

    Parameters
    ----------
    spec : Messy, optional
        Its settings (default :class:`Messy`'s).

    Returns
    -------
    DataFrame
        Columns ``id``, ``prompt``, ``system``, ``response``, ``human`` (NaN where
        unlabeled), ``llm_a``, ``llm_b``, ``llm_c``, ``bleu``, ``chrf``, ``bertscore``,
        ``ref_match``, ``ter``, ``latency_ms``; the true quality (in [0, 1]) is in
        ``frame.attrs["quality"]`` and the full labels in ``frame.attrs["truth"]``.
    """
    s = spec or Messy()
    rng = np.random.default_rng(s.seed)
    names = [f"M{k + 1}" for k in range(s.systems)]
    system = np.tile(names, s.prompts)
    prompt = np.repeat(np.arange(s.prompts), s.systems)
    n = system.size
    effect = dict(zip(names, np.linspace(-0.2, 0.2, s.systems), strict=True))
    q = np.clip(
        0.55
        + np.vectorize(effect.get)(system)
        + rng.normal(0, 0.1, s.prompts)[prompt]
        + rng.normal(0, 0.12, n),
        0.02,
        0.98,
    )
    if s.label_scale == "0-1":
        truth = (
            (rng.random(n) < q).astype(float)
            if s.ratings == 1
            else (rng.random((n, s.ratings)) < q[:, None]).mean(axis=1)
        )
    elif s.label_scale == "1-5":
        truth = _ratings(q, 1, 5, s.ratings, rng)
    elif s.label_scale == "0-100":
        truth = _ratings(q, 0, 100, s.ratings, rng)
    else:
        raise ValueError(f"label_scale {s.label_scale!r}")
    human = truth.copy()
    keep = rng.permutation(n)[: max(2, round(s.labeled * n))]
    human[np.setdiff1d(np.arange(n), keep)] = np.nan
    for name, count in zip(names, s.few_labels, strict=False):
        rows = np.flatnonzero(system == name)
        human[rows] = np.nan
        human[rows[:count]] = truth[rows[:count]]
    lo_w, hi_w = s.words
    length = rng.integers(lo_w, hi_w + 1, n)
    vocab = np.array("the a model answer is good fine text reply more words here".split())
    response = [" ".join(rng.choice(vocab, k)) for k in length]

    def llm(noise: float) -> np.ndarray:
        return np.clip(np.round(1 + 4 * q + rng.normal(0, noise, n)), 1, 5)

    llm_b = llm(0.7)
    llm_b[rng.permutation(n)[: s.sentinels]] = -1.0
    ref = np.clip(0.45 + 0.2 * (q - 0.5) + rng.normal(0, 0.1, n), 0, 0.99)
    if s.reference is not None:
        ref[system == s.reference] = 1.0
    ids = (
        np.arange(1000, 1000 + n)
        if s.numeric_id
        else [f"p{p}-{g}" for p, g in zip(prompt, system, strict=True)]
    )
    frame = pd.DataFrame(
        {
            "id": ids,
            "prompt": prompt,
            "system": system,
            "response": response,
            "human": human,
            "llm_a": llm(0.5),
            "llm_b": llm_b,
            "llm_c": llm(0.9),
            "bleu": np.clip(0.1 + 0.5 * q + rng.normal(0, 0.1, n), 0, 1),
            "chrf": np.clip(20 + 60 * q + rng.normal(0, 8, n), 0, 100),
            "bertscore": np.clip(0.84 + 0.1 * q + rng.normal(0, 0.01, n), 0, 1),
            "ref_match": ref,
            "ter": np.clip(0.9 - 0.6 * q + rng.normal(0, 0.1, n), 0, 1),
            "latency_ms": rng.gamma(2.0, 400.0, n),
        }
    )
    if s.missing_text:
        frame.loc[rng.random(n) < s.missing_text, "response"] = np.nan
    if s.failed_cells:
        frame["llm_c"] = frame["llm_c"].astype(object)
        frame.loc[rng.permutation(n)[: s.failed_cells], "llm_c"] = "error"
    if s.verdict_words and s.label_scale == "0-1" and s.ratings == 1:
        frame["human"] = np.where(human == 1, "yes", np.where(human == 0, "no", None))
    if s.duplicate_judge:
        frame = pd.concat([frame, frame[["llm_c"]].set_axis(["llm_a"], axis=1)], axis=1)
    frame.attrs["quality"] = q
    frame.attrs["truth"] = truth
    return frame


def messy_specs(*, small: bool = True) -> st.SearchStrategy[Messy]:
    """Hypothesis strategy of :class:`Messy` settings: every kind of mess at once or apart.

    Parameters
    ----------
    small : bool
        Few systems and prompts (3-5 x 16-30: a walk of every command in seconds); else
        up to 11 x 96, the size of the table of issue 43.
    """
    return st.builds(
        Messy,
        seed=st.integers(0, 2**16),
        systems=st.integers(3, 5) if small else st.integers(3, 11),
        prompts=st.integers(16, 30) if small else st.integers(16, 96),
        label_scale=st.sampled_from(("0-1", "1-5", "0-100")),
        ratings=st.sampled_from((1, 3)),
        labeled=st.sampled_from((0.05, 0.2, 0.35)),
        sentinels=st.integers(0, 8),
        reference=st.sampled_from((None, "M2")),
        words=st.sampled_from(((1, 11), (20, 300))),
        numeric_id=st.booleans(),
        few_labels=st.sampled_from(((), (0,), (1,), (0, 1), (1, 0))),
        missing_text=st.sampled_from((0.0, 0.15)),
        duplicate_judge=st.booleans(),
        failed_cells=st.sampled_from((0, 2)),
        verdict_words=st.booleans(),
        spreadsheet=st.booleans(),
        title=st.booleans(),
    )
