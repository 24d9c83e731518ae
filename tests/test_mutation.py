"""Changes made to lists and arrays in place: followed where s2sad can follow them,
refused at the user's line where it cannot, never a derivative of the wrong values."""

import numpy as np
import pytest

import s2sad
from helpers import central_diff as numeric
import zoo_containers as containers
import zoo_in_place as zoo

X = np.array([0.3, 0.6, 0.7, 0.9])


def agrees_in_every_mode(f, point):
    """`f`'s gradient in both modes, its jvp and its Hessian agree with central
    differences at `point` (a vector of 4), each call given its own copy."""
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


# ------------------------------------------------------------ refused, with the line


REFUSED = [
    (zoo.aug_through_alias, "`y` refers to the same array"),
    (zoo.aug_on_argument, "changes the argument `x` in place"),
    (zoo.aug_on_slice, "cannot tell whether it shares memory"),
    (zoo.aug_on_call_result, "cannot tell whether it shares memory"),
    (zoo.aug_in_loop_with_alias, "`keep` refers to the same array"),
    (zoo.aug_on_list_alias, "`xs` refers to the same list"),
    (zoo.clip_out, "the `out=` argument changes `y` in place"),
    (zoo.ufunc_positional_out, "the output argument of `np.maximum` changes `y`"),
    (zoo.fill, "`.fill()` changes `y` in place"),
    (zoo.copyto, "`np.copyto` changes `y` in place"),
    (zoo.sort_in_place, "`.sort()` changes `y` in place"),
    (zoo.list_remove, "`.remove()` changes `xs` in place"),
    (zoo.helper_writes_argument, "write into the argument `A`"),
    (zoo.helper_appends_to_argument, "appends to the argument `xs`"),
    (zoo.view_from_helper, "changes what `v` shows"),
    (zoo.write_into_itself, "writes `y` into itself"),
    (zoo.add_at_then_a_view_read, "changes what `z` shows"),
    (zoo.add_at_into_a_slice, "may share memory with `y`"),
    (zoo.add_at_into_the_argument, "write into the argument `x`"),
    (zoo.add_at_of_itself, "writes `y` into itself"),
]


def marker_line(f):
    import inspect

    lines, first = inspect.getsourcelines(f)
    for k, line in enumerate(lines):
        if "# marker" in line:
            return first + k
    callee = {"helper_writes_argument": zoo.set_row, "helper_appends_to_argument": zoo.add_square}
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


FOLLOWED = [(zoo.aug_on_own_array, (X,)), (zoo.aug_in_loop, (X,)),
            (zoo.aug_after_branch, (X, 1.0)), (zoo.aug_after_branch, (X, -1.0)),
            (zoo.helper_of_a_written_array, (X,)), (zoo.helper_of_an_indexed_array, (X,)),
            (zoo.helper_of_a_list, (X,)), (zoo.list_insert_squared, (X,)),
            (zoo.list_insert, (X,))]


@pytest.mark.parametrize("f,args", FOLLOWED, ids=[f.__name__ for f, _ in FOLLOWED])
def test_changes_s2sad_follows_give_the_derivative(f, args):
    """(A helper given an array that is also written or read by index, or a list,
    used to lose its part of the gradient.)"""
    got = s2sad.grad(f)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    assert np.allclose(got, numeric(f, args, 0), rtol=1e-6, atol=1e-8)
    direction = np.linspace(-1.0, 1.0, 4)
    _, tangent = s2sad.jvp(f, args, (direction,) + (0.0,) * (len(args) - 1))
    assert np.isclose(tangent, np.dot(got, direction), rtol=1e-9, atol=1e-12)


# -------------------------------------- writes through integer arrays and lists


INDEX_WRITES = [zoo.index_write_repeated, zoo.index_aug_repeated, zoo.index_write_number_repeated,
                zoo.index_write_distinct_literal, zoo.index_write_rows, zoo.index_write_pairs,
                zoo.index_write_in_a_loop, zoo.index_write_arange_and_argsort,
                zoo.index_changed_before_the_write]


@pytest.mark.parametrize("f", INDEX_WRITES, ids=[f.__name__ for f in INDEX_WRITES])
def test_writes_through_integer_indices_keep_the_derivative_of_the_value_kept(f):
    """(Refused once: a repeated index keeps one value, so the reverse sweep may give
    the slot's adjoint to that value only, not to every value written there.)"""
    agrees_in_every_mode(f, X)


TANGENTS_SHARED = [zoo.written_after_a_sum_with_a_constant, zoo.written_after_a_unit_product,
                   zoo.written_after_flatten, zoo.rows_recorded_then_reset,
                   # (the Hessian's pass over the gradient, which joins two adjoint
                   # arrays after the early return: see the test below)
                   zoo.written_after_an_early_return, zoo.element_written_from_the_argument]


@pytest.mark.parametrize("f", TANGENTS_SHARED, ids=[f.__name__ for f in TANGENTS_SHARED])
def test_a_write_changes_no_other_arrays_tangent(f):
    """(Forward mode gave ``z = y + b`` `y`'s tangent itself: the write into `y`
    zeroed part of `z`'s, and the gradient, jvp and Hessian lost it.)"""
    agrees_in_every_mode(f, X)


def test_the_adjoint_of_an_append_pops_before_the_last_element_is_added_into():
    """(``hs.append(np.tanh(hs[-1]))``: the pop of the append's adjoint was written
    into ``hs_bar[-1] += ...``, which reads its target first: the state's adjoint
    went to the element that was last before the pop.)"""
    agrees_in_every_mode(containers.recurrence_states, X)


@pytest.mark.parametrize("checkpoint", [None, "ctz", "binomial"])
def test_an_adjoint_is_not_an_array_a_restore_changes(checkpoint):
    f = zoo.read_by_a_checkpointed_loop_then_written
    w = np.array([0.3, -0.6])
    for n in (0, 3):
        expected = numeric(f, (w, n), 0)
        assert np.allclose(s2sad.grad(f, checkpoint=checkpoint)(w, n), expected, rtol=1e-6)


@pytest.mark.parametrize("f", [zoo.element_read_then_written, zoo.elements_swapped,
                               zoo.unpacked_then_written])
@pytest.mark.parametrize("mode", ["auto", "forward"])
def test_an_element_read_before_a_write_keeps_its_value_in_every_direction(f, mode):
    """(`jacobian` carries the directions in one pass: an element's tangent was a
    column of the array's, a view the write then changed.)"""
    assert np.allclose(s2sad.jacobian(f, mode=mode)(X.copy()),
                       s2sad.jacobian(f, mode="reverse")(X.copy()), rtol=1e-12, atol=1e-12)
    assert np.allclose(s2sad.jacobian(f, mode="reverse")(X.copy()),
                       np.array([numeric(lambda x: f(x)[k], (X,), 0) for k in range(4)]),
                       rtol=1e-6, atol=1e-8)


def test_an_element_read_after_a_write_into_a_joined_object_keeps_its_tangent():
    """(A join made two arrays one object; the pass that knew it varied the object
    under one name and read it, after the write, under the other: the element read
    after the write had no tangent. Reverse mode refuses such a join.)"""
    f = zoo.written_on_one_path_of_a_join
    expected = numeric(f, (X.copy(),), 0)
    assert np.allclose(s2sad.grad(f, mode="forward")(X.copy()), expected, rtol=1e-6, atol=1e-8)
    direction = np.linspace(-1.0, 1.0, 4)
    assert np.isclose(s2sad.jvp(f, (X.copy(),), (direction,))[1], np.dot(expected, direction))


def test_a_write_through_an_index_that_cannot_repeat_reads_no_mask():
    """Distinct literals, ``np.arange(n)`` and ``np.argsort`` of a vector name each
    element once: the slot's adjoint is the value's, as a person would write it;
    an index that may repeat, or one changed after it was made, asks `kept_slots`."""
    def text(f):
        return s2sad.source(f, example=(X.copy(),))

    assert "kept_slots" not in text(zoo.index_write_distinct_literal)
    assert "kept_slots" not in text(zoo.index_write_arange_and_argsort)
    for f in (zoo.index_write_repeated, zoo.index_aug_repeated, zoo.index_write_rows,
              zoo.index_changed_before_the_write):
        assert "kept_slots(" in text(f), f.__name__


# ---------------------------------------------------------- copies and views
# (`x.flatten()` and `x.astype(float)` always copy, so writing into them is a write
# into an array of the function's own; `ravel`, `reshape`, `.T`, slices, `np.asarray`
# of an array and `astype(copy=False)` may be the array itself)


COPIES = [zoo.write_into_flatten, zoo.write_into_astype, zoo.write_into_astype_of_ints,
          zoo.astype_int_is_constant, zoo.write_into_asarray_of_a_list, zoo.write_into_sorted,
          zoo.write_into_floor]


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
    if f is zoo.write_into_asarray_of_a_list:
        return  # (second derivatives stop at the list's adjoint, `list(y_bar)`)
    h = s2sad.hessian(f)(X.copy())
    step = 1e-5
    numeric_h = np.array([(s2sad.grad(f)(X + step * e) - s2sad.grad(f)(X - step * e)) / (2 * step)
                          for e in np.eye(4)])
    assert np.allclose(h, numeric_h, atol=1e-4)


VIEWS = [(zoo.write_into_ravel, "may share memory with `A`"),
         (zoo.write_into_reshape, "may share memory with `A`"),
         (zoo.write_into_transpose, "may share memory with `A`"),
         (zoo.write_into_asarray_of_an_array, "may share memory with `y`"),
         (zoo.write_into_astype_without_copy, "may share memory with `y`"),
         (zoo.view_read_after_write_into_its_array, "changes what `z` shows"),
         (zoo.write_into_what_a_rule_returns, "may share memory with `y`"),
         # (these gave wrong derivatives: np.split's pieces, the rows a loop or an
         # unpacking takes and np.meshgrid(copy=False)'s grids were taken for copies)
         (zoo.split_then_written, "`y` in place after it was put into a list"),
         (zoo.split_list_written_in_a_loop, "`y` in place after it was put into a list"),
         (zoo.rows_of_a_comprehension_then_written, "(`rows` may show it)"),
         (zoo.meshgrid_without_copy_then_written, "`Y` in place after it was put into a list"),
         (zoo.unpacked_rows_then_written, "changes what `r0` shows"),
         (zoo.read_after_a_write_into_a_cast_of_its_dtype, "changes what `m` shows")]


@pytest.mark.parametrize("f,message", VIEWS, ids=[f.__name__ for f, _ in VIEWS])
def test_writes_through_possible_views_are_refused(f, message):
    """(A function with a rule of the user's may hand back the array it is given.)"""
    s2sad.register_rule(zoo.same, forward=zoo.same_forward)
    test_refused_at_the_line_that_changes_the_object(f, message)


# ------------------------------------------------- elements in an unpacking
# (Python computes the whole value first, then assigns the targets from left to
# right, each element's index when its turn comes)


UNPACKED = [zoo.swap_in_a_list, zoo.bubble_sort_an_array, zoo.unpack_a_tuple_into_elements,
            zoo.element_then_its_index, zoo.index_then_its_element, zoo.chained_writes,
            zoo.swap_rows_copied]


@pytest.mark.parametrize("f", UNPACKED, ids=[f.__name__ for f in UNPACKED])
@pytest.mark.parametrize("point", [X, X[::-1].copy()], ids=["sorted", "reversed"])
def test_elements_written_by_an_unpacking(f, point):
    """(Writing an element in an unpacking or a chained assignment was refused.)"""
    agrees_in_every_mode(f, point)


def test_swapping_rows_through_views_is_refused():
    """`A[1]` is a view: NumPy copies row 1 into row 0, then row 0 (now row 1's
    values) into row 1."""
    test_refused_at_the_line_that_changes_the_object(zoo.swap_rows_through_views,
                                                     "`A[0], A[1] = A[1], A[0]` does not swap")


# ------------------------------------------------- objects held by containers
# (a list or a tuple holds the very array put in it: a change made in place to the
# array afterwards shows through the container and what is taken out of it)


HELD = [(containers.multiply_under_a_view_of_an_element, "(`v` may show it)"),
        (containers.add_into_element_listed_in_a_loop, "refers to the same object"),
        (containers.multiply_after_listing, "`y` in place after it was put into a list"),
        (containers.write_after_append, "`y` in place after it was put into a list"),
        (containers.add_after_packing, "(`t` may show it)"),
        (containers.write_after_unpacking, "`y` in place after it was put into a list"),
        (containers.write_after_a_call_took_it, "`y` in place after it was put into a list"),
        (containers.write_after_the_list_was_read, "(`lst` may show it)"),
        (containers.write_next_iteration, "(`lst` may show it)"),
        (containers.accumulate_into_listed, "(`hist` may show it)"),
        (containers.write_carried_after_listing, "(`traj` may show it)"),
        (containers.write_first_value_of_carried, "(`lst` may show it)"),
        (containers.append_to_listed_list, "the list `inner` in place"),
        (containers.add_into_aliased_element, "`y` refers to the same object"),
        (containers.add_into_repeated_element, "refers to the same object"),
        (containers.add_into_element_listed_twice, "refers to the same object"),
        (containers.add_into_element_taken_before, "`a` refers to the same object"),
        (containers.add_into_argument_element, "cannot tell whether it is shared"),
        (containers.write_into_element, "`a` is an element of `lst`"),
        (containers.write_into_element_of_tuple, "`a` is an element of `t`")]


@pytest.mark.parametrize("f,message", HELD, ids=[f.__name__ for f, _ in HELD])
def test_changes_to_objects_containers_hold_are_refused(f, message):
    """(These gave wrong derivatives in both modes: the container kept the values
    from before the change, or `lst[0] += x` replaced the element rather than
    changing the array `y` also names.)"""
    test_refused_at_the_line_that_changes_the_object(f, message)


HELD_OK = [zoo.split_and_rows_read_only, zoo.rows_unpacked_after_a_write,
           containers.rows_made_each_iteration, containers.history_of_copies, containers.trajectory,
           containers.add_into_own_element, containers.add_into_element_in_loop,
           containers.write_before_listing, containers.change_a_copy_and_put_it_back,
           containers.rebind_after_listing, containers.add_into_elements_appended_in_a_loop]


@pytest.mark.parametrize("f", HELD_OK, ids=[f.__name__ for f in HELD_OK])
def test_containers_of_objects_changed_safely(f):
    test_writes_into_copies_are_followed(f)


def test_a_written_carried_array_has_a_tangent_of_its_own():
    """`x * 1.0`'s tangent is `x_dot` itself; the loop writes into the array it
    starts with, and so wrote into the caller's tangent."""
    direction = np.linspace(-1.0, 1.0, 4)
    given = direction.copy()
    _, tangent = s2sad.jvp(zoo.carried_written_from_a_product, (X.copy(),), (given,))
    assert np.array_equal(given, direction)
    expected = numeric(zoo.carried_written_from_a_product, (X.copy(),), 0)
    assert np.isclose(tangent, np.dot(expected, direction), rtol=1e-6, atol=1e-8)
    test_writes_into_copies_are_followed(zoo.carried_written_from_a_product)


# ------------------------------------------------------- integer arrays
# (NumPy truncates a float written into an integer array: the result is piecewise
# constant in the value, so no derivative passes through the write)


INTEGERS = [zoo.float_into_int_zeros, zoo.float_into_arange, zoo.float_into_ints_made_from_ints,
            zoo.float_into_named_int_dtypes, zoo.int_array_made_float, zoo.float_into_int_list]


@pytest.mark.parametrize("f", INTEGERS, ids=[f.__name__ for f in INTEGERS])
def test_floats_written_into_integer_arrays(f):
    """(Forward mode kept the tangent NumPy's truncation removes, and reverse mode
    crashed adding a float adjoint into an integer one; a list keeps the float.)"""
    test_writes_into_copies_are_followed(f)


def test_writes_into_arrays_of_unknown_dtype_are_refused():
    with pytest.raises(s2sad.NotDifferentiableError) as info:
        s2sad.grad(zoo.dtype_from_a_parameter)(X.copy(), int)
    assert "cannot tell the dtype of `a`" in info.value.message
    assert "dtype=float" in info.value.hint
    assert info.value.lineno == marker_line(zoo.dtype_from_a_parameter)
    with pytest.raises(s2sad.NotDifferentiableError):
        s2sad.jvp(zoo.dtype_from_a_parameter, (X.copy(), float), (np.ones(4), 0.0))


@pytest.mark.parametrize("f", [zoo.write_into_element_of_list_directly,
                               zoo.write_into_slice_of_tuple_element])
def test_writes_through_an_element_expression_say_what_to_write(f):
    for run in (lambda: s2sad.grad(f)(X.copy()),
                lambda: s2sad.jvp(f, (X.copy(),), (np.ones(4),))):
        with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
            run()
        assert info.value.lineno == marker_line(f)
        assert "put it back" in info.value.hint


# ------------------------------------- lists that grow or shrink after a read


@pytest.mark.parametrize("f", [containers.last_read_in_loop_then_appended,
                               containers.last_named_then_two_appends,
                               containers.grows_in_a_while_loop, containers.popped_then_read_last,
                               containers.popped_and_appended_in_loop,
                               containers.whole_list_read_then_changed,
                               containers.whole_list_read_in_loop_then_changed,
                               containers.norm_of_list_then_changed,
                               containers.stacked_then_appended])
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


MIXED = [containers.number_and_array_changed_output_reads_neither,
         containers.number_and_array_changed_output_reads_both,
         containers.number_and_array_changed_output_reads_the_number,
         containers.number_and_array_changed_output_reads_the_array,
         containers.number_and_array_read_then_replaced,
         containers.number_and_array_changed_in_a_loop,
         containers.number_and_array_changed_in_a_loop_unread,
         containers.numbers_and_array_written_at_a_run_time_index, containers.int_and_array_changed,
         containers.arrays_one_replaced_unread]


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


SLICES = [containers.slices_of_a_list_written, containers.slices_of_a_list_of_arrays_written]


@pytest.mark.parametrize("f", SLICES, ids=[f.__name__ for f in SLICES])
def test_a_slice_of_a_list_is_a_new_list_to_write_into(f):
    """(Writing into ``b = a[1:3]`` was refused: `b` was taken for an element of `a`.)"""
    args = (np.array([0.117, 0.2, 0.3]), 0.346)
    want = [numeric(f, args, i) for i in range(2)]
    got = s2sad.grad(f, wrt=(0, 1))(*args)
    for g, w in zip(got, want):
        assert np.allclose(g, w, rtol=1e-6, atol=1e-8), (got, want)
    direction = (np.array([0.5, -1.0, 0.25]), 0.75)
    _, tangent = s2sad.jvp(f, args, direction)
    assert np.isclose(tangent, np.dot(got[0], direction[0]) + got[1] * direction[1],
                      rtol=1e-9, atol=1e-12)


# ------------------- writes judged by what the name may be where they happen


W_ROW_ONE = np.array([[0.6, 1.08, 0.21], [0.0, 1.13, 0.0]])
W_ROW_TWO = np.array([[0.6, 1.08, 0.21], [0.0, 1.13, 0.5]])  # (the other branch)


@pytest.mark.parametrize("w", [W_ROW_ONE, W_ROW_TWO], ids=["view", "copy"])
def test_a_write_before_a_join_is_judged_by_what_the_name_is_there(w):
    """`u0` is only its fresh copy where it is written; the join after it, which
    makes `v1` `u0` or a view of the argument `w`, made the analysis say `u0` "may
    share memory with `w`" (the names of one object were one class, whatever the
    order)."""
    args = (np.array([0.3, 0.1, 0.2]), w, 0.5)
    f = zoo.copy_written_before_a_join_with_a_view
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
    for f in (zoo.copy_written_before_a_join_in_a_loop, zoo.copy_written_after_a_join_with_a_view):
        want = [numeric(f, args, i) for i in range(3)]
        got = s2sad.grad(f, wrt=(0, 1, 2), mode="forward")(*args)
        assert all(np.allclose(g, v, rtol=1e-6, atol=1e-8) for g, v in zip(got, want)), f
        _, tangent = s2sad.jvp(f, args, directions)
        assert np.isclose(tangent, sum(np.sum(g * d) for g, d in zip(want, directions)),
                          rtol=1e-6, atol=1e-8)
        with pytest.raises(s2sad.NotDifferentiableError, match="different paths"):
            s2sad.grad(f, wrt=(0, 1, 2))(*args)


@pytest.mark.parametrize("f,message", [
    (zoo.write_after_a_join_with_a_view, "`v1` may share memory with `w`"),
    (zoo.write_after_a_join_with_a_view_second, "`v1` may share memory with `w`"),
    (zoo.write_after_a_join_with_an_argument, "the argument `x` (`v` may be it)")])
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


CARRIED_REFUSED = [zoo.carried_then_start_written, zoo.carried_by_while_then_start_written,
                   zoo.carried_broken_then_start_written,
                   zoo.carried_checkpointed_then_start_written, zoo.carried_written_start_read,
                   zoo.start_written_in_the_loop, zoo.carried_written_in_the_loop,
                   zoo.loop_hands_over_an_array_then_written]


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


CARRIED_FOLLOWED = [zoo.carried_start_read_not_written, zoo.start_written_before_the_loop,
                    zoo.start_written_after_the_last_read,
                    zoo.start_written_after_rebinding_in_the_loop,
                    zoo.carried_copy_then_start_written, zoo.carried_own_array_written,
                    zoo.carried_read_then_start_written_in_an_outer_loop]


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


def test_a_new_object_made_in_each_turn_of_a_loop_stays_one_per_turn():
    """A list, or an array written into, made anew on each turn from values the loop
    does not change, is not moved out of the loop: one object for every turn would
    carry a turn's appends or writes into the next (the value and the gradient were
    wrong)."""
    def written(x):
        acc = 0.0
        for _ in range(3):
            t = x * 2.0
            t[0] = t[0] + acc
            acc = acc + np.sum(t)
        return acc

    def appended(x, y):
        acc = x
        ys = [y, x]
        for _ in range(len(ys)):
            halves = []
            for v in ys:
                halves.append(v * 0.5)
            for i, a in enumerate(halves):
                acc = acc + 0.125 * i * a - a * a
        return acc

    x = np.array([0.3, 0.5])
    value, g = s2sad.value_and_grad(written)(x)
    assert value == pytest.approx(written(x.copy())) and g == pytest.approx([14.0, 14.0])
    value, g = s2sad.value_and_grad(appended)(0.6, 0.4)
    assert value == pytest.approx(appended(0.6, 0.4))
    eps = 1e-6
    assert g == pytest.approx((appended(0.6 + eps, 0.4) - appended(0.6 - eps, 0.4)) / (2 * eps),
                              rel=1e-6)


def test_a_write_into_an_array_of_unknown_kind_is_followed_or_refused():
    """An array made by ``np.zeros_like`` of a value of unknown kind (popped from a
    list of values of several kinds) is still an array: the names `dup` gives it are
    one object, so what a slice write puts in reaches its later reads, or the write is
    refused where its dtype decides whether a derivative passes (an int array
    truncates); the gradient was silently zeros."""
    def zeros_of_a_popped_value(x):
        stack = [np.concatenate([x * 2.0, x[1:2]]), None]
        stack.pop()
        t = stack.pop()
        t_bar = np.zeros_like(t)
        t_bar[1:] = t_bar[1:] + x * 2.0
        return np.sum(t_bar * t_bar)

    def zeros_of_an_array(x):
        stack = [np.concatenate([x * 2.0, x[1:2]])]
        t = np.asarray(stack.pop(), dtype=float)
        t_bar = np.zeros_like(t)
        t_bar[1:] = t_bar[1:] + x * 2.0
        return np.sum(t_bar * t_bar)

    def into_the_popped_value(x):
        stack = [np.concatenate([x * 2.0, x[1:2]]), None]
        stack.pop()
        t = stack.pop()
        t[1:] = t[1:] + x * 2.0
        return np.sum(t * t)

    x = np.array([0.1, 0.2, -0.3])
    with pytest.raises(s2sad.S2SADError, match="dtype of `t_bar`"):
        s2sad.grad(zeros_of_a_popped_value)(x)
    with pytest.raises(s2sad.S2SADError, match="`t` is an element of `stack`"):
        s2sad.grad(into_the_popped_value)(x)
    assert s2sad.grad(zeros_of_an_array)(x) == pytest.approx(
        numeric(zeros_of_an_array, (x,), 0), rel=1e-6)


# ------------------------------------------------------------ np.add.at

SCATTERS = [
    (zoo.scatter_read_before, (4,), (3,)),
    (zoo.scatter_a_number, (5,), ()),
    (zoo.scatter_rows, (4,), (3, 4)),
    (zoo.scatter_pairs, (4,), (3,)),
    (zoo.scatter_slice, (4,), (3,)),
    (zoo.scatter_in_a_loop, (5,), (3,)),
    (zoo.message_passing, (4,), (4,)),
]


def _scatter_point(shapes):
    rng = np.random.default_rng(3)
    return tuple(rng.normal(size=s) if s else 0.7 for s in shapes)


@pytest.mark.parametrize("f,x_shape,v_shape", SCATTERS, ids=[c[0].__name__ for c in SCATTERS])
def test_np_add_at_in_reverse_mode(f, x_shape, v_shape):
    # an index named twice adds twice; what the reverse sweep reads of the array
    # before the call is what it held then
    args = _scatter_point([x_shape, v_shape])
    before = [np.copy(a) for a in args]
    for options in ({}, {"mode": "forward"}, {"checkpoint": "binomial"}):
        got = s2sad.grad(f, wrt=(0, 1), **options)(*args)
        for i in range(2):
            assert np.allclose(got[i], numeric(f, args, i), rtol=1e-6, atol=1e-8), options
    assert all(np.array_equal(a, b) for a, b in zip(args, before))
    value, _ = s2sad.value_and_grad(f, wrt=(0, 1))(*args)
    assert value == pytest.approx(f(*args))
    # the Hessian: forward mode over the gradient code, whose sweeps put elements back
    grad_x = s2sad.grad(f, wrt=0)
    h = 1e-5
    columns = [(grad_x(args[0] + h * e, args[1]) - grad_x(args[0] - h * e, args[1])) / (2 * h)
               for e in np.eye(args[0].size).reshape(-1, *args[0].shape)]
    assert np.allclose(s2sad.hessian(f, wrt=0)(*args).reshape(args[0].size, -1),
                       np.array(columns).reshape(args[0].size, -1).T, rtol=1e-4, atol=1e-6)


def test_np_add_at_saves_what_it_adds_into_only_where_the_reverse_sweep_reads_it():
    import re

    source = s2sad.source(zoo.scatter_read_before, wrt=(0, 1),
                          example=_scatter_point([(4,), (3,)]))
    saved = re.search(r"(\w+_old) = a\[(\w+)\]\n", source)
    assert saved, source
    assert f"a[{saved[2]}] = {saved[1]}\n" in source, source  # (put back in the reverse)
    quiet = s2sad.source(zoo.scatter_a_number, wrt=(0, 1), example=_scatter_point([(5,), ()]))
    assert "_old" not in quiet, quiet
    # (what reads the array after the restore reads only its shape: unbroadcast of an
    # adjoint to it, zeros like it)
    shapes = s2sad.source(zoo.message_passing, wrt=(0, 1), example=_scatter_point([(4,), (4,)]))
    assert "unbroadcast(" in shapes and "_old" not in shapes, shapes


UNKNOWN_KIND_WRITES = [zoo.setting_written_into_a_slice, zoo.setting_added_into_a_slice,
                       zoo.setting_written_through_a_mask, zoo.setting_scattered]


@pytest.mark.parametrize("f", UNKNOWN_KIND_WRITES, ids=lambda f: f.__name__)
def test_an_array_of_unknown_kind_written_into_a_slot_gets_the_slots_adjoint(f):
    # (an array s2sad cannot see the kind of was taken for a number: its adjoint was the
    # sum of the slot's, and the gradient silently wrong)
    args = (X, 0.6)
    got = s2sad.grad(f, wrt=(0, 1))(*args)
    for i in range(2):
        assert np.allclose(got[i], numeric(f, args, i), rtol=1e-6, atol=1e-8)
    assert s2sad.jvp(f, args, (np.ones(4), 1.0))[1] == pytest.approx(
        float(np.sum(got[0]) + got[1]), rel=1e-9)


def test_a_list_of_values_written_into_an_array_is_refused_in_reverse_mode():
    f = zoo.list_written_into_a_slice
    with pytest.raises(s2sad.NotDifferentiableError) as info:
        s2sad.grad(f, wrt=(0, 1))(X, 0.6)
    assert "a list or a tuple of values into an array" in info.value.message
    assert "np.array([...])" in info.value.hint
    assert info.value.lineno == marker_line(f)
    want = sum(numeric(f, (X, 0.6), 0)) + numeric(f, (X, 0.6), 1)
    assert s2sad.jvp(f, (X, 0.6), (np.ones(4), 1.0))[1] == pytest.approx(want, rel=1e-6)


UNSEEN_CHANGES = [
    (zoo.written_from_a_setting, "cannot tell what `u` is"),
    (zoo.setting_copy_read_then_written, "cannot tell what `u` is"),
    (zoo.setting_changed_in_place_with_an_alias, "may change `u` in place"),
    (zoo.setting_changed_in_place_held_by_a_list, "may change `u` in place"),
    (zoo.setting_changed_in_place_without_a_derivative, "may change `u` in place"),
    (zoo.setting_itself_changed_in_place, "may change `u` in place"),
    (zoo.setting_held_on_one_branch_then_changed, "may change `u` in place"),
]


@pytest.mark.parametrize("f,message", UNSEEN_CHANGES, ids=[f.__name__ for f, _ in UNSEEN_CHANGES])
def test_a_change_in_place_of_a_value_of_unknown_kind_is_refused_where_it_matters(f, message):
    # (which names share such a value's object is not known: the derivative read a
    # written value as if unchanged, 7.4 and 12.0 where central differences give 8.6
    # and 7.5; and ``u += x`` became a new `u` while `v`, the list or the dict still
    # held the old one: 1.5 where central differences give 7.2, or 4.5 for ``u +=
    # 1.0``, through which no derivative passes)
    for mode in ("reverse", "forward"):
        with pytest.raises(s2sad.NotDifferentiableError) as info:
            s2sad.grad(f, mode=mode)(0.7)
        assert message in info.value.message
        assert "np.array(...)" in info.value.hint
        assert info.value.lineno == marker_line(f)


@pytest.mark.parametrize("f", [zoo.number_plus_setting, zoo.setting_copy_written_then_read,
                               zoo.setting_made_an_array_then_written,
                               zoo.setting_accumulated_in_place,
                               zoo.setting_changed_in_place_after_a_branch,
                               zoo.setting_compared_with_a_number, zoo.setting_as_an_exponent],
                         ids=lambda f: f.__name__)
def test_values_of_unknown_kind_in_both_modes_and_in_hessians(f):
    # (the tangent of x + w, w an array of a kind the compiler cannot see, was x's
    # own: one number where the sum reads three; ``w > x`` was taken for one bool: the
    # gradient of a number was an array; and the Hessian of ``x ** (w + 2.0)`` raised
    # inside the derivative, whose rule for numbers tested the truth of ``w == 0``)
    want = numeric(f, (0.7,), 0)
    assert s2sad.grad(f)(0.7) == pytest.approx(want, rel=1e-6)
    assert s2sad.grad(f, mode="forward")(0.7) == pytest.approx(want, rel=1e-6)
    assert s2sad.jvp(f, (0.7,), (1.0,))[1] == pytest.approx(want, rel=1e-6)
    h = 1e-4
    second = (numeric(f, (0.7 + h,), 0) - numeric(f, (0.7 - h,), 0)) / (2 * h)
    assert s2sad.hessian(f)(0.7) == pytest.approx(second, rel=1e-4)


def test_a_list_times_a_value_of_unknown_kind_is_refused():
    # (taken for a repetition: 4.4 where central differences give 1.3)
    f = zoo.list_times_a_setting
    with pytest.raises(s2sad.NoRuleError) as info:
        s2sad.grad(f)(0.7)
    assert "a list and a value whose kind s2sad cannot see" in info.value.message
    assert "np.asarray(...)" in info.value.hint and "int(...)" in info.value.hint
    assert info.value.lineno == marker_line(f)


def test_the_built_in_sum_of_a_value_of_unknown_kind():
    # (its reverse added into a list's adjoint that did not exist: a NameError inside
    # the derivative)
    f = zoo.built_in_sum_of_a_setting
    with pytest.raises(s2sad.NotDifferentiableError) as info:
        s2sad.grad(f)(0.7)
    assert "built-in sum()" in info.value.message and "np.sum" in info.value.hint
    assert info.value.lineno == marker_line(f)
    want = numeric(f, (0.7,), 0)
    assert s2sad.grad(f, mode="forward")(0.7) == pytest.approx(want, rel=1e-6)


@pytest.mark.parametrize("f", [zoo.setting_replaces_an_array_in_a_loop,
                               zoo.setting_replaces_an_unread_array_in_a_loop],
                         ids=lambda f: f.__name__)
def test_a_carried_value_of_unknown_kind_gets_an_adjoint_of_its_structure(f):
    # (the zero adjoint of the value a loop overwrote was 0.0: the gradient of an
    # array argument came back a float, with and without checkpointing)
    args = (np.array([0.1, 0.2, 0.3]), np.array([0.4, -0.3, 0.8]))
    for options in ({}, {"checkpoint": "binomial"}, {"mode": "forward"}):
        got = s2sad.grad(f, wrt=(0, 1), **options)(*args)
        for i in range(2):
            assert isinstance(got[i], np.ndarray) and got[i].shape == (3,), (options, got)
            assert np.allclose(got[i], numeric(f, args, i), rtol=1e-6, atol=1e-8), options
    y, h = args[1], 1e-4
    columns = [(numeric(f, (args[0], y + h * e), 1) - numeric(f, (args[0], y - h * e), 1))
               / (2 * h) for e in np.eye(3)]
    assert np.allclose(s2sad.hessian(f, wrt=1)(*args), np.array(columns).T, rtol=1e-4,
                       atol=1e-5)


LIST_ARGUMENT = [zoo.append_to_argument, zoo.pop_from_argument,
                 zoo.extend_a_name_for_the_argument, zoo.insert_into_argument]


@pytest.mark.parametrize("f", LIST_ARGUMENT, ids=[f.__name__ for f in LIST_ARGUMENT])
def test_a_list_argument_changed_by_its_methods_is_refused(f):
    """(Forward mode ran the function once per input number, each pass changing the
    caller's list again: wrong numbers, and wrong shapes from jacobian.)"""
    xs = [0.3, 1.2, -0.7]
    for make in (lambda: s2sad.grad(f), lambda: s2sad.grad(f, mode="forward"),
                 lambda: s2sad.jacobian(f), lambda: s2sad.hessian(f)):
        with pytest.raises(s2sad.NotDifferentiableError) as info:
            make()(xs)
        assert "the caller's list would change" in info.value.message
        assert info.value.lineno == marker_line(f)
        assert xs == [0.3, 1.2, -0.7]


def test_a_copy_of_a_list_argument_may_change():
    f = zoo.append_to_a_copy_of_the_argument
    xs = [0.3, 1.2, -0.7]
    want = [numeric(lambda v, k=k: f(xs[:k] + [v] + xs[k + 1:]), (xs[k],), 0) for k in range(3)]
    for mode in ("reverse", "forward"):
        assert np.allclose(s2sad.grad(f, mode=mode)(xs), want, rtol=1e-6)
    assert np.allclose(s2sad.jacobian(f)(xs), want, rtol=1e-6)
    assert xs == [0.3, 1.2, -0.7]


def _rows_by_index(xs):
    rows = [[] for _ in range(2)]
    for i, x in enumerate(xs):
        rows[i % 2].append(x * x)
    return sum(rows[0]) * 2.0 + sum(rows[1])


def _rows_by_loop(xs):
    rows = [[], []]
    for x in xs:
        for r in rows:
            r.append(x)
    return sum(rows[0]) + sum(rows[1]) * 3.0


def _one_list_twice(x, y):
    a = [x, y]
    c = [a, a]
    c[0].append(y * 3)
    return sum(a)


def _popped_through_its_holder(x, y):
    a = [x, y]
    c = [a, a]
    c[1].pop()
    return sum(a) + len(c[0])


@pytest.mark.parametrize("f,args", [(_rows_by_index, ([0.5, 1.5, -0.7],)),
                                    (_rows_by_loop, ([0.5, 1.5, -0.7],)),
                                    (_one_list_twice, (0.7, 1.3)),
                                    (_popped_through_its_holder, (0.7, 1.3))])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_list_changed_through_the_list_holding_it_is_refused(f, args, mode):
    """``rows[i].append(v)``, a loop over the rows appending, a pop through an item:
    the derivative followed the item's own name only, and gave zeros (or, after a
    pop, an IndexError)."""
    with pytest.raises(s2sad.S2SADError, match="taken out of another list or a tuple"):
        s2sad.value_and_grad(f, wrt=tuple(range(len(args))), mode=mode)(*args)


def _ping_pong(x):
    a = np.zeros(1)
    b = np.zeros(1)
    for _ in range(2):
        a[0] = a[0] + x[0]
        a, b = b, a
    return a[0] + 10.0 * b[0]


def _two_copies_traded(x):
    a = np.array(x)
    b = np.array(x)
    for _ in range(2):
        a[0] = a[0] * 3.0
        a, b = b, a
    return a[0] + 10.0 * b[0]


def _three_buffers(x, c):
    up = x.copy()
    u = x.copy()
    un = np.zeros(3)
    for _ in range(4):
        un[1:-1] = 2 * u[1:-1] - up[1:-1] + c * u[2:]
        up, u, un = u, un, up
    return np.sum(u ** 2)


def _copies_handed_on(x, c):
    u = x.copy()
    un = np.zeros(3)
    for _ in range(3):
        un[1:-1] = u[1:-1] + c * (u[2:] - 2 * u[1:-1] + u[:-2])
        u, un = un.copy(), u.copy()
    return np.sum(u ** 2)


@pytest.mark.parametrize("f, args", [
    (_ping_pong, (np.array([1.0]),)), (_two_copies_traded, (np.array([1.0]),)),
    (_three_buffers, (np.array([1.0, 2.0, 0.5]), 0.3))])
def test_buffers_that_trade_places_while_written(f, args):
    """Arrays swapped between a loop's names (``a, b = b, a``) while one is written in
    place: reverse mode kept one adjoint per name and summed the two (a gradient of 0
    where 11 is right), and two copies of one array were taken for one object (the
    function's value itself 99 where 33 is right, forward mode too). Reverse mode
    refuses at the loop, naming the copies that work; forward mode is right."""
    with pytest.raises(s2sad.NotDifferentiableError, match="trade places"):
        s2sad.grad(f)(*args)
    for k in range(len(args)):
        want = numeric(f, args, k)
        tangents = tuple(np.ones_like(a) if i == k else np.zeros_like(a)
                         for i, a in enumerate(args))
        y, y_dot = s2sad.jvp(f, args, tangents)
        assert y == pytest.approx(f(*args), rel=1e-12)
        assert y_dot == pytest.approx(np.sum(want), rel=1e-6)
        got = s2sad.grad(f, wrt=k, mode="forward")(*args)
        assert np.allclose(got, want, rtol=1e-6, atol=1e-8)


def test_buffers_handed_on_as_copies():
    """The hint's form: the copies each step makes are arrays of their own."""
    args = (np.array([1.0, 2.0, 0.5]), 0.3)
    got = s2sad.grad(_copies_handed_on, wrt=(0, 1))(*args)
    for k in range(2):
        assert np.allclose(got[k], numeric(_copies_handed_on, args, k), rtol=1e-6, atol=1e-8)


# ------------------------------------------- an array written after a value holds it


def _loops_last_array_written(x, y):
    v = x * 1.0
    for _ in range(2):
        v = np.exp(v * 0.5)
    v[0] = v[0] * y
    return np.sum(v)


def _tape_read_after_the_write(x, y):
    z = x * 1.0
    s = 0.0
    for _ in range(2):
        z = z + x * y
        s = s + np.sum(z * z)
    z[0] = 100.0  # (`s` does not depend on it)
    return s


def _kept_input_written_through_the_carried_name(x, y):
    u = x * 1.0
    v = np.clip(u, -3.0, 3.0)
    for _ in range(2):
        u[0] -= y
        u = v * 2.0
    return np.sum(u)


def _self_copy_written_in_a_loop(x, y):
    u = np.tanh(x * y)
    for j in range(2):
        u = u
        u[j] = u[j] * 2.0
    return np.sum(u)


def _helper_given_the_array(x, y):
    v = x * 1.0
    s = _dot(v, y)
    v[0] = 5.0
    return s


def _helper_given_the_list(x, y):
    v = [t * 1.0 for t in x]
    s = _dot_list(v, y)
    v[0] = 5.0
    return s + v[1]


def _dot(a, c):
    return np.sum(a * c)


def _dot_list(a, c):
    return sum(t * c for t in a)


def _recomputed_in_a_loop(x, y):
    z = x * y
    for _ in range(2):
        u = x * y
    u[0] = 0.0
    return np.sum(z * z) + np.sum(u)


def _loop_in_a_branch_reading_its_array(x, y):
    u = x * 1.0
    if y > 0.5:
        for _ in range(2):
            u = u + u[0] * y
    return np.sum(u * u)


@pytest.mark.parametrize("f", [_loops_last_array_written, _tape_read_after_the_write,
                               _kept_input_written_through_the_carried_name,
                               _self_copy_written_in_a_loop, _helper_given_the_array,
                               _helper_given_the_list, _recomputed_in_a_loop,
                               _loop_in_a_branch_reading_its_array])
@pytest.mark.parametrize("y", [0.7, 0.3])
def test_a_value_the_derivative_keeps_then_written(f, y):
    """A value the derivative reads later (a loop's tape entry, the last array a loop
    made, a rule's kept input, an array a helper was given, one a loop recomputed as
    an earlier one was computed) is the array a later line writes into: the reverse
    sweep read the written values (a dropped restore, a residual or a tape holding
    the array by reference, one array for two names), and a loop in a branch crashed
    with an adjoint read before it was made. Each compiled mode agrees with
    differences."""
    x = np.array([0.3, -0.4, 0.25])
    want = (numeric(f, (x.copy(), y), 0), numeric(f, (x.copy(), y), 1))
    modes = [{"mode": "reverse"}, {"mode": "forward"}] + ([{"jit": True}] if _numba() else [])
    for options in modes:  # (the tape engine writes into no array: it says so)
        gx, gy = s2sad.grad(f, wrt=(0, 1), **options)(x.copy(), y)
        assert np.allclose(gx, want[0], rtol=1e-6, atol=1e-8), options
        assert np.isclose(gy, want[1], rtol=1e-6, atol=1e-8), options


def _numba() -> bool:
    import importlib.util
    return importlib.util.find_spec("numba") is not None


def _one_array_two_names(x, y):
    v = x * 1.0
    for _ in range(2):
        v = v * 2.0
        u = v
    u[0] = y
    return np.sum(v)


def _one_array_two_names_kept(x, y):
    v = x * 1.0
    for _ in range(2):
        u = v
    u[0] = y
    return np.sum(v)


@pytest.mark.parametrize("f", [_one_array_two_names, _one_array_two_names_kept])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_two_names_a_loop_gives_one_array(f, mode):
    """`u = v` in a loop: after it both names hold one array, and a write through `u`
    changes `v` (both modes gave the derivative of the unchanged `v`): refused."""
    with pytest.raises(s2sad.NotDifferentiableError, match="both `u` and `v` hold") as info:
        s2sad.grad(f, wrt=(0, 1), mode=mode)(np.array([0.3, -0.4]), 0.7)
    assert "u[0] = y" in str(info.value)


def _loop_hands_one_array_then_branches(x, y):
    v = x * 1.0
    for _ in range(1):
        v = v * 1.5
        u = v
    u[0] = y
    if y > 0.5:
        u = v
        v = np.sin(v) + y
        v = np.sin(v) + y
    else:
        v[0] = v[0] * y
    return np.sum(v * v) + np.sum(x * u)


@pytest.mark.parametrize("y", [0.7, 0.3])
def test_a_loop_hands_one_array_without_a_tangent_to_two_names(y):
    """The loop hands `v`'s array to `v` and `u`, with no tangent yet (only `y` is
    differentiated, and it reaches the array after the loop): forward mode made two
    zero tangents for the one array, and `u[0] = y` changed only `u`'s (a fuzzed
    program; reverse mode refuses it)."""
    f = _loop_hands_one_array_then_branches
    x = np.array([0.3, -0.4, 0.25])
    want = numeric(f, (x.copy(), y), 1)
    assert s2sad.grad(f, wrt=1, mode="forward")(x.copy(), y) == pytest.approx(want, rel=1e-6)
    gx, gy = s2sad.grad(f, wrt=(0, 1), mode="forward")(x.copy(), y)
    assert gy == pytest.approx(want, rel=1e-6)
    assert np.allclose(gx, numeric(f, (x.copy(), y), 0), rtol=1e-6, atol=1e-8)


def _pair(v):
    return v, np.sum(v)


def _pair_list(v):
    return [v, v * 2.0]


def _layer(x, w):
    out = np.tanh(x * w)
    return out, (x, w)


def _tuple_item_written(x, c):
    a = x * 1.0
    b, s = _pair(a)
    a *= c
    return np.sum(b) + s


def _list_item_written(x, c):
    a = x * 1.0
    pieces = _pair_list(a)
    a[1] = c
    return np.sum(pieces[0])


def _indexed_item_written(x, c):
    a = x * 1.0
    b = _pair(a)[0]
    a *= c
    return np.sum(b)


def _cache_item_written(x, c):
    a = x * 1.0
    h, cache = _layer(a, c)
    a[0] = c
    return np.sum(h) + np.sum(cache[0])


@pytest.mark.parametrize("f", [_tuple_item_written, _list_item_written,
                               _indexed_item_written, _cache_item_written])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_an_array_a_helper_handed_back_in_a_tuple_then_written(f, mode):
    """A helper returns what it was given inside a tuple or a list (``return v,
    np.sum(v)``, a cache ``(x, w)``): the item is the caller's array, so a write into
    that array changes it. Both modes gave the derivative of the unchanged item;
    refused at the write, as ``b = a`` written inline is."""
    with pytest.raises(s2sad.NotDifferentiableError) as info:
        s2sad.grad(f, wrt=(0, 1), mode=mode)(np.array([0.3, 0.7, 0.2, 0.4]), 0.5)
    assert info.value.lineno is not None and ("a" in info.value.source_line)


def _cache_kept_apart(x, c):
    a = x * 1.0
    h, cache = _layer(a, c)
    out = h * 2.0
    out[0] = c
    return np.sum(out) + np.sum(cache[0] * cache[0])


def test_a_helpers_tuple_of_fresh_and_given_arrays_read_without_a_write():
    """The same helpers where nothing writes into what they were given: followed."""
    x = np.array([0.3, 0.7, 0.2, 0.4])
    for f in (_cache_kept_apart,):
        for mode in ("reverse", "forward"):
            gx, gc = s2sad.grad(f, wrt=(0, 1), mode=mode)(x.copy(), 0.5)
            assert np.allclose(gx, numeric(f, (x.copy(), 0.5), 0), rtol=1e-6, atol=1e-8)
            assert gc == pytest.approx(numeric(f, (x.copy(), 0.5), 1), rel=1e-6)


def _set_second(v, c):
    v[1] = c


def _helper_writes_its_argument(x, c):
    a = np.exp(x)
    s = np.sqrt(a)
    _set_second(a, c)
    return np.sum(s * a)


def test_a_helper_writes_into_the_array_an_adjoint_was_made_of():
    """``s * a`` with the seed 1.0: the adjoint of `s` is `a` itself (no copy), and
    the reverse of the helper's write, through its parameter's name, changed it
    before it was read. A written array's name stays a product there."""
    f = _helper_writes_its_argument
    x = np.array([0.3, 0.7, 1.1, 0.45])
    want = numeric(f, (x.copy(), 0.6), 0)
    for options in ({"mode": "reverse"}, {"mode": "forward"}) + (
            ({"jit": True},) if _numba() else ()):
        assert np.allclose(s2sad.grad(f, **options)(x.copy(), 0.6), want, rtol=1e-6), options
