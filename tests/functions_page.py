"""docs/guide/functions.md, the table of every function s2sad differentiates, made
from the rule tables and from what each engine does with each function.

    .venv/bin/python tests/functions_page.py      # rewrites docs/guide/functions.md

One row per primitive with a built-in rule (`s2sad.primitives.REVERSE` and `FORWARD`,
SciPy's among them: every optional library the registry knows is imported first).
The columns *reverse* and *forward* say whether the tables hold a rule of that mode.
The other three are found by running each function on the examples its rules are
checked on (tests/test_rules.py's `examples`, one per variant of its rule, at most
`PER_FUNCTION`), each wrapped in a weighted sum so it gives one number:

* *batched*: `jacobian`'s vector mode carries every direction in one pass (on
  arrays, the forward derivative `transform.batching` rewrites; on numbers, tangents
  that are vectors of directions), rather than one pass per input number;
* *tape* and *dual*: `s2sad.grad(..., mode="tape")` and `engines.dual_grad` give
  the gradient, agreeing with central differences.

A cell says "yes" where every example works, "some" where some do (a variant of the
function they cannot follow, such as a list of numbers), "no" where none does.
tests/test_docs_table.py regenerates the page and fails when the committed one
differs. (SciPy is among the test extras: without it the test is skipped.)
"""

from __future__ import annotations

import importlib
import inspect
import math
import os
import sys
import tempfile
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PAGE = os.path.join(ROOT, "docs", "guide", "functions.md")
PER_FUNCTION = 3  # examples probed per function (the first of each rule variant)
COMMAND = ".venv/bin/python tests/functions_page.py"

for _path in (HERE, ROOT):
    if _path not in sys.path:
        sys.path.insert(0, _path)

from s2sad.primitives.registry import NONDIFF_METHODS  # noqa: E402

OPERATORS = {"add": "x + y", "sub": "x - y", "mul": "x * y", "truediv": "x / y",
             "floordiv": "x // y", "mod": "x % y", "pow": "x ** y", "matmul": "x @ y",
             "neg": "-x", "pos": "+x"}
OPERATOR_SOURCE = {"add": "{0} + {1}", "sub": "{0} - {1}", "mul": "{0} * {1}",
                   "truediv": "{0} / {1}", "floordiv": "{0} // {1}", "mod": "{0} % {1}",
                   "pow": "{0} ** {1}", "matmul": "{0} @ {1}", "neg": "-{0}", "pos": "+{0}"}
# where a function's public name is looked for, in this order (a section each)
SECTIONS = [("Operators and builtins", "builtins"), ("math", "math"), ("NumPy", "numpy"),
            ("numpy.linalg", "numpy.linalg"), ("scipy.special", "scipy.special"),
            ("scipy.stats", "scipy.stats"), ("scipy.linalg", "scipy.linalg"),
            ("scipy.signal", "scipy.signal")]
BUILTIN_TABLES = "s2sad.primitives."
INTERNAL = "s2sad.primitives.helpers"  # forward rules of the runtime's adjoint helpers


def load_optional():
    """Import every optional library the registry has rules for (SciPy's modules), so
    that their rules are in the tables."""
    from s2sad.primitives import registry

    for module in list(registry.OPTIONAL):
        importlib.import_module(module)
    registry.has_rule(None)  # (loads the rules of what is imported now)


def keys():
    """Every primitive with a built-in rule (not a user's, nor a runtime helper's)."""
    from s2sad import primitives as rules

    out = []
    for table in (rules.REVERSE, rules.FORWARD):
        for key, rs in table.items():
            if any(r.func.__module__.startswith(BUILTIN_TABLES) and r.func.__module__ != INTERNAL
                   and not r.derived for r in rs) and not any(key == k for k in out):
                out.append(key)
    return out


def public_name(key):
    """``(section, name)``: where a user finds `key` (``np.cumsum``, ``math.sin``,
    ``scipy.special.erf``, ``x + y``, ``abs``, ``x.item()``)."""
    if isinstance(key, str):
        return "builtins", f"`{OPERATORS[key]}`"
    if key is np.ndarray.item:
        return "numpy", "`x.item()`"
    import builtins

    if getattr(builtins, getattr(key, "__name__", ""), None) is key:
        return "builtins", f"`{key.__name__}`"
    name = getattr(key, "__name__", "")
    owner = getattr(key, "__self__", None)
    if owner is not None and not isinstance(owner, type(sys)):  # (scipy.stats.norm.pdf)
        for _, module in SECTIONS[1:]:
            mod = sys.modules.get(module)
            for attr in sorted(dir(mod) if mod else ()):
                if not attr.startswith("_") and getattr(mod, attr, None) is owner:
                    return module, f"`{module.replace('numpy', 'np', 1)}.{attr}.{name}`"
    for _, module in SECTIONS[1:]:
        mod = sys.modules.get(module)
        if mod is not None and getattr(mod, name, None) is key:
            short = module.replace("numpy", "np", 1)
            return module, f"`{short}.{name}`"
    for _, module in SECTIONS[1:]:  # (an alias: np.amax is np.max's other name)
        mod = sys.modules.get(module)
        for attr in sorted(dir(mod) if mod else ()):
            if not attr.startswith("_") and getattr(mod, attr, None) is key:
                return module, f"`{module.replace('numpy', 'np', 1)}.{attr}`"
    raise LookupError(f"no public name for the rule key {key!r}")


def methods_of(key):
    from s2sad.primitives import facts

    return sorted(name for name, func in facts.METHODS.items()
                  if func is key and key is not np.ndarray.item)


# ---------------------------------------------------------------- probing


def probe_examples(key):
    """Up to `PER_FUNCTION` (inputs, options) examples of `key`: the first of each
    variant of its reverse rule (the fallback's, then the others')."""
    import test_rules
    from s2sad import primitives as rules

    found = []
    for rule in sorted((r for r in rules.REVERSE.get(key, ()) if not r.derived
                        and r.func.__module__.startswith(BUILTIN_TABLES)),
                       key=lambda r: (r.when is not None, str(r.when), r.arity)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # (a rule that gives no input a derivative, as round's: its derivative 0)
            wanted = rule.differentiable if any(rule.differentiable) else (True,) * rule.arity
            for xs, options in rule_examples(test_rules, key, rule):
                if any(_float(x) and d for x, d in zip(xs, wanted)):
                    found.append((xs, options, wanted))
                    break
    return found[:PER_FUNCTION]


def rule_examples(test_rules, key, rule):
    """The examples the rule is checked on: tests/test_rules.py's for the built-in
    tables, tests/test_scipy_rules.py's for the optional libraries' rules."""
    if rule.func.__module__ in test_rules.TABLES:
        return test_rules.examples(key, rule)
    table = rule.func.__module__.rsplit(".", 1)[-1]  # (scipy_special, scipy_stats...)
    for name in ("test_scipy_rules", f"test_{table}", f"test_{table}_rules"):
        try:
            tests = importlib.import_module(name)
            return tests.examples(key, rule)
        except Exception:  # (no such module, or no examples of this rule there)
            continue
    return test_rules.examples(key, rule)


def _float(x) -> bool:
    if isinstance(x, float):
        return True
    if isinstance(x, np.ndarray):
        return x.dtype.kind == "f"
    if isinstance(x, (list, tuple)):
        return bool(x) and all(_float(v) for v in x)
    return False


class Probe:
    """One example of one function written as a module-level function of its float
    inputs (arrays and numbers; a list of them is a list display of parameters),
    other inputs literals or parameters held still."""

    def __init__(self, index, key, xs, options, differentiable):
        self.index, self.key = index, key
        self.params, self.args, self.wrt = [], [], []
        self.lists = any(isinstance(x, (list, tuple)) and not any(
            isinstance(v, np.ndarray) for v in x) for x in xs)  # (of numbers)
        parts = [self.argument(x, f"x{i}", d) for i, (x, d) in enumerate(zip(xs, differentiable))]
        self.call = self.call_source(key, parts, options)

    def argument(self, x, name, differentiable):
        """The source of input `x`; a parameter where it is a float or an array (in
        `wrt` where the rule gives it a derivative), else a literal."""
        if isinstance(x, (list, tuple)) and x and all(_float(v) for v in x):
            names = [self.argument(v, f"{name}_{j}", differentiable) for j, v in enumerate(x)]
            return ("[{}]" if isinstance(x, list) else "({},)").format(", ".join(names))
        if _float(x) or isinstance(x, np.ndarray):
            self.params.append(name)
            self.args.append(x)
            if _float(x) and differentiable:
                self.wrt.append(name)
            return name
        return repr(x)

    def call_source(self, key, parts, options):
        if isinstance(key, str):
            return OPERATOR_SOURCE[key].format(*parts)
        if key is np.ndarray.item:
            return f"np.asarray({parts[0]}).item()"
        if key is np.average and len(parts) > 1:  # (weights by name: 2nd is the axis)
            parts = [parts[0], f"weights={parts[1]}"]
        given = [f"{k}={v!r}" for k, v in options.items()]
        return f"{public_name(key)[1].strip('`')}({', '.join(parts + given)})"

    def source(self, out):
        """The weighted sum of the call's result, as a def; `out` is that result."""
        head = f"def probe{self.index}({', '.join(self.params)}):\n"
        if isinstance(out, tuple):
            names = [f"o{j}" for j in range(len(out))]
            terms = " + ".join(f"np.sum(W{self.index}_{j} * o{j})" for j in range(len(out)))
            return head + f"    {', '.join(names)} = {self.call}\n    return {terms}\n"
        return head + f"    return np.sum(W{self.index}_0 * ({self.call}))\n"

    def batched_source(self):
        return f"def batched{self.index}({', '.join(self.params)}):\n    return {self.call}\n"


def weights(out, index, rng):
    parts = out if isinstance(out, tuple) else (out,)
    return {f"W{index}_{j}": (rng.uniform(0.5, 1.5, np.shape(p)) if np.ndim(p) else 0.75)
            for j, p in enumerate(parts)}


def build(keys_):
    """The probes of `keys_`, written to a module (s2sad reads their source) and
    imported: ``(module, [(key, [Probe...])...])``."""
    rng = np.random.default_rng(0)
    lines = ["import math\n\nimport numpy as np\n"]
    lines += [f"import {module}\n" for _, module in SECTIONS if module.startswith("scipy.")
              and module in sys.modules]
    namespace = {}
    rows = []
    index = 0
    for key in keys_:
        probes = []
        for xs, options, differentiable in probe_examples(key):
            p = Probe(index, key, xs, options, differentiable)
            index += 1
            f = eval(f"lambda {', '.join(p.params)}: {p.call}",
                     {"np": np, "math": math, "scipy": sys.modules.get("scipy")})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    out = f(*p.args)
                except Exception:
                    continue
            namespace.update(weights(out, p.index, rng))
            lines.append(p.source(out))
            lines.append(p.batched_source())
            probes.append(p)
        rows.append((key, probes))
    folder = tempfile.mkdtemp(prefix="s2sad_functions_")
    path = os.path.join(folder, "function_probes.py")
    with open(path, "w") as file:
        file.write("\n\n".join(lines))
    spec = importlib.util.spec_from_file_location("function_probes", path)
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(namespace)
    spec.loader.exec_module(module)
    return module, rows


def reference(f, args, wrt, h=1e-6):
    """The gradient with respect to `wrt` (positions) by central differences."""
    out = []
    for i in wrt:
        x = args[i]
        if isinstance(x, float):
            up, down = list(args), list(args)
            up[i], down[i] = x + h, x - h
            out.append((f(*up) - f(*down)) / (2 * h))
            continue
        g = np.zeros_like(x)
        for j in np.ndindex(*x.shape):
            e = np.zeros_like(x)
            e[j] = h
            up, down = list(args), list(args)
            up[i], down[i] = x + e, x - e
            g[j] = (f(*up) - f(*down)) / (2 * h)
        out.append(g)
    return out


def agrees(got, want) -> bool:
    return all(np.allclose(g, w, rtol=1e-4, atol=1e-5) for g, w in zip(got, want))


def run_probe(module, p):
    """``{"tape": bool, "dual": bool, "batched": bool}`` for one probe."""
    import s2sad
    from s2sad.engines import dual_grad, tape_grad

    f = getattr(module, f"probe{p.index}")
    wrt = tuple(p.params.index(n) for n in p.wrt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = reference(f, p.args, wrt)
        result = {}
        for name, engine in (("tape", tape_grad), ("dual", dual_grad)):
            try:
                _, got = engine(f, list(p.args), wrt=wrt)
                result[name] = agrees(got, want)
            except Exception:
                result[name] = False
        result["batched"] = batched(getattr(module, f"batched{p.index}"), p)
        del s2sad
    return result


def batched(f, p) -> bool:
    """Does `jacobian`'s vector mode carry every direction of `f` in one pass?"""
    import s2sad
    from s2sad.api import dispatch, jacobians
    from s2sad.ir.kinds import kind_of

    args = dict(zip(p.params, p.args))
    kinds = {n: kind_of(v) for n, v in args.items()}
    try:
        if any(isinstance(args[n], np.ndarray) for n in p.wrt):
            _, fn = dispatch.compiled_forward(f, tuple(p.wrt), kinds, batched=True)
            if fn is None:
                return False
        else:
            unit, _ = dispatch.compiled_forward(f, tuple(p.wrt), kinds)
            if not jacobians._carries_vectors(unit):  # noqa: SLF001 (the mode it takes)
                return False
        s2sad.jacobian(f, wrt=tuple(p.wrt))(*p.args)
    except Exception:
        return False
    return True


# ---------------------------------------------------------------- the page


def verdict(results, probes) -> str:
    """"yes", "no", "not lists" (all but the examples of Python lists of numbers)
    or "some"."""
    if results and all(results):
        return "yes"
    if not any(results):
        return "no"
    if all(ok != p.lists for ok, p in zip(results, probes)):
        return "not lists"
    return "some"


def table_rows():
    """``{section module: [(name, methods, cells)...]}``, in table order."""
    from s2sad import primitives as rules

    load_optional()
    ks = keys()
    module, probed = build(ks)
    sections = {}
    for key, probes in probed:
        results = [run_probe(module, p) for p in probes]
        section, name = public_name(key)
        cells = ["yes" if rules.REVERSE.get(key) else "no",
                 "yes" if rules.FORWARD.get(key) else "no"]
        cells += [verdict([r[c] for r in results], probes) for c in ("batched", "tape", "dual")]
        sections.setdefault(section, []).append((name, methods_of(key), cells))
    for rows in sections.values():
        rows.sort(key=lambda row: row[0].strip("`").lower())
    return sections


def constants():
    """The public names of the functions whose result is a constant."""
    from s2sad import primitives as rules

    names = []
    for key in rules.NONDIFFERENTIABLE:
        if getattr(key, "__module__", "") and key.__module__.startswith("s2sad"):
            continue
        try:
            names.append(public_name(key)[1])
        except LookupError:
            continue
    return sorted(set(names), key=lambda name: name.strip("`").lower())


HEADER = """\
# Functions it differentiates

<!-- Generated by `{command}` from the rule tables and the engines; tests/test_docs_table.py fails when this page is stale. Do not edit by hand. -->

Every function, operator and method s2sad has a derivative rule for, and what each
mode does with it:

* **reverse**, **forward**: the compiled derivative in reverse mode (`grad`,
  `value_and_grad`, `vjp`) and forward mode (`jvp`, `derivative`, `hessian`); both
  rules are checked against central differences and against each other.
* **batched**: `jacobian`'s vector mode carries every input direction in one pass
  of the forward derivative (otherwise it makes one pass per input number, which
  gives the same Jacobian, more slowly).
* **tape**, **dual**: the runtime engines (`mode="tape"`, and the dual numbers
  `check` compares with) follow the function.

"yes": every example the function's rules are checked on works (the first of each
variant of its rules: numbers, arrays, Python lists of numbers...); "not lists": all
but the Python lists of numbers (an array of them works); "some": some of them;
"no": none. A method listed beside a function (`x.cumsum()`) is the same
rule with the array first. Functions of the `scipy` modules are differentiated once
the program imports them (s2sad never imports SciPy itself).

"""


def render() -> str:
    sections = table_rows()
    out = [HEADER.format(command=COMMAND)]
    for title, module in SECTIONS:
        rows = sections.get(module)
        if not rows:
            continue
        out.append(f"## {title}\n\n| function | reverse | forward | batched | tape | dual |\n"
                   "|---|:-:|:-:|:-:|:-:|:-:|\n")
        for name, methods, cells in rows:
            if methods:
                name += " (" + ", ".join(f"`x.{m}()`" for m in methods) + ")"
            out.append(f"| {name} | " + " | ".join(cells) + " |\n")
        out.append("\n")
    out.append("## Constants\n\nThese functions give values that carry no derivative "
               "(their result is a constant to every mode): "
               + ", ".join(constants()) + "; and the array methods of their names, "
               + ", ".join(f"`x.{m}()`" for m in NONDIFF_METHODS) + ".\n")
    return "".join(out)


if __name__ == "__main__":
    text = render()
    with open(PAGE, "w") as file:
        file.write(text)
    print(f"wrote {os.path.relpath(PAGE, ROOT)}")
