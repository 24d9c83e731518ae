"""s2sad benchmarks: speed and memory as ratios measured side by side in one run.

Run ``python -m benchmarks`` (``--quick`` for a short smoke run). Not a test suite:
tests check correctness, this reports figures."""
