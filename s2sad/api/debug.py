"""debug: find the first user line whose derivative became NaN or infinite.

`grad(f, debug=True)` (or ``S2SAD_DEBUG_NANS=1`` in the environment) runs the
compiled derivative under a line tracer that watches only generated frames: after
each generated line it looks at the derivative values (the adjoints ``*_bar`` and
tangents ``*_dot``) and, the first time one is NaN or infinite that was not before,
raises `NonFiniteError` naming the user's line that the generated line came from
(the map `compile.ORIGINS`). The emitted code is the same as without `debug`; the
tracer makes calls many times slower, which is the price of the diagnosis, paid
only when asked for.
"""

from __future__ import annotations

import linecache
import math
import sys

from ..backend import compile as compile_mod
from ..errors import NonFiniteError


def _derivative_name(name: str) -> bool:
    return "_bar" in name or "_dot" in name


def _bad(value) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return any(_bad(v) for v in value)
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind in ("f", "c"):
        import numpy as np

        return not bool(np.all(np.isfinite(value)))
    return False


def run(fn, args, kwargs):
    """`fn(*args, **kwargs)`, raising `NonFiniteError` at the first derivative value
    that becomes NaN or infinite in generated code."""
    previous = sys.gettrace()

    def watch(frame, event, arg):
        if frame.f_code.co_filename not in compile_mod.ORIGINS:
            return None
        state = {"line": frame.f_lineno, "bad": set()}

        def step(frame, event, arg):
            if event in ("line", "return"):
                bad = {n for n, v in frame.f_locals.items() if _derivative_name(n) and _bad(v)}
                new = bad - state["bad"]
                if new:
                    sys.settrace(previous)
                    raise _error(frame.f_code.co_filename, state["line"], sorted(new))
                state["line"] = frame.f_lineno
            return step

        return step

    sys.settrace(watch)
    try:
        return fn(*args, **kwargs)
    finally:
        sys.settrace(previous)


def _error(filename, lineno, names):
    user_file, qualname, rendered, lines = compile_mod.ORIGINS[filename]
    line = lines[lineno - 1] if 0 < lineno <= len(lines) else 0
    generated = linecache.getline(filename, lineno).strip()
    which = ", ".join(f"`{n}`" for n in names)
    return NonFiniteError(
        f"the derivative of {qualname} became NaN or infinite here: {which}, computed by "
        f"`{generated}` in {rendered}",
        filename=user_file if line else None, lineno=line or None,
        source_line=linecache.getline(user_file, line) if line else None,
        hint="Look for a division by zero, log or sqrt of 0 (their derivatives are "
             "infinite there), or an overflow on this line.")
