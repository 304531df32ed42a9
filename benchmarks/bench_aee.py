"""AEE mean with its CI on 10,000,000 items (surrogate predictions given).

Compares, in one process on the same arrays: ``numpy.mean`` of the prediction
array (the baseline every figure is a ratio of), our ``aee_mean`` (input: labels
with NaN for unlabeled items, and predictions for every item) and
``ppi_py.ppi_mean_ci`` (input: the same arrays already split into labeled /
unlabeled, which is not timed). Peak extra memory is measured with tracemalloc
and reported as a ratio of the input arrays' size.

Run: ``python -m benchmarks aee``. Targets: <= 0.5 s, faster than ppi_py,
peak memory <= 3x the inputs.
"""

from __future__ import annotations

import tracemalloc

import numpy as np

from bacon_bayes.estimate import aee_mean
from benchmarks import best_of

N = 10_000_000
LABELED = 0.1


def _peak(fn) -> int:
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main() -> None:
    rng = np.random.default_rng(0)
    f = rng.normal(3.0, 1.0, N)
    y = f + rng.normal(0.0, 0.5, N)
    lab = rng.random(N) < LABELED
    y[~lab] = np.nan
    inputs = y.nbytes + f.nbytes
    Y, Yhat, Yhat_u = y[lab], f[lab], f[~lab]

    t_np = best_of(lambda: np.mean(f))
    t_ours = best_of(lambda: aee_mean(y, f, alpha=0.05))
    mem_ours = _peak(lambda: aee_mean(y, f, alpha=0.05))
    ours = aee_mean(y, f, alpha=0.05)
    print(f"N = {N:,}, labeled = {lab.sum():,}; inputs {inputs / 1e6:.0f} MB")
    print(f"numpy.mean(f)          {t_np * 1e3:8.1f} ms   (baseline 1.0x)")
    print(f"bacon aee_mean + CI    {t_ours * 1e3:8.1f} ms   {t_ours / t_np:6.1f}x numpy.mean")
    print(f"  peak extra memory    {mem_ours / 1e6:8.1f} MB   {mem_ours / inputs:6.2f}x inputs")
    print(f"  estimate {ours.estimate:.5f}, CI [{ours.ci_low:.5f}, {ours.ci_high:.5f}]")
    try:
        from ppi_py import ppi_mean_ci
    except ImportError:  # pragma: no cover - ppi_py is a dev extra
        print("ppi_py not installed: pip install ppi-python to compare")
        return
    t_ppi = best_of(lambda: ppi_mean_ci(Y, Yhat, Yhat_u, alpha=0.05))
    mem_ppi = _peak(lambda: ppi_mean_ci(Y, Yhat, Yhat_u, alpha=0.05))
    lo, hi = ppi_mean_ci(Y, Yhat, Yhat_u, alpha=0.05)
    print(f"ppi_py ppi_mean_ci     {t_ppi * 1e3:8.1f} ms   {t_ppi / t_np:6.1f}x numpy.mean")
    print(f"  peak extra memory    {mem_ppi / 1e6:8.1f} MB   {mem_ppi / inputs:6.2f}x inputs")
    print(f"  CI [{float(np.ravel(lo)[0]):.5f}, {float(np.ravel(hi)[0]):.5f}]")
    print(f"bacon / ppi_py time    {t_ours / t_ppi:.3f}")


if __name__ == "__main__":
    main()
