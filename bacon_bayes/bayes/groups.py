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

__all__ = ["GROUP_FEATURE", "attach_groups", "group_codes", "reads_groups", "with_group_column"]

#: The name of the group column (beside the feature names, e.g. in a saved calibrator).
GROUP_FEATURE = "group:code"


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
