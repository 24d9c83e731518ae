"""Programs whose lists and tuples hold arrays and numbers that change in place, for
tests/test_mutation.py (and tests/test_hessian.py); it holds no tests.

A list or a tuple holds the very objects put in it: the programs change an array after
putting it in a container, change elements through the container, and read a list
before it grows or shrinks. In a program s2sad refuses, the line that changes the
object ends with ``# marker``: the tests find the line an error must name by that
comment."""

import numpy as np


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


def read_last_then_append(x, y):
    ys = [y, x]
    acc = ys[-1]
    ys.append(y)
    return acc * acc


def read_last_then_append_mixed(x, y):
    ys = [y, x]
    acc = 0.5 * y + 0.5 * ys[-1]
    ys.append(y)
    return acc * acc


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


# ------------------------------------------------- a slice of a list is a new list
# (writing into it changes neither the list it came from nor what that list holds)


def slices_of_a_list_written(x, s):
    a = [x[0] * s, x[1], x[2] * x[0], s]
    b = a[1:3]
    b[0] = b[0] * 3.0 + s
    c = a[::-1]
    c[1] += x[1]
    return a[1] * b[0] + b[1] + sum(c) * a[2]


def slices_of_a_list_of_arrays_written(x, s):
    a = [x * s, x * 2.0]
    b = a[:]
    b[1] = b[1] * 3.0
    return np.sum(a[1]) + np.sum(b[1] * b[0])


def recurrence_states(x):
    # (the adjoint of `hs.append(...)` pops the adjoint list; written into the line
    # that adds into the adjoint of `hs[-1]`, the pop ran after that element was
    # read: one state's adjoint went to the wrong element)
    hs = [x]
    for _ in range(2):
        hs.append(np.tanh(hs[-1]) * 1.5)
    return np.sum(hs[0] * hs[2]) + np.sum(hs[1] * 10.0)
