"""Small helpers shared by the tests."""

import importlib.util
import inspect

import pytest

# the native path's tests run where numba is installed
needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                                 reason="numba is not installed (pip install -e '.[jit]')")


def central_diff(f, args, index, h=1e-6, seed=None):
    """d f / d args[index] by central differences: the one numeric reference of the
    suite. A float gives a float, an array an array of its shape (a 0-d array a 0-d
    array), a list or a tuple one of its kind, element by element (a list of arrays
    a list of arrays).
    With `seed`, the derivative of ``sum(seed * f(...))`` (a vector-Jacobian product,
    for a function whose output is an array); without it `f` returns one number."""
    import numpy as np

    def value(*a):
        out = f(*a)
        return out if seed is None else np.sum(np.asarray(out) * seed)

    def at(x, nudge):
        """(arguments with args[index] replaced by x nudged by `nudge`)"""
        return [*args[:index], nudge(x), *args[index + 1:]]

    x = args[index]
    if isinstance(x, (list, tuple)):
        out = []
        for k, item in enumerate(x):
            def with_item(v, k=k):
                return type(x)([*x[:k], v, *x[k + 1:]])
            out.append(central_diff(lambda v: value(*at(x, lambda _: with_item(v))),
                                    (item,), 0, h))
        return type(x)(out)
    if isinstance(x, np.ndarray):
        x = x.astype(np.float64) if x.dtype.kind != "f" else x
        g = np.zeros(x.shape)
        for k in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[k] += h
            down[k] -= h
            g[k] = (value(*at(x, lambda _: up)) - value(*at(x, lambda _: down))) / (2 * h)
        return g
    return (value(*at(x, lambda v: v + h)) - value(*at(x, lambda v: v - h))) / (2 * h)


def same(a, b) -> bool:
    """Exactly equal (arrays element by element, with the same shape)."""
    import numpy as np

    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.shape(a) == np.shape(b) and bool(np.array_equal(a, b))
    return a == b


def positions(f, wrt):
    names = list(inspect.signature(f).parameters)
    items = wrt if isinstance(wrt, tuple) else (wrt,)
    return [w if isinstance(w, int) else names.index(w) for w in items]


def numeric_grad(f, args, wrt):
    grads = tuple(central_diff(f, args, i) for i in positions(f, wrt))
    return grads if isinstance(wrt, tuple) else grads[0]


def close(a, b, rtol=1e-5, atol=1e-7):
    import numpy as np

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.shape(a) == np.shape(b) and bool(np.allclose(a, b, rtol=rtol, atol=atol))
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(close(x, y, rtol, atol) for x, y in zip(a, b))
    return abs(a - b) <= atol + rtol * abs(b)


def both_modes(f, args, wrt=None, rtol=1e-5, atol=1e-6):
    """grad (reverse mode) and jvp (forward mode, along a fixed direction) of `f` at
    `args` against central differences, for the float and array arguments at the
    positions `wrt` (default: all of them)."""
    import numpy as np

    import s2sad

    wrt = tuple(range(len(args))) if wrt is None else wrt
    want = [central_diff(f, args, i) for i in wrt]
    got = s2sad.grad(f, wrt=wrt)(*args)
    assert close(tuple(got), tuple(want), rtol, atol), (got, want)
    rng = np.random.default_rng(0)
    tangents = [rng.standard_normal(np.shape(a)) if isinstance(a, np.ndarray) else
                float(rng.standard_normal()) if i in wrt else 0.0 for i, a in enumerate(args)]
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray) and i not in wrt:
            tangents[i] = np.zeros_like(a)
    value, tangent = s2sad.jvp(f, tuple(args), tuple(tangents))
    expect = sum(float(np.sum(w * tangents[i])) for w, i in zip(want, wrt))
    assert close(float(tangent), expect, rtol, atol), (tangent, expect)
    return got


def tree_numeric_grad(f, args, index, h=1e-6):
    """d f / d args[index], leaf by leaf, in the structure of args[index] (None at
    leaves that are not floats)."""
    import numpy as np

    from s2sad.ir import trees

    spec = trees.spec_of(args[index])
    leaves = trees.leaves(args[index], spec)
    out = []
    for k, leaf in enumerate(leaves):
        if isinstance(leaf, bool) or not isinstance(leaf, (float, np.ndarray)) or \
                isinstance(leaf, np.ndarray) and leaf.dtype.kind != "f":
            out.append(None)
            continue
        flat = np.array(leaf, float).ravel()
        g = np.zeros_like(flat)
        for j in range(flat.size):
            vals = []
            for step in (h, -h):
                moved = flat.copy()
                moved[j] += step
                new = moved.reshape(np.shape(leaf)) if isinstance(leaf, np.ndarray) \
                    else float(moved[0])
                parts = list(leaves)
                parts[k] = new
                a = list(args)
                a[index] = trees.build(spec, iter(parts))
                vals.append(f(*a))
            g[j] = (vals[0] - vals[1]) / (2 * h)
        out.append(g.reshape(np.shape(leaf)) if isinstance(leaf, np.ndarray) else float(g[0]))
    return trees.build(spec, iter(out))


def assert_tree_close(got, want, rtol=1e-5, atol=1e-7):
    """`got` has `want`'s structure, None where it has None, its leaves' types and
    values."""
    import numpy as np

    from s2sad.ir import trees

    assert trees.spec_of(got) == trees.spec_of(want), (got, want)
    for g, w in zip(trees.leaves(got), trees.leaves(want)):
        if w is None:
            assert g is None
        else:
            assert type(g) is type(w) or isinstance(w, float) and isinstance(g, float), (g, w)
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
