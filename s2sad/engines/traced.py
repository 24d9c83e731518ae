"""Traced values: what the engines pass through a user's function instead of numbers.

Contract
--------
`Traced` is the base class of the tape engine's `Var` and the dual engine's `Dual`.
It holds the primal `value` (a Python float, a NumPy scalar or an ndarray) and sends
every differentiable operation to its engine's `apply(key, fn, args, options,
elementwise)`, where `key` is the rule-table key ("add", ``math.sin``, ``np.sum``...),
`fn` computes the primal result from the primal inputs and `args` mixes traced and
plain inputs. Everything else follows the primal value:

* ``< <= > >= == !=``, ``bool``, ``int``, ``round``, ``math.floor``-style conversions
  and ``//`` give plain numbers (control flow follows the primal path);
* a traced value never turns into a float silently: ``__float__`` (what C functions
  call) raises `EngineError` naming the place, and so does an attribute floats have
  but traced values do not (that error is also an `AttributeError`, so ``hasattr``
  keeps working);
* NumPy sees traced values through ``__array_ufunc__`` (elementwise ufuncs with
  broadcasting) and ``__array_function__`` (functions with a rule, such as ``np.sum``
  and ``np.dot``); a traced value has no ``__array__``, so NumPy cannot drop the
  derivative either.

The derivatives themselves come from the compiler's rule tables (`primitives`). This
module imports nothing from the compiler pipeline.
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .primitives import (EngineError, bind_options, find_rule, getitem, is_nondifferentiable,
                         user_place)


class EngineAttributeError(EngineError, AttributeError):
    """A traced value lacks an attribute the primal value has."""


UFUNC_KEYS = {
    np.add: "add", np.subtract: "sub", np.multiply: "mul", np.true_divide: "truediv",
    np.floor_divide: "floordiv", np.remainder: "mod", np.negative: "neg",
    np.positive: "pos",
}


def primal(x):
    """The primal value of `x` (`x` itself when it is not traced)."""
    return x.value if isinstance(x, Traced) else x


def contains_traced(x) -> bool:
    if isinstance(x, Traced):
        return True
    if isinstance(x, (list, tuple)):
        return any(contains_traced(e) for e in x)
    return False


def deep_primal(x):
    """`x` with every traced value inside lists and tuples replaced by its primal."""
    if isinstance(x, Traced):
        return x.value
    if isinstance(x, (list, tuple)) and contains_traced(x):
        return type(x)(deep_primal(e) for e in x)
    return x


# ------------------------------------------------------------------ the value


def _operand(x) -> bool:
    return isinstance(x, (int, float, np.ndarray, np.number, Traced)) \
        and not isinstance(x, (complex, np.complexfloating))


def _binary(key, fn):
    def method(self, other):
        if not _operand(other):
            return NotImplemented
        return self.apply(key, fn, (self, other), elementwise=True)

    def reflected(self, other):
        if not _operand(other):
            return NotImplemented
        return self.apply(key, fn, (other, self), elementwise=True)

    return method, reflected


def _unary(key, fn):
    def method(self):
        return self.apply(key, fn, (self,), elementwise=True)

    return method


def _compare(op):
    def method(self, other):
        return op(self.value, primal(other))

    return method


def _refuse(what):
    def method(self, *args):
        raise EngineError(f"{what} of a traced value is not supported by the "
                          f"{self.engine} engine" + user_place())

    return method


def _array_method(func):
    def method(self, *args, **kwargs):
        return array_function(type(self), func, (self,) + args, kwargs)

    method.__name__ = func.__name__
    return method


def array_function(cls, func, args, kwargs):
    if is_nondifferentiable(func):
        return func(*deep_primal(args), **{k: deep_primal(v) for k, v in kwargs.items()})
    inputs, options = bind_options(func, args, kwargs, cls.mode)
    return cls.apply(func, func, inputs, options)


class Traced:
    """A primal value followed by an engine (see the module docstring)."""

    __slots__ = ("value",)
    engine = "traced"  # the engine's name, for messages
    mode = "reverse"  # which rule table the engine reads

    @classmethod
    def evaluate(cls, key, fn, args, options):
        """The shared start of `apply`: ``(out, primals, rule, used)``, where `out` is
        the primitive's value and `used` the positions of inputs traced by this engine
        whose derivative the rule gives; `rule` is None when no input needs one (then
        `out` is the whole answer)."""
        active = [isinstance(a, cls) for a in args]
        primals = [a.value if isinstance(a, Traced) else a for a in args]
        if not any(active) or is_nondifferentiable(key):
            return fn(*primals, **options), primals, None, []
        rule = find_rule(key, primals, active, cls.mode)
        out = fn(*primals, **options)
        differentiable = rule.differentiable
        used = [i for i, on in enumerate(active) if on and differentiable[i]]
        return out, primals, (rule if used else None), used

    @classmethod
    def apply(cls, key, fn, args, options=None, elementwise=False):
        raise NotImplementedError

    # arithmetic: differentiable through the rule tables
    __add__, __radd__ = _binary("add", operator.add)
    __sub__, __rsub__ = _binary("sub", operator.sub)
    __mul__, __rmul__ = _binary("mul", operator.mul)
    __truediv__, __rtruediv__ = _binary("truediv", operator.truediv)
    __floordiv__, __rfloordiv__ = _binary("floordiv", operator.floordiv)
    __mod__, __rmod__ = _binary("mod", operator.mod)
    __rpow__ = _binary("pow", operator.pow)[1]
    __neg__ = _unary("neg", operator.neg)
    __pos__ = _unary("pos", operator.pos)
    __abs__ = _unary(abs, abs)

    def __pow__(self, other, modulo=None):
        if modulo is not None:
            raise EngineError("pow() with a modulus has no derivative" + user_place())
        if not _operand(other):
            return NotImplemented
        return self.apply("pow", operator.pow, (self, other), elementwise=True)

    def __matmul__(self, other):
        if not _operand(other):
            return NotImplemented
        return self.apply("matmul", operator.matmul, (self, other))

    def __rmatmul__(self, other):
        if not _operand(other):
            return NotImplemented
        return self.apply("matmul", operator.matmul, (other, self))

    def __divmod__(self, other):
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    def __stop_gradient__(self):
        """What `s2sad.stop_gradient` gives for a traced value: its plain value."""
        return self.value

    # comparisons and conversions follow the primal value
    __lt__ = _compare(operator.lt)
    __le__ = _compare(operator.le)
    __gt__ = _compare(operator.gt)
    __ge__ = _compare(operator.ge)
    __eq__ = _compare(operator.eq)
    __ne__ = _compare(operator.ne)

    def __hash__(self):
        return hash(self.value)

    def __bool__(self):
        return bool(self.value)

    def __int__(self):
        return int(self.value)

    def __round__(self, ndigits=None):
        return round(self.value) if ndigits is None else round(self.value, ndigits)

    def __trunc__(self):
        return math.trunc(self.value)

    def __floor__(self):
        return math.floor(self.value)

    def __ceil__(self):
        return math.ceil(self.value)

    def __float__(self):
        raise EngineError(
            f"a traced value reached a function that converts it to a plain float, which "
            f"would drop its derivative{user_place()}; the {self.engine} engine follows "
            "Python code, `math`, operators and functions with a derivative rule")

    __complex__ = _refuse("complex()")
    __invert__ = _refuse("~")
    __and__ = __rand__ = _refuse("&")
    __or__ = __ror__ = _refuse("|")
    __xor__ = __rxor__ = _refuse("^")
    __lshift__ = __rlshift__ = _refuse("<<")
    __rshift__ = __rrshift__ = _refuse(">>")

    def __format__(self, spec):
        return format(self.value, spec)

    def __str__(self):
        return str(self.value)

    def __repr__(self):
        return f"{type(self).__name__}({self.value!r})"

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        raise EngineAttributeError(
            f"the {self.engine} engine's traced value has no attribute {name!r}"
            f"{user_place()}")

    # NumPy
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method != "__call__" or kwargs:
            what = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
            if kwargs:
                what += f" with {', '.join(kwargs)}"
            raise EngineError(f"{what} on a traced value is not supported by the "
                              f"{self.engine} engine" + user_place())
        if is_nondifferentiable(ufunc):
            return ufunc(*(primal(x) for x in inputs))
        return self.apply(UFUNC_KEYS.get(ufunc, ufunc), ufunc, inputs, elementwise=True)

    def __array_function__(self, func, types, args, kwargs):
        return array_function(type(self), func, args, kwargs)

    def _array(self, what):
        if not isinstance(self.value, np.ndarray):
            raise EngineAttributeError(f"'{type(self.value).__name__}' object has no "
                                       f"attribute {what!r}")
        return self.value

    shape = property(lambda self: self._array("shape").shape)
    ndim = property(lambda self: self._array("ndim").ndim)
    size = property(lambda self: self._array("size").size)
    T = property(lambda self: array_function(type(self), np.transpose, (self,), {}))

    sum = _array_method(np.sum)
    mean = _array_method(np.mean)
    prod = _array_method(np.prod)
    max = _array_method(np.max)
    min = _array_method(np.min)
    dot = _array_method(np.dot)
    transpose = _array_method(np.transpose)
    ravel = _array_method(np.ravel)

    def reshape(self, *shape):
        return self.apply(np.reshape, np.reshape,
                          (self, shape[0] if len(shape) == 1 else shape))

    def __len__(self):
        return len(self.value)

    def __getitem__(self, index):
        if not isinstance(self.value, np.ndarray):
            raise TypeError(f"'{type(self.value).__name__}' object is not subscriptable")
        if contains_traced(index):
            raise EngineError("indexing with a traced value" + user_place())
        return self.apply(getitem, getitem, (self, index))

    def __iter__(self):
        if not isinstance(self.value, np.ndarray) or self.value.ndim == 0:
            raise TypeError(f"'{type(self.value).__name__}' object is not iterable")
        return (self[i] for i in range(len(self.value)))

    def __setitem__(self, index, value):
        raise EngineError("assigning into an element of a traced array is not supported"
                          + user_place())
