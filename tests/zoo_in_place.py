"""Programs that change arrays (and lists) in place, for tests/test_mutation.py; it
holds no tests.

The programs write through aliases, views and helpers, into copies and integer arrays,
into elements named in an unpacking, after a join of a copy and a view, and into arrays
a loop carries. In a program s2sad refuses, the line that changes the object ends with
``# marker``: the tests find the line an error must name by that comment (in a helper
the program calls, for `helper_writes_argument` and `helper_appends_to_argument`)."""

import numpy as np

import s2sad


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


def list_insert_squared(x):
    xs = [x[0]]
    xs.insert(0, x[1] * x[1])
    return xs[0] * xs[1]


def list_insert(x):
    xs = [x[0], x[2]]
    xs.insert(-1, x[1])
    return xs[1] * xs[2] + xs[0]


def list_remove(x):
    xs = [x[0], x[1]]
    xs.remove(x[0])  # marker
    return xs[0]


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


def swap_rows_through_views(x):
    A = np.outer(x, x)
    A[0], A[1] = A[1], A[0]  # marker
    return np.sum(A * np.arange(16.0).reshape(4, 4))


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


def dtype_from_a_parameter(x, dt):
    a = np.zeros(3, dtype=dt)
    a[0] = x[0] * 7.0  # marker
    return np.sum(a * x[:3])


def write_into_element_of_list_directly(x):
    lst = [x * 1.0, x * 2.0]
    lst[0][1] = x[2] * 4.0  # marker
    return np.sum(lst[0] * lst[1])


def write_into_slice_of_tuple_element(x):
    t = (x * 1.0, x * 2.0)
    t[0][:] = x * x  # marker
    return np.sum(t[0] * x)


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


def carried_written_from_a_product(x):
    u = x * 1.0
    for k in range(2):
        u[0] = x[k + 1] * u[1]
        u = u * 2.0
    return np.sum(u * x)


# ------------------------------------------------------------ np.add.at


def scatter_forces(x):
    forces = np.zeros(3)
    np.add.at(forces, np.array([0, 2, 2, 1]), x * x)
    return np.sum(forces * np.arange(3.0))


def scatter_read_before(x, v):
    a = np.sin(x)
    s = np.sum(a * a)  # (its reverse reads `a` as it was: the elements go back)
    np.add.at(a, [0, 0, 2], v)
    return s + np.sum(a ** 3)


def scatter_a_number(x, y):
    a = np.cos(x)
    np.add.at(a, np.array([1, 1, 3]), 2.0 * y)
    return np.sum(a * x)


def scatter_rows(x, V):
    A = np.outer(x, x)
    np.add.at(A, np.array([0, 2, 0]), V)
    return np.sum(np.tanh(A) * A)


def scatter_pairs(x, v):
    A = np.outer(x, x[:3])
    np.add.at(A, (np.array([0, 1, 1]), np.array([2, 0, 0])), v)
    return np.sum(A ** 2)


def scatter_slice(x, v):
    a = x * 1.0
    np.add.at(a, slice(1, 3), v[:2])
    return np.sum(a ** 3) + np.sum(x * a)


def scatter_in_a_loop(x, v):
    a = x * 2.0
    for k in range(3):
        np.add.at(a, np.array([k, k + 1, k]), v * a[k])
    return np.sum(a * a)


def message_passing(x, w):
    # a graph network's step: each edge's message added into its target node
    src = np.array([0, 1, 2, 3, 0])
    dst = np.array([1, 2, 3, 0, 2])
    h = np.tanh(x * w)
    for _ in range(3):
        incoming = np.zeros(4)
        np.add.at(incoming, dst, h[src] * w[src])
        h = np.tanh(incoming + x)
    return np.sum(h ** 2)


# ------------------------------------------------------------ values of unknown kind

SETTINGS = {"w": np.array([0.5, -1.0, 2.0])}  # (arrays of a kind the compiler cannot see)


def setting_written_into_a_slice(x, y):
    a = np.zeros(4)
    a[0:2] = SETTINGS["w"][:2] * y  # (its adjoint: the slot's, times w; not their sums')
    return np.sum(a * np.arange(4.0)) + np.sum(a ** 2)


def setting_added_into_a_slice(x, y):
    a = np.zeros(4) + x
    a[1:3] += SETTINGS["w"][1:] * y
    return np.sum(a * np.arange(4.0)) + np.sum(a ** 2)


def setting_written_through_a_mask(x, y):
    a = np.zeros(4) + x
    a[x > 0.4] = SETTINGS["w"] * y
    return np.sum(a * np.arange(4.0)) + np.sum(a ** 2)


def setting_scattered(x, y):
    a = np.zeros(4) + x
    np.add.at(a, [0, 0], SETTINGS["w"][:2] * y)
    return np.sum(a * np.arange(4.0)) + np.sum(a ** 2)


def list_written_into_a_slice(x, y):
    a = np.zeros(4)
    a[0:2] = [x[0], 2.0 * y]  # marker: list into slice
    return np.sum(a * np.arange(4.0)) + np.sum(a ** 2)


def number_plus_setting(x):
    t = x + SETTINGS["w"]  # (x's tangent spreads over the setting's three elements)
    return np.sum(t) + np.mean(SETTINGS["w"] - x)


def written_from_a_setting(x):
    u = (x + SETTINGS["w"]) * 1.0
    u[0] = 2.0 * x  # marker: unseen write
    return np.sum(u * (x + SETTINGS["w"]))


def setting_copy_read_then_written(x):
    u = SETTINGS["w"] * 1.0
    s = np.sum(u * x)  # (its reverse would read `u` after the write below)
    u[0] = 5.0  # marker: unseen write
    return s + np.sum(u) * x


def setting_copy_written_then_read(x):
    u = SETTINGS["w"] * 1.0
    u[0] = 2.0
    return np.sum(u * x)


def setting_made_an_array_then_written(x):
    u = np.array(SETTINGS["w"]) * x
    u[0] = 2.0 * x
    np.add.at(u, [1, 1], x)
    return np.sum(u * u)


def setting_changed_in_place_with_an_alias(x):
    u = SETTINGS["w"] * 1.0
    v = u
    u += x  # marker: v is the same array
    return np.sum(u * v)


def setting_changed_in_place_held_by_a_list(x):
    u = SETTINGS["w"] * x
    keep = [u]
    u *= x  # marker: keep[0] is the same array
    return np.sum(keep[0] * u)


def setting_changed_in_place_without_a_derivative(x):
    u = SETTINGS["w"] * 1.0
    v = u
    u += 1.0  # marker: no derivative passes through it, but v's value changes
    return x * np.sum(v)


def setting_itself_changed_in_place(x):
    u = SETTINGS["w"]
    u += x  # marker: the dict's own array
    return np.sum(u * x)


def setting_accumulated_in_place(x):
    acc = 0.0  # (a number: the first += makes a new array, the next ones change it)
    for k in range(3):
        acc += SETTINGS["w"] * x ** k
    u = SETTINGS["w"] * x
    u += np.sin(u)  # (nothing else holds u)
    w = u
    return np.sum(acc * acc) + np.sum(w * u)


def setting_changed_in_place_after_a_branch(x):
    u = SETTINGS["w"] * x
    if x > 0.5:
        if x > 0.9:  # (not at 0.7: the branches join with a copy of the array `u`)
            u = 0.5 * x
        u += x * x
    return np.sum(u * u)


def setting_held_on_one_branch_then_changed(x):
    u = SETTINGS["w"] * x
    if x > 0.5:
        keep = u
    else:
        keep = u * 1.0
    u += x  # marker: on one path keep is the same array
    return np.sum(u * keep)


def setting_compared_with_a_number(x):
    m = SETTINGS["w"] > x  # (an array of bools, not one)
    both = (SETTINGS["w"] > 0.0) & (x > 0.5)
    return np.sum(m * x ** 2) + np.sum(np.where(both, x ** 3, x))


def setting_as_an_exponent(x):
    # (the derivative's np.where tests `w == 0` elementwise: w is no number)
    return np.sum(x ** (SETTINGS["w"] + 2.0))


def list_times_a_setting(x):
    ys = [x, 2.0 * x, x * x]
    return np.sum(ys * SETTINGS["w"])  # marker: NumPy's product or a repetition


def built_in_sum_of_a_setting(x):
    return sum(SETTINGS["w"] * x) ** 2  # marker: sum of a list or of an array's rows


def setting_replaces_an_array_in_a_loop(x, y):
    v = x  # (then an array of settings: the carried value's kind is not known)
    for i in range(2):
        v = SETTINGS["w"] * np.sum(v * y)
    return np.sum(v * y ** 2)


def setting_replaces_an_unread_array_in_a_loop(x, y):
    v = x
    for i in range(1):
        v = SETTINGS["w"] * 0.5  # (x's adjoint through v is zero: zeros, not 0.0)
    return np.sum(v * y ** 2)


# --------------------------------------- views a function returns in a list, and rows


def split_then_written(x):
    y = x * 1.0
    a, b = np.split(y, 2)
    y[0] = 5.0  # marker
    return np.sum(a * a) + np.sum(b)


def split_list_written_in_a_loop(x):
    y = x * 1.0
    parts = np.split(y, 2)
    for i in range(len(y)):
        y[i] = y[i] ** 2  # marker
    return sum(np.sum(p) for p in parts)


def rows_of_a_comprehension_then_written(x):
    Y = np.outer(x, x)
    rows = [r for r in Y]
    Y[0, 0] = x[1] ** 2  # marker
    return np.sum(rows[0] ** 2)


def meshgrid_without_copy_then_written(x):
    Y = np.stack([x, x * 2.0])
    gx, gy = np.meshgrid(Y[0], Y[1], copy=False)
    Y[0, 0] = x[1] ** 2  # marker
    return np.sum(gx ** 2)


def unpacked_rows_then_written(x):
    Y = np.stack([x, x * x])
    r0, r1 = Y
    Y[0, 0] = x[1] ** 2  # marker
    return np.sum(r0 ** 2) + np.sum(Y)


def split_and_rows_read_only(x):
    Y = np.stack([x, x * x])
    r0, r1 = Y
    a, b = np.split(Y[1] * 1.0, 2)
    rows = [r * 2.0 for r in Y]
    return np.sum(r0 * r1) + np.sum(a * b) + np.sum(rows[1] ** 2)


def rows_unpacked_after_a_write(x):
    Y = np.stack([x, x * x])
    Y[0, 0] = x[1] ** 2
    r0, r1 = Y
    return np.sum(r0 ** 2) + np.sum(r1 * Y[0])


# ------------------------------------------- list arguments changed by their methods


def append_to_argument(xs):
    xs.append(xs[-1] * 2.0)  # marker
    return xs[-1] ** 2 + xs[0]


def pop_from_argument(xs):
    last = xs.pop()  # marker
    return last * last + xs[0]


def extend_a_name_for_the_argument(xs):
    ys = xs
    ys.extend([ys[-1] * 3.0])  # marker
    return ys[-1] * ys[0]


def insert_into_argument(xs):
    xs.insert(0, xs[-1] * 2.0)  # marker
    return xs[0] * xs[1]


def append_to_a_copy_of_the_argument(xs):
    xs = list(xs)
    xs.append(xs[-1] * 2.0)
    last = xs.pop(0)
    return xs[-1] ** 2 + xs[0] * last


# ------------------------------------------ writes through integer arrays and lists
# (an element named twice keeps one value: the others have no derivative)


def index_write_repeated(x):
    y = x * 2.0
    idx = np.array([0, 2, 0])
    y[idx] = x[:3] ** 3
    return np.sum(y * x)


def index_aug_repeated(x):
    y = x.copy()
    y[[1, 3, 1]] += x[[0, 0, 2]] * x[3]
    return np.sum(y * y)


def index_write_number_repeated(x):
    y = x * 1.0
    y[np.array([1, 1, 3])] = x[2] * 3.0
    return np.sum(y * y)


def index_write_distinct_literal(x):
    y = x * x
    y[[0, 2]] = np.sin(x[1:3])
    return np.sum(y * x)


def index_write_rows(x):
    A = np.outer(x, x[:3])
    A[np.array([1, 0, 1])] = x[:3] * x[3]
    return np.sum(A * A)


def index_write_pairs(x):
    A = np.outer(x, x[:3])
    A[np.array([0, 1, 0]), np.array([2, 1, 2])] = x[1:] ** 2
    A[1:3, [0, 0]] = np.stack([x[:2], x[2:]]) * 0.5
    return np.sum(np.tanh(A))


def index_write_in_a_loop(x):
    y = np.zeros(5)
    for k in range(2):
        y[np.array([k, k + 1, k])] = x[k:k + 3] * y[k + 1] + x[k]
    return np.sum(y * y)


def index_write_arange_and_argsort(x):
    y = x * 1.5
    y[np.arange(2)] = x[2:] * x[:2]
    z = y * y
    z[np.argsort(x)] = np.cos(y)
    return np.sum(z * x)


def index_changed_before_the_write(x):
    y = x * 1.0
    idx = np.arange(3)
    idx[2] = 0
    y[idx] = x[1:] ** 2
    return np.sum(y * y)


# --------------------------------- a new array whose tangent may be another's
# (forward mode: ``z = y + b`` with `b` constant has `y`'s tangent as its own; a
# write into `y`, or into `z`, must not change the other's)


def written_after_a_sum_with_a_constant(x):
    b = np.array([0.5, 0.25, -1.0, 2.0])
    y = x * 2.0
    z = y + b
    y[0] = 0.0
    return np.sum(z * z) + np.sum(y * z)


def written_after_a_unit_product(x):
    y = x * 2.0
    z = y * 1.0
    z[1] = 3.0
    return np.sum(z * z) + np.sum(y * y)


def written_after_flatten(x):
    y = np.outer(x, x[:2])
    z = y.flatten()
    y[0, 0] = 0.0
    return np.sum(z * z) + np.sum(y)


def rows_recorded_then_reset(x):
    y = np.outer(x[:2], x) * 2.0
    outs = []
    for i in range(2):
        outs.append(y[i] + 0.5)
        y[i] = 0.0
    return np.sum(np.stack(outs) ** 2) + np.sum(y)


def read_by_a_checkpointed_loop_then_written(w, n):
    # (the adjoint of `a * w` for `w` was `a` itself where the product's adjoint is
    # 1.0; the reverse sweep's restore of `a[1]`, kept for the scheduler's reads of
    # `a`, then changed it)
    a = w * 1.0
    t = 0.0
    for i in s2sad.checkpointed(range(n)):
        t = t * a[0] + 0.5
    a[1] = 5.0
    return np.sum(a * w) + t


def element_read_then_written(x):
    a = x * 1.0
    t = a[0]
    a[0] = 5.0 * a[1]
    return a * t


def elements_swapped(x):
    a = x * 1.0
    a[0], a[1] = a[1], a[0]
    return a * np.array([3.0, 1.0, 0.5, 2.0])


def written_on_one_path_of_a_join(x):
    # (the join makes `b` and `zero` one object; the pass that knew it varied the
    # object under `b`'s name and read it, after the write, under `zero`'s: the
    # element read after the write had no tangent)
    zero = np.zeros_like(x)
    if x[3] > 10.0:
        out = zero
    else:
        b = zero + x * x
        t = b[0]
        b[0] = 0.0
        u = b[1]
        b[1] = u + t
        out = b
    return np.sum(out * x)


def written_after_an_early_return(x):
    a = x * 1.0
    if x[3] > 10.0:
        return 0.0
    a[0] = a[1]
    return np.sum(a * x)


def read_after_a_write_into_a_cast_of_its_dtype(x):
    # (np.float64 of a float64 array is the array itself, not a copy)
    y = x * 2.0
    m = np.float64(y)
    y[0] = 4.0  # marker
    return np.sum(m * x)


# ------------------------ np.add.at judged as the write ``a[i] += v`` it is
# (it skipped the checks on views and arguments: derivatives of the values before
# the add, and the caller's array changed)


def add_at_then_a_view_read(x):
    y = x * 1.0
    z = y[:]
    np.add.at(y, [0], x[1])  # marker
    return np.sum(z * z)


def add_at_into_a_slice(x):
    y = x * 1.0
    np.add.at(y[1:], [0, 0], x[1:3])  # marker
    return np.sum(y * y)


def add_at_into_the_argument(x):
    y = x * 1.0
    np.add.at(x, [0], y[1])  # marker
    return np.sum(x * x)


def unpacked_then_written(x):
    # (jacobian's forward mode unpacked the directions, not the elements: right only
    # where the tangent is symmetric; and the element's tangent was a view the write
    # changed)
    y = x * np.array([1.0, 3.0, 0.5, 2.0]) + x[0]
    a, b, c, d = y
    y[1] = 0.0
    return y * a + b * c - d


def element_written_from_the_argument(x):
    # (the Hessian's tangent of the adjoint written into was np.broadcast_to's
    # read-only view: "assignment destination is read-only")
    y = x * 1.0
    z = y[-1]
    y[0] = x[1]
    return np.sum(np.sin(y * z + np.cos(x)))


def add_at_of_itself(x):
    y = x * 1.0
    np.add.at(y, [0, 1], y[:2] * 0.0 + y[:2])
    np.add.at(y, [0, 1, 2, 3], y)  # marker
    return np.sum(y * y)
