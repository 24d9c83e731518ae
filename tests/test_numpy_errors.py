"""NumPy code s2sad refuses: each refusal names the user's line and says what to do."""

import inspect

import numpy as np
import pytest

import bad_numpy as bad
import s2sad


def line_of(f, marker):
    lines, first = inspect.getsourcelines(f)
    for i, line in enumerate(lines):
        if f"marker: {marker}" in line:
            return first + i
    raise AssertionError(marker)


CASES = [
    (bad.write_into_argument, "argument", s2sad.NotDifferentiableError,
     "write into the argument `x`", "x = x.copy()"),
    (bad.write_through_view, "view write", s2sad.NotDifferentiableError,
     "may share memory with `y`", "copy"),
    (bad.view_read_after_write, "changes the view", s2sad.NotDifferentiableError,
     "changes what `v` shows", "v = ....copy()"),
    (bad.view_read_in_later_iteration, "loop write", s2sad.NotDifferentiableError,
     "changes what `top` shows", "copy"),
    (bad.list_of_values_written_into_an_array, "list of values", s2sad.NotDifferentiableError,
     "writing a list or a tuple of values into an array", "np.array([...])"),
    (bad.write_list_slice, "list slice", s2sad.NotDifferentiableError,
     "not a slice", "one by one"),
    (bad.write_into_global, "global", s2sad.UnsupportedSyntaxError,
     "not a local variable", "copy"),
    (bad.write_nested_subscript, "nested", s2sad.UnsupportedSyntaxError,
     "not into this expression", "A[i, j] = v"),
    (bad.no_rule, "no rule", s2sad.NoRuleError, "`np.i0` (a NumPy function", "register_rule"),
    (bad.einsum_sublist_form, "sublist", s2sad.NoRuleError, "`np.einsum` in its sublist form",
     "register_rule"),
    (bad.meshgrid_of_three, "three grids", s2sad.NoRuleError, "`np.meshgrid` of more than two",
     "register_rule"),
    (bad.write_into_call_result, "call result", s2sad.NotDifferentiableError,
     "may share memory with `x`", "y = ....copy()"),
]


def test_np_add_at_agrees_with_a_loop_and_a_matrix_product():
    # (the two spellings reverse mode's refusal of np.add.at once suggested)
    from zoo_in_place import scatter_forces

    x = np.array([0.1, 0.2, 0.3, 0.4])
    index = np.array([0, 2, 2, 1])

    def in_a_loop(x):
        forces = np.zeros(3)
        v = x * x
        for k in range(4):
            forces[index[k]] += v[k]
        return np.sum(forces * np.arange(3.0))

    def by_matrix(x):
        return np.sum((np.eye(3)[index].T @ (x * x)) * np.arange(3.0))

    want = 2 * x * np.arange(3.0)[index]
    assert np.allclose(s2sad.grad(in_a_loop)(x), want)
    assert np.allclose(s2sad.grad(by_matrix)(x), want)
    assert np.allclose(s2sad.grad(scatter_forces)(x), want)
    t = np.array([1.0, -0.5, 0.25, 2.0])
    assert s2sad.jvp(scatter_forces, (x,), (t,))[1] == pytest.approx(np.dot(want, t))


@pytest.mark.parametrize("f,marker,cls,message,hint", CASES, ids=[c[0].__name__ for c in CASES])
def test_refused_at_the_users_line(f, marker, cls, message, hint):
    args = [np.array([0.1, 0.2, 0.3, 0.4])] * len(inspect.signature(f).parameters)
    if f is bad.write_list_slice:
        args = [0.5, 0.7]
    with pytest.raises(cls) as info:
        s2sad.grad(f)(*args)
    err = info.value
    assert message in err.message, err.message
    assert hint in (err.hint or ""), err.hint
    assert err.filename == bad.__file__
    assert err.lineno == line_of(f, marker)


NO_RULE = [
    (bad.dot_of_numbers, 0.5, "dot of numbers",
     "`np.dot` of two numbers (its rules take two 1-D or 2-D arrays; or a number and an "
     "array; or an array and a number)"),
    (bad.dot_of_a_list, np.ones(4), "dot of a list",
     "`np.dot` of a 1-D array and a list (its rules take two 1-D or 2-D arrays; or a number "
     "and an array; or an array and a number; np.asarray(xs) makes a list an array)"),
    (bad.norm_of_order_zero, np.ones(4), "norm ord",
     "`np.linalg.norm` with ord=0 (it counts the nonzero elements: a step function"),
    (bad.norm_with_a_wrong_keyword, np.ones(4), "norm keyword",
     "`np.linalg.norm` with 1 positional argument and the keyword `order` (its rules take "
     "x and the options ord, axis, keepdims)"),
    (bad.inner_of_matrices, np.ones((2, 2)), "inner",
     "`np.inner` of two 2-D arrays (its rules take two 1-D arrays)"),
]


@pytest.mark.parametrize("mode", ["reverse", "forward"])
@pytest.mark.parametrize("f,x,marker,message", NO_RULE, ids=[c[0].__name__ for c in NO_RULE])
def test_a_call_no_rule_takes_says_why(f, x, marker, message, mode):
    """Not "with 2 arguments (its rules take 2 inputs)": the reason a rule refuses
    the call, or the kinds of arguments the rules take."""
    with pytest.raises(s2sad.NoRuleError) as info:
        s2sad.grad(f, mode=mode)(x)
    err = info.value
    assert f"no derivative rule for {message}" in err.message, err.message
    assert "inputs)" not in err.message
    assert err.filename == bad.__file__ and err.lineno == line_of(f, marker)


def test_a_scipy_function_without_a_rule_is_refused_at_the_users_line():
    # (SciPy's own source, argument checks and writes through views, is not put in
    # place of the call: the refusal names the call, not a line inside SciPy)
    linalg = pytest.importorskip("scipy.linalg")

    def exponential(a):
        return np.sum(linalg.logm(a))  # marker: scipy

    def of_a_constant(x):
        return np.sum(linalg.expm(np.eye(2)) @ x)

    with pytest.raises(s2sad.NoRuleError) as info:
        s2sad.grad(exponential)(np.eye(2) * 0.3)
    err = info.value
    assert "`linalg.logm` (a SciPy function" in err.message, err.message
    assert err.filename == __file__ and err.lineno == line_of(exponential, "scipy")
    x = np.array([0.5, -1.0])
    assert np.allclose(s2sad.grad(of_a_constant)(x), np.sum(linalg.expm(np.eye(2)), axis=0))


def test_arguments_are_untouched_by_a_gradient_with_writes():
    import zoo_numpy

    x = np.array([0.1, -0.2, 0.3])
    kept = x.copy()
    s2sad.grad(zoo_numpy.heat_steps)(x, 0.2)
    assert np.array_equal(x, kept)


def test_vjp_output_does_not_change_when_the_pullback_runs():
    import zoo_numpy

    f = zoo_numpy.written_output
    x = np.array([0.5, 0.25, 2.0])
    out, pullback = s2sad.vjp(f, x)
    before = out.copy()
    (g,) = pullback(np.ones(3))
    assert np.array_equal(out, before)
    assert np.array_equal(out, f(x))
    h = 1e-6
    numeric = [(np.sum(f(x + h * e)) - np.sum(f(x - h * e))) / (2 * h) for e in np.eye(3)]
    assert np.allclose(g, numeric, rtol=1e-6)


def test_vjp_of_an_output_read_by_index():
    import zoo_numpy

    f = zoo_numpy.returns_indexed
    x = np.array([0.5, 0.25, 2.0])
    v = np.array([1.0, -2.0, 0.5])
    out, pullback = s2sad.vjp(f, x)
    (g,) = pullback(v)
    h = 1e-6
    numeric = [(f(x + h * e) @ v - f(x - h * e) @ v) / (2 * h) for e in np.eye(3)]
    assert np.allclose(g, numeric, rtol=1e-6)


def _through_exp_of_1j(a):
    return np.sum(np.abs(np.exp(1j * a) + a) ** 2)


def _times_a_complex_array(a):
    c = np.array([1 + 2j, 3j])
    return np.sum(np.abs(c * a) ** 2)


def _times_complex_data(a, c):
    return np.sum((c * a).real)


@pytest.mark.parametrize("f, args", [
    (_through_exp_of_1j, (np.array([0.3, -0.4]),)),
    (_times_a_complex_array, (np.array([0.3, -0.4]),)),
    (_times_complex_data, (np.array([0.3, -0.4]), np.array([1 + 1j, 2 - 1j]))),
], ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_complex_values_between_real_ones_are_refused(f, args, mode):
    """A real function of real arrays that computes with complex numbers in between:
    the rules are those of real arithmetic, and gave a complex gradient, silently
    wrong; refused at the line, until derivatives are conjugated where they must be."""
    with pytest.raises(s2sad.S2SADError, match="computes with complex numbers and a value") as info:
        s2sad.grad(f, mode=mode)(*args)
    assert info.value.lineno is not None


class _Phase:
    def __init__(self, a):
        self.a = a

    def loss(self, w):
        return np.real(self.a * w)


@pytest.mark.parametrize("a", [1 + 2j, np.complex128(1 + 2j)])
def test_a_complex_number_given_is_complex_arithmetic(a):
    """A complex number passed in (an argument held fixed, an attribute of an object
    argument) is complex arithmetic where a derivative goes through it, refused as a
    complex array is: it was of unknown kind, and ``np.real(a * w)`` gave the
    gradient ``1+2j`` where it is 1.0."""
    def f(w, a):
        return np.real(a * w)

    for call in (lambda: s2sad.grad(f)(0.7, a), lambda: s2sad.grad(_Phase(a).loss)(0.7)):
        with pytest.raises(s2sad.NotDifferentiableError, match="complex numbers"):
            call()
    # (its size is a real number: no complex arithmetic)
    assert s2sad.grad(lambda w, a: np.abs(a) * w)(0.7, a) == pytest.approx(abs(a))


def test_a_real_number_made_of_a_complex_constant_is_a_number():
    def scaled(a):
        return np.sum(a * abs(3 + 4j))

    assert np.allclose(s2sad.grad(scaled)(np.array([0.3, -0.4])), [5.0, 5.0])


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_list_that_a_loop_makes_an_array_says_to_make_it_one_first(mode):
    # (`y` is the list y0 before the loop and an array after an iteration: neither
    # kind, so `y[0]` is refused; made an array first, it is differentiated)
    with pytest.raises(s2sad.NotDifferentiableError) as info:
        s2sad.grad(bad.list_made_an_array_in_a_loop, wrt=(0, 1), mode=mode)([1.0, 0.0], 2.0)
    err = info.value
    assert "y = np.asarray(y)" in err.hint
    assert err.lineno == line_of(bad.list_made_an_array_in_a_loop, "list then array")
    f = bad.list_made_an_array_first
    g_y, g_k = s2sad.grad(f, wrt=(0, 1), mode=mode)([1.0, 0.0], 2.0)
    h = 1e-6
    assert g_k == pytest.approx((f([1.0, 0.0], 2.0 + h) - f([1.0, 0.0], 2.0 - h)) / (2 * h),
                                rel=1e-6)
    assert g_y == pytest.approx([(f([1.0 + h, 0.0], 2.0) - f([1.0 - h, 0.0], 2.0)) / (2 * h),
                                 (f([1.0, h], 2.0) - f([1.0, -h], 2.0)) / (2 * h)], rel=1e-6)


def _assembled(w):
    K = np.zeros(4).reshape(2, 2)
    K[0, 0] = w
    return np.sum(K @ K)


def test_a_write_into_a_view_of_a_value_with_no_name_says_what_to_do():
    """``K = np.zeros(4).reshape(2, 2)`` then ``K[0, 0] = w``: the message named
    `this value` and hinted ``K = ....copy()``, placeholders for a name there is not."""
    with pytest.raises(s2sad.NotDifferentiableError, match="the array it was made from") as info:
        s2sad.grad(_assembled)(0.5)
    assert "this value" not in str(info.value) and "...." not in str(info.value)
    assert "`.copy()` at the end of the line" in str(info.value)
