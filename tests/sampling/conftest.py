"""Shared fixtures of the sampling and study tests: a small synthetic pool."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bacon_bayes.cli import main

N_POOL = 200


def bacon(*argv: str) -> int:
    """Run the ``bacon`` command line in-process (0 ok, 2 refused; errors go to stderr)."""
    return main(list(argv))


@pytest.fixture
def pool_file(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    truth = rng.integers(1, 6, N_POOL)
    frame = pd.DataFrame(
        {
            "id": [f"doc{i:03d}" for i in range(N_POOL)],
            "judge_a": np.clip(truth + rng.normal(0, 0.7, N_POOL), 1, 5).round(2),
            "judge_b": np.clip(truth + rng.normal(0.5, 1.0, N_POOL), 1, 5).round(2),
            "system": rng.choice(["s1", "s2", "s3"], N_POOL),
            "truth": truth,
        }
    )
    path = tmp_path / "pool.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def study(tmp_path: Path, pool_file: Path) -> Path:
    """A study with one uniform wave of 40 items, none labeled yet."""
    root = tmp_path / "study"
    code = bacon(
        "sample", str(pool_file), "--study", str(root), "--budget", "40", "--item", "id",
        "--label", "human", "--levels", "1,2,3,4,5", "--outcome", "ordinal",
        "--judges", "judge_a,judge_b", "--out", str(tmp_path / "todo.csv"),
    )  # fmt: skip
    assert code == 0
    return root


def fill(todo: Path, pool_file: Path, out: Path, rows: slice | None = None) -> Path:
    """Write the true labels of the items in ``todo`` (a slice of them) to ``out``."""
    items = pd.read_csv(todo, dtype=str)
    truth = pd.read_csv(pool_file, dtype={"id": str}).set_index("id")["truth"]
    items["human"] = truth.loc[items["id"]].to_numpy()
    if rows is not None:
        items = items.iloc[rows]
    items.to_csv(out, index=False)
    return out


def record_budget(root: Path, max_labels: int) -> None:
    """Write ``max_labels`` into the study's ``study.toml``, as a budget recorded from the
    start would be (bacon refuses to record one once labels have come in)."""
    from dataclasses import replace

    from bacon_bayes.study import StudyConfig

    config = replace(StudyConfig.read(root), max_labels=max_labels)
    (root / "study.toml").write_text(config.to_toml(), encoding="utf-8")


def systems_pool(
    path: Path,
    rng: np.random.Generator,
    system: np.ndarray,
    truth: np.ndarray,
    *,
    doc: bool = False,
) -> Path:
    """Write to ``path`` a pool of items of ``system`` with true labels ``truth`` and two
    judges drawn from ``rng`` (judge_b half a point high); with ``doc``, a doc column."""
    frame = pd.DataFrame(
        {
            "id": [f"doc{i:03d}" for i in range(N_POOL)],
            "judge_a": np.clip(truth + rng.normal(0, 0.7, N_POOL), 1, 5).round(2),
            "judge_b": np.clip(truth + rng.normal(0.5, 1.0, N_POOL), 1, 5).round(2),
            "system": system,
            **({"doc": [f"d{i % 50}" for i in range(N_POOL)]} if doc else {}),
            "truth": truth,
        }
    )
    frame.to_csv(path, index=False)
    return path


def grouped_study(tmp_path: Path, *, doc: bool = False) -> tuple[Path, Path]:
    """A study of three systems (s1 about 1.5 points above the others) with one labeled
    uniform wave of 40 items; with ``doc``, a doc column shown to the labellers. Returns
    (study, pool file)."""
    from bacon_bayes.study import import_labels

    rng = np.random.default_rng(0)
    system = rng.choice(["s1", "s2", "s3"], N_POOL)
    truth = np.clip(rng.integers(1, 5, N_POOL) + 2 * (system == "s1"), 1, 5)
    pool = systems_pool(tmp_path / "pool.csv", rng, system, truth, doc=doc)
    root = tmp_path / "study"
    assert bacon(
        "sample", str(pool), "--study", str(root), "--budget", "40", "--item", "id",
        "--label", "human", "--judge", "judge_a,judge_b", "--group", "system",
        *(["--show", "doc"] if doc else []), "--out", str(tmp_path / "todo1.csv"),
    ) == 0  # fmt: skip
    import_labels(root, fill(tmp_path / "todo1.csv", pool, tmp_path / "filled1.csv"))
    return root, pool


def label_wave(root: Path, pool: Path, wave: int) -> str:
    """Label wave ``wave``'s to-label file with the true labels; what the import said."""
    from bacon_bayes.study import import_labels

    todo = root / f"todo-wave{wave}.csv"
    return str(import_labels(root, fill(todo, pool, todo.with_name(f"filled{wave}.csv"))))
