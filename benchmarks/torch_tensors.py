"""s2sad's gradients of PyTorch tensors against PyTorch's own autograd, side by side.

    python -m benchmarks.torch_tensors [--rounds 15] [--threads 1] [--quick]

Each case is a loss written once with ``np.`` (what s2sad differentiates) and once
with ``torch.`` (what ``torch.autograd.grad`` differentiates, on tensors that require
grad). Four contenders, interleaved in one run: the function itself on NumPy arrays
(the unit of the ratios), s2sad's gradient on NumPy arrays, s2sad's gradient on
float64 tensors, and PyTorch's autograd (forward and backward) on float64 tensors.
The gradients are checked against each other first. CPU, one thread for BLAS and
PyTorch by default, so the two libraries' matrix products run alike. Writes
results/torch_tensors.md."""

import argparse
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def mlp(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    return np.mean((h @ W2 - y) ** 2)


def mlp_torch(W1, b1, W2, X, y):
    import torch
    h = torch.tanh(X @ W1 + b1)
    return torch.mean((h @ W2 - y) ** 2)


def logistic(w, b, X, y):
    z = X @ w + b
    return np.sum(np.log1p(np.exp(-y * z))) / len(y)


def logistic_torch(w, b, X, y):
    import torch
    z = X @ w + b
    return torch.sum(torch.log1p(torch.exp(-y * z))) / len(y)


def layer_norm(x, gain, bias):
    mu = np.mean(x, axis=1, keepdims=True)
    var = np.mean((x - mu) ** 2, axis=1, keepdims=True)
    return np.sum(np.tanh((x - mu) / np.sqrt(var + 1e-5) * gain + bias))


def layer_norm_torch(x, gain, bias):
    import torch
    mu = torch.mean(x, dim=1, keepdim=True)
    var = torch.mean((x - mu) ** 2, dim=1, keepdim=True)
    return torch.sum(torch.tanh((x - mu) / torch.sqrt(var + 1e-5) * gain + bias))


def cases(quick):
    rng = np.random.default_rng(0)
    n = 16 if quick else 64
    return [
        ("MLP 2x256 tanh, batch 64", mlp, mlp_torch, 3,
         [rng.normal(size=(32, 256)) * 0.1, np.zeros(256), rng.normal(size=256) * 0.1,
          rng.normal(size=(n, 32)), rng.normal(size=n)]),
        ("logistic loss, X 10000x100", logistic, logistic_torch, 2,
         [rng.normal(size=100) * 0.1, 0.1, rng.normal(size=(1000 if quick else 10000, 100)),
          np.sign(rng.normal(size=1000 if quick else 10000))]),
        ("layer norm, 64x256", layer_norm, layer_norm_torch, 3,
         [rng.normal(size=(n, 256)), rng.normal(size=256), rng.normal(size=256)]),
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.torch_tensors")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="small sizes, few rounds")
    args = parser.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))
    import torch

    import s2sad
    from .timing import interleaved, median, ratio, spread
    torch.set_num_threads(args.threads)
    rows = []
    for title, f, f_torch, nwrt, values in cases(args.quick):
        wrt = tuple(range(nwrt))
        tensors = [torch.tensor(v, dtype=torch.float64) if isinstance(v, np.ndarray)
                   else torch.tensor(v, dtype=torch.float64) for v in values]
        grad = s2sad.grad(f, wrt)

        def autograd(*a, f_torch=f_torch, nwrt=nwrt):
            params = [p.detach().requires_grad_() for p in a[:nwrt]]
            return torch.autograd.grad(f_torch(*params, *a[nwrt:]), params)

        want = grad(*values)
        for got in (grad(*tensors), autograd(*tensors)):
            for g, w in zip(got, want):
                np.testing.assert_allclose(np.asarray(g.detach()), w, rtol=1e-9, atol=1e-12)
        contenders = {"function": lambda *_: f(*values), "s2sad, NumPy": lambda *_: grad(*values),
                      "s2sad, tensors": lambda *_: grad(*tensors),
                      "autograd": lambda *_: autograd(*tensors)}
        times = interleaved(contenders, (), rounds=3 if args.quick else args.rounds)
        rows.append((title, median(times["function"]),
                     *[ratio(times, name, "function") for name in list(contenders)[1:]],
                     max(spread(t) for t in times.values())))
    lines = ["| case | function (NumPy) | s2sad, NumPy | s2sad, tensors | PyTorch autograd "
             "| spread |", "|---|---:|---:|---:|---:|---:|"]
    for title, t, a, b, c, s in rows:
        lines.append(f"| {title} | {t * 1e6:,.0f} µs | {a:.2f}x | {b:.2f}x | {c:.2f}x "
                     f"| {s:.0%} |")
    text = "\n".join(lines)
    print(text)
    if not args.quick:
        os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
        with open(os.path.join(HERE, "results", "torch_tensors.md"), "w") as out:
            out.write(f"`python -m benchmarks.torch_tensors` (torch {torch.__version__}, "
                      f"{args.threads} thread(s)); times over the NumPy function's:\n\n"
                      + text + "\n")


if __name__ == "__main__":
    main()
