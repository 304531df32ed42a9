"""Benchmarks: each ``bench_*.py`` module exposes ``main()``; ``python -m benchmarks`` runs all."""
