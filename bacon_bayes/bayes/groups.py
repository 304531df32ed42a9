"""The items' groups (systems) in the X a judge model reads, for its group effects.

A judge model with group effects (``group_effects``) finds each item's group in one
column of X (``ColumnSpec.group_col``): a code indexing ``ColumnSpec.groups``, the names
of the groups of the pool it was fitted on; NaN for an item of no group or of a group
the model never saw (both predict with group effect 0). :func:`attach_groups` sets this
up when a calibrator fits; :func:`with_group_column` gives any later X (another pool's,
:meth:`Calibrator.apply <bacon_bayes.calibrator.Calibrator.apply>`) the same column.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np

from bacon_bayes.bayes.columns import ColumnSpec
from bacon_bayes.order import natural_key

__all__ = [
    "GROUP_FEATURE",
    "attach_groups",
    "check_group_option",
    "group_codes",
    "group_option_error",
    "reads_groups",
    "with_group_column",
]

#: The name of the group column (beside the feature names, e.g. in a saved calibrator).
GROUP_FEATURE = "group:code"


def group_option_error(why: str, option: Any = True, family: str = "") -> str:
    """The message refusing the ``group_effects`` option, in the command line's words
    (``--group-effects``) and Python's (``group_effects=``, also a preset's key): ``why``
    is ``"value"`` (not True, False or 'auto'), ``"family"`` (the model has no group
    level), ``"groups"`` (no groups given) or ``"engine"`` (the frequentist engine)."""
    on = "--group-effects on (group_effects=True in Python or a preset)"
    if why == "value":
        return (
            f"group_effects must be True, False or 'auto', got {option!r}: on the command "
            "line --group-effects on, off or auto"
        )
    if why == "family":
        return (
            f"the {family} model has no group effects, so {on} cannot apply; use "
            "--group-effects auto or off (group_effects='auto' or False)"
        )
    if why == "engine":
        return (
            f"{on}: the frequentist engine's {family} model has no group level; the group "
            "level is the Bayesian engine's (--engine bayes; engine='bayes'), or use "
            "--group-effects auto (group_effects='auto')"
        )
    return (
        f"{on} needs the items' groups: pass --group COLUMN (group= of EvalPool.from_frame), "
        "or use --group-effects auto (group_effects='auto'); a judge model used alone needs "
        "a column spec with group_col and groups (bacon_bayes.bayes.groups.with_group_column)"
    )


def check_group_option(option: Any, *, engine: str, groups: Any, model: Any, family: str) -> None:
    """Refuse a calibrator's ``group_effects`` that its fit cannot honour (a ValidationError
    in both wordings, :func:`group_option_error`): a value other than True, False or
    'auto', or True with the frequentist engine, without groups, or for a judge model
    with no group level (the multinomial)."""
    from bacon_bayes.errors import ValidationError

    if option not in (True, False, "auto"):
        raise ValidationError(group_option_error("value", option))
    if option is not True:
        return
    if engine == "freq":
        raise ValidationError(group_option_error("engine", family=family))
    if groups is None:
        raise ValidationError(group_option_error("groups"))
    if not getattr(model, "supports_group_effects", False):
        raise ValidationError(group_option_error("family", family=family))


def reads_groups(model: Any) -> bool:
    """Whether ``model`` is a judge model whose X carries a group column."""
    spec = getattr(model, "columns", None)
    return isinstance(spec, ColumnSpec) and spec.group_col >= 0


def group_codes(groups: Any, names: tuple[str, ...]) -> np.ndarray:
    """Each item's group as its index in ``names`` (float), NaN where it is not one of them."""
    values = np.asarray(groups).astype(str)
    index = {name: float(k) for k, name in enumerate(names)}
    return np.array([index.get(v, np.nan) for v in values], dtype=float)


def with_group_column(model: Any, X: np.ndarray, groups: Any) -> np.ndarray:
    """``X`` (the feature matrix) as ``model`` reads it: with its group column holding the
    codes of ``groups`` (one per row; None: no groups, every row NaN) when the model reads
    one, else ``X`` itself."""
    if not reads_groups(model):
        return X
    spec = model.columns
    X = np.asarray(X, dtype=float)
    if X.shape[1] != spec.group_col:
        raise ValueError(
            f"X has {X.shape[1]} columns; the model's group column is column {spec.group_col}"
        )
    codes = np.full(X.shape[0], np.nan) if groups is None else group_codes(groups, spec.groups)
    return np.column_stack([X, codes])


def attach_groups(
    model: Any, X: np.ndarray, groups: Any, option: bool | str
) -> tuple[Any, np.ndarray]:
    """At a calibrator's fit: a copy of ``model`` reading the pool's groups from a column
    after the features, and ``X`` with that column (:func:`with_group_column`); the copy
    takes ``option`` as its ``group_effects`` unless the model was set otherwise than
    ``"auto"``. Without groups, with ``option`` False, or for a model that takes no group
    effects (no judge model, the multinomial): ``(model, X)`` unchanged."""
    spec = getattr(model, "columns", None)
    if groups is None or option is False or not isinstance(spec, ColumnSpec):
        return model, X
    if not getattr(model, "supports_group_effects", False):
        return model, X
    names = tuple(sorted({str(g) for g in np.asarray(groups).astype(str)}, key=natural_key))
    out = copy.copy(model)
    out.columns = dataclasses.replace(spec, group_col=int(np.shape(X)[1]), groups=names)
    if getattr(model, "group_effects", "auto") == "auto":
        out.group_effects = option
    return out, with_group_column(out, X, groups)
