# s2sad golden file: golden/inputs/tuples_and_calls.py:calls, stage reverse, wrt x, y.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.tuples_and_calls import *  # noqa: F401,F403


def calls_grad(x, y):
    a, a_saved = scaled_fwd(x)
    b, b_saved = scaled_fwd(y, scale=x)
    c, c_saved = scaled_fwd(a, 3.0, shift=b)
    # line 29: return a + b + c
    t1_bar = 1.0
    # line 28: c = scaled(a, 3.0, shift=b)
    a_a_bar, b_a_bar = scaled_bwd_3(c_saved, t1_bar)
    # line 27: b = scaled(y, scale=x)
    b_bar = b_a_bar + t1_bar
    y_bar, x_b_bar = scaled_bwd_2(b_saved, b_bar)
    # line 26: a = scaled(x)
    a_bar = a_a_bar + t1_bar
    x_a_bar = scaled_bwd(a_saved, a_bar)
    # adjoint of x: the sum over its uses
    x_bar = x_a_bar + x_b_bar
    return x_bar, y_bar


def scaled_fwd(u, scale=2.0, shift=0.0):
    t1 = scale * u
    t2 = t1 * u + shift
    return t2, (u, scale, t1)


def scaled_bwd(saved, t2_bar):
    u, scale, t1 = saved
    # line 22: return scale * u * u + shift
    t1_bar = t2_bar * u
    u_b_bar = t2_bar * t1
    u_a_bar = t1_bar * scale
    # adjoint of u: the sum over its uses
    u_bar = u_a_bar + u_b_bar
    return u_bar


def scaled_bwd_2(saved, t2_bar):
    u, scale, t1 = saved
    # line 22: return scale * u * u + shift
    t1_bar = t2_bar * u
    u_b_bar = t2_bar * t1
    scale_bar = t1_bar * u
    u_a_bar = t1_bar * scale
    # adjoint of u: the sum over its uses
    u_bar = u_a_bar + u_b_bar
    return u_bar, scale_bar


def scaled_bwd_3(saved, t2_bar):
    u, scale, t1 = saved
    # line 22: return scale * u * u + shift
    shift_bar = t2_bar
    t1_bar = t2_bar * u
    u_b_bar = t2_bar * t1
    u_a_bar = t1_bar * scale
    # adjoint of u: the sum over its uses
    u_bar = u_a_bar + u_b_bar
    return u_bar, shift_bar
