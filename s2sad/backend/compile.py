"""compile: an emitted unit -> Python function objects.

Contract
--------
`compile_unit(unit)` compiles each function of a `pipeline.Unit` from its emitted text,
once; `bind(unit)` turns the compiled code into function objects that

* read the user's names from the user's own live module globals (each derivative
  function runs in the globals of the user function it derives from) and the user's
  own closure cells;
* read s2sad's helpers (``math`` for the rules, the runtime) and the unit's other
  functions through closure cells, which is as fast as a local lookup and leaves the
  user's globals untouched;
* carry the user function's defaults, so a derivative is called exactly like the
  function it derives from.

With `namespace` (``"jax.numpy"``: `kinds.namespace_of` the arguments' kinds, for
arrays of a library that does not take over NumPy's functions), the text is the same
and every name it reads that means NumPy (the ``np`` helper, the user's own alias of
``numpy`` or of one of its modules, a NumPy function imported by name) reads, through
a closure cell, that module's counterpart (``jax.numpy``, ``jax.numpy.linalg``,
``jax.numpy.tanh``) instead, so the derivative calls the arguments' library; the
user's globals stay as they are.

The source of each compiled function is registered in `linecache` under a synthetic
file name (``<s2sad-N f_grad>``), so tracebacks and debuggers show the generated lines.
To give the emitted names closure cells, each function is compiled inside a small
factory (``def __s2sad_factory__(): math = g_fwd = None`` and the function, indented);
the factory is never called, its inner code object is used directly.

Of the unit, both read only `functions` (each one's ``fn.name``, `user` and
`keep_defaults`), `namer`, `helpers` and `texts`: a unit rebuilt from the disk cache
(`diskcache.CachedUnit`) has just these, and compiles exactly as the unit it was
stored from.
"""

from __future__ import annotations

import ast
import importlib
import itertools
import linecache
import sys
import types
from dataclasses import dataclass

_counter = itertools.count(1)
FACTORY = "__s2sad_factory__"


@dataclass(eq=False)
class Compiled:
    codes: dict  # IR name -> code object
    filenames: dict  # IR name -> synthetic file name
    offsets: dict  # IR name -> lines before the emitted text in the compiled source
    # with a `namespace`: the objects that stand in for the names meaning NumPy
    swapped: dict = None


def compile_unit(unit, namespace: str | None = None) -> Compiled:
    namer = unit.namer
    shared = [namer(uf.fn.name) for uf in unit.functions] + sorted(unit.helpers)
    codes, filenames, offsets = {}, {}, {}
    swapped = None
    if namespace is not None:
        xp = importlib.import_module(namespace)
        swapped = {n: counterpart(obj, xp) for n, obj in unit.helpers.items()
                   if counterpart(obj, xp) is not obj}
        for uf in unit.functions:
            for n in _global_reads(unit.texts[uf.fn.name]):
                if n in uf.user.__globals__ and n not in unit.helpers:
                    obj = counterpart(uf.user.__globals__[n], xp)
                    if obj is not uf.user.__globals__[n]:
                        swapped[n] = obj
        shared += sorted(set(swapped) - set(shared))
    for uf in unit.functions:
        text = unit.texts[uf.fn.name]
        rendered = namer(uf.fn.name)
        declared = list(dict.fromkeys(shared + list(uf.user.__code__.co_freevars)))
        header = [f"def {FACTORY}():"]
        if declared:
            header.append("    " + " = ".join(declared) + " = None")
        body = ["    " + line if line else "" for line in text.splitlines()]
        source = "\n".join(header + body) + "\n"
        filename = f"<s2sad-{next(_counter)} {rendered}>"
        lines = source.splitlines(keepends=True)
        linecache.cache[filename] = (len(source), None, lines, filename)
        module_code = compile(source, filename, "exec")
        factory = _inner(module_code, FACTORY)
        codes[uf.fn.name] = _inner(factory, rendered)
        filenames[uf.fn.name] = filename
        offsets[uf.fn.name] = len(header)
        printed = getattr(unit, "printed", None)
        if printed is not None and uf.fn.name in printed.spans:
            first, end = printed.spans[uf.fn.name]
            ORIGINS[filename] = (uf.user.__code__.co_filename, uf.user.__qualname__, rendered,
                                 [0] * len(header) + printed.line_map[first:end])
    return Compiled(codes, filenames, offsets, swapped)


def counterpart(obj, xp):
    """What stands in for `obj` in the namespace `xp` (a module, ``jax.numpy``): `xp`
    for NumPy itself, ``xp.linalg`` for ``numpy.linalg``, ``xp.tanh`` for NumPy's
    ``tanh``; `obj` itself for anything else, and for what `xp` does not have."""
    np = sys.modules.get("numpy")
    if np is None:
        return obj
    if obj is np:
        return xp
    if isinstance(obj, types.ModuleType):
        if not obj.__name__.startswith("numpy."):
            return obj
        got = xp
        for part in obj.__name__.split(".")[1:]:
            got = getattr(got, part, None)
        return obj if got is None else got
    name = getattr(obj, "__name__", None)
    if isinstance(name, str) and callable(obj):
        for module, other in ((np, xp), (np.linalg, getattr(xp, "linalg", None))):
            if getattr(module, name, None) is obj:
                return getattr(other, name, obj)
    return obj


def _global_reads(text: str) -> set:
    """The names the emitted `text` of one function reads that it does not assign (the
    globals, builtins and helpers it reads; a superset is harmless: `compile_unit`
    keeps those the user's globals bind to something of NumPy's)."""
    tree = ast.parse(text)
    loads, stores = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loads if isinstance(node.ctx, ast.Load) else stores).add(node.id)
        elif isinstance(node, ast.arg):
            stores.add(node.arg)
    return loads - stores


# synthetic file name -> (user's file, user function's name, derivative's name, user
# line of each line of the compiled text)
ORIGINS: dict = {}


def explain(exc: BaseException) -> None:
    """If `exc` was raised in generated code, add a note naming the user's line that
    the failing generated line comes from (the traceback shows the generated line).
    Called by the entry points when a derivative raises; never on the fast path."""
    tb, found = exc.__traceback__, None
    while tb is not None:
        origin = ORIGINS.get(tb.tb_frame.f_code.co_filename)
        if origin is not None:
            found = origin, tb.tb_lineno
        tb = tb.tb_next
    if found is None or getattr(exc, "_s2sad_explained", False):
        return
    (filename, qualname, rendered, lines), lineno = found
    line = lines[lineno - 1] if 0 < lineno <= len(lines) else 0
    if not line:
        return
    text = linecache.getline(filename, line).strip()
    note = (f"s2sad: {rendered} (the derivative of {qualname}) raised this working on "
            f"{filename}:{line}" + (f"\n    {text}" if text else ""))
    try:
        exc.add_note(note)
        exc._s2sad_explained = True
    except AttributeError:  # Python 3.10 has no notes; an exception without __dict__
        pass


def _inner(code: types.CodeType, name: str) -> types.CodeType:
    for const in code.co_consts:
        if isinstance(const, types.CodeType) and const.co_name == name:
            return const
    raise RuntimeError(f"s2sad internal error: no code for {name}")


def bind(unit, compiled: Compiled) -> dict:
    """Function objects for every function of the unit, by IR name."""
    namer = unit.namer
    cells = {namer(uf.fn.name): types.CellType() for uf in unit.functions}
    for name, obj in unit.helpers.items():
        cells[name] = types.CellType(obj)
    for name, obj in (compiled.swapped or {}).items():
        cells[name] = types.CellType(obj)
    made = {}
    for uf in unit.functions:
        code = compiled.codes[uf.fn.name]
        user = uf.user
        user_cells = {}
        if user is not None and user.__closure__:
            user_cells = dict(zip(user.__code__.co_freevars, user.__closure__))
        for n in (compiled.swapped or {}).keys() & user_cells.keys():
            if user_cells[n].cell_contents is unit.helpers.get(n):
                # (a compiled gradient's own helper, `np`, that its forward
                # derivative for JAX arrays reads: the namespace's)
                del user_cells[n]
        closure = tuple(user_cells[n] if n in user_cells else cells[n] for n in code.co_freevars)
        fn = types.FunctionType(code, user.__globals__, code.co_name,
                                user.__defaults__ if uf.keep_defaults else None,
                                closure or None)
        if uf.keep_defaults and user.__kwdefaults__:
            fn.__kwdefaults__ = dict(user.__kwdefaults__)
        fn.__qualname__ = code.co_name
        fn.__module__ = user.__module__
        made[uf.fn.name] = fn
    for uf in unit.functions:
        cells[namer(uf.fn.name)].cell_contents = made[uf.fn.name]
    return made
