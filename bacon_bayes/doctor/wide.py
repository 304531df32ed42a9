"""Tables wide by system: one row per prompt and a column per system and rater
(``M10_gpt4``, ``M10_human``, ``M11_gpt4``, ...), as a spreadsheet of prompts by systems
is kept, where bacon reads one row per answer (a prompt and a system) with a column per
rater. ``bacon doctor`` tells them by their columns' names (:func:`system_grid`) and
prints the line that writes them one row per answer (:func:`wide_by_system`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from bacon_bayes.doctor.cells import read_line
from bacon_bayes.doctor.names import ASPECT_WORDS, LABEL_HINT
from bacon_bayes.outputs import unused_name

#: the fewest systems that make a grid of columns a table wide by system
MIN_SYSTEMS = 3
#: what joins a system's name and a rater's in a column's name
SEPARATORS = ("_", "-", "|", ".", ":", " ")


@dataclass(frozen=True)
class SystemGrid:
    """Columns named by a system and a rater: the pattern that splits a name into the two
    (``pattern``'s groups in the order ``first`` says), the raters (a human's, told by its
    name, and at least one judge's) and the systems."""

    pattern: str
    system_first: bool
    raters: list[str]
    systems: list[str]
    columns: list[str]


def system_grid(frame: pd.DataFrame, unlabeled: bool = False) -> SystemGrid | None:
    """The columns of ``frame`` that make it wide by system, or None: numeric columns
    named ``<system><sep><rater>`` (or ``<rater><sep><system>``) where a human's rater
    (its name says so: ``human``, ``label``, ``gold``, ...) and a judge's each have a
    column for the same :data:`MIN_SYSTEMS` systems at least, no system's name reads as a
    human's and most are no aspect's (``expert1_relevance``, ``gpt4_relevance``,
    ``expert1_fluency``: raters by aspects, :data:`~.names.ASPECT_WORDS`). ``unlabeled``:
    the table has no labels yet, and two judges' raters sharing the systems make one
    (``M10_gpt4``, ``M10_llama``, ...: the pilot's labels are still to come)."""
    names = [str(c) for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]
    best: SystemGrid | None = None
    for sep in SEPARATORS:
        for first in (True, False):
            by_rater: dict[str, set[str]] = {}
            for c in names:
                if sep not in c:
                    continue
                system, rater = c.rsplit(sep, 1) if first else c.split(sep, 1)[::-1]
                if system and rater:
                    by_rater.setdefault(rater, set()).add(system)
            raters = [r for r, s in by_rater.items() if len(s) >= MIN_SYSTEMS]
            human = [r for r in raters if LABEL_HINT.search(r)]
            judges = [r for r in raters if r not in human]
            judged = [s for r in judges for s in by_rater[r]]
            if human and judges:
                shared = {s for r in human for s in by_rater[r]} & set(judged)
            elif unlabeled and not human and len(judges) >= 2:
                shared = {s for s in judged if judged.count(s) >= 2}
            else:
                continue
            if len(shared) < MIN_SYSTEMS or any(LABEL_HINT.search(s) for s in shared):
                continue
            if sum(s.strip().lower() in ASPECT_WORDS for s in shared) > len(shared) / 2:
                continue  # gpt4_relevance, human_relevance, gpt4_fluency: by aspect
            alt = "|".join(re.escape(r) for r in raters)
            s = re.escape(sep)
            pattern = rf"(.+){s}({alt})" if first else rf"({alt}){s}(.+)"
            columns = [c for c in names if re.fullmatch(pattern, c)]
            if best is None or len(columns) > len(best.columns):
                systems = sorted(
                    {c.rsplit(sep, 1)[0] if first else c.split(sep, 1)[1] for c in columns}
                )
                best = SystemGrid(pattern, first, raters, systems, columns)
    return best


def wide_by_system(
    frame: pd.DataFrame, read: str | None, path: str, unlabeled: bool = False
) -> str:
    """What ``bacon doctor`` says of a table wide by system (:func:`system_grid`), with
    the line that writes it one row per answer (``read``: the pandas call that reads the
    file at ``path``; None: the pandas to run on it; ``unlabeled``: the table has no
    labels, :func:`system_grid`); "" for any other table."""
    from bacon_bayes.csv_format import pandas_command
    from bacon_bayes.study.folder import file_stem

    grid = system_grid(frame, unlabeled)
    if grid is None:
        return ""
    rest = [str(c) for c in frame.columns if str(c) not in grid.columns]
    group = next(n for n in ("system", "system_", "system__") if n not in frame.columns)
    keyed = bool(rest) and not frame[rest].duplicated().any()
    out = unused_name(f"{file_stem(path)}_answers")
    key = next(n for n in ("id", "answer_id", "answer_id_") if n not in frame.columns)
    split = f"['{group}', 'rater']" if grid.system_first else f"['rater', '{group}']"
    code = (
        ("" if keyed else "df.insert(0, 'prompt', range(1, len(df) + 1)); ")
        + f"pat = r'{grid.pattern}'; grid = [c for c in df.columns if re.fullmatch(pat, c)]; "
        + "long = df.melt(id_vars=[c for c in df.columns if c not in grid], value_vars=grid, "
        + "var_name='_col', value_name='_v'); "
        + f"long[{split}] = long['_col'].str.extract(pat); "
        + "keys = [c for c in long.columns if c not in ('_col', '_v', 'rater')]; "
        + "df = long.pivot(index=keys, columns='rater', values='_v').reset_index(); "
        + f"df.columns.name = None; df.insert(0, {key!r}, df[keys].astype(str).agg('|'.join, "
        + f"axis=1)); df.to_csv({out!r}, index=False)"
    )
    shown = ", ".join(grid.systems[:6]) + (", ..." if len(grid.systems) > 6 else "")
    what = (
        f"columns named by system and rater: {len(grid.systems)} systems ({shown}) by "
        f"{', '.join(grid.raters)}; each row a prompt, while bacon reads one row per answer "
        "(a prompt and a system) with one column per rater, the systems in a column of "
        f"their own (the group), each answer with an id ({key!r}: its prompt and system)"
    )
    if read is None:
        return f"{what}. Write it so, with pandas: import re; {code.replace(out, 'answers.csv')}"
    line = pandas_command(f"import re; {read_line(read)}; {code}")
    return f"{what}. Write it so: {line}, then bacon doctor {out}"
