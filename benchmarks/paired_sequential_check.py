"""Bias of the union-of-waves weights and of the wave-by-wave weights at the prompt level
under paired-adaptive waves (issue 41; the simulation of tests/test_paired_sequential.py).

    PYTHONPATH=. python -m benchmarks.paired_sequential_check REPS [SEED] [--package]

``--package``: the package's :func:`~bacon_bayes.estimate.clustered.clustered_mean`
(Hajek, power-tuned, the union rescaled to the realised prompts) instead of the test's
Hajek mean with surrogate weight 1.
"""

from __future__ import annotations

import sys

import numpy as np

from bacon_bayes.estimate.clustered import clustered_mean
from bacon_bayes.inclusion import Inclusion, planned_labels, sequential_inclusion
from tests.test_paired_sequential import _hajek, paired_adaptive_sequences


def main(reps: int, seed: int, package: bool) -> None:
    y, f, prompt, b, wave = paired_adaptive_sequences(reps, seed=seed)
    out: dict[str, list[tuple[float, float]]] = {"union": [], "sequential": []}
    for r in range(reps):
        lab = wave[r] >= 0
        union = Inclusion(b[:, r], np.ones_like(b[:, r]))
        seq = sequential_inclusion(union, wave[r], planned_labels(wave[r], b[:, r].T))
        for name, inc in (("union", union), ("sequential", seq)):
            if package:
                e = clustered_mean(np.where(lab, y[r], np.nan), f[r], prompt, lab, inc)
                est, var = e.estimate, e.se**2
            else:
                est, var = _hajek(y[r], f[r], prompt, inc, lab)
            out[name].append((est - y[r].mean(), float(np.sqrt(var))))
    for name, rows in out.items():
        err, se = np.array(rows).T
        mc = err.std() / np.sqrt(reps)
        miss = (np.abs(err) > 1.96 * se).mean()
        print(
            f"{name}: mean error {err.mean() / mc:+.2f} MC se ({err.mean() / err.std():+.3f} sd), "
            f"mean se / sd {se.mean() / err.std():.3f}, 95% miss {miss:.3f}"
            f" ({reps} reps)"
        )


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(int(args[0]), int(args[1]) if len(args) > 1 else 1, "--package" in sys.argv)
