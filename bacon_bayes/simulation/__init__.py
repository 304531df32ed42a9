"""Simulated data with known truth, for coverage and recovery studies: synthetic judge
regimes and batched estimators (:mod:`.regimes`), draws from the Bayesian measurement
model (:mod:`.judges`) and from the Dawid-Skene model for categorical labels
(:mod:`.categorical`)."""
