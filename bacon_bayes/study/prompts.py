"""Prompts in a study folder: the prompt column, the prompts that waves drawing prompts
recorded, the inclusion of every item over all waves, and the paired waves themselves.

A study names its prompt column in ``study.toml`` (``prompt = "seg_id"``, set by the
first ``bacon sample --prompt``). Waves of the paired designs
(:mod:`bacon_bayes.sampling.paired`) record in ``manifest.csv``, for every item, the
probability that the wave draws the item's prompt (``pi_prompt``) and the item's prompt
id as drawn (``prompt``). Item-level waves leave both empty, and older manifests without
the columns hold item-level waves only, so any mix of waves (a uniform pilot, then a
paired wave) gives the :class:`~bacon_bayes.inclusion.Inclusion` of its union
(:func:`study_inclusion`). A later run whose prompt column gives an item another prompt
than the one a wave drew is refused: the recorded probabilities hold for the prompts as
drawn (:func:`check_recorded_prompts`).

Several items of one group on one prompt (repeated samples) are allowed: they are
separate items of that prompt (:meth:`bacon_bayes.pool.EvalPool.from_frame`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.inclusion import Inclusion
from bacon_bayes.io import file_line
from bacon_bayes.sampling import Design
from bacon_bayes.sampling.adaptive import default_uniform_share
from bacon_bayes.sampling.paired import (
    PAIRED_DESIGNS,
    adaptive_choice,
    adaptive_prompts_for_budget,
    design_inclusion,
    paired,
    paired_adaptive,
    paired_subset,
    prompt_sd,
    prompts_for_budget,
)
from bacon_bayes.words import blank_cells

if TYPE_CHECKING:
    from bacon_bayes.study.core import Study

__all__ = [
    "DEFAULT_PER_PROMPT",
    "PAIRED_DESIGNS",
    "check_paired_wave",
    "check_recorded_prompts",
    "paired_wave",
    "prompt_ids",
    "study_inclusion",
]

#: paired-subset: items labeled per drawn prompt (in expectation) by default.
DEFAULT_PER_PROMPT = 2.0


def prompt_ids(frame: pd.DataFrame, column: str) -> np.ndarray:
    """The prompt id (a string) of every row of the pool ``frame``; refuses a column that
    is absent or has an empty cell."""
    if column not in frame.columns:
        shown = ", ".join(map(str, frame.columns[:12]))
        raise ValidationError(
            f"prompt column {column!r} is not in the pool file (columns: {shown}); "
            "pass --prompt COLUMN naming the prompt (question, segment, document) each "
            "item answers"
        )
    values = frame[column]
    empty = blank_cells(values).to_numpy()
    if empty.any():
        row = int(np.flatnonzero(empty)[0])
        raise ValidationError(
            f"prompt column {column!r} is empty in row {file_line(frame, row)} of the pool file "
            f"({int(empty.sum())} rows in all); give every item the id of the prompt it "
            "answers"
        )
    return values.astype(str).to_numpy()


def check_recorded_prompts(
    recorded: np.ndarray, current: np.ndarray, ids: np.ndarray, column: str, where: str
) -> None:
    """Refuse prompts (``current``, from the pool's ``column``) that disagree with those
    a wave recorded (``recorded``; ``""`` where no wave drew prompts)."""
    bad = (recorded != "") & (recorded != current)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValidationError(
            f"{where}: item {str(ids[k])!r} was drawn by a wave of prompts with prompt "
            f"{str(recorded[k])!r}, but the prompt column {column!r} now gives "
            f"{str(current[k])!r} ({int(bad.sum())} item(s) differ). The recorded prompt "
            "probabilities hold for the prompts as drawn: restore the pool file's prompt "
            "column, or name the column the study was sampled with"
        )


def study_inclusion(pi: np.ndarray, pi_prompt: np.ndarray) -> Inclusion | None:
    """The :class:`~bacon_bayes.inclusion.Inclusion` of a study's waves from the
    manifest's (N, K) tables of ``pi`` and ``pi_prompt`` (NaN columns: item-level waves);
    None when no wave drew prompts (the items' union probabilities then say it all)."""
    by_prompt = np.isfinite(pi_prompt).any(axis=0)
    if not by_prompt.any():
        return None
    n_items = pi.shape[0]
    waves = [
        Design(
            np.zeros(n_items, dtype=bool),
            pi[:, k],
            "",
            None,
            pi_prompt=pi_prompt[:, k] if by_prompt[k] else None,
        )
        for k in range(pi.shape[1])
    ]
    return design_inclusion(waves)


def _prompts_needed(
    prompts: np.ndarray, covered: np.ndarray, new: float, folds: int, n: float
) -> None:
    """Refuse a wave after which the labels would cover fewer prompts than the folds."""
    before = int(np.unique(prompts[covered]).size)
    if before + new < folds:
        raise ValidationError(
            f"a budget of {n:g} items draws about {new:g} prompt(s); with the {before} "
            f"prompt(s) labeled so far that is fewer than one prompt per cross-fitting fold "
            f"({folds}: folds split by prompt). Raise --budget or lower --folds"
        )


def check_paired_wave(
    design: str,
    n: float,
    eligible: np.ndarray,
    prompts: np.ndarray,
    options: dict[str, Any],
    left: float | None = None,
) -> float:
    """Refuse a paired wave of ``n`` new items that cannot be drawn (too few prompts for
    the folds, ``per_prompt`` below one); the number of prompts it draws (expected), so
    that its expected items stay within ``left`` (the study's labels left under its
    ``max_labels``; whole prompts rounded to the nearest overran it)."""
    folds = int(options.get("folds", 5))
    covered = ~eligible
    if design == "paired-subset":
        per = float(options.get("per_prompt") or DEFAULT_PER_PROMPT)
        if not per >= 1:
            raise ValidationError(
                f"--per-prompt {per:g}: label at least one item per drawn prompt; pass "
                "--per-prompt 1 or more"
            )
        size = pd.Series(prompts[eligible]).value_counts().to_numpy(dtype=float)
        per_drawn = float(np.minimum(size, per).mean()) if size.size else 1.0
        n_prompts = n / per_drawn
    else:
        n_prompts = float(prompts_for_budget(prompts, n, eligible, most=left))
    _prompts_needed(prompts, covered, n_prompts, folds, n)
    return n_prompts


def uniform_share(study: Study, options: dict[str, Any]) -> float:
    """The adaptive wave's uniform share: the one given, else :data:`GROUP_UNIFORM_SHARE`
    on a study with groups and ``DEFAULT_UNIFORM_SHARE`` on one without."""
    given = options.get("uniform_share")
    return float(given) if given is not None else default_uniform_share(bool(study.config.group))


def labels_left(study: Study) -> float | None:
    """The labels the study may still draw under its ``max_labels`` (None: no budget)."""
    most = study.config.max_labels
    return None if most is None else float(most - study.n_selected)


def paired_wave(
    study: Study,
    design: str,
    n: float,
    seed: int,
    eligible: np.ndarray,
    prompts: np.ndarray,
    options: dict[str, Any],
    item_sd: Callable[[], tuple[np.ndarray, dict[str, Any]]],
) -> Design:
    """Draw a wave of a paired design of ``n`` new items (in expectation) over the
    study's ``prompts``. ``item_sd`` gives every item's predicted sd of its residual and
    what was used (paired-adaptive only: the study's adaptive sd model)."""
    n_prompts = check_paired_wave(design, n, eligible, prompts, options, labels_left(study))
    if design == "paired":
        return paired(prompts, round(n_prompts), eligible=eligible, seed=seed)
    if design == "paired-subset":
        per = float(options.get("per_prompt") or DEFAULT_PER_PROMPT)
        return paired_subset(prompts, n, per, eligible=eligible, seed=seed)
    choice = adaptive_choice(int(np.unique(prompts[~eligible]).size))
    if design == "paired-adaptive" and choice != "adaptive":  # too few prompts for the sd
        wave = paired(prompts, round(n_prompts), eligible=eligible, seed=seed)
        wave.params.update({"requested": "paired-adaptive", "choice": choice})
        return wave
    if design == "paired-adaptive":
        sd, how = item_sd()
        b = study.wave_prompt_probabilities()
        drew = np.isfinite(b).any(axis=0)
        prior = None
        if drew.any():  # earlier waves that drew prompts: the new one tops their items up
            # (the items' probabilities, not the prompts': a paired-subset wave's prompt at
            # 0.375 labels an item at 0.094, and topping up to the prompt's left 2,071 of
            # 2,808 open TriviaQA items no chance in the new wave, whose wave-by-wave
            # estimate then missed; tester T5, finding 1)
            pi = np.nan_to_num(study.wave_probabilities()[:, drew])
            prior = 1.0 - np.prod(1.0 - pi, axis=1)
        share = uniform_share(study, options)  # 0.5 on a study with groups, as adaptive
        sd = prompt_sd(prompts, sd**2)
        wave = paired_adaptive(
            prompts,
            sd,
            adaptive_prompts_for_budget(
                prompts, sd, n, prior=prior, eligible=eligible, uniform_share=share
            ),
            prior=prior,
            eligible=eligible,
            uniform_share=share,
            seed=seed,
        )
        wave.params.update(how)
        return wave
    raise ValidationError(f"unknown paired design {design!r}; one of {', '.join(PAIRED_DESIGNS)}")
