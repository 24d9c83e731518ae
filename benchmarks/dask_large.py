"""A gradient over a Dask array larger than the driver should hold: s2sad's gradient of
a least-squares loss written with ``np.`` against the same gradient written by hand
with Dask, on a local `distributed` cluster of two workers, interleaved in one run.

    python -m benchmarks.dask_large [--gib 2] [--rounds 3] [--workers 2]

The data, ``X`` of shape (n, 100) (``--gib`` GiB of float64) and ``y`` (n,), are made
lazily by the workers from a seeded generator, chunk by chunk: the driver never holds
them. Each round computes both gradients (``.compute()`` of a lazy Dask array) and
records the wall time and the driver's peak traced memory (tracemalloc, over the
building of the gradient and its compute: what the driver allocates, not the
workers). The gradients are checked against each other first. Writes
results/dask_large.md. Needs ``dask[distributed]``."""

import argparse
import os
import statistics
import time
import tracemalloc

import numpy as np

import s2sad

HERE = os.path.dirname(os.path.abspath(__file__))
D = 100


def least_squares(w, X, y):
    r = X @ w - y
    return np.sum(r * r) / X.shape[0]


def least_squares_by_hand(w, X, y):
    r = X @ w - y
    return (2.0 / X.shape[0]) * (X.T @ r)


def data(gib, chunk_mib=64):
    import dask.array as da

    n = int(gib * 2**30 / (8 * D))
    rows = max(1, int(chunk_mib * 2**20 / (8 * D)))
    rng = da.random.default_rng(0)
    X = rng.normal(0.0, 1.0, size=(n, D), chunks=(rows, D))
    truth = np.linspace(-1.0, 1.0, D)
    y = X @ truth + rng.normal(0.0, 0.1, size=(n,), chunks=(rows,))
    return X, y


def timed(fn):
    """(seconds, driver's peak traced MiB, result) of ``fn()``."""
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    seconds = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak / 2**20, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    import dask.array as da
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1,
                           processes=True, dashboard_address=None)
    client = Client(cluster)
    try:
        X, y = data(args.gib)
        w = da.from_array(np.zeros(D) + 0.01, chunks=D)
        grad = s2sad.grad(least_squares)
        g = grad(w, X, y)
        assert isinstance(g, da.Array), type(g)  # (lazy: nothing computed yet)
        ours = g.compute()
        theirs = least_squares_by_hand(w, X, y).compute()
        assert np.allclose(ours, theirs, rtol=1e-9, atol=1e-12), (ours[:3], theirs[:3])
        rows = {"s2sad": [], "by hand": []}
        for _ in range(args.rounds):
            for name, fn in (("s2sad", lambda: grad(w, X, y).compute()),
                             ("by hand", lambda: least_squares_by_hand(w, X, y).compute())):
                seconds, peak, _ = timed(fn)
                rows[name].append((seconds, peak))
    finally:
        client.close()
        cluster.close()
    size = X.nbytes / 2**30
    lines = [f"# Gradient over a {size:.2f} GiB Dask array",
             "",
             f"Least squares, X {X.shape[0]:,} x {D} float64 in {X.numblocks[0]} chunks, "
             f"{args.workers} workers of one thread (`distributed.LocalCluster`), "
             f"{args.rounds} interleaved rounds; median wall time and the driver's peak "
             "traced memory.",
             "",
             "| gradient | time (s) | driver peak (MiB) |",
             "|---|---:|---:|"]
    for name, got in rows.items():
        lines.append(f"| {name} | {statistics.median(s for s, _ in got):.2f} | "
                     f"{max(p for _, p in got):.1f} |")
    ratio = statistics.median(a[0] / b[0] for a, b in zip(rows["s2sad"], rows["by hand"]))
    lines += ["", f"s2sad / by hand: {ratio:.2f} (median of per-round ratios)."]
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "dask_large.md"), "w") as fh:
        fh.write(text)
    print(text)


if __name__ == "__main__":
    main()
