"""Changes made to lists and arrays in place: followed where s2sad can follow them,
refused at the user's line where it cannot, never a derivative of the wrong values."""

import numpy as np
import pytest

import s2sad
from helpers import central_diff as numeric

X = np.array([0.3, 0.6, 0.7, 0.9])


# ------------------------------------------------------------ refused, with the line


def aug_through_alias(x):
    y = x.copy()
    z = y
    z += 1.0  # marker
    return np.sum(y * x)


def aug_on_argument(x):
    y = x
    y += 1.0  # marker
    return np.sum(y * x)


def aug_on_slice(x):
    y = np.zeros(4)
    r = y[:2]
    r += x[:2]  # marker
    return np.sum(y * y)


def aug_on_call_result(x):
    y = x.copy()
    h = identity(y)
    h += 1.0  # marker
    return np.sum(y * x)


def identity(a):
    return a


def aug_in_loop_with_alias(x):
    acc = np.zeros(4)
    keep = acc
    for i in range(3):
        acc += x * i  # marker
    return np.sum(keep * x)


def aug_on_list_alias(x):
    xs = [x[0]]
    ys = xs
    ys += [x[1]]  # marker
    return xs[-1]


def clip_out(x):
    y = x.copy()
    np.clip(y, 0.4, 0.6, out=y)  # marker
    return np.sum(y * y)


def ufunc_positional_out(x):
    y = x.copy()
    np.maximum(y, 0.6, y)  # marker
    return np.sum(y * y)


def fill(x):
    y = x.copy()
    y.fill(0.0)  # marker
    return np.sum(y * x)


def copyto(x):
    y = np.zeros(4)
    np.copyto(y, x * x)  # marker
    return np.sum(y)


def sort_in_place(x):
    y = x * 1.0
    y.sort()  # marker
    return y[0]


def list_insert(x):
    xs = [x[0]]
    xs.insert(0, x[1] * x[1])  # marker
    return xs[0]


def list_extend(x):
    xs = [x[0]]
    xs.extend([x[1]])  # marker
    return xs[1]


def set_row(A, i, v):
    A[i] = v  # marker


def helper_writes_argument(x):
    A = np.zeros((2, 4))
    set_row(A, 0, x)
    return np.sum(A * A)


def add_square(xs, v):
    xs.append(v * v)  # marker


def helper_appends_to_argument(x):
    xs = [x[0]]
    add_square(xs, x[1])
    return xs[-1]


def half(a):
    return a[:2]


def view_from_helper(x):
    y = x.copy()
    v = half(y)
    y[0] = 9.0  # marker
    return np.sum(v * x[:2])


def write_into_itself(x):
    y = x.copy()
    y[::-1] = y  # marker
    return np.sum(y * np.arange(4.0))


REFUSED = [
    (aug_through_alias, "`y` refers to the same array"),
    (aug_on_argument, "changes the argument `x` in place"),
    (aug_on_slice, "cannot tell whether it shares memory"),
    (aug_on_call_result, "cannot tell whether it shares memory"),
    (aug_in_loop_with_alias, "`keep` refers to the same array"),
    (aug_on_list_alias, "`xs` refers to the same list"),
    (clip_out, "the `out=` argument changes `y` in place"),
    (ufunc_positional_out, "the output argument of `np.maximum` changes `y`"),
    (fill, "`.fill()` changes `y` in place"),
    (copyto, "`np.copyto` changes `y` in place"),
    (sort_in_place, "`.sort()` changes `y` in place"),
    (list_insert, "`.insert()` changes `xs` in place"),
    (list_extend, "`.extend()` changes `xs` in place"),
    (helper_writes_argument, "write into the argument `A`"),
    (helper_appends_to_argument, "appends to the argument `xs`"),
    (view_from_helper, "changes what `v` shows"),
    (write_into_itself, "writes `y` into itself"),
]


def marker_line(f):
    import inspect

    lines, first = inspect.getsourcelines(f)
    for k, line in enumerate(lines):
        if "# marker" in line:
            return first + k
    callee = {"helper_writes_argument": set_row, "helper_appends_to_argument": add_square}
    return marker_line(callee[f.__name__])


@pytest.mark.parametrize("f,message", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_refused_at_the_line_that_changes_the_object(f, message):
    with pytest.raises(s2sad.NotDifferentiableError) as info:
        s2sad.grad(f)(X.copy())
    assert message in info.value.message
    assert info.value.lineno == marker_line(f)
    with pytest.raises(s2sad.NotDifferentiableError):
        s2sad.jvp(f, (X.copy(),), (np.ones(4),))


# --------------------------------------------------------------- followed exactly


def aug_on_own_array(x):
    y = np.zeros(4)
    y += x
    y *= x
    return np.sum(y)


def aug_in_loop(x):
    acc = np.zeros(4)
    for i in range(3):
        acc += x * i
    return np.sum(acc * acc)


def aug_after_branch(x, c):
    y = x * 2.0
    if c > 0.0:
        y += x
    return np.sum(y * y)


def helper_of_a_written_array(x):
    y = x.copy()
    v = doubled(y)
    y[0] = 9.0
    return np.sum(v * x) + np.sum(y)


def doubled(a):
    return a * 2.0


def helper_of_an_indexed_array(x):
    y = x * 1.0
    return y[0] + squares(y)


def squares(a):
    return np.sum(a * a)


def total(xs):
    s = 0.0
    for v in xs:
        s += v * v
    return s


def helper_of_a_list(x):
    xs = [x[0], 2.0 * x[1]]
    return total(xs) + xs[0]


FOLLOWED = [(aug_on_own_array, (X,)), (aug_in_loop, (X,)),
            (aug_after_branch, (X, 1.0)), (aug_after_branch, (X, -1.0)),
            (helper_of_a_written_array, (X,)), (helper_of_an_indexed_array, (X,)),
            (helper_of_a_list, (X,))]


@pytest.mark.parametrize("f,args", FOLLOWED, ids=[f.__name__ for f, _ in FOLLOWED])
def test_changes_s2sad_follows_give_the_derivative(f, args):
    """(A helper given an array that is also written or read by index, or a list,
    used to lose its part of the gradient.)"""
    got = s2sad.grad(f)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    assert np.allclose(got, numeric(f, args, 0), rtol=1e-6, atol=1e-8)
    direction = np.linspace(-1.0, 1.0, 4)
    _, tangent = s2sad.jvp(f, args, (direction,) + (0.0,) * (len(args) - 1))
    assert np.isclose(tangent, np.dot(got, direction), rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------- copies and views
# (`x.flatten()` and `x.astype(float)` always copy, so writing into them is a write
# into an array of the function's own; `ravel`, `reshape`, `.T`, slices, `np.asarray`
# of an array and `astype(copy=False)` may be the array itself)


def write_into_flatten(x):
    A = np.outer(x, x)
    B = A.flatten()
    B[0] = x[1] * 3.0
    return np.sum(B * B) + np.sum(A)


def write_into_astype(x):
    y = x.astype(float)
    y[0] = 0.0
    return np.sum(y * x)


def write_into_astype_of_ints(x):
    y = np.arange(4).astype(np.float64)
    y[1] = x[2] * x[3]
    return np.sum(y * x)


def astype_int_is_constant(x):
    k = (x * 10.0 + 0.5).astype(int)
    return np.sum(k * x)


def write_into_asarray_of_a_list(x):
    y = np.asarray([x[0], x[1] * 2.0])
    y[0] = x[3]
    return np.sum(y * x[:2])


def write_into_sorted(x):
    y = np.sort(np.array([0.3, 0.1, 0.2, 0.4]))
    y[0] = x[1] * 2.0
    return np.sum(y * x)


def write_into_floor(x):
    y = np.floor(x * 3.0)
    y[0] = x[1] * 2.0
    return np.sum(y * x)


COPIES = [write_into_flatten, write_into_astype, write_into_astype_of_ints,
          astype_int_is_constant, write_into_asarray_of_a_list, write_into_sorted,
          write_into_floor]


@pytest.mark.parametrize("f", COPIES, ids=[f.__name__ for f in COPIES])
def test_writes_into_copies_are_followed(f):
    """(`flatten` and `astype` were refused as possible views; flatten's tangent was
    ravel's, a view of the tangent it came from, which the write then changed.)"""
    args = (X.copy(),)
    expected = numeric(f, args, 0)
    for mode in ("reverse", "forward"):
        assert np.allclose(s2sad.grad(f, mode=mode)(X.copy()), expected, rtol=1e-6, atol=1e-8)
    direction = np.linspace(-1.0, 1.0, 4)
    _, tangent = s2sad.jvp(f, args, (direction.copy(),))
    assert np.isclose(tangent, np.dot(expected, direction), rtol=1e-6, atol=1e-8)
    if f is write_into_asarray_of_a_list:
        return  # (second derivatives stop at the list's adjoint, `list(y_bar)`)
    h = s2sad.hessian(f)(X.copy())
    step = 1e-5
    numeric_h = np.array([(s2sad.grad(f)(X + step * e) - s2sad.grad(f)(X - step * e)) / (2 * step)
                          for e in np.eye(4)])
    assert np.allclose(h, numeric_h, atol=1e-4)


def write_into_ravel(x):
    A = np.outer(x, x)
    B = A.ravel()
    B[0] = x[1]  # marker
    return np.sum(A)


def write_into_reshape(x):
    A = np.outer(x, x)
    B = A.reshape(16)
    B[0] = x[1]  # marker
    return np.sum(A)


def write_into_transpose(x):
    A = np.outer(x, x * 2.0)
    B = A.T
    B[0, 1] = x[1]  # marker
    return np.sum(A * A)


def write_into_asarray_of_an_array(x):
    y = x * 2.0
    z = np.asarray(y)
    z[0] = 0.0  # marker
    return np.sum(y * x)


def write_into_astype_without_copy(x):
    y = x * 2.0
    z = y.astype(float, copy=False)
    z[0] = 0.0  # marker
    return np.sum(y * x)


def view_read_after_write_into_its_array(x):
    y = x * 2.0
    z = y.astype(np.float64, copy=False)
    y[0] = 0.0  # marker
    return np.sum(z * x)


def same(a):
    return a


def same_forward(a, out, a_dot):
    return a_dot


def write_into_what_a_rule_returns(x):
    y = x * 2.0
    z = same(y)
    z[0] = 0.0  # marker
    return np.sum(y * x)


VIEWS = [(write_into_ravel, "may share memory with `A`"),
         (write_into_reshape, "may share memory with `A`"),
         (write_into_transpose, "may share memory with `A`"),
         (write_into_asarray_of_an_array, "may share memory with `y`"),
         (write_into_astype_without_copy, "may share memory with `y`"),
         (view_read_after_write_into_its_array, "changes what `z` shows"),
         (write_into_what_a_rule_returns, "may share memory with `y`")]


@pytest.mark.parametrize("f,message", VIEWS, ids=[f.__name__ for f, _ in VIEWS])
def test_writes_through_possible_views_are_refused(f, message):
    """(A function with a rule of the user's may hand back the array it is given.)"""
    s2sad.register_rule(same, forward=same_forward)
    test_refused_at_the_line_that_changes_the_object(f, message)


# ------------------------------------------------- elements in an unpacking
# (Python computes the whole value first, then assigns the targets from left to
# right, each element's index when its turn comes)


def swap_in_a_list(x):
    y = [x[0], x[1], x[2], x[3]]
    for j in range(3):
        if y[j] > y[j + 1]:
            y[j], y[j + 1] = y[j + 1], y[j]
    return y[0] * 1.0 + y[1] * 2.0 + y[2] * 3.0 + y[3] * 4.0


def bubble_sort_an_array(x):
    y = x * 1.0
    n = len(y)
    for i in range(n):
        for j in range(n - 1 - i):
            if y[j] < y[j + 1]:
                y[j], y[j + 1] = y[j + 1], y[j]
    return np.sum(y * np.arange(1.0, 5.0) ** 2)


def unpack_a_tuple_into_elements(x):
    y = [x[0], x[1], x[2], x[3]]
    t = (y[3], y[0] * 2.0)
    y[0], y[3] = t
    return y[0] * 3.0 + y[3] * y[1]


def element_then_its_index(x):
    y = x * 1.0
    i = 0
    y[i], i = x[3] * 2.0, 2
    return np.sum(y * y) + i


def index_then_its_element(x):
    y = x * 1.0
    i = 0
    i, y[i] = 2, x[3] * 2.0
    return np.sum(y * y) + i


def chained_writes(x):
    y = x * 1.0
    z = np.zeros(4)
    y[1] = z[2] = x[0] * x[3]
    return np.sum(y * y) + np.sum(z * x)


def swap_rows_copied(x):
    A = np.outer(x, x)
    A[0], A[1] = A[1].copy(), A[0].copy()
    return np.sum(A * np.arange(16.0).reshape(4, 4))


UNPACKED = [swap_in_a_list, bubble_sort_an_array, unpack_a_tuple_into_elements,
            element_then_its_index, index_then_its_element, chained_writes, swap_rows_copied]


@pytest.mark.parametrize("f", UNPACKED, ids=[f.__name__ for f in UNPACKED])
@pytest.mark.parametrize("point", [X, X[::-1].copy()], ids=["sorted", "reversed"])
def test_elements_written_by_an_unpacking(f, point):
    """(Writing an element in an unpacking or a chained assignment was refused.)"""
    expected = numeric(f, (point.copy(),), 0)
    for mode in ("reverse", "forward"):
        assert np.allclose(s2sad.grad(f, mode=mode)(point.copy()), expected, rtol=1e-6, atol=1e-8)
    direction = np.linspace(-1.0, 1.0, 4)
    _, tangent = s2sad.jvp(f, (point.copy(),), (direction,))
    assert np.isclose(tangent, np.dot(expected, direction), rtol=1e-6, atol=1e-8)
    h = s2sad.hessian(f)(point.copy())
    step = 1e-5
    numeric_h = np.array([(s2sad.grad(f)(point + step * e) - s2sad.grad(f)(point - step * e))
                          / (2 * step) for e in np.eye(4)])
    assert np.allclose(h, numeric_h, atol=1e-4)


def swap_rows_through_views(x):
    A = np.outer(x, x)
    A[0], A[1] = A[1], A[0]  # marker
    return np.sum(A * np.arange(16.0).reshape(4, 4))


def test_swapping_rows_through_views_is_refused():
    """`A[1]` is a view: NumPy copies row 1 into row 0, then row 0 (now row 1's
    values) into row 1."""
    test_refused_at_the_line_that_changes_the_object(swap_rows_through_views,
                                                     "`A[0], A[1] = A[1], A[0]` does not swap")


# ------------------------------------------------- objects held by containers
# (a list or a tuple holds the very array put in it: a change made in place to the
# array afterwards shows through the container and what is taken out of it)


def multiply_after_listing(x):
    y = x * 1.0
    z = x * 2.0
    lst = [y, z]
    y *= 3.0  # marker
    return np.sum(lst[0] * lst[1])


def write_after_append(x):
    y = x * 1.0
    lst = []
    lst.append(y)
    y[0] = x[1] * 5.0  # marker
    return np.sum(lst[0] * x)


def add_after_packing(x):
    y = x * 1.0
    z = x * 2.0
    t = (y, z)
    y += z  # marker
    return np.sum(t[0] * t[1])


def write_after_unpacking(x):
    y = x * 1.0
    t = (y, x * 2.0)
    a, b = t
    y[1] = x[0] * 3.0  # marker
    return np.sum(a * b)


def write_after_a_call_took_it(x):
    y = x * 1.0
    lst = [y, x]
    a = first(lst)
    y[0] = x[3] * 5.0  # marker
    return np.sum(a * x)


def first(xs):
    return xs[0]


def write_after_the_list_was_read(x):
    y = x * 1.0
    lst = [y, x]
    s = np.sum(lst[0] * x)
    y[0] = x[1] * x[2]  # marker
    return s + np.sum(y * y)


def write_next_iteration(x):
    y = x * 1.0
    lst = []
    for i in range(2):
        lst.append(y)
        y[i] = x[i + 2] * 2.0  # marker
    return np.sum(lst[0] * x)


def accumulate_into_listed(x):
    acc = np.zeros(4)
    hist = []
    for i in range(3):
        acc += x * (i + 1.0)  # marker
        hist.append(acc)
    return np.sum(hist[0] * x)


def write_carried_after_listing(x):
    u = x * 1.0
    traj = []
    for k in range(2):
        u[0] = x[k + 1] * u[1]  # marker
        un = u * 2.0
        traj.append(un)
        u = un
    return np.sum(traj[0] * traj[1])


def write_first_value_of_carried(x):
    y = x * 1.0
    lst = [y]
    for i in range(2):
        y[i] = x[i + 2] * 3.0  # marker
        y = y * 2.0
    return np.sum(lst[0] * x)


def append_to_listed_list(x):
    inner = [x[0]]
    outer = [inner]
    inner.append(x[1] * 2.0)  # marker
    return outer[0][1] * x[2]


def add_into_aliased_element(x):
    y = x * 1.0
    lst = [y, x * 2.0]
    lst[0] += x  # marker
    return np.sum(y * x)


def add_into_repeated_element(x):
    lst = [x * 1.0] * 2
    lst[0] += x  # marker
    return np.sum(lst[1] * x)


def add_into_element_listed_twice(x):
    y = x * 1.0
    lst = [y, y]
    lst[0] += x  # marker
    return np.sum(lst[1] * x)


def add_into_element_taken_before(x):
    lst = [x * 1.0, x * 2.0]
    a = lst[0]
    lst[0] += x  # marker
    return np.sum(a * x) + np.sum(lst[0])


def add_into_argument_element(x):
    lst = [x]
    lst[0] += 1.0  # marker
    return np.sum(lst[0] * x)


def write_into_element(x):
    lst = [x * 1.0, x * 2.0]
    a = lst[0]
    a[1] = x[2]  # marker
    return np.sum(lst[0] * x)


def write_into_element_of_tuple(x):
    t = (x * 1.0, x * 2.0)
    a, b = t
    a[1] = x[2]  # marker
    return np.sum(t[0] * x)


def multiply_under_a_view_of_an_element(x):
    y = x * 1.0
    lst = [y]
    a = lst[0]
    v = a[:2]
    y *= 3.0  # marker
    return np.sum(v * x[:2])


def add_into_element_listed_in_a_loop(x):
    y = x * 1.0
    lst = []
    for i in range(3):
        lst.append(y)
    for i in range(3):
        lst[i] += x * x  # marker
    return np.sum(lst[0] * lst[1] * lst[2])


HELD = [(multiply_under_a_view_of_an_element, "(`v` may show it)"),
        (add_into_element_listed_in_a_loop, "refers to the same object"),
        (multiply_after_listing, "`y` in place after it was put into a list"),
        (write_after_append, "`y` in place after it was put into a list"),
        (add_after_packing, "(`t` may show it)"),
        (write_after_unpacking, "`y` in place after it was put into a list"),
        (write_after_a_call_took_it, "`y` in place after it was put into a list"),
        (write_after_the_list_was_read, "(`lst` may show it)"),
        (write_next_iteration, "(`lst` may show it)"),
        (accumulate_into_listed, "(`hist` may show it)"),
        (write_carried_after_listing, "(`traj` may show it)"),
        (write_first_value_of_carried, "(`lst` may show it)"),
        (append_to_listed_list, "the list `inner` in place"),
        (add_into_aliased_element, "`y` refers to the same object"),
        (add_into_repeated_element, "refers to the same object"),
        (add_into_element_listed_twice, "refers to the same object"),
        (add_into_element_taken_before, "`a` refers to the same object"),
        (add_into_argument_element, "cannot tell whether it is shared"),
        (write_into_element, "`a` is an element of `lst`"),
        (write_into_element_of_tuple, "`a` is an element of `t`")]


@pytest.mark.parametrize("f,message", HELD, ids=[f.__name__ for f, _ in HELD])
def test_changes_to_objects_containers_hold_are_refused(f, message):
    """(These gave wrong derivatives in both modes: the container kept the values
    from before the change, or `lst[0] += x` replaced the element rather than
    changing the array `y` also names.)"""
    test_refused_at_the_line_that_changes_the_object(f, message)


def rows_made_each_iteration(x):
    rows = []
    for i in range(3):
        r = np.zeros(2)
        r[0] = x[i] * x[i + 1]
        r[1] = x[i]
        rows.append(r)
    return np.sum(rows[0] * rows[2]) + np.sum(rows[1])


def history_of_copies(x):
    acc = np.zeros(4)
    hist = []
    for i in range(3):
        acc += x * i
        hist.append(acc.copy())
    return np.sum(hist[0] * hist[1] * hist[2]) + np.sum(acc * acc)


def trajectory(x):
    u = x * 1.0
    traj = [u]
    for k in range(2):
        un = u * 2.0
        un[0] = x[k + 1] * un[1]
        traj.append(un)
        u = un
    return np.sum(traj[0] * traj[1]) + np.sum(traj[2])


def add_into_own_element(x):
    lst = [x * 1.0, x * 2.0]
    lst[0] += x
    return np.sum(lst[0] * x)


def add_into_element_in_loop(x):
    lst = [x * 1.0, x * 2.0]
    s = 0.0
    for i in range(3):
        a = lst[1]
        s = s + np.sum(a * x)
        lst[1] += x * x
    return s + np.sum(lst[0] * lst[1])


def write_before_listing(x):
    y = x * 1.0
    y[0] = x[1] * x[2]
    lst = [y, x]
    return np.sum(lst[0] * lst[1])


def change_a_copy_and_put_it_back(x):
    y = x * 1.0
    lst = [y, x * 2.0]
    row = lst[0].copy()
    row[1] = x[2] * 4.0
    lst[0] = row
    return np.sum(lst[0] * lst[1]) + np.sum(y)


def add_into_elements_appended_in_a_loop(x):
    lst = []
    for i in range(3):
        lst.append(x * (i + 1.0))
    for i in range(3):
        lst[i] += x * x
    return np.sum(lst[0] * lst[1] * lst[2])


def rebind_after_listing(x):
    y = x * 1.0
    lst = [y, x]
    y = y * 3.0
    return np.sum(lst[0] * y)


HELD_OK = [rows_made_each_iteration, history_of_copies, trajectory, add_into_own_element,
           add_into_element_in_loop, write_before_listing, change_a_copy_and_put_it_back,
           rebind_after_listing, add_into_elements_appended_in_a_loop]


@pytest.mark.parametrize("f", HELD_OK, ids=[f.__name__ for f in HELD_OK])
def test_containers_of_objects_changed_safely(f):
    test_writes_into_copies_are_followed(f)


def carried_written_from_a_product(x):
    u = x * 1.0
    for k in range(2):
        u[0] = x[k + 1] * u[1]
        u = u * 2.0
    return np.sum(u * x)


def test_a_written_carried_array_has_a_tangent_of_its_own():
    """`x * 1.0`'s tangent is `x_dot` itself; the loop writes into the array it
    starts with, and so wrote into the caller's tangent."""
    direction = np.linspace(-1.0, 1.0, 4)
    given = direction.copy()
    _, tangent = s2sad.jvp(carried_written_from_a_product, (X.copy(),), (given,))
    assert np.array_equal(given, direction)
    expected = numeric(carried_written_from_a_product, (X.copy(),), 0)
    assert np.isclose(tangent, np.dot(expected, direction), rtol=1e-6, atol=1e-8)
    test_writes_into_copies_are_followed(carried_written_from_a_product)


# ------------------------------------------------------- integer arrays
# (NumPy truncates a float written into an integer array: the result is piecewise
# constant in the value, so no derivative passes through the write)


def float_into_int_zeros(x):
    a = np.zeros(3, dtype=int)
    a[0] = x[0] * 7.0
    return np.sum(a * x[:3]) + x[1]


def float_into_arange(x):
    a = np.arange(4)
    a[1] = x[1] * 2.0 + 5.0
    a[2] += x[2] * 9.0
    return np.sum(a * x)


def float_into_ints_made_from_ints(x):
    n = np.array([1, 2, 3, 4])
    a = np.zeros_like(n)
    a[0] = x[0] * 7.0
    b = a * 2 + n
    b[1] = x[1] * 3.0
    c = np.full(4, 2)
    c[2] = x[2] * 5.0
    return np.sum(a * x) + np.sum(b * x) + np.sum(c * x)


def float_into_named_int_dtypes(x):
    a = np.ones(3, dtype="int32")
    a[0] = x[0] * 7.0
    b = np.zeros(3, dtype=np.int64)
    b[1] = x[1] * 7.0
    c = np.zeros(3, dtype=a.dtype)
    c[2] = x[2] * 7.0
    return np.sum((a + b + c) * x[:3])


def int_array_made_float(x):
    a = np.arange(4)
    b = a / 2
    b[0] = x[0] * 3.0
    c = a * 1.5
    c[1] = x[1]
    d = np.zeros(4, dtype=x.dtype)
    d[2] = x[2] * x[3]
    return np.sum(b * x) + np.sum(c * x) + np.sum(d * x)


def float_into_int_list(x):
    xs = [1, 2, 3]
    xs[0] = x[0] * 3.0
    return xs[0] * x[1]


INTEGERS = [float_into_int_zeros, float_into_arange, float_into_ints_made_from_ints,
            float_into_named_int_dtypes, int_array_made_float, float_into_int_list]


@pytest.mark.parametrize("f", INTEGERS, ids=[f.__name__ for f in INTEGERS])
def test_floats_written_into_integer_arrays(f):
    """(Forward mode kept the tangent NumPy's truncation removes, and reverse mode
    crashed adding a float adjoint into an integer one; a list keeps the float.)"""
    test_writes_into_copies_are_followed(f)


def dtype_from_a_parameter(x, dt):
    a = np.zeros(3, dtype=dt)
    a[0] = x[0] * 7.0  # marker
    return np.sum(a * x[:3])


def test_writes_into_arrays_of_unknown_dtype_are_refused():
    with pytest.raises(s2sad.NotDifferentiableError) as info:
        s2sad.grad(dtype_from_a_parameter)(X.copy(), int)
    assert "cannot tell the dtype of `a`" in info.value.message
    assert "dtype=float" in info.value.hint
    assert info.value.lineno == marker_line(dtype_from_a_parameter)
    with pytest.raises(s2sad.NotDifferentiableError):
        s2sad.jvp(dtype_from_a_parameter, (X.copy(), float), (np.ones(4), 0.0))


def write_into_element_of_list_directly(x):
    lst = [x * 1.0, x * 2.0]
    lst[0][1] = x[2] * 4.0  # marker
    return np.sum(lst[0] * lst[1])


def write_into_slice_of_tuple_element(x):
    t = (x * 1.0, x * 2.0)
    t[0][:] = x * x  # marker
    return np.sum(t[0] * x)


@pytest.mark.parametrize("f", [write_into_element_of_list_directly,
                               write_into_slice_of_tuple_element])
def test_writes_through_an_element_expression_say_what_to_write(f):
    for run in (lambda: s2sad.grad(f)(X.copy()),
                lambda: s2sad.jvp(f, (X.copy(),), (np.ones(4),))):
        with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
            run()
        assert info.value.lineno == marker_line(f)
        assert "put it back" in info.value.hint


# ------------------------------------- lists that grow or shrink after a read


def last_read_in_loop_then_appended(x, y):
    ys = [y, x]
    s = 0.0
    for i in range(3):
        s = s + ys[-1] * ys[-2]
        ys.append(ys[-1] * x)
    return s


def last_named_then_two_appends(x, y):
    ys = [x]
    for i in range(3):
        a = ys[-1]
        ys.append(y)
        ys.append(a * y)
    return ys[-1] * ys[-3]


def grows_in_a_while_loop(x, y):
    ys = [x, y]
    acc = 0.0
    while len(ys) < 6:
        acc = acc + ys[-1] * ys[-2]
        ys.append(ys[-1] * 0.5 + ys[-2] * x)
    return acc


def popped_then_read_last(x, y):
    ys = [y, x, y]
    ys.pop()
    acc = ys[-1]
    return acc * acc * x


def popped_and_appended_in_loop(x, y):
    ys = [x, y, x * y]
    for i in range(2):
        ys.pop()
        ys.append(ys[-1] * x)
    return ys[-1] * ys[0]


def whole_list_read_then_changed(x, y):
    ys = [x, y]
    t = np.sum(np.square(ys))
    ys.pop()
    ys.append(x * 3.0)
    return t * ys[-1]


def whole_list_read_in_loop_then_changed(x, y):
    ys = [x, y]
    acc = 0.0
    for i in range(3):
        acc = acc + np.sum(np.square(ys)) * 0.5
        ys.pop()
        ys.append(acc * x)
    return acc


def norm_of_list_then_changed(x, y):
    ys = [x, y]
    t = np.linalg.norm(ys)
    ys.pop()
    ys.append(x * 3.0)
    return t * ys[-1]


def stacked_then_appended(x, y):
    ys = [x, y]
    t = np.stack(ys)
    ys.append(x * y)
    return np.sum(t * t) * ys[-1]


@pytest.mark.parametrize("f", [last_read_in_loop_then_appended, last_named_then_two_appends,
                               grows_in_a_while_loop, popped_then_read_last,
                               popped_and_appended_in_loop, whole_list_read_then_changed,
                               whole_list_read_in_loop_then_changed,
                               norm_of_list_then_changed, stacked_then_appended])
def test_a_list_read_before_it_grows_or_shrinks(f):
    """The reverse sweep used to recompute ``ys[-1]`` of a loop from the list as the
    forward sweep left it (longer), and a rule reading the whole list (np.square,
    np.stack) read it with the elements appended and popped after the read: wrong
    gradients, or NumPy errors. Forward mode did not pop the tangent list for an
    ``ys.pop()`` whose value is unused."""
    args = (-0.3, 0.7)
    want = [numeric(f, args, i) for i in range(2)]
    got = s2sad.grad(f, wrt=(0, 1))(*args)
    assert np.allclose(got, want, rtol=1e-5, atol=1e-6), (got, want)
    out, pullback = s2sad.vjp(f, *args)
    for _ in range(2):  # (the second call runs the forward sweep again)
        assert np.allclose(pullback(1.0), want, rtol=1e-5, atol=1e-6)
    for k in range(2):
        _, tangent = s2sad.jvp(f, args, tuple(float(i == k) for i in range(2)))
        assert np.isclose(tangent, want[k], rtol=1e-5, atol=1e-6), (k, tangent, want[k])


# ---------------------- lists holding numbers and arrays, elements changed in place


def number_and_array_changed_output_reads_neither(x, s):
    a1 = x[::-1] * 1.0
    lst1 = [0.5, a1]
    lst1[0] += s ** 2
    lst1[1] += np.tanh(x)
    out1 = lst1[1] * lst1[0]
    return -1.25


def number_and_array_changed_output_reads_both(x, s):
    a1 = x[::-1] * 1.0
    lst1 = [0.5, a1]
    lst1[0] += s ** 2
    lst1[1] += np.tanh(x)
    return np.sum(lst1[1] * lst1[0])


def number_and_array_changed_output_reads_the_number(x, s):
    a1 = x[::-1] * 1.0
    lst1 = [0.5, a1]
    lst1[0] += s ** 2
    lst1[1] += np.tanh(x)
    return lst1[0] * s


def number_and_array_changed_output_reads_the_array(x, s):
    a1 = x[::-1] * 1.0
    lst1 = [0.5, a1]
    lst1[0] += s ** 2
    lst1[1] += np.tanh(x)
    return np.sum(lst1[1]) * s


def number_and_array_read_then_replaced(x, s):
    lst1 = [s, x * 1.0]
    b = lst1[0] * lst1[1]
    lst1[0] = s ** 2
    lst1[1] = np.tanh(x) * lst1[0]
    return np.sum(b * lst1[1]) + lst1[0]


def number_and_array_changed_in_a_loop(x, s):
    lst1 = [0.5, x * 1.0]
    acc = 0.0
    for i in range(3):
        lst1[0] += s * lst1[0]
        lst1[1] += np.tanh(x) * lst1[0]
        acc = acc + np.sum(lst1[1] * lst1[0])
    return acc


def number_and_array_changed_in_a_loop_unread(x, s):
    lst1 = [0.5, x * 1.0]
    for i in range(3):
        lst1[0] += s * lst1[0]
        lst1[1] += np.tanh(x) * lst1[0]
    return s * 2.0


def numbers_and_array_written_at_a_run_time_index(x, s):
    lst1 = [0.5, x * 1.0, 2.0]
    for i in range(3):
        lst1[i] = lst1[i] * s
    return np.sum(lst1[1]) + lst1[0] * lst1[2]


def int_and_array_changed(x, s):
    lst1 = [1, x * 1.0]
    lst1[0] += s
    lst1[1] += x
    return lst1[0] * s


def arrays_one_replaced_unread(x, s):
    lst1 = [x * 2.0, x * s]
    lst1[0] = x * 3.0
    return np.sum(lst1[1])


MIXED = [number_and_array_changed_output_reads_neither, number_and_array_changed_output_reads_both,
         number_and_array_changed_output_reads_the_number,
         number_and_array_changed_output_reads_the_array, number_and_array_read_then_replaced,
         number_and_array_changed_in_a_loop, number_and_array_changed_in_a_loop_unread,
         numbers_and_array_written_at_a_run_time_index, int_and_array_changed,
         arrays_one_replaced_unread]


@pytest.mark.parametrize("f", MIXED, ids=[f.__name__ for f in MIXED])
def test_elements_of_lists_of_numbers_and_arrays_changed_in_place(f):
    """The reverse sweep saved a list's element before a write with ``.copy()`` and
    took the slot's adjoint with ``.copy()``, as if every element were an array: a
    float element (or a float zero adjoint) raised AttributeError, and the zero
    adjoint (0.0) of an array element no one read after its write crashed
    `unbroadcast`. A list's slot is rebound, so the element is saved as it is."""
    args = (np.array([0.117, 0.2, 0.3]), 0.346)
    want = [numeric(f, args, i) for i in range(2)]
    for mode in ("reverse", "forward"):
        got = s2sad.grad(f, wrt=(0, 1), mode=mode)(*args)
        for g, w in zip(got, want):
            assert np.allclose(g, w, rtol=1e-6, atol=1e-8), (mode, got, want)
    _, pullback = s2sad.vjp(f, *args)
    for _ in range(2):
        got = pullback(1.0)
        assert all(np.allclose(g, w, rtol=1e-6, atol=1e-8) for g, w in zip(got, want))
    direction = (np.array([0.5, -1.0, 0.25]), 0.75)
    _, tangent = s2sad.jvp(f, args, direction)
    assert np.isclose(tangent, np.dot(want[0], direction[0]) + want[1] * direction[1],
                      rtol=1e-6, atol=1e-8)
    h = s2sad.hessian(f, wrt=1)(*args)
    step = 1e-5
    dg = (s2sad.grad(f, wrt=1)(args[0], args[1] + step)
          - s2sad.grad(f, wrt=1)(args[0], args[1] - step)) / (2 * step)
    assert np.isclose(h, dg, atol=1e-5)


# ------------------- writes judged by what the name may be where they happen


def copy_written_before_a_join_with_a_view(x, w, s):
    u0 = (w.max(axis=0)).copy()
    u0[-1] += 0.4
    if w[1, 2] > 0.3:
        v1 = w[1]
    else:
        v1 = u0
    v2 = v1.copy()
    v2[0] += np.dot(u0, u0)
    return np.sum(v2) * s


def copy_written_before_a_join_in_a_loop(x, w, s):
    u0 = (w.max(axis=0)).copy()
    acc = 0.0
    for i in range(2):
        u0[-1] += 0.4 * s
        if w[1, 2] > 0.3:
            v1 = w[1]
        else:
            v1 = u0
        acc = acc + np.sum(v1 * x)
    return acc * s


def copy_written_after_a_join_with_a_view(x, w, s):
    u0 = (w.max(axis=0)).copy()
    if w[1, 2] > 0.3:
        v1 = w[1]
    else:
        v1 = u0
    u0[-1] += 0.4 * s
    return np.sum(v1 * x) * s + np.sum(u0)


W_ROW_ONE = np.array([[0.6, 1.08, 0.21], [0.0, 1.13, 0.0]])
W_ROW_TWO = np.array([[0.6, 1.08, 0.21], [0.0, 1.13, 0.5]])  # (the other branch)


@pytest.mark.parametrize("w", [W_ROW_ONE, W_ROW_TWO], ids=["view", "copy"])
def test_a_write_before_a_join_is_judged_by_what_the_name_is_there(w):
    """`u0` is only its fresh copy where it is written; the join after it, which
    makes `v1` `u0` or a view of the argument `w`, made the analysis say `u0` "may
    share memory with `w`" (the names of one object were one class, whatever the
    order)."""
    args = (np.array([0.3, 0.1, 0.2]), w, 0.5)
    f = copy_written_before_a_join_with_a_view
    want = [numeric(f, args, i) for i in range(3)]
    for mode in ("reverse", "forward"):
        got = s2sad.grad(f, wrt=(0, 1, 2), mode=mode)(*args)
        assert all(np.allclose(g, v, rtol=1e-6, atol=1e-8) for g, v in zip(got, want)), mode
    directions = (np.array([0.5, -1.0, 0.25]), np.linspace(-1.0, 1.0, 6).reshape(2, 3), 0.75)
    _, tangent = s2sad.jvp(f, args, directions)
    assert np.isclose(tangent, sum(np.sum(g * d) for g, d in zip(want, directions)),
                      rtol=1e-6, atol=1e-8)
    # where the join may give `u0` to `v1` before a write into `u0` that `v1` shows,
    # forward mode follows the one object; reverse mode refuses a name that is
    # different objects on different paths
    for f in (copy_written_before_a_join_in_a_loop, copy_written_after_a_join_with_a_view):
        want = [numeric(f, args, i) for i in range(3)]
        got = s2sad.grad(f, wrt=(0, 1, 2), mode="forward")(*args)
        assert all(np.allclose(g, v, rtol=1e-6, atol=1e-8) for g, v in zip(got, want)), f
        _, tangent = s2sad.jvp(f, args, directions)
        assert np.isclose(tangent, sum(np.sum(g * d) for g, d in zip(want, directions)),
                          rtol=1e-6, atol=1e-8)
        with pytest.raises(s2sad.NotDifferentiableError, match="different paths"):
            s2sad.grad(f, wrt=(0, 1, 2))(*args)


def write_after_a_join_with_a_view(x, w, s):
    u0 = (w.max(axis=0)).copy()
    u0[-1] += 0.4
    if w[1, 2] > 0.3:
        v1 = w[1]
    else:
        v1 = u0
    v1[0] += s  # marker
    return np.sum(v1) * s + np.sum(u0)


def write_after_a_join_with_a_view_second(x, w, s):
    u0 = (w.max(axis=0)).copy()
    if w[1, 2] <= 0.3:
        v1 = u0
    else:
        v1 = w[1]
    v1[0] = v1[0] + s  # marker
    return np.sum(v1) * s + np.sum(u0)


def write_after_a_join_with_an_argument(x, w, s):
    if s > 0:
        v = x
    else:
        v = np.zeros(3)
    v[0] = s * 2.0  # marker
    return np.sum(v) * s


@pytest.mark.parametrize("f,message", [
    (write_after_a_join_with_a_view, "`v1` may share memory with `w`"),
    (write_after_a_join_with_a_view_second, "`v1` may share memory with `w`"),
    (write_after_a_join_with_an_argument, "the argument `x` (`v` may be it)")])
def test_writes_after_a_join_with_a_view_stay_refused_at_their_line(f, message):
    """(The first was refused at `u0`'s write, before the join, for a view `u0`
    never is; with the join's branches the other way round, forward mode wrote into
    the caller's `w` through `v1`: the object class took the freshness of `u0`.)"""
    args = (np.array([0.3, 0.1, 0.2]), W_ROW_ONE.copy(), 0.5)
    directions = (np.ones(3), np.ones((2, 3)), 1.0)
    for run in (lambda: s2sad.grad(f, wrt=(0, 1, 2))(*args),
                lambda: s2sad.grad(f, wrt=(0, 1, 2), mode="forward")(*args),
                lambda: s2sad.jvp(f, args, directions)):
        with pytest.raises(s2sad.NotDifferentiableError) as info:
            run()
        assert message in info.value.message
        assert info.value.lineno == marker_line(f)
    assert np.array_equal(args[1], W_ROW_ONE)


# ------------- a loop-carried array is the array it starts from until the loop rebinds it


def carried_then_start_written(x, n):
    w = x * 1.0
    u = w
    for i in range(n):
        u = u * 0.5 + w[1]
    w[1] = 2.0 * w[0]  # marker
    return np.sum(u) * w[1]


def carried_by_while_then_start_written(x, n):
    w = x * 1.0
    u = w
    k = 0
    while k < n:
        u = u * 0.5 + w[1]
        k += 1
    w[1] = 2.0 * w[0]  # marker
    return np.sum(u) * w[1]


def carried_broken_then_start_written(x, n):
    w = x * 1.0
    u = w
    for i in range(3):
        if i >= n:
            break
        u = u * 0.5 + w[1]
    w[1] = 2.0 * w[0]  # marker
    return np.sum(u) * w[1]


def carried_checkpointed_then_start_written(x, n):
    w = x * 1.0
    u = w
    for i in s2sad.checkpointed(range(n), 2):
        u = u * 0.5 + w[1]
    w[1] = 2.0 * w[0]  # marker
    return np.sum(u) * w[1]


def carried_written_start_read(x, n):
    w = x * 1.0
    u = w
    for i in range(n):
        u = u * 0.5
    u[1] = 3.0 * u[0]  # marker
    return np.sum(w * x) + np.sum(u)


def start_written_in_the_loop(x, n):
    w = x * 1.0
    u = w
    for i in range(n):
        w[0] = w[1] * 2.0  # marker
        u = u * u
    return np.sum(u) + np.sum(w)


def carried_written_in_the_loop(x, n):
    w = x * 1.0
    u = w
    for i in range(n):
        u[1] = u[0] * 2.0  # marker
        u = u * 0.5
    return np.sum(w * x) + np.sum(u)


def loop_hands_over_an_array_then_written(x, n):
    w = x * 1.0
    u = x * 2.0
    for i in range(n):
        u = w
    w[1] = 2.0 * w[0]  # marker
    return np.sum(u * x) * w[1]


CARRIED_REFUSED = [carried_then_start_written, carried_by_while_then_start_written,
                   carried_broken_then_start_written, carried_checkpointed_then_start_written,
                   carried_written_start_read, start_written_in_the_loop,
                   carried_written_in_the_loop, loop_hands_over_an_array_then_written]


@pytest.mark.parametrize("f", CARRIED_REFUSED, ids=[f.__name__ for f in CARRIED_REFUSED])
def test_a_write_into_what_a_carried_array_may_be_is_refused_in_reverse_mode(f):
    """After ``u = w`` and a loop that rebinds `u`, `u` is still `w`'s array where the
    loop ran no iteration (or broke out before rebinding it), all through the first
    iteration, and wherever an exit hands over an existing array: a write into that
    array shows in both names. Reverse mode took `u` for a new array and gave a wrong
    gradient at n = 0 ([4.2, 0.6, 0.6] for [5.4, 0, 0.6]); now it refuses the write
    at its line, and forward mode, whose tangents share as the values do, follows it."""
    x = np.array([0.3, 0.6, 0.9])
    d = np.array([0.5, -1.0, 0.25])
    for n in (0, 1, 2):
        want = numeric(f, (x, n), 0)
        got = s2sad.grad(f, mode="forward")(x.copy(), n)
        assert np.allclose(got, want, rtol=1e-6, atol=1e-8), (n, got, want)
        _, tangent = s2sad.jvp(f, (x.copy(), n), (d, 0))
        assert np.isclose(tangent, np.dot(want, d), rtol=1e-6, atol=1e-8), n
        for run in (lambda: s2sad.grad(f)(x.copy(), n),
                    lambda: s2sad.vjp(f, x.copy(), n)[1](1.0)):
            with pytest.raises(s2sad.NotDifferentiableError) as info:
                run()
            assert info.value.lineno == marker_line(f)
            assert "`u = w.copy()`" in info.value.hint
            assert "carried by a loop" in info.value.message


def carried_start_read_not_written(x, n):
    w = x * 1.0
    u = w
    for i in range(n):
        u = u * 0.5 + w[1]
    return np.sum(u) * w[1]


def start_written_before_the_loop(x, n):
    w = x * 1.0
    w[1] = 2.0 * w[0]
    u = w
    for i in range(n):
        u = u * 0.5 + w[1]
    return np.sum(u) * w[1]


def start_written_after_the_last_read(x, n):
    w = x * 1.0
    u = w
    for i in range(n):
        u = u * 0.5 + w[1]
    s = np.sum(u * u)
    w[1] = 2.0 * w[0]
    return s * w[1]


def start_written_after_rebinding_in_the_loop(x, n):
    w = x * 1.0
    u = w
    for i in range(n):
        u = u * 0.5 + w[1]
        w[1] = 2.0 * w[0]
    return np.sum(u) * w[1]


def carried_copy_then_start_written(x, n):
    w = x * 1.0
    u = w.copy()
    for i in range(n):
        u = u * 0.5 + w[1]
    w[1] = 2.0 * w[0]
    return np.sum(u) * w[1]


def carried_own_array_written(x, n):
    u = np.zeros(3)
    for i in range(n):
        u[0] = x[i] * x[0]
        u = u * 2.0 + x
    return np.sum(u * u)


def carried_read_then_start_written_in_an_outer_loop(x, n):
    w = x * 1.0
    s = 0.0
    for j in range(2):
        u = w
        for i in range(n):
            u = u * 0.5
        s = s + np.sum(u * x)
        w[1] = 2.0 * w[0] + s
    return s


CARRIED_FOLLOWED = [carried_start_read_not_written, start_written_before_the_loop,
                    start_written_after_the_last_read,
                    start_written_after_rebinding_in_the_loop, carried_copy_then_start_written,
                    carried_own_array_written, carried_read_then_start_written_in_an_outer_loop]


@pytest.mark.parametrize("f", CARRIED_FOLLOWED, ids=[f.__name__ for f in CARRIED_FOLLOWED])
def test_carried_arrays_no_write_reaches_through_are_followed(f):
    """(The last one: `u` read in the outer loop is `w` at n = 0, saved on the tape
    and written afterwards; the reverse sweep dropped the write's restore, since it
    did not count `u` as a name of `w`, and read the written values.)"""
    x = np.array([0.3, 0.6, 0.9])
    d = np.array([0.5, -1.0, 0.25])
    for n in (0, 1, 2):
        want = numeric(f, (x, n), 0)
        for options in ({}, {"mode": "forward"}, {"checkpoint": "ctz", "snapshots": 2}):
            got = s2sad.grad(f, **options)(x.copy(), n)
            assert np.allclose(got, want, rtol=1e-6, atol=1e-8), (options, n, got, want)
        got = s2sad.vjp(f, x.copy(), n)[1](1.0)[0]
        assert np.allclose(got, want, rtol=1e-6, atol=1e-8), n
        _, tangent = s2sad.jvp(f, (x.copy(), n), (d, 0))
        assert np.isclose(tangent, np.dot(want, d), rtol=1e-6, atol=1e-8), n
