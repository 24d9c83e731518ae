"""Forms users write that s2sad follows as a person would write their derivative: a
dict or list of constants added into (``d["a"] += x * i``) inside loops, also by a
function it is handed to, and a dict filled in a loop over a display of its keys; a tuple grown by ``+=`` (a list appended to); lambdas with
default arguments, and a list of them made by a comprehension; ``first, *rest = ...``
with the rest handed on. grad and jvp against central differences (`both_modes`: the
dot-product pairing of the two modes), the forms refused said so at the user's line."""

import importlib.util

import numpy as np
import pytest

import s2sad
from helpers import both_modes, central_diff
import zoo_user_forms as zoo

X = 1.3
DATA = np.array([0.5, -1.0, 2.0, 0.25])


@pytest.mark.parametrize("f, args", [
    (zoo.dict_in_loop, (X,)),
    (zoo.dict_in_data_loop, (X, DATA)),
    (zoo.dict_rebuilt_sum, (X, 4)),
    (zoo.empty_dict_filled, (X,)),
    (zoo.dict_filled_over_a_display, (X,)),
    (zoo.list_in_loop, (X,)),
    (zoo.dict_written_by_a_helper, (X,)),
    (zoo.list_written_by_a_helper, (X,)),
    (zoo.dict_in_a_called_function, (X,)),
    (zoo.tuple_grown, (X,)),
    (zoo.tuple_grown_over_data, (X, DATA)),
    (zoo.tuple_grown_by_pairs, (X,)),
    (zoo.tuple_grown_in_front, (X,)),
    (zoo.tuple_grown_in_nested_loops, (X,)),
    (zoo.tuple_grown_straight, (X,)),
    (zoo.tuple_grown_handed_on, (X,)),
    (zoo.lambda_with_default, (X,)),
    (zoo.lambda_default_in_loop, (X,)),
    (zoo.lambdas_by_comprehension, (X,)),
    (zoo.lambdas_by_comprehension_looped, (X,)),
    (zoo.lambdas_late_binding, (X,)),
    (zoo.lambdas_in_tuple, (X,)),
    (zoo.starred_tuple_display, (X,)),
    (zoo.starred_list_display, (X,)),
    (zoo.starred_middle, (X,)),
    (zoo.starred_handed_on, (X,)),
    (zoo.starred_stacked, (X,)),
    (zoo.starred_in_loop, (X, 3)),
    (zoo.tuple_sliced, (X,)),
    (zoo.tuple_sliced_in_loop, (X, 4)),
    (zoo.sorted_tuple_display, (X,)),
    (zoo.sorted_tuple_display, (0.4,)),
    (zoo.reduced, (X, 4)),
    (zoo.sum_start_keyword, (X,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_both_modes_match_central_differences(f, args):
    both_modes(f, args, wrt=(0,))


LIST, ARRAY = [1.5, 2.0, 3.0], np.array([1.5, 2.0, 3.0, -0.5])


@pytest.mark.parametrize("f, xs", [
    (zoo.starred_argument, LIST), (zoo.starred_argument, ARRAY),
    (zoo.starred_argument_joined, LIST),
    (zoo.sum_of_an_array, ARRAY),
], ids=lambda v: getattr(v, "__name__", type(v).__name__))
def test_a_sequence_argument_unpacked(f, xs):
    want = np.array([central_diff(lambda *v: f(type(xs)(v) if isinstance(xs, list)
                                                else np.array(v)), tuple(xs), i)
                     for i in range(len(xs))])
    got = s2sad.grad(f)(xs)
    assert np.allclose(np.asarray(got, dtype=float), want, rtol=1e-5, atol=1e-6)
    tangent = np.linspace(0.5, 1.5, len(xs))
    t = list(tangent) if isinstance(xs, list) else tangent
    _, y_dot = s2sad.jvp(f, (xs,), (t,))
    assert y_dot == pytest.approx(float(want @ tangent), rel=1e-6)


def test_python_sum_of_a_matrix_adds_its_rows():
    m = np.arange(6.0).reshape(3, 2) / 7.0
    got = s2sad.grad(zoo.sum_of_rows)(m)
    want = np.zeros_like(m)
    for idx in np.ndindex(m.shape):
        e = np.zeros_like(m)
        e[idx] = 1e-6
        want[idx] = (zoo.sum_of_rows(m + e) - zoo.sum_of_rows(m - e)) / 2e-6
    assert np.allclose(got, want, atol=1e-6)


W23, B3, C21 = np.arange(6.0).reshape(2, 3) / 7.0, np.array([0.1, -0.2, 0.3]), \
    np.array([[0.5], [-0.7]])


@pytest.mark.parametrize("f, args", [
    (zoo.sum_of_a_matrix_and_a_vector, (W23, B3)),
    (zoo.sum_of_a_number_and_arrays, (0.4, W23, C21)),
    (zoo.sum_of_a_grown_list, (W23, B3)),
    (zoo.sum_of_a_tuple_indexed, (W23, B3)),
    (zoo.sum_in_a_loop, (B3, C21)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_python_sum_of_values_of_several_shapes(f, args):
    """Each item's gradient has the item's shape (a number's is a number): the sum's
    adjoint, broadcast to the total's shape, is summed back over the added axes."""
    both_modes(f, args)


@pytest.mark.parametrize("f, args", [
    (zoo.operator_calls, (W23, B3)), (zoo.operator_scalars, (0.3, 0.8)),
    (zoo.operator_scalars, (0.9, 0.4)), (zoo.operator_mapped, (0.3, 0.8)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_the_operator_functions_are_the_operators(f, args):
    both_modes(f, args)


def test_a_sum_of_values_of_unseen_kind_is_not_taken_for_a_number():
    """``sum([x, w, s2])`` with `s2` computed from a setting was taken for a number, so
    the write into it after its use was not undone for the reverse sweep (a gradient
    off by the write); its kind is unknown now, and the write is refused."""
    with pytest.raises(s2sad.S2SADError, match="cannot tell what `m4` is"):
        s2sad.grad(zoo.sum_of_a_setting_written_into, wrt=(0, 1))(np.zeros(3),
                                                                  np.zeros((2, 3)))


@pytest.mark.parametrize("kind", ["relu", "tanh", "th", None, "sine", "other"])
@pytest.mark.parametrize("mode", list(zoo.Mode))
def test_a_match_on_values_is_its_ifs(kind, mode):
    x = np.array([0.3, -0.7, 1.1])
    both_modes(lambda v: zoo.matched_activation(v, kind, mode), (x,))


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_a_match_on_an_expression_returns_from_its_cases(n):
    both_modes(lambda v: zoo.matched_returns(v, n), (0.7,))
    assert s2sad.hessian(zoo.matched_returns)(0.7, n) == pytest.approx(
        {0: 0.0, 1: 0.0, 2: 2.0}.get(n, -np.sin(0.7)))


@pytest.mark.parametrize("f, what", [
    (zoo.matched_sequence, "sequence pattern"),
    (zoo.matched_alternative_binding, "alternative that binds a name")])
def test_a_match_on_structure_is_refused_at_its_pattern(f, what):
    with pytest.raises(s2sad.S2SADError, match=what) as info:
        s2sad.grad(f)(0.5, (1.0, 2.0))
    assert info.value.filename == zoo.__file__
    assert "case" in info.value.source_line


@pytest.mark.parametrize("f", [zoo.copied_params, zoo.copy_written_original_read])
def test_a_copy_of_a_dict_argument_is_its_own(f):
    params = {"w": 0.5}
    want = central_diff(lambda x: f(x, params), (X,), 0)
    assert s2sad.grad(f, wrt=(0, 1))(X, params)[0] == pytest.approx(want, rel=1e-6)
    assert s2sad.jvp(f, (X, params), (1.0, None))[1] == pytest.approx(want, rel=1e-6)
    assert params == {"w": 0.5}


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_writing_into_an_argument_dict_stays_refused(mode):
    # (the caller's dict would change: as for lists and arrays, write into a copy)
    f = zoo.params_written
    params = {"w": 0.5}
    with pytest.raises(s2sad.S2SADError) as e:
        if mode == "reverse":
            s2sad.grad(f, wrt=(0, 1))(X, params)
        else:
            s2sad.jvp(f, (X, params), (1.0, None))
    assert e.value.lineno == f.__code__.co_firstlineno + 2
    assert "argument" in str(e.value)
    assert params == {"w": 0.5}


@pytest.mark.parametrize("mode", ["reverse", "forward", "tape"])
def test_joining_a_tuple_argument(mode):
    """``t + (x,)`` of a tuple argument (refused before): a tuple of the lengths
    known where the derivative is built, its adjoint split between the two."""
    f = zoo.tuple_joined
    g = s2sad.grad(f, wrt=(0, 1), mode=mode)(X, (2.0, 3.0))
    assert g[0] == pytest.approx(2.0) and g[1] == pytest.approx((X, 0.0))


def test_a_grown_tuple_is_appended_to_in_the_derivative():
    text = s2sad.source(zoo.tuple_grown, example=(X,))
    assert "out.append(" in text and "out_bar.pop()" in text
    assert "unbroadcast" not in text  # (never the `+` of numbers)


def test_a_copy_of_a_tuple_keeps_the_items_it_had():
    # (`kept = rows`, then `rows += ...`: `kept` still has three rows)
    f = zoo.tuple_grown_handed_on
    assert s2sad.value_and_grad(f)(X)[0] == pytest.approx(f(X))


def _star_joined(a, y):
    first, *rest = a
    return first * np.sum(np.array(rest + [y]) ** 2)


def _star_repeated(a, y):
    *init, last = a
    return last * np.sum(np.array(init * 2)) + y


def _star_read_as_items(a, y):
    first, *rest = a
    return first * np.sum(np.stack(rest) ** 2) + len(rest) * y + sum(rest) + rest[0] * y


def _star_sliced_and_looped(a, y):
    *init, last = a
    head = init[1:]
    total = 0.0
    for v in head:
        total = total + v * last
    return total + y * max(init)


@pytest.mark.parametrize("f", [_star_joined, _star_repeated])
@pytest.mark.parametrize("a", [np.array([0.5, 1.0, 2.0]), (0.5, 1.0, 2.0)],
                         ids=["array", "tuple"])
def test_the_star_part_of_an_array_or_a_tuple_used_as_a_list_is_refused(f, a):
    """``first, *rest = a`` makes a list in Python; s2sad holds the slice of `a`. Of an
    array, ``rest + [y]`` added where Python joins: a wrong value and gradient,
    silently. Where the slice would not behave as the list does it is refused at
    the line, with the list comprehension that makes the list instead."""
    with pytest.raises(s2sad.S2SADError, match="the `\\*` part of an unpacking") as info:
        s2sad.grad(f, wrt=1)(a, 3.0)
    assert info.value.lineno == f.__code__.co_firstlineno + 2


@pytest.mark.parametrize("f", [_star_read_as_items, _star_sliced_and_looped])
def test_the_star_part_of_an_array_read_as_items_is_differentiated(f):
    a = np.array([0.5, 1.0, 2.0, -0.7])
    both_modes(f, (a, 3.0))
    assert s2sad.value_and_grad(f, wrt=0)(a, 3.0)[0] == pytest.approx(f(a, 3.0))


def _star_stacked(a):
    first, *rest = a
    return first * np.sum(np.stack(rest) ** 2)


def test_the_star_part_of_a_tensor_handed_to_numpy_is_refused():
    """NumPy's stack takes an array as the list of its rows; PyTorch's takes only a
    list of tensors, so the slice of a tensor standing for the list is refused there
    (it raised inside the derivative), and differentiated for NumPy arrays."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("array_api_compat")
    a = np.array([0.5, 1.0, -2.0])
    assert np.allclose(s2sad.grad(_star_stacked)(a), [5.0, 1.0, -2.0])
    with pytest.raises(s2sad.S2SADError, match="the `\\*` part of an unpacking"):
        s2sad.grad(_star_stacked)(torch.tensor(a))


def test_a_tuple_argument_sliced_by_literals():
    t = (np.array([0.5, -1.0]), np.array([1.5, 0.25]), np.array([0.3, 0.7]))
    f = zoo.tuple_argument_sliced
    got_x, got_t = s2sad.grad(f, wrt=(0, 1))(X, t)
    assert got_x == pytest.approx(central_diff(f, (X, t), 0), rel=1e-6)
    for k in range(3):
        for j in range(2):
            def at(v, k=k, j=j):
                items = [a.copy() for a in t]
                items[k][j] = v
                return f(X, tuple(items))
            assert got_t[k][j] == pytest.approx(central_diff(at, (t[k][j],), 0), rel=1e-6)
    value, tangent = s2sad.jvp(f, (X, t), (1.0, tuple(np.ones(2) for _ in t)))
    want = central_diff(lambda s: f(X + s, tuple(a + s for a in t)), (0.0,), 0)
    assert value == pytest.approx(f(X, t)) and tangent == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("index", ["t[i:]", "t[:n]", "t[::k]"])
def test_a_tuple_sliced_by_values_known_at_run_time_is_refused(tmp_path, index):
    path = tmp_path / "sliced.py"
    path.write_text(f"def f(x, i=1, n=2, k=1):\n    t = (x, 2.0 * x, x * x)\n"
                    f"    u = {index}\n    return u[0] * u[1]\n")
    spec = importlib.util.spec_from_file_location("sliced", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(s2sad.NotDifferentiableError, match="int literals") as e:
        s2sad.grad(module.f)(X)
    assert e.value.lineno == 3


def test_the_hessian_of_a_sliced_tuple():
    f = zoo.tuple_sliced
    h = s2sad.hessian(f)(X)
    g = s2sad.grad(f)
    assert float(np.squeeze(h)) == pytest.approx(central_diff(g, (X,), 0), rel=1e-5)


ROWS = np.array([[0.3, -0.5, 0.8], [1.1, -0.2, 0.6]])


@pytest.mark.parametrize("f", [
    zoo.rows_unpacked_scaled, zoo.rows_unpacked_twice, zoo.rows_unpacked_and_summed,
    zoo.rows_one_unused, zoo.items_of_a_vector, zoo.rows_of_unseen_kind,
], ids=lambda f: f.__name__)
def test_an_array_unpacked_into_its_rows_has_an_array_adjoint(f):
    # (a tuple of the rows' adjoints was repeated by `* 2` and joined by `+`)
    got = both_modes(f, (ROWS,))[0]
    assert type(got) is np.ndarray and got.shape == ROWS.shape
    g = s2sad.grad(f)
    h = s2sad.hessian(f)(ROWS)
    for k in range(ROWS.size):
        step = np.zeros(ROWS.size)
        step[k] = 1e-5
        step = step.reshape(ROWS.shape)
        want = (g(ROWS + step) - g(ROWS - step)) / 2e-5
        assert np.allclose(h[..., k // 3, k % 3], want, rtol=1e-5, atol=1e-6)


def test_reduce_folds_as_python_does():
    f = zoo.reduced
    h = s2sad.hessian(f)(X, 4)
    assert float(np.squeeze(h)) == pytest.approx(central_diff(s2sad.grad(f), (X, 4), 0),
                                                  rel=1e-5)
    code = [line for line in s2sad.source(f, example=(X, 4)).splitlines()
            if not line.strip().startswith("#")]
    assert not any("lambda" in line for line in code)  # (loops of the lambdas' bodies)


def test_reduce_of_nothing_without_an_initial_value_raises_typeerror(tmp_path):
    path = tmp_path / "empty_reduce.py"
    path.write_text("from functools import reduce\n\n\ndef f(x, n):\n"
                    "    return reduce(lambda a, b: a * b, [x] * n)\n")
    spec = importlib.util.spec_from_file_location("empty_reduce", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert s2sad.grad(module.f)(X, 2) == pytest.approx(2 * X)
    with pytest.raises(TypeError, match="reduce\\(\\) of empty iterable"):
        s2sad.grad(module.f)(X, 0)


def _grown(t, n):
    if n == 0:
        return sum(t)
    return _grown(t + (1.0,), n - 1)  # (a tuple of another length at every depth)


def _of_a_recursion_growing_a_tuple(x):
    return x * x * _grown((1.0,), 12)


def test_a_recursion_that_grows_a_tuple_ends():
    """A join's tuple kind is followed up to 8 items: beyond, a recursion growing a
    tuple by one each call made a new kind, and a new analysis, at every depth
    (a RecursionError)."""
    assert s2sad.grad(_of_a_recursion_growing_a_tuple)(0.5) == pytest.approx(13.0)
