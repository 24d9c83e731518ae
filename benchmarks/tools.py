"""The contenders. Each tool turns a case into a callable with the case function's
signature that takes Python floats (and lists of floats) and returns the gradient as
s2sad does: a float, a list of floats, or a tuple of them for a tuple ``wrt``. A
NumPy case (one that differentiates arrays) takes NumPy arrays and gets NumPy arrays
back, in the shape of the arguments. Converting to and from the tool's tensors is
part of the call, and so is part of its time: it is what the tool costs a caller who
has floats, or NumPy arrays.

Besides the peers, s2sad's own runtime engines (``s2sad.engines``: a Wengert-list
tape and vector dual numbers, the independent witnesses and fallback of issue 7) run
as two more contenders, so the report compares the compiler with them.

Peers are optional: a peer that cannot be imported is reported as missing, with
the reason, never as a failure. Install them with ``pip install -e '.[bench]'``
into a virtualenv of their own (see benchmarks/README.md).
"""

import importlib.metadata
import math
import os

from .harness import Skipped, as_numpy, rebind, shim, tidy


def version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


class Tool:
    key = ""            # name on the command line and in PORTS
    label = ""          # name in the report
    dists = ()          # distributions whose versions the report gives
    kind = "ad"         # "primal", "reference", "ad" or "approx"
    tolerance = 1e-9    # how close its gradient must be to s2sad's
    port_keys = ()      # PORTS keys this tool takes, the first one found wins
    has_first_call = True
    peer = True         # optional, skipped by --quick
    note = ""           # how the tool is driven, for the report

    def load(self):
        """Import what the tool needs; an exception here means 'missing'."""

    def names(self):
        """Module-level names rebound in a case function for this tool."""
        return {}

    def port(self, case):
        explicit = case.port(self.port_keys)
        return explicit if explicit is not None else rebind(case.f, self.names())

    def make(self, case):
        raise NotImplementedError

    def reset(self):
        """Drop the tool's own caches of transformed functions (before a first call)."""

    def details(self):
        return ""


class Primal(Tool):
    key, label, kind, peer, has_first_call = "primal", "primal", "primal", False, False
    note = "the case function itself, plain Python"

    def make(self, case):
        return case.f


class ByHand(Tool):
    key, label, kind, peer, has_first_call = "by-hand", "by hand", "reference", False, False
    note = "reverse mode written carefully by hand beside each case"

    def make(self, case):
        return case.by_hand


class S2SAD(Tool):
    key, label, peer, dists = "s2sad", "s2sad", False, ("s2sad",)
    note = "s2sad.grad(f, wrt=...)"

    def load(self):
        global s2sad
        import s2sad

    def make(self, case):
        return s2sad.grad(case.f, wrt=case.wrt)


class FiniteDifferences(Tool):
    """Central differences on the primal: two calls per input float, step
    cbrt(machine epsilon) * max(1, |x|)."""

    key, label, kind, has_first_call = "fd", "central diff.", "approx", False
    tolerance = 1e-4
    note = "central differences of the primal, step cbrt(eps)·max(1, abs(x)), 2 calls per input"
    STEP = 2.0 ** (-52 / 3)
    MAX_INPUTS = 2000  # 2 primal calls per input: beyond this, minutes per gradient

    def make(self, case):
        if case.inputs > self.MAX_INPUTS:
            raise Skipped(f"{case.inputs:,} inputs, {2 * case.inputs:,} primal calls per "
                          f"gradient (run up to {self.MAX_INPUTS:,} inputs)")
        f, positions, single = case.f, case.positions, not isinstance(case.wrt, tuple)
        step = self.STEP

        def partial(args, i, j=None):
            lo, hi = list(args), list(args)
            if j is None:
                x = args[i]
                h = step * max(1.0, abs(x))
                lo[i], hi[i] = x - h, x + h
            else:  # element j of a list or (flattened) array
                lo[i], hi[i] = args[i].copy(), args[i].copy()
                flo = lo[i] if isinstance(lo[i], list) else lo[i].reshape(-1)
                fhi = hi[i] if isinstance(hi[i], list) else hi[i].reshape(-1)
                x = float(flo[j])
                h = step * max(1.0, abs(x))
                flo[j], fhi[j] = x - h, x + h
            return (f(*hi) - f(*lo)) / (2.0 * h)

        def grad(*args):
            out = []
            for i in positions:
                a = args[i]
                if isinstance(a, list):
                    out.append([partial(args, i, j) for j in range(len(a))])
                elif getattr(a, "ndim", 0):  # a NumPy array: a gradient of its shape
                    g = a.astype(float)
                    g.reshape(-1)[:] = [partial(args, i, j) for j in range(a.size)]
                    out.append(g)
                else:
                    out.append(partial(args, i))
            return out[0] if single else tuple(out)

        return grad


def _output(case):
    """How a tool's gradient is handed back: floats and lists (``tidy``), or NumPy
    arrays for a NumPy case."""
    return as_numpy if case.arrays else tidy


def resident(fn, case, convert):
    """``fn`` with the NumPy arrays of a case that are not differentiated (a data
    set, targets) converted by ``convert`` on the first call and reused after: data a
    user of the tool keeps in the tool's own arrays. The arrays differentiated, the
    parameters, are converted on every call."""
    if not case.arrays:
        return fn
    positions = set(case.positions)
    constants = [i for i, a in enumerate(case.args)
                 if i not in positions and getattr(a, "ndim", 0)]
    cache = {}

    def call(*args):
        args = list(args)
        for i in constants:
            a = args[i]
            got = cache.get(i)
            if got is None or got[0] is not a:
                got = cache[i] = (a, convert(a))
            args[i] = got[1]
        return fn(*args)

    return call


class Autograd(Tool):
    key, label, dists = "autograd", "autograd", ("autograd",)
    port_keys = ("autograd",)
    note = "autograd.grad(port, argnum=wrt), math → autograd.numpy"

    def load(self):
        global autograd, anp
        import autograd
        import autograd.numpy as anp
        from autograd.scipy import special

        self._names = {"math": shim("autograd_math", _numpy_like(anp, erf=special.erf)),
                       "np": anp}

    def names(self):
        return self._names

    def make(self, case):
        g, out = autograd.grad(self.port(case), argnum=case.wrt), _output(case)
        return lambda *args: out(g(*args))


class Jax(Tool):
    key, label, dists = "jax", "JAX", ("jax", "jaxlib")
    port_keys = ("jax",)
    note = ("jax.grad(port, argnums=wrt), op by op, float64 (jax_enable_x64), CPU; "
            "NumPy cases: constant arrays made JAX arrays once")

    def load(self):
        global jax, jnp
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        import jax
        import jax.numpy as jnp
        from jax.scipy import special

        jax.config.update("jax_enable_x64", True)
        self._names = {"math": shim("jax_math", _numpy_like(jnp, erf=special.erf)),
                       "np": jnp}

    def names(self):
        return self._names

    def make(self, case):
        g, out = jax.grad(self.port(case), argnums=case.wrt), _output(case)
        return resident(lambda *args: out(g(*args)), case, jnp.asarray)

    def details(self):
        return f"devices {jax.devices()}"


class JaxJit(Jax):
    """jax.jit of jax.grad. The gradient is flattened to one array inside the
    compiled function, so a call moves one buffer back to Python; a NumPy case gets
    its gradient arrays back as they are."""

    key, label = "jax-jit", "JAX + jit"
    port_keys = ("jax-jit", "jax")
    note = ("jax.jit(jax.grad(port)), the gradient raveled to one array inside; "
            "loops as lax.fori_loop where a port says so; first call = trace + compile")

    def load(self):
        super().load()
        global ravel_pytree
        from jax.flatten_util import ravel_pytree

    def make(self, case):
        g = jax.grad(self.port(case), argnums=case.wrt)
        if case.arrays:
            compiled_arrays = jax.jit(g)
            return resident(lambda *args: as_numpy(compiled_arrays(*args)), case,
                            jnp.asarray)
        compiled = jax.jit(lambda *args: ravel_pytree(g(*args))[0])
        wrt_args = case.args[case.wrt] if not isinstance(case.wrt, tuple) else \
            tuple(case.args[i] for i in case.wrt)
        treedef = jax.tree_util.tree_structure(wrt_args)

        def grad(*args):
            return tidy(jax.tree_util.tree_unflatten(treedef, compiled(*args).tolist()))

        return grad


class Torch(Tool):
    key, label, dists = "torch", "PyTorch", ("torch",)
    port_keys = ("torch",)
    note = ("eager, CPU, float64: inputs become tensors with requires_grad, "
            "torch.autograd.grad, .tolist() (NumPy cases: torch.from_numpy, .numpy())")

    def load(self):
        global torch
        import torch

        pairs = [(m, m) for m in _MATH_NAMES] + list(_ALIASES.items())
        table = {m: _tensor_or_math(getattr(torch, t), getattr(math, m), torch.Tensor)
                 for m, t in pairs if hasattr(torch, t)}
        self._names = {"math": shim("torch_math", table)}

    def names(self):
        return self._names

    def make(self, case):
        f, positions, single = self.port(case), case.positions, not isinstance(case.wrt, tuple)
        tensor, f64, autograd_grad = torch.tensor, torch.float64, torch.autograd.grad
        from_numpy = torch.from_numpy

        if case.arrays:  # arrays in without a copy, arrays out
            def grad_arrays(*args):
                args = list(args)
                inputs = []
                for i in positions:
                    t = from_numpy(args[i]).requires_grad_()
                    args[i] = t
                    inputs.append(t)
                grads = autograd_grad(f(*args), inputs)
                if single:
                    return grads[0].numpy()
                return tuple(g.numpy() for g in grads)

            return grad_arrays

        def grad(*args):
            args = list(args)
            inputs = []
            for i in positions:
                t = tensor(args[i], dtype=f64, requires_grad=True)
                args[i] = t
                inputs.append(t)
            grads = autograd_grad(f(*args), inputs)
            if single:
                return grads[0].tolist()
            return tuple(g.tolist() for g in grads)

        return grad

    def details(self):
        n = torch.get_num_threads()
        return f"{n} thread{'s' if n != 1 else ''}"


class Tangent(Tool):
    key, label, dists = "tangent", "tangent", ("tangent-ad",)
    port_keys = ("tangent",)
    note = "tangent.grad(port, wrt=...), math → numpy (tangent's rules are for numpy)"

    def load(self):
        global tangent, tangent_cache
        os.environ["TANGENT_DISK_CACHE"] = "0"  # first calls must transform for real
        import numpy as np
        import tangent
        import tangent.function_cache as tangent_cache

        self._names = {"math": shim("tangent_math", _numpy_like(np)), "np": np}

    def names(self):
        return self._names

    def make(self, case):
        g, out = tangent.grad(self.port(case), wrt=case.positions), _output(case)
        return lambda *args: out(g(*args))

    def reset(self):
        tangent_cache.clear_cache()


class TapeEngine(Tool):
    """s2sad's reverse-mode runtime engine: the function run on traced values, every
    operation appended to a Wengert list, one backward sweep."""

    key, label, dists = "s2sad-tape", "s2sad tape (runtime)", ("s2sad",)
    note = ("s2sad's own runtime engine, not a peer: s2sad.engines.tape_grad(f, args, "
            "wrt), reverse mode on a Wengert list (operator overloading), per call")
    engine = "tape_grad"

    def load(self):
        from s2sad import engines

        self._grad = getattr(engines, self.engine)

    def make(self, case):
        engine_grad, f, wrt = self._grad, case.f, case.wrt
        return lambda *args: engine_grad(f, args, wrt)[1]


class DualEngine(TapeEngine):
    """s2sad's forward-mode runtime engine: one run with vector dual numbers, a
    tangent per input float."""

    key, label = "s2sad-dual", "s2sad dual (runtime)"
    note = ("s2sad's own runtime engine, not a peer: s2sad.engines.dual_grad(f, args, "
            "wrt), forward mode with one tangent direction per input float, per call")
    engine = "dual_grad"
    # every intermediate array carries one tangent per input float: beyond this many
    # inputs the tangents of a NumPy case need gigabytes
    MAX_INPUTS = 1000

    def make(self, case):
        if case.arrays and case.inputs > self.MAX_INPUTS:
            raise Skipped(f"{case.inputs:,} input floats: every intermediate array would "
                          f"carry {case.inputs:,} tangents (run up to "
                          f"{self.MAX_INPUTS:,})")
        return super().make(case)


# math's functions under the same name in NumPy-like modules, and the renamed ones
_MATH_NAMES = ("sin", "cos", "tan", "sinh", "cosh", "tanh", "exp", "expm1", "log",
               "log1p", "log2", "log10", "sqrt", "hypot", "fabs", "copysign", "erf",
               "erfc", "floor", "degrees", "radians")
_ALIASES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "atan2": "arctan2",
            "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "pow": "power"}


def _tensor_or_math(op, fallback, Tensor):
    """The tensor op, or math's function when no argument is a tensor (a constant
    such as math.sqrt(2.0)): torch ops take tensors only."""

    def f(*xs):
        for x in xs:
            if isinstance(x, Tensor):
                return op(*xs)
        return fallback(*xs)

    f.__name__ = fallback.__name__
    return f


def _numpy_like(module, **extra):
    table = {name: getattr(module, name) for name in _MATH_NAMES if hasattr(module, name)}
    table.update({m: getattr(module, a) for m, a in _ALIASES.items() if hasattr(module, a)})
    table.update(extra)
    return table


CORE = [Primal(), ByHand(), S2SAD()]
# s2sad's runtime engines first, beside s2sad in the report; selectable like peers
ENGINES = [TapeEngine(), DualEngine()]
PEERS = ENGINES + [Autograd(), Jax(), JaxJit(), Torch(), Tangent(), FiniteDifferences()]
ALL = CORE + PEERS
