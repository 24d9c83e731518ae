"""Derivatives with respect to containers of parameters: dicts, lists of pairs,
tuples, namedtuples, dataclasses, nested, with ints and strings among the leaves,
in every entry point, against central differences leaf by leaf."""

import collections
import dataclasses

import numpy as np
import pytest

import s2sad
from s2sad.errors import S2SADError
from s2sad.ir import trees
from helpers import assert_tree_close
from helpers import tree_numeric_grad as numeric_grad

rng = np.random.default_rng(7)
X = rng.normal(size=(6, 3))
Y = rng.normal(size=6)

Pair = collections.namedtuple("Pair", "W b")


@dataclasses.dataclass
class Linear:
    W: np.ndarray
    b: float
    name: str = "linear"


# ------------------------------------------------------------------ models


def mlp(params, X, y):
    h = X
    for i, (W, b) in enumerate(params):
        h = h @ W + b
        if i < len(params) - 1:
            h = np.tanh(h)
    return np.sum((h[:, 0] - y) ** 2)


def dict_model(p, X, y):
    z = X @ p["W"] + p["b"]
    return np.sum((np.tanh(z) * p["scale"] - y) ** 2) + 0.1 * np.sum(p["W"] ** 2)


def items_model(p, X, y):
    total = 0.0
    for name, value in p.items():
        if name == "W":
            total = total + np.sum(np.sin(X @ value))
        else:
            total = total + value * np.sum(y)
    return total * len(p)


def record_model(p, X, y):
    return np.sum((X @ p.W + p.b - y) ** 2)


def nested_model(params, X, y):
    h = np.tanh(X @ params["layers"][0].W + params["layers"][0].b)
    out = h @ params["layers"][1].W + params["layers"][1].b
    scale = params["opts"]["scale"]
    return np.sum((out * scale - y) ** 2) / params["opts"]["n"]


def rnn(p, xs, h0):
    h = h0
    for x in xs:
        h = np.tanh(p["Wx"] @ x + p["Wh"] @ h + p["b"])
    return np.sum(h ** 2)


def builds_dict(p, X, y):
    cache = {"z": X @ p["W"]}
    cache["a"] = np.tanh(cache["z"] + p["b"])
    out = dict(cache)
    out["loss"] = np.sum((out["a"] - y) ** 2)
    return out["loss"]


def branchy(p, x):
    if x > 0:
        q = {"a": p["a"] * x, "b": p["b"]}
    else:
        q = {"a": p["a"], "b": p["b"] * x}
    return q["a"] * q["b"]


def layers(rng, sizes):
    return [(rng.normal(size=(m, n)), rng.normal(size=n)) for m, n in zip(sizes, sizes[1:])]


CASES = [
    ("list of pairs", mlp, lambda: layers(rng, [3, 4, 1])),
    ("list of namedtuples", mlp, lambda: [Pair(*l) for l in layers(rng, [3, 5, 2, 1])]),
    ("dict", dict_model, lambda: {"W": rng.normal(size=3), "b": 0.3, "scale": 1.5}),
    ("dict with int", dict_model, lambda: {"W": rng.normal(size=3), "b": 0.3, "scale": 2}),
    ("dict items", items_model, lambda: {"W": rng.normal(size=3), "c": 0.7}),
    ("namedtuple", record_model, lambda: Pair(rng.normal(size=3), 0.2)),
    ("dataclass", record_model, lambda: Linear(rng.normal(size=3), 0.2)),
    ("nested", nested_model, lambda: {
        "layers": [Linear(rng.normal(size=(3, 4)), 0.1), Pair(rng.normal(size=4), 0.2)],
        "opts": {"scale": 0.5, "n": 6, "label": "run"}}),
    ("builds dicts", builds_dict, lambda: {"W": rng.normal(size=3), "b": 0.4}),
]


@pytest.mark.parametrize("name,f,make", CASES, ids=[c[0] for c in CASES])
def test_grad_matches_central_differences(name, f, make):
    params = make()
    got = s2sad.grad(f)(params, X, Y)
    assert_tree_close(got, numeric_grad(f, (params, X, Y), 0))
    value, again = s2sad.value_and_grad(f)(params, X, Y)
    assert value == pytest.approx(f(params, X, Y))
    assert_tree_close(again, got)


@pytest.mark.parametrize("name,f,make", CASES, ids=[c[0] for c in CASES])
def test_vjp_and_jvp_are_paired(name, f, make):
    params = make()
    out, pullback = s2sad.vjp(f, params, X, Y)
    assert out == pytest.approx(f(params, X, Y))
    p_bar, X_bar, _ = pullback(1.0)
    assert_tree_close(p_bar, s2sad.grad(f)(params, X, Y))
    tangent = trees.build(trees.spec_of(params), iter(
        [rng.normal(size=np.shape(v)) if isinstance(v, np.ndarray) else
         (0.3 if isinstance(v, float) else None) for v in trees.leaves(params)]))
    y, y_dot = s2sad.jvp(f, (params, X, Y), (tangent, None, None))
    assert y == pytest.approx(out)
    dot = sum(float(np.sum(g * t)) for g, t in zip(trees.leaves(p_bar), trees.leaves(tangent))
              if g is not None)
    assert y_dot == pytest.approx(dot, rel=1e-9)


def test_rnn_with_dict_of_parameters():
    p = {"Wx": rng.normal(size=(4, 3)) * 0.5, "Wh": rng.normal(size=(4, 4)) * 0.5,
         "b": rng.normal(size=4)}
    xs = [rng.normal(size=3) for _ in range(5)]
    h0 = np.zeros(4)
    assert_tree_close(s2sad.grad(rnn)(p, xs, h0), numeric_grad(rnn, (p, xs, h0), 0))


def test_branches_join_containers():
    p = {"a": 1.3, "b": -0.4}
    for x in (2.0, -3.0):
        assert_tree_close(s2sad.grad(branchy)(p, x), numeric_grad(branchy, (p, x), 0))


def test_hessian_is_nested_like_the_parameters():
    p = {"W": rng.normal(size=3), "b": 0.3, "scale": 1.5}
    H = s2sad.hessian(dict_model)(p, X, Y)
    assert set(H) == {"W", "b", "scale"} and set(H["W"]) == {"W", "b", "scale"}
    assert H["W"]["W"].shape == (3, 3) and np.shape(H["W"]["b"]) == (3,)
    g = s2sad.grad(dict_model)
    eps = 1e-6
    for key in ("b", "scale"):
        up, down = dict(p), dict(p)
        up[key] += eps
        down[key] -= eps
        column = {k: (g(up, X, Y)[k] - g(down, X, Y)[k]) / (2 * eps) for k in p}
        for k in p:
            np.testing.assert_allclose(H[k][key], column[k], rtol=1e-5, atol=1e-6)


def test_leaves_without_derivative_get_none_and_keep_types():
    p = {"W": rng.normal(size=3).astype(np.float32), "n": 3, "tag": "x", "b": 0.5}

    def f(p, X):
        return float(np.sum(X @ p["W"])) * p["n"] + p["b"] if p["tag"] == "x" else 0.0

    g = s2sad.grad(f)(p, X)
    assert g["n"] is None and g["tag"] is None
    assert g["W"].dtype == np.float32 and isinstance(g["b"], float)


def test_returned_container_in_vjp_and_jvp():
    def f(p, x):
        return {"y": p["a"] * x, "pair": (np.sin(p["a"]), p["b"] * 2.0)}

    p = {"a": 0.7, "b": 1.5}
    out, pullback = s2sad.vjp(f, p, 2.0)
    assert set(out) == {"y", "pair"} and isinstance(out["pair"], tuple)
    p_bar, x_bar = pullback({"y": 1.0, "pair": (0.0, 1.0)})
    assert p_bar["a"] == pytest.approx(2.0) and p_bar["b"] == pytest.approx(2.0)
    assert x_bar == pytest.approx(0.7)
    with pytest.raises(S2SADError, match="structure"):
        pullback((1.0, 0.0))
    y, y_dot = s2sad.jvp(f, (p, 2.0), ({"a": 1.0, "b": 0.0}, 0.0))
    assert y_dot["y"] == pytest.approx(2.0)
    assert y_dot["pair"][0] == pytest.approx(np.cos(0.7))


def test_errors_point_at_the_line():
    def dynamic_key(p, k):
        return p[k] * 2.0

    with pytest.raises(S2SADError, match="known only when the function runs") as info:
        s2sad.grad(dynamic_key)({"a": 1.0}, "a")
    assert info.value.lineno is not None

    def passes_on(p):
        return np.sum(helper(p)) + np.sum(np.asarray(p))

    with pytest.raises(S2SADError, match="a dict as written, with no derivative"):
        s2sad.grad(passes_on)({"a": 1.0})

    def no_key(p):
        return p["c"]

    with pytest.raises(S2SADError, match="no item 'c'"):
        s2sad.grad(no_key)({"a": 1.0})

    def mutates(p):
        p["a"] = 2.0
        return p["a"]

    with pytest.raises(S2SADError, match="passed in as an argument"):
        s2sad.grad(mutates)({"a": 1.0})

    with pytest.raises(S2SADError, match="no float"):
        s2sad.grad(dict_model)({"W": np.arange(3), "b": 1, "scale": 2}, X, Y)


def helper(p):
    return p["a"]


def test_jvp_tangent_structure_must_match():
    p = {"W": rng.normal(size=3), "b": 0.3, "scale": 1.5}
    with pytest.raises(S2SADError, match="structure"):
        s2sad.jvp(dict_model, (p, X, Y), ({"W": np.ones(3)}, None, None))


def _with_built_list(x):
    ys = [x * i for i in range(3)]
    return sum(ys), {"ys": ys, "grown": _grown(x)}


def _grown(x):
    out = []
    for i in range(3):
        out.append(x * i)
    return out


def test_has_aux_with_lists_the_function_builds():
    """A list built by a comprehension or by appends, in the metrics: its zero seed
    (a list) was refused as another structure than the output's leaf it is."""
    g, aux = s2sad.grad(_with_built_list, has_aux=True)(2.0)
    assert g == 3.0 and aux == {"ys": [0.0, 2.0, 4.0], "grown": [0.0, 2.0, 4.0]}
    out, pullback = s2sad.vjp(_with_built_list, 2.0)
    assert pullback((1.0, {"ys": [0.0, 0.0, 0.0], "grown": [1.0, 1.0, 1.0]})) == (6.0,)


def test_has_aux_returns_the_auxiliary_data():
    def loss(params, X, y):
        pred = X @ params["W"] + params["b"]
        err = np.mean((pred - y) ** 2)
        return err, {"pred_mean": np.mean(pred), "n": len(y), "note": "ok"}

    p = {"W": rng.normal(size=3), "b": 0.2}
    grads, aux = s2sad.grad(loss, has_aux=True)(p, X, Y)
    assert aux["n"] == 6 and aux["note"] == "ok"
    assert aux["pred_mean"] == pytest.approx(np.mean(X @ p["W"] + 0.2))
    assert_tree_close(grads, numeric_grad(lambda *a: loss(*a)[0], (p, X, Y), 0))
    (value, aux2), again = s2sad.value_and_grad(loss, has_aux=True)(p, X, Y)
    assert value == pytest.approx(loss(p, X, Y)[0]) and aux2["n"] == 6
    assert_tree_close(again, grads)

    def plain(x, y):
        return x * y, [x, y]

    g, aux = s2sad.grad(plain, wrt=(0, 1), has_aux=True)(2.0, 3.0)
    assert g == (3.0, 2.0) and aux == [2.0, 3.0]

    def not_a_pair(x):
        return x * 2.0

    with pytest.raises(S2SADError, match="pair"):
        s2sad.grad(not_a_pair, has_aux=True)(1.0)


def test_tree_api_runs_an_optimizer_step():
    params = {"layers": [(np.ones((3, 2)), np.zeros(2))], "scale": 1.0, "steps": 3}
    grads = s2sad.tree_map(lambda p: p * 0.5 if not isinstance(p, int) else None, params)
    new = s2sad.tree_map(lambda p, g: p if g is None else p - 0.1 * g, params, grads)
    assert isinstance(new["layers"][0], tuple) and new["steps"] == 3
    np.testing.assert_allclose(new["layers"][0][0], 0.95 * np.ones((3, 2)))
    leaves, spec = s2sad.tree_flatten(params)
    assert len(leaves) == 4 and s2sad.tree_unflatten(spec, leaves)["scale"] == 1.0
    with pytest.raises(ValueError, match="structure"):
        s2sad.tree_map(lambda a, b: a, params, {"scale": 1.0})


class Box:
    def __init__(self, w, c):
        self.w, self.c = w, c


def test_registered_container():
    s2sad.register_container(Box, lambda b: (("w", "c"), (b.w, b.c)),
                             lambda keys, children: Box(*children))

    def f(box, x):
        return np.sum(box.w * x) * box.c

    box = Box(rng.normal(size=3), 0.5)
    g = s2sad.grad(f)(box, np.ones(3))
    assert isinstance(g, Box)
    np.testing.assert_allclose(g.w, 0.5 * np.ones(3))
    assert g.c == pytest.approx(np.sum(box.w))


class JaxStyleBox:
    def __init__(self, w, c):
        self.w, self.c = w, c


def test_a_flatten_written_for_jax_is_told_apart():
    """JAX's flatten returns ``(children, aux)``: a clear error says what s2sad's
    returns, not a TypeError from inside the compiler (as before)."""
    def f(box, x):
        return np.sum(box.w * x) * box.c

    box = JaxStyleBox(np.ones(3), 0.5)
    for aux in (None, "aux", ("w", "c")):
        s2sad.register_container(JaxStyleBox, lambda b, aux=aux: ((b.w, b.c), aux),
                                 lambda aux, children: JaxStyleBox(*children))
        with pytest.raises(S2SADError, match=r"flatten returned \(\(an array of shape "
                                             r"\(3,\), 0.5\), .*not \(keys, children\)"):
            s2sad.grad(f)(box, np.ones(3))


def simulate(p, n):
    state = {"x": 1.0, "v": 0.0}
    for t in range(n):
        state = {"x": state["x"] + 0.1 * state["v"],
                 "v": state["v"] - 0.1 * p["k"] * state["x"]}
        if state["x"] > 5.0:
            break
    return state["x"] ** 2 + p["c"] * state["v"]


def lstm(p, xs):
    st = {"h": np.zeros(3), "c": np.zeros(3)}
    for x in xs:
        z = p["W"] @ x + p["U"] @ st["h"]
        c = st["c"] * np.tanh(z) + z
        st = {"h": np.tanh(c), "c": c}
    return np.sum(st["h"] ** 2)


def grows(p, n):
    s = {"a": p["a"]}
    i = 0
    while i < n:
        s["a"] = s["a"] * p["r"]
        i += 1
    return s["a"]


def test_containers_carried_by_loops():
    p = {"k": 1.3, "c": 0.4}
    assert_tree_close(s2sad.grad(simulate)(p, 20), numeric_grad(simulate, (p, 20), 0))
    q = {"W": rng.normal(size=(3, 2)) * 0.5, "U": rng.normal(size=(3, 3)) * 0.5}
    xs = [rng.normal(size=2) for _ in range(4)]
    g = s2sad.grad(lstm)(q, xs)
    assert_tree_close(g, numeric_grad(lstm, (q, xs), 0))
    tangent = {"W": rng.normal(size=(3, 2)), "U": rng.normal(size=(3, 3))}
    _, y_dot = s2sad.jvp(lstm, (q, xs), (tangent, None))
    assert y_dot == pytest.approx(np.sum(g["W"] * tangent["W"]) + np.sum(g["U"] * tangent["U"]))
    r = {"a": 2.0, "r": 1.1}
    assert_tree_close(s2sad.grad(grows)(r, 3), numeric_grad(grows, (r, 3), 0))
    assert_tree_close(s2sad.grad(simulate, checkpoint="binomial", snapshots=3)(p, 20),
                      s2sad.grad(simulate)(p, 20))

    def changes_keys(p, n):
        s = {"a": p["a"]}
        for i in range(n):
            s = {"b": s["a"] * 2.0}
        return s["b"]

    with pytest.raises(S2SADError, match="same keys in every iteration"):
        s2sad.grad(changes_keys)({"a": 1.0}, 2)


def dense(p, x, act=True):
    z = x @ p["W"] + p["b"]
    if not act:
        return z
    return np.tanh(z)


def network(params, x):
    h = x
    for i, p in enumerate(params):
        h = dense(p, h, i < len(params) - 1)
    return h


def network_loss(params, x, y):
    return np.sum((network(params, x)[:, 0] - y) ** 2)


def initial(p):
    return {"h": p["h0"] * 1.0, "n": 0}


def advance(p, s, x):
    return {"h": np.tanh(p["W"] @ s["h"] + x), "n": s["n"] + 1}


def recurrent(p, xs):
    s = initial(p)
    for x in xs:
        s = advance(p, s, x)
    return np.sum(s["h"] ** 2) + s["n"]


def test_containers_passed_to_functions():
    params = [{"W": rng.normal(size=(3, 4)), "b": np.zeros(4)},
              {"W": rng.normal(size=(4, 1)), "b": np.zeros(1)}]
    g = s2sad.grad(network_loss)(params, X, Y)
    assert_tree_close(g, numeric_grad(network_loss, (params, X, Y), 0))
    p = {"W": rng.normal(size=(3, 3)) * 0.5, "h0": rng.normal(size=3)}
    xs = [rng.normal(size=3) for _ in range(3)]
    assert_tree_close(s2sad.grad(recurrent)(p, xs), numeric_grad(recurrent, (p, xs), 0))
    H = s2sad.hessian(recurrent)(p, xs)
    assert H["h0"]["h0"].shape == (3, 3)
    np.testing.assert_allclose(H["h0"]["W"].shape, (3, 3, 3))
    # (the derivative reads like the user's code: the call's lines are in place)
    flat, _, _ = s2sad.api.structured.flat_function(
        network_loss, {"params": trees.spec_of(params)})
    text = s2sad.source(flat, wrt=(0, 1, 2, 3),
                        example=(*trees.leaves(params), X, Y))
    assert "np.tanh" in text and "def dense" not in text and "if " not in text


def _pair_sum(pairs, w):
    total = 0.0
    for a, b in pairs:
        total = total * w + a * b
    return total


def _scalar_check(f, args, wrt=(0, 1), h=1e-6):
    got = s2sad.grad(f, wrt=wrt)(*args)
    for i, g in zip(wrt, got):
        up, down = list(args), list(args)
        up[i] += h
        down[i] -= h
        assert abs(g - (f(*up) - f(*down)) / (2 * h)) < 1e-6, (f.__name__, i, g)
    return got


def test_pop_from_a_container_the_function_made():
    """``xs.pop()``, ``xs.pop(k)`` and ``d.pop(key)`` of a list or dict of parameters
    the function built, where the container is also passed to a function (what makes
    it a container s2sad follows, not a list it tapes)."""
    def last(x, y):
        pr = [(0.5, 0.5), (x, y)]
        acc = x + 0.5 * _pair_sum(pr, 0.5)
        if len(pr) > 1:
            a, b = pr.pop()
            acc = acc + a - b
        return acc + _pair_sum(pr, 0.25)

    def first(x, y):
        pr = [(x, 0.5), (y, x), (x * y, 2.0)]
        a, b = pr.pop(0)
        return _pair_sum(pr, 0.5) + a * b

    def whole_item(x, y):
        pr = [(x, 0.5), (y, x)]
        acc = _pair_sum(pr, 0.3)
        q = pr.pop()
        pr.pop()
        return acc + q[0] * q[1] + len(pr)

    def from_dict(x, y):
        d = {"a": x, "b": y}
        v = d.pop("a")
        return v * y + d["b"] + len(d)

    assert _scalar_check(last, (0.3, 0.7)) == pytest.approx((2.35, -0.85))
    for f in (first, whole_item, from_dict):
        _scalar_check(f, (0.3, 0.7))


def _squared_error(p, x, y):
    r = p["w"] * x + p["b"] - y
    return r * r


def test_a_comprehension_over_data_passing_the_parameters():
    """``sum(loss(p, x, y) for x, y in data)``, a list comprehension of it with a
    filter, and two ``for`` clauses: the function of several lines is put in place in
    a loop of appends built before the line (`structure_loops.looped_comprehension`);
    the comprehension's variables do not leak into the function's (`x` below)."""
    def mean(p, data):
        return sum(_squared_error(p, x, y) for x, y in data) / len(data)

    def filtered(p, data):
        errs = [_squared_error(p, x, y) for x, y in data if y > 1.5]
        return sum(errs) + max(_squared_error(p, x, 2.0) for x, _ in data)

    def shadowed(p, data):
        x = 10.0
        s = sum(_squared_error(p, x * k, y) for x, y in data for k in (1.0, 2.0) if k < 3.0)
        return s + x * p["w"]

    data = [(0.5, 1.0), (1.5, 2.0), (2.0, 2.5)]
    p = {"w": 0.3, "b": 0.1}
    for f in (mean, filtered, shadowed):
        got = s2sad.grad(f)(p, data)
        assert_tree_close(got, numeric_grad(f, (p, data), 0))
        value, again = s2sad.value_and_grad(f)(p, data)
        assert value == f(p, data) and again == got
    assert s2sad.grad(mean)(p, data) == pytest.approx({"w": -4.1, "b": -8.0 / 3})

    def short_circuit(p, data):  # (any() stops early: not built first)
        return 1.0 if any(_squared_error(p, x, y) > 1.0 for x, y in data) else p["w"]

    with pytest.raises(S2SADError, match="inside a comprehension"):
        s2sad.grad(short_circuit)(p, data)


def test_a_container_made_in_a_loop_changes_in_that_iteration():
    """A container a `while` loop's iteration builds may be popped and appended to in
    that iteration (its structure does not cross iterations); one made before the loop
    may not (`no_change_in_loop`, refused below)."""
    def made_in_the_loop(x, y):
        acc = x
        n = 0
        while n < 3 and acc < 5.0:
            n += 1
            pr = [(0.5, x), (x, y)]
            a, b = pr.pop()
            acc = acc + a * b + 0.5 * _pair_sum(pr, 0.5)
            pr.append((acc, y))
            acc = acc + _pair_sum(pr, 0.3)
        return acc

    _scalar_check(made_in_the_loop, (0.3, 0.7))


def test_pop_refusals_name_the_line():
    def past_the_end(x, y):
        pr = [(x, 0.5), (y, x)]
        acc = _pair_sum(pr, 0.3)
        pr.pop(5)
        return acc

    def runtime_key(x, y, k):
        pr = [(x, 0.5), (y, x)]
        acc = _pair_sum(pr, 0.3)
        a, b = pr.pop(k)
        return acc + a

    def in_a_loop(x, y, n):
        pr = [(x, 0.5), (y, x), (x, y)]
        acc = _pair_sum(pr, 0.3)
        for _ in range(n):
            a, b = pr.pop()
            acc = acc + a * b
        return acc

    def on_one_path(x, y):
        pr = [(x, 0.5), (y, x)]
        acc = _pair_sum(pr, 0.3)
        if x > 0:
            pr.pop()
        return acc + _pair_sum(pr, 0.7)

    def argument(pairs, w):
        acc = _pair_sum(pairs, w)
        a, b = pairs.pop()
        return acc + a * b

    cases = [(past_the_end, (0.3, 0.7), "no item 5 to pop", "pr.pop(5)"),
             (runtime_key, (0.3, 0.7, 1), "by a key it knows", "pr.pop(k)"),
             (in_a_loop, (0.3, 0.7, 2), "changes inside a loop", "pr.pop()"),
             (on_one_path, (0.3, 0.7), "`pr` holds containers of different", "if x > 0"),
             (argument, ([(0.3, 0.5), (0.2, 0.1)], 0.5), "passed in as an argument",
              "pairs.pop()")]
    for f, args, message, line in cases:
        with pytest.raises(S2SADError, match=message) as info:
            s2sad.grad(f, wrt=(0, 1))(*args)
        assert line in str(info.value), str(info.value)


def recursive(p, n):
    return p["a"] if n == 0 else recursive(p, n - 1) * 2.0


def test_refused_calls():
    with pytest.raises(S2SADError, match="calls itself|conditional expression"):
        s2sad.grad(recursive)({"a": 1.0}, 2)

    def shadows(p, np):
        return dense(p, np).sum()

    with pytest.raises(S2SADError, match="uses the name `np` for something else"):
        s2sad.grad(shadows)({"W": np.ones((2, 2)), "b": np.zeros(2)}, np.ones(2))


def test_jacobian_nests_output_outside_inputs():
    def f(p, x):
        return {"a": p["W"] @ x, "s": np.sum(p["W"]) * p["c"]}

    p = {"W": rng.normal(size=(2, 3)), "c": 0.5, "tag": "w"}
    x = rng.normal(size=3)
    for mode in ("forward", "reverse", "auto"):
        J = s2sad.jacobian(f, mode=mode)(p, x)
        assert J["a"]["W"].shape == (2, 2, 3) and J["a"]["tag"] is None
        np.testing.assert_allclose(J["a"]["W"][1, 1], x)
        np.testing.assert_allclose(J["a"]["c"], np.zeros(2), atol=1e-12)
        assert J["s"]["c"] == pytest.approx(np.sum(p["W"]))
        np.testing.assert_allclose(J["s"]["W"], 0.5 * np.ones((2, 3)))
    Jx = s2sad.jacobian(f, wrt=(0, 1))(p, x)
    np.testing.assert_allclose(Jx["a"][1], p["W"])


def test_jacobian_of_a_container_output_of_arrays():
    """An output that is a dict or a namedtuple, the inputs arrays: the output's
    structure outside, as with containers among the inputs (it was refused)."""
    def heads(x, W):
        h = np.tanh(W @ x)
        return {"mean": h[:2], "total": np.sum(h) * x[0]}

    def record(x, W):
        return Pair(np.tanh(W @ x), np.sum(x ** 2))

    x, W = rng.normal(size=3), rng.normal(size=(3, 3))
    numeric = {k: np.stack([(np.asarray(heads(x + 1e-6 * e, W)[k]) -
                             np.asarray(heads(x - 1e-6 * e, W)[k])) / 2e-6
                            for e in np.eye(3)], axis=-1) for k in ("mean", "total")}
    for mode in ("forward", "reverse", "auto"):
        jac = s2sad.jacobian(heads, wrt=(0, 1), mode=mode)
        for _ in range(2):  # (the second call goes straight to the nested form)
            J = jac(x, W)
            for k in numeric:
                np.testing.assert_allclose(J[k][0], numeric[k], rtol=1e-6, atol=1e-8)
            assert J["mean"][1].shape == (2, 3, 3)
        J = s2sad.jacobian(record, mode=mode)(x, W)
        assert isinstance(J, Pair)
        np.testing.assert_allclose(J.b, 2 * x)
        np.testing.assert_allclose(J.W, (1 - np.tanh(W @ x) ** 2)[:, None] * W)


def _times_an_option(x, t):
    return x * 2.0


def test_a_container_without_floats():
    """A dict of ints is a container whose leaves are held fixed: asked for as `wrt`
    it is refused by name; vjp and jvp carry it with None."""
    for call in (lambda: s2sad.grad(_times_an_option, wrt=1)(1.0, {"a": 1}),
                 lambda: s2sad.jacobian(_times_an_option, wrt=1)(1.0, {"a": 1}),
                 lambda: s2sad.hessian(_times_an_option, wrt=1)(1.0, {"a": 1})):
        with pytest.raises(s2sad.WrtError, match="`t`.*no float"):
            call()
    out, pullback = s2sad.vjp(_times_an_option, 1.0, {"a": 1})
    assert out == 2.0 and pullback(1.0) == (2.0, {"a": None})
    assert s2sad.jvp(_times_an_option, (1.0, {"a": 1}), (1.0, {"a": 0})) == (2.0, 2.0)


def test_fast_path_and_its_fallbacks():
    g = s2sad.grad(dict_model)
    p = {"W": rng.normal(size=3), "b": 0.3, "scale": 1.5}
    first = g(p, X, Y)
    assert g.__s2sad__.structured_fast is not None
    q = {"W": rng.normal(size=3), "b": -0.2, "scale": 0.5}
    assert_tree_close(g(q, X, Y), numeric_grad(dict_model, (q, X, Y), 0))
    assert_tree_close(g(p, X, Y), first)
    # another structure, another leaf type, a leaf of another rank: the slow path
    r = dict(q, extra="unused")
    assert g(r, X, Y)["extra"] is None
    s = dict(q, scale=2)
    assert g(s, X, Y)["scale"] is None
    t = dict(q, W=rng.normal(size=(3, 1)))  # (X @ W is (6, 1): broadcast against y)
    assert_tree_close(g(t, X, Y), numeric_grad(dict_model, (t, X, Y), 0))
    assert_tree_close(g(q, X, Y), numeric_grad(dict_model, (q, X, Y), 0))


def test_a_complex_leaf_is_named_by_its_path():
    p = {"layers": [Pair(np.ones(2), 0.5), Pair(np.ones(2), 1j)]}
    with pytest.raises(s2sad.ComplexArgumentError, match=r"params\['layers'\]\[1\]\.b"):
        s2sad.grad(lambda_free)(p)  # noqa


def lambda_free(params):
    return np.sum(params["layers"][0].W)


@pytest.mark.parametrize("name,f,make", CASES[:4] + CASES[5:7],
                         ids=[c[0] for c in CASES[:4] + CASES[5:7]])
def test_source_shows_the_containers_and_runs(name, f, make):
    params = make()
    text = s2sad.source(f, example=(params, X, Y))
    assert f"def {f.__name__}_grad(" in text and "_bar = " in text
    if isinstance(params, dict):
        assert "_bar = {" in text
    ns = {}
    exec("import collections, dataclasses\nfrom test_structures import Pair, Linear\n" +
         text, ns)
    assert_tree_close(ns[f"{f.__name__}_grad"](params, X, Y), s2sad.grad(f)(params, X, Y),
                      rtol=1e-12, atol=1e-14)


def test_hvp_with_respect_to_a_container():
    p = {"W": rng.normal(size=3), "b": 0.3, "scale": 1.5, "n": 2}
    v = {"W": rng.normal(size=3), "b": 0.7, "scale": -0.4, "n": None}
    got = s2sad.hvp(dict_model)(p, X, Y, v)
    H = s2sad.hessian(dict_model)(p, X, Y)
    keys = ["W", "b", "scale"]
    for k in keys:
        want = sum(np.tensordot(H[k][j], v[j], axes=np.ndim(v[j])) for j in keys)
        np.testing.assert_allclose(got[k], want, rtol=1e-8, atol=1e-10)
    assert got["n"] is None


@pytest.mark.parametrize("mode", ["forward", "tape"])
def test_other_modes_take_containers(mode):
    p = {"W": rng.normal(size=3), "b": 0.3, "scale": 1.5, "n": 2}
    want = s2sad.grad(dict_model)(p, X, Y)
    assert_tree_close(s2sad.grad(dict_model, mode=mode)(p, X, Y), want, rtol=1e-9, atol=1e-12)
    value, got = s2sad.value_and_grad(dict_model, wrt=(0, 1), mode=mode)(p, X, Y)
    assert value == pytest.approx(dict_model(p, X, Y))
    assert_tree_close(got[0], want, rtol=1e-9, atol=1e-12)
    assert got[1].shape == X.shape


def test_check_explain_and_graph_take_containers():
    p = {"W": rng.normal(size=3), "b": 0.3, "scale": 1.5}
    assert s2sad.check(dict_model, p, X, Y).ok
    assert s2sad.check(dict_model, p, X, Y, order=2).ok
    page = s2sad.explain(dict_model, example=(p, X, Y))
    assert "dict_model" in repr(page)
    dot = s2sad.graph(dict_model, at=(p, X, Y))
    assert "p_W" in dot and "digraph" in dot


State = collections.namedtuple("State", "x v")


@dataclasses.dataclass
class Point:
    x: float
    v: float


def pendulum_step(s, k):
    return State(s.x + 0.05 * s.v, s.v - 0.05 * k * np.sin(s.x))


def pendulum(x0, k):
    s = State(x0, 0.0)
    for _ in range(20):
        s = pendulum_step(s, k)
    end = Point(s.x, s.v)
    return end.x * end.v + s.x


def test_namedtuples_and_dataclasses_built_in_a_function_without_container_arguments():
    """A namedtuple or dataclass the function (or a function it calls) builds of computed
    values is followed as a dict is (it was refused: no derivative rule for `State`)."""
    got = s2sad.grad(pendulum, wrt=(0, 1))(0.8, 3.0)
    want = tuple(numeric_grad(pendulum, (0.8, 3.0), i) for i in (0, 1))
    assert_tree_close(got, want)
    _, dot = s2sad.jvp(pendulum, (0.8, 3.0), (0.5, -1.0))
    assert dot == pytest.approx(0.5 * got[0] - got[1], rel=1e-9)


def moments(x, k):
    return {"mean": np.mean(x) * k, "spread": np.sum((x - np.mean(x)) ** 2)}


def pendulum_state(x0, k):
    s = State(x0, 0.0)
    for _ in range(5):
        s = pendulum_step(s, k)
    return s


def test_vjp_and_jvp_of_a_container_built_and_returned_without_container_arguments():
    """(Both refused the dict and the namedtuple that `jacobian` took: the output's
    structure is followed as it is where an argument is a container.)"""
    x = np.array([0.5, -1.0, 2.0])
    out, pullback = s2sad.vjp(moments, x, 1.5)
    assert out["mean"] == pytest.approx(moments(x, 1.5)["mean"])
    J = s2sad.jacobian(moments, wrt=(0, 1))(x, 1.5)
    x_bar, k_bar = pullback({"mean": 2.0, "spread": -0.5})
    assert np.allclose(x_bar, 2.0 * J["mean"][0] - 0.5 * J["spread"][0])
    assert k_bar == pytest.approx(2.0 * J["mean"][1] - 0.5 * J["spread"][1])
    y, y_dot = s2sad.jvp(moments, (x, 1.5), (np.ones(3), 0.5))
    assert y_dot["spread"] == pytest.approx(float(np.sum(J["spread"][0])), abs=1e-12)
    assert y_dot["mean"] == pytest.approx(float(np.sum(J["mean"][0]) + 0.5 * J["mean"][1]))
    out, pullback = s2sad.vjp(pendulum_state, 0.8, 3.0)
    assert isinstance(out, State) and out == pendulum_state(0.8, 3.0)
    got = pullback(State(1.0, 0.0))
    want = [numeric_grad(lambda a, b: pendulum_state(a, b).x, (0.8, 3.0), i) for i in (0, 1)]
    assert got == pytest.approx(tuple(want), rel=1e-6)
    _, dot = s2sad.jvp(pendulum_state, (0.8, 3.0), (1.0, 0.0))
    assert isinstance(dot, State) and dot.x == pytest.approx(want[0], rel=1e-6)


def test_dicts_of_computed_values_in_any_function():
    """A function without container arguments that builds dicts of computed values
    (an RNN's state) has them followed too; a dict of constants (settings) is kept
    as written."""
    import zoo_inactive

    assert s2sad.grad(zoo_inactive.dict_of_active)(1.5) == 2.0
    xs = [rng.normal(size=3) for _ in range(4)]

    def rnn_state(W, xs):
        state = {"h": np.zeros(3), "steps": 0}
        for x in xs:
            state = {"h": np.tanh(W @ state["h"] + x), "steps": state["steps"] + 1}
        return np.sum(state["h"] ** 2) / state["steps"]

    W = rng.normal(size=(3, 3)) * 0.5
    np.testing.assert_allclose(s2sad.grad(rnn_state)(W, xs),
                               numeric_grad(rnn_state, (W, xs), 0), rtol=1e-5, atol=1e-8)
    # (a dict of constants is not rewritten: it stays a dict in the derivative)
    assert "= {" in s2sad.source(zoo_inactive.settings, wrt=0, example=(0.7, 2.0))


def _initial_state(x):
    return {"h": x * 2.0, "n": 1}


def test_functions_returning_dicts():
    """A call of a function that returns a dict it builds is put in place, in a
    caller with or without containers of its own."""
    def f(x):
        s = _initial_state(x)
        return s["h"] * s["n"] + x

    def g(x):
        return _initial_state(x)["h"] ** 2

    assert s2sad.grad(f)(1.5) == pytest.approx(3.0)
    assert s2sad.grad(g)(3.0) == pytest.approx(24.0)
    assert s2sad.hessian(g)(3.0) == pytest.approx(8.0)
    np.testing.assert_allclose(s2sad.grad(lambda_sum)(np.ones(2)), [2.0, 2.0])


def lambda_sum(x):
    return np.sum(_initial_state(x)["h"])


def per_layer_inputs(params, xs):
    total = 0.0
    for p, x in zip(params, xs):
        total = total + np.sum(np.tanh(p["W"] @ x + p["b"]))
    return total


def test_zip_of_a_container_with_a_list_known_at_run_time():
    """zip stops at the shortest: an iteration runs where the list is long enough."""
    params = [{"W": rng.normal(size=(2, 3)), "b": rng.normal(size=2)} for _ in range(3)]
    for n in (3, 2, 5):
        xs = [rng.normal(size=3) for _ in range(n)]
        assert_tree_close(s2sad.grad(per_layer_inputs)(params, xs),
                          numeric_grad(per_layer_inputs, (params, xs), 0))


def per_input_generator(params, xs):
    return sum(np.sum(np.tanh(p["W"] @ x + p["b"])) for p, x in zip(params, xs)) + max(
        [np.sum(p["b"] * x[0]) for p, x in zip(params, xs) if x[1] > -5.0])


def test_a_comprehension_zipping_a_container_with_a_list_known_at_run_time():
    """The generator or list over such a zip is built by appends, each under the test
    that the list is long enough (it raised AttributeError)."""
    params = [{"W": rng.normal(size=(2, 3)), "b": rng.normal(size=2)} for _ in range(3)]
    for n in (3, 2, 5):
        xs = [rng.normal(size=3) for _ in range(n)]
        got = s2sad.grad(per_input_generator)(params, xs)
        assert_tree_close(got, numeric_grad(per_input_generator, (params, xs), 0))
        tangent = [{"W": rng.normal(size=(2, 3)), "b": rng.normal(size=2)} for _ in range(3)]
        _, y_dot = s2sad.jvp(per_input_generator, (params, xs), (tangent, None))
        dot = sum(float(np.sum(g[k] * t[k])) for g, t in zip(got, tangent) for k in "Wb")
        assert y_dot == pytest.approx(dot, rel=1e-9)


def range_comprehension_beside_a_lambda(w, x):
    sq = lambda t: t * t  # noqa: E731 (a lambda makes `structures` rewrite the function)
    ws = [w * k for k in range(3)]
    return sum(sq(ws[i]) * x for i in range(len(ws)))


def test_a_comprehension_over_range_where_structures_rewrite_the_function():
    """`range` in a comprehension (not a `for` statement) asks whether its element
    indexes a container (it raised AttributeError)."""
    got = s2sad.grad(range_comprehension_beside_a_lambda, wrt=(0, 1))(0.7, 1.3)
    assert_tree_close(got, tuple(numeric_grad(range_comprehension_beside_a_lambda,
                                              (0.7, 1.3), i) for i in (0, 1)))


def l2_norm(params):
    return sum(np.sum(w ** 2) + np.sum(b ** 2) for w, b in params)


def penalised(params, X, y):
    h = X
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.sum((h[:, 0] - y) ** 2) + 0.1 * l2_norm(params) + sum(
        [np.sum(W) for W, b in params if W.ndim == 2])


def test_comprehensions_over_containers():
    """A comprehension over a container is a display, one element per item (its
    variables do not leak), in the function or in one put in place."""
    params = layers(rng, [3, 4, 1])
    assert_tree_close(s2sad.grad(penalised)(params, X, Y),
                      numeric_grad(penalised, (params, X, Y), 0))


def _last_layer_grad(params, x, y):
    h = x
    for W, b in params[:-1]:
        h = np.tanh(h @ W + b)
    W, b = params[-1]
    r = 2 * (h @ W + b - y) / y.size
    return h.T @ r, r.sum(0)


def unrolled_momentum(params, x, y, lr=0.1, mu=0.9):
    vel = [(np.zeros_like(W), np.zeros_like(b)) for W, b in params]
    for step in range(3):
        gW, gb = _last_layer_grad(params, x, y)
        grads = [(np.zeros_like(W), np.zeros_like(b)) for W, b in params[:-1]] + [(gW, gb)]
        vel = [(mu * vW + dW, mu * vb + db) for (vW, vb), (dW, db) in zip(vel, grads)]
        params = [(W - lr * vW, b - lr * vb) for (W, b), (vW, vb) in zip(params, vel)]
    h = x
    for W, b in params[:-1]:
        h = np.tanh(h @ W + b)
    W, b = params[-1]
    return np.mean((h @ W + b - y) ** 2)


def leaf_penalty(params, x):
    total = 0.0
    for leaf in s2sad.tree_leaves(params):
        total = total + np.sum(np.tanh(leaf) ** 2)
    return total + sum(np.sum(v ** 2) for v in s2sad.tree_leaves(params)) + np.sum(
        x @ params["W"])


def sgd_on_layer_dicts(layers, x, y, lr=0.05):
    for step in range(2):
        h = x
        for L in layers:
            h = np.tanh(h @ L["W"] + L["b"])
        r = h[:, 0] - y
        grads = [{"W": r.sum() * np.ones_like(L["W"]), "b": r.mean() * np.ones_like(L["b"])}
                 for L in layers]
        layers = [{k: v - lr * g[k] for k, v in L.items()} for L, g in zip(layers, grads)]
    h = x
    for L in layers:
        h = np.tanh(h @ L["W"] + L["b"])
    return np.sum((h[:, 0] - y) ** 2)


def _shrink(a, b):
    return a - 0.1 * b


def mapped_step(p, x, y, lr=0.1):
    r = x @ p["w"] + p["b"] - y
    g = {"w": 2 * x.T @ r / len(y), "b": 2 * np.mean(r)}
    q = s2sad.tree_map(lambda a, b: a - lr * b, p, g)
    q = s2sad.tree_map(_shrink, q, g)
    q = s2sad.tree_map(np.tanh, q)
    return np.mean((x @ q["w"] + q["b"] - y) ** 2)


def test_tree_map_inside_the_function():
    """s2sad.tree_map of containers inside the function differentiated (an SGD step
    as JAX users write it, with a lambda, a function of theirs or NumPy's) is the
    container of the calls, one a leaf; it was refused inside s2sad's own code."""
    p = {"w": rng.normal(size=3), "b": 0.3}
    assert_tree_close(s2sad.grad(mapped_step)(p, X, Y), numeric_grad(mapped_step, (p, X, Y), 0))
    t = {"w": rng.normal(size=3), "b": 0.5}
    _, y_dot = s2sad.jvp(mapped_step, (p, X, Y), (t, None, None))
    g = s2sad.grad(mapped_step)(p, X, Y)
    assert y_dot == pytest.approx(np.sum(g["w"] * t["w"]) + g["b"] * t["b"])

    def mismatched(p):
        q = s2sad.tree_map(_shrink, p, {"w": p["w"]})
        return np.sum(q["w"])

    with pytest.raises(S2SADError, match="containers of parameters of one structure"):
        s2sad.grad(mismatched)(p)


def first_layer_shrunk(params, x, y):
    new = [(W * (1 - 0.1 * i), b) for i, (W, b) in enumerate(params)]
    both = tuple(new[:1]) + tuple(params[1:])
    h = x
    for W, b in both:
        h = np.tanh(h @ W + b)
    return np.sum((h - y) ** 2)


def test_optimizer_steps_rebuild_lists_of_pairs():
    """A loop over steps that rebuilds a list of (W, b) pairs with a comprehension,
    and joins two such lists with +, carries the pairs as a list display would be
    carried (it was refused as a container assigned in a loop); tree_leaves of a
    container is the list of its leaves (it was refused inside s2sad's own code)."""
    params = layers(rng, [3, 4, 2])
    x, y = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    assert_tree_close(s2sad.grad(unrolled_momentum)(params, x, y),
                      numeric_grad(unrolled_momentum, (params, x, y), 0))
    p = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    assert_tree_close(s2sad.grad(leaf_penalty)(p, X),
                      numeric_grad(leaf_penalty, (p, X), 0))
    y2 = rng.normal(size=(6, 2))
    assert_tree_close(s2sad.grad(first_layer_shrunk)(params, X[:5], y2[:5]),
                      numeric_grad(first_layer_shrunk, (params, X[:5], y2[:5]), 0))
    layer_dicts = [{"W": W * 0.5, "b": b} for W, b in layers(rng, [3, 4, 1])]
    assert_tree_close(s2sad.grad(sgd_on_layer_dicts)(layer_dicts, X, Y),
                      numeric_grad(sgd_on_layer_dicts, (layer_dicts, X, Y), 0))


def _cell(carry, x):
    h, c = carry
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731 (the callee is put in place)
    c = sig(x) * c
    h = sig(h) * c
    return (h, c), h


def scanned(w, xs):
    carry = (w, w)
    total = 0.0
    for x in xs:
        carry, h = _cell(carry, x)
        total = total + h
    return total + carry[1]


def rebound(w, xs):
    out = (w, 2.0 * w)
    for x in xs:
        out, h = _cell((w, x), x)
    return out[0] + out[1]


def test_a_tuple_a_function_put_in_place_returns_is_carried_by_the_loop():
    """`carry, h = cell(carry, x)`, the cell put in place (it defines a lambda), in
    a loop over data: each iteration reads the last one's carry (it read the first,
    a silently wrong value and gradient)."""
    xs = [0.5, -1.0, 0.3]
    v, g = s2sad.value_and_grad(scanned)(0.7, xs)
    assert v == pytest.approx(scanned(0.7, xs))
    assert g == pytest.approx(numeric_grad(scanned, (0.7, xs), 0), rel=1e-6)
    _, t = s2sad.jvp(scanned, (0.7, xs), (1.0, None))
    assert t == pytest.approx(g)
    for data in (xs, []):  # (no iteration: `out` as it was before the loop)
        v, g = s2sad.value_and_grad(rebound)(0.7, data)
        assert v == pytest.approx(rebound(0.7, data))
        assert g == pytest.approx(numeric_grad(rebound, (0.7, data), 0), rel=1e-6)


def test_a_lambda_of_a_container():
    """grad(lambda p: loss(p, x))(params), as JAX users write it: the lambda is
    specialised on the container like a `def` (its source was looked up by the code
    of the specialised function, and not found)."""
    p = {"W": rng.normal(size=3), "b": 0.2, "scale": 0.7}
    g = s2sad.grad(lambda q: dict_model(q, X, Y))(p)
    assert_tree_close(g, numeric_grad(dict_model, (p, X, Y), 0))
    v, g2 = s2sad.value_and_grad(lambda q, x: dict_model(q, x, Y) ** 2)(p, X)
    assert v == pytest.approx(dict_model(p, X, Y) ** 2)
    assert_tree_close(g2, tree_scaled(g, 2 * dict_model(p, X, Y)))


def _stepped_then_scored(p, x, y):
    def score(q, x, y):
        return np.sum((x @ q["W"] + q["b"] - y) ** 2)
    def loss(q, x, y):
        for _ in range(2):
            q = s2sad.tree_map(lambda a: a * 0.5, q)
        return score(q, x, y)
    return loss


def test_a_function_made_inside_another_keeps_its_closure_when_specialised():
    """`loss` reads `score` from the function around it and is specialised on the dict
    `q`: its text was parsed again with the specialised function's closure, which held
    only what the rewritten body reads, and `score` was refused as having no value."""
    p = {"W": rng.normal(size=3), "b": 0.2}
    loss = _stepped_then_scored(p, X, Y)
    for mode in ("reverse", "forward"):
        assert_tree_close(s2sad.grad(loss, mode=mode)(p, X, Y),
                          numeric_grad(loss, (p, X, Y), 0))


def _loss_with_a_default(l2):
    def loss(q, x, y, reg=l2):
        return np.sum((x @ q["W"] + q["b"] - y) ** 2) + reg * np.sum(q["W"] ** 2)
    return loss


def test_a_function_specialised_on_a_container_keeps_its_defaults():
    """`loss` takes a dict and a default computed from its maker's local `l2`: the
    function parsed to specialise it on the dict was made without the defaults, and
    `l2` was looked up in `loss`'s own scope, refused as having no value."""
    p = {"W": rng.normal(size=3), "b": 0.2}
    loss = _loss_with_a_default(0.3)
    for mode in ("reverse", "forward"):
        assert_tree_close(s2sad.grad(loss, mode=mode)(p, X, Y),
                          numeric_grad(loss, (p, X, Y), 0))
    assert_tree_close(s2sad.grad(loss)(p, X, Y, 0.0), numeric_grad(
        lambda q, x, y: loss(q, x, y, 0.0), (p, X, Y), 0))


def _trained_with_a_lambda(p, x, y, scale):
    def score(q, x, y):
        return np.sum((x @ q["W"] + q["b"] - y) ** 2)
    return s2sad.grad(lambda q: scale * score(q, x, y))(p), \
        s2sad.grad(lambda w: scale * w ** 3)(0.5)


def test_a_lambda_reading_the_locals_of_the_function_around_it():
    """``grad(lambda q: loss(q, batch))(params)`` inside a training step: the lambda's
    text, compiled alone to be matched with its code, reads those locals as globals,
    and no lambda on its line matched (refused as unreadable)."""
    p = {"W": rng.normal(size=3), "b": 0.2}
    g, d = _trained_with_a_lambda(p, X, Y, 1.5)
    assert_tree_close(g, tree_scaled(numeric_grad(dict_model_score, (p, X, Y), 0), 1.5))
    assert d == pytest.approx(1.5 * 3 * 0.25)


def dict_model_score(q, x, y):
    return np.sum((x @ q["W"] + q["b"] - y) ** 2)


def tree_scaled(tree, c):
    return s2sad.tree_map(lambda leaf: leaf * c, tree)


def replaced_steps(layer, x, y):
    for _ in range(3):
        r = x @ layer.W + layer.b - y
        layer = layer._replace(W=layer.W - 0.1 * x.T @ r / len(x))
    return np.sum((x @ layer.W + layer.b - y) ** 2)


def replaced_record(m, x, y):
    r = x @ m.W + m.b - y
    m = dataclasses.replace(m, b=m.b - 0.1 * np.sum(r))
    return np.sum((x @ m.W + m.b - y) ** 2)


def test_replace_fields_of_a_namedtuple_or_dataclass():
    """``layer._replace(W=...)`` and ``dataclasses.replace(m, b=...)`` of a container
    of parameters (an optimizer step), in a loop over steps too: the container with
    those fields replaced (both were refused)."""
    layer = Pair(rng.normal(size=(3, 2)) * 0.5, rng.normal(size=2))
    y = rng.normal(size=(6, 2))
    assert_tree_close(s2sad.grad(replaced_steps)(layer, X, y),
                      numeric_grad(replaced_steps, (layer, X, y), 0))
    m = Linear(rng.normal(size=3), 0.4)
    g = s2sad.grad(replaced_record)(m, X, Y)
    assert isinstance(g, Linear) and g.name is None
    assert_tree_close(g, numeric_grad(replaced_record, (m, X, Y), 0))
    t = Linear(rng.normal(size=3), 1.0, "t")
    _, y_dot = s2sad.jvp(replaced_record, (m, X, Y), (t, None, None))
    assert y_dot == pytest.approx(np.sum(g.W * t.W) + g.b * t.b)

    def positional(p):
        q = p._replace(p.W)
        return np.sum(q.W)

    with pytest.raises(S2SADError, match="named by keywords"):
        s2sad.grad(positional)(layer)


def values_summed(p):
    return np.sum(np.sin(sum(p.values())))  # (a matrix and a vector: broadcast)


def values_listed(p):
    vs = list(p.values())
    return np.sum(vs[0] * 2.0) * np.sum(vs[1] ** 2)


def values_unpacked(p):
    W, b = p.values()
    return np.sum(np.tanh(W @ b))


def values_extremes(q):
    return max(q.values()) * min(q.values()) + len(q.values()) * q["a"]


def values_kept(q):
    vs = q.values()
    return sum(vs) ** 2


@pytest.mark.parametrize("f, arg", [
    (values_summed, {"W": rng.normal(size=(2, 3)), "b": rng.normal(size=3)}),
    (values_listed, {"W": rng.normal(size=(2, 3)), "b": rng.normal(size=3)}),
    (values_unpacked, {"W": rng.normal(size=(2, 3)), "b": rng.normal(size=3)}),
    (values_extremes, {"a": 0.3, "b": 0.7, "c": -0.2}),
    (values_kept, {"a": 0.3, "b": 0.7}),
], ids=lambda v: getattr(v, "__name__", ""))
def test_the_values_of_a_dict_argument_are_its_items(f, arg):
    """``p.values()`` of a dict argument is the tuple of its items wherever it is read
    (summed, listed, unpacked, kept in a name): the function cannot change them."""
    assert_tree_close(s2sad.grad(f)(arg), numeric_grad(f, (arg,), 0))


def test_the_values_of_a_dict_the_function_makes_stay_refused():
    """A dict the function made may change under its view (``d[k] = v`` after
    ``vs = d.values()``): its values are read through the dict's keys instead."""
    def f(x):
        d = {"a": x * 2.0, "b": x ** 2}
        return sum(d.values())

    with pytest.raises(S2SADError, match="values"):
        s2sad.grad(f)(0.5)


def _dict_loss(p, x):
    return np.sum(np.tanh(p["W"] @ x + p["b"]) ** 2) + 2.0 * np.sum(p["b"] ** 3)


def test_a_dict_gradient_has_its_arguments_key_order_on_every_call():
    # (the dispatcher's fast path built it in the first call's order: tree_map over
    # the parameters and their gradient then failed, or paired W with b's gradient)
    W, b, x = np.full((2, 2), 0.3), np.array([0.1, -0.2]), np.array([1.0, 2.0])
    g = s2sad.grad(_dict_loss)
    assert list(g({"W": W, "b": b}, x)) == ["W", "b"]
    reordered = {"b": b, "W": W}
    got = g(reordered, x)
    assert list(got) == ["b", "W"]
    stepped = s2sad.tree_map(lambda p, q: p - 0.1 * q, reordered, got)
    assert list(stepped) == ["b", "W"] and stepped["W"].shape == (2, 2)
    assert list(g({"W": W, "b": b}, x)) == ["W", "b"]


# ------------------------------------------- keys made of a loop's variable


def keyed_mlp(params, X, y):
    n = len(params) // 2
    h = X
    for i in range(n):
        h = h @ params[f"W{i}"] + params["b" + str(i)]
        if i < n - 1:
            h = np.tanh(h)
    return np.sum((h[:, 0] - y) ** 2)


def _keyed_layer(params, h, i):
    return np.tanh(h @ params[f"W{i}"] + params[f"b{i}"])


def keyed_by_helper(params, X, y):
    h = X
    for i in reversed(range(2)):
        h = _keyed_layer(params, h, i)
    return np.sum((h[:, 0] - y) ** 2)


def keyed_by_tuples(params, X, y):
    h = X
    for i in range(2):
        j = 1 - i
        h = np.sin(h @ params[("W", j)])
    return np.sum(h[:, 0] * y)


def _layers(shapes, tuple_keys=False):
    out = {}
    for i, (a, b) in enumerate(shapes):
        out[("W", i) if tuple_keys else f"W{i}"] = rng.normal(0.0, 0.5, (a, b))
        if not tuple_keys:
            out[f"b{i}"] = rng.normal(0.0, 0.5, b)
    return out


@pytest.mark.parametrize("f, params", [
    (keyed_mlp, _layers([(3, 4), (4, 1)])),
    (keyed_mlp, _layers([(3, 4), (4, 4), (4, 1)])),
    (keyed_by_helper, _layers([(3, 3), (3, 3)])),
    (keyed_by_tuples, _layers([(3, 3), (3, 3)], tuple_keys=True)),
], ids=["two layers", "three layers", "helper", "tuple keys"])
def test_keys_made_of_a_loop_variable(f, params):
    """``params[f"W{i}"]`` in a loop over a count known from the containers (a
    constant, ``len(params) // 2``, a name holding it): the loop is unrolled and each
    key worked out where the derivative is built, as Python would at run time."""
    g = s2sad.grad(f)(params, X, Y)
    assert list(g) == list(params)
    assert_tree_close(g, numeric_grad(f, (params, X, Y), 0), rtol=1e-6, atol=1e-8)
    _, pullback = s2sad.vjp(f, params, X, Y)
    assert_tree_close(pullback(1.0)[0], g, rtol=1e-12, atol=1e-14)


def test_keys_known_only_at_run_time_are_refused_not_guessed():
    """A key made of a name whose value the function knows only when it runs is
    refused with the loop that works in the hint: a loop's count from an argument,
    a name a loop may or may not assign (it may run no iteration), a name assigned
    in a ``try`` and again after."""
    params = _layers([(3, 3), (3, 3)])

    def count_given(params, X, n):
        h = X
        for i in range(n):
            h = h @ params[f"W{i}"]
        return np.sum(h)

    def set_in_a_loop(params, X, m):
        k = 0
        for _ in range(m):
            k = 1
        return np.sum(X @ params[f"W{k}"])

    def set_in_a_try(params, X, m):
        k = 0
        try:
            k = 1
        except ValueError:
            pass
        return np.sum(X @ params[f"W{k}"])

    for f in (count_given, set_in_a_loop, set_in_a_try):
        with pytest.raises(S2SADError, match="known only when the function runs") as info:
            s2sad.grad(f)(params, X, 0)
        assert 'p[f"W{i}"]' in str(info.value)


def _step(p, s, t):
    return s + 0.01 * np.tanh(p["a"] * s) * t


def test_a_loop_passing_its_variable_to_a_step_stays_a_loop():
    """A simulation loop handing its step number to a function along with the
    parameters stays a loop where that function reads no item by it."""
    def simulate(p, s):
        for t in range(40):
            s = _step(p, s, t)
        return np.sum(s)

    p, s = {"a": 0.5}, np.linspace(0.1, 1.0, 3)
    text = s2sad.source(simulate, example=(p, s))
    assert "for t in range(40)" in text
    g = s2sad.grad(simulate)(p, s)
    assert_tree_close(g, numeric_grad(simulate, (p, s), 0), rtol=1e-6, atol=1e-8)


def one_leaf(params, X, y):
    return np.sum(np.tanh(X @ params["w"]) * y)


@pytest.mark.parametrize("f, params", [
    (one_leaf, {"w": rng.normal(size=3)}),
    (keyed_mlp, _layers([(3, 4), (4, 1)])),
], ids=["one leaf", "keyed"])
def test_source_of_these_runs_too(f, params):
    """The shown source, run, gives the gradient: of a dict with one leaf too, whose
    gradient it once showed as a tuple (``{"w": (params_w_bar,)}``)."""
    text = s2sad.source(f, example=(params, X, Y))
    ns = {}
    exec(text, ns)
    got = ns[f"{f.__name__}_grad"](params, X, Y)
    assert_tree_close(got, s2sad.grad(f)(params, X, Y), rtol=1e-12, atol=1e-14)


def _inner_names_hide_the_loops(params, x):
    s = 0.0
    for i in range(2):
        w = sum(x[i] for i in range(3)) + max(range(3), key=lambda i: x[i])
        s = s + np.sum(params[f"W{i}"] @ x) * w
        if (j := 1 - i) >= 0:
            s = s + np.sum(params[f"W{i}"]) * j
    return s


def test_a_comprehensions_variables_hide_an_unrolled_loops():
    """A generator, a lambda or a walrus inside a loop s2sad unrolls, reusing its
    variable's name: Python gives them their own (or a new) value there. The loop's
    constant was written into the generator's own target, and the compiled text
    raised a ValueError (a walrus: a TypeError)."""
    params = _layers([(3, 3), (3, 3)], tuple_keys=False)
    params = {k: v for k, v in params.items() if k.startswith("W")}
    x = rng.normal(size=3)
    g = s2sad.grad(_inner_names_hide_the_loops)(params, x)
    assert_tree_close(g, numeric_grad(_inner_names_hide_the_loops, (params, x), 0),
                      rtol=1e-6, atol=1e-8)


def _gates(params, x):
    s = sum(np.sum(np.tanh(params[f"W_{g}"] @ x)) for g in "ifog")
    names = ("i", "f")
    for name in names:
        s = s + np.sum(params["W_" + name] * x)
    return s


def _formatted_keys(params, x):
    s = 0.0
    for i in range(2):
        s = s + np.sum(params["W%d" % i] @ x) * np.sum(params["b{}".format(i)]) \
            + np.sum(params["_".join(("c", str(i)))] ** 2)
    return s


def _optional_bias(params, x):
    h = x
    for i in range(2):
        if i > 0 and f"b{i}" in params:  # (no "b1": Python never reads it)
            h = h + params[f"b{i}"]
        h = np.tanh(params[f"W{i}"] @ h)
    return np.sum(h)


@pytest.mark.parametrize("f, params", [
    (_gates, {f"W_{g}": rng.normal(size=(3, 3)) for g in "ifog"}),
    (_optional_bias, {"W0": rng.normal(size=(3, 3)), "b0": rng.normal(size=3),
                      "W1": rng.normal(size=(3, 3))}),
    (_formatted_keys, {k: rng.normal(size=(3, 3) if k[0] == "W" else 3)
                       for k in ("W0", "W1", "b0", "b1", "c_0", "c_1")}),
], ids=["a string's characters", "and decided here", "% and format"])
def test_more_keys_known_where_the_derivative_is_built(f, params):
    """A loop over a string's characters (an LSTM's gates, ``"ifog"``) or over a
    tuple kept in a name, and an ``and`` of tests known here, which stops where
    Python stops (so ``params["b1"]`` is never read)."""
    x = rng.normal(size=3)
    g = s2sad.grad(f)(params, x)
    assert_tree_close(g, numeric_grad(f, (params, x), 0), rtol=1e-6, atol=1e-8)


def _sgd_steps(params, x):
    for _ in range(2):
        r = x @ params["W"] + params["b"]
        g = {}  # (made by each iteration, filled key by key)
        g["W"] = x.T @ r
        g["b"] = np.sum(r, axis=0)
        params = {k: params[k] - 0.01 * g[k] for k in params}
    return np.sum((x @ params["W"] + params["b"]) ** 2)


def test_a_dict_each_iteration_makes_and_fills():
    """An optimizer unrolled in the loss that fills a dict of gradients key by key
    in each step was refused as a container whose structure changes in the loop;
    one the iteration makes has the same keys every iteration. One made before the
    loop and grown inside it does change, and is still refused."""
    params = {"W": rng.normal(size=(3, 2)), "b": rng.normal(size=2)}
    x = rng.normal(size=(4, 3))
    g = s2sad.grad(_sgd_steps)(params, x)
    assert_tree_close(g, numeric_grad(_sgd_steps, (params, x), 0), rtol=1e-6, atol=1e-8)

    def grows(params, xs):
        d = {}
        for v in xs:
            d["last"] = params["W"] * v
        return np.sum(d["last"])

    with pytest.raises(S2SADError, match="structure changes inside a loop"):
        s2sad.grad(grows)(params, [1.0, 2.0])


def _forced_step(params, x, forcing, i):
    return x + 0.01 * (-params["k"] * x + forcing[i])


def _forced(params, x, forcing):
    for i in range(300):
        x = _forced_step(params, x, forcing, i)
    return x * x


def test_a_step_reading_an_array_by_the_loop_variable_stays_a_loop():
    """A simulation step given the parameters and the step number, which it uses to
    read an array of forcings (not a container): the loop was unrolled (minutes to
    build at 2,000 steps). It stays a loop; only a container read by the number
    unrolls one, and a count beyond 1,000 steps is refused at the key."""
    forcing = np.sin(np.arange(300) * 0.01)
    params = {"k": 0.7}
    assert "for i in range(300)" in s2sad.source(_forced, example=(params, 1.0, forcing))
    g = s2sad.grad(_forced)(params, 1.0, forcing)
    assert_tree_close(g, numeric_grad(_forced, (params, 1.0, forcing), 0),
                      rtol=1e-6, atol=1e-8)

    def long_keyed(p, x):
        s = 0.0
        for i in range(4000):
            s = s + p[i % 2] * x
        return s

    with pytest.raises(S2SADError, match="at most 1,000 steps"):
        s2sad.grad(long_keyed)((1.0, 2.0), 0.3)
    # (nor does a step handing the number on to a function given no container)
    text = s2sad.source(_forced_on, example=(params, 1.0))
    assert "for t in range(200)" in text


def _forcing_at(t):
    return 0.01 * t


def _step_on(params, x, t):
    return x + 0.01 * (-params["k"] * x + _forcing_at(t))


def _forced_on(params, x):
    for t in range(200):
        x = _step_on(params, x, t)
    return x * x


def _keys_no_name_spells(x, y):
    d = {"lr": x, "lr ": y, (0, 1): x * y, (1, 0): y, -1: x, 0.5: y, "a.b": x,
         "a_b": y, "": x, " ": y, b"a": x, "a\n": y}
    return d["lr"] * d["lr "] + d[(0, 1)] * d[1, 0] ** 2 + d[-1] * d[0.5] \
        + d["a.b"] * 3.0 + d["a_b"] * 5.0 + d[""] * d[" "] ** 3 + d[b"a"] * d["a\n"]


def test_keys_that_differ_where_a_name_cannot_are_two_variables():
    """``{"lr": x, "lr ": y}`` was one variable, ``d_lr``, given x then y (a wrong
    gradient), and ``d[(0, 1)]`` printed as ``d_(0, 1) = x`` (a SyntaxError)."""
    e = 1e-6
    f = _keys_no_name_spells
    want = ((f(0.7 + e, 1.3) - f(0.7 - e, 1.3)) / (2 * e),
            (f(0.7, 1.3 + e) - f(0.7, 1.3 - e)) / (2 * e))
    for mode in ("reverse", "forward"):
        got = s2sad.grad(f, wrt=(0, 1), mode=mode)(0.7, 1.3)
        assert got == pytest.approx(want, rel=1e-6), mode
    assert s2sad.jvp(f, (0.7, 1.3), (0.0, 1.0))[1] == pytest.approx(want[1], rel=1e-6)


def _dict_by_keywords(x, y):
    d = dict(a=x, b=y)
    d["c"] = d["a"] * 2.0
    return (d["a"] + d["c"]) * d["b"] ** 2


def test_a_dict_built_by_keywords_in_a_function_of_floats():
    """``dict(a=x, b=y)`` is a display by another name; in a function with no
    container argument it was left to run as written, and refused as a call of
    `dict` with no rule."""
    f = _dict_by_keywords
    want = (3.0 * 1.3 ** 2, 2 * 3.0 * 0.7 * 1.3)
    for mode in ("reverse", "forward"):
        assert s2sad.grad(f, wrt=(0, 1), mode=mode)(0.7, 1.3) == pytest.approx(want), mode


# ------------------------------------------- sorted keys


def _sorted_chain(p, x):
    h = x
    for k in sorted(p):  # (an order-dependent chain: another order, another number)
        h = np.sin(p[k] * h + 0.3)
    return np.sum(h)


def _sorted_items_reversed(p, x):
    total = 0.0
    for i, (k, v) in enumerate(sorted(p.items(), reverse=True)):
        total = total + (i + 1) * np.sum(v * x)
    return total


def _sorted_keys_comprehension(p, x):
    return sum((i + 2.0) * np.sum(p[k] ** 2) for i, k in enumerate(sorted(p.keys())))


def _sorted_into_a_dict(p, x):
    q = {k: p[k] * x for k in sorted(p, reverse=True)}
    return sum((i + 1.0) * np.sum(v) for i, v in enumerate(q.values()))


@pytest.mark.parametrize("f", [_sorted_chain, _sorted_items_reversed,
                               _sorted_keys_comprehension, _sorted_into_a_dict],
                         ids=["chain", "items reversed", "comprehension", "dict"])
def test_a_loop_over_sorted_keys_goes_in_their_sorted_order(f):
    """``sorted(params)``, ``sorted(params.items(), reverse=True)``: the keys are
    known where the derivative is built, so is their order, whatever order the dict
    has (an insertion order other than the sorted one, both checked)."""
    x = np.array([0.4, -0.3])
    for keys in ("cab", "abc"):
        p = {k: np.array([0.5, 1.5]) * (i + 1) for i, k in enumerate(keys)}
        g = s2sad.grad(f)(p, x)
        assert list(g) == list(p)
        assert_tree_close(g, numeric_grad(f, (p, x), 0), rtol=1e-6, atol=1e-8)


def test_sorting_values_or_by_a_key_function_is_refused():
    p = {"b": np.ones(2), "a": np.ones(2), 1: np.ones(2)}

    def by_length(p, x):
        return sum(np.sum(p[k] * x) for k in sorted(p, key=str))

    def mixed(p, x):
        return sum(np.sum(p[k] * x) for k in sorted(p))

    with pytest.raises(S2SADError, match="key="):
        s2sad.grad(by_length)(p, 2.0)
    with pytest.raises(S2SADError, match="cannot sort these keys"):
        s2sad.grad(mixed)(p, 2.0)


# ------------------------------------------- dict idioms: copy, get, ** and dict(p, k=v)


def _copied_then_changed(p, x):
    q = p.copy()
    q["W"] = q["W"] * 2.0
    q["b"] = q["b"] + 1.0
    return np.sum(np.tanh(q["W"] @ x + q["b"])) + np.sum(p["W"] * p["b"][0])


def _updated_by_unpacking(p, x):
    for _ in range(3):  # (an optimizer's functional update, in a loop)
        p = {**p, "W": p["W"] - 0.1 * np.outer(np.tanh(p["W"] @ x), x)}
    return np.sum(np.tanh(p["W"] @ x + p["b"])) * p["opt"]["s"]


def _read_with_defaults(p, x):
    s = p.get("scale", 1.5)
    o = p.get("opt", {"s": 2.0})
    extra = 0.0 if p.get("missing") is None else 1.0
    return np.sum(p.get("W") @ x) * s * o["s"] + np.sum(p.get("b", 0.0)) + extra


def _dict_with_keywords(p, x):
    q = dict(p, W=p["W"] * 3.0, c=x[0] * p["b"][1])
    return np.sum(q["W"] @ x + q["b"]) * q["c"] + q["opt"]["s"] * len(q)


def _two_unpacked(p, x):
    a = {"u": p["b"] * 2.0}
    q = {**a, **p, "u": p["b"] ** 2}  # ("u" keeps the first place, with the last value)
    keys = list(q)
    return np.sum(q["u"]) + np.sum(q["W"]) * len(keys) + (keys[0] == "u")


def _dict_of_unpacked(p, x):
    q = dict(**p, scale=2.0)  # (the keys of p and "scale": it read {None: ...} once)
    return x[0] * np.sum(q.get("W", 100.0)) * len(q) + q["opt"]["s"] * ("b" in q)


def _list_copy(ws, x):
    vs = ws.copy()
    vs.append(x * 2.0)
    vs[0] = vs[0] * 3.0
    return sum(np.sum(v) for v in vs) + np.sum(ws[0]) * len(ws)


_DICT_IDIOM_PARAMS = {"W": np.array([[0.5, -0.2], [0.3, 0.8]]), "b": np.array([0.1, -0.2]),
                      "opt": {"s": 1.3}}


@pytest.mark.parametrize("f, params", [
    (_copied_then_changed, _DICT_IDIOM_PARAMS),
    (_updated_by_unpacking, _DICT_IDIOM_PARAMS),
    (_read_with_defaults, _DICT_IDIOM_PARAMS),
    (_dict_with_keywords, _DICT_IDIOM_PARAMS),
    (_two_unpacked, _DICT_IDIOM_PARAMS),
    (_dict_of_unpacked, _DICT_IDIOM_PARAMS),
    (_list_copy, [np.ones(2), np.arange(2.0)]),
], ids=["copy", "unpacking in a loop", "get", "dict keywords", "two unpacked",
        "dict of unpacked", "list copy"])
def test_dict_idioms_of_parameters(f, params):
    """``p.copy()``, ``p.get(k, default)``, ``{**p, "W": W}`` and ``dict(p, W=W)``
    work as Python runs them: a copy's writes leave the original as it was, a later
    key replaces an earlier one's value in its place, a missing key's default."""
    x = np.array([1.0, 2.0])
    value, g = s2sad.value_and_grad(f)(params, x)
    assert value == pytest.approx(f(params, x), rel=1e-12)
    assert_tree_close(g, numeric_grad(f, (params, x), 0), rtol=1e-6, atol=1e-8)
    _, pullback = s2sad.vjp(f, params, x)
    assert_tree_close(pullback(1.0)[0], g, rtol=1e-12, atol=1e-14)


def test_unpacking_what_is_not_a_dict_of_parameters_is_refused():
    """What is not a dict of parameters unpacked with ``**`` (a tuple of them, a list
    of arrays) stays as written, and ``**`` in a display is refused there; so is it
    in a call, ``dict(**cfg, m=3)`` of a dict of settings; a key ``dict()`` gets
    twice is Python's TypeError, said where the derivative is built."""
    def f(p, x, extra):
        q = {**extra, "W": p["W"]}
        return np.sum(q["W"] * x)

    def twice(p, x):
        q = dict(**p, W=x)
        return np.sum(q["W"])

    def settings(p, x):
        c = dict(**SETTINGS_FOR_A_COPY, m=3)
        return np.sum(p["W"] * x) * c["lr"] * len(c)

    with pytest.raises(S2SADError, match=r"`\*\*` unpacking in a dict"):
        s2sad.grad(f, wrt=(0, 2))({"W": np.ones(2)}, 2.0, (np.ones(2), {"a": 1.0}))
    with pytest.raises(S2SADError, match=r"`\*\*` unpacking in a dict"):  # (as written)
        s2sad.grad(f)({"W": np.ones(2)}, 2.0, [np.ones(2)])
    with pytest.raises(S2SADError, match="multiple values for keyword argument 'W'"):
        s2sad.grad(twice)({"W": np.ones(2)}, 2.0)
    with pytest.raises(S2SADError, match=r"`\*\*` unpacking in a call"):
        s2sad.grad(settings)({"W": np.ones(2)}, 2.0)


SETTINGS_FOR_A_COPY = {"lr": 0.1, "k": 2}


def _chained_over_items(p):
    t = 0.0
    for k, v in p.items():
        t = np.sin(t + v * (1.0 + (k in p)))
    for k in sorted(p):
        t = t * p[k]
    return t


@pytest.mark.parametrize("keys", [(np.int64(0), np.int64(1)), (np.str_("b"), np.str_("a")),
                                  (np.float64(0.5), np.float64(-1.0))],
                         ids=["int64", "str_", "float64"])
def test_dict_keys_that_are_numpy_scalars(keys):
    """Keys from ``np.unique`` or an array: the rewritten code names them as the
    Python values they equal (a NumPy scalar is no constant of compiled code: the
    compiler raised TypeError), and the gradient keeps the argument's keys."""
    p = dict(zip(keys, (0.3, 0.5)))
    g = s2sad.grad(_chained_over_items)(p)
    assert list(g) == list(p) and all(type(a) is type(b) for a, b in zip(g, p))
    assert_tree_close(g, numeric_grad(_chained_over_items, (p,), 0), rtol=1e-6, atol=1e-8)


def _either(p):
    if isinstance(p, dict):
        return p["w"] ** 2
    return p[0] ** 2


def _by_type(p):
    if type(p) is not tuple:
        return p["w"] * 3.0
    return p[0] * p[1]


def test_isinstance_of_a_container_decides_its_branch():
    """``isinstance(p, dict)`` and ``type(p) is tuple`` of a container argument are
    decided where the derivative is built (its structure is the key): the branch for
    another type is not rewritten, so its items are not looked up (it was refused as
    a dict with no item 0), and after a ``return`` the rest never runs."""
    for mode in ("reverse", "forward"):
        assert s2sad.grad(_either, mode=mode)({"w": 3.0}) == {"w": 6.0}
        assert s2sad.grad(_either, mode=mode)((3.0, 1.0)) == (6.0, 0.0)
        assert s2sad.grad(_by_type, mode=mode)({"w": 3.0}) == {"w": 3.0}
        assert s2sad.grad(_by_type, mode=mode)((3.0, 2.0)) == (2.0, 3.0)


NAMES = ("W", "b")


def _unpack(theta):
    return dict(zip(NAMES, np.split(theta, [6])))


def test_a_dict_of_names_zipped_with_arrays():
    """``dict(zip(NAMES, arrays))`` and ``{k: v for k, v in zip(NAMES, arrays)}``
    (`NAMES` a global tuple, `arrays` a list argument or the pieces of one flat
    vector, as scipy.optimize hands it), returned by a helper too: built as the
    display ``{"W": arrays[0], "b": arrays[1]}`` is. Keys known only at run time keep
    the dict as written, for settings."""
    def by_dict(arrays, x):
        p = dict(zip(NAMES, arrays))
        return np.sum(np.tanh(x @ p["W"] + p["b"]))

    def by_comprehension(arrays, x):
        p = {k: v * 2.0 for k, v in zip(NAMES, arrays)}
        return np.sum(np.tanh(x @ p["W"] + p["b"]))

    def flat(theta, x):
        p = _unpack(theta)
        return np.sum(np.tanh(x @ p["W"].reshape(3, 2) + p["b"]))

    def settings(arrays, x, names):
        cfg = dict(zip(names, (1.0, 2.0)))
        return np.sum(arrays[0] * x[:, None]) * cfg["a"]

    arrays = [rng.normal(size=(3, 2)), rng.normal(size=2)]
    x = rng.normal(size=3)
    for f, args in ((by_dict, (arrays, x)), (by_comprehension, (arrays, x)),
                    (flat, (rng.normal(size=8), x)), (settings, (arrays, x, ["a", "b"]))):
        want = numeric_grad(f, args, 0)
        for mode in ("reverse", "forward", "tape"):
            assert_tree_close(s2sad.grad(f, mode=mode)(*args), want, rtol=1e-6, atol=1e-9)
    body = s2sad.source(by_dict, example=(arrays, x)).split("def by_dict_grad")[1]
    assert "p_W = arrays[0]" in body and "for " not in body
