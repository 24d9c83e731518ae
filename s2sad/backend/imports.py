"""imports: the import lines that make an emitted module's text run on its own.

`module_imports(module, helpers, users, reads)` gives them (see its docstring): one
line per module, then one ``from module import a, b`` per module, and a comment
naming what no import can bring back. `emit` prints them at the top of the module.
"""

from __future__ import annotations

import ast
import sys
import types

from .. import ir


def module_imports(module: ir.Module, helpers: dict, users: dict, reads=None) -> list:
    """The import lines that make `module`'s text run on its own: one line per module
    (``import math``, ``import numpy as np``), then one ``from module import a, b``
    per module, sorted, for the imports `module` has, the objects s2sad's rules
    read (`helpers`: name -> object) and every global the functions read from the
    namespace of the user function they come from (`users`: IR name -> user
    function). A function or class is imported from the module that defines it
    (``from math import exp``) or, where it does not say, from the public module
    that holds it (SciPy's ufuncs: ``from scipy.special import gammaln``), another
    value (a constant, an array) from the user function's module (``from mymod
    import SCALE``). What no import can bring back, a comment names, with where it
    comes from, after an empty line: the globals of a module without an import name
    (``__main__``, a file run by path), the variables of a closure, and a name that
    means another object in the code of another user function than in the first
    one that reads it. Builtins need nothing. The lines are the same for the same
    module and namespaces, byte for byte. `reads` (IR function name -> its
    `ir.reads_in`), where the caller has them already."""
    entries = {}  # name -> (module, name in that module, or None for the module)
    for line in module.imports:
        for node in ast.parse(line).body:
            for alias in node.names:
                entries[alias.asname or alias.name] = (node.module, alias.name) \
                    if isinstance(node, ast.ImportFrom) else (alias.name, None)
    notes = {}  # where -> names
    for name, obj in helpers.items():
        if name not in entries and _helper_entry(name, obj) is not None:
            entries[name] = _helper_entry(name, obj)
        elif name not in entries:  # (`defaults.capture`'s: a closure's variable)
            notes.setdefault("held where the derivative was built", set()).add(name)
    first = {}  # name -> where the first function reading it has it from
    for fn in module.functions:
        user = users.get(fn.name)
        for name in sorted(_global_reads(fn, module, (reads or {}).get(fn.name))):
            if name in entries and name not in first:  # (a helper, or imported already)
                continue
            got = _global_entry(user, name)
            if got is None or first.setdefault(name, got) == got and name in entries:
                continue
            if first[name] != got:
                where = got if not isinstance(got, tuple) else f"import {got[0]}" \
                    if got[1] is None else f"from {got[0]} import {got[1]}"
                notes.setdefault(f"{name} in the code of {user.__qualname__}: {where}", set())
            elif isinstance(got, tuple):
                entries[name] = got
            else:
                notes.setdefault(got, set()).add(name)
    lines, froms = [], {}
    for name, (mod, real) in sorted(entries.items()):
        if real is None:
            lines.append(f"import {mod}" if mod == name else f"import {mod} as {name}")
        else:
            froms.setdefault(mod, []).append(real if real == name else f"{real} as {name}")
    lines += [f"from {mod} import {', '.join(parts)}" for mod, parts in sorted(froms.items())]
    if notes and lines:
        lines.append("")  # (black puts an empty line between imports and a comment)
    lines += [f"# {where}: {', '.join(sorted(names))}" if names else f"# {where}"
              for where, names in sorted(notes.items())]
    return lines


def _helper_entry(name, obj):
    if isinstance(obj, types.ModuleType):
        return obj.__name__, None
    mod = getattr(obj, "__module__", None)
    return (mod, getattr(obj, "__name__", name)) if mod else None


def _global_reads(fn: ir.Function, module: ir.Module, reads=None) -> set:
    """The names `fn` reads that it does not define: its globals and builtins
    (`reads`: `fn`'s `ir.reads_in`, if known)."""
    read = set(ir.reads_in(fn.body) if reads is None else reads)
    for p in fn.params:
        if p.default is not None:
            read.update(ir.names_in(p.default))
    local = ir.local_names(fn) | {f.name for f in module.functions}
    return {n for n in read if "%" not in n and n not in local}


def _global_entry(user, name):
    """Where the value `name` has in the namespace of the function `user` comes from:
    ``(module, name there)`` (None for a module itself) when an import brings it
    back, the words a comment names its origin with when none does, None for a
    builtin or a name that `user` does not have."""
    code = getattr(user, "__code__", None)
    if code is not None and name in code.co_freevars:
        return f"from the closure of {user.__qualname__}"
    namespace = getattr(user, "__globals__", None) or {}
    if name not in namespace:
        return None
    obj = namespace[name]
    if isinstance(obj, types.ModuleType):
        if _importable(obj.__name__) is not None:
            return obj.__name__, None
    else:
        home = _importable(getattr(obj, "__module__", None))
        real = getattr(obj, "__name__", None)
        if home is not None and isinstance(real, str) and getattr(home, real, None) is obj:
            return obj.__module__, real
        holder = _public_holder(obj, real) if isinstance(real, str) else None
        if holder is not None:
            return holder, real
    where = namespace.get("__name__")
    home = _importable(where)
    if home is not None and getattr(home, name, None) is obj:
        return where, name
    return f"from {namespace.get('__file__') or where} (not importable by name)"


def _public_holder(obj, real: str):
    """The loaded public module that holds the named object `obj` as `real` (a
    function that does not say its module, as SciPy's ufuncs do not), the one with
    the shortest name where several do; None where none does."""
    found = [name for name, mod in list(sys.modules.items())
             if not any(part.startswith("_") for part in name.split("."))
             and (getattr(mod, "__dict__", None) or {}).get(real) is obj
             and _importable(name) is not None] \
        if real.isidentifier() else []
    return min(found, key=lambda name: (name.count("."), len(name), name), default=None)


def _importable(name):
    """The module an import of `name` gives back: one the import system loaded under
    that name (not ``__main__``, not a module made by hand)."""
    if not isinstance(name, str) or name == "__main__":
        return None
    mod = sys.modules.get(name)
    return mod if mod is not None and getattr(mod, "__spec__", None) is not None else None
