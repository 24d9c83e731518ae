"""Small helpers shared by the tests."""

import inspect


def central_diff(f, args, index, h=1e-6):
    """d f / d args[index] by central differences; a list argument gives a list, an
    array an array."""
    import numpy as np

    if isinstance(args[index], np.ndarray):
        x = args[index]
        g = np.zeros_like(x)
        for k in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[k] += h
            down[k] -= h
            g[k] = (f(*args[:index], up, *args[index + 1:])
                    - f(*args[:index], down, *args[index + 1:])) / (2 * h)
        return g
    if isinstance(args[index], list):
        out = []
        for k in range(len(args[index])):
            up, down = list(args), list(args)
            up[index] = list(args[index])
            down[index] = list(args[index])
            up[index][k] += h
            down[index][k] -= h
            out.append((f(*up) - f(*down)) / (2 * h))
        return out
    up = list(args)
    down = list(args)
    up[index] = up[index] + h
    down[index] = down[index] - h
    return (f(*up) - f(*down)) / (2 * h)


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
