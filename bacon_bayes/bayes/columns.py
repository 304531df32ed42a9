"""Which columns of a feature matrix the judge models read, and how.

The Bayesian models need to know, for every judge, its score column (on the
judge's raw scale), where it is missing, and its uncertainty columns, plus the
embedding columns. ``ColumnSpec.from_features`` reads this from the core's
``FeatureSet``; ``ColumnSpec.simple`` describes a plain array laid out as
``[judges | uncertainty (judge-major) | embedding]`` with NaN for a missing score.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bacon_bayes.errors import ValidationError

__all__ = ["ColumnSpec", "Design"]


@dataclass(frozen=True)
class ColumnSpec:
    """Column indices of judge scores, missing flags, uncertainty and embedding.

    Attributes
    ----------
    judges : names of the J judges.
    judge_cols : (J,) column of each judge's score (raw scale; NaN allowed = missing).
    missing_cols : (J,) column of each judge's 0/1 missing flag (-1: the judge has
        none), or None.
    unc_cols : (J, K) column of uncertainty feature k of judge j, -1 where absent.
    unc_kinds : names of the K uncertainty kinds (e.g. ``sd``, ``entropy``).
    emb_cols : columns of embedding components.
    group_col : column of the item's group code (an index into ``groups``, NaN for no
        group or one the model never saw), -1 when X has none (no group effects).
    groups : names of the groups the codes index (those of the pool the model was fitted on).
    """

    judges: tuple[str, ...]
    judge_cols: tuple[int, ...]
    missing_cols: tuple[int, ...] | None = None
    unc_cols: tuple[tuple[int, ...], ...] = ()
    unc_kinds: tuple[str, ...] = ()
    emb_cols: tuple[int, ...] = ()
    group_col: int = -1
    groups: tuple[str, ...] = ()

    @classmethod
    def simple(cls, n_judges: int, n_unc: int = 0, n_emb: int = 0) -> ColumnSpec:
        """Spec of an array ``[J judge scores | J*n_unc uncertainty | n_emb embedding]``."""
        J = n_judges
        unc = tuple(tuple(J + j * n_unc + k for k in range(n_unc)) for j in range(J))
        return cls(
            judges=tuple(f"judge{j + 1}" for j in range(J)),
            judge_cols=tuple(range(J)),
            unc_cols=unc if n_unc else (),
            unc_kinds=tuple(f"u{k + 1}" for k in range(n_unc)),
            emb_cols=tuple(range(J + J * n_unc, J + J * n_unc + n_emb)),
        )

    @classmethod
    def from_features(cls, features: Any) -> ColumnSpec:
        """Build the spec from a core ``FeatureSet`` (``names``, ``blocks``, ``judges``)."""
        names = list(features.names)
        index = {n: i for i, n in enumerate(names)}
        judges = tuple(features.judges)
        judge_cols, missing_cols = [], []
        for name in judges:
            col = index.get(f"judge:{name}:mean")
            if col is None:
                raise ValidationError(
                    f"feature set has no column 'judge:{name}:mean' for judge {name!r}; "
                    "build it with bacon_bayes.features.build_features"
                )
            judge_cols.append(col)
            missing_cols.append(index.get(f"judge:{name}:missing", -1))
        unc_idx = list(features.blocks.get("uncertainty", []))
        kinds: list[str] = []
        for i in unc_idx:
            kind = names[i].rsplit(":", 1)[-1]
            if kind not in kinds:
                kinds.append(kind)
        unc = [[-1] * len(kinds) for _ in judges]
        for i in unc_idx:
            _, jname, kind = names[i].split(":", 2)
            if jname in judges:
                unc[judges.index(jname)][kinds.index(kind)] = i
        return cls(
            judges=judges,
            judge_cols=tuple(judge_cols),
            missing_cols=tuple(missing_cols),
            unc_cols=tuple(tuple(r) for r in unc) if kinds else (),
            unc_kinds=tuple(kinds),
            emb_cols=tuple(int(i) for i in features.blocks.get("embedding", [])),
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form (for saving)."""
        return {
            "judges": list(self.judges),
            "judge_cols": list(self.judge_cols),
            "missing_cols": None if self.missing_cols is None else list(self.missing_cols),
            "unc_cols": [list(r) for r in self.unc_cols],
            "unc_kinds": list(self.unc_kinds),
            "emb_cols": list(self.emb_cols),
            "group_col": self.group_col,
            "groups": list(self.groups),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ColumnSpec:
        """Inverse of :meth:`to_dict`."""
        return cls(
            judges=tuple(d["judges"]),
            judge_cols=tuple(d["judge_cols"]),
            missing_cols=None if d["missing_cols"] is None else tuple(d["missing_cols"]),
            unc_cols=tuple(tuple(r) for r in d["unc_cols"]),
            unc_kinds=tuple(d["unc_kinds"]),
            emb_cols=tuple(d["emb_cols"]),
            group_col=int(d.get("group_col", -1)),  # absent in files before group effects
            groups=tuple(str(g) for g in d.get("groups", ())),
        )

    @property
    def n_judges(self) -> int:
        return len(self.judge_cols)


@dataclass
class Design:
    """Standardised model inputs: judge scores, observed mask, uncertainty, embedding.

    ``fit`` learns the centring/scaling (per judge, per uncertainty kind, QR of the
    embedding) from all items; ``transform`` applies it to any rows.
    """

    spec: ColumnSpec
    judge_center: np.ndarray = field(default_factory=lambda: np.zeros(0))
    judge_scale: np.ndarray = field(default_factory=lambda: np.zeros(0))
    unc_center: np.ndarray = field(default_factory=lambda: np.zeros(0))
    unc_scale: np.ndarray = field(default_factory=lambda: np.zeros(0))
    emb_center: np.ndarray = field(default_factory=lambda: np.zeros(0))
    emb_rinv: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    judge_basis: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    def _raw(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        X = np.asarray(X, dtype=float)
        spec = self.spec
        if X.ndim != 2:
            raise ValidationError(f"X must be a 2-D array (items x features), got {X.ndim}-D")
        cols = [*spec.judge_cols, *spec.emb_cols, *(spec.missing_cols or ()), spec.group_col]
        need = max(cols) + 1
        need = max([need, *(c + 1 for row in spec.unc_cols for c in row)])
        if X.shape[1] < need:
            raise ValidationError(
                f"X has {X.shape[1]} columns but the column spec needs {need}; "
                "pass the feature matrix the model was built for"
            )
        L = X[:, list(spec.judge_cols)]
        obs = np.isfinite(L)
        for j, col in enumerate(spec.missing_cols or ()):
            if col >= 0:
                obs[:, j] &= X[:, col] < 0.5
        if not obs.any(axis=1).all():
            row = int(np.flatnonzero(~obs.any(axis=1))[0])
            raise ValidationError(
                f"row {row} has no judge score at all; every item needs at least one "
                "judge score (drop the item or add a judge)"
            )
        K = len(spec.unc_kinds)
        U = np.zeros((X.shape[0], spec.n_judges, K))
        for j, row_cols in enumerate(spec.unc_cols):
            for k, col in enumerate(row_cols):
                if col >= 0:
                    U[:, j, k] = X[:, col]
        E = X[:, list(spec.emb_cols)]
        for name, arr in (("uncertainty", U), ("embedding", E)):
            if not np.isfinite(arr).all():
                raise ValidationError(
                    f"{name} columns contain NaN or infinite values; impute them first "
                    "(build_features does)"
                )
        return L, obs, U, E

    def fit(self, X: np.ndarray) -> Design:
        """Learn centring and scaling from all rows of X."""
        L, obs, U, E = self._raw(X)
        J = L.shape[1]
        self.judge_center = np.array([np.mean(L[obs[:, j], j]) for j in range(J)])
        sd = np.array([np.std(L[obs[:, j], j]) for j in range(J)])
        bad = np.flatnonzero(~(sd > 0))
        if bad.size:
            raise ValidationError(
                f"judge {self.spec.judges[bad[0]]!r} gives the same score to every item; "
                "it carries no information - remove it"
            )
        self.judge_scale = sd
        Ls = np.where(obs, (np.nan_to_num(L) - self.judge_center) / sd, 0.0)
        self.judge_basis = judge_basis(Ls)
        m = obs[..., None]
        cnt = np.maximum(m.sum(axis=0), 1)
        self.unc_center = (U * m).sum(axis=0) / cnt
        var = (((U - self.unc_center) * m) ** 2).sum(axis=0) / cnt
        self.unc_scale = np.where(var > 0, np.sqrt(var), 1.0)
        self.emb_center = E.mean(axis=0)
        if E.shape[1]:
            _, R = np.linalg.qr(E - self.emb_center)
            scale = np.sqrt(max(E.shape[0] - 1, 1))
            keep = np.abs(np.diag(R)) > 1e-10 * max(np.abs(np.diag(R)).max(), 1e-300)
            if not keep.all():
                raise ValidationError(
                    f"embedding columns {np.flatnonzero(~keep).tolist()} are linear "
                    "combinations of the others; drop them"
                )
            self.emb_rinv = np.linalg.inv(R / scale)
        else:
            self.emb_rinv = np.zeros((0, 0))
        return self

    def transform(self, X: np.ndarray) -> dict[str, np.ndarray]:
        """Model inputs ``L`` (standardised, 0 where missing), ``obs``, ``U``, ``Q``."""
        L, obs, U, E = self._raw(X)
        Ls = np.where(obs, (np.nan_to_num(L) - self.judge_center) / self.judge_scale, 0.0)
        Us = np.where(obs[..., None], (U - self.unc_center) / self.unc_scale, 0.0)
        Q = (E - self.emb_center) @ self.emb_rinv if E.shape[1] else E
        return {"L": Ls, "obs": obs.astype(float), "U": Us, "Q": Q}

    def group_index(self, X: np.ndarray) -> np.ndarray:
        """Each row's group as an index into ``spec.groups`` (int), -1 where it has none,
        the code is not one of them (a group the model never saw), or X has no group column."""
        spec = self.spec
        X = np.asarray(X, dtype=float)
        if spec.group_col < 0 or not spec.groups:
            return np.full(X.shape[0], -1, dtype=np.int64)
        code = X[:, spec.group_col]
        known = np.isfinite(code) & (code >= 0) & (code < len(spec.groups))
        known &= code == np.round(code)
        return np.where(known, np.nan_to_num(code), -1).astype(np.int64)

    def state(self) -> dict[str, np.ndarray]:
        """Fitted arrays (for saving)."""
        return {
            "judge_center": self.judge_center,
            "judge_scale": self.judge_scale,
            "unc_center": self.unc_center,
            "unc_scale": self.unc_scale,
            "emb_center": self.emb_center,
            "emb_rinv": self.emb_rinv,
            "judge_basis": self.judge_basis,
        }


def judge_basis(L: np.ndarray, tol: float = 1e-8) -> np.ndarray:
    """Principal directions of the judges' standardised scores ``L`` (n, J).

    Returns B (J, K): the orthonormal eigenvectors of ``L'L / n`` by increasing
    eigenvalue, the judges' first principal component last (directions with
    eigenvalue below ``tol`` times the largest dropped, e.g. a repeated judge's). The
    scores ``L @ B`` are uncorrelated, each with its eigenvalue as variance: a label
    link that weighs them (``judge_weights=True``) has a N(0, sd) prior on the weights
    that is a ridge prior on the judges' scores, shrinking the noisy low-variance
    contrasts most.
    """
    vals, vecs = np.linalg.eigh(L.T @ L / max(L.shape[0], 1))
    # C order, as a saved model loads it: products with another memory layout can round
    # differently in the last bit, and a loaded model must predict exactly as the fit did
    return np.ascontiguousarray(vecs[:, vals > tol * max(vals[-1], 1e-300)])
