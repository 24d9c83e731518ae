"""One thread per library for every benchmark: `pin_threads` limits the thread pools
of OpenBLAS (NumPy), PyTorch and XLA before NumPy loads. Import this module before
anything imports NumPy."""

import os
import sys

DEFAULT_THREADS = 1


def threads_option(argv):
    """The value of ``--threads`` in ``argv`` (default 1; 0: the libraries' own)."""
    for i, arg in enumerate(argv):
        value = None
        if arg == "--threads" and i + 1 < len(argv):
            value = argv[i + 1]
        elif arg.startswith("--threads="):
            value = arg.split("=", 1)[1]
        if value is not None:
            try:
                return max(0, int(value))
            except ValueError:
                return DEFAULT_THREADS  # argparse reports the bad value
    return DEFAULT_THREADS


def pin_threads(n):
    """Limit the thread pools of OpenBLAS (NumPy), PyTorch and XLA (JAX) to ``n``
    threads. They read these variables when they load, so this runs before anything
    imports NumPy. With 2 cores and other work on the machine, pools that spin while
    they wait (OpenBLAS's after a call, PyTorch's) take the core another tool needs
    next, and a tool's time turns bimodal; one thread each makes every figure a
    single-thread figure, the primal's included."""
    if n <= 0:
        return
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(n)
    xla = os.environ.get("XLA_FLAGS", "")
    if "intra_op_parallelism_threads" not in xla:
        extra = f"--xla_cpu_multi_thread_eigen={'true' if n > 1 else 'false'} " \
                f"intra_op_parallelism_threads={n}"
        os.environ["XLA_FLAGS"] = (xla + " " + extra).strip()


PINNED = None  # the thread count pin_threads applied (None: NumPy was loaded before)
if "numpy" not in sys.modules:
    PINNED = threads_option(sys.argv[1:])
    pin_threads(PINNED)
