"""Run a stage's printed text as Python, in the user function's globals."""

import linecache

from s2sad import runtime
from s2sad.backend import emit
from s2sad.driver import stages

_count = [0]


def run_stage(func, stage, args, wrt=0):
    from s2sad.api.arguments import normalize_wrt

    names, _ = normalize_wrt(func, wrt)
    module = stages.stage_module(func, stage, names)
    text = emit.emit_module(module).text
    _count[0] += 1
    filename = f"<stage {stage} {_count[0]}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    ns = dict(func.__globals__)
    ns["dup"] = runtime.dup
    if func.__closure__:
        for name, cell in zip(func.__code__.co_freevars, func.__closure__):
            ns[name] = cell.cell_contents
    exec(compile(text, filename, "exec"), ns)
    return ns[func.__name__](*args), text
