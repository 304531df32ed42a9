"""The multinomial (Dawid-Skene) model's joint log density written by hand, in numba.

The same density as :meth:`MultinomialJudgeModel._build_model
<bacon_bayes.bayes.multinomial.MultinomialJudgeModel._build_model>` (constants
included), with its gradient, as one GIL-free numba function of nutpie's flat vector
of unconstrained values (the chains run in parallel);
:func:`~bacon_bayes.bayes.nuts.compile_sampler` samples it in place of PyTensor's JAX
translation. Per item ``i`` and class ``k``:

    J_ik = log P(z_i = k) + sum_j log theta_j[k, s_ij] + sum_j log N(l_ij; a_jk, s_ij)

every item adds ``logsumexp_k J_ik``, a training label ``y_i`` adds
``log softmax_k(c_k + w V_ik)`` at ``k = y_i``, where the link's evidence ``V`` is ``J``
with judge j's term weighed by ``exp(d_j)`` (``V = J`` without per-judge weights). With
``G`` the derivative of the total in ``J`` (the softmax of ``J_i`` per item) and ``H``
in ``w V`` (``1[k = y_i] - P(y = k | l_i)`` per labeled item), every parameter's
gradient follows by the chain rule through the class prior's softmax (``G + w H``), the
confusion rows' log-softmax and the
continuous judges' normal densities. ``tests/bayes/test_multinomial_density.py`` checks
value and gradient against PyMC's at random points.
"""

from __future__ import annotations

import functools
from math import lgamma
from typing import Any

import numpy as np

from bacon_bayes.bayes.closed_forms import LOG_2PI
from bacon_bayes.bayes.nuts import GradDensity, flat_call
from bacon_bayes.compiled import compiled_nogil

__all__ = ["distinct_items", "multinomial_density"]

#: The flat vector's parameters, in the order of :func:`_multinomial_flat_py`'s ``start``.
_PARAMS = (
    "class_intercept", "theta", "confusion_mu", "confusion_sd_log__", "confusion",
    "class_mean", "log_noise", "uncertainty", "evidence_weight_log__", "label_shift",
    "judge_evidence",
)  # fmt: skip
#: Each parameter with a fixed normal prior (unconstrained value): its mean and sd, as
#: prior names or numbers (``evidence_weight`` is log-normal: normal on the log scale).
_NORMALS = {
    "class_intercept": (0.0, "class_intercept_sd"),
    "theta": (0.0, "embedding_sd"),
    "confusion_mu": ("offdiag_logit_mu", "offdiag_logit_sd"),
    "class_mean": (0.0, "class_mean_sd"),
    "log_noise": ("log_noise_mu", "log_noise_mu_sd"),
    "uncertainty": (0.0, "uncertainty_sd"),
    "evidence_weight_log__": (0.0, "evidence_weight_sd"),
    "label_shift": (0.0, "label_shift_sd"),
}
#: The data arrays it reads, in its arguments' order (made by :func:`_prepare`).
_KEYS = ("Q_np", "count_np", "rows_np", "yk_np", "w_np", "S_np", "L_np", "obs_np", "U_np")


def _multinomial_flat_py(
    x, start, normals, rate, evidence_sd, K, Q, count, rows, yk, w, S, L, obs, U, grad
):
    """Log density at the flat vector ``x`` (``start``: each of :data:`_PARAMS`' first
    index, -1 when absent; ``normals``: (first index, size, mean, sd) of each block of
    :data:`_NORMALS`; ``rate`` the confusion scale's gamma rate; ``evidence_sd`` the per-judge
    evidence weights' prior sd; ``K`` classes; per distinct
    item ``Q`` (n, E) embedding, ``count`` (n) how many items are alike; ``rows``, ``yk``,
    ``w`` the label rows (as distinct-item indices), their class index and 0/1 weight;
    ``S`` (n, Jc) the class index each categorical judge said, -1 where it gave none;
    ``L``, ``obs`` (n, Jn) continuous scores and their 0/1 mask; ``U`` (n, Jn, nU)); the
    gradient is written into ``grad``."""
    n, Jc = S.shape
    Jn = L.shape[1]
    E = Q.shape[1] if start[1] >= 0 else 0
    nU = U.shape[2] if start[7] >= 0 else 0
    Kf = K - 1
    i_b, i_B, i_A, i_t, i_C = start[0], start[1], start[2], start[3], start[4]
    i_a, i_ln, i_g, i_w, i_c = start[5], start[6], start[7], start[8], start[9]
    grad[:] = 0.0
    total = 0.0
    for b in range(normals.shape[0]):
        first, size = int(normals[b, 0]), int(normals[b, 1])
        mu, sd = normals[b, 2], normals[b, 3]
        for c in range(first, first + size):
            z = (x[c] - mu) / sd
            total += -0.5 * z * z - np.log(sd) - 0.5 * LOG_2PI
            grad[c] = -z / sd
    # ---- the confusion matrices: hierarchical logits, rows by log-softmax
    logconf = np.zeros((Jc, K, K))
    full = np.zeros(K)
    if Jc > 0:
        lt = x[i_t]  # confusion_sd ~ Gamma(4, 4 / judge_deviation_sd), log scale
        t = np.exp(lt)
        total += 4.0 * np.log(rate) - lgamma(4.0) + 4.0 * lt - rate * t
        grad[i_t] = 4.0 - rate * t
        for j in range(Jc):
            for k in range(K):
                for o in range(Kf):
                    idx = i_C + (j * K + k) * Kf + o
                    z = (x[idx] - x[i_A + k * Kf + o]) / t
                    total += -0.5 * z * z - lt - 0.5 * LOG_2PI
                    grad[idx] = -z / t
                    grad[i_A + k * Kf + o] += z / t
                    grad[i_t] += z * z - 1.0
                    full[o + (o >= k)] = x[idx]
                full[k] = 0.0
                top = full.max()
                s = 0.0
                for col in range(K):
                    s += np.exp(full[col] - top)
                lse = top + np.log(s)
                for col in range(K):
                    logconf[j, k, col] = full[col] - lse
    wt = np.exp(x[i_w])
    shift = np.zeros(K)
    for k in range(Kf):
        shift[k + 1] = x[i_c + k]
    # per-judge evidence weights in the label link: u_j = log(w s_j) ~ N(log w, sd)
    sj = np.ones(Jc + Jn)
    i_u = start[10]
    if i_u >= 0:
        for j in range(Jc + Jn):
            z = (x[i_u + j] - x[i_w]) / evidence_sd
            total += -0.5 * z * z - np.log(evidence_sd) - 0.5 * LOG_2PI
            grad[i_u + j] = -z / evidence_sd
            grad[i_w] += z / evidence_sd
            sj[j] = np.exp(x[i_u + j] - x[i_w])
    # ---- the class joint J (n, K), the link's evidence V (n, K), the prior's softmax
    joint = np.empty((n, K))
    ev = np.empty((n, K))
    lprior = np.empty((n, K))
    prior = np.empty((n, K))
    lsd = np.zeros((n, Jn))  # the continuous judges' log noise sd
    eta = np.zeros(K)
    for i in range(n):
        for k in range(Kf):
            s = x[i_b + k]
            for e in range(E):
                s += Q[i, e] * x[i_B + e * Kf + k]
            eta[k + 1] = s
        top = eta.max()
        s = 0.0
        for k in range(K):
            s += np.exp(eta[k] - top)
        lse = top + np.log(s)
        for k in range(K):
            lprior[i, k] = eta[k] - lse
            joint[i, k] = lprior[i, k]
            ev[i, k] = lprior[i, k]
            prior[i, k] = np.exp(lprior[i, k])
        for j in range(Jc):
            said = S[i, j]
            if said >= 0:
                for k in range(K):
                    joint[i, k] += logconf[j, k, said]
                    ev[i, k] += sj[j] * logconf[j, k, said]
        for j in range(Jn):
            if obs[i, j] == 0.0:
                continue
            ls = x[i_ln + j]
            for u in range(nU):
                ls += U[i, j, u] * x[i_g + u]
            lsd[i, j] = ls
            inv = np.exp(-2.0 * ls)
            for k in range(K):
                r = L[i, j] - x[i_a + j * K + k]
                term = obs[i, j] * (-0.5 * LOG_2PI - ls - 0.5 * r * r * inv)
                joint[i, k] += term
                ev[i, k] += sj[Jc + j] * term
    # ---- G = d total / d J (the judges' marginal), H = d total / d(w V) (the label link)
    G = np.empty((n, K))
    for i in range(n):
        top = joint[i, 0]
        for k in range(1, K):
            top = max(top, joint[i, k])
        s = 0.0
        for k in range(K):
            G[i, k] = np.exp(joint[i, k] - top)
            s += G[i, k]
        total += count[i] * (top + np.log(s))
        for k in range(K):
            G[i, k] *= count[i] / s
    H = np.zeros((n, K))
    link = np.zeros(K)
    p = np.zeros(K)
    for m in range(rows.size):
        wm = w[m]
        if wm == 0.0:
            continue
        i = rows[m]
        for k in range(K):
            link[k] = shift[k] + wt * ev[i, k]
        top = link.max()
        s = 0.0
        for k in range(K):
            p[k] = np.exp(link[k] - top)
            s += p[k]
        y = yk[m]
        total += wm * (link[y] - top - np.log(s))
        for k in range(K):
            dk = wm * ((1.0 if k == y else 0.0) - p[k] / s)
            H[i, k] += dk
            # with per-judge weights only the prior's term has w (w s_j = exp(u_j))
            grad[i_w] += wt * dk * (lprior[i, k] if i_u >= 0 else ev[i, k])
            if k > 0:
                grad[i_c + k - 1] += dk
    # ---- back through J and V: the prior gets G + w H, judge j's term G + w s_j H
    dconf = np.zeros((Jc, K, K))
    for i in range(n):
        gsum = 0.0
        for k in range(K):
            gsum += G[i, k] + wt * H[i, k]
        for k in range(Kf):  # the class prior's log-softmax
            de = G[i, k + 1] + wt * H[i, k + 1] - prior[i, k + 1] * gsum
            grad[i_b + k] += de
            for e in range(E):
                grad[i_B + e * Kf + k] += Q[i, e] * de
        for j in range(Jc):
            said = S[i, j]
            if said >= 0:
                gd = 0.0
                for k in range(K):
                    dconf[j, k, said] += G[i, k] + wt * sj[j] * H[i, k]
                    gd += wt * sj[j] * H[i, k] * logconf[j, k, said]
                if i_u >= 0:
                    grad[i_u + j] += gd
        for j in range(Jn):
            if obs[i, j] == 0.0:
                continue
            ls = lsd[i, j]
            inv = np.exp(-2.0 * ls)
            dls = 0.0
            gd = 0.0
            for k in range(K):
                r = L[i, j] - x[i_a + j * K + k]
                hk = wt * sj[Jc + j] * H[i, k]
                gk = (G[i, k] + hk) * obs[i, j]
                grad[i_a + j * K + k] += gk * r * inv
                dls += gk * (r * r * inv - 1.0)
                gd += hk * obs[i, j] * (-0.5 * LOG_2PI - ls - 0.5 * r * r * inv)
            grad[i_ln + j] += dls
            for u in range(nU):
                grad[i_g + u] += dls * U[i, j, u]
            if i_u >= 0:
                grad[i_u + Jc + j] += gd
    for j in range(Jc):  # each confusion row's log-softmax
        for k in range(K):
            dsum = 0.0
            for col in range(K):
                dsum += dconf[j, k, col]
            for o in range(Kf):
                col = o + (o >= k)
                p_col = np.exp(logconf[j, k, col])
                grad[i_C + (j * K + k) * Kf + o] += dconf[j, k, col] - p_col * dsum
    return total


def distinct_items(*parts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Items alike in every one of ``parts`` (arrays with one row per item): each distinct
    item's first row, every item's distinct-item index and each distinct item's count."""
    n = parts[0].shape[0]
    key = np.column_stack([np.reshape(p, (n, -1)) for p in parts])
    if not key.shape[1]:  # nothing tells the items apart
        return np.zeros(1, "int64"), np.zeros(n, "int64"), np.array([n])
    _, first, inverse, count = np.unique(
        key, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    return first, inverse.ravel(), count


def _prepare(data: dict[str, Any], n_classes: int) -> dict[str, Any]:
    """The containers as C-ordered numpy arrays (``*_np``) over the distinct items: items
    alike in every input (judge scores, embedding, uncertainty) add the same terms, so
    each distinct one is counted once with its multiplicity (``count_np``; TriviaQA's
    3,200 items with 9 binary judges are 114), and the label rows point at
    them. The categorical judges' one-hot scores become class indices (-1: no score);
    absent parts are empty arrays."""
    Q = np.asarray(data["Q"], dtype=float)
    n = Q.shape[0]
    if "C" in data:
        onehot = np.asarray(data["C"], dtype=float).reshape(n, -1, n_classes)
        S = np.where(onehot.any(axis=2), onehot.argmax(axis=2), -1).astype(float)
    else:
        S = np.zeros((n, 0))
    L = np.asarray(data["L"], dtype=float) if "L" in data else np.zeros((n, 0))
    obs = np.asarray(data["obs"], dtype=float) if "obs" in data else np.zeros((n, 0))
    U = np.asarray(data["U"], dtype=float) if "U" in data else np.zeros((*L.shape, 0))
    first, inverse, count = distinct_items(S, Q, L, obs, U)
    rows = inverse[np.asarray(data["label_rows"], dtype=np.int64)]
    return {
        "Q_np": np.ascontiguousarray(Q[first]),
        "count_np": count.astype(float),
        "rows_np": np.ascontiguousarray(rows, dtype=np.int64),
        "yk_np": np.ascontiguousarray(np.asarray(data["yk"], dtype=np.int64)),
        "w_np": np.ascontiguousarray(np.asarray(data["w"], dtype=float)),
        "S_np": np.ascontiguousarray(S[first], dtype=np.int64),
        "L_np": np.ascontiguousarray(L[first]),
        "obs_np": np.ascontiguousarray(obs[first]),
        "U_np": np.ascontiguousarray(U[first]),
    }


def _normal_blocks(layout: list, pr: dict[str, float]) -> np.ndarray:
    """(first index, size, mean, sd) of each parameter of :data:`_NORMALS` in ``layout``."""
    rows = []
    for name, sl, _ in layout:
        if name in _NORMALS:
            mu, sd = (pr[v] if isinstance(v, str) else v for v in _NORMALS[name])
            rows.append((sl.start, sl.stop - sl.start, mu, sd))
    return np.array(rows, dtype=float)


def multinomial_density(pr: dict[str, float], n_classes: int) -> GradDensity:
    """The multinomial model's joint density for :func:`~bacon_bayes.bayes.nuts.compile_sampler`."""
    rate = 4.0 / pr["judge_deviation_sd"]  # confusion_sd ~ Gamma(4, rate): prior mean the sd

    def flat(layout: list):
        args = (_normal_blocks(layout, pr), rate, pr["judge_evidence_sd"], n_classes)
        return flat_call(compiled_nogil(_multinomial_flat_py), layout, _PARAMS, args, _KEYS)

    return GradDensity(flat, functools.partial(_prepare, n_classes=n_classes))
