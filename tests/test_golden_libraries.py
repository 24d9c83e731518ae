"""The golden programs and the NumPy benchmark cases on other libraries' arrays.

Every golden program whose example arguments hold NumPy arrays (golden/inputs/*.py)
and every case of benchmarks/numpy_cases.py (at small sizes) is differentiated with its
arrays converted to Dask arrays, JAX arrays (CPU, float32) and array-api-strict
arrays. `grad`, `value_and_grad` and `jvp` each give arrays of that library (a Dask
one still lazy: nothing is computed while the derivative runs, and computing the
value and the gradient together computes the graph once) whose numbers are those
of the same call on the NumPy arrays, to the library's rounding; for JAX, `jax.jit`
of the gradient too.

What a library cannot run is listed by name (`REFUSED`): an `S2SADError` at the
user's line, or, where the user's own code is not that library's (`len(x)` or
`x.mean()` of an array-api-strict array, which the standard does not have), the
library's own error at that line, where the function itself fails too (an array's
methods, `x.mean()` and `u0.copy()`, run as NumPy's functions of the library in the
derivative, `driver.libraries.as_functions`). A new refusal,
or a program that starts to work, fails here until the list says so.
docs/guide/arrays.md says which program runs where. Each library's rows are skipped
where it is not installed (JAX: CI installs it for its own step of .ci/run, which runs
this file)."""

import contextlib
import importlib
import inspect
import os

import numpy as np
import pytest

import s2sad
from benchmarks import numpy_cases
from s2sad.errors import S2SADError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ------------------------------------------------------------------ programs

def golden_programs() -> dict:
    """{"topic.name": (function, arguments, wrt)} for the golden cases with arrays."""
    out = {}
    folder = os.path.join(ROOT, "golden", "inputs")
    for topic in sorted(f[:-3] for f in os.listdir(folder)
                        if f.endswith(".py") and f != "__init__.py"):
        module = importlib.import_module(f"golden.inputs.{topic}")
        for name, args, wrt in module.CASES:
            if any(isinstance(a, np.ndarray) for a in args):
                out[f"{topic}.{name}"] = (getattr(module, name), tuple(args), wrt)
    return out


# the benchmark cases' arguments at small sizes (their builders take the sizes)
SMALL = {
    "mlp": lambda: numpy_cases._mlp_args(n=4, width=5),
    "logistic_nll": lambda: numpy_cases._logistic_args(n=8, d=3),
    "softmax_xent": lambda: numpy_cases._softmax_args(n=6, d=4, k=3),
    "layer_norm": lambda: numpy_cases._layer_norm_args(n=4, d=5),
    "attention": lambda: numpy_cases._attention_args(n=4, d=3),
    "cumsum_loss": lambda: numpy_cases._cumsum_args(n=6, d=3, t=4),
    "eigh_loss": lambda: numpy_cases._eigh_args(n=4),
}


def benchmark_programs() -> dict:
    return {f"benchmark.{f.__name__}": (f, SMALL[f.__name__](), wrt)
            for _, f, _, _, wrt in numpy_cases.CASES if f.__name__ in SMALL}


PROGRAMS = {**golden_programs(), **benchmark_programs()}


def test_every_benchmark_case_has_small_arguments():
    assert sorted(SMALL) == sorted(f.__name__ for _, f, _, _, _ in numpy_cases.CASES)


def test_the_golden_programs_with_arrays_are_all_here():
    # (a new one joins by itself; this pins that the discovery finds the known ones)
    assert {"functions.closure", "functions.squares", "numpy_programs.heat",
            "numpy_programs.logistic_loss", "numpy_programs.mlp_layer",
            "numpy_programs.normalise", "numpy_programs.running_max_pool",
            "numpy_programs.softmax_xent"} <= set(PROGRAMS)


# What each library refuses: (what the error says, the user's line it names). An
# exception class in place of the text is the library's own error, raised by the
# user's line (the function itself raises it on those arrays).
UNCHANGEABLE = "JAX arrays cannot be changed"
NO_LEN = (TypeError, "has no len()")
REFUSED = {
    "dask": {
        "benchmark.eigh_loss": ("np.linalg.eigh, which Dask has no counterpart of",
                                "w, V = np.linalg.eigh(B + B.T)"),
    },
    "jax": {
        "functions.squares": (UNCHANGEABLE, "return sum(sq(x[i]) for i in range(len(x)))"),
        "numpy_programs.heat": (UNCHANGEABLE,
                                "un[i] = u[i] + c * (u[i + 1] - 2.0 * u[i] + u[i - 1])"),
        "numpy_programs.running_max_pool": (UNCHANGEABLE, "out[i] = max(x[i], x[i + 1])"),
    },
    "array-api-strict": {
        "functions.squares": (NO_LEN, "return sum(sq(x[i]) for i in range(len(x)))"),
        "numpy_programs.logistic_loss": (
            NO_LEN, "return np.sum(np.log1p(np.exp(-y * z))) / len(y)"),
        "numpy_programs.heat": (NO_LEN, "for i in range(1, len(u) - 1):"),
        "numpy_programs.running_max_pool": (NO_LEN, "out = np.zeros(len(x) - 1)"),
        "benchmark.logistic_nll": (
            "arithmetic on a comparison's booleans",
            "return np.sum(np.maximum(t, 0.0) + np.log1p(np.exp(-np.abs(t))))"),
        "benchmark.attention": (
            "np.einsum, which array-api-strict has no counterpart of",
            'S = np.einsum("id,jd->ij", Q, K) * (1.0 / np.sqrt(X.shape[1]))'),
    },
    "torch": {
        "benchmark.attention": (
            "np.einsum, which PyTorch has no counterpart of",
            'S = np.einsum("id,jd->ij", Q, K) * (1.0 / np.sqrt(X.shape[1]))'),
    },
}


# Dask rows whose derivative computes part of the graph before `.compute()`, and why
# (each checked to compute, so that one that becomes lazy is noticed)
COMPUTES = {
    # the function itself computes: max(x[i], x[i + 1]) branches on two elements, and
    # out = np.zeros(...) is a NumPy array each element is written into
    "numpy_programs.running_max_pool": ("the function", "grad", "value_and_grad", "jvp"),
}


# ------------------------------------------------------------------ libraries

@contextlib.contextmanager
def uncounted():
    yield [0]


def dask_library():
    dask = pytest.importorskip("dask", reason="Dask is not installed (pip install 's2sad[dask]')")
    da = pytest.importorskip("dask.array", reason="dask.array is not installed")

    @contextlib.contextmanager
    def counted():
        """Every graph computed under it goes through a scheduler that counts them."""
        n = [0]

        def get(graph, keys, **kwargs):
            n[0] += 1
            return dask.get(graph, keys, **kwargs)

        with dask.config.set(scheduler=get):
            yield n

    return {"convert": lambda a: da.from_array(a, chunks=(2,) + a.shape[1:]),
            "type": da.Array, "float_type": da.Array, "counted": counted,
            "computes": lambda got: int(any(isinstance(g, da.Array) for g in got)),
            "compute": lambda values: dask.compute(*values), "rtol": 1e-11, "atol": 1e-13}


def jax_library():
    pytest.importorskip("jax", reason="JAX is not installed (pip install 's2sad[jax]')")
    import jax
    import jax.numpy as jnp
    # (a float parameter's gradient is a float beside float32 arrays, as with NumPy's)
    return {"convert": lambda a: jnp.asarray(a, dtype=jnp.float32), "type": jax.Array,
            "float_type": float, "counted": uncounted, "computes": lambda got: 0,
            "jit": jax.jit,
            "compute": lambda values: [np.asarray(v) for v in values],
            "rtol": 3e-4, "atol": 3e-5}


def strict_library():
    xp = pytest.importorskip("array_api_strict", reason="array-api-strict is not installed "
                             "(pip install -e '.[test]')")
    kind = type(xp.asarray(0.0))
    return {"convert": xp.asarray, "type": kind, "float_type": kind, "counted": uncounted,
            "computes": lambda got: 0,
            "compute": lambda values: [np.from_dlpack(v) for v in values],
            "rtol": 1e-11, "atol": 1e-13}


def torch_library():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install "
                                "'s2sad[torch]')")
    pytest.importorskip("array_api_compat", reason="array-api-compat is not installed")
    # (float64 tensors; a float parameter's gradient is a 0-d tensor)
    return {"convert": torch.from_numpy, "type": torch.Tensor, "float_type": torch.Tensor,
            "counted": uncounted, "computes": lambda got: 0,
            "compute": lambda values: [v.numpy() for v in values],
            "rtol": 1e-11, "atol": 1e-13}


LIBRARIES = {"dask": dask_library, "jax": jax_library, "array-api-strict": strict_library,
             "torch": torch_library}
# Dask warns when it hands a NumPy function it does not implement back to NumPy,
# which computes the array: an error here
WARNINGS = {"dask": [pytest.mark.filterwarnings("error::FutureWarning")]}


def rows():
    return [pytest.param(name, library, id=f"{library}-{name}",
                         marks=WARNINGS.get(library, []))
            for library in LIBRARIES for name in PROGRAMS]


def positions(f, wrt) -> list:
    names = list(inspect.signature(f).parameters)
    return [w if isinstance(w, int) else names.index(w)
            for w in (wrt if isinstance(wrt, tuple) else (wrt,))]


def converted(lib, args):
    return [lib["convert"](a) if isinstance(a, np.ndarray) else a for a in args]


def as_tuple(g):
    return g if isinstance(g, tuple) else (g,)


def types(lib, args) -> list:
    """The type of the gradient of each of `args` on `lib`'s arrays."""
    return [lib["type"] if isinstance(a, np.ndarray) else lib["float_type"] for a in args]


def check(lib, got, want, kinds):
    """`got` are of the types `kinds` and have `want`'s numbers, the graph they
    belong to computed once (Dask)."""
    for g, kind in zip(got, kinds):
        assert isinstance(g, kind), (type(g), kind)
    with lib["counted"]() as n:
        numbers = lib["compute"](got)
        assert n[0] == lib["computes"](got)  # (Dask: the values' graph computed once)
    for v, ref in zip(numbers, want):
        assert np.shape(v) == np.shape(ref)
        np.testing.assert_allclose(np.asarray(v, float), ref, rtol=lib["rtol"],
                                   atol=lib["atol"])


def refused(f, args, wrt, lib, expected):
    """Calling `grad` raises what `expected` says, at the user's line it names."""
    what, line = expected
    if isinstance(what, tuple):  # the library's own error, from the user's line
        with pytest.raises(what[0], match=what[1]) as info:
            s2sad.grad(f, wrt)(*converted(lib, args))
        with pytest.raises(Exception):  # (the function itself fails there too: heat's
            f(*converted(lib, args))  # u0.copy() first, which the derivative spells np.copy)
        note = "\n".join(getattr(info.value, "__notes__", []))
        assert f"{inspect.getsourcefile(f)}:" in note and line in note, note
        return
    with pytest.raises(S2SADError, match=what) as info:
        s2sad.grad(f, wrt)(*converted(lib, args))
    assert info.value.filename == inspect.getsourcefile(f)
    assert info.value.source_line.strip() == line


@pytest.mark.parametrize("name, library", rows())
def test_program_on_another_library(name, library):
    lib = LIBRARIES[library]()
    f, args, wrt = PROGRAMS[name]
    if name in REFUSED[library]:
        refused(f, args, wrt, lib, REFUSED[library][name])
        return
    where = positions(f, wrt)
    wrt_args = [args[i] for i in where]
    want_value, want = s2sad.value_and_grad(f, wrt)(*args)
    ones = [np.ones_like(a) if isinstance(a, np.ndarray) else 1.0 for a in args]
    tangents = [t if i in where else None for i, t in enumerate(ones)]
    want_tangent = s2sad.jvp(f, args, tangents)[1]
    theirs = converted(lib, args)
    their_tangents = converted(lib, tangents)
    calls = {"grad": lambda: as_tuple(s2sad.grad(f, wrt)(*theirs)),
             "value_and_grad": lambda: s2sad.value_and_grad(f, wrt)(*theirs),
             "jvp": lambda: s2sad.jvp(f, theirs, their_tangents)}
    value_type = lib["type"]  # (the value: a 0-d array of the library)
    computes = COMPUTES.get(name, ()) if library == "dask" else ()
    if "the function" in computes:
        calls = {"the function": lambda: f(*theirs), **calls}
    results = {}
    for call, run in calls.items():
        with lib["counted"]() as n:
            results[call] = run()
        if call in computes:
            assert n[0] > 0, f"{call} is lazy now: take it out of COMPUTES"
        else:
            assert n[0] == 0, f"{call} computed part of the graph"
    if "the function" in results:  # (what it returns: NumPy's sum of a NumPy array)
        value_type = type(results.pop("the function"))
    got, (value, grads), (out, tangent) = results.values()
    check(lib, got, as_tuple(want), types(lib, wrt_args))
    check(lib, (value,) + as_tuple(grads), (want_value,) + as_tuple(want),
          [value_type] + types(lib, wrt_args))
    check(lib, (out, tangent), (want_value, want_tangent), [value_type, value_type])
    if "jit" in lib:  # (JAX: the gradient traced and compiled by XLA)
        check(lib, as_tuple(lib["jit"](s2sad.grad(f, wrt))(*theirs)), as_tuple(want),
              [lib["type"]] * len(where))
