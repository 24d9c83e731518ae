"""libraries: what a derivative for another library's arrays cannot do.

A derivative specialised on arrays of a library that stands in for NumPy in its code
(`kinds.namespace_of`: JAX, and array-api-strict through `backend.standard`) is the
NumPy text run with that library's functions (`backend.compile`). JAX's arrays
cannot be changed (`_IMMUTABLE`), so what that text changes in place cannot run
there: a write into an array (``y[i] = v`` of the user's code, the
reverse sweep's ``x_bar[i] += g`` for a read ``x[i]``) and ``np.add.at`` (a read
with an index array). `refuse_writes` refuses them at the user's line while the
derivative is built, rather than let JAX's own error come from the generated line.
A write into a list (a list of arrays' adjoints) changes the list, not an array,
and runs.

`refuse_numpy_only` refuses, for any other library's arrays (Dask's too), a
derivative that calls what would give back a NumPy array or compute a Dask graph: a
runtime helper written for NumPy arrays only (`NUMPY_ONLY`: the adjoints of
``np.take``, ``np.take_along_axis``, ``np.diag``, ``np.median``, ``np.quantile``,
``np.cumprod``, ``np.trapezoid``, ``np.interp``, of ``np.prod``'s Hessian,
and of the determinant and decompositions), or a NumPy function the library has no
counterpart of (Dask has no ``np.sort``, ``np.argsort``, ``np.linalg.det``...), or
one it takes over with another meaning (`_OTHERWISE`: Dask's ``np.linalg.cholesky``
is the upper factor); for
array-api-strict, arithmetic on a comparison's booleans (a rule's ``g * (x >= y)``,
``np.cumsum(x == 0)``), which the standard leaves out.

For PyTorch tensors (and array-api-strict arrays), the user's code is made to run
with the tensors' functions as a whole: `run_with_library` gives each call of a user
function that carries no derivative the callee's own lines as a function of the unit
(``g%torch``), and `as_functions` spells NumPy's methods as functions and makes the
NumPy data the code reads tensors (a module's, an object's, what a function run as
written gives).

May import ir and errors.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import numbers
import types

import numpy

from .. import ir
from ..errors import S2SADError
from ..ir.kinds import (NAMESPACES, PENDING, SCALAR, STANDARD, UNKNOWN, ArrayKind, ListKind,
                        ObjectKind, kind_of, libraries_in, library_object)
from ..primitives.facts import METHODS

# The runtime helpers written for NumPy arrays only (they write into NumPy zeros or
# call what neither Dask nor the array API standard has), with the function whose
# derivative calls them
NUMPY_ONLY = {"take_bar": "np.take", "take_along_axis_bar": "np.take_along_axis",
              "diag_bar": "np.diag", "median_bar": "np.median",
              "cumprod_bar": "np.cumprod", "cumprod_bar_dot": "np.cumprod",
              "prod_others_dot": "np.prod",
              "cofactors": "np.linalg.det", "cofactors_dot": "np.linalg.det",
              "eig_inv_t": "np.linalg.eig", "trapezoid_bar": "np.trapezoid",
              "trapezoid_x_bar": "np.trapezoid", "interp_x_bar": "np.interp",
              "interp_fp_bar": "np.interp", "interp_fp_bar_dx": "np.interp",
              "quantile_bar": "np.quantile and np.percentile",
              "quantile_dot": "np.quantile and np.percentile"}


# NumPy functions a library takes over (`__array_function__`) with another meaning,
# which the derivative's rule, NumPy's, would not fit
_OTHERWISE = {"dask": {"np.linalg.cholesky": "gives the upper triangular factor (Dask's "
                                             "cholesky), where NumPy's gives the lower"}}


def refuse(functions: list, acts: list, param_kinds: dict, primal=None) -> dict:
    """For PyTorch tensors and array-api-strict arrays (the libraries run through
    `backend.standard`, `_TAGS`) `run_with_library` (with `primal`, the builder's
    `library_primal`) and `as_functions`; then `refuse_writes`, then
    `refuse_numpy_only`; the helpers the functions now read (``np``, which
    `as_functions` may bring in)."""
    helpers = {}
    standard = set().union(*map(libraries_in, param_kinds.values())) & _TAGS.keys()
    if standard:
        if primal is not None:
            run_with_library(functions, acts, param_kinds, primal, _TAGS[min(standard)])
        as_functions(functions, acts, _narrow(param_kinds))
        helpers["np"] = numpy
    refuse_writes(functions, acts, param_kinds)
    refuse_numpy_only(functions, param_kinds)
    return helpers


def _narrow(param_kinds: dict):
    """``"float32"`` where every float array among the arguments is float32 (the
    user's NumPy data is then made float32 arrays of the library: PyTorch multiplies
    no float64 matrix by a float32 one), else None."""
    floats = {k.exact for kind in param_kinds.values() for k in _arrays_in(kind)
              if k.dtype == "f"}
    return "float32" if floats == {"float32"} else None


def _arrays_in(kind) -> list:
    """The array kinds in `kind` (a container's items too)."""
    if isinstance(kind, ArrayKind):
        return [kind]
    if isinstance(kind, tuple):
        return [a for k in kind for a in _arrays_in(k)]
    if isinstance(kind, ListKind):
        return _arrays_in(kind.elem)
    return []


def as_functions(functions: list, acts: list, narrow=None):
    """Spell every NumPy method of an array among `functions` (``x.std()``,
    ``g.sum(axis=0)``, ``x.T``, ``x.size``) as the NumPy function it is
    (``np.std(x)``), in place (each function's IR is first copied: a unit's IR may
    share its trees with the stages it came from). A PyTorch tensor has methods of
    the same names that compute something else (``std`` and ``var`` unbiased,
    ``size`` a method, ``max(0)`` a pair); the functions are the namespace's
    (`backend.torch_numpy`), which compute what NumPy's do. A receiver the activity
    analysis knows to be a list, dict or number keeps its method (``xs.copy()``), and
    one of unknown kind (``self.W``) its ``copy()`` only. An element read (``x[i]``)
    is copied (`_element`). The NumPy data a function reads is made the library's
    wherever it is read (``np.from_numpy``, which passes anything else through;
    `_Functions.data`): a global's or closure's (``SETTINGS["w"]``), an attribute of
    an object parameter (``self.W``), an item of a local holding such data, and the
    result of a function run as written (`_as_written`). (An array-api-strict array
    has none of these methods: code written for it does not call them.)"""
    for uf in functions:
        kinds = [act.kinds for func, act in acts if func is uf.user]
        uf.fn = uf.fn.clone()
        local = ir.local_names(uf.fn)
        modules = {n for n, v in getattr(uf.user, "__globals__", {}).items()
                   if isinstance(v, types.ModuleType)} | {
            n for n, v in uf.fn.refs.items() if isinstance(v, types.ModuleType)}
        objects = {p.name for p in uf.fn.params
                   if isinstance(_kind_of(p.name, kinds), ObjectKind)}
        held: set = set()
        functions_of = _Functions(kinds, local, modules, objects, uf.fn.refs, held, narrow)
        rewrite = functions_of.visit
        kept = _Functions(kinds, local, modules, objects, uf.fn.refs, None).visit
        for s in ir.walk(uf.fn.body):
            if isinstance(s, ir.Assign) and (_as_written(s.value, uf.fn.refs) or
                                             functions_of.data(s.value)):
                held.update(s.targets)  # (the user's data: its items are too)
            kind = _kind_of(s.targets[0], kinds) if isinstance(s, ir.Assign) else None
            if isinstance(s, ir.Assign) and not s.unpack and \
                    _as_written(s.value, uf.fn.refs) and \
                    (kind in (None, UNKNOWN) or isinstance(kind, ArrayKind)):
                # (a NumPy array a function run with NumPy gives: the library's;
                # `backend.standard`'s from_numpy passes anything else through)
                s.value = _call("np.from_numpy", [s.value])
            visit = kept if isinstance(s, ir.Kept) else rewrite
            for field, value in vars(s).items():
                if isinstance(value, ast.Subscript) and field == "target":
                    # (written into, not read: its container and index only)
                    if not isinstance(value.value, ast.Name):
                        value.value = visit(value.value)
                    value.slice = visit(value.slice)
                elif isinstance(value, ast.AST):
                    setattr(s, field, visit(value))
                elif isinstance(value, list) and any(isinstance(v, ast.AST) for v in value):
                    setattr(s, field, [visit(v) if isinstance(v, ast.AST) else v
                                       for v in value])


def run_with_library(functions: list, acts: list, param_kinds: dict, primal, tag="torch"):
    """Give each call among `functions` of a user's function that carries no
    derivative (``g_rows(self.M * 2)``, which would run as written, with NumPy) a
    function of the unit instead: ``g_rows%torch``, `primal` of the callee for the
    call's argument kinds (its lines are the unit's, so `as_functions` makes them run
    with the tensors' functions as it does the derivative's). Appended to
    `functions`, whose calls are then looked at in turn; `acts` gets each one's
    activity. A callee s2sad cannot read, or whose code calls what PyTorch has no
    counterpart of, stays as written (`as_functions` makes its result a tensor)."""
    made: dict = {}  # (callee, kinds) -> the unit function's IR name, or None
    todo = list(functions)
    while todo:
        uf = todo.pop(0)
        kinds = [act.kinds for func, act in acts if func is uf.user]
        names = []
        for call in _calls(uf.fn):
            callee = uf.fn.refs.get(ir.dotted(call.func) or "")
            arg_kinds = _call_kinds(call, callee, kinds, uf.fn.refs) if _readable(callee) \
                else None
            if arg_kinds is None:
                names.append(None)
                continue
            if sum(c is callee for c, _ in made) >= _COPIES:
                # (a recursive callee whose arguments' kinds change at every depth, a
                # tuple that grows: one more copy for arguments of any kind)
                arg_kinds = dict.fromkeys(arg_kinds, UNKNOWN)
            key = (callee, tuple(sorted(arg_kinds.items())))
            if key not in made:
                made[key] = _library_function(callee, arg_kinds, functions, todo, made,
                                              param_kinds, primal, tag)
            names.append(made[key])
        if any(names):
            uf.fn = uf.fn.clone()  # (its IR may be shared with the stages')
            for call, name in zip(_calls(uf.fn), names):
                if name is not None:
                    call.func = ir.name(name)


def _calls(fn: ir.Function) -> list:
    """The calls in `fn`'s statements (not in those it keeps as written), in order."""
    return [n for s in ir.walk(fn.body) if not isinstance(s, ir.Kept)
            for v in _values(s) for n in ast.walk(v) if isinstance(n, ast.Call)]


def _library_function(callee, arg_kinds, functions, todo, made, param_kinds, primal, tag):
    """The IR name of the unit function `primal` makes of `callee` (``g%torch``, the
    library's `tag`), appended to `functions` and `todo`; None where it cannot be
    made."""
    base = callee.__name__ if callee.__name__.isidentifier() else "lambda"
    n = sum(1 for (c, _), v in made.items() if v is not None and c.__name__ == callee.__name__)
    name = f"{base}%{tag}" + ("" if n == 0 else f"%{n + 1}")
    try:
        uf = primal(callee, arg_kinds, name)
        refuse_numpy_only([uf], param_kinds)
    except S2SADError:
        return None
    functions.append(uf)
    todo.append(uf)
    return name


def _readable(callee) -> bool:
    """Is `callee` a function of the user's, written in Python (not a library's)?"""
    return isinstance(callee, types.FunctionType) and not library_object(callee)


_UNSEEN = object()  # (what `_Functions.data` finds for a read of no value it knows)

# (the most copies `run_with_library` makes of one callee for arguments of given kinds)
_COPIES = 4


def _call_kinds(call: ast.Call, callee, kinds: list, refs: dict):
    """{parameter of `callee`: the kind of what `call` passes it (a local's, a
    literal's, a global's by its value), unknown for an expression}, or None where
    the call does not bind its parameters one by one (``*args``, ``**kw``)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return None
    try:
        sig = inspect.signature(callee)
        bound = sig.bind(*call.args, **{k.arg: k.value for k in call.keywords})
    except (TypeError, ValueError):
        return None
    out = {}
    for name, value in bound.arguments.items():
        if sig.parameters[name].kind in (inspect.Parameter.VAR_POSITIONAL,
                                         inspect.Parameter.VAR_KEYWORD):
            return None
        if isinstance(value, (ast.Constant, ast.Tuple, ast.List)):
            try:
                out[name] = kind_of(ast.literal_eval(value))  # (``(1.0, 2.0)``)
            except (ValueError, TypeError):
                out[name] = UNKNOWN
        elif isinstance(value, ast.Name):
            out[name] = _kind_of(value.id, kinds) or (
                kind_of(refs[value.id], items=False) if value.id in refs else UNKNOWN)
        else:
            out[name] = UNKNOWN
    return out


def _constant(expr, local: set, modules: set, objects=frozenset()) -> bool:
    """Is `expr` a global's or closure's value, or an item or attribute of one
    (``W``, ``SETTINGS["w"]``, ``config.w``), not a module's (``math.pi``), or an
    attribute of an object among the parameters `objects` (``self.W``)?"""
    held = False
    while isinstance(expr, (ast.Subscript, ast.Attribute)):
        held = held or isinstance(expr, ast.Attribute)
        expr = expr.value
    return isinstance(expr, ast.Name) and (
        expr.id not in local and expr.id not in modules or held and expr.id in objects)


def _as_written(expr, refs: dict) -> bool:
    """Is `expr` a call of a function of Python that runs as written, with NumPy
    (one `run_with_library` could not give the unit; not NumPy's own)?"""
    if not isinstance(expr, ast.Call):
        return False
    callee = refs.get(ir.dotted(expr.func) or "")
    return isinstance(callee, types.FunctionType) and \
        not (getattr(callee, "__module__", None) or "").partition(".")[0] == "numpy"


def _kind_of(name, kinds: list):
    """The kind the activity analyses `kinds` give the IR name `name`, or that of
    the name it is derived from (an adjoint's ``x%bar``, a tangent's ``x%dot``, a
    version's ``x%1``); None where they give none."""
    if not isinstance(name, str):
        return None
    for k in kinds:
        for n in (name, name.removesuffix("%bar"), name.removesuffix("%dot"),
                  name.split("%")[0]):
            if n in k:
                return k[n]
    return None


# NumPy's scalar types, which the standard's names hold as dtypes (not callable)
_SCALAR_TYPES = frozenset(f"np.{t}" for t in ("float64", "float32", "float16", "int64",
                                              "int32", "int16", "int8", "uint8", "bool_"))


class _Functions(ast.NodeTransformer):
    """`as_functions` of one expression."""

    def __init__(self, kinds: list, local: set, modules: set, objects: set, refs: dict,
                 held, narrow=None):
        self.kinds, self.local, self.modules, self.objects = kinds, local, modules, objects
        self.refs = refs
        # (``np.from_numpy(W, np.float32)`` where the arguments are float32)
        self.dtype = [] if narrow is None else [ast.parse(f"np.{narrow}", mode="eval").body]
        # the locals holding the user's data (None: its reads are left as they are, in
        # a statement kept as written)
        self.held = held

    def visit(self, node):
        if self.held is not None and isinstance(node, (ast.Name, ast.Subscript,
                                                       ast.Attribute)) \
                and isinstance(node.ctx, ast.Load) and self.data(node):
            # (the user's data, wherever it is read: an argument of a NumPy function
            # that takes no NumPy array beside a tensor, ``np.concatenate([x, B])``,
            # ``np.outer(g, v)``, an operand, ``SETTINGS["w"] * s``; its indices are
            # read as they are)
            part = node
            while isinstance(part, (ast.Subscript, ast.Attribute)):
                if isinstance(part, ast.Subscript):
                    part.slice = self.visit(part.slice)
                part = part.value
            return _call("np.from_numpy", [node] + [ir.copy_tree(d) for d in self.dtype])
        return super().visit(node)

    def data(self, node) -> bool:
        """Is `node` a read of the user's data, which may hold NumPy arrays: a
        global's or closure's value, an item or attribute of one, an attribute of an
        object parameter (``self.W``), an item of a local holding such data (`held`);
        not a function, class or module, nor a number or a string?"""
        root = node
        while isinstance(root, (ast.Subscript, ast.Attribute)):
            root = root.value
        if not isinstance(root, ast.Name) or not (
                _constant(node, self.local, self.modules, self.objects) or
                root is not node and root.id in (self.held or ())):
            return False
        text = ir.dotted(node)
        value = self.refs.get(text, _UNSEEN) if text is not None else _UNSEEN
        return value is _UNSEEN or not (callable(value) or isinstance(value, (
            types.ModuleType, numbers.Number, str, bytes, type(None))))

    def visit_Call(self, node):
        func = node.func
        if ir.dotted(func) == "np.from_numpy":
            return node  # (made the library's already: a gradient's text, differentiated)
        if ir.dotted(func) in _SCALAR_TYPES and len(node.args) == 1 and not node.keywords:
            # (``np.float32(0.5)``: a dtype is no type to call in the standard's names)
            return ast.copy_location(_call("np.asarray", [self.visit(node.args[0])], [
                ast.keyword(arg="dtype", value=func)]), node)
        if isinstance(func, ast.Attribute) and func.attr == "astype" and node.args and (
                self._array(func.value) or self._kind(func.value) in (UNKNOWN, PENDING)):
            # (a tensor has no ``astype`` method; the standard's function is NumPy's)
            return ast.copy_location(_call("np.astype", [self.visit(func.value)] + [
                self.visit(a) for a in node.args], [ast.keyword(arg=k.arg, value=self.visit(
                    k.value)) for k in node.keywords]), node)
        if isinstance(func, ast.Attribute):
            func.value = self.visit(func.value)  # (a method's receiver)
        elif not isinstance(func, ast.Name):
            node.func = self.visit(func)
        node.args = [self.visit(a) for a in node.args]
        for k in node.keywords:
            k.value = self.visit(k.value)
        if not (isinstance(func, ast.Attribute) and func.attr in METHODS) or \
                func.attr == "item":  # (a tensor's is NumPy's)
            return node
        name = func.attr
        if not (self._array(func.value) or name != "copy" and self._kind(func.value) in (
                UNKNOWN, PENDING)):
            # (a value of unknown kind, an attribute of an object: as a tensor, its
            # ``std()`` would be unbiased; a list's or dict's ``copy()`` stays)
            return node
        args = list(node.args)
        if name in _PACKED and (len(args) > 1 or args and isinstance(args[0], ast.Constant)
                                and isinstance(args[0].value, int)):
            args = [ast.Tuple(elts=args, ctx=ast.Load())]  # x.reshape(2, 3)
        call = _call(f"np.{METHODS[name].__name__}", [func.value] + args, node.keywords)
        return _call("np.copy", [call]) if name == "flatten" else call  # (a copy: NumPy's)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        # (a list beside an array, a ufunc's tangent ``np.cos(t) * t_dot``: NumPy
        # makes it an array, a tensor's operator does not)
        if self._numbers(node.left) and self._surely_array(node.right):
            node.left = _call("np.asarray", [node.left])
        elif self._numbers(node.right) and self._surely_array(node.left):
            node.right = _call("np.asarray", [node.right])
        if not isinstance(node.op, _LOGICAL):
            # (a number times booleans, a rule's ``g * (x > y)`` or a mask's name:
            # PyTorch makes it float32, its default; as an array, the number is float64)
            if self._not_float(node.right) and self._may_be_float(node.left):
                node.left = _call("np.asarray", [node.left])
            elif self._not_float(node.left) and self._may_be_float(node.right):
                node.right = _call("np.asarray", [node.right])
        if isinstance(node.op, ast.MatMult):
            # (NumPy's product of a float64 array and a float32 one, a mask's adjoint
            # and a float32 argument: the standard's `matmul` promotes as NumPy does, a
            # tensor's ``@`` refuses the two dtypes)
            return ast.copy_location(_call("np.matmul", [node.left, node.right]), node)
        return node

    def _may_be_float(self, operand) -> bool:
        """May `operand` be a Python float: not an array of floats, which keeps its
        dtype, nor anything but a number (a display, a string, an int literal, a name
        the analysis knows holds an int or a container), nor a maybe-integer array?"""
        if isinstance(operand, ast.Constant):
            return isinstance(operand.value, float)
        if isinstance(operand, (ast.Tuple, ast.List, ast.Dict, ast.Set, ast.JoinedStr,
                                ast.ListComp, ast.DictComp, ast.SetComp)):
            return False
        kind = self._kind(operand)
        return (kind is None or kind in (SCALAR, UNKNOWN, PENDING)) and \
            not self._not_float(operand)

    def _not_float(self, operand) -> bool:
        """May `operand` be an array of booleans or integers, which NumPy makes
        float64 beside a Python float, and PyTorch its default float32: a comparison,
        a name of such an array, or of a value whose kind the analysis does not know?"""
        if _boolean(operand):
            return True
        kind = self._kind(operand)
        if isinstance(kind, ArrayKind):
            return kind.dtype != "f"
        return isinstance(operand, ast.Name) and operand.id in self.local and \
            kind in (None, UNKNOWN, PENDING)


    def _numbers(self, operand) -> bool:
        """Is `operand` a name of a list (which NumPy makes an array beside one)?"""
        return isinstance(self._kind(operand), ListKind)

    def _surely_array(self, operand) -> bool:
        """Is `operand` an array: a name of one, or a call of a NumPy function?"""
        return isinstance(self._kind(operand), ArrayKind) or isinstance(operand, ast.Call) \
            and (ir.dotted(operand.func) or "").startswith("np.")

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr in ("size", "T") and isinstance(node.ctx, ast.Load) and \
                self._array(node.value):
            return _call("np.size" if node.attr == "size" else "np.transpose", [node.value])
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and self._element(node):
            return _call("np.copy", [node])
        return node

    def _element(self, node) -> bool:
        """Does `node` (``x[i]``, ``x[i, j]``) read one element of an array: an index
        of no slice, None or ellipsis, one per axis of `x` where its rank is known?
        NumPy gives a number, a copy; a tensor's index gives a 0-d view of it, which a
        later write into the array (the reverse sweep's ``x_bar[i] = 0.0`` after
        ``g = x_bar[i]``) would change."""
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if any(isinstance(p, (ast.Slice, ast.Starred)) or isinstance(p, ast.Constant) and
               not isinstance(p.value, int) for p in parts) or not self._array(node.value):
            return False
        kind = self._kind(node.value)
        return not isinstance(kind, ArrayKind) or kind.ndim is None or kind.ndim == len(parts)

    def _kind(self, receiver):
        """The kind of `receiver` (a name) the activity analysis gives, or None."""
        return _kind_of(receiver.id, self.kinds) if isinstance(receiver, ast.Name) else None

    def _array(self, receiver) -> bool:
        """May `receiver` be an array: a local (not a module, nor a list, dict,
        tuple or number the activity analysis knows of), or an expression?"""
        if not isinstance(receiver, ast.Name):
            return not isinstance(receiver, (ast.List, ast.Tuple, ast.Dict, ast.Constant))
        kind = self._kind(receiver)
        return receiver.id in self.local if kind is None else isinstance(kind, ArrayKind)


def refuse_writes(functions: list, acts: list, param_kinds: dict):
    """Refuse, at the user's line, the first write into an array among `functions`
    (`builder.UnitFunction`s) when `param_kinds` name a library whose arrays cannot
    be changed (`_IMMUTABLE`); `acts` (``(user function, activity)`` pairs) say which containers
    are lists."""
    library = min(set().union(*map(libraries_in, param_kinds.values())) & _IMMUTABLE,
                  default=None)
    if library is None:
        return
    for uf in functions:
        kinds = [act.kinds for func, act in acts if func is uf.user]
        for s in ir.walk(uf.fn.body):
            container = _written(s)
            if container is not None and not _a_list(container, kinds):
                _refuse(uf.fn.source, s, library)


def refuse_numpy_only(functions: list, param_kinds: dict):
    """Refuse, at the user's line, the first call among `functions` of a NumPy-only
    helper (`NUMPY_ONLY`) or of a NumPy function (``np.sort``, ``np.linalg.det``)
    the library of `param_kinds`' arrays has no counterpart of."""
    libraries = set().union(*map(libraries_in, param_kinds.values()))
    if not libraries:
        return
    library = min(libraries)
    module = importlib.import_module(NAMESPACES.get(library, f"{library}.array"))
    shown = _NAMES.get(library, library.capitalize())
    for uf in functions:
        # (a statement a rule added, or one hoisted before the first, has no line of
        # its own: the user's line before it, or the function's first; the forward
        # derivative of a gradient has none at all: the user's `def` line)
        line = next((s.line for s in ir.walk(uf.fn.body) if s.line), None) or (
            uf.fn.source.first_line if uf.fn.source is not None else None)
        for s in ir.walk(uf.fn.body):
            line = s.line or line
            target = getattr(s, "target", None)
            if library in ("dask", "array_api_strict") and isinstance(
                    target, ast.Subscript) and any(isinstance(n, ast.Constant) and
                                                   n.value is None
                                                   for n in ast.walk(target.slice)):
                raise _error(uf.fn.source, line, f"with {shown} arrays, the derivative would "
                             "write into an array through an index with None (the adjoint "
                             f"of reading x[:, None]), which {shown} cannot: not supported "
                             "yet", "Write np.expand_dims(x, 1) for x[:, None], or pass "
                             "NumPy arrays (docs/guide/arrays.md).")
            if library == "torch" and any(map(_backwards, _values(s))):
                raise _error(uf.fn.source, line, "with PyTorch tensors, the derivative slices "
                             "with a negative step here (x[::-1], or its adjoint), which "
                             "PyTorch cannot: not supported yet", "Write np.flip(x, axis) "
                             "for x[::-1], or pass NumPy arrays (docs/guide/arrays.md).")
            if library == "array_api_strict" and any(map(_bool_arithmetic, _values(s))):
                raise _error(uf.fn.source, line, "with array-api-strict arrays, the "
                             "derivative does arithmetic on a comparison's booleans here "
                             "(an adjoint times a mask), which the array API standard "
                             "leaves out: not supported yet", "Pass NumPy arrays for this "
                             "function (docs/guide/arrays.md).")
            order = _norm_order(s)
            if order is not None:
                raise _error(uf.fn.source, line, f"with {shown} "
                             f"{_NOUNS.get(library, 'arrays')}, np.linalg.norm with "
                             f"ord={order!r} is not supported yet (its derivative is written "
                             "for NumPy arrays, and the array API standard has only the 2-norm "
                             "of vectors and the Frobenius norm)", "Write the norm out "
                             "(np.sum(np.abs(x)) for ord=1), or pass NumPy arrays "
                             "(docs/guide/arrays.md).")
            for name in _called(s):
                if name in _OTHERWISE.get(library, {}):
                    why = f"{name} {_OTHERWISE[library][name]}"
                elif name in NUMPY_ONLY:
                    why = (f"the derivative of {NUMPY_ONLY[name]} (s2sad's `{name}`) is "
                           "written for NumPy arrays only")
                elif name.split(".")[0] in ("np", "numpy") and not _has(module, name):
                    why = f"the derivative calls {name}, which {shown} has no counterpart of"
                elif library in NAMESPACES and _scipy(uf, name):
                    why = (f"the derivative calls {name}, SciPy's, which computes with NumPy "
                           f"arrays (the {_NOUNS.get(library, 'arrays')} would become "
                           "NumPy arrays)")
                else:
                    continue
                raise _error(uf.fn.source, line, f"with {shown} {_NOUNS.get(library, 'arrays')}"
                             f", {why}: not supported yet", "Pass NumPy arrays for this "
                             "function (docs/guide/arrays.md lists what works with which "
                             "library).")


def _values(s) -> list:
    """The expressions of the statement `s` (not of the statements it holds)."""
    return [v for v in vars(s).values() if isinstance(v, ast.AST)]


def _norm_order(s):
    """The order written in the statement `s`'s call of ``np.linalg.norm`` (its
    ``ord``) where it is a constant other than None, 2 and "fro"; else None."""
    for value in _values(s):
        for node in ast.walk(value):
            if isinstance(node, ast.Call) and ir.dotted(node.func) in (
                    "np.linalg.norm", "numpy.linalg.norm"):
                given = node.args[1:2] + [k.value for k in node.keywords if k.arg == "ord"]
                for x in given:
                    order = x.value if isinstance(x, ast.Constant) else \
                        -x.operand.value if isinstance(x, ast.UnaryOp) and isinstance(
                            x.op, ast.USub) and isinstance(x.operand, ast.Constant) else \
                        float(ir.dotted(x).rpartition(".")[2]) if ir.dotted(x) in (
                            "np.inf", "numpy.inf") else None
                    if order is not None and order not in (2, "fro"):
                        return order
    return None


def _called(s):
    """The dotted names of the functions the statement `s` calls."""
    for value in _values(s):
        for node in ast.walk(value):
            if isinstance(node, ast.Call):
                name = ir.dotted(node.func)
                if name:
                    yield name


def _backwards(expr) -> bool:
    """Does `expr` slice with a negative step written as a number (``x[::-1]``)?"""
    for n in ast.walk(expr):
        if isinstance(n, ast.Slice) and n.step is not None:
            step = n.step
            if isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub):
                return True
            if isinstance(step, ast.Constant) and isinstance(step.value, (int, float)) \
                    and step.value < 0:
                return True
    return False


def _bool_arithmetic(expr) -> bool:
    """Does `expr` do arithmetic on a comparison's booleans (``g * (x >= y)``, a rule's
    mask, or ``np.cumsum(x == 0)``), which the array API standard leaves out
    (array-api-strict refuses it)?"""
    return any(isinstance(n, ast.BinOp) and not isinstance(n.op, _LOGICAL)
               and (_boolean(n.left) or _boolean(n.right)) or isinstance(n, ast.Call)
               and ir.dotted(n.func) in _COUNTING and n.args and _boolean(n.args[0])
               for n in ast.walk(expr))


# NumPy's functions that count a comparison's booleans (``np.cumsum(x == 0)``)
_COUNTING = {"np.sum", "np.cumsum", "np.mean", "np.prod", "np.cumprod"}


_LOGICAL = (ast.BitAnd, ast.BitOr, ast.BitXor)


def _boolean(e) -> bool:
    """Is `e` a comparison, or a logical combination or negation of one?"""
    if isinstance(e, ast.BinOp) and isinstance(e.op, _LOGICAL):
        return _boolean(e.left) or _boolean(e.right)
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Invert):
        return _boolean(e.operand)
    return isinstance(e, ast.Compare)


def _scipy(uf, name: str) -> bool:
    """Is the dotted `name` SciPy's, in the function `uf` (a name its IR refers to,
    imported inside it too, or one of its user function's globals)?"""
    parts = name.split(".")
    got = uf.fn.refs.get(parts[0], getattr(uf.user, "__globals__", {}).get(parts[0]))
    for part in [None] + parts[1:]:
        got = got if part is None else getattr(got, part, None)
        module = got.__name__ if isinstance(got, types.ModuleType) else getattr(
            got, "__module__", None)
        if isinstance(module, str) and module.partition(".")[0] == "scipy":
            return True
    return False


def _has(module, name: str) -> bool:
    """Has `module` (``dask.array``, ``jax.numpy``) the counterpart of the NumPy name
    `name` (``np.sort``, ``np.linalg.det``, ``np.add.at``)?"""
    got = module
    for part in name.split(".")[1:]:
        got = getattr(got, part, None)
        if got is None:
            return False
    return True


def _written(s):
    """The container `s` writes into in place (a name; "" where it is not a name), or
    None for a statement that writes into none."""
    if isinstance(s, ir.SetItem) or isinstance(s, ir.AugAssign) and \
            isinstance(s.target, ast.Subscript):
        value = s.target.value
        return value.id if isinstance(value, ast.Name) else ""
    if isinstance(s, ir.Expr) and isinstance(s.value, ast.Call):
        name = ir.dotted(s.value.func) or ""
        if name.endswith(".at") and s.value.args:  # np.add.at(a, i, v)
            target = s.value.args[0]
            return target.id if isinstance(target, ast.Name) else ""
    return None


def _a_list(name: str, kinds: list) -> bool:
    """Is `name` (an IR name of the user's function: ``xs``, ``xs%1``, ``xs%bar``)
    a list, by what the activity analyses of that function say of it or of the
    name it is derived from?"""
    return isinstance(_kind_of(name, kinds), ListKind)


def _refuse(info, s, library: str):
    raise _error(
        info, s.line, f"with {_NAMES.get(library, library)} "
        "arrays, the derivative would write into an array in place here "
        "(an assignment to an element or a slice, or the gradient of reading one), and "
        f"{_NAMES.get(library, library)} arrays cannot be changed: not supported yet",
        "Build the array without writes into it (np.where, np.concatenate, "
        "np.stack), compute with whole arrays rather than elements, or pass NumPy "
        "arrays (docs/guide/arrays.md).")


def _error(info, line, message: str, hint: str) -> S2SADError:
    """`message` about the line `line` of the function `info`."""
    line = line or None
    text = info.line_text(line) if info is not None and line else None
    return S2SADError(
        f"{info.qualname if info else 'the function'}: {message}",
        filename=info.filename if info else None, lineno=line,
        col=(len(text) - len(text.lstrip())) if text else None, source_line=text,
        hint=hint)


def _call(function: str, args: list, keywords=()) -> ast.Call:
    """The call of the dotted name `function` with `args` and `keywords`."""
    return ast.Call(func=ast.parse(function, mode="eval").body, args=args,
                    keywords=list(keywords))


# The methods taking a shape or axes by position as well as in a tuple
_PACKED = ("reshape", "transpose")

_NAMES = {"jax": "JAX", "array_api_strict": "array-api-strict", "torch": "PyTorch"}
# the libraries whose derivatives run the user's code with their functions as a whole
# (`run_with_library`, `as_functions`), with what a function run so is named after
_TAGS = dict(zip(STANDARD, ("torch", "strict")))
_NOUNS = {"torch": "tensors"}  # (what a library's arrays are called, where not arrays)
_IMMUTABLE = {"jax"}  # (the libraries whose arrays cannot be changed)
