"""Bradley-Terry AEE on simulated comparisons with known strengths (the simulator of
``tests/test_bradley_terry.py``: 8 models, 30% ties, two position-biased noisy judges).

    python -m benchmarks.bt_sim --draws 300
"""

from __future__ import annotations

import argparse

import numpy as np

from bacon_bayes.estimate.bradley_terry import bradley_terry, bradley_terry_fit
from tests.test_bradley_terry import M, _masked, simulate


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--draws", type=int, default=300)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--labels", type=int, default=300)
    args = ap.parse_args()
    rng = np.random.default_rng(44)
    cov: dict[str, list[np.ndarray]] = {"aee": [], "aee simultaneous": [], "labels alone": []}
    cov["labels alone simultaneous"] = []
    width: dict[str, list[float]] = {k: [] for k in cov}
    err: dict[str, list[np.ndarray]] = {"aee": [], "labels alone": []}
    se: dict[str, list[np.ndarray]] = {"aee": [], "labels alone": []}
    for _ in range(args.draws):
        d = simulate(rng, args.n)
        full = bradley_terry_fit(d["a"], d["b"], d["y"], M)
        y = _masked(d["y"], args.labels, rng)
        f = d["judges"] / 2.0
        for name, sur, sim in (("aee", f, False), ("aee simultaneous", f, True),
                               ("labels alone", None, False),
                               ("labels alone simultaneous", None, True)):  # fmt: skip
            t = bradley_terry(d["a"], d["b"], y, sur, n_models=M, simultaneous=sim)
            cov[name].append((t.ci_low <= full) & (full <= t.ci_high))
            width[name].append(float(np.mean(t.ci_high - t.ci_low)))
            if name in err:
                err[name].append(t.estimate - full)
                se[name].append(t.se)
    base = np.array(width["labels alone"])
    print(f"{args.draws} draws, N={args.n}, {args.labels} labels, 8 models, nominal 0.95")
    print("| method | coverage per model (pooled) | all 8 jointly | width / labels alone |")
    print("|---|---|---|---|")
    for name, c in cov.items():
        c_arr = np.array(c)
        ratio = float(np.mean(np.array(width[name]) / base))
        print(f"| {name} | {c_arr.mean():.3f} | {c_arr.all(axis=1).mean():.3f} | {ratio:.3f} |")
    for name in err:
        e, s = np.array(err[name]), np.array(se[name])
        z = e.mean(0) / (e.std(0, ddof=1) / np.sqrt(e.shape[0]))
        ratio = s.mean(0) / e.std(0)
        print(f"{name}: mean se / sd of error {ratio.min():.3f}-{ratio.max():.3f}; "
              f"bias z {np.abs(z).max():.2f} (max over models)")  # fmt: skip


if __name__ == "__main__":
    main()
