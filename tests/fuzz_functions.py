"""Random programs over functions held as values, for `test_fuzz_functions.py`.

`function_program(draw)` gives ``(text, params, x, rebound)``: a module defining
``f(params, x)`` with ``params`` a list of ``(W, b)`` pairs (3x3 and 3 floats) and
``()`` for layers without parameters, and ``x`` 3 floats. The network is made the
ways real programs make one:

* layers a factory made (stax's ``Dense``/``elementwise``): closures over a scale and
  over a function (a NumPy ufunc, a function of the module, a lambda, a lambda with a
  default), composed by a ``serial`` that loops ``zip(layers, params)`` in its own
  closure, or looped over in ``f`` through a module-level tuple or list of the layers
  (``zip``, ``enumerate``, ``list(zip(...))``, ``reversed`` of the pairs);
* a loop over a tuple of activations (``for act in ACTS``), a helper given a lambda
  written as its argument (``mix(h, p, act=lambda z: ...)``), a helper given a
  function by name;
* a tail whose array items nothing reads: a helper's ``(sum, np.array([...]))`` read
  at ``[0]``, a trajectory of ``np.array([...])`` states read at ``[-1][0]``, a
  comprehension of ``np.stack`` rows read at one;
* in some programs an index into one of NumPy's index builders (``np.r_``, ``np.c_``)
  that carries a derivative, which s2sad refuses (``refused`` is its line).

`rebound` names a module global holding functions (``ACTS`` or ``LAYERS``) and the
text of another value for it: the test rebinds it after a first gradient and checks
that the same gradient object follows.
"""

from hypothesis import strategies as st

PRELUDE = '''import numpy as np


def _sq(z):
    return 0.5 * z * z


def _soft(z):
    return z / (1.0 + np.abs(z))


def dense(scale):
    def apply_fun(p, h):
        W, b = p
        return scale * (h @ W) + b

    return apply_fun


def elementwise(fun):
    def apply_fun(p, h):
        return fun(h)

    return apply_fun


def serial(*layers):
    def apply_fun(params, h):
        for fun, p in zip(layers, params):
            h = fun(p, h)
        return h

    return apply_fun


def mix(h, p, act=np.tanh):
    W, b = p
    return act(h @ W) + b


def stats(h):
    return np.sum(h * h), np.array([h[0], 2.0 * h[1]])

'''

# the function an `elementwise` layer applies, as written in its factory's call
ELEMENTWISE = ["np.tanh", "np.sin", "_sq", "_soft", "lambda z: np.sin(z) * 0.5",
               "lambda z, k=0.3: z * k + np.tanh(z)"]
# activations of a loop over a tuple of them
ACTIVATIONS = ["np.tanh", "np.sin", "np.cos", "_sq", "_soft"]


@st.composite
def function_program(draw):
    n_layers = draw(st.integers(1, 4))
    layers, params_shape = [], []
    for _ in range(n_layers):
        if draw(st.booleans()):
            layers.append(f"dense({draw(st.sampled_from(['0.5', '1.5', '-0.8']))})")
            params_shape.append("pair")
        else:
            layers.append(f"elementwise({draw(st.sampled_from(ELEMENTWISE))})")
            params_shape.append("empty")
    if "pair" not in params_shape:  # (one layer at least has parameters)
        layers[0], params_shape[0] = "dense(0.5)", "pair"
    holder = draw(st.sampled_from(["tuple", "list"]))
    shown = ", ".join(layers) + ("," if len(layers) == 1 and holder == "tuple" else "")
    module = [f"LAYERS = ({shown})" if holder == "tuple" else f"LAYERS = [{shown}]"]
    body = ["    h = x"]
    how = draw(st.sampled_from(["serial", "zip", "enumerate", "listed", "reversed"]))
    if how == "serial":
        module.append("NET = serial(*LAYERS)")
        body.append("    h = NET(params[:LAYERS_N], h)")
    elif how == "zip":
        body += ["    for fun, p in zip(LAYERS, params):", "        h = fun(p, h)"]
    elif how == "enumerate":
        body += ["    for i, fun in enumerate(LAYERS):", "        h = fun(params[i], h)"]
    elif how == "listed":
        body += ["    pairs = list(zip(LAYERS, params))", "    for fun, p in pairs:",
                 "        h = fun(p, h)"]
    else:
        body += ["    for fun, p in reversed(list(zip(LAYERS, params))):",
                 "        h = fun(p, h)"]
    module.append(f"LAYERS_N = {n_layers}")
    rebound = ("LAYERS", "(" + ", ".join(reversed(layers)) + ",)" if holder == "tuple"
               else "[" + ", ".join(reversed(layers)) + "]")
    # (reversed, the layers' parameters no longer match: rebind only when they do)
    if params_shape != params_shape[::-1]:
        rebound = None
    n_params = n_layers
    extras = draw(st.lists(st.sampled_from(["acts", "lambda", "named"]), max_size=2))
    for extra in extras:
        if extra == "acts":
            acts = draw(st.lists(st.sampled_from(ACTIVATIONS), min_size=1, max_size=3))
            module.append(f"ACTS = ({', '.join(acts)},)")
            body += ["    for act in ACTS:", "        h = act(h)"]
            other = draw(st.lists(st.sampled_from(ACTIVATIONS), min_size=1, max_size=3))
            rebound = ("ACTS", f"({', '.join(other)},)")
        elif extra == "lambda":
            c = draw(st.sampled_from(["0.5", "1.2"]))
            lam = draw(st.sampled_from([f"lambda z: z * {c}", f"lambda z: np.sin(z) + {c} * z",
                                        "lambda z: _sq(z) - z"]))
            body.append(f"    h = mix(h, params[{n_params}], act={lam})")
            params_shape.append("pair")
            n_params += 1
        else:
            act = draw(st.sampled_from(["np.tanh", "_soft", "np.sin"]))
            body.append(f"    h = mix(h, params[{n_params}], {act})")
            params_shape.append("pair")
            n_params += 1
    at = len(body)  # (where the tail starts)
    tail = draw(st.sampled_from(["sum", "stats", "trajectory", "rows"]))
    if tail == "sum":
        body.append("    return np.sum(h ** 2)")
    elif tail == "stats":
        body.append("    return stats(h)[0] + h[2]")
    elif tail == "trajectory":
        body += ["    states = []", "    for k in range(3):", "        h = np.tanh(h) * 1.1",
                 "        states.append(np.array([h[0], h[1] * k]))",
                 "    return states[-1][0] + np.sum(h)"]
    else:
        body += ["    rows = [np.stack([h * k, h]) for k in (1.0, 2.0)]",
                 "    return np.sum(rows[1] ** 2)"]
    refused = None
    if draw(st.integers(0, 5)) == 0:
        builder = draw(st.sampled_from(["np.r_[0.0, h, 1.0]", "np.c_[h, h * h]"]))
        body.insert(at, f"    h = h + np.sum({builder})")
        refused = builder
    text = PRELUDE + "\n".join(module) + "\n\n\ndef f(params, x):\n" + "\n".join(body) + "\n"
    seed = draw(st.integers(0, 2**16))
    return text, params_shape, seed, (rebound if refused is None else None), refused
