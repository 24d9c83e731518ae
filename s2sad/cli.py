"""The `s2sad` command line: print what the compiler emits for a function, check its
derivatives, draw its computation graph, show or empty the disk cache.

    s2sad show examples/seeds.py:f
    s2sad show examples/seeds.py:z --wrt x,y
    s2sad show mypackage.model:loss --stage anf
    s2sad check examples/seeds.py:z --at x=0.5,y=4.2 --wrt x,y
    s2sad graph examples/seeds.py:z --wrt x,y --at x=0.5,y=4.2 -o z.svg
    s2sad cache info

The CLI calls only the public API, so everything it prints is available from Python
as `s2sad.source(...)`, `s2sad.check(...)`, `s2sad.graph(...)`,
`s2sad.disk_cache_info()` and `s2sad.clear_disk_cache()`.

Exit status: 0 on success; `show` and `graph` exit with 1 when s2sad reports an
error; `check` exits with 1 when the derivatives disagree (or fewer than two methods
could compute them) and with 2 when the check could not be made (as `diff` does);
a mistake on the command line is 2 everywhere.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import os
import sys
import types

import numpy as np

from .api import reverse as api, explain, gradcheck, graphs
from . import clear_disk_cache, disk_cache_info
from .errors import S2SADError

TARGET_HELP = """\
TARGET names the function: a file and a function name (path/to/file.py:func) or a
module and a function name (package.module:func). The file is imported as a module,
so code at its top level runs.
"""

DESCRIPTION = """\
Print the code s2sad writes for a Python function.

""" + TARGET_HELP

EPILOG = """\
stages:
  source    the function as you wrote it
  anf       one operation per line, every reassignment a new name (x, x_1, ...)
  dup       every variable read more than once split with dup(x) into x_a, x_b, ...
  activity  the dup stage, with the variables that carry derivatives listed
  reverse   the gradient function s2sad compiles (the default)
  forward   the function with each line followed by its tangent (with --mode forward)

examples:
  s2sad show examples/seeds.py:black_scholes --wrt S,sigma
  s2sad show examples/loops.py:rosenbrock --example "[0.5, 1.2, 0.8]"
  s2sad show examples/seeds.py:z --wrt x,y
  s2sad show examples/seeds.py:z --wrt y --stage dup
  s2sad show --html loss.html examples/seeds.py:loss --wrt w,b
"""

AT_HELP = """\
ARGS are the function's arguments, written as in a call: x=0.5,y=4.2 (or 0.5,4.2 by
position), each value a Python literal. A list stays a Python list (s2sad
differentiates lists of floats); write array([1.0, 2.0]) for a NumPy array (always of
floats). Integers stay integers: write 2.0, not 2, for an argument you differentiate.
Parameters with defaults may be left out.
"""

CHECK_DESCRIPTION = """\
Check the derivatives of a function at one point: compute them with the compiler
(s2sad.grad), the tape engine, the dual-number engine and central differences, and
print a table of which agree, the largest error and where.

""" + TARGET_HELP + "\n" + AT_HELP

CHECK_EPILOG = """\
exit status:
  0  every method that ran agrees (and at least two ran)
  1  a method disagrees, or fewer than two methods could compute the derivatives
  2  the check could not be made (a bad command line, a function that fails to load
     or raises at the point, a wrt or an argument s2sad cannot differentiate)

examples:
  s2sad check examples/seeds.py:z --at x=0.5,y=4.2 --wrt x,y
  s2sad check examples/seeds.py:black_scholes --at S=100.0,K=95.0,T=0.5,r=0.03,sigma=0.2 --wrt S,sigma
  s2sad check examples/loops.py:rosenbrock --at "xs=[0.5, 1.2, 0.8]" --order 2
  s2sad check your_model.py:loss --at "w=array([0.1, 0.2]), b=0.0, x=array([1.0, 2.0])" --wrt w,b
"""

GRAPH_DESCRIPTION = """\
Print the computation graph of a function (its dup stage: one node per operation, a
diamond where a value used twice is duplicated) as Graphviz dot text, or draw it.
With --at, every node shows its value and its adjoint (d output / d node) at that
point. With -o FILE.svg (or .png, .pdf) the graph is drawn with Graphviz's `dot`
program, which must be installed (apt install graphviz, brew install graphviz);
-o FILE.dot writes the text and needs nothing.

""" + TARGET_HELP + "\n" + AT_HELP

GRAPH_EPILOG = """\
examples:
  s2sad graph examples/seeds.py:z --wrt x,y
  s2sad graph examples/seeds.py:z --wrt x,y --at x=0.5,y=4.2 -o z.svg
  s2sad graph examples/loops.py:sqrt_newton --at a=2.0 -o newton.dot
"""


CACHE_DESCRIPTION = """\
Show or empty the disk cache of derivatives (s2sad.enable_disk_cache(), or
S2SAD_DISK_CACHE=1): the directory given with --dir, else S2SAD_CACHE_DIR, else the
platform's cache directory (~/.cache/s2sad on Linux).

  info   the directory, whether the cache is on, its entries, their total size, and
         the cap (S2SAD_CACHE_MAX_MB, default 256 MB: past it the entries used
         longest ago are deleted)
  clear  delete the entries
"""


class UsageError(S2SADError):
    """A mistake on the command line (exit status 2)."""


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
        # as `python -m` does, the working directory is where modules are looked for
        # first, so `s2sad show mymod:func` works from mymod's own folder
        here = os.getcwd()
        added = here not in sys.path and "" not in sys.path
        if added:
            sys.path.insert(0, here)
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise S2SADError(f"cannot import {where}: {exc}") from None
        finally:
            if added:
                sys.path.remove(here)
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


def _literal(node):
    """A Python literal, ``array(<literal>)`` for a float ndarray, or ``zeros(shape)``
    / ``ones(shape)`` for one of that shape."""
    func = node.func if isinstance(node, ast.Call) else None
    name = func.id if isinstance(func, ast.Name) else \
        f"{func.value.id}.{func.attr}" if isinstance(func, ast.Attribute) and \
        isinstance(func.value, ast.Name) else None
    if name is not None and len(node.args) == 1 and not node.keywords:
        make = {"array": np.array, "zeros": np.zeros, "ones": np.ones}.get(name.split(".")[-1])
        if make is not None and name.split(".")[0] in ("array", "zeros", "ones", "np", "numpy"):
            return make(ast.literal_eval(node.args[0]), dtype=float)
    return ast.literal_eval(node)


def parse_at(text: str, func):
    """The positional arguments and keyword arguments ``--at`` gives `func` (every
    parameter filled in, defaults included)."""
    try:
        tree = ast.parse(f"_({text})", mode="eval")
        call = tree.body
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "_"):
            raise ValueError
        if any(isinstance(a, ast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            raise ValueError
        args = [_literal(a) for a in call.args]
        kwargs = {k.arg: _literal(k.value) for k in call.keywords}
    except (ValueError, TypeError, SyntaxError):
        raise UsageError(f"--at {text!r} is not a list of arguments with literal values",
                         hint="Write x=0.5,y=4.2 (or 0.5,4.2), lists as \"xs=[1.0, 2.0]\" "
                              "and arrays as \"x=array([1.0, 2.0])\".") from None
    signature = inspect.signature(func)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as exc:
        raise UsageError(f"--at {text!r} does not fit {func.__qualname__}{signature}: {exc}",
                         hint="Give a value for every parameter without a default.") from None
    bound.apply_defaults()
    return list(bound.args), dict(bound.kwargs)


def _error(exc: S2SADError, verbose: bool) -> None:
    message = str(exc) if verbose else exc.one_line()
    if not verbose and exc.hint:
        message += f" ({exc.hint.rstrip('.')})"
    print(f"s2sad: error: {message}", file=sys.stderr)


def _run_user_code(action, what, status):
    """`action()`, with an error from the user's code (at import, or raised by the
    function) printed as one line: (result, exit status or None)."""
    try:
        return action(), None
    except S2SADError:
        raise
    except Exception as exc:
        print(f"s2sad: error: {what}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None, status


def _fits_signature(func, example):
    """--example gives one value per parameter without a default, by position."""
    signature = inspect.signature(func)
    try:
        signature.bind(*example)
    except TypeError as exc:
        raise UsageError(f"--example gives {len(example)} value"
                         f"{'' if len(example) == 1 else 's'}, which does not fit "
                         f"{func.__qualname__}{signature}: {exc}",
                         hint="Give a value for every parameter without a default, "
                              "in order.") from None


def _show(args) -> int:
    try:
        example = None
        if args.example is not None:
            try:
                call = ast.parse(f"_({args.example})", mode="eval").body
                if any(isinstance(a, ast.Starred) for a in call.args) or call.keywords:
                    raise ValueError
                example = tuple(_literal(a) for a in call.args)
            except (ValueError, TypeError, SyntaxError):
                raise UsageError(f"--example {args.example!r} is not a list of Python literals",
                                 hint="Write numbers, lists, tuples and arrays: "
                                      "--example \"0.5, [1.0, 2.0], array([[1.0, 2.0]])\"")
        func, failed = _run_user_code(lambda: load(args.target), f"loading {args.target} failed", 1)
        if failed:
            return failed
        if example is not None:
            _fits_signature(func, example)
        # anything but an S2SADError from here on is s2sad's own bug: let it show
        if args.html is not None:
            return _show_html(args, func, example)
        text = api.source(func, mode=args.mode, wrt=_wrt(args.wrt), stage=args.stage,
                          example=example, checkpoint=args.checkpoint,
                          snapshots=args.snapshots)
    except UsageError as exc:
        _error(exc, args.verbose)
        return 2
    except S2SADError as exc:
        _error(exc, args.verbose)
        return 1
    sys.stdout.write(text)
    return 0


def _show_html(args, func, example) -> int:
    """`show --html FILE`: the page of `s2sad.explain` (every stage a tab), written to FILE."""
    if args.stage != "reverse":
        raise UsageError("--html writes a page with every stage as a tab; leave out --stage")
    page = explain.explain(func, wrt=_wrt(args.wrt), mode=args.mode, example=example,
                           checkpoint=args.checkpoint, snapshots=args.snapshots).html()
    try:
        with open(args.html, "w", encoding="utf-8") as fh:
            fh.write(page)
    except OSError as exc:
        print(f"s2sad: error: cannot write {args.html}: {exc.strerror}", file=sys.stderr)
        return 1
    print(f"wrote {args.html}")
    return 0


def _check(args) -> int:
    try:
        func, failed = _run_user_code(lambda: load(args.target), f"loading {args.target} failed", 2)
        if failed:
            return failed
        positional, keywords = parse_at(args.at, func)
        report, failed = _run_user_code(
            lambda: gradcheck.check(func, *positional, wrt=_wrt(args.wrt), order=args.order,
                                    rtol=args.rtol, atol=args.atol, raise_on_failure=False,
                                    kwargs=keywords),
            f"{func.__qualname__}({args.at}) raised", 2)
        if failed:
            return failed
    except S2SADError as exc:
        _error(exc, args.verbose)
        return 2
    print(report)
    return 0 if report.ok else 1


def _graph(args) -> int:
    try:
        func, failed = _run_user_code(lambda: load(args.target), f"loading {args.target} failed", 1)
        if failed:
            return failed
        at = None
        if args.at is not None:
            positional, keywords = parse_at(args.at, func)
            if keywords:
                raise UsageError("s2sad graph draws functions whose parameters are all "
                                 f"positional; {', '.join(keywords)} is keyword-only")
            at = tuple(positional)
        text, failed = _run_user_code(lambda: graphs.graph(func, wrt=_wrt(args.wrt), at=at),
                                      f"{func.__qualname__}({args.at}) raised", 1)
        if failed:
            return failed
    except UsageError as exc:
        _error(exc, args.verbose)
        return 2
    except S2SADError as exc:
        _error(exc, args.verbose)
        return 1
    if args.output is None:
        sys.stdout.write(text)
        return 0
    if os.path.splitext(args.output)[1].lower() in (".dot", ".gv"):
        with open(args.output, "w") as fh:
            fh.write(text)
    elif not graphs.render(text, args.output):
        print(f"s2sad: error: {args.output} was not written; without -o (or with -o "
              "FILE.dot) s2sad graph writes the dot text, which needs no Graphviz",
              file=sys.stderr)
        return 1
    print(f"wrote {args.output}")
    return 0


def _cache(args) -> int:
    if args.action is None:
        args.cache_parser.print_help()
        return 2
    try:
        info = disk_cache_info(args.dir)
        if args.action == "clear":
            removed = clear_disk_cache(info.directory)
            print(f"removed {removed} file{'' if removed == 1 else 's'} from {info.directory}")
        else:
            sys.stdout.write(str(info))
    except S2SADError as exc:
        _error(exc, False)
        return 2
    return 0


def _add_common(p):
    p.add_argument("target", metavar="TARGET", help="path/to/file.py:func or module:func")
    p.add_argument("--wrt", metavar="PARAMS",
                   help="parameters to differentiate with respect to, by name or position, "
                        "comma-separated (default: the first)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="on an error, also print the source line and how to fix it")


def main(argv=None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="s2sad", formatter_class=formatter,
        description="s2sad: source-to-source automatic differentiation for Python.",
        epilog="Run `s2sad COMMAND --help` for each command's options and examples.")
    from . import __version__
    parser.add_argument("--version", action="version", version=f"s2sad {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    show = sub.add_parser("show", help="print the code s2sad writes for a function",
                          description=DESCRIPTION, epilog=EPILOG, formatter_class=formatter)
    _add_common(show)
    show.add_argument("--stage", choices=["source", "anf", "dup", "activity", "reverse",
                                          "forward"],
                      default="reverse", help="which stage to print (default: reverse; "
                                              "forward with --mode forward)")
    show.add_argument("--mode", choices=["reverse", "forward"], default="reverse",
                      help="differentiation mode: reverse (the gradient, f_grad) or forward "
                           "(the tangent alongside each value, f_jvp) (default: reverse)")
    show.add_argument("--example", metavar="ARGS",
                      help="example arguments, as Python literals (\"0.5, [1.0, 2.0], 3\", "
                           "arrays as \"array([[1.0, 2.0]])\" or \"zeros((64, 256))\"): show "
                           "the code a call with such arguments runs; what matters is their "
                           "types, an array's rank and dtype, and which of the arrays' axes "
                           "have length 1 or equal lengths "
                           "(default: every parameter a float, or a list of floats where it "
                           "is indexed; an array of any rank in a function that uses NumPy)")
    show.add_argument("--checkpoint", choices=["ctz", "binomial"],
                      help="checkpoint the function's outermost loops with this schedule, "
                           "as grad(f, checkpoint=...) does (while loops: ctz)")
    show.add_argument("--snapshots", type=int, metavar="S",
                      help="snapshots of the binomial schedule (default: 10)")
    show.add_argument("--html", metavar="FILE",
                      help="write a page to FILE instead: the function and its derivative "
                           "side by side, lines linked, every stage a tab (s2sad.explain)")

    check = sub.add_parser("check", help="compare a function's derivatives computed in "
                                         "several ways at one point",
                           description=CHECK_DESCRIPTION, epilog=CHECK_EPILOG,
                           formatter_class=formatter)
    _add_common(check)
    check.add_argument("--at", metavar="ARGS", required=True,
                       help="the point: the function's arguments, as x=0.5,y=4.2")
    check.add_argument("--order", type=int, choices=[1, 2], default=1,
                       help="1: the gradient (default); 2: second derivatives (the Hessian)")
    check.add_argument("--rtol", type=float, default=1e-6,
                       help="relative tolerance (default: 1e-6)")
    check.add_argument("--atol", type=float, default=1e-8,
                       help="absolute tolerance (default: 1e-8)")

    graph = sub.add_parser("graph", help="print or draw a function's computation graph",
                           description=GRAPH_DESCRIPTION, epilog=GRAPH_EPILOG,
                           formatter_class=formatter)
    _add_common(graph)
    graph.add_argument("--at", metavar="ARGS",
                       help="label the nodes with values and adjoints at these arguments")
    graph.add_argument("-o", "--output", metavar="FILE",
                       help="draw to FILE (.svg, .png, .pdf: needs Graphviz; .dot: the text)")

    cache = sub.add_parser("cache", help="show or empty the disk cache",
                           description=CACHE_DESCRIPTION, formatter_class=formatter)
    cache.set_defaults(cache_parser=cache)
    actions = cache.add_subparsers(dest="action", metavar="ACTION")
    for name, what in (("info", "print the directory, entries, size and cap"),
                       ("clear", "delete the entries")):
        action = actions.add_parser(name, help=what, description=f"s2sad cache {name}: {what}.")
        action.add_argument("--dir", metavar="DIR",
                            help="the cache directory (default: the one s2sad uses)")

    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        status = {"show": _show, "check": _check, "graph": _graph,
                  "cache": _cache}[args.command](args)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader went away (`s2sad check ... | head`): what is left has nowhere to
        # go, so it goes nowhere, as for other filters, and the exit status says so
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
