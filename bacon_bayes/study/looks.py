"""A study's looks: the waves whose labels are all in (the look ``bacon status``,
``bacon estimate`` and ``bacon report`` read a study at), the waves still pending, the
calibrator fitted on the study as it stood after a wave, and the pool mean at every look
(the report's figure of a study's anytime intervals). :mod:`bacon_bayes.study.settled`
decides its questions from these."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.look_fits import LookFit, fit_look, hand_over, look_fit
from bacon_bayes.study.panel import is_panel_note, replaced_after

if TYPE_CHECKING:
    from bacon_bayes.calibrator import Calibrator

__all__ = [
    "complete_look",
    "fit_study",
    "last_labeled_wave",
    "look_estimates",
    "pending_text",
    "pending_waves",
]


def last_labeled_wave(root: str | Path) -> int | None:
    """The latest wave up to which every selected item has its label (None: no such wave):
    the look the questions are answered at."""
    from bacon_bayes.study import Study

    table = Study.open(root).status()
    if table.empty:
        return None
    done = None
    for wave, pending in zip(table["wave"], table["pending"], strict=True):
        if pending:
            break
        done = int(wave)
    return done


def complete_look(root: str | Path) -> tuple[int | None, str]:
    """The wave ``bacon estimate`` and ``bacon report`` read a study at when items are
    pending and ``--allow-pending`` is not given: its latest wave with every label in, as
    ``bacon status`` answers (a look of the study, no assumption made; tester C s37
    finding 8: the next wave drawn, estimate refused while status answered), and the note
    saying so. ``(None, "")`` when nothing is pending, or no wave has all its labels."""
    from bacon_bayes.study import Study

    study = Study.open(root)
    table = study.status()
    waiting = pending_waves(table)
    wave = None
    for w, pending in zip(table["wave"], table["pending"], strict=True):
        if pending:
            break
        wave = int(w)
    if not waiting or wave is None:
        return None, ""
    later = table["wave"] > wave
    unused = int(table.loc[later, "labeled"].sum())
    unused_text = (
        f"; the {unused} label{'s' if unused > 1 else ''} back from the waves after it "
        f"{'are' if unused > 1 else 'is'} not used"
        if unused
        else ""
    )
    return wave, (
        f"read as of wave {wave}, the study's latest wave with every label in, as bacon "
        f"status answers: {pending_text(waiting)} still without labels{unused_text}. This "
        f"is the look of wave {wave}, no assumption made; --allow-pending reads after wave "
        f"{int(table['wave'].max())}, the pending items missing at random (a wave with no "
        "label back counted as not drawn)"
        + (f". Note: {lost}" if (lost := study.unwritten_note()) else "")
    )


def pending_waves(table: pd.DataFrame) -> dict[int, int]:
    """The waves with selected items still without a label, and how many, from a study's
    status table (:meth:`~bacon_bayes.study.Study.status`)."""
    if table.empty:
        return {}
    return {int(w): int(n) for w, n in zip(table["wave"], table["pending"], strict=True) if n}


def pending_text(pending: dict[int, int]) -> str:
    """``wave 5 (50 items)`` for :func:`pending_waves`' waves."""
    return ", ".join(f"wave {w} ({n} item{'s' if n > 1 else ''})" for w, n in pending.items())


def fit_study(
    root: str | Path,
    *,
    wave: int | None = None,
    engine: str = "freq",
    model: str | None = None,
    folds: int = 5,
    seed: int = 0,
    group: str | None = None,
    allow_pending: bool = False,
    pooling: str = "auto",
    pool_options: dict[str, Any] | None = None,
) -> Calibrator:
    """A calibrator fitted on the study as it stood after ``wave`` (default: the latest
    wave whose labels are all in), on the label's range the study recorded (its
    ``scale``, as ``bacon estimate`` reads it); ``group`` overrides the study's group
    column; ``allow_pending``: items without a label up to ``wave`` are missing at random
    (:func:`~bacon_bayes.study.load_study`); ``pooling``: the group means', as ``bacon
    estimate --pooling`` takes it. ``pool_options``: how the command reads the study into
    a pool (``StudyData.to_pool``'s options: embedding, text, prompt, outcome, levels,
    group; None values the study's own;
    :func:`bacon_bayes.cli.pool_args.study_pool_options`), so ``bacon status`` and ``bacon
    sample --until`` answer from the fit ``bacon estimate`` made with the same options."""
    from bacon_bayes.calibrator import Calibrator
    from bacon_bayes.study import StudyConfig, load_study

    wave = last_labeled_wave(root) if wave is None else wave
    if wave is None:
        raise ValidationError(
            f"study {root} has no wave with all its labels in yet; import them with "
            "`bacon label import`"
        )
    read = {"group": group} | {k: v for k, v in (pool_options or {}).items() if v is not None}
    pool = load_study(root, up_to_wave=wave, allow_pending=allow_pending).to_pool(**read)
    scale = StudyConfig.read(Path(root)).label_range
    return Calibrator(
        model,
        engine=engine,
        folds=folds,
        seed=seed,
        scale=scale,
        pooling=pooling,  # type: ignore[arg-type]
    ).fit(pool)


def look_estimates(
    root: str | Path,
    cal: Calibrator,
    *,
    alpha: float = 0.05,
    max_labels: int | None = None,
    allow_pending: bool = False,
    pool_options: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """The pool mean at every look of a study (each wave up to the latest fully labeled
    one, or up to the latest with ``allow_pending``, its items without labels missing at
    random, as the estimate it goes with): a calibrator with ``cal``'s settings fitted on
    the study as it stood then (:func:`~bacon_bayes.study.load_study` with
    ``up_to_wave``), its fixed interval and the anytime one (``max_labels``:
    alpha-spending, else the confidence sequence). ``pool_options``: how the command read
    the study into ``cal``'s pool (``StudyData.to_pool``'s options: embedding, text,
    outcome...; :func:`bacon_bayes.cli.pool_args.study_pool_options`), used at every look
    (by default ``cal``'s judges, group and prompt columns alone: a look read without the
    command's ``--embedding`` was another fit than the command's).

    Columns: wave, labels, estimate, fixed_low, fixed_high, anytime_low, anytime_high,
    interval_kind; ``attrs["changed"]``: the rows whose labels were replaced after their
    look (:func:`replaced_after`). The looks' fits warn of nothing: their pool's notes are
    those the command's own fit gives. Each look is fitted once: it is handed the fits of
    the looks before it, which its alpha-spending boundary's correlation reads
    (:func:`~bacon_bayes.look_fits.hand_over`), and the look whose pool is ``cal``'s is
    ``cal`` itself, so its row is ``cal``'s own anytime interval."""
    from bacon_bayes.study import Study, load_study

    study = Study.open(root)
    numbers = study.wave_numbers
    last = max(numbers, default=None) if allow_pending else last_labeled_wave(root)
    waves = [w for w in numbers if last is not None and w <= last]
    rows: list[dict] = []
    fits: list[LookFit] = []
    read = {"group": cal.pool_.group_name, "prompt": cal.pool_.prompt_name}
    read |= {k: v for k, v in (pool_options or {}).items() if v is not None}
    mine = replace(cal.pool_, notes=())  # a look's notes (a pending wave's) are no setting
    for wave in waves:
        data = load_study(root, up_to_wave=wave, allow_pending=allow_pending)
        pool = data.to_pool(judges=list(cal.pool_.judges), **read)
        # the command's own fit is this look; another is fitted as cal was, as look_fits
        # refits a look (its notes are the command's own fit's)
        look = cal if replace(pool, notes=()) == mine else fit_look(cal, pool)
        hand_over(look, fits)  # its earlier looks, fitted once (the boundary's correlation)
        fits.append(look_fit(look))
        fixed = look.estimate_mean(alpha)
        seq = look.estimate_mean(alpha, anytime=True, max_labels=max_labels)
        rows.append(
            {
                "wave": wave,
                "labels": pool.n_labeled,
                "estimate": fixed.estimate,
                "fixed_low": fixed.ci_low,
                "fixed_high": fixed.ci_high,
                "anytime_low": seq.ci_low,
                "anytime_high": seq.ci_high,
                "interval_kind": seq.details.get("interval_kind", "fixed"),
            }
        )
    table = pd.DataFrame(rows)
    panel = [n for n in cal.pool_.notes if is_panel_note(n)]  # judges changed since
    table.attrs["changed"] = replaced_after(study.waves, waves) + panel
    return table
