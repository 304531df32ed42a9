"""Result containers: one estimate, and a table of jointly estimated quantities."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from typing import Any, ClassVar

import numpy as np
import pandas as pd

#: Bounds within this of 0 are 0: float noise (the difference of two groups labeled whole
#: with one mean comes out as -1e-17), not a sign; labels on scales up to 1e4 stay far above.
NUMERICAL_ZERO = 1e-10


def sure_sign(low: Any, high: Any) -> np.ndarray:
    """+1 where an interval ``[low, high]`` lies above 0, -1 where below, 0 where it holds
    0 or is missing (bounds within :data:`NUMERICAL_ZERO` of 0 count as 0)."""
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    return np.where(low > NUMERICAL_ZERO, 1, np.where(high < -NUMERICAL_ZERO, -1, 0))


def _plain(value: Any) -> Any:
    """Turn numpy scalars/arrays into JSON-ready Python values: NaN as ``None`` and an
    infinity as the string ``"inf"`` / ``"-inf"`` (standard JSON has neither; ``float``
    reads the strings back, :func:`_unplain`)."""
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def json_text(value: Any) -> str:
    """Standard JSON (indented) of a command's result: what :func:`_plain` makes of it,
    so no ``NaN`` or ``Infinity``, which strict readers refuse."""
    return json.dumps(_plain(value), indent=2, allow_nan=False)


def _numbers(value: Any) -> Any:
    """``None`` (a NaN of :func:`_plain`) back as NaN, in nested lists."""
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    return float("nan") if value is None else value


def _unplain(value: Any) -> Any:
    """The infinities of :func:`_plain` back as floats, in nested dicts and lists."""
    if isinstance(value, dict):
        return {k: _unplain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unplain(v) for v in value]
    return float(value) if value in ("inf", "-inf") else value


#: A table's details that describe each of its rows' interval, kept by ``table[name]``.
_ROW_DETAILS = ("interval_kind", "interval", "pooling", "guarantee")


def _kind(details: dict[str, Any]) -> str:
    """An interval's kind before "CI" in text: anytime (``interval_kind``), shrunk and
    simultaneous (a row of a group table); ``""`` for a plain interval."""
    words = [details.get("interval_kind")]
    words.append("shrunk" if details.get("pooling") == "shrink" else None)
    sim = details.get("simultaneous")
    words.append(f"simultaneous ({sim})" if sim not in (None, "none") else None)
    return "".join(f"{w} " for w in words if w)


def _not_comparable(details: dict[str, Any]) -> str:
    """A naive baseline's line saying why it estimates nothing of the label (or "")."""
    why = details.get("not_comparable")
    return f"\nnot an estimate of the label: {why}" if why else ""


#: the details key of the note on an interval where every label sits at one end of the
#: label's range (:func:`~bacon_bayes.estimate.mean.at_range_end`)
RANGE_END = "interval_at_range_end"


def _why_no_interval(details: dict[str, Any]) -> str:
    """Why an estimate has no interval, from its details ("" when none is recorded): the
    labels' note (all equal, :func:`~bacon_bayes.estimate.mean.at_range_end`) or a
    withheld row's reason (one, or one per model of a difference)."""
    why = details.get("no_interval")
    if isinstance(why, dict):
        why = "; ".join(f"{k}: {v}" for k, v in why.items())
    return str(why or details.get(RANGE_END) or "")


@dataclass(frozen=True)
class Estimate:
    """One estimated quantity with its standard error and confidence interval.

    Attributes
    ----------
    estimand : str
        What is estimated, e.g. ``"mean"`` or ``"quantile(0.5)"``.
    method : str
        ``"aee"`` (calibrated), ``"classical"`` (human labels only) or ``"naive"``
        (raw judge average, no human labels).
    estimate, se, ci_low, ci_high : float
        Point estimate, standard error and the ``1 - alpha`` interval.
    n_labeled, n_items : int
        Labeled items used and items in the pool.
    alpha : float
        One minus the confidence level.
    details : dict
        Method specifics (power-tuning lambda, degrees of freedom, ...); an anytime
        interval's ``interval_kind`` (``"alpha-spending"`` or ``"confidence sequence"``)
        and ``anytime`` (its looks and critical values).
    """

    estimand: str
    method: str
    estimate: float
    se: float
    ci_low: float
    ci_high: float
    n_labeled: int
    n_items: int
    alpha: float
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def width(self) -> float:
        """Width of the confidence interval."""
        return self.ci_high - self.ci_low

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dictionary (JSON-ready)."""
        return _plain(asdict(self))

    def to_frame(self) -> pd.DataFrame:
        """One row with :meth:`EstimateTable.to_frame`'s columns (``name``: the estimand)
        and the ``method``, so that estimates and their baselines stack with
        ``pd.concat``; a ``note`` column says why there is no interval, where there is
        none."""
        frame = pd.DataFrame(
            {
                "name": [self.estimand],
                "method": [self.method],
                "estimate": [self.estimate],
                "se": [self.se],
                "ci_low": [self.ci_low],
                "ci_high": [self.ci_high],
                "n_labeled": [self.n_labeled],
                "n_items": [self.n_items],
            }
        )
        if not (np.isfinite(self.ci_low) and np.isfinite(self.ci_high)):
            frame["note"] = [_why_no_interval(self.details)]
        return frame

    def clip(self, low: float, high: float) -> Estimate:
        """The interval intersected with the parameter's range ``[low, high]``.

        A bounded label's mean or quantile lies in its range, so the intersection
        covers whenever the interval does: coverage is kept, width can only shrink. The
        estimate is moved into the range too (never outside its own interval).
        """
        if not (math.isfinite(low) or math.isfinite(high)):
            return self
        lo, hi = np.clip([self.ci_low, self.ci_high], low, high).tolist()
        est = (
            float(np.clip(self.estimate, low, high))
            if np.isfinite(self.estimate)
            else self.estimate
        )
        return replace(
            self,
            estimate=est,
            ci_low=lo,
            ci_high=hi,
            details={**self.details, "range": [low, high]},
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Estimate:
        """Inverse of :meth:`to_dict` (exact: JSON keeps every float digit)."""
        fields = {k: _unplain(data[k]) for k in cls.__dataclass_fields__ if k in data}
        for k in ("estimate", "se", "ci_low", "ci_high"):
            fields[k] = float("nan") if fields[k] is None else float(fields[k])
        return cls(**fields)

    def __repr__(self) -> str:
        """The readable form :meth:`__str__` prints (a notebook shows this one)."""
        return str(self)

    def __str__(self) -> str:
        level = round(100 * (1 - self.alpha), 1)
        kind = _kind(self.details)
        line = (
            f"{self.method:>9} {self.estimand}: {self.estimate:.4f} "
            f"(se {self.se:.4f}; {level:g}% {kind}CI {self.ci_low:.4f} to {self.ci_high:.4f}; "
            f"{self.n_labeled} labeled of {self.n_items})"
        )
        why = _why_no_interval(self.details)
        if why and not (np.isfinite(self.ci_low) and np.isfinite(self.ci_high)):
            line += f"\nno interval: {why}"
        return line + _not_comparable(self.details)


@dataclass(frozen=True)
class EstimateTable:
    """Several jointly estimated quantities (e.g. one mean per group).

    Arrays are aligned with ``names``. ``cov`` is their joint covariance;
    ``ci_low``/``ci_high`` are simultaneous when ``simultaneous`` is not ``"none"``.
    """

    estimand: str
    method: str
    names: tuple[str, ...]
    estimate: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    cov: np.ndarray
    n_labeled: np.ndarray
    n_items: np.ndarray
    alpha: float
    simultaneous: str
    critical_value: np.ndarray
    details: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.names)

    def __iter__(self) -> Iterator[Estimate]:
        """The rows, in order, each as an :class:`Estimate` (``table[name]``)."""
        return (self[name] for name in self.names)

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def read_only(self) -> EstimateTable:
        """The table with read-only views of its arrays: what a fitted object hands out
        and keeps (an edit in place, e.g. ``table.estimate.sort()``, would misalign every
        later call's names and values; copy an array to change it)."""
        views: dict[str, Any] = {}
        for f in ("estimate", "se", "ci_low", "ci_high", "cov", "n_labeled", "n_items",
                  "critical_value"):  # fmt: skip
            view = np.asarray(getattr(self, f)).view()
            view.flags.writeable = False
            views[f] = view
        return replace(self, **views)

    def __getitem__(self, name: str) -> Estimate:
        if name not in self.names:
            shown = ", ".join(self.names[:12]) + (", ..." if len(self.names) > 12 else "")
            raise KeyError(
                f"{name!r} is not a row of this table;{self._pair_hint(name)} its names: "
                f"{shown} (iterate over the table for its rows, or use .to_frame())."
            )
        k = self.names.index(name)
        return Estimate(
            estimand=f"{self.estimand}[{name}]",
            method=self.method,
            estimate=float(self.estimate[k]),
            se=float(self.se[k]),
            ci_low=float(self.ci_low[k]),
            ci_high=float(self.ci_high[k]),
            n_labeled=int(self.n_labeled[k]),
            n_items=int(self.n_items[k]),
            alpha=self.alpha,
            details={"simultaneous": self.simultaneous}
            | {k: v for k, v in self.details.items() if k in _ROW_DETAILS}
            | ({"no_interval": why} if (why := self.notes[k]) else {}),
        )

    def _pair_hint(self, name: object) -> str:
        """For a table of differences: the row of ``'A - B'`` asked as ``'B - A'``, or the
        side that is no group (a pair of 66 cannot be found in the first 12 names)."""
        pairs = self.details.get("pairs")
        if not pairs or not isinstance(name, str):
            return ""
        squeezed = [n for n in self.names if "".join(n.split()) == "".join(name.split())]
        if squeezed:  # 'M8-M9' for 'M8 - M9'
            return f" {squeezed[0]!r} is (spaces around the minus);"
        if " - " not in name:
            return ""
        a, b = name.split(" - ", 1)
        if f"{b} - {a}" in self.names:
            return f" {f'{b} - {a}'!r} is (the same difference the other way: negate it);"
        groups = dict.fromkeys(g for pair in pairs for g in pair)
        unknown = [g for g in (a, b) if g not in groups]
        if not unknown:
            return ""
        return f" {unknown[0]!r} is not one of the groups ({', '.join(map(str, groups))});"

    def clip(self, low: float, high: float) -> EstimateTable:
        """Intervals (and estimates) intersected with the parameters' range (see
        :meth:`Estimate.clip`; simultaneous coverage is kept too)."""
        if not (math.isfinite(low) or math.isfinite(high)):
            return self
        return replace(
            self,
            estimate=np.clip(self.estimate, low, high),
            ci_low=np.clip(self.ci_low, low, high),
            ci_high=np.clip(self.ci_high, low, high),
            details={**self.details, "range": [low, high]},
        )

    def take(self, rows: np.ndarray) -> EstimateTable:
        """The table of the ``rows`` (indices) alone: their estimates, covariance and
        per-row details; the reasons of withheld intervals left out."""
        keep = np.asarray(rows, dtype=int)
        m = len(self)
        details = {
            k: ([v[g] for g in keep] if isinstance(v, list) and len(v) == m else v)
            for k, v in self.details.items()
            if k != "no_interval"
        }
        return replace(
            self, names=tuple(self.names[g] for g in keep), estimate=self.estimate[keep],
            se=self.se[keep], ci_low=self.ci_low[keep], ci_high=self.ci_high[keep],
            cov=self.cov[np.ix_(keep, keep)], n_labeled=self.n_labeled[keep],
            n_items=self.n_items[keep], critical_value=self.critical_value[keep],
            details=details,
        )  # fmt: skip

    def withhold(self, rows: np.ndarray, reason: str) -> EstimateTable:
        """No interval (NaN) for the ``rows`` (boolean mask), with ``reason`` recorded per
        name in ``details["no_interval"]`` and shown in :meth:`to_frame`'s ``note``."""
        rows = np.asarray(rows, dtype=bool)
        if not rows.any():
            return self
        notes = dict(self.details.get("no_interval", {}))
        notes.update({self.names[k]: reason for k in np.flatnonzero(rows)})
        return replace(
            self,
            ci_low=np.where(rows, np.nan, self.ci_low),
            ci_high=np.where(rows, np.nan, self.ci_high),
            details={**self.details, "no_interval": notes},
        )

    @property
    def notes(self) -> list[str]:
        """Per row, why it has no interval ("" when it has one)."""
        reasons = self.details.get("no_interval", {})
        return [reasons.get(name, "") for name in self.names]

    def to_frame(self) -> pd.DataFrame:
        """One row per quantity (with a ``note`` column when some row has no interval).
        The ``se`` of shrunk group means is their noise only (``details["se"]`` says so):
        their intervals are wider than ``estimate +- 1.96 se``."""
        frame = pd.DataFrame(
            {
                "name": list(self.names),
                "estimate": self.estimate,
                "se": self.se,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
                "n_labeled": self.n_labeled,
                "n_items": self.n_items,
            }
        )
        if self.details.get("no_interval"):
            frame["note"] = self.notes
        return frame

    def to_dict(self) -> dict[str, Any]:
        """Plain-Python dictionary (JSON-ready), including the joint covariance."""
        return _plain(
            {
                "estimand": self.estimand,
                "method": self.method,
                "alpha": self.alpha,
                "simultaneous": self.simultaneous,
                "critical_value": self.critical_value,
                "rows": self.to_frame().to_dict(orient="records"),
                "cov": self.cov,
                "details": self.details,
            }
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EstimateTable:
        """Inverse of :meth:`to_dict` (exact: JSON keeps every float digit; NaN, written
        as null, read back as NaN; the details' arrays come back as lists, as
        :meth:`to_dict` writes them)."""
        rows = data["rows"]

        def floats(values: Any) -> np.ndarray:
            return np.array(_numbers(_unplain(values)), dtype=float)

        def column(key: str, dtype: type) -> np.ndarray:
            return (floats if dtype is float else np.array)([r[key] for r in rows])

        n = len(rows)
        return cls(
            estimand=data["estimand"],
            method=data["method"],
            names=tuple(r["name"] for r in rows),
            estimate=column("estimate", float),
            se=column("se", float),
            ci_low=column("ci_low", float),
            ci_high=column("ci_high", float),
            cov=floats(data["cov"]).reshape(n, n),
            n_labeled=np.array([r["n_labeled"] for r in rows], dtype=np.int64),
            n_items=np.array([r["n_items"] for r in rows], dtype=np.int64),
            alpha=float(data["alpha"]),
            simultaneous=data["simultaneous"],
            critical_value=floats(data["critical_value"]),
            details=_unplain(data.get("details", {})),
        )

    def __repr__(self) -> str:
        """The readable form :meth:`__str__` prints (a notebook shows this one)."""
        return str(self)

    def __str__(self) -> str:
        return self.head() + "\n" + self.to_frame().to_string(index=False, float_format="%.4f")

    def head(self) -> str:
        """The lines above the rows: level, kind and guarantee of the intervals."""
        level = round(100 * (1 - self.alpha), 1)
        kind = _kind({"interval_kind": self.details.get("interval_kind")})
        head = (
            f"{self.method} {self.estimand} ({level:g}% {kind}CI, simultaneous: "
            f"{self.simultaneous})"
        )
        if "guarantee" in self.details and self.details.get("pooling") == "shrink":
            # shrunk rows: their interval carries a bias allowance and a floor, so it is no
            # estimate +- z se, and its guarantee is not each row's alone
            head += (
                f"\nshrunk toward the other groups; intervals {self.details['interval']}, "
                f"holding {self.details['guarantee']}"
            )
            head += f"\n{self.details['se']}" if "se" in self.details else ""
        return head + _not_comparable(self.details)


class RankTable(pd.DataFrame):
    """Groups ranked by their means (:meth:`~bacon_bayes.calibrator.Calibrator.rank_groups`).

    A DataFrame (columns, ``.loc``, ``merge`` as ever: :meth:`EstimateTable.to_frame`'s
    columns, best first, with ``rank``, ``rank_low`` and ``rank_high``) that also carries
    the group table it ranks, as :class:`EstimateTable` does: ``table``, ``alpha``,
    ``details`` (``details["guarantee"]``, the means' intervals' guarantee, and
    ``details["rank_intervals"]``, the ranks'), :meth:`to_frame` and a printed head that
    says both. A frame derived from it (a slice, a merge) is a plain DataFrame.
    """

    _metadata: ClassVar[list[str]] = ["table", "rank_note"]
    table: EstimateTable
    rank_note: str

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    @classmethod
    def of(
        cls, table: EstimateTable, ranks: dict[str, np.ndarray], diffs: EstimateTable,
        descending: bool,
    ) -> RankTable:  # fmt: skip
        """``table``'s rows with their ``ranks`` (from ``diffs``), sorted by rank."""
        frame = table.to_frame()
        for k, v in ranks.items():
            frame[k] = v
        out = cls(frame.sort_values("rank", kind="stable").reset_index(drop=True))
        out.table = table
        level = f"{100 * (1 - diffs.alpha):g}%"
        out.rank_note = (
            f"rank 1 = the {'highest' if descending else 'lowest'} {table.estimand}; rank_low "
            f"- rank_high hold for every group together at {level} at least (from the "
            f"pairwise differences' {diffs.simultaneous} intervals)"
        )
        return out

    @property
    def alpha(self) -> float:
        """One minus the confidence level of the means and of the rank intervals."""
        return float(self.table.alpha)

    @property
    def details(self) -> dict[str, Any]:
        """The group table's details, with ``rank_intervals`` saying what the ranks hold."""
        return {**self.table.details, "rank_intervals": self.rank_note}

    def to_frame(self) -> pd.DataFrame:
        """The ranked rows as a plain DataFrame (a copy)."""
        return pd.DataFrame(self).copy()

    def __repr__(self) -> str:
        """The head, then every column (as :class:`EstimateTable` prints; 60 rows at most)."""
        rows = self.to_frame().to_string(index=False, float_format="%.4f", max_rows=60)
        return f"{self.table.head()}\n{self.rank_note}\n{rows}"

    def _repr_html_(self) -> str | None:
        html = super()._repr_html_()
        lines = f"{self.table.head()}\n{self.rank_note}".replace("&", "&amp;").replace("<", "&lt;")
        return None if html is None else "<p>" + lines.replace("\n", "<br>") + "</p>" + html
