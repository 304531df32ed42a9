"""The ``bacon simulate`` output folder a report reads: its summary, oracle ablation and
settings, and whether it simulated the report's own pool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from bacon_bayes.errors import ValidationError

if TYPE_CHECKING:
    from bacon_bayes.pool import EvalPool


def read_simulate_summary(folder: str | Path) -> pd.DataFrame:
    """The ``summary.csv`` of a ``bacon simulate`` output folder."""
    path = Path(folder) / "summary.csv"
    if not path.is_file():
        raise ValidationError(
            f"{str(folder)!r} has no summary.csv; pass the --out folder of `bacon simulate`."
        )
    frame = pd.read_csv(path)
    if "budget" not in frame:
        raise ValidationError(f"{str(path)!r} has no 'budget' column; is it a simulate summary?")
    return frame


def read_simulate_settings(folder: str | Path) -> dict[str, Any]:
    """The settings of a ``bacon simulate`` folder (``settings.json``, else
    ``ablation_settings.json``); ``{}`` when it has neither or they cannot be read."""
    for name in ("settings.json", "ablation_settings.json"):
        path = Path(folder) / name
        if path.is_file():
            try:
                read = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return {}
            return read if isinstance(read, dict) else {}
    return {}


def _names(names: list[str], most: int = 4) -> str:
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def simulate_settings_line(settings: dict[str, Any]) -> str:
    """One sentence of what a ``bacon simulate`` folder simulated (its settings.json)."""
    judges = [str(j) for j in settings.get("judges") or []]
    said = [f"label {settings.get('label')!r}", f"{len(judges)} judge(s) ({_names(judges)})"]
    for key in ("group", "budgets", "trials", "designs", "methods"):
        value = settings.get(key)
        if value not in (None, [], ""):
            shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
            said.append(f"{key} {shown}")
    return "Simulated on " + "; ".join(said) + " (the folder's settings)."


def simulate_mismatch(pool: EvalPool, settings: dict[str, Any]) -> str:
    """Why a ``bacon simulate`` folder is not a simulation of ``pool`` (another label or
    other judges), or ``""`` when its settings name this pool's label and judges."""
    diffs = []
    label = settings.get("label")
    if label is not None and str(label) != pool.label_name:
        diffs.append(f"label {label!r}, not this report's {pool.label_name!r}")
    judges = [str(j) for j in settings.get("judges") or []]
    if judges and sorted(judges) != sorted(pool.judges):
        diffs.append(f"judges {_names(judges)}, not this report's {_names(list(pool.judges))}")
    if not diffs:
        return ""
    return (
        f"The simulation was run on {' and '.join(diffs)}: its errors, coverage and label "
        "savings are those of that table, not of this pool. Run bacon simulate on this "
        "pool's table, label and judges to measure them here."
    )


def read_simulate_folder(folder: str | Path) -> dict[str, Any]:
    """The Monte Carlo summary, the oracle ablation (either may be absent, not both) and
    the settings of a ``bacon simulate`` folder, as the keyword arguments ``simulate``,
    ``ablation`` and ``simulate_settings`` of :func:`render_report`."""
    path = Path(folder)
    ablation_csv = path / "ablation.csv"
    ablation = pd.read_csv(ablation_csv) if ablation_csv.is_file() else None
    only_ablation = ablation is not None and not (path / "summary.csv").is_file()
    return {
        "simulate": None if only_ablation else read_simulate_summary(path),
        "ablation": ablation,
        "simulate_settings": read_simulate_settings(path),
    }
