"""Globals and closure variables whose value the structure of containers needs (a
loop's count, a key, a test), read where the derivative is built and guarded by
value: another value builds the derivative again, in memory and on disk."""

import logging
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s2sad
from helpers import assert_tree_close
from helpers import tree_numeric_grad as numeric_grad

rng = np.random.default_rng(11)
N_LAYERS = 2
USE_BIAS = True
KEYS = ("a", "b")
KEY = "a"
N_STEPS = 3


def mlp(p, x):
    h = x
    for i in range(N_LAYERS):
        h = np.tanh(p[f"W{i}"] @ h)
        if USE_BIAS:
            h = h + p[f"b{i}"]
    return np.sum(h ** 2)


def keyed(p, x):
    s = p[KEY] * x
    for k in KEYS:
        s = s + p[k] * x * x
    return s


def stepped(p, x):
    for _ in range(N_STEPS):  # (no container read by the count: a loop at run time)
        x = x * p["a"] + 0.1
    return x


def made(n):
    def loss(p, x):
        h = x
        for i in range(n):
            h = np.sin(p[f"W{i}"] * h)
        return np.sum(h)
    return loss


def _params():
    p = {f"W{i}": rng.normal(size=(3, 3)) for i in range(3)}
    p.update({f"b{i}": rng.normal(size=3) for i in range(3)})
    return p


@pytest.fixture
def module(monkeypatch):
    return lambda name, value: monkeypatch.setattr(sys.modules[__name__], name, value)


def test_a_global_count_and_test_in_every_entry_point(module):
    """``range(N_LAYERS)`` with ``p[f"W{i}"]`` in the body, and ``if USE_BIAS:``,
    are refused no more: unrolled for the value each holds, and built again when it
    changes, by each entry point (the same derivative objects throughout)."""
    p, x = _params(), rng.normal(size=3)
    grad, value_and_grad = s2sad.grad(mlp), s2sad.value_and_grad(mlp)
    jacobian = s2sad.jacobian(mlp)
    tangent = {k: np.ones_like(v) for k, v in p.items()}
    for n, bias in [(2, True), (3, True), (3, False), (1, True), (2, True)]:
        module("N_LAYERS", n)
        module("USE_BIAS", bias)
        want = numeric_grad(mlp, (p, x), 0)
        assert_tree_close(grad(p, x), want, rtol=1e-6, atol=1e-8)
        value, g = value_and_grad(p, x)
        assert value == pytest.approx(mlp(p, x), rel=1e-12)
        assert_tree_close(g, want, rtol=1e-6, atol=1e-8)
        assert_tree_close(jacobian(p, x), want, rtol=1e-6, atol=1e-8)
        out, pullback = s2sad.vjp(mlp, p, x)
        assert out == pytest.approx(mlp(p, x), rel=1e-12)
        assert_tree_close(pullback(1.0)[0], want, rtol=1e-6, atol=1e-8)
        y, y_dot = s2sad.jvp(mlp, (p, x), (tangent, np.zeros(3)))
        assert y == pytest.approx(mlp(p, x), rel=1e-12)
        assert y_dot == pytest.approx(sum(np.sum(w) for w in want.values()), rel=1e-6)


def test_the_hessian_follows_the_count(module):
    p = {f"W{i}": rng.normal(size=(2, 2)) * 0.5 for i in range(2)}
    p.update({f"b{i}": rng.normal(size=2) for i in range(2)})
    x = rng.normal(size=2)
    hessian = s2sad.hessian(mlp)
    for n in (1, 2):
        module("N_LAYERS", n)
        h = hessian(p, x)
        column = numeric_grad(lambda q, x: s2sad.grad(mlp)(q, x)["W0"][0, 1], (p, x), 0)
        assert_tree_close(h["W0"]["W0"][0, 1], column["W0"], rtol=1e-5, atol=1e-7)
        if n == 1:
            assert not np.any(h["W1"]["W1"])


def test_global_keys_a_string_and_a_tuple(module):
    grad = s2sad.grad(keyed, wrt=1)
    p = {"a": 1.0, "b": 2.0, "c": 3.0}
    for key, keys in [("a", ("a", "b")), ("c", ("a", "b")), ("a", ("b", "c", "c"))]:
        module("KEY", key)
        module("KEYS", keys)
        assert grad(p, 2.0) == pytest.approx(p[key] + sum(4.0 * p[k] for k in keys))


def test_built_once_per_value(module, caplog):
    p, x = _params(), rng.normal(size=3)
    grad = s2sad.grad(mlp)
    module("N_LAYERS", 2)
    with caplog.at_level(logging.INFO, logger="s2sad"):
        for n in (2, 2, 3, 3, 3, 2):
            module("N_LAYERS", n)
            grad(p, x)
    built = [r for r in caplog.records if r.getMessage().startswith("built grad of mlp")]
    # (once per change of the value, none for a call with the value it was built for)
    assert len(built) == 3


def test_a_count_no_key_needs_is_not_guarded(module, caplog):
    """A global count of a loop that reads no container by its variable stays a
    loop, run with the value the global holds at the call, and changing it builds
    nothing again."""
    grad = s2sad.grad(stepped, wrt=0)
    assert "range(N_STEPS)" in s2sad.source(stepped, example=({"a": 0.9}, 1.0))
    with caplog.at_level(logging.INFO, logger="s2sad"):
        for n in (1, 2, 5):
            module("N_STEPS", n)
            got = grad({"a": 0.9}, 1.5)
            assert got["a"] == pytest.approx(
                numeric_grad(stepped, ({"a": 0.9}, 1.5), 0)["a"], rel=1e-6)
    assert len([r for r in caplog.records if "built grad of stepped" in r.getMessage()]) == 1


def test_closure_counts():
    """Two closures of one code with counts 1 and 2 in their cells."""
    p, x = {f"W{i}": rng.normal(size=3) for i in range(2)}, rng.normal(size=3)
    for n in (1, 2, 1):
        loss = made(n)
        assert_tree_close(s2sad.grad(loss)(p, x), numeric_grad(loss, (p, x), 0),
                          rtol=1e-6, atol=1e-8)


_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import s2sad
    sys.path.insert(0, sys.argv[1])
    import counted
    s2sad.enable_disk_cache(sys.argv[2])
    counted.N = int(sys.argv[3])
    p = {"W0": 0.5, "W1": 0.7, "W2": 0.9}
    g = s2sad.grad(counted.f)(p, 1.3)
    print(" ".join(repr(g[k]) for k in sorted(g)))
""")


_SUMMED = textwrap.dedent("""
    import sys
    import s2sad
    sys.path.insert(0, sys.argv[1])
    import summed
    s2sad.enable_disk_cache(sys.argv[2])
    summed.KEYS = tuple(sys.argv[3].split(","))
    print(" ".join(map(repr, s2sad.grad(summed.f, wrt=(0, 1))(0.7, 1.3))))
""")


def test_a_function_of_floats_reading_its_dict_by_global_keys(tmp_path):
    """A function of floats that builds a dict is rewritten itself (no flat function
    of its own, so its disk key is its text): the keys a global gives are checked by
    value in memory and on disk, where the kind of `KEYS` (a tuple of two strings)
    alone took ("b", "c")'s call for ("a", "b")'s gradient in another process."""
    (tmp_path / "summed.py").write_text(textwrap.dedent("""
        KEYS = ("a", "b")
        def f(x, y):
            d = {"a": x, "b": y * y, "c": x * y}
            s = 0.0
            for k in KEYS:
                s = s + d[k]
            return s
    """))
    (tmp_path / "run.py").write_text(_SUMMED)
    want = {"a,b": (1.0, 2.6), "b,c": (1.3, 3.3), "c": (1.3, 0.7), "a": (1.0, 0.0)}
    sys.path.insert(0, str(tmp_path))
    try:
        import summed
    finally:
        sys.path.remove(str(tmp_path))
    grad = s2sad.grad(summed.f, wrt=(0, 1))
    for keys in ("a,b", "b,c", "a", "a,b"):
        summed.KEYS = tuple(keys.split(","))
        assert grad(0.7, 1.3) == pytest.approx(want[keys])
    for keys in ("a,b", "b,c", "a,b", "c"):
        out = subprocess.run([sys.executable, str(tmp_path / "run.py"), str(tmp_path),
                              str(tmp_path / "cache"), keys], capture_output=True,
                             text=True, check=True).stdout.split()
        assert tuple(map(float, out)) == pytest.approx(want[keys]), keys
    sys.modules.pop("summed", None)


def test_the_disk_cache_keeps_one_entry_per_value(tmp_path):
    (tmp_path / "counted.py").write_text(textwrap.dedent("""
        import math
        N = 2
        def f(p, x):
            for i in range(N):
                x = math.sin(p[f"W{i}"] * x)
            return x
    """))
    (tmp_path / "run.py").write_text(_SCRIPT)
    sys.path.insert(0, str(tmp_path))
    try:
        import counted
    finally:
        sys.path.remove(str(tmp_path))
    p = {"W0": 0.5, "W1": 0.7, "W2": 0.9}
    for n in (2, 3, 2, 1, 3):
        counted.N = n
        want = numeric_grad(counted.f, (p, 1.3), 0)
        out = subprocess.run([sys.executable, str(tmp_path / "run.py"), str(tmp_path),
                              str(tmp_path / "cache"), str(n)], capture_output=True,
                             text=True, check=True).stdout.split()
        got = dict(zip(sorted(p), map(float, out)))
        assert got == pytest.approx(want, rel=1e-6, abs=1e-9), n
    sys.modules.pop("counted", None)
