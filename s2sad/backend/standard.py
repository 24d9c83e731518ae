"""standard: NumPy's names over the Python array API standard, for a derivative run
with arrays of a library reached through the standard's names (`kinds.NAMESPACES`:
array-api-strict, the standard's conformance check, in `strict_numpy`; PyTorch
through array-api-compat's wrapper, in `torch_numpy`).

`define(module, xp)` fills the module `module` (one of those two, named in
`kinds.NAMESPACES`) with what stands in for NumPy's names there, over the
standard namespace `xp`. `compile` binds the names meaning NumPy in the derivative's
text to that module (as it binds them to ``jax.numpy`` for JAX arrays):

* a name the standard has (``tanh``, ``sum``, ``where``) is the library's own;
* one it spells otherwise (``power``, ``concatenate``, ``arcsin``) is the library's
  under the standard's name;
* the few NumPy functions the derivatives call that the standard has not
  (``outer``, ``shape``, ``transpose``, ``swapaxes``, ``dot``, ``copy``, ``diag``,
  ``tri``), or has
  with other parameters (``tile`` of an int, ``squeeze`` without an axis,
  ``take_along_axis`` with its axis by position or None, ``cumsum`` and
  ``cumprod`` without an axis, over the array flat,
  ``asarray`` of a list of arrays), are written here in the standard's functions;
* ``from_numpy`` (not NumPy's) makes a NumPy array or number the library's (of a
  given float dtype: float32 where the arguments are), and passes anything else
  through (`driver.libraries` calls it on the user's constants, ``SETTINGS["w"]``,
  for PyTorch);
* a function takes a NumPy array (a constant of the user's module) as the library's
  array, and an elementwise function a list (``np.sin([a, b])``), as NumPy does; of
  numbers alone (``np.sin(s)``, ``np.sum(s)`` of a float) a function is NumPy's own,
  and gives a NumPy number, which mixes with NumPy constants and the library's
  arrays alike;
* NumPy's default dtypes are kept: where the library's default float is not
  float64 (PyTorch's float32), ``zeros``, ``ones``, ``full``, ``eye``, ``linspace``,
  ``arange`` of floats and ``asarray`` of Python floats make float64 arrays, as
  NumPy does, so a derivative computes in the precision NumPy would.

Any other name is missing, even where the library has one (PyTorch's
``transpose``, ``std`` or ``cumsum`` mean something else than NumPy's): only the
standard's names (`STANDARD`) are looked up, and `driver.libraries` refuses a
derivative that calls another, at the user's line.
"""

from __future__ import annotations

import math
import types

import numpy as np

# The array API standard's functions and constants (2023.12, with 2024.12's
# cumulative_prod, diff and take_along_axis), the only names looked up in a library
STANDARD = frozenset("""
arange asarray empty empty_like eye from_dlpack full full_like linspace meshgrid ones
ones_like tril triu zeros zeros_like astype can_cast finfo iinfo isdtype result_type abs
acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift bitwise_invert
bitwise_or bitwise_right_shift bitwise_xor ceil clip conj copysign cos cosh divide equal
exp expm1 floor floor_divide greater greater_equal hypot imag isfinite isinf isnan less
less_equal log log1p log2 log10 logaddexp logical_and logical_not logical_or logical_xor
maximum minimum multiply negative not_equal positive pow real remainder round sign signbit
sin sinh square sqrt subtract tan tanh trunc take take_along_axis matmul matrix_transpose
tensordot vecdot broadcast_arrays broadcast_to concat expand_dims flip moveaxis
permute_dims repeat reshape roll squeeze stack tile unstack argmax argmin nonzero
searchsorted where unique_all unique_counts unique_inverse unique_values argsort sort
cumulative_sum cumulative_prod max mean min prod std sum var all any diff e inf nan
newaxis pi bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64
complex64 complex128
""".split())

# The standard's linear algebra extension (``xp.linalg``)
LINALG = frozenset("""
cholesky cross det diagonal eigh eigvalsh inv matmul matrix_norm matrix_power matrix_rank
matrix_transpose outer pinv qr slogdet solve svd svdvals tensordot trace vecdot vector_norm
""".split())

_RENAMED = {"power": "pow", "concatenate": "concat", "absolute": "abs", "arcsin": "asin",
            "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
            "arctanh": "atanh", "arctan2": "atan2", "amax": "max", "amin": "min",
            "cumsum": "cumulative_sum", "cumprod": "cumulative_prod"}

# NumPy's positional parameters after the first that the standard takes by keyword
# ("": one it takes by position too)
_KEYWORDS = {"sum": ("axis",), "mean": ("axis",), "max": ("axis",), "min": ("axis",),
             "var": ("axis",), "std": ("axis",), "prod": ("axis",), "flip": ("axis",),
             "sort": ("axis",), "argsort": ("axis",), "tril": ("k",), "triu": ("k",),
             "concat": ("axis",), "stack": ("axis",), "cumulative_sum": ("axis",),
             "cumulative_prod": ("axis",), "diff": ("n", "axis"), "roll": ("shift", "axis"),
             "argmax": ("axis",), "argmin": ("axis",), "all": ("axis",), "any": ("axis",),
             "repeat": ("", "axis"), "take": ("", "axis"),
             "expand_dims": ("axis",)}

# The elementwise functions, which NumPy also takes of Python numbers alone
_ELEMENTWISE = frozenset("""
abs acos acosh add asin asinh atan atan2 atanh ceil conj copysign cos cosh divide exp expm1
floor floor_divide hypot isfinite isinf isnan log log1p log2 log10 logaddexp maximum minimum
multiply negative positive pow remainder round sign sin sinh square sqrt subtract tan tanh
trunc where
""".split())

# The functions whose arguments are not arrays
_CREATION = frozenset("""
arange empty eye from_dlpack full linspace ones zeros finfo iinfo isdtype result_type
can_cast asarray meshgrid
""".split())

# The creation functions whose NumPy default dtype is float64 (``arange`` and
# ``asarray`` only for floats)
_FLOAT64 = ("zeros", "ones", "empty", "eye", "linspace")


def define(module: types.ModuleType, xp) -> None:
    """Fill `module` with NumPy's names over the standard namespace `xp` (see the
    module's docstring); names are looked up in `xp` on first use."""
    ns = vars(module)
    wide = _default_float(xp) != "float64"

    def __getattr__(name):
        standard = _RENAMED.get(name, name)
        got = getattr(xp, standard, None) if standard in STANDARD else None
        if got is None:
            raise AttributeError(f"the array API standard has no {name}")
        if standard in _KEYWORDS:
            got = _by_keyword(got, _KEYWORDS[standard])
        if wide and standard in _FLOAT64:
            got = _float64_default(got, xp)
        if callable(got) and standard not in _CREATION:
            got = _of_numbers(got, asarray, standard in _ELEMENTWISE, (xp.float32, xp.float64),
                              getattr(np, name, None))
        ns[name] = got  # (looked up once)
        return got

    def ravel(a):
        return xp.reshape(a, (-1,))

    def transpose(a, axes=None):
        return xp.permute_dims(a, tuple(reversed(range(a.ndim))) if axes is None
                               else tuple(axes))

    def outer(a, b):
        return xp.reshape(a, (-1, 1)) * xp.reshape(b, (1, -1))

    def dot(a, b):
        if a.ndim == 0 or b.ndim == 0:
            return a * b
        return xp.matmul(a, b) if b.ndim <= 2 else xp.tensordot(a, b, axes=([-1], [-2]))

    def copy(a):
        return xp.asarray(a, copy=True)

    def asarray(obj, dtype=None, copy=None):
        if isinstance(obj, (list, tuple)) and any(getattr(e, "ndim", 0) or
                                                  isinstance(e, (list, tuple)) for e in obj):
            # (a list of arrays, which the standard's asarray need not take: stacked)
            got = xp.stack([asarray(e) for e in obj])
            return got if dtype is None else xp.astype(got, dtype)
        if dtype is None and wide and _floats(obj):
            dtype = xp.float64
        return xp.asarray(obj, dtype=dtype, copy=copy)

    def from_numpy(value, dtype=None):
        # (`dtype`: the arguments' float32, for a NumPy array of wider floats:
        # PyTorch's matmul takes no float64 array beside a float32 one)
        if type(value) not in _NUMPY:
            return value
        narrow = dtype is not None and value.dtype.kind == "f" and value.dtype.itemsize > 4
        return xp.asarray(value, dtype=dtype if narrow else None)

    def array(obj, dtype=None, copy=True):
        return asarray(obj, dtype=dtype, copy=copy)

    def full(shape, fill_value, dtype=None):
        if dtype is None and wide and isinstance(fill_value, float):
            dtype = xp.float64
        return xp.full(shape, fill_value, dtype=dtype)

    def arange(start, stop=None, step=1, dtype=None):
        if dtype is None and wide and any(isinstance(v, float) for v in (start, stop, step)):
            dtype = xp.float64
        return xp.arange(start, stop, step, dtype=dtype)

    def broadcast_to(a, shape):
        # (a number's tangent broadcast to an array's shape: a 0-d array of it first)
        return xp.broadcast_to(a if getattr(a, "ndim", None) is not None
                               and type(a) not in _NUMPY else asarray(a), tuple(shape))

    def swapaxes(a, axis1, axis2):
        axes = list(range(a.ndim))
        axes[axis1], axes[axis2] = axes[axis2], axes[axis1]
        return xp.permute_dims(a, tuple(axes))

    def tile(a, reps):
        return xp.tile(a, (reps,) if isinstance(reps, int) else tuple(reps))

    def squeeze(a, axis=None):
        if axis is None:
            axis = tuple(i for i, n in enumerate(a.shape) if n == 1)
        return xp.squeeze(a, axis=axis)

    def diag(v, k=0):
        if k != 0:
            raise ValueError("np.diag with k other than 0 has no counterpart in the array "
                             "API standard: not supported yet")
        if v.ndim == 2:
            return xp.linalg.diagonal(v)
        return xp.eye(v.shape[0], dtype=v.dtype) * v  # (column j times v[j])

    def take_along_axis(arr, indices, axis=-1):
        if axis is None:  # (NumPy reads arr flat; the standard's function takes an axis)
            arr, axis = xp.reshape(asarray(arr), (-1,)), 0
        return xp.take_along_axis(asarray(arr), asarray(indices), axis=axis)

    def cumulative(name):
        def cumulative(a, axis=None, dtype=None):
            a = asarray(a)
            if axis is None:  # (NumPy's runs over `a` flat; the standard's needs an axis)
                a, axis = xp.reshape(a, (-1,)), 0
            return getattr(xp, name)(a, axis=axis, dtype=dtype)
        return cumulative

    def tri(n, m=None, k=0, dtype=None):
        ones = xp.ones((n, n if m is None else m), dtype=xp.float64 if dtype is None else dtype)
        return xp.tril(ones, k=k)

    def norm(x, ord=None, axis=None, keepdims=False):
        """``np.linalg.norm``: the 2-norm of vectors and the Frobenius norm (``ord``
        None) only."""
        if ord is None or ord == 2 and (x.ndim == 1 or isinstance(axis, int)) or \
                ord == "fro" and (x.ndim == 2 and axis is None or isinstance(axis, tuple)):
            return xp.linalg.vector_norm(x, axis=axis, keepdims=keepdims)
        raise ValueError("np.linalg.norm has the 2-norm of vectors and the Frobenius norm "
                         "in the array API standard, not this one (a matrix's 2-norm, its "
                         f"largest singular value, or ord={ord!r}): not supported yet")

    def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
        if hermitian:
            raise ValueError("np.linalg.svd with hermitian=True has no counterpart in the "
                             "array API standard: not supported yet")
        if not compute_uv:  # (the standard's svdvals)
            return xp.linalg.svdvals(a)
        return xp.linalg.svd(a, full_matrices=full_matrices)

    def eigh(a, UPLO="L"):
        # (the standard's reads the lower triangle, as NumPy's default does)
        return xp.linalg.eigh(a if UPLO == "L" else xp.linalg.matrix_transpose(a))

    def eigvalsh(a, UPLO="L"):
        return xp.linalg.eigvalsh(a if UPLO == "L" else xp.linalg.matrix_transpose(a))

    ns.update(__getattr__=__getattr__, ravel=ravel, shape=shape, ndim=ndim, size=size,
              transpose=transpose, outer=outer, dot=dot, copy=copy, asarray=asarray,
              array=array, from_numpy=from_numpy, full=full, arange=arange,
              broadcast_to=broadcast_to, swapaxes=swapaxes, tile=tile, squeeze=squeeze,
              diag=diag, tri=tri,
              take_along_axis=take_along_axis, cumsum=cumulative("cumulative_sum"),
              cumprod=cumulative("cumulative_prod"),
              linalg=types.SimpleNamespace(**{
                  **{n: getattr(xp.linalg, n) for n in LINALG if hasattr(xp.linalg, n)},
                  "norm": norm, "svd": svd, "eigh": eigh, "eigvalsh": eigvalsh}))


def _default_float(xp) -> str:
    """The name of the dtype `xp` gives an array of Python floats."""
    return str(xp.asarray(1.0).dtype).rpartition(".")[2]


def _floats(obj) -> bool:
    """Is `obj` a Python float, or a (nested) list or tuple of numbers with a float
    among them and no array, which NumPy would make a float64 array of?"""
    if isinstance(obj, float):
        return True
    if isinstance(obj, (list, tuple)):
        return bool(obj) and all(isinstance(v, (int, float, list, tuple)) for v in obj) and \
            any(_floats(v) for v in obj)
    return False


def _by_keyword(fn, names):
    """`fn`, which takes the parameters `names` by keyword, called as NumPy calls its
    counterpart: with them by position after the first argument."""
    kept = names.count("")

    def call(x, *args, **kwargs):
        kwargs.update(zip(names[kept:], args[kept:]))
        if "ddof" in kwargs:
            kwargs["correction"] = kwargs.pop("ddof")
        return fn(x, *args[:kept], **kwargs)

    call.__name__ = fn.__name__
    return call


def _of_numbers(fn, asarray, elementwise: bool, floating: tuple, numpy=None):
    """`fn` taking NumPy arrays and NumPy numbers as the library's arrays (a NumPy
    constant of the user's module), and, where it is `elementwise`, lists and tuples
    of numbers as arrays (float64 for floats, as NumPy's); a float beside an array is
    a 0-d array of the array's dtype. Of numbers alone (``np.sum(0.5)``), it is
    `numpy`'s own function, NumPy's of that name."""
    condition = fn.__name__ == "where"  # (its condition is an array, even beside arrays)
    convert, always = (_NUMBERS, _ALWAYS) if elementwise else (_NUMPY, _NUMPY)

    def call(*args, **kwargs):
        if any(type(a) in _NUMBERS for a in args):
            if any(type(v) is type(floating[-1]) for v in kwargs.values()):
                # (a dtype of the library's, ``np.zeros_like(s, dtype=g.dtype)`` of a
                # number `s`: the library's function, which NumPy's would not take)
                return fn(*[asarray(a) if type(a) in _NUMBERS else a for a in args],
                          **kwargs)
            if numpy is not None and all(type(a) in _SCALARS for a in args):
                # (of numbers alone: NumPy's own function, and a NumPy number, which
                # mixes with NumPy constants and with the library's arrays alike)
                got = numpy(*args, **kwargs)
                return got[()] if type(got) is np.ndarray else got
            alone = elementwise and all(type(a) in convert for a in args)
            args = [asarray(a) if type(a) in always or alone or condition and i == 0
                    and type(a) in convert else a for i, a in enumerate(args)]
            if elementwise and not alone and float in map(type, args):
                # (a float beside an array: a 0-d array of the array's floating dtype,
                # as NumPy takes it, not of the library's default float32)
                dtype = next(getattr(a, "dtype", None) for a in args if type(a) is not float)
                dtype = dtype if dtype in floating else floating[-1]
                args = [asarray(a, dtype=dtype) if type(a) is float else a for a in args]
        return fn(*args, **kwargs)

    call.__name__ = fn.__name__
    return call


_NUMPY = (np.ndarray, np.float64, np.float32, np.int64, np.bool_)
_ALWAYS = _NUMPY + (list, tuple)  # (made arrays even beside arrays)
_NUMBERS = _ALWAYS + (int, float, bool)
_SCALARS = (int, float, bool, np.float64, np.float32, np.int64, np.bool_)


def _float64_default(fn, xp):
    """`fn` (a creation function) making float64 arrays where no dtype is given."""
    def call(*args, dtype=None, **kwargs):
        return fn(*args, dtype=xp.float64 if dtype is None else dtype, **kwargs)

    call.__name__ = fn.__name__
    return call


def shape(a) -> tuple:
    return tuple(getattr(a, "shape", ()))


def ndim(a) -> int:
    return len(shape(a))


def size(a) -> int:
    return math.prod(shape(a))
