"""Random programs over containers of parameters, for `test_fuzz_structures.py`.

`structured_program(draw)` gives ``(text, params)``: a module defining ``f(params, x)``
and the value of ``params``, a random nesting (up to three deep) of dicts, lists,
tuples, namedtuples and a dataclass whose leaves are floats, float arrays of shape
(2,), ints and strings. The body reads every numeric leaf at least once, each read
spelled one of the ways users write them: constant keys, attributes and positions
chained, a name bound to a part (``q = params["b"]``), unpacking (``a, *rest = p``
too), a ``for`` over a container (its items, ``enumerate``, ``.items()``,
``.values()``, ``range(len(...))``), a loop over a count reading items by keys made of
its variable (``p[n - 1 - i]``, ``p[f"{'ab'[i]}"]``, in the loop or in a helper), a dict
built and read back (its keys names or not: ``"lr "``, ``(0, 1)``), a dict or list of
constants added into in a loop over data (``d["s"] += ...``), a tuple grown in one
(``t += (...,)``), a helper function handed a part, a local function (a lambda with a
default argument, a list of lambdas made by a comprehension), a loop over data that
carries a dict, and an ``if`` on a leaf.
"""

import collections
import dataclasses

import numpy as np
from hypothesis import strategies as st

P2 = collections.namedtuple("P2", "u v")


@dataclasses.dataclass
class D2:
    u: object
    v: object


PRELUDE = '''import collections
import dataclasses
import numpy as np
from fuzz_structures import D2, P2

'''


@st.composite
def value(draw, depth=0):
    """A tree: a leaf, or a container of 1 to 3 trees."""
    if depth >= 3 or draw(st.integers(0, 3)) == 0 and depth > 0:
        kind = draw(st.sampled_from(["float", "float", "array", "array", "int", "str"]))
        if kind == "float":
            return draw(st.floats(-1.5, 1.5)).__round__(3) + 0.1
        if kind == "array":
            return np.array([draw(st.floats(-1.5, 1.5)), draw(st.floats(-1.5, 1.5))]) + 0.05
        return 2 if kind == "int" else "tag"
    # (at the top a list of numbers only is a vector, as ever: not a container)
    forms = ["dict", "list", "tuple", "namedtuple", "dataclass"] if depth else \
        ["dict", "tuple", "namedtuple", "dataclass"]
    form = draw(st.sampled_from(forms))
    if form in ("namedtuple", "dataclass"):
        u, v = draw(value(depth + 1)), draw(value(depth + 1))
        return P2(u, v) if form == "namedtuple" else D2(u, v)
    n = draw(st.integers(1, 3))
    items = [draw(value(depth + 1)) for _ in range(n)]
    if form == "dict":
        return dict(zip("abc", items))
    return items if form == "list" else tuple(items)


# the keys of a dict the function builds, as written: names, and keys that differ only
# where a variable's name cannot (a space, a dot, a tuple's punctuation)
BUILT_KEYS = [("'s'", "'n'", "'t'"), ("'lr'", "'lr '", "'lr_'"), ("(0, 1)", "(1, 0)", "-1"),
              ("'a.b'", "'a_b'", "0.5"), ("''", "' '", "b'a'"), ("'W 1'", "'W1'", "'W-1'")]


def numeric(v) -> bool:
    return isinstance(v, (float, np.ndarray)) or isinstance(v, int) and not isinstance(v, bool)


def parts(v):
    """``(accessor, child)`` of a container's items, the accessor a suffix."""
    if isinstance(v, dict):
        return [(f"[{k!r}]", c) for k, c in v.items()]
    if isinstance(v, P2):
        return [(".u", v.u), ("[1]", v.v)]
    if isinstance(v, D2):
        return [(".u", v.u), (".v", v.v)]
    if isinstance(v, (list, tuple)):
        return [(f"[{i}]" if i % 2 == 0 else f"[{i - len(v)}]", c) for i, c in enumerate(v)]
    return None


# a loop over a container: (its header, the item it reads, a factor of the term)
LOOPS = {"values": ("for {n} in {e}.values():", "{n}", ""),
         "items": ("for k_{n}, {n} in {e}.items():", "{n}", ""),
         "keys": ("for k_{n} in {e}:", "{e}[k_{n}]", ""),
         # (weighted by position: the order `sorted` gives is the one Python gives)
         "sorted": ("for i_{n}, k_{n} in enumerate(sorted({e}, reverse=True)):",
                    "{e}[k_{n}]", " * (i_{n} + 1)"),
         "sorted items": ("for i_{n}, (k_{n}, {n}) in enumerate(reversed(sorted({e}.items()))):",
                          "{n}", " * (i_{n} + 2)"),
         "sequence": ("for {n} in {e}:", "{n}", ""),
         "enumerate": ("for i_{n}, {n} in enumerate({e}):", "{n}", " * (i_{n} + 1)"),
         "range": ("for i_{n} in range(len({e})):", "{e}[i_{n}]", "")}

# a loop over a count and the key it reads each item by, each item once (dicts:
# their keys are "a", "b", "c" in order: {keys})
KEYED_LOOPS = {
    False: [("for {i} in range(len({e})):", "{e}[{i}]"),
            ("for {i} in range({n}):", "{e}[{n} - 1 - {i}]"),
            ("for {i} in range(len({e}) - 1, -1, -1):", "{e}[({i} + 1) % len({e})]"),
            ("for {i} in reversed(range(len({e}))):", "{e}[{i} * 2 // 2]")],
    True: [("for {i} in range(len({e})):", "{e}[{keys!r}[{i}]]"),
           ("for {i} in range({n}):", "{e}[f\"{{'{keys}'[{i}]}}\"]"),
           ("for {i} in range(len({e}) // 1):", "{e}[\"\" + \"{keys}\"[{i}]]"),
           ("for {i} in range({n}):", "{e}[{tkeys}[{i}]]")],
}

TERMS = ["np.sum(np.sin({}))", "np.sum({0} * {0}) * 0.5", "np.sum(np.tanh({}) * 1.5)",
         "np.sum(np.exp({}) * 0.25)"]


@st.composite
def structured_program(draw):
    params = draw(value())
    lines, helpers = [], []
    counter = iter(range(10_000))

    def term(expr):
        return draw(st.sampled_from(TERMS)).format(expr)

    def read(expr, v, depth):
        """Lines reading every numeric leaf of `v` (reached by the expression `expr`)
        into `total`."""
        got = parts(v)
        if got is None:
            if numeric(v):
                lines.append(f"    total = total + {term(expr)}")
            return
        style = draw(st.sampled_from(["chain", "alias", "loop", "helper", "dict", "unpack",
                                      "local", "pop", "grow", "keyed"]))
        all_numeric = all(numeric(c) for _, c in got)
        if style == "keyed" and all_numeric and type(v) in (dict, list, tuple):
            # (a loop over a count, the items read by keys made of its variable)
            i = f"i{next(counter)}"
            header, key = draw(st.sampled_from(KEYED_LOOPS[type(v) is dict]))
            keys = "".join(v) if type(v) is dict else ""
            key = key.format(i=i, e=expr, n=len(v), keys=keys, tkeys=repr(tuple(keys)))
            if draw(st.booleans()):  # (or in a helper the loop passes its variable to)
                name = f"k{next(counter)}"
                helpers.append(f"def {name}(n, {i}):\n    return {term(key.replace(expr, 'n'))}\n")
                item = f"{name}({expr}, {i})"
            else:
                item = term(key)
            lines.extend([f"    {header.format(i=i, e=expr, n=len(v))}",
                          f"        total = total + {item}"])
            return
        if style == "alias":
            name = f"q{next(counter)}"
            lines.append(f"    {name} = {expr}")
            expr = name
        if style == "loop" and all_numeric and not isinstance(v, D2):
            name = f"e{next(counter)}"
            hows = ["values", "items", "keys", "sorted", "sorted items"] if isinstance(v, dict) else \
                ["sequence", "enumerate", "range"]
            header, item, weight = LOOPS[draw(st.sampled_from(hows))]
            lines.extend([f"    {header.format(n=name, e=expr)}",
                          f"        total = total + {term(item.format(n=name, e=expr))}"
                          f"{weight.format(n=name)}"])
            return
        if style == "local" and any(numeric(c) for _, c in got):
            # (a function defined inside f: a closure over `scale`, or a lambda)
            name = f"lf{next(counter)}"
            acc, _ = next((a, c) for a, c in got if numeric(c))
            how = draw(st.sampled_from(["def", "lambda", "default", "comprehension"]))
            if how == "def":
                lines.extend([f"    def {name}(n):", f"        v = {term(f'n{acc}')}",
                              "        return v * scale"])
            elif how == "lambda":
                lines.append(f"    {name} = lambda n: {term(f'n{acc}')} * scale")
            if how in ("def", "lambda"):
                lines.append(f"    total = total + {name}({expr})")
            elif how == "default":  # (called with its default, and with the argument)
                lines.extend([f"    {name} = lambda n, k=2.0: {term(f'n{acc}')} * k",
                              f"    total = total + {name}({expr}) + {name}({expr}, scale)"])
            else:  # (the closure-capture idiom: one lambda per value of `i`)
                lines.extend([f"    {name} = [lambda n, i=i: {term(f'n{acc}')} * (i + 1) "
                              "for i in range(2)]",
                              f"    total = total + sum(g({expr}) for g in {name})"])
            for a, c in got:
                if a != acc:
                    read(f"{expr}{a}", c, depth + 1)
            return
        if style == "helper" and any(numeric(c) for _, c in got):
            name = f"h{next(counter)}"
            acc, _ = next((a, c) for a, c in got if numeric(c))
            how = draw(st.sampled_from(["scaled", "dict", "over data"]))
            if how == "scaled":
                helpers.append(f"def {name}(n, scale=1.0):\n    return {term(f'n{acc}')} * "
                               "scale\n")
                lines.append(f"    total = total + {name}({expr}, 2.0)")
            elif how == "over data":  # (called in a generator over the data: a loop)
                helpers.append(f"def {name}(n, xi):\n    v = {term(f'n{acc}')}\n"
                               f"    return v * np.sum(np.tanh(xi))\n")
                lines.append(f"    total = total + sum({name}({expr}, xi) for xi in x)")
            else:  # (a helper returning a dict it builds)
                helpers.append(f"def {name}(n):\n    out = {{'s': {term(f'n{acc}')}}}\n"
                               f"    out['t'] = out['s'] * 0.5\n    return out\n")
                lines.append(f"    total = total + {name}({expr})['t']")
            for a, c in got:
                if a != acc:
                    read(f"{expr}{a}", c, depth + 1)
            return
        if style == "dict" and any(numeric(c) for _, c in got):
            name = f"d{next(counter)}"
            acc, _ = next((a, c) for a, c in got if numeric(c))
            how = draw(st.sampled_from(["built", "accumulated", "list"]))
            if how == "built":  # (keys no name can spell too: each its own variable)
                s_, n_, t_ = draw(st.sampled_from(BUILT_KEYS))
                lines.extend([f"    {name} = {{{s_}: {term(f'{expr}{acc}')}, {n_}: 1}}",
                              f"    {name}[{t_}] = {name}[{s_}] * 2.0",
                              f"    total = total + {name}[{t_}] - {name}[{s_}] * {name}[{n_}]"])
            else:  # (entries of a dict or list of constants added into in a loop over data)
                keys = ("'s'", "'n'") if how == "accumulated" else ("0", "1")
                lines.extend([f"    {name} = {{'s': 0.0, 'n': 1.0}}" if how == "accumulated"
                              else f"    {name} = [0.0, 1.0]",
                              "    for xi in x:",
                              f"        {name}[{keys[0]}] += {term(f'{expr}{acc}')} * xi",
                              f"        {name}[{keys[1]}] *= 1.0 + xi",
                              f"    total = total + {name}[{keys[0]}] * {name}[{keys[1]}]"])
            for a, c in got:
                if a != acc:
                    read(f"{expr}{a}", c, depth + 1)
            return
        if style == "pop" and isinstance(v, (list, tuple, dict)) and \
                not isinstance(v, (P2, D2)) and v:
            # (a copy the function makes, an item taken out, the rest read after)
            name = f"p{next(counter)}"
            if isinstance(v, dict):
                key = draw(st.sampled_from(list(v)))
                lines.extend([f"    {name} = dict({expr})", f"    {name}x = {name}.pop({key!r})"])
                read(f"{name}x", v[key], depth + 1)
                if len(v) > 1:
                    read(name, {k: c for k, c in v.items() if k != key}, depth + 1)
            else:
                at = draw(st.sampled_from(["", "0", "-1", str(len(v) - 1)]))
                lines.extend([f"    {name} = list({expr})", f"    {name}x = {name}.pop({at})"])
                rest = list(v)
                taken = rest.pop(int(at or -1))
                read(f"{name}x", taken, depth + 1)
                if rest:
                    read(name, rest, depth + 1)
            return
        if style == "grow" and any(numeric(c) for _, c in got):
            # (a tuple grown in a loop over data, by `+=` or by `t = t + (...)`)
            name = f"t{next(counter)}"
            acc, _ = next((a, c) for a, c in got if numeric(c))
            grown = f"{name} += (" if draw(st.booleans()) else f"{name} = {name} + ("
            lines.extend([f"    {name} = ()", "    for xi in x:",
                          f"        {grown}{term(f'{expr}{acc}')} * xi, xi)",
                          f"    total = total + sum({name}) + {name}[0] * len({name})"])
            for a, c in got:
                if a != acc:
                    read(f"{expr}{a}", c, depth + 1)
            return
        if style == "unpack" and isinstance(v, (list, tuple)) and not isinstance(v, D2) \
                and len(v) > 1 and draw(st.booleans()):
            # (a starred target: the rest a list, read by position or looped over)
            first, rest = f"u{next(counter)}", f"r{next(counter)}"
            lines.append(f"    {first}, *{rest} = {expr}")
            read(first, v[0], depth + 1)
            read(rest, list(v[1:]), depth + 1)
            return
        if style == "unpack" and isinstance(v, (list, tuple)) and not isinstance(v, D2):
            names = [f"u{next(counter)}" for _ in v]
            lines.append(f"    {', '.join(names)}{',' if len(names) == 1 else ''} = {expr}")
            for n, c in zip(names, v):
                read(n, c, depth + 1)
            return
        for a, c in got:
            read(f"{expr}{a}", c, depth + 1)

    read("params", params, 0)
    if draw(st.booleans()):  # (a loop over data carrying a dict)
        lines.extend(["    state = {'h': total * 0.5, 'k': 0}",
                      "    for xi in x:",
                      "        state = {'h': np.tanh(state['h'] + xi), 'k': state['k'] + 1}",
                      "    total = total + state['h']"])
    if draw(st.booleans()):
        lines.extend(["    if total > 100.0:", "        total = total * 0.5"])
    text = PRELUDE + "\n".join(helpers) + "\n\ndef f(params, x):\n    total = 0.0\n    scale = 1.5\n" + \
        "\n".join(lines) + "\n    return total\n"
    return text, params


# how a layer's key is written, its number `{j}` (an expression of the loop's variable)
KEY_SPELLINGS = ['f"{w}{{{j}}}"', '"{w}" + str({j})', 'f"{w}{{{j}:d}}"', "f\"{{'{w}'}}{{{j}!s}}\"",
                 '("{w}", {j})']
# the loop over the layers: its header, and the layer number its variable gives
LAYER_LOOPS = [("for i in range({n}):", "i"),
               ("for i in range(len(params) // 2):", "i"),
               ("for i in range(count):", "i"),
               ("for i in reversed(range(count)):", "count - 1 - i"),
               ("for i in range(count - 1, -1, -1):", "count - 1 - i"),
               ("for i in range(1, count + 1):", "i - 1")]


@st.composite
def keyed_program(draw):
    """``(text, params)``: ``f(params, x)`` of a stack of layers whose weights sit in a
    dict under keys made of the layer's number (``params[f"W{i}"]``), read in a loop
    over the layers (forwards or backwards, its count a constant, ``len(params) //
    2`` or a name holding it) in the loop's body or in a helper it passes the number
    to."""
    n = draw(st.integers(1, 3))
    spelling = draw(st.sampled_from(KEY_SPELLINGS))
    header, number = draw(st.sampled_from(LAYER_LOOPS))
    backwards = "count - 1 - i" in number
    rng = np.random.default_rng(draw(st.integers(0, 1000)))
    params = {}
    for k in range(n):
        for w, shape in (("W", (2, 2)), ("b", (2,))):
            key = (w, k) if spelling.startswith("(") else f"{w}{k}"
            params[key] = rng.normal(0.0, 0.7, shape)

    def key(w):
        return spelling.format(w=w, j="j")

    layer = [f"j = {number}", f"h = np.tanh(h @ params[{key('W')}] + params[{key('b')}])"]
    helper = draw(st.booleans())
    lines = ["def f(params, x):", "    count = len(params) // 2", "    h = np.asarray(x) * 0.5"]
    lines.append("    " + header.format(n=n))
    if helper:
        lines.append("        h = layer(params, h, i)")
    else:
        lines.extend("        " + s for s in layer)
    lines.append(f"    return np.sum(h * h) * {2.0 if backwards else 1.0}")
    text = "import numpy as np\n\n"
    if helper:
        text += "def layer(params, h, i):\n    count = len(params) // 2\n" + "".join(
            f"    {s}\n" for s in layer) + "    return h\n\n"
    return text + "\n".join(lines) + "\n", params
