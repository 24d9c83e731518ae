"""No stale or wrong derivative from s2sad's caches: redefinitions, rebound globals,
another `wrt`, a transform that fails and is then fixed, threads, the disk cache."""

import threading

import numpy as np

import pytest

import s2sad
from fuzz_programs import write
from s2sad.backend import diskcache


def module(text, name="m"):
    """Define the module `text` from a real file (its source can be read)."""
    path = write(text, "cache")
    ns = {"__name__": f"cache_{name}"}
    exec(compile(text, path, "exec"), ns)
    return ns


def redefine(ns, text):
    """Run `text` (from a file of its own) in the namespace `ns`."""
    exec(compile(text, write(text, "cache"), "exec"), ns)


@pytest.fixture(params=["memory", "disk"])
def cache(request, tmp_path, monkeypatch):
    """Run each test without and with the disk cache; the setting is put back after."""
    monkeypatch.setattr(diskcache, "_setting", diskcache._setting)
    if request.param == "disk":
        s2sad.enable_disk_cache(tmp_path / "cache")
    else:
        s2sad.disable_disk_cache()
    return request.param


def test_redefining_a_function(cache):
    ns = module("def f(x):\n    return x * x\n")
    assert s2sad.grad(ns["f"])(3.0) == 6.0
    ns = module("def f(x):\n    return x * x * x\n")  # same name, same file name pattern
    assert s2sad.grad(ns["f"])(3.0) == 27.0
    # and exec into the same namespace: the name now means the new function
    redefine(ns, "def f(x):\n    return 5.0 * x\n")
    assert s2sad.grad(ns["f"])(3.0) == 5.0


def test_rebinding_a_called_function(cache):
    ns = module("def g(t):\n    return t * t\n\n\ndef f(x):\n    return g(x) + x\n")
    df = s2sad.grad(ns["f"])
    assert df(3.0) == 7.0
    redefine(ns, "def g(t):\n    return 10.0 * t\n")
    assert ns["f"](3.0) == 33.0
    assert df(3.0) == 11.0  # the same grad object sees the new helper
    assert s2sad.grad(ns["f"])(3.0) == 11.0
    assert s2sad.jvp(ns["f"], (3.0,), (1.0,))[1] == 11.0


def test_changing_a_global_constant(cache):
    ns = module("C = 2.0\n\n\ndef f(x):\n    return C * x * x\n")
    df = s2sad.grad(ns["f"])
    assert df(3.0) == 12.0
    ns["C"] = 5.0  # globals are read live
    assert df(3.0) == 30.0
    assert s2sad.grad(ns["f"])(3.0) == 30.0
    assert s2sad.jvp(ns["f"], (3.0,), (1.0,))[1] == 30.0


def test_a_global_whose_rank_or_dtype_changes_builds_again(cache):
    # (the derivative built for a float `C` takes no sum in the adjoint of `x`: the
    # same one for a matrix `C` returned a (1, 2) gradient for a (2,) `x`)
    np = pytest.importorskip("numpy")
    ns = module("import numpy as np\n\nC = 2.0\n\n\ndef f(x):\n    return np.sum(C * x)\n")
    x = np.array([1.0, 2.0])
    df = s2sad.grad(ns["f"])
    assert df(x).tolist() == [2.0, 2.0]
    ns["C"] = np.array([1.0, 3.0])
    assert ns["f"](x) == 7.0 and df(x).tolist() == [1.0, 3.0]
    ns["C"] = np.array([[1.0, 3.0], [2.0, 2.0]])
    assert df(x).tolist() == [3.0, 5.0]
    ns["C"] = np.array([[1.0, 3.0]], dtype=np.float32)
    assert df(x).tolist() == [1.0, 3.0]
    ns["C"] = 4.0  # (a float again: the first derivative's kind)
    assert df(x).tolist() == [4.0, 4.0]
    assert s2sad.grad(ns["f"])(x).tolist() == [4.0, 4.0]


def test_attributes_and_closure_variables_that_change_kind(cache):
    np = pytest.importorskip("numpy")
    ns = module("import types\n\nimport numpy as np\n\n\nclass C:\n    pass\n\n\n"
                "cfg = types.SimpleNamespace(k=2.0)\nobj = C()\nobj.k = 2.0\n"
                "T = (1.0, 2.0)\n\n\ndef f(x):\n"
                "    return np.sum(cfg.k * x) + np.sum(obj.k * x) + np.sum(T[1] * x)\n\n\n"
                "def make(c):\n    def g(x):\n        return np.sum(c * x)\n\n"
                "    def rebind(v):\n        nonlocal c\n        c = v\n\n"
                "    return g, rebind\n")
    x = np.array([1.0, 2.0])
    df = s2sad.grad(ns["f"])
    assert df(x).tolist() == [6.0, 6.0]
    row = np.array([[1.0, 3.0]])
    ns["cfg"].k = row
    assert df(x).tolist() == [5.0, 7.0]
    ns["cfg"].k, ns["obj"].k = 2.0, row
    assert df(x).tolist() == [5.0, 7.0]
    ns["obj"].k, ns["T"] = 2.0, (1.0, np.array([[1.0], [1.0]]))
    assert df(x).tolist() == [6.0, 6.0]
    g, rebind = ns["make"](2.0)
    dg = s2sad.grad(g)
    assert dg(x).tolist() == [2.0, 2.0]
    rebind(row)
    assert dg(x).tolist() == [1.0, 3.0]


def test_a_list_changed_in_place_to_hold_another_kind_builds_again(cache):
    # (a list is the same object after ``C[0] = row``: the derivative built for its
    # floats took no sum in the adjoint of `x`, and returned a (2, 2) gradient)
    np = pytest.importorskip("numpy")
    ns = module("import types\n\nimport numpy as np\n\nC = [2.0, 3.0]\n"
                "cfg = types.SimpleNamespace(k=[2.0, 3.0])\n\n\n"
                "def f(x):\n    return np.sum(C[0] * x) + np.sum(C[1] * x * x)\n\n\n"
                "def g(x):\n    return np.sum(cfg.k[0] * x)\n")
    x = np.array([1.0, 2.0])
    for mode in ("reverse", "forward"):
        ns["C"][:] = [2.0, 3.0]
        df = s2sad.grad(ns["f"], mode=mode)
        assert df(x).tolist() == [8.0, 14.0]
        ns["C"][0] = np.ones((3, 2))
        assert df(x).tolist() == [9.0, 15.0]
        assert s2sad.grad(ns["f"], mode=mode)(x).tolist() == [9.0, 15.0]
        ns["C"][0] = 1  # (an int among the floats)
        assert df(x).tolist() == [7.0, 13.0]
    ns["cfg"].k[0] = 2.0
    dg = s2sad.grad(ns["g"])
    assert dg(x).tolist() == [2.0, 2.0]
    ns["cfg"].k[0] = np.ones((3, 2))
    assert dg(x).tolist() == [3.0, 3.0]
    assert s2sad.grad(ns["g"])(x).tolist() == [3.0, 3.0]


def test_a_term_switched_off_with_none(cache):
    # (``if off is not None:`` of a None argument, global or attribute decides the
    # branch where the derivative is built; `off * x` there was refused)
    np = pytest.importorskip("numpy")
    ns = module("import types\n\nimport numpy as np\n\nOFF = None\n"
                "cfg = types.SimpleNamespace(decay=None)\n\n\n"
                "def f(x, off=None):\n    y = np.sum(x ** 2)\n"
                "    if off is not None:\n        y = y + np.sum(off * x)\n"
                "    if OFF is not None:\n        y = y + np.sum(OFF * x)\n"
                "    if cfg.decay is not None:\n        y = y + cfg.decay * np.sum(x * x)\n"
                "    return y\n")
    x = np.array([0.5, -1.0, 2.0])
    for mode in ("reverse", "forward"):
        df = s2sad.grad(ns["f"], mode=mode)
        assert df(x).tolist() == (2 * x).tolist()
        assert df(x, np.ones(3)).tolist() == (2 * x + 1).tolist()
        ns["OFF"] = np.array([1.0, 2.0, 3.0])  # (a None become an array: built again)
        assert df(x).tolist() == (2 * x + ns["OFF"]).tolist()
        ns["OFF"], ns["cfg"].decay = None, 0.5
        assert df(x).tolist() == (3 * x).tolist()
        ns["cfg"].decay = None


def test_another_wrt(cache):
    ns = module("def f(x, y):\n    return x * x * y\n")
    f = ns["f"]
    assert s2sad.grad(f, wrt=0)(2.0, 3.0) == 12.0
    assert s2sad.grad(f, wrt=1)(2.0, 3.0) == 4.0
    assert s2sad.grad(f, wrt="y")(2.0, 3.0) == 4.0
    assert s2sad.grad(f, wrt=(1, 0))(2.0, 3.0) == (4.0, 12.0)
    assert s2sad.value_and_grad(f, wrt=1)(2.0, 3.0) == (12.0, 4.0)
    assert s2sad.grad(f, wrt=0)(2.0, 3.0) == 12.0


def test_a_failed_transform_then_a_fix(cache):
    ns = module("def g(t):\n    global CALLS\n    CALLS = 1\n    return 3.0 * t\n\n\n"
                "def f(x):\n    return g(x) + x\n")
    df = s2sad.grad(ns["f"])
    with pytest.raises(s2sad.UnsupportedSyntaxError):
        df(2.0)
    with pytest.raises(s2sad.UnsupportedSyntaxError):  # nothing half-built was kept
        df(2.0)
    with pytest.raises(s2sad.UnsupportedSyntaxError):
        s2sad.jvp(ns["f"], (2.0,), (1.0,))
    fixed = "def g(t):\n    s = 0.0\n    for k in range(3):\n        s = s + t * k\n    return s\n"
    redefine(ns, fixed)
    assert df(2.0) == 4.0
    assert s2sad.grad(ns["f"])(2.0) == 4.0
    assert s2sad.jvp(ns["f"], (2.0,), (1.0,))[1] == 4.0


def test_two_threads_ask_for_the_same_gradient(cache):
    ns = module("import math\n\n\ndef f(x):\n    return math.sin(x) * x\n")
    df = s2sad.grad(ns["f"])
    barrier = threading.Barrier(8)
    results, errors = [], []

    def work(x):
        try:
            barrier.wait()
            results.append((x, df(x)))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(0.1 * i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    import math
    for x, g in results:
        assert g == pytest.approx(math.cos(x) * x + math.sin(x), rel=1e-12)


def test_many_threads_on_different_functions(cache):
    fns = [module(f"def f(x):\n    return {k}.0 * x * x + x\n", f"t{k}")["f"] for k in range(12)]
    barrier = threading.Barrier(len(fns))
    results, errors = {}, []

    def work(k, f):
        try:
            barrier.wait()
            results[k] = (s2sad.grad(f)(2.0), s2sad.jvp(f, (2.0,), (1.0,))[1])
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k, f)) for k, f in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(len(fns)):
        assert results[k] == (4.0 * k + 1.0, 4.0 * k + 1.0)


def test_the_disk_cache_across_redefinitions(tmp_path, monkeypatch):
    monkeypatch.setattr(diskcache, "_setting", diskcache._setting)
    s2sad.enable_disk_cache(tmp_path / "d")
    text = "def f(x):\n    return x * x\n"
    first = module(text)["f"]
    assert s2sad.grad(first)(3.0) == 6.0
    second = module(text)["f"]  # the same text in another file: may hit the disk
    assert s2sad.grad(second)(3.0) == 6.0
    changed = module("def f(x):\n    return x * x * x\n")["f"]
    assert s2sad.grad(changed)(3.0) == 27.0


def test_one_dispatcher_for_lists_of_vectors_then_of_matrices(cache):
    """A list's type says nothing of its elements: the derivative for a list of
    vectors (``u @ v`` a dot product) is not the one for a list of matrices."""
    import numpy as np

    ns = module("import numpy as np\n\n\ndef f(xs):\n    return np.sum(xs[0] @ xs[1])\n",
                "lists")
    g = s2sad.grad(ns["f"])
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    for _ in range(2):  # (the second call after the first specialisation is made)
        got = g([a, b])
        assert [v.tolist() for v in got] == [[3.0, 4.0], [1.0, 2.0]]
    A, B = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 0.5], [0.0, 2.0]])
    ones = np.ones((2, 2))
    for _ in range(2):
        got = g([A, B])
        assert np.array_equal(got[0], ones @ B.T) and np.array_equal(got[1], A.T @ ones)
    with pytest.raises(s2sad.NoRuleError):  # (numbers: no rule for `@` of two floats)
        g([1.0, 2.0])
    assert g([a, b])[0].tolist() == [3.0, 4.0]
    # a tuple argument held fixed, of numbers then of arrays
    ns = module("def h(x, t):\n    return x * t[0] * t[1]\n", "tuples")
    gh = s2sad.grad(ns["h"])
    assert gh(2.0, (3.0, 4.0)) == 12.0
    assert gh(2.0, (np.float64(3.0), 4.0)) == 12.0


def test_a_list_of_floats_takes_the_fast_path_and_nothing_else_does(cache):
    """The dispatcher's fast path recognises a list of floats by the set of its
    elements' types (a C loop), so a gradient of a list costs what it did before
    lists' kinds were keyed; any other list goes to the slow path and gets its own
    derivative."""
    import numpy as np

    ns = module("import numpy as np\n\n\ndef f(xs):\n    return np.sum(xs[0] * xs[1] + xs[2])\n",
                "fastlists")
    g = s2sad.grad(ns["f"])
    assert g([2.0, 3.0, 4.0]) == [3.0, 2.0, 1.0]
    state = g.__s2sad__
    assert "set(map(type, xs)) == _E0" in state.source()
    calls = []
    miss = state.miss
    state.ns["_miss"] = lambda *a, **k: calls.append(1) or miss(*a, **k)
    state.build()
    assert g([1.0, 5.0, 4.0]) == [5.0, 1.0, 1.0] and calls == []
    got = g([np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array([0.0, 0.0])])
    assert calls == [1] and [v.tolist() for v in got] == [[3.0, 4.0], [1.0, 2.0], [1.0, 1.0]]
    assert g([np.float64(2.0), 3.0, 4.0]) == [3.0, 2.0, 1.0] and len(calls) == 2


_OBJECT_AND_PARTIAL = '''import functools

import numpy as np


class Square:
    def __init__(self, s):
        self.s = s

    def __call__(self, z):
        return self.s * z * z


class Cube:
    def __init__(self, s):
        self.s = s

    def __call__(self, z):
        return self.s * z * z * z


def base(z, a, b=1.0):
    return a * z * z + b * z


model = Square(2.0)
fitted = functools.partial(base, a=2.0)


def f(x):
    return model(x) + fitted(x)
'''


def test_rebinding_an_object_or_a_partial_the_function_calls(cache):
    """``model(x)`` is the class's ``__call__`` put in place and ``fitted(x)`` the
    partial's function with its bound keywords: the derivative's fast path checked
    neither, and after ``model = Cube(...)`` or a partial with other keywords the
    old derivative ran (a wrong gradient in reverse mode). Another instance of the
    same class is read as it is, without building the derivative again."""
    import functools

    ns = module(_OBJECT_AND_PARTIAL)
    df = s2sad.grad(ns["f"])
    assert df(3.0) == 2.0 * 6.0 + 2.0 * 6.0 + 1.0
    ns["model"] = ns["Square"](5.0)  # the same class: its attribute read live
    assert df(3.0) == 5.0 * 6.0 + 13.0
    ns["model"] = ns["Cube"](1.0)
    assert df(3.0) == 27.0 + 13.0
    ns["fitted"] = functools.partial(ns["base"], a=1.0, b=0.0)
    assert df(3.0) == 27.0 + 6.0
    assert s2sad.jvp(ns["f"], (3.0,), (1.0,))[1] == 33.0


def test_reassigning_a_function_held_in_an_attribute(cache):
    """``cfg.act(x)`` and ``lib.helper(x)`` resolved, when the derivative was built, to
    the functions the attributes held: after ``cfg.act = np.sin`` (or a helper of the
    user's module replaced) the derivative built for the old function ran, the forward
    sweep calling the new one (a wrong gradient in both modes)."""
    import types

    np = pytest.importorskip("numpy")
    ns = module("import numpy as np\n\n\nclass Cfg:\n    pass\n\n\ncfg = Cfg()\n"
                "cfg.act = np.tanh\n\n\ndef f(x):\n    return np.sum(cfg.act(x)) + lib.h(x)\n")
    helpers = module("def square(t):\n    return t * t\n\n\ndef triple(t):\n    return 3.0 * t\n",
                     "helpers")
    lib = types.ModuleType("cache_lib")
    lib.h = helpers["square"]
    ns["lib"] = lib
    x = 0.5
    for mode in ("reverse", "forward"):
        ns["cfg"].act, lib.h = np.tanh, helpers["square"]
        df = s2sad.grad(ns["f"], mode=mode)
        assert df(x) == pytest.approx(1 - np.tanh(x) ** 2 + 2 * x)
        ns["cfg"].act = np.sin
        assert df(x) == pytest.approx(np.cos(x) + 2 * x)
        lib.h = helpers["triple"]
        assert df(x) == pytest.approx(np.cos(x) + 3.0)


DEFAULTS = '''
import numpy as np


def helper(x, a=2.0, *, s=1.0):
    return np.sum(a * x * x * s)


def f(x, b=1.0, *, c=1.0):
    return helper(x) * b * c


class Model:
    def step(self, x, a=2.0):
        return a * x * x

    def loss(self, x):
        return self.step(x)
'''


@pytest.mark.parametrize("mode", ["reverse", "forward", "tape"])
def test_defaults_assigned_after_grad(cache, mode):
    """A function's defaults, or a callee's, assigned after `grad` (a new tuple, a
    keyword-only default changed in place, another kind): every entry point uses
    the new ones, as the function itself does."""
    ns = module(DEFAULTS)
    f, helper = ns["f"], ns["helper"]
    entries = [s2sad.grad(f, mode=mode), lambda x: s2sad.grad(f, mode=mode)(x)]
    if mode == "reverse":
        entries += [lambda x: s2sad.value_and_grad(f)(x)[1],
                    lambda x: s2sad.vjp(f, x)[1](1.0)[0]]
    for g in entries:
        assert g(3.0) == pytest.approx(12.0)
    f.__defaults__ = (3.0,)  # the root's
    for g in entries:
        assert g(3.0) == pytest.approx(36.0)
    f.__kwdefaults__ = {"c": 0.5}
    for g in entries:
        assert g(3.0) == pytest.approx(18.0)
    helper.__defaults__ = (5.0,)  # a callee's: its derivative holds them
    for g in entries:
        assert g(3.0) == pytest.approx(45.0)
    helper.__kwdefaults__["s"] = 2.0  # changed in place
    for g in entries:
        assert g(3.0) == pytest.approx(90.0)
    helper.__defaults__ = (np.ones((4, 1)),)  # another kind: sums over broadcasting
    assert f(np.ones(2)) == pytest.approx(24.0)
    for g in entries[:2]:
        assert np.allclose(g(np.ones(2)), [24.0, 24.0])
    model = ns["Model"]()
    g = s2sad.grad(ns["Model"].loss, wrt=1, mode=mode)
    assert g(model, 3.0) == pytest.approx(12.0)
    ns["Model"].step.__defaults__ = (5.0,)
    assert g(model, 3.0) == pytest.approx(30.0)


def test_a_default_taken_away_after_grad(cache):
    ns = module("def f(x, a=2.0):\n    return a * x\n")
    g = s2sad.grad(ns["f"])
    assert g(1.0) == 2.0
    ns["f"].__defaults__ = None
    with pytest.raises(TypeError, match=r"missing 1 required positional argument: 'a'"):
        g(1.0)
    assert g(1.0, 4.0) == 4.0


def _reload_into(ns, path, text, names):
    """What IPython's ``autoreload`` does when the file at `path` becomes `text`: the
    new code objects put into the old function objects of `ns` that `names` name."""
    import linecache

    with open(path, "w") as file:
        file.write(text)
    linecache.checkcache(path)
    fresh = {"__name__": ns["__name__"]}
    exec(compile(text, path, "exec"), fresh)
    for name in names:
        ns[name].__code__ = fresh[name].__code__


def test_new_code_put_into_the_same_function_objects(cache):
    """What IPython's ``autoreload`` does when a module's file changes: the new code
    objects put into the old function objects (``f.__code__ = ...``). A gradient made
    before, and a new one, differentiate the new code, of the root and of a callee."""
    old = "def g(t):\n    return t * t\n\n\ndef f(x):\n    return g(x) + x\n"
    path = write(old, "cache")
    ns = {"__name__": "cache_reloaded"}
    exec(compile(old, path, "exec"), ns)
    df, jf = s2sad.grad(ns["f"]), s2sad.grad(ns["f"], mode="forward")
    assert df(3.0) == 7.0 and jf(3.0) == 7.0

    def reload(text):
        _reload_into(ns, path, text, ("f", "g"))

    reload("def g(t):\n    return t * t * t\n\n\ndef f(x):\n    return g(x) + x\n")
    assert ns["f"](3.0) == 30.0
    for g in (df, jf, s2sad.grad(ns["f"]), lambda x: s2sad.jvp(ns["f"], (x,), (1.0,))[1]):
        assert g(3.0) == 28.0  # (the callee's new code)
    reload("def g(t):\n    return t * t\n\n\ndef f(x):\n    return 2.0 * g(x) + x\n")
    for g in (df, jf, s2sad.grad(ns["f"]), s2sad.grad(ns["f"], mode="tape")):
        assert g(3.0) == 13.0  # (the root's)


def test_a_helper_put_in_place_with_a_function_it_takes_by_default(cache):
    """``ha(x)`` of ``def ha(x, act=np.tanh)`` is put in place of the call, with
    ``np.tanh(x)`` written there: no line of the derivative reads `ha`. Redefining
    it, or giving it another default, must not leave the old function's derivative."""
    ns = module("import numpy as np\n\n\ndef ha(x, act=np.tanh):\n    return act(x)\n\n\n"
                "def f(x):\n    return ha(x)\n")
    g = s2sad.grad(ns["f"])
    assert g(0.8) == pytest.approx(1 - np.tanh(0.8) ** 2)
    redefine(ns, "def ha(x, act=np.sin):\n    return act(x)\n")
    for grad in (g, s2sad.grad(ns["f"])):
        assert grad(0.8) == pytest.approx(np.cos(0.8))
    ns["ha"].__defaults__ = (np.tanh,)  # (not what its `def` says: read by a name of
    assert g(0.8) == pytest.approx(1 - np.tanh(0.8) ** 2)  # its own, not stale)
    ns["ha"].__defaults__ = (np.sin,)
    assert g(0.8) == pytest.approx(np.cos(0.8))


def test_new_code_put_into_a_function_of_containers(cache):
    """``f.__code__ = ...`` (autoreload) on a function taking a dict or a function:
    its flattened form was kept per function object, so the gradient made before,
    and a new one, differentiated the old code."""
    old = ("import numpy as np\n\n\ndef loss(p, x):\n    return np.sum(p['w'] * x) ** 2\n\n\n"
           "def layer(x, w, act):\n    return act(w * x)\n\n\ndef square(v):\n    return v * v\n")
    path = write(old, "cache")
    ns = {"__name__": "cache_reloaded_containers"}
    exec(compile(old, path, "exec"), ns)
    p, x = {"w": np.array([1.0, 2.0])}, np.array([0.5, 1.0])
    dl, dlayer = s2sad.grad(ns["loss"]), s2sad.grad(ns["layer"])
    np.testing.assert_allclose(dl(p, x)["w"], [2.5, 5.0])
    assert dlayer(2.0, 0.5, ns["square"]) == 1.0
    new = old.replace("** 2", "** 3").replace("act(w * x)", "act(w * x) * 3.0")
    _reload_into(ns, path, new, ("loss", "layer"))
    for g in (dl, s2sad.grad(ns["loss"])):
        np.testing.assert_allclose(g(p, x)["w"], [9.375, 18.75])
    for g in (dlayer, s2sad.grad(ns["layer"])):
        assert g(2.0, 0.5, ns["square"]) == 3.0


def test_each_specialisation_keeps_its_own_guards(cache):
    """A gradient called with objects of two classes holds two derivatives; only the
    newest one's guards were checked, so the other, its class's method rebound,
    stayed the old derivative."""
    ns = module("import numpy as np\n\n\nclass A:\n    def predict(self, w):\n"
                "        return w * w\n\n\nclass B:\n    def predict(self, w):\n"
                "        return np.sin(w)\n\n\ndef loss(w, model):\n"
                "    return model.predict(w)\n")
    g = s2sad.grad(ns["loss"])
    assert g(2.0, ns["A"]()) == 4.0 and g(2.0, ns["B"]()) == pytest.approx(np.cos(2.0))
    redefine(ns, "def cube(self, w):\n    return w ** 3\n")
    ns["A"].predict = ns["cube"]  # (the class the first derivative was built for)
    assert g(2.0, ns["A"]()) == 12.0
    assert g(2.0, ns["B"]()) == pytest.approx(np.cos(2.0))


_RECORD = ("import collections\n\nP = collections.namedtuple('P', '{fields}')\n\n\n"
           "def f(x):\n    p = P(x, 2.0 * x)\n    return p.a * p.b ** 2\n")


def test_a_record_class_rebound_or_reordered(cache):
    """A namedtuple the function builds is read by its fields' order: rebinding the
    name to one of other fields (a notebook cell run again) was not guarded, and the
    disk cache took the class by its name only (12.0 where 6.0 is right)."""
    ns = module(_RECORD.format(fields="a b"), "record")
    g = s2sad.grad(ns["f"])
    assert g(1.0) == 12.0
    redefine(ns, "import collections\nP = collections.namedtuple('P', 'b a')\n")
    assert g(1.0) == 6.0 and s2sad.grad(ns["f"])(1.0) == 6.0
    other = module(_RECORD.format(fields="b a"), "record")  # (the same text of f)
    assert s2sad.grad(other["f"])(1.0) == 6.0


_PARTIAL = ("import functools\n\n\ndef loss(w, a):\n    return a * w * w\n\n\n"
            "def loss3(w, a):\n    return a * w * w * w\n\n\n"
            "fitted = functools.partial({bound})\n\n\n"
            "def f(x):\n    return fitted(x) + loss(x, 0.0) + loss3(x, 0.0)\n")


def test_a_global_partial_in_another_module_of_the_same_text(cache):
    """The disk cache took a global ``functools.partial`` by its type alone: another
    module's partial of another function (1.5 where 2.0 was given) or with its
    first argument bound by position (a KeyError) hit the first one's entry."""
    assert s2sad.grad(module(_PARTIAL.format(bound="loss, a=2.0"), "pa")["f"])(0.5) == 2.0
    assert s2sad.grad(module(_PARTIAL.format(bound="loss3, a=2.0"), "pa")["f"])(0.5) == 1.5
    assert s2sad.grad(module(_PARTIAL.format(bound="loss, 2.0"), "pa")["f"])(0.5) == 4.0
