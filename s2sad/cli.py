"""The `s2sad` command line: print what the compiler emits for a function.

    s2sad show examples/seeds.py:f
    s2sad show examples/seeds.py:z --wrt x,y
    s2sad show mypackage.model:loss --stage anf

The CLI calls only the public API, so everything it prints is available from Python
as `s2sad.source(...)`.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import os
import sys
import types

from . import api
from .errors import S2SADError

DESCRIPTION = """\
Print the code s2sad writes for a Python function.

TARGET names the function: a file and a function name (path/to/file.py:func) or a
module and a function name (package.module:func). The file is imported as a module,
so code at its top level runs.
"""

EPILOG = """\
stages:
  source    the function as you wrote it
  anf       one operation per line, every reassignment a new name (x, x_1, ...)
  dup       every variable read more than once split with dup(x) into x_a, x_b, ...
  activity  the dup stage, with the variables that carry derivatives listed
  reverse   the gradient function s2sad compiles (the default)

examples:
  s2sad show examples/seeds.py:black_scholes --wrt S,sigma
  s2sad show examples/loops.py:rosenbrock --example "[0.5, 1.2, 0.8]"
  s2sad show examples/seeds.py:z --wrt x,y
  s2sad show examples/seeds.py:z --wrt y --stage dup
"""


def load(target: str):
    """The function TARGET names (``file.py:func`` or ``package.module:func``)."""
    if ":" not in target:
        raise S2SADError(f"'{target}' does not name a function",
                         hint="Write path/to/file.py:func or package.module:func.")
    where, _, name = target.rpartition(":")
    if where.endswith(".py") or os.sep in where or "/" in where:
        path = os.path.abspath(where)
        if not os.path.exists(path):
            raise S2SADError(f"no such file: {where}")
        module_name = "_s2sad_cli_" + os.path.splitext(os.path.basename(path))[0]
        shown = where if not os.path.isabs(where) else path  # messages use the path as typed
        module = types.ModuleType(module_name)
        module.__file__ = shown
        sys.modules[module_name] = module
        sys.path.insert(0, os.path.dirname(path))
        try:
            with open(path) as fh:
                code = compile(fh.read(), shown, "exec")
            exec(code, module.__dict__)
        finally:
            sys.path.pop(0)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise S2SADError(f"cannot import {where}: {exc}") from None
    obj = module
    for part in name.split("."):
        if not hasattr(obj, part):
            raise S2SADError(f"{where} has no function {name}")
        obj = getattr(obj, part)
    return getattr(obj, "__wrapped__", obj)


def _wrt(text: str | None):
    if text is None:
        return 0
    items = [t.strip() for t in text.split(",") if t.strip()]
    parsed = tuple(int(t) if t.lstrip("-").isdigit() else t for t in items)
    return parsed[0] if len(parsed) == 1 else parsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="s2sad", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    show = sub.add_parser(
        "show", help="print the code s2sad writes for a function",
        description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    show.add_argument("target", metavar="TARGET", help="path/to/file.py:func or module:func")
    show.add_argument("--wrt", metavar="PARAMS",
                      help="parameters to differentiate with respect to, by name or position, "
                           "comma-separated (default: the first)")
    show.add_argument("--stage", choices=["source", "anf", "dup", "activity", "reverse"],
                      default="reverse", help="which stage to print (default: reverse)")
    show.add_argument("--mode", choices=["reverse"], default="reverse",
                      help="differentiation mode (default: reverse)")
    show.add_argument("--example", metavar="ARGS",
                      help="example arguments, as Python literals (\"0.5, [1.0, 2.0], 3\"): "
                           "show the code a call with such arguments runs (default: every "
                           "parameter a float, or a list of floats where it is indexed)")
    show.add_argument("-v", "--verbose", action="store_true",
                      help="on an error, also print the source line and how to fix it")
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        example = None
        if args.example is not None:
            try:
                example = ast.literal_eval(f"({args.example},)")
            except (ValueError, SyntaxError):
                raise S2SADError(f"--example {args.example!r} is not a list of Python literals",
                                 hint="Write numbers, lists and tuples: --example \"0.5, [1.0, 2.0]\"")
        func = load(args.target)
        text = api.source(func, mode=args.mode, wrt=_wrt(args.wrt), stage=args.stage,
                          example=example)
    except S2SADError as exc:
        message = str(exc) if args.verbose else exc.one_line()
        if not args.verbose and exc.hint:
            message += f" ({exc.hint.rstrip('.')})"
        print(f"s2sad: error: {message}", file=sys.stderr)
        return 1
    except Exception as exc:  # the user's module failed to import
        print(f"s2sad: error: loading {args.target} failed: "
              f"{type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
