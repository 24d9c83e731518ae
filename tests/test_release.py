"""A gradient unbinds an array once nothing after reads it (`s2sad.backend.release`):
``del`` at the statement where it is read last, so the peak memory of a call is what
it needs at once. The benchmark's NumPy gradients peak within 1.1 times the
hand-written ones (the logistic loss apart: its hand-written gradient is other
algebra) and below what they peak with no ``del``; the gradients are the same
numbers to the bit. Scalar code gets no ``del``; a name only some paths bind, a
parameter, an item of a tuple still bound, and a name a nested scope reads are
never unbound; what a callee saved for its backward function goes once that has
run; a function of more than 250 locals shares names (`reuse`) with its
``del``\\ s; numba's text leaves them out."""

import ast
import math
import re
import tracemalloc

import numpy as np
import pytest

import s2sad
from benchmarks import numpy_cases
from helpers import central_diff, close
from programs_large import straight_source, _function
from s2sad import ir
from s2sad.backend import emit, native_text, release, reuse
from s2sad.ir.kinds import ArrayKind

CASES = {case[0]: case for case in numpy_cases.CASES}
ALGEBRA = "logistic NLL, X 10000x100"  # (a sigmoid by hand: three arrays where five)


def _peak(fn, args) -> float:
    # (what tracemalloc counts is what the call allocates and holds: garbage from
    # before is not traced, so no collection is needed first, which in a long test
    # session takes a second)
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _fresh(f):
    """A new function object of `f`'s code, so that no compiled gradient is cached."""
    return type(f)(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)


@pytest.mark.parametrize("name", sorted(CASES))
def test_benchmark_gradients_peak_near_hand_written(name, monkeypatch):
    _, f, by_hand, args, wrt = CASES[name]
    grad = s2sad.grad(_fresh(f), wrt=wrt)
    got = grad(*args)
    with monkeypatch.context() as m:
        m.setattr(release, "released", lambda fn, kinds: fn)
        plain = s2sad.grad(_fresh(f), wrt=wrt)
        want = plain(*args)
        assert "del " not in s2sad.source(_fresh(f), wrt=wrt, example=args)
        plain_peak = min(_peak(plain, args) for _ in range(2))
    # (the logistic loss reads every array it keeps in its last line: nothing to free)
    assert ("del " in s2sad.source(_fresh(f), wrt=wrt, example=args)) != (name == ALGEBRA)
    for a, b in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,)):
        assert np.array_equal(a, b)
    peak = min(_peak(grad, args) for _ in range(2))
    hand = min(_peak(by_hand, args) for _ in range(2))
    if name != ALGEBRA:
        assert peak < 0.9 * plain_peak, (peak, plain_peak)
        assert peak <= 1.1 * hand, (peak, hand)


def mlp(W, b, X, Y):
    H = np.tanh(X @ W + b)
    d = H @ W - Y
    return np.mean(d * d)


def test_the_text_unbinds_each_array_after_its_last_read():
    args = (np.eye(3) * 0.5, np.ones(3), np.ones((4, 3)), np.zeros((4, 3)))
    text = s2sad.source(mlp, wrt=(0, 1), example=args)
    lines = [line.strip() for line in text.splitlines()]
    assert lines.index("del d") == lines.index("d_bar = t1_bar * (2.0 * (1 / X.size)) * d") + 1
    assert "del H, H_bar" in lines or "del H_bar, H" in lines
    # nothing after the last computing line: the return frees the rest
    assert lines[-2].startswith("W_a_bar") or not lines[-2].startswith("del ")
    got = s2sad.grad(mlp, wrt=(0, 1))(*args)
    for i, g in enumerate(got):
        assert close(g, central_diff(mlp, args, i))


def scalar(x, y):
    a = math.sin(x) * y
    b = a * a + math.exp(y)
    c = b * x - a
    return c * c + b


def test_scalar_code_has_no_del():
    assert "del " not in s2sad.source(scalar, wrt=(0, 1), example=(0.3, 0.7))


def eigh_like(B, C):
    w, V = np.linalg.eigh(B + B.T)
    F = (V * np.tanh(w)) @ V.T
    return np.sum(F * C)


def test_items_of_a_bound_tuple_are_not_unbound():
    """``w, V = t1``: unbinding ``w`` while ``t1`` is bound would free nothing."""
    rng = np.random.default_rng(3)
    args = (rng.normal(size=(4, 4)), rng.normal(size=(4, 4)))
    text = s2sad.source(eigh_like, example=args)
    dels = {n for line in text.splitlines() if line.strip().startswith("del ")
            for n in line.strip()[4:].split(", ")}
    assert "w" not in dels and "V" not in dels and "B" not in dels and "C" not in dels
    assert "t1" in dels
    assert close(s2sad.grad(eigh_like)(*args), central_diff(eigh_like, args, 0))


def _parsed(text):
    return ast.parse(text, mode="eval").body


def _branchy_function():
    """``t`` bound on one branch and read last on another's; ``u`` bound on both."""
    assign = lambda target, value: ir.Assign((target,), _parsed(value))  # noqa: E731
    body = [
        ir.If(_parsed("flag"), [assign("t", "np.exp(x)")], []),
        ir.If(_parsed("flag"), [assign("u", "t * x")], [assign("u", "x * 1.0")]),
        assign("v", "u * x"),
        assign("w", "v * 2.0"),
        ir.Return(_parsed("w")),
    ]
    return ir.Function("f", [ir.Param("x"), ir.Param("flag")], body)


def test_a_name_only_some_paths_bind_is_not_unbound():
    fn = _branchy_function()
    kinds = {n: ArrayKind(1) for n in "tuvwx"}
    text = emit.emit_function(release.released(fn, kinds)).text
    assert "del u\n" in text and "del t" not in text and "del x" not in text
    assert text.index("del u") > text.index("v = u * x")
    namespace = {"np": np}
    exec(compile(text, "<released>", "exec"), namespace)
    x = np.array([0.5, 1.5])
    assert np.array_equal(namespace["f"](x, False), x * 1.0 * x * 2.0)
    assert np.array_equal(namespace["f"](x, True), np.exp(x) * x * x * 2.0)
    # numbers are never unbound, and no kinds (second derivatives) means no del
    assert release.released(fn, {n: None for n in "tuvwx"}) is fn
    assert release.released(fn, {}) is fn


def kept_generator(x):
    y = np.exp(x)
    assert all(v > 0 for v in y)
    z = np.sum(y * x)
    return z * z


def test_a_name_a_nested_scope_reads_is_not_unbound():
    args = (np.array([0.1, 0.2, 0.3]),)
    text = s2sad.source(kept_generator, example=args)
    assert not any(line.strip().startswith("del ") and "y" in line.strip()[4:].split(", ")
                   for line in text.splitlines())
    assert close(s2sad.grad(kept_generator)(*args), central_diff(kept_generator, args, 0))


def test_a_large_function_shares_names_with_its_dels(monkeypatch):
    """Over 250 locals, `reuse` gives dead names to later values: a ``del`` counts as a
    read, so no name is given away before its ``del``, and the gradient is the one
    printed without sharing, to the bit."""
    source = re.sub(r"if (\w+) > 0:", r"if np.sum(\1) > 0:",
                    straight_source(200).replace("math.", "np."))
    source = source.replace("    return ", "    return np.sum(").rstrip() + ")\n"

    def gradient(limit):
        f = _function(source, "release-large")
        f.__globals__["np"] = np
        with monkeypatch.context() as m:
            m.setattr(reuse, "LIMIT", limit)
            text = s2sad.source(f, wrt=(0, 1), example=ARGS)
            return s2sad.grad(f, wrt=(0, 1))(*ARGS), text

    shared, text = gradient(reuse.LIMIT)
    plain, plain_text = gradient(10**9)
    assert "del r" in text and " r1 = " in text and " r1 = " not in plain_text
    for a, b in zip(shared, plain):
        assert np.array_equal(a, b)
    f = _function(source, "release-large")
    f.__globals__["np"] = np
    assert close(shared[0], central_diff(f, ARGS, 0), rtol=1e-5, atol=1e-6)


ARGS = tuple(np.linspace(-0.5, 0.5, 3) + k / 10 for k in range(4))


def test_numba_text_leaves_the_dels_out():
    text = "def f_grad(x):\n    y = x * 2.0\n    z = y + 1.0\n    del y\n    w = z * z\n" \
           "    return w\n"
    assert "del" not in native_text.rewritten(text)


def layer(x, W):
    return np.tanh(x @ W)


def three_layers(W1, W2, W3, X):
    return np.sum(layer(layer(layer(X, W1), W2), W3))


def test_a_callees_saved_arrays_go_once_its_backward_has_run(monkeypatch):
    """``t1, t1_saved = layer_fwd(X, W1)`` holds the layer's arrays for its backward
    function: unbound once that has run, as the layer's own arrays are."""
    rng = np.random.default_rng(5)
    args = tuple(rng.normal(size=(64, 64)) * 0.2 for _ in range(3)) \
        + (rng.normal(size=(256, 64)),)
    text = s2sad.source(three_layers, wrt=(0, 1, 2), example=args)
    calls = re.findall(r"(\w+_saved) = layer_fwd", text)
    dels = {n for line in text.splitlines() if line.strip().startswith("del ")
            for n in line.strip()[4:].split(", ")}
    assert len(calls) == 3
    assert set(calls[1:]) <= dels  # (the first is read last, just before the return)
    got = s2sad.grad(_fresh(three_layers), wrt=(0, 1, 2))
    peak = min(_peak(got, args) for _ in range(2))
    with monkeypatch.context() as m:
        m.setattr(release, "released", lambda fn, kinds: fn)
        plain = s2sad.grad(_fresh(three_layers), wrt=(0, 1, 2))
        plain_peak = min(_peak(plain, args) for _ in range(2))
        want = plain(*args)
    assert peak < plain_peak - 100_000, (peak, plain_peak)  # (a layer's arrays: 128 KiB)
    for a, b in zip(got(*args), want):
        assert np.array_equal(a, b)
    # (central differences along random directions of the three matrices: 12,288
    # numbers, each one's difference would be 25,000 calls of the function)
    grads = got(*args)
    for k in range(3):
        d = [np.random.default_rng(k).normal(size=a.shape) for a in args[:3]]
        h = 1e-6
        up = three_layers(*(a + h * e for a, e in zip(args, d)), args[3])
        down = three_layers(*(a - h * e for a, e in zip(args, d)), args[3])
        along = sum(float(np.sum(g * e)) for g, e in zip(grads, d))
        assert close(along, (up - down) / (2 * h), rtol=1e-5, atol=1e-6)
