"""A steady allocator for every benchmark: on glibc, freed heap memory stays in the
process (`steady_allocator`), so each figure is the cost of the computation, not of
the page faults that refill memory the allocator gave back to the system.

Why: glibc serves arrays of 128 KiB and more (a 64x256 float64 array is 128 KiB)
from the heap once the first such array is freed, and gives the top of the heap back
to the system whenever more than twice that is free there. A function whose arrays
are all freed when it returns then faults its memory in again on the next call: on
the MLP case, 440 page faults and about 450 us of a 1.1 ms gradient, the hand-written
one alike, while the primal (fewer arrays alive at once) pays none. Which tools pay
depended on what the process had freed before (loading PyTorch raises glibc's
thresholds), so figures moved between runs. Setting both thresholds at start-up
(`mallopt`, what the MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ environment
variables do) makes every tool run under the same allocator. `--malloc default`
keeps glibc's own behaviour."""

import ctypes
import ctypes.util
import sys

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
KEEP = 1 << 30  # 1 GiB free at the top of the heap before any is given back
LARGE = 32 << 20  # arrays below 32 MiB come from the heap (glibc's own maximum)


def malloc_option(argv) -> str:
    """The value of ``--malloc`` in ``argv`` ("steady" unless "default" is given)."""
    for i, arg in enumerate(argv):
        if arg == "--malloc" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--malloc="):
            return arg.split("=", 1)[1]
    return "steady"


def steady_allocator() -> bool:
    """Keep freed memory in the process (glibc only); whether it was done."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(M_TRIM_THRESHOLD, KEEP)) and bool(mallopt(M_MMAP_THRESHOLD, LARGE))


STEADY = steady_allocator() if malloc_option(sys.argv[1:]) == "steady" else False
