"""Checks of the Python API's arguments: their types and forms.

A notebook user who passes the wrong kind of value (a Series of scores for the judges'
names, the command line's ``"1:5"`` for a scale) gets a message naming the argument and
the form it takes, not a traceback from deep inside numpy.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
from collections.abc import Callable, Hashable, Iterable, KeysView
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from bacon_bayes.errors import KeywordError, ValidationError

F = TypeVar("F", bound=Callable[..., Any])


def suggest(name: str, columns: Iterable[str]) -> str:
    """`` Did you mean 'x'?`` naming the columns closest to ``name`` (empty for none)."""
    names = [str(c) for c in columns]
    same = [c for c in names if c != str(name) and c.casefold() == str(name).casefold()]
    close = same + [c for c in difflib.get_close_matches(str(name), names, n=3) if c not in same]
    return f" Did you mean {', '.join(map(repr, close[:3]))}?" if close else ""


def need_column(df: pd.DataFrame, col: str, role: str) -> None:
    """Refuse a column name ``col`` (the ``role`` argument) that ``df`` does not have."""
    if col not in df.columns:
        raise ValidationError(
            f"{role} column {col!r} is not in the table.{suggest(col, df.columns)} "
            f"Pass the name of an existing column (columns: {', '.join(map(str, df.columns[:12]))}"
            f"{', ...' if len(df.columns) > 12 else ''}).{_column_hint(df, col)}"
        )


def _column_hint(df: pd.DataFrame, col: Any) -> str:
    """Why a Python caller's column name may be missing, and the fix: the table's columns
    are a MultiIndex, or ``col`` is the command line's spelling (a pattern, a comma list)."""
    if isinstance(df.columns, pd.MultiIndex):
        return (
            " The table's columns are a MultiIndex (tuples): flatten them first (df.columns "
            "= ['_'.join(map(str, c)) for c in df.columns]) and pass the flat names, or "
            f"pass the whole tuple (e.g. {df.columns[0]!r})."
        )
    if isinstance(col, str) and any(c in col for c in "*?[,"):
        return (
            " Patterns (gpt*) and comma lists (gpt4,gpt35) are the command line's spelling; "
            "in Python pass a list of column names, e.g. judges=['gpt4', 'gpt35'] (all "
            "matching a pattern: [c for c in df.columns if fnmatch.fnmatch(c, 'gpt*')])."
        )
    return ""


def _kind(value: Any) -> str:
    """What ``value`` is, in words (``a numpy array of shape (1200, 3)``)."""
    if isinstance(value, pd.Series):
        return f"a pandas Series{f' ({value.name!r})' if value.name is not None else ''}"
    if isinstance(value, np.ndarray):
        return f"a numpy array of shape {value.shape}"
    return f"{type(value).__name__} {value!r}"


def judge_columns(judges: Any, label: str, columns: pd.Index) -> list[Any]:
    """The judge columns named by ``judges`` of ``EvalPool.from_frame`` (a name or a list
    of names), checked: at least one, the label not among them, none twice.

    Parameters
    ----------
    judges : str or sequence of column names
        The argument as given (a long table is handled by the caller).
    label : str
        The label column.
    columns : Index
        The table's columns (a list of values that are not columns is judged by them).

    Returns
    -------
    list
        The judge columns, in the order given.
    """
    if isinstance(judges, str):
        return [judges]
    if isinstance(judges, (set, frozenset)):
        listed = sorted(judges, key=str)
        raise ValidationError(
            f"judges is a set, which has no order (the judges' order is the order of the "
            f"model's features and of every judge table); pass a list, e.g. "
            f"judges={listed!r}."
        )
    if isinstance(judges, KeysView):  # a dict's keys, in the dict's order
        judges = list(judges)
    named = isinstance(judges, (list, tuple, pd.Index)) or (
        isinstance(judges, (np.ndarray, pd.Series)) and np.ndim(judges) == 1
    )
    values = list(judges) if named else []
    if (
        not named
        or not all(isinstance(j, Hashable) for j in values)
        or (
            isinstance(judges, (np.ndarray, pd.Series))
            and np.asarray(judges).dtype.kind in "fiub"
            and not all(j in columns for j in values)
        )
    ):
        name = getattr(judges, "name", None)
        example = [name] if name in columns else ["judge_a", "judge_b"]
        raise ValidationError(
            f"judges must be the names of the judge columns or a long table with columns "
            f"item, judge, score; got {_kind(judges)}, which looks like scores, not names. "
            f"Pass the column names, e.g. judges={example!r}."
        )
    if len(values) == 0:
        raise ValidationError("no judge columns given; pass at least one judge.")
    if label in values:
        raise ValidationError(
            f"label column {label!r} is also listed as a judge; a label cannot be a judge."
        )
    if len(set(values)) != len(values):
        twice = next(j for k, j in enumerate(values) if j in values[:k])
        raise ValidationError(f"judge column {twice!r} is listed twice; list each judge once.")
    text = [str(j) for j in values]  # a judge's name is text: the column 0 is the judge '0'
    if len(set(text)) != len(text):
        twice = next(j for k, j in enumerate(text) if j in text[:k])
        raise ValidationError(
            f"two judge columns are both named {twice!r} as text (e.g. 0 and '0'); "
            "rename one of them."
        )
    return values


def _cli(example: str, sep: str) -> str:
    """The command line's spelling of a Python list or pair (``[1, 2]`` -> ``1<sep>2``)."""
    return example.strip("()[]").replace(", ", sep)


def as_pair(value: Any, name: str, example: str) -> tuple[float, float] | None:
    """``value`` as two numbers ``(low, high)`` (None stays None); a string such as the
    command line's ``"1:5"``, one number or three stop with the Python form ``example``."""
    if value is None:
        return None
    fix = f"must be two numbers (low, high), e.g. {name}={example}"
    if isinstance(value, (str, bytes)) or np.ndim(value) != 1 or len(value) != 2:
        raise ValidationError(
            f"{name}={value!r} {fix} (the command line's --{name} {_cli(example, ':')})."
        )
    try:
        low, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise ValidationError(f"{name}={value!r} {fix}.") from None
    return low, high


def number_list(value: Any, name: str, example: str) -> np.ndarray:
    """``value`` as a 1-D float array; a string such as the command line's ``"1,2,3"``
    or one number stop with the Python form ``example``."""
    fix = f"must be a list of numbers, e.g. {name}={example}"
    if isinstance(value, (str, bytes)) or np.ndim(value) != 1:
        raise ValidationError(
            f"{name}={value!r} {fix} (the command line's --{name} {_cli(example, ',')})."
        )
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValidationError(f"{name}={value!r} {fix}.") from None


def number(value: Any, name: str, example: str, what: str = "") -> float:
    """``value`` as one number; a string, a list or a bool stop with ``example`` (and
    ``what``, said after "one number": ``in [0, 1]``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        many = np.ndim(value) == 1 and not isinstance(value, (str, bytes))
        raise ValidationError(
            f"{name}={value!r} must be one number{f' {what}' if what else ''}, e.g. "
            f"{name}={example}" + ("; call once per value." if many else ".")
        )
    return float(value)


def flag(value: Any, name: str) -> None:
    """Refuse a ``value`` that is not True or False (``"no"`` would be taken as True)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValidationError(f"{name}={value!r} must be True or False.")


def whole(value: Any, name: str, least: int, default: str, none_ok: bool = False) -> None:
    """Refuse a ``value`` that is not a whole number ``>= least`` (None too, unless
    ``none_ok``), naming the argument ``name`` and its ``default`` (words)."""
    if value is None and none_ok:
        return
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if not ok or value < least:
        raise ValidationError(
            f"{name}={value!r} must be a whole number of at least {least} (default {default})."
        )


def choice(value: Any, name: str, allowed: Iterable[str]) -> None:
    """Refuse a ``value`` not among ``allowed``, naming the argument and the choices."""
    allowed = tuple(allowed)
    if not isinstance(value, str) or value not in allowed:
        raise ValidationError(
            f"{name}={value!r} is not known.{suggest(str(value), allowed)} "
            f"Use one of {', '.join(map(repr, allowed))}."
        )


def drawn_seed(seed: int | None) -> int:
    """The seed a fit uses: ``seed``, or for ``None`` a fresh one drawn from the operating
    system's entropy (kept as the calibrator's ``seed_``, so the run can be redone with
    ``seed=seed_``)."""
    if seed is not None:
        return int(seed)
    return int(np.random.SeedSequence().generate_state(1)[0] >> 1)  # 0 .. 2**31 - 1


#: the group poolings a Calibrator takes
POOLINGS = ("auto", "shrink", "separate")


def check_settings(cal: Any, embedding: np.ndarray | None) -> None:
    """Refuse a Calibrator's settings of the wrong type or value at ``fit`` (not at the
    first estimate that uses them), each named with its form; ``embedding``: the pool's."""
    if cal.target not in ("pool", "population", "superpopulation"):
        raise ValidationError(f"target {cal.target!r} must be 'pool' or 'population'.")
    flag(cal.power_tuning, "power_tuning")
    flag(cal.hajek, "hajek")
    fresh = "0; None draws a fresh seed at each fit (kept as seed_)"
    whole(cal.seed, "seed", 0, fresh, none_ok=True)
    choice(cal.pooling, "pooling", POOLINGS)
    whole(cal.n_components, "n_components", 1, "None: min(32, its width)", none_ok=True)
    if cal.n_components is not None and embedding is None:
        raise ValidationError(
            f"n_components={cal.n_components!r} is the number of the embedding's principal "
            "components, and the pool has no embedding; build it with "
            "EvalPool.from_frame(..., embedding=COLUMNS) or drop n_components."
        )


def _call_name(func: Callable[..., Any]) -> str:
    """``Calibrator()`` for an ``__init__``, ``Calibrator.fit()`` for a method."""
    name = func.__qualname__.removesuffix(".__init__")
    return f"{name}()"


def _unknown_keyword(func: Callable[..., Any], key: str, names: list[str]) -> str:
    """Why ``key`` is refused by ``func``, the keyword meant and the ones it takes."""
    where = _call_name(func)
    if key == "level" and "alpha" in names:  # item_scores and judge_bias take a level
        return (
            f"{where} takes alpha, the share an interval may miss, not level: alpha=0.05 "
            "for a 95% interval (level=0.95)."
        )
    return (
        f"{where} has no argument {key!r}.{suggest(key, names)} Its arguments: {', '.join(names)}."
    )


def named_keywords(func: F) -> F:
    """``func`` with its keywords checked before the call: an unknown one raises
    :class:`~bacon_bayes.errors.KeywordError` naming the keyword meant and the valid
    ones (``Calibrator(engin="freq")``: "Did you mean 'engine'?"), and so do too many
    positional arguments (naming the keyword-only ones)."""
    params = inspect.signature(func).parameters.values()
    kind = inspect.Parameter
    if any(p.kind is kind.VAR_KEYWORD for p in params):
        return func
    names = [p.name for p in params if p.kind is not kind.VAR_POSITIONAL]
    names = [n for n in names if n not in ("self", "cls")]
    plain = (kind.POSITIONAL_ONLY, kind.POSITIONAL_OR_KEYWORD)
    positional = [p.name for p in params if p.kind in plain]
    varargs = any(p.kind is kind.VAR_POSITIONAL for p in params)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for key in kwargs:
            if key not in names:
                raise KeywordError(_unknown_keyword(func, key, names))
        if not varargs and len(args) > len(positional):
            shown = [n for n in positional if n not in ("self", "cls")]
            raise KeywordError(
                f"{_call_name(func)} takes {len(shown)} positional argument(s) "
                f"({', '.join(shown) or 'none'}); pass the others by name "
                f"({', '.join(f'{n}=...' for n in names if n not in shown)})."
            )
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


class Settings:
    """``repr``, ``get_params`` and ``set_params`` in scikit-learn's manner for an
    estimator whose ``__init__`` stores each argument under its own name; the subclass's
    ``__init__`` and public methods refuse an unknown keyword naming the valid ones
    (:func:`named_keywords`)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, value in list(vars(cls).items()):
            if inspect.isfunction(value) and (name == "__init__" or not name.startswith("_")):
                setattr(cls, name, named_keywords(value))

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's arguments as set (``deep`` is accepted for scikit-learn)."""
        names = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
        return {name: getattr(self, name) for name in names}

    def set_params(self, **params: Any) -> Any:
        """Set constructor arguments (checked at the next ``fit``); returns self."""
        valid = self.get_params()
        for name, value in params.items():
            if name not in valid:
                raise ValidationError(
                    f"{name!r} is not a setting of {type(self).__name__}.{suggest(name, valid)} "
                    f"Its settings: {', '.join(valid)}."
                )
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        """The settings that differ from the defaults (``Calibrator(engine='freq')``)."""
        defaults = {
            p.name: p.default for p in inspect.signature(type(self).__init__).parameters.values()
        }
        shown = [
            f"{k}={v!r}"
            for k, v in self.get_params().items()
            if not (_same(v, defaults.get(k, inspect.Parameter.empty)))
        ]
        return f"{type(self).__name__}({', '.join(shown)})"


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(value == default) and type(value) is type(default)
    except (TypeError, ValueError):
        return False


def values_equal(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` hold the same values: arrays and frames compared element by
    element (NaN equal to NaN), dataclasses field by field, anything else by ``==``; for
    ``==`` of objects holding arrays, which would otherwise raise."""
    if isinstance(a, (pd.DataFrame, pd.Series)) or isinstance(b, (pd.DataFrame, pd.Series)):
        return type(a) is type(b) and a.equals(b)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape:
            return False
        try:
            return bool(np.array_equal(a, b, equal_nan=True))
        except TypeError:  # object arrays: NaN ids are refused, so plain equality
            return bool(np.array_equal(a, b))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(
            values_equal(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
        )
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b, strict=True))
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return a is b
