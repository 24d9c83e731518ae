"""s2sad benchmarks: s2sad side by side with the tools its users would pick instead
(autograd, JAX with and without jit, PyTorch, tangent, central differences), against
the primal and a gradient written by hand, in one run.

Run ``python -m benchmarks`` (``--quick`` for a short smoke run of s2sad alone). Not
a test suite: tests check correctness, this reports figures. See README.md here."""
