"""One model written several ways, timed side by side: the run and the report that
`containers` and `methods` share.

Each model is ``{spelling: (gradient, arguments, leaves)}``: `leaves` turns what the
gradient returns into a list of arrays (or numbers), which must equal the first
spelling's before anything is timed. Times are medians of interleaved rounds (see
timing.py); each ratio is the median of per-round ratios against the `reference`
spelling."""

import argparse
import os

import numpy as np

from .timing import interleaved, median, ratio

HERE = os.path.dirname(os.path.abspath(__file__))


def mlp_weights(rng=None):
    """The 2-layer tanh MLP's weights and data (64 x 256, width 256): W1, b1, W2, b2, X,
    Y, drawn from `rng` (the same in every run without one)."""
    rng = np.random.default_rng(20240604) if rng is None else rng
    width, n = 256, 64
    s = 1.0 / np.sqrt(width)
    W1, W2 = rng.normal(0, s, (width, width)), rng.normal(0, s, (width, width))
    b1, b2 = rng.normal(0, 0.1, width), rng.normal(0, 0.1, width)
    X, Y = rng.normal(size=(n, width)), rng.normal(size=(n, width))
    return W1, b1, W2, b2, X, Y


def compare(models: dict, reference: str, heading: list, stem: str, quick=False,
            unit=("µs", 1e6, ".1f")) -> str:
    """The Markdown table of every model's spellings (printed, and written to
    ``results/<stem>.md``), under the lines `heading`."""
    rounds, target = (5, 0.002) if quick else (31, 0.01)
    lines = heading + ["", f"| model | spelling | gradient ({unit[0]}) | ratio |",
                       "|---|---|---:|---:|"]
    for title, spellings in models.items():
        first = None
        for name, (g, args, leaves) in spellings.items():
            got = leaves(g(*args))
            if first is None:
                first = got
            for a, r in zip(got, first):
                np.testing.assert_allclose(a, r, rtol=1e-10, atol=1e-12)
        times = interleaved({n: (lambda *_, g=g, args=args: g(*args))
                             for n, (g, args, _) in spellings.items()}, (),
                            rounds=rounds, target=target)
        for name in spellings:
            lines.append(f"| {title} | {name} | {median(times[name]) * unit[1]:{unit[2]}} | "
                         f"{ratio(times, name, reference):.3f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{stem}.md"), "w") as fh:
        fh.write(text)
    return text


def main(run, doc: str, argv=None) -> int:
    """The command line of a benchmark whose `run(quick)` makes its report."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few rounds: a smoke test")
    args = parser.parse_args(argv)
    run(args.quick)
    return 0
