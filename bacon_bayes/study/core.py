"""Open, create and read a study folder (format: :mod:`bacon_bayes.study.folder`)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.group_gaps import pending_by_group
from bacon_bayes.inclusion import (
    Inclusion,
    planned_labels,
    sequential_inclusion,
    sequential_propensity,
)
from bacon_bayes.sampling.adaptive import combine_waves
from bacon_bayes.scale import settled_outcome, with_binary_note
from bacon_bayes.study.folder import (
    CONFIG_FILE,
    LABEL_META_COLUMNS,
    LABELS_FILE,
    MANIFEST_COLUMNS,
    MANIFEST_FILE,
    MODEL_DESIGNS,
    PROMPT_COLUMNS,
    PROPENSITY_COLUMN,
    WAVE_COLUMN,
    StudyConfig,
    atomic_write_text,
    no_label_back,
    pending_read_note,
    pool_file,
    read_pool,
    read_waves,
    study_lock,
    unwritten_to_label,
    write_waves,
)
from bacon_bayes.study.panel import judges_used
from bacon_bayes.study.prompts import check_recorded_prompts, prompt_ids, study_inclusion
from bacon_bayes.study.reading import (
    read_labels,
    read_manifest,
    refuse_text_judges,
    refuse_unscored,
    study_pool_frame,
)

if TYPE_CHECKING:
    from bacon_bayes.pool import EvalPool

__all__ = ["Study", "StudyData", "create_study", "load_study"]


@dataclass
class Study:
    """A study folder read into memory (pool, manifest, labels, wave settings);
    ``unscored``: the pool file's rows left out as no judge scored them (``drop_unscored``)."""

    root: Path
    config: StudyConfig
    pool: pd.DataFrame
    manifest: pd.DataFrame
    labels: pd.DataFrame
    waves: list[dict[str, Any]]
    unscored: int = 0

    @classmethod
    def open(cls, root: str | Path) -> Study:
        """Read the study folder ``root``."""
        root = Path(root)
        config = StudyConfig.read(root)
        pool, unscored = study_pool_frame(root, config)
        manifest = read_manifest(root / MANIFEST_FILE)
        labels = read_labels(root / LABELS_FILE, config.label)
        study = cls(root, config, pool, manifest, labels, read_waves(root), unscored)
        study._check_consistency()
        return study

    @classmethod
    def new(cls, root: str | Path, config: StudyConfig) -> Study:
        """The study ``config`` would create in ``root``, in memory: its pool read and
        checked, no wave and no label yet. Nothing is written (``bacon sample`` checks
        the first wave's options on it before it creates the folder)."""
        root = Path(root)
        pool, unscored = study_pool_frame(root, config)
        refuse_text_judges(pool, config, pool_file(root, config))
        manifest = read_manifest(None)
        labels = read_labels(None, config.label)
        study = cls(root, config, pool, manifest, labels, [], unscored)
        study._check_consistency()
        return study

    # -- views aligned with the pool order ---------------------------------------------
    @property
    def ids(self) -> np.ndarray:
        """Item ids (strings) in pool order."""
        return self.pool[self.config.item].to_numpy(dtype=str)

    @property
    def index(self) -> pd.Index:
        """Item ids as a pandas Index (fast look-ups of positions)."""
        if getattr(self, "_index", None) is None:
            self._index = pd.Index(self.ids)
        return self._index

    @property
    def n_items(self) -> int:
        """Number of pool items."""
        return len(self.pool)

    @property
    def wave_numbers(self) -> list[int]:
        """Waves present in the manifest, in order."""
        return sorted(int(w) for w in self.manifest["wave"].unique())

    def _wave_table(self, column: str) -> np.ndarray:
        table = self.manifest.pivot(index="item", columns="wave", values=column)
        return table.reindex(index=self.ids, columns=self.wave_numbers).to_numpy(dtype=float)

    def wave_probabilities(self) -> np.ndarray:
        """(N, K) conditional probability of every item in every wave."""
        return self._wave_table("pi")

    def wave_prompt_probabilities(self) -> np.ndarray:
        """(N, K) probability that each wave draws the item's prompt (NaN: the wave drew
        items, not prompts)."""
        return self._wave_table("pi_prompt")

    def inclusion(self) -> Inclusion | None:
        """Prompt and within-prompt probabilities of every wave (None when no wave drew
        prompts): :func:`bacon_bayes.study.prompts.study_inclusion`."""
        return study_inclusion(self.wave_probabilities(), self.wave_prompt_probabilities())

    def recorded_prompts(self) -> np.ndarray:
        """Per item, its prompt as recorded by the waves that drew prompts (``""`` for
        items of studies without such waves)."""
        rows = self.manifest[self.manifest["prompt"] != ""]
        if not len(rows):
            return np.full(self.n_items, "", dtype=object)
        series = rows.drop_duplicates("item", keep="last").set_index("item")["prompt"]
        return series.reindex(self.ids).fillna("").to_numpy(dtype=object)

    def prompts(self, column: str | None = None) -> np.ndarray:
        """The prompt of every item from the pool's ``column`` (default: the study's
        ``prompt``), checked against the prompts that waves recorded."""
        column = column or self.config.prompt
        if column is None:
            raise ValidationError(
                f"study {self.root} names no prompt column; pass --prompt COLUMN (the "
                "question, source segment or document each item answers)"
            )
        current = prompt_ids(self.pool, column)
        check_recorded_prompts(
            self.recorded_prompts(), current, self.ids, column, f"study {self.root}"
        )
        return current

    def selected_in(self) -> np.ndarray:
        """(N, K) True where the wave sent the item out for labeling."""
        return self._wave_table("selected") > 0

    def inclusion_probability(self) -> np.ndarray:
        """Probability of every item to be in the union of waves."""
        probs = self.wave_probabilities()
        if probs.shape[1] == 0:
            return np.zeros(self.n_items)
        return combine_waves(list(probs.T))

    def label_dependent(self) -> bool:
        """Whether some wave's probabilities were fitted on earlier waves' labels."""
        return bool(self.manifest["design"].isin(MODEL_DESIGNS).any())

    def estimation_weights(self, labeled: np.ndarray) -> tuple[np.ndarray, Inclusion | None]:
        """The inclusion probabilities the estimators weight by, and the waves they take
        when some wave drew prompts (None otherwise).

        Without a wave fitted on earlier labels: the union of the waves (and
        :meth:`inclusion`). When some wave's probabilities were fitted on earlier labels
        the union is biased, and the wave-by-wave estimator is taken: for item-level waves
        its probabilities (:func:`bacon_bayes.inclusion.sequential_propensity`); when some
        wave drew prompts (paired-adaptive, or adaptive beside paired waves) the same
        waves with it (:func:`bacon_bayes.inclusion.sequential_inclusion`: each labeled
        item weighted by the probability of the wave that drew it, its variance clustered
        by prompt within each wave) and its probabilities. With every item labeled, 1 for
        each (a wave-by-wave weighting would make the means differ from the labels' own,
        with intervals of width 0 that missed them)."""
        if labeled.all():  # every item labeled: the pool's means are its labels' means
            return np.ones(self.n_items), None
        inclusion, selected = self.inclusion(), self.selecting_waves()
        if inclusion is not None and inclusion.mixed:  # the pool mean weighs its waves
            inclusion = replace(inclusion, selected=selected)
        if not self.label_dependent():
            return self.inclusion_probability(), inclusion
        waves = np.where(labeled, selected, -1)
        planned = planned_labels(selected, self.wave_probabilities())
        if inclusion is not None:
            inclusion = sequential_inclusion(inclusion, waves, planned)
            return inclusion.pi, inclusion
        probs = self.wave_probabilities()
        drawn = probs[np.arange(self.n_items), np.maximum(waves, 0)]
        return sequential_propensity(waves, drawn, self.inclusion_probability(), planned), None

    def selecting_waves(self) -> np.ndarray:
        """The wave code (0..K-1, in order) that selected each item; -1: none (the
        wave-by-wave estimators' ``drawn`` on the labeled items, and ``planned_labels``'s
        ``selected``)."""
        first = self.first_wave()
        return np.where(first >= 0, np.searchsorted(np.asarray(self.wave_numbers), first), -1)

    def first_wave(self) -> np.ndarray:
        """Wave that selected each item (-1 for items never selected)."""
        chosen = self.selected_in()
        waves = np.asarray(self.wave_numbers)
        out = np.full(self.n_items, -1)
        if chosen.shape[1]:
            any_ = chosen.any(axis=1)
            out[any_] = waves[np.argmax(chosen[any_], axis=1)]
        return out

    @property
    def n_selected(self) -> int:
        """Items some wave selected (the labels drawn, counted against ``max_labels``)."""
        return int((self.first_wave() >= 0).sum())

    def never_back(self) -> dict[int, int]:
        """The waves none of whose selected items has a label yet, and their sizes: read
        with ``allow_pending`` such a wave counts as not drawn (:func:`load_study`), for the
        labelling budget too (``bacon sample --allow-pending``)."""
        first, back = self.first_wave(), self.first_wave()[~np.isnan(self.label_values())]
        return {w: int((first == w).sum()) for w in self.wave_numbers if w not in set(back)}

    def label_values(self) -> np.ndarray:
        """Label of every item (NaN where not labeled yet)."""
        series = self.labels.set_index("item")[self.config.label]
        return series.reindex(self.ids).to_numpy(dtype=float)

    def status(self) -> pd.DataFrame:
        """Selected, labeled and pending counts per wave."""
        labeled = ~np.isnan(self.label_values())
        first = self.first_wave()
        rows = []
        for info in self.waves_info():
            in_wave = first == info["wave"]
            rows.append(
                {
                    "wave": info["wave"],
                    "design": info["design"],
                    "seed": info["seed"],
                    "expected": round(float(info["expected"]), 3),
                    "selected": int(in_wave.sum()),
                    "labeled": int((in_wave & labeled).sum()),
                    "pending": int((in_wave & ~labeled).sum()),
                }
            )
        return pd.DataFrame(
            rows,
            columns=["wave", "design", "seed", "expected", "selected", "labeled", "pending"],
        )

    def unwritten_note(self) -> str:
        """The waves whose to-label file was never written (``bacon sample`` stopped
        between the wave's commit and the file) with items still pending, and the command
        that writes them; ``""`` when none."""
        import shlex

        lost = unwritten_to_label(self.waves)
        first, pending = self.first_wave(), np.isnan(self.label_values())
        counts = {w: int(((first == w) & pending).sum()) for w in lost}
        lost = {w: path for w, path in lost.items() if counts[w]}
        if not lost:
            return ""
        waves = ", ".join(f"wave {w} ({counts[w]} items, {path})" for w, path in lost.items())
        command = f"bacon status {shlex.quote(str(self.root))} --pending-out " + shlex.quote(
            lost[max(lost)]
        )
        return (
            f"the to-label file of {waves} was never written (the `bacon sample` that drew "
            "it was stopped after recording the wave, or is writing it now): those items "
            f"are in no file; write them with `{command}`"
        )

    def waves_info(self) -> list[dict[str, Any]]:
        """Design, seed and expected size of each committed wave."""
        info = {int(w["wave"]): w for w in self.waves}
        out = []
        for wave in self.wave_numbers:
            rows = self.manifest[self.manifest["wave"] == wave]
            out.append(
                {
                    "wave": wave,
                    "design": str(rows["design"].iloc[0]),
                    "seed": rows["seed"].iloc[0],
                    "expected": info.get(wave, {}).get("expected", float("nan")),
                    "params": info.get(wave, {}).get("params", {}),
                }
            )
        return out

    # -- writing ---------------------------------------------------------------------
    def write_manifest(self, manifest: pd.DataFrame) -> None:
        """Replace manifest.csv atomically (call under :func:`study_lock`)."""
        columns = list(MANIFEST_COLUMNS)
        if np.isfinite(manifest["pi_prompt"].to_numpy(dtype=float)).any():
            columns += PROMPT_COLUMNS  # older readers see item-level studies unchanged
        text = manifest[columns].to_csv(index=False)
        atomic_write_text(self.root / MANIFEST_FILE, text)
        self.manifest = manifest

    def write_labels(self, labels: pd.DataFrame) -> str | None:
        """Replace labels.csv atomically (call under :func:`study_lock`); where the labels
        settle a recorded ``continuous`` outcome as binary (:func:`settled_outcome`, as
        ``bacon estimate`` reads them), study.toml records ``categorical`` after them, and
        the line saying so is returned (None: unchanged)."""
        columns = ["item", self.config.label, *LABEL_META_COLUMNS]
        text = labels[columns].to_csv(index=False)
        atomic_write_text(self.root / LABELS_FILE, text)
        self.labels = labels
        outcome = settled_outcome(self.config.outcome, labels, self.config.label)
        if outcome == self.config.outcome:
            return None
        self.config = replace(self.config, outcome=outcome)
        atomic_write_text(self.root / CONFIG_FILE, self.config.to_toml())
        return (
            f"{CONFIG_FILE} now records outcome = {outcome!r}: the labels take only 0 and 1, "
            "so bacon estimate reads them as binary (bacon estimate STUDY --outcome "
            "continuous estimates them as a number)"
        )

    def write_waves(self, waves: list[dict[str, Any]]) -> None:
        """Replace waves.json atomically (call under :func:`study_lock`)."""
        write_waves(self.root, waves)
        self.waves = waves

    # -- checks ----------------------------------------------------------------------
    def _check_consistency(self) -> None:
        for name, table in (("manifest.csv", self.manifest), ("labels.csv", self.labels)):
            unknown = self.index.get_indexer(pd.Index(table["item"].unique())) < 0
            if unknown.any():
                first = str(table["item"].unique()[np.argmax(unknown)])
                raise ValidationError(
                    f"{self.root / name} has ids not in the pool (e.g. {first!r}); "
                    "the pool file changed after sampling - restore it"
                )
        for wave in self.wave_numbers:
            rows = self.manifest["wave"] == wave
            count = int(rows.sum())
            if count < self.n_items:  # every id known (above): the pool has new ones
                seen = self.index.isin(self.manifest.loc[rows, "item"])
                raise ValidationError(
                    f"the pool file {pool_file(self.root, self.config)} has "
                    f"{self.n_items - count} item(s) wave {wave} never saw (e.g. "
                    f"{str(self.index[~seen][0])!r}): it changed after sampling - restore "
                    "it, or start a new study (--study NEW_FOLDER) for the grown pool"
                )
            if count != self.n_items:
                raise ValidationError(
                    f"{self.root / MANIFEST_FILE}: wave {wave} has {count} rows but the pool "
                    f"has {self.n_items} items; the manifest is damaged"
                )
        if len(self.labels):
            outside = self.first_wave()[self.index.get_indexer(self.labels["item"])] < 0
            if outside.any():
                raise ValidationError(
                    f"{self.root / LABELS_FILE} labels items that no wave selected; "
                    "their inclusion probability is unknown"
                )
        if (self.recorded_prompts() != "").any():  # the pool's prompts as the waves drew them
            if self.config.prompt is None:
                raise ValidationError(
                    f"{self.root / CONFIG_FILE} names no prompt column but waves drew "
                    "prompts; the settings are damaged"
                )
            self.prompts()


def none_left(study: Study) -> str:
    """Why no wave can be drawn when every pool item was selected, and the ways on: a pool
    whose every row held a label (recorded as wave 1) starts as if unlabeled or goes to
    ``bacon simulate``; a study whose waves took every item imports and estimates."""
    import shlex

    cfg, n, q = study.config, study.n_items, shlex.quote
    path = pool_file(study.root, cfg)
    if cfg.existing_labels == "wave" and study.wave_numbers == [1]:
        judges = " ".join(f"--judge {q(j)}" for j in cfg.judges)
        return (
            f"every pool item has already been selected: all {n} rows of pool file {path} "
            f"hold a label in column {cfg.label!r}, recorded as wave 1, so no item is left "
            "to draw. To start a study on it as if unlabeled (its labels unused), add "
            "--existing-labels ignore; to measure what the judges would save on this fully "
            f"labeled table, `bacon simulate {q(str(path))} --label {q(cfg.label)} {judges} "
            f"--out simulation`; to estimate from them, `bacon estimate {q(str(path))} "
            f"--label {q(cfg.label)} {judges}`"
        )
    pending = int(study.status()["pending"].sum())
    waves = len(study.wave_numbers)
    return (
        f"every pool item has already been selected: the {waves} wave(s) of study "
        f"{study.root} drew all {n} items ({pending} still without a label), so no item is "
        "left to draw. Import the labels that are back (bacon label import FILE --study "
        f"{q(str(study.root))}) and estimate (bacon estimate {q(str(study.root))}), or "
        "start a new study (--study NEW_FOLDER) on a larger pool"
    )


def create_study(root: str | Path, config: StudyConfig) -> Study:
    """Create a study folder with ``study.toml`` (refuses to overwrite one)."""
    root = Path(root)
    if (root / CONFIG_FILE).exists():
        raise ValidationError(
            f"{root} already holds a study; pass the folder instead of the pool file"
        )
    path = pool_file(root, config)  # read and checked before the folder is made
    refuse_unscored(read_pool(path, config.item), config, path)
    with study_lock(root, create=True):
        if (root / CONFIG_FILE).exists():  # made meanwhile by another process
            raise ValidationError(
                f"{root} already holds a study; pass the folder instead of the pool file"
            )
        atomic_write_text(root / CONFIG_FILE, config.to_toml())
    return Study.open(root)


def record_scale(root: str | Path, scale: list[float]) -> str:
    """Record the label's ``scale`` (``[0, inf]``: an error score's, open above) in the
    ``study.toml`` of a study that records none (``bacon sample STUDY --scale 0:inf``, as
    ``bacon estimate`` proposes it): every later read keeps the intervals inside it, as a
    scale given when the study started (another one recorded is refused by ``bacon
    sample``). Refused where a stored label lies outside it (a scale that clips the truth
    would void the intervals). Returns the line to print."""
    root = Path(root)
    lo, hi = float(scale[0]), float(scale[1])
    text = f"{lo:g}:{hi:g}"
    with study_lock(root):
        study = Study.open(root)
        if study.config.label_range == (lo, hi):
            return f"study {root} records scale {text} already"
        values = study.label_values()
        out = values[~np.isnan(values) & ((values < lo) | (values > hi))]
        if out.size:
            raise ValidationError(
                f"--scale {text}: {out.size} label(s) of study {root} lie outside it (from "
                f"{out.min():g} to {out.max():g}), so it is not the labels' scale; nothing "
                "was recorded. Give the scale every label lies in"
            )
        atomic_write_text(root / CONFIG_FILE, replace(study.config, scale=[lo, hi]).to_toml())
    return (
        f"study {root} records scale {text}: bacon estimate, status, report and sample "
        "--until keep its intervals inside it from now on"
    )


@dataclass(frozen=True)
class StudyData:
    """What an estimator needs from a study: one frame plus the names of its columns.

    ``frame`` is the pool with the label column (NaN = unlabeled) and
    ``propensity`` (the probability every item is weighted by: the union of the waves,
    or the wave-by-wave estimator's when a wave was fitted on earlier labels;
    :meth:`Study.estimation_weights`), and ``inclusion`` the waves when some drew
    prompts (the same method's).
    """

    frame: pd.DataFrame
    item: str
    label: str
    propensity: str
    judges: list[str]
    outcome: str
    levels: list[float] | None
    group: str | None
    n_pending: int
    prompt: str | None = None
    inclusion: Inclusion | None = None
    recorded_prompts: np.ndarray | None = None
    wave: str | None = None
    #: what a read of partly returned waves is to the anytime intervals (:func:`load_study`)
    pending_note: str | None = None
    #: the study folder and its waves' settings: the judge panel (:mod:`.panel`)
    root: str | None = None
    waves: tuple[dict[str, Any], ...] = ()

    def panel(self, judges: list[str] | None = None) -> tuple[list[str], list[str]]:
        """The judges a read takes (``judges``, else the study's) and its notes of them:
        :func:`bacon_bayes.study.panel.judges_used`."""
        config = StudyConfig(pool="", item=self.item, label=self.label, judges=list(self.judges))
        return judges_used(self.root, config, self.frame, self.waves, judges)

    def pool_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``EvalPool.from_frame(data.frame, **kwargs)``: the study's
        settings, a label recorded as continuous and found to take only 0 and 1 read as
        binary (as a table's is, :func:`bacon_bayes.scale.guess_outcome`)."""
        outcome = settled_outcome(self.outcome, self.frame, self.label)
        return {
            "label": self.label,
            "judges": list(self.judges),
            "outcome": outcome,
            "levels": self.levels,
            "group": self.group,
            "propensity": self.propensity,
            "item": self.item,
            "wave": self.wave,
        } | ({} if self.prompt is None else {"prompt": self.prompt})

    def to_pool(self, **overrides: Any) -> EvalPool:
        """The study as a validated :class:`~bacon_bayes.pool.EvalPool`.

        ``overrides`` replace or add ``EvalPool.from_frame`` arguments (e.g.
        ``judges=[...]``, ``embedding="emb:"``, ``text="summary"``); ``None``
        values are ignored, so CLI options that were not given change nothing.
        """
        from bacon_bayes.pool import EvalPool

        kwargs = self.pool_kwargs() | {k: v for k, v in overrides.items() if v is not None}
        kwargs["judges"], panel = self.panel(overrides.get("judges"))
        guessed = kwargs["outcome"] != self.outcome and overrides.get("outcome") is None
        notes = (*panel, self.pending_note) if self.pending_note else tuple(panel)
        if self.inclusion is None:
            pool = EvalPool.from_frame(self.frame, **kwargs)
            return replace(pool, notes=(*self._said(pool, guessed), *notes))
        column = kwargs.get("prompt")
        if column is None:  # a study whose waves drew prompts always records its column
            raise ValidationError("the study's waves drew prompts; pass --prompt COLUMN")
        if self.recorded_prompts is not None:
            check_recorded_prompts(
                self.recorded_prompts,
                prompt_ids(self.frame, column),
                self.frame[self.item].to_numpy(dtype=str),
                column,
                "study",
            )
        pool = EvalPool.from_frame(self.frame, **kwargs)
        return replace(pool, inclusion=self.inclusion, notes=(*self._said(pool, guessed), *notes))

    def _said(self, pool: EvalPool, guessed: bool) -> tuple[str, ...]:
        """The pool's notes, the binary label's in one note with its levels' where the
        study's continuous label was read as binary (``guessed``)."""
        return with_binary_note(pool.notes, self.label) if guessed else pool.notes


def _lost_note(study: Study) -> str:
    """:meth:`Study.unwritten_note` as the end of a refusal (``""`` when none)."""
    note = study.unwritten_note()
    return f". Note: {note}" if note else ""


def load_study(
    path: str | Path, *, allow_pending: bool = False, up_to_wave: int | None = None
) -> StudyData:
    """Read a study for estimation, with the recorded inclusion probabilities.

    Parameters
    ----------
    path : path
        Study folder.
    allow_pending : bool
        Items sent out for labeling whose labels have not come back make the
        labeled set a non-random subset of the design; by default that is an
        error. With True they are treated as missing at random (stated in
        ``n_pending``).
    up_to_wave : int, optional
        The study as it stood after this wave (an earlier look of the anytime intervals):
        the waves up to it, their labels and inclusion probabilities.
    """
    study = Study.open(path)
    if up_to_wave is not None:
        if up_to_wave not in study.wave_numbers:
            raise ValidationError(
                f"study {path} has no wave {up_to_wave}; its waves are {study.wave_numbers}"
            )
        study.manifest = study.manifest[study.manifest["wave"] <= up_to_wave]
    if not study.wave_numbers:
        raise ValidationError(f"study {path} has no sampling wave yet; run `bacon sample` first")
    first = study.first_wave()
    values = np.where(first >= 0, study.label_values(), np.nan)
    pending = (first >= 0) & np.isnan(values)
    if pending.any() and np.isnan(values).all():  # nothing back: nothing to estimate
        waves = ", ".join(f"wave {w}: 0 of {int(np.sum(first == w))}" for w in study.wave_numbers)
        if not allow_pending:  # --allow-pending could not help (tester B finding 18)
            raise ValidationError(f"{no_label_back(path, waves)}{_lost_note(study)}")
    elif pending.any() and not allow_pending:
        raise ValidationError(
            f"study {path}: {int(pending.sum())} selected items have no label yet (e.g. "
            f"{str(study.ids[pending][0])!r}); import their labels with `bacon label import`, or "
            "pass --allow-pending (allow_pending=True in Python): the pending items are then "
            f"treated as missing at random{_lost_note(study)}"
        )
    note = pending_read_note(first, pending, study.config.max_labels)
    group = study.config.group
    if allow_pending and group is not None and group in study.pool.columns:  # by group?
        by_group = pending_by_group(study.pool[group], first >= 0, ~np.isnan(values), group)
        note = "; ".join(n for n in (by_group, note) if n) or None
    back = np.unique(first[~np.isnan(values)])
    if 0 < len(back) < len(study.wave_numbers):  # a wave none of whose labels came back:
        study.manifest = study.manifest[study.manifest["wave"].isin(back)]  # as if not drawn
        first = study.first_wave()
        values = np.where(first >= 0, values, np.nan)
    if pending.any() and not np.isnan(values).all():  # missing at random within a wave:
        # its items drawn at the rate back (none back: no pilot, no weights, see below)
        manifest = study.manifest.copy()
        for w in study.wave_numbers:
            rate = np.mean(~np.isnan(values[first == w]))
            manifest.loc[manifest["wave"] == w, "pi"] *= rate
        study.manifest = manifest
    frame = study.pool.copy()
    frame[study.config.label] = values
    for reserved in (PROPENSITY_COLUMN, WAVE_COLUMN):
        if reserved in frame.columns:
            raise ValidationError(f"pool file has a reserved column {reserved!r}; rename it")
    if np.isnan(values).all():  # no label yet: a pool without a pilot (bacon plan plans
        propensity, inclusion = np.full(study.n_items, np.nan), None  # on assumptions)
    else:
        propensity, inclusion = study.estimation_weights(~np.isnan(values))
    never = np.isnan(values) & ~(np.asarray(propensity, dtype=float) > 0)
    if np.isfinite(values).any() and never.any():  # e.g. a first wave by stratum, some none
        raise ValidationError(
            f"study {path}: {int(never.sum())} items (e.g. {str(study.ids[never][0])!r}) "
            f"could not be drawn by the waves whose labels are back (waves "
            f"{', '.join(str(w) for w in study.wave_numbers)}), so no estimate reaches them: "
            "import the labels of a later wave that drew from them (`bacon label import`), "
            "or draw one with `bacon sample`"
        )
    frame[PROPENSITY_COLUMN] = propensity
    # each label's wave: the one that selected its item (the looks of anytime intervals)
    frame[WAVE_COLUMN] = np.where(np.isnan(values), np.nan, first)
    cfg = study.config
    return StudyData(
        frame=frame,
        item=cfg.item,
        label=cfg.label,
        propensity=PROPENSITY_COLUMN,
        judges=list(cfg.judges),
        outcome=cfg.outcome,
        levels=cfg.levels,
        group=cfg.group,
        n_pending=int(pending.sum()),
        pending_note=note,
        prompt=cfg.prompt,
        inclusion=inclusion,
        recorded_prompts=study.recorded_prompts(),
        wave=WAVE_COLUMN,
        root=str(path),
        waves=tuple(study.waves),
    )
