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
  broadcasting, and ``np.matmul``: ``W @ x`` with `W` a plain array) and
  ``__array_function__`` (functions with a rule, such as ``np.sum`` and ``np.dot``,
  and those taking a list of arrays, ``np.concatenate([a, b])``: a list input holding
  traced values is one input of the rule, its term one per item, `traced_parts`);
  a traced value has no ``__array__``, so NumPy cannot drop the derivative either.
* ``x -= v`` (and every augmented operator) on a traced array changes it in place, as
  NumPy does: the traced object itself takes the new value and derivative
  (`_become`), so every name and list holding it sees them. Where another array may
  share its memory (a slice, a reshape or transpose, the same array given to
  `stop_gradient`: `note_shared` marks them as operations make them) the change
  would reach values the engine cannot update, so it raises `EngineError` (a view
  nothing reads any more, such as the array a temporary was reshaped from, counts
  for nothing: the groups hold traced values weakly). On a
  number, ``x -= v`` gives ``x`` a new value, as Python does.

The derivatives themselves come from the compiler's rule tables (`primitives`). This
module imports nothing from the compiler pipeline.
"""

from __future__ import annotations

import math
import operator
import weakref

import numpy as np

from ..primitives.facts import METHODS
from ..primitives.registry import NONDIFF_METHODS
from .primitives import (EngineError, bind_options, describe, find_rule, getitem,
                         is_nondifferentiable, object_array_error, user_place)


class EngineAttributeError(EngineError, AttributeError):
    """A traced value lacks an attribute the primal value has."""


UFUNC_KEYS = {
    np.add: "add", np.subtract: "sub", np.multiply: "mul", np.true_divide: "truediv",
    np.floor_divide: "floordiv", np.remainder: "mod", np.negative: "neg",
    np.positive: "pos", np.matmul: "matmul",
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


# ------------------------------------------------------- arrays sharing memory

class _Group:
    """Primal arrays that may share memory, and who holds them: traced values, held
    weakly (a temporary the function no longer reaches does not count), or plain
    code (`loose`: the result of `stop_gradient`, of a function without a
    derivative), which the engine cannot follow."""

    __slots__ = ("arrays", "holders", "loose")

    def __init__(self):
        self.arrays = {}  # id(ndarray) -> weak reference to it
        self.holders = []  # weak references to traced values
        self.loose = False


_GROUPS: dict = {}  # id(ndarray) -> its _Group


def _arrays(x):
    if isinstance(x, Traced):
        x = x.value
    if isinstance(x, np.ndarray):
        yield x
    elif isinstance(x, (list, tuple)):
        for e in x:
            yield from _arrays(e)


def _group_of(a):
    g = _GROUPS.get(id(a))
    if g is not None:
        ref = g.arrays.get(id(a))
        if ref is not None and ref() is a:
            return g
    return None


def _forget(ref, key):
    g = _GROUPS.get(key)
    if g is not None and g.arrays.get(key) is ref:
        del g.arrays[key]
        del _GROUPS[key]


def _join(a, b):
    """The group of `a` and `b`, made or merged."""
    ga, gb = _group_of(a), _group_of(b)
    if ga is None:
        ga, gb = (gb, None) if gb is not None else (_Group(), None)
    if gb is not None and gb is not ga:
        for key, ref in gb.arrays.items():
            ga.arrays[key] = ref
            _GROUPS[key] = ga
        ga.holders += gb.holders
        ga.loose = ga.loose or gb.loose
    for x in (a, b):
        if _group_of(x) is not ga:
            key = id(x)
            ga.arrays[key] = weakref.ref(x, lambda ref, key=key: _forget(ref, key))
            _GROUPS[key] = ga
    return ga


def note_shared(result, inputs):
    """Join the arrays of `result` (what an operation computed) with those of its
    `inputs` (traced or plain) whose memory they may share (a slice, a reshape, the
    same array), the traced inputs as their holders."""
    outs = list(_arrays(result))
    if not outs:
        return
    for x in inputs if isinstance(inputs, (list, tuple)) else [inputs]:
        for t in (x if isinstance(x, (list, tuple)) else [x]):
            for p in _arrays(t):
                for o in outs:
                    if np.may_share_memory(o, p):
                        g = _join(o, p)
                        if isinstance(t, Traced):
                            g.holders.append(weakref.ref(t))


def held(result):
    """`result` of an operation, registered as a holder of its arrays' group: a traced
    value weakly, a plain array as `loose`."""
    if isinstance(result, Traced):
        g = _group_of(result.value) if isinstance(result.value, np.ndarray) else None
        if g is not None:
            g.holders.append(weakref.ref(result))
    elif isinstance(result, (np.ndarray, list, tuple)):
        for a in _arrays(result):
            g = _group_of(a)
            if g is not None:
                g.loose = True
        if isinstance(result, (list, tuple)):
            for e in result:
                if isinstance(e, Traced):
                    held(e)
    return result


def shared(t) -> bool:
    """May an array other than the traced `t`'s own primal, that the function can
    still read, share its memory?"""
    g = _group_of(t.value)
    if g is None:
        return False
    if g.loose:
        return True
    for ref in g.holders:
        h = ref()
        if h is not None and h is not t and isinstance(h.value, np.ndarray) \
                and _group_of(h.value) is g:
            return True
    return False


# ------------------------------------------------------------------ the value


def _operand(x) -> bool:
    return isinstance(x, (int, float, np.ndarray, np.number, Traced)) \
        and not isinstance(x, (complex, np.complexfloating))


def _plain_list(self, other):
    """`other` as NumPy takes it beside the traced array `self`: a list or tuple of
    plain numbers (nested too) an array (``w * [0.5, 2.0]``); None for anything
    else (beside a traced number, a list is Python's sequence)."""
    if isinstance(self.value, np.ndarray) and isinstance(other, (list, tuple)) and \
            not contains_traced(other):
        try:
            got = np.asarray(other)
        except ValueError:  # (a ragged list)
            return None
        return got if got.dtype.kind in "biuf" else None
    return None


def _binary(key, fn):
    def method(self, other):
        if not _operand(other):
            other = _plain_list(self, other)
            if other is None:
                return NotImplemented
        return self.apply(key, fn, (self, other), elementwise=True)

    def reflected(self, other):
        if not _operand(other):
            other = _plain_list(self, other)
            if other is None:
                return NotImplemented
        return self.apply(key, fn, (other, self), elementwise=True)

    return method, reflected


def _unary(key, fn):
    def method(self):
        return self.apply(key, fn, (self,), elementwise=True)

    return method


def _augmented(symbol, name):
    def method(self, other):
        result = getattr(self, name)(other)
        if result is NotImplemented or not isinstance(self.value, np.ndarray):
            return result  # a number: the name gets the new value, as for a float
        self._become(result, symbol)
        return self

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
    if is_nondifferentiable(func) or func is np.full_like and not contains_traced(
            list(args[1:]) + [v for k, v in kwargs.items() if k != "a"]):
        # (``np.full_like(x, 2.0)`` takes `x`'s shape and dtype only)
        out = func(*deep_primal(args), **{k: deep_primal(v) for k, v in kwargs.items()})
        note_shared(out, [args, list(kwargs.values())])
        return held(out)
    inputs, options, call = bind_options(func, args, kwargs, cls.mode)
    return cls.apply(func, call, inputs, options)


def _list_of(x, cls) -> bool:
    """Is `x` a list or tuple holding values traced by `cls` (``np.concatenate([a,
    b])``)? One of lists of them is refused."""
    if not isinstance(x, (list, tuple)):
        return False
    if any(isinstance(e, (list, tuple)) and contains_traced(e) for e in x):
        raise EngineError(f"a list of lists of traced values is not supported by the "
                          f"{cls.engine} engine" + user_place())
    return any(isinstance(e, cls) for e in x)


def traced_parts(args, used, cls) -> list:
    """``(position, item, value)`` for each value traced by `cls` among the inputs at
    `used`: an input itself (`item` None), or an item of a list input."""
    out = []
    for i in used:
        a = args[i]
        if isinstance(a, cls):
            out.append((i, None, a))
        else:
            out.extend((i, k, e) for k, e in enumerate(a) if isinstance(e, cls))
    return out


def part_term(terms, i, k):
    """The term of input `i` (of its item `k` when it is a list input)."""
    t = terms[i]
    return t if k is None or t is None else t[k]


class Traced:
    """A primal value followed by an engine (see the module docstring)."""

    __slots__ = ("value", "__weakref__")
    engine = "traced"  # the engine's name, for messages
    mode = "reverse"  # which rule table the engine reads

    @classmethod
    def evaluate(cls, key, fn, args, options):
        """The shared start of `apply`: ``(out, primals, rule, used)``, where `out` is
        the primitive's value and `used` the positions of inputs traced by this engine
        whose derivative the rule gives; `rule` is None when no input needs one (then
        `out` is the whole answer)."""
        active = [isinstance(a, cls) or _list_of(a, cls) for a in args]
        primals = [a.value if isinstance(a, Traced) else
                   deep_primal(a) if isinstance(a, (list, tuple)) else a for a in args]
        if not any(active) or is_nondifferentiable(key):
            out = fn(*primals, **options)
            note_shared(out, list(args))
            return out, primals, None, []
        if any(type(p) is np.ndarray and p.dtype == object and p.ndim for p in primals):
            # (traced values in a NumPy object array, ``np.array([a, b])``: each step
            # of a loop over it would nest them deeper, at a cost that doubles per step,
            # to fail at the output; refused at the first operation instead)
            raise object_array_error(cls.engine, f"what `{describe(key)}` reads")
        rule = find_rule(key, primals, active, cls.mode, options)
        out = fn(*primals, **options)
        note_shared(out, list(args))  # (a slice, a reshape: a view of an input)
        differentiable = rule.differentiable
        used = [i for i, on in enumerate(active) if on and differentiable[i]]
        return out, primals, (rule if used else None), used

    @classmethod
    def apply(cls, key, fn, args, options=None, elementwise=False):
        raise NotImplementedError

    def _take(self, value, result):
        """Make this traced object `result` (a value of this engine, or a plain value:
        a constant) with the primal `value` (see `_become`)."""
        raise NotImplementedError

    def _become(self, result, symbol):
        """``self op= other`` on a traced array: this object, which every name and
        list holding the array refers to, takes `result`'s value and derivative.
        The primal array is replaced, not written into: what the engine recorded
        before keeps the values it saw."""
        value = result.value if isinstance(result, Traced) else result
        old = self.value
        if np.shape(value) != old.shape:
            raise ValueError(f"non-broadcastable output operand with shape {old.shape} "
                             f"doesn't match the broadcast shape {np.shape(value)}")
        if shared(self):
            raise EngineError(
                f"`{symbol}` changes a traced array in place, and another array may share "
                f"its memory (a slice, a reshape or a transpose of it, or the same array "
                f"given to stop_gradient): the {self.engine} engine cannot follow that"
                f"{user_place()}; write `x = x {symbol[:-1]} v` (a new array) instead")
        value = np.asarray(value).astype(old.dtype, casting="same_kind")
        self._take(value, result)

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

    # in place: on an array, the traced object itself changes (see `_become`)
    __iadd__ = _augmented("+=", "__add__")
    __isub__ = _augmented("-=", "__sub__")
    __imul__ = _augmented("*=", "__mul__")
    __itruediv__ = _augmented("/=", "__truediv__")
    __ifloordiv__ = _augmented("//=", "__floordiv__")
    __imod__ = _augmented("%=", "__mod__")
    __ipow__ = _augmented("**=", "__pow__")
    __imatmul__ = _augmented("@=", "__matmul__")

    def __divmod__(self, other):
        return self // other, self % other

    def __rdivmod__(self, other):
        return other // self, other % self

    def __stop_gradient__(self):
        """What `s2sad.stop_gradient` gives for a traced value: its plain value (the
        same array: marked shared, see `_become`)."""
        if isinstance(self.value, np.ndarray):
            _join(self.value, self.value).loose = True
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
        ufunc = getattr(np, name, None)
        if isinstance(ufunc, np.ufunc) and ufunc.nin == 1 and ufunc.nout == 1:
            # (NumPy's loop over an array of objects, ``np.log([x, y])`` of traced
            # numbers in a list, calls each element's method of the ufunc's name)
            return lambda: self.__array_ufunc__(ufunc, "__call__", self)
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
        # (``W @ x`` with W a plain array: np.matmul, a ufunc with a signature, which
        # is not elementwise)
        return self.apply(UFUNC_KEYS.get(ufunc, ufunc), ufunc, inputs,
                          elementwise=ufunc.signature is None)

    def __array_function__(self, func, types, args, kwargs):
        return array_function(type(self), func, args, kwargs)

    def _dtype(self):
        if not hasattr(self.value, "dtype"):
            raise EngineAttributeError(f"'{type(self.value).__name__}' object has no "
                                       "attribute 'dtype'")
        return self.value.dtype

    def _array(self, what):
        if not isinstance(self.value, np.ndarray):
            raise EngineAttributeError(f"'{type(self.value).__name__}' object has no "
                                       f"attribute {what!r}")
        return self.value

    shape = property(lambda self: self._array("shape").shape)
    ndim = property(lambda self: self._array("ndim").ndim)
    size = property(lambda self: self._array("size").size)
    dtype = property(lambda self: self._dtype())
    T = property(lambda self: array_function(type(self), np.transpose, (self,), {}))

    sum = _array_method(METHODS["sum"])
    mean = _array_method(METHODS["mean"])
    prod = _array_method(METHODS["prod"])
    max = _array_method(METHODS["max"])
    min = _array_method(METHODS["min"])
    dot = _array_method(METHODS["dot"])
    ravel = _array_method(METHODS["ravel"])
    swapaxes = _array_method(METHODS["swapaxes"])
    copy = _array_method(METHODS["copy"])
    cumsum = _array_method(METHODS["cumsum"])
    cumprod = _array_method(METHODS["cumprod"])
    take = _array_method(METHODS["take"])
    repeat = _array_method(METHODS["repeat"])
    diagonal = _array_method(METHODS["diagonal"])
    clip = _array_method(METHODS["clip"])
    flatten = _array_method(METHODS["flatten"])
    squeeze = _array_method(METHODS["squeeze"])
    std = _array_method(METHODS["std"])
    var = _array_method(METHODS["var"])
    trace = _array_method(METHODS["trace"])
    conj = conjugate = _array_method(METHODS["conj"])

    def item(self, *args):
        if args:
            raise EngineError(f".item() with an index, of a traced array, is not supported by "
                              f"the {self.engine} engine{user_place()}; index the array instead")
        if not hasattr(self.value, "item"):
            raise EngineAttributeError(f"'{type(self.value).__name__}' object has no "
                                       "attribute 'item'")
        if not isinstance(self.value, np.ndarray):  # (a NumPy number: float's rule)
            return self.apply(float, lambda v: v.item(), (self,))
        return self.apply(METHODS["item"], lambda v: v.item(), (self,))

    def __copy__(self):
        """``copy.copy(x)`` and ``copy.deepcopy(x)``: a traced array's copy, the
        derivative passing through (a traced object of its own, as ``x.copy()``); a
        number is itself. (The default copied the engine's record with it: a result
        on the copy was looked up on the original's tape.)"""
        if isinstance(self.value, np.ndarray):
            return self.apply(np.copy, np.copy, (self,))
        return self

    def __deepcopy__(self, memo):
        return self.__copy__()

    def astype(self, dtype, copy=True):
        """To a float dtype, from a float value: its copy, the derivative passing
        through (as the compiler's ``x.astype(float)``); else a constant."""
        value = self.value
        if not hasattr(value, "astype"):
            raise EngineAttributeError(f"'{type(value).__name__}' object has no attribute "
                                       "'astype'")
        # (``float`` in shimmed code is the shim's, which names its dtype)
        dtype = np.dtype(getattr(dtype, "numpy_dtype", dtype))
        if dtype.kind == "f" and value.dtype.kind == "f":
            return self.apply(np.copy, lambda v: v.astype(dtype, copy=copy), (self,))
        out = value.astype(dtype, copy=copy)
        note_shared(out, [self])
        return held(out)

    def reshape(self, *shape):
        return self.apply(np.reshape, np.reshape,
                          (self, shape[0] if len(shape) == 1 else shape))

    def transpose(self, *axes):  # (x.transpose(), x.transpose((1, 0)), x.transpose(1, 0))
        return array_function(type(self), np.transpose,
                              (self, axes[0] if len(axes) == 1 else axes or None), {})

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


# an array's methods without a derivative, computed on the values (as the compiler's)
for _method in NONDIFF_METHODS:
    setattr(Traced, _method, _array_method(getattr(np, _method)))
