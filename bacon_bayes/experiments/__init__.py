"""Reproducible studies of the paper's experiments (run as modules, write figures)."""
