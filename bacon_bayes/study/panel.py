"""A study's judge panel over its waves: what each wave's judges' scores were, and a change
of panel recorded on purpose.

Each wave records, in its ``waves.json`` entry, a fingerprint of every study judge's scores
when it was drawn (``judges``: a hash over the items in id order, the count scored and their
mean). The surrogate is refitted on all labels at each look, so a panel changed mid-study
(a judge retired, added, or rescored with a new version) still gives valid intervals, but
every look, the earlier ones too, is then computed with the new panel: the looks read before
are not the ones a report now shows. So a change is recorded
(``bacon sample STUDY --change-judges [--judge ...]``: :func:`change_panel`, a
``panel_changes`` entry of the latest wave) and said by every read of the study, and a wave
is not drawn while the pool's judges differ from the recorded ones (:func:`check_panel`).
Judges given for one read (``bacon estimate STUDY --judge ...``) are said to differ from the
study's: panels tried while reading the estimates, the narrowest kept, void the anytime
intervals as a budget chosen after looking would (:func:`judges_used`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import shlex
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bacon_bayes.errors import ValidationError
from bacon_bayes.study.folder import (
    CONFIG_FILE,
    MANIFEST_FILE,
    StudyConfig,
    atomic_write_text,
    pool_file,
    read_study_pool,
    read_waves,
    study_lock,
    unscored_rows,
    write_waves,
)
from bacon_bayes.study.reading import read_manifest

__all__ = [
    "CHANGE_FLAG",
    "PANEL_KEY",
    "change_panel",
    "check_panel",
    "fingerprints",
    "is_panel_note",
    "judges_used",
    "replaced_after",
]

#: a wave's entry in waves.json: the fingerprint of each study judge's scores when drawn
PANEL_KEY = "judges"
#: the latest wave's entry in waves.json: the changes of panel recorded after it
CHANGES_KEY = "panel_changes"
#: the option of ``bacon sample`` that records a change of the study's judges
CHANGE_FLAG = "--change-judges"
#: the words every note of this module ends its first clause with (:func:`is_panel_note`)
_LOOKS = "every look, the earlier ones too,"


def fingerprints(pool: pd.DataFrame, item: str, judges: Sequence[str]) -> dict[str, Any]:
    """Per judge column of ``pool`` (those present): a hash of its scores in the order of
    the ids ``item`` (so a pool file whose rows were reordered keeps it), the count scored
    and their mean."""
    order = np.argsort(pool[item].to_numpy(dtype=str), kind="stable")
    out: dict[str, Any] = {}
    for judge in judges:
        if judge not in pool.columns:
            continue
        values = pd.to_numeric(pool[judge], errors="coerce").to_numpy(dtype=float)[order]
        scored = ~np.isnan(values)
        canonical = np.where(scored, values + 0.0, np.nan)  # one NaN, no -0.0
        out[judge] = {
            "sha256": hashlib.sha256(canonical.tobytes()).hexdigest()[:20],
            "scored": int(scored.sum()),
            "mean": float(values[scored].mean()) if scored.any() else None,
        }
    return out


def _last_panel(waves: Sequence[dict[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """When the panel was last recorded (``wave 2 was drawn``) and its fingerprints (None:
    no wave recorded one, a study of an older version)."""
    last = None
    for info in sorted(waves, key=lambda w: int(w["wave"])):
        if isinstance(info.get(PANEL_KEY), dict):
            last = (f"wave {info['wave']} was drawn", info[PANEL_KEY])
        for change in info.get(CHANGES_KEY, []):
            last = (f"the judges were recorded after wave {info['wave']}", change[PANEL_KEY])
    return last


def _mean(value: float | None) -> str:
    return "no score" if value is None else f"mean {value:.4g}"


def _rescored(pool: pd.DataFrame, item: str, judges: Sequence[str], waves: Any) -> list[str]:
    """What changed in the scores of ``judges`` since the panel was last recorded."""
    last = _last_panel(waves)
    if last is None:
        return []
    when, recorded = last
    now = fingerprints(pool, item, [j for j in judges if j in recorded])
    return [
        f"judge {j}'s scores changed since {when} ({recorded[j]['scored']} scored, "
        f"{_mean(recorded[j]['mean'])} then; {now[j]['scored']}, {_mean(now[j]['mean'])} now)"
        for j in now
        if now[j]["sha256"] != recorded[j]["sha256"]
    ]


def _change_command(root: Path | str, judges: Sequence[str] = ()) -> str:
    given = "".join(f" --judge {shlex.quote(j)}" for j in judges)
    return f"bacon sample {shlex.quote(str(root))} {CHANGE_FLAG}{given}"


def _missing_error(root: Path | str, config: StudyConfig, missing: list[str], why: str) -> str:
    kept = [j for j in config.judges if j not in missing]
    return (
        f"the study's judge column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
        f"(recorded in {Path(root) / CONFIG_FILE}) {'are' if len(missing) > 1 else 'is'} not "
        f"in pool file {pool_file(Path(root), config)} any more (a judge retired?): {why}. "
        "Restore the column in the pool file, or record the judges the study uses from now "
        f"on: `{_change_command(root, kept or ['JUDGE'])}` ({_LOOKS} is then computed with "
        "them, and every read says so)"
    )


def check_panel(root: Path | str, config: StudyConfig, pool: pd.DataFrame, waves: Any) -> None:
    """Refuse to draw a wave while the study's judges are not what it recorded: a judge
    column gone from the pool file (its labels could not be estimated), or a judge's scores
    changed since the last wave (the looks read before would be recomputed with them)."""
    missing = [j for j in config.judges if j not in pool.columns]
    if missing:
        why = "a wave drawn now would be labelled for a study that cannot estimate it"
        raise ValidationError(_missing_error(root, config, missing, why))
    changed = _rescored(pool, config.item, config.judges, waves)
    if changed:
        raise ValidationError(
            f"{'; '.join(changed)}: a judge rescored (a new version or prompt) changes every "
            "look of the study, the ones read before too, so no wave is drawn until the "
            "change is recorded. Restore the earlier scores in the pool file, or record them "
            f"as the study's from now on: `{_change_command(root)}` (then draw the wave)"
        )


def _change_words(left: Sequence[str], added: Sequence[str], rescored: Sequence[str]) -> str:
    """A change of panel in words: ``a left; b added; c rescored`` (the parts it has)."""
    parts = zip((left, added, rescored), ("left", "added", "rescored"), strict=True)
    return "; ".join(f"{', '.join(judges)} {verb}" for judges, verb in parts if judges)


def _recorded_notes(waves: Any, judges: Sequence[str]) -> list[str]:
    notes = []
    for info in sorted(waves, key=lambda w: int(w["wave"])):
        for change in info.get(CHANGES_KEY, []):
            what = _change_words(
                change.get("from_left", []), change.get("added", []), change.get("rescored", [])
            )
            notes.append(
                f"the study's judges changed after wave {info['wave']} ({what}; "
                f"recorded by bacon sample {CHANGE_FLAG} at {change.get('at', '?')}): {_LOOKS} "
                f"is computed with the judges now recorded ({', '.join(judges)}) and their "
                "current scores, so the looks read before differ from these; the surrogate is "
                "refitted on all labels at each look, so the anytime intervals hold if the "
                "change was not chosen from the estimates read"
            )
    return notes


def judges_used(
    root: Path | str | None,
    config: StudyConfig,
    frame: pd.DataFrame,
    waves: Any,
    given: Sequence[str] | None,
) -> tuple[list[str], list[str]]:
    """The judges a read of the study takes (``given``, else the recorded ones) and what it
    says of them: the changes of panel recorded, judges rescored since, and ``given`` judges
    other than the study's. A recorded judge gone from the pool is refused, with the fix."""
    where = root if root is not None else "STUDY"
    if root is not None and (Path(root) / CONFIG_FILE).is_file():  # its pool file, named
        config = StudyConfig.read(Path(root))
    recorded = list(config.judges)
    judges = list(given) if given else recorded
    if not given:
        missing = [j for j in recorded if j not in frame.columns]
        if missing:
            why = (
                "the study cannot be estimated with them (pass --judge for one estimate, "
                "said as a panel other than the study's)"
            )
            raise ValidationError(_missing_error(where, config, missing, why))
    notes = _recorded_notes(waves, recorded)
    changed = _rescored(frame, config.item, [j for j in judges if j in frame.columns], waves)
    if changed:
        notes.append(
            f"{'; '.join(changed)}: {_LOOKS} is recomputed with the new scores, so the looks "
            "read before differ from these; if the judge was rescored on purpose, record it: "
            f"`{_change_command(where)}` (no wave is drawn until then)"
        )
    if given and set(given) != set(recorded):
        notes.append(
            f"judges {', '.join(given)} differ from the study's ({', '.join(recorded)}, "
            f"recorded in {Path(where) / CONFIG_FILE}): the anytime guarantee ('valid at every "
            "wave') holds only if this panel was fixed before the labels were read; panels "
            "tried on the estimates, the narrowest kept, void it. To change the study's "
            f"panel for good, record it: `{_change_command(where, given)}` ({_LOOKS} is then "
            "computed with it)"
        )
    return judges, notes


def is_panel_note(note: str) -> bool:
    """Whether a pool's note is one of this module's (``bacon status`` prints them)."""
    return _LOOKS in note


def _committed(root: Path) -> set[int]:
    """The waves manifest.csv holds (its commit point: :mod:`.folder`)."""
    return {int(w) for w in read_manifest(root / MANIFEST_FILE)["wave"].unique()}


def change_panel(root: str | Path, judges: Sequence[str] | None = None) -> str:
    """Record the study's judges from now on: ``judges`` (default: the recorded ones, their
    current scores), in ``study.toml`` and, once a wave is drawn, as a change of panel after
    the latest wave (said by every later read). Returns what was recorded."""
    root = Path(root)
    with study_lock(root):
        config = StudyConfig.read(root)
        pool, _ = read_study_pool(root, config)
        old, new = list(config.judges), list(judges) if judges else list(config.judges)
        missing = [j for j in new if j not in pool.columns]
        if missing:
            shown = ", ".join(map(str, pool.columns[:15]))
            raise ValidationError(
                f"{CHANGE_FLAG}: judge column{'s' if len(missing) > 1 else ''} "
                f"{', '.join(missing)} not in pool file {pool_file(root, config)} (columns: "
                f"{shown}); name the judges the study uses from now on with --judge COLUMN"
            )
        if len(set(new)) < len(new):
            raise ValidationError(f"{CHANGE_FLAG}: a judge is named twice in --judge {new}")
        new_config = replace(
            config, judges=new, features=[f for f in config.features if f in pool.columns]
        )
        unscored = unscored_rows(pool, new_config)
        if unscored.any():
            raise ValidationError(
                f"{CHANGE_FLAG}: {int(unscored.sum())} item(s) of the study have no score "
                f"from any of {', '.join(new)} (e.g. {config.item} "
                f"{str(pool[config.item].iloc[int(unscored.argmax())])!r}); a study estimates "
                "every item of its pool: keep a judge that scored them"
            )
        waves = read_waves(root)
        committed = _committed(root)  # an interrupted draw's entry is no wave
        last = _last_panel([w for w in waves if int(w["wave"]) in committed])
        now = fingerprints(pool, config.item, new)
        rescored = [
            j
            for j in new
            if last is not None and j in last[1] and last[1][j]["sha256"] != now[j]["sha256"]
        ]
        left, added = [j for j in old if j not in new], [j for j in new if j not in old]
        if not (left or added or rescored):
            return (
                f"the study's judges ({', '.join(new)}) and their scores are as recorded: "
                "nothing to change"
            )
        drawn = [w for w in waves if int(w["wave"]) in committed]
        if drawn:
            latest = max(drawn, key=lambda w: int(w["wave"]))
            change = {
                "from_left": left,
                "added": added,
                "rescored": rescored,
                PANEL_KEY: now,
                "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            }
            latest[CHANGES_KEY] = [*latest.get(CHANGES_KEY, []), change]
            write_waves(root, waves)
        atomic_write_text(root / CONFIG_FILE, new_config.to_toml())
    what = _change_words(left, added, rescored)
    after = f" after wave {latest['wave']}" if drawn else ""
    return (
        f"recorded the study's judges from now on{after}: {', '.join(new)} ({what}). "
        + (
            f"{_LOOKS[0].upper()}{_LOOKS[1:]} is computed with them; estimate, status and "
            "report say so"
            if drawn
            else ""
        )
    ).rstrip()


def replaced_after(waves: list[dict[str, Any]], rows: list[int]) -> list[str]:
    """Which of the looks ``rows`` (waves) had labels replaced after them (``bacon label
    import --replace``, recorded per wave in waves.json): one line per replacement, naming
    the looks whose row now differs from what was printed at them (tester C s37 finding
    4: the report rewrote wave 1's row, 3.544 to 3.602, naming only changed settings)."""
    out = []
    for entry in waves:
        for r in entry.get("replaced", []):
            looks = [k for k in r.get("looks", []) if k in rows]
            if not looks:
                continue
            out.append(
                f"{r['labels']} label{'s' if r['labels'] > 1 else ''} of wave {entry['wave']} "
                f"replaced on {str(r['at'])[:10]} ({r['source']}), after the look"
                f"{'s' if len(looks) > 1 else ''} at wave{'s' if len(looks) > 1 else ''} "
                f"{', '.join(map(str, looks))}: "
                f"{'those rows differ' if len(looks) > 1 else 'its row differs'} from what "
                "bacon estimate or status printed then"
            )
    return out
