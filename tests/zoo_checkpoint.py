"""Loop functions with `s2sad.checkpointed` loops, and the same functions without the
marker (`PLAIN`), for tests/test_checkpoint.py: the gradients must agree."""

import math

import numpy as np

import s2sad


def euler(k, c, n, s):
    """A damped oscillator x'' = -k x - c x', explicit Euler, n steps."""
    x = 1.0
    v = 0.0
    dt = 0.01
    for i in s2sad.checkpointed(range(n), snapshots=s, schedule="binomial"):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x * x + v


def euler_ctz(k, c, n):
    x = 1.0
    v = 0.0
    dt = 0.01
    for i in s2sad.checkpointed(range(n)):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x * x + v


def loop_sum(x, y, n):
    acc = 0.0
    for i in s2sad.checkpointed(range(n), snapshots=3, schedule="binomial"):
        acc += math.sin(x * i) * y
    return acc


def rnn(W, U, xs, s):
    """An Elman RNN over the sequence xs: the hidden state is a NumPy array."""
    h = np.zeros(W.shape[0])
    for t in s2sad.checkpointed(range(len(xs)), snapshots=s, schedule="binomial"):
        h = np.tanh(W @ h + U * xs[t])
    return np.sum(h * h)


def rnn_ctz(W, U, xs):
    h = np.zeros(W.shape[0])
    for t in s2sad.checkpointed(range(len(xs))):
        h = np.tanh(W @ h + U * xs[t])
    return np.sum(h * h)


def newton(a, n):
    """Square root by n Newton steps (a fixed count, so the trip count is known)."""
    x = a
    for _ in s2sad.checkpointed(range(n), snapshots=2, schedule="binomial"):
        x = 0.5 * (x + a / x)
    return x


def newton_ctz(a, n):
    x = a
    for _ in s2sad.checkpointed(range(n), schedule="ctz"):
        x = 0.5 * (x + a / x)
    return x


def damped(x, n):
    return x * 0.9 + 0.1


def branches_and_calls(x, y, n):
    """A branch that changes one carried value on one path only, a call of a user
    function, a nested loop and the loop index in the body."""
    s = x
    t = y
    for i in s2sad.checkpointed(range(1, n + 1), snapshots=4, schedule="binomial"):
        if i % 3 == 0:
            s = damped(s, i) + t * 0.01
        else:
            t = t + math.sin(s * i) * 0.1
        for j in range(2):
            t = t * 0.99 + s * 0.001
    return s * t


# ------------------------------------------- continue: every exit of a step

def skip_euler(k, c, n, s):
    """`continue` on some steps, after one carried value changed and before the
    other does; the step's reverse must pass the adjoint on along that exit."""
    x = 1.0
    v = 0.0
    for i in s2sad.checkpointed(range(n), snapshots=s, schedule="binomial"):
        a = -k * x - c * v
        x = x + 0.01 * v
        if i % 3 == 1:
            continue
        v = v + 0.01 * a
    return x * x + v


def skip_ctz(x, y, n):
    """`continue` in nested branches, in an inner loop, and as the last word of a
    branch: every path of the step leaves by an exit of its own."""
    for i in s2sad.checkpointed(range(n)):
        t = x * y
        for j in range(3):
            if j == 1:
                continue
            t = t * 0.9 + x * 0.05
        if x > 0.5:
            if i % 2 == 0:
                continue
            x = x - 0.05 * y + 0.01 * t
        else:
            x = x + 0.1 * math.cos(y)
            if i == 2:
                continue
        y = y * 0.97 + 0.02 * x
    return x + y * y


def skip_while(x, y, n):
    """A checkpointed while loop with `continue`."""
    i = 0
    while s2sad.checkpointed(i < n):
        i = i + 1
        x = x * 0.9 + math.sin(y) * 0.3
        if i % 3 == 1:
            continue
        y = y + 0.1 * x * x
    return x * y


def skip_while_test(x, y, n):
    """The while loop's test reads the active carried values; `continue` skips the
    update of one of them."""
    while s2sad.checkpointed(x * y < 3.0 + n):
        x = x * 1.05 + 0.01
        if y > 2.0:
            continue
        y = y * 1.1
    return x + y


def skip_steps(x, y, n):
    """No marker: `grad(f, checkpoint=...)` checkpoints the loop (with `continue`)."""
    for i in range(n):
        if x > 0.5:
            if i % 2 == 0:
                continue
            x = x - 0.05 * y
        else:
            x = x + 0.1 * math.cos(y)
            if i == 2:
                continue
        y = y * 0.97 + 0.02 * x
    k = 0
    while k < n:
        k = k + 1
        y = y * 0.9 + math.sin(x) * 0.3
        if k % 3 == 1:
            continue
        x = x + 0.1 * y * y
    return x * y


def carries_nothing(x, n):
    """A marked loop that carries nothing from one iteration to the next."""
    for i in s2sad.checkpointed(range(n), snapshots=2, schedule="binomial"):
        t = x * i
    while s2sad.checkpointed(x > n + 10.0):
        t = x * 2.0
    return x * x


# ---------------------------------------- arrays rebound, read by index, rows


def rows_marked(A, x, s):
    """The carried array is read by index and rebound twice per step; the body makes
    arrays it reads by index (their adjoints are zeroed per reversed step)."""
    for i in s2sad.checkpointed(range(len(A)), snapshots=s, schedule="binomial"):
        row = A[i]
        y = x * 2.0
        x = np.tanh(row * y) * 0.5 + y[0] * row[1] * 0.1
        x = np.concatenate([x[1:], x[:1] * row[0]])
    return np.sum(x * x)


def rebind_while(W, x, n):
    """A checkpointed while loop whose test reads the carried array by index."""
    k = 0
    while s2sad.checkpointed(x[0] < 10.0 and k < n):
        k = k + 1
        x = np.tanh(W @ x) + x * 1.1
        if x[1] > 1.0:
            continue
        x = x * 2.0
    return np.sum(x) + x[2]


def rows_option(A, x, W):
    """No marker: rows of an array, a rebound array, `x = np.tanh(W @ x)`."""
    s = 0.0
    for row in A:
        x = x * 2.0
        x = np.tanh(row * x) + x[0] * row[1]
        s = s + np.sum(row * x) ** 2
    k = 0
    while k < len(A):
        k = k + 1
        x = np.tanh(W @ x)
    return s + np.sum(x * x)


# ---------------------------------------- break: CTZ, the trip count left open


def stop_early(x, y, n):
    """A `break` and a `continue`: the scheduler runs the steps one at a time until
    the step that breaks (a flag carried in the state) or the end of the range."""
    for i in s2sad.checkpointed(range(n)):
        y = y + x * 0.1
        if y > 3.0:
            break
        if i % 3 == 1:
            continue
        x = x * 1.2 + y * 0.01
    return x * y


def stop_early_while(x, y, n):
    """A while loop with a break (which changes a carried value first), after an
    inner loop with a break of its own; the test is not evaluated after the break."""
    k = 0
    while s2sad.checkpointed(k < n and x < 100.0):
        k = k + 1
        for j in range(3):
            if j > k:
                break
            x = x * 0.99 + 0.01 * y
        y = y * 1.3 + math.sin(x)
        if y > 5.0:
            x = x * 2.0
            break
    return x + y


def lazy_test(x, y, n):
    """A while loop's test with `and` (a branch in the test): the step's reverse
    reverses the whole test, so it recomputes the whole test, not only what the body
    reads of it (it read a value it had not computed)."""
    i = 0
    while s2sad.checkpointed(i < n and x < 50.0):
        i = i + 1
        x = y * 0.29 + math.tanh(y)
    k = 0
    while s2sad.checkpointed(k < n and y < 50.0 or x > 1e6):
        k = k + 1
        y = y * 1.1 + x * 0.2
    return x * 0.5 + y * x


def stop_at_once(x, y, n):
    """A break every path takes: one step at most."""
    for i in s2sad.checkpointed(range(n)):
        x = x * y + 1.0
        break
    while s2sad.checkpointed(y < x + n):
        y = y * 2.0 + x
        break
    return x * y


def stop_early_arrays(W, v, n):
    h = v
    for i in s2sad.checkpointed(range(n)):
        h = np.tanh(W @ h) + h[0] * 0.5
        if h[1] > 0.9:
            break
    return np.sum(h * h)


# ------------------------------------------------ refused, at the user's line


def bad_break_after_inner(x, n):
    """The inner loop's break is fine (its step reverses it); the loop's own leaves
    the number of steps open, which binomial checkpointing needs."""
    for i in s2sad.checkpointed(range(n), snapshots=2, schedule="binomial"):
        for j in range(3):
            if x > 5.0:
                break
            x = x * 1.1
        if x > 10.0:
            break  # leaves the checkpointed loop
        x = x * 1.5
    return x


def bad_return_while(x, n):
    while s2sad.checkpointed(x < n):
        if x > 10.0:
            return x * 2.0
        x = x * 1.5
    return x


def bad_return(x, n):
    for i in s2sad.checkpointed(range(n)):
        if x > 10.0:
            return x * 2.0
        x = x * 1.5
    return x


def bad_append(x, n):
    xs = [x]
    for i in s2sad.checkpointed(range(n)):
        xs.append(xs[-1] * 1.5)
    return xs[-1]


def bad_grown_tuple(x, n):
    hist = ()
    for i in s2sad.checkpointed(range(n)):
        x = x * 0.5
        hist += (x,)
    return sum(hist)


def bad_random(x, n):
    for i in s2sad.checkpointed(range(n)):
        x = np.tanh(x + 0.3 * np.random.randn())
    return x


def bad_generator(x, n):
    rng = np.random.default_rng(0)
    for i in s2sad.checkpointed(range(n)):
        noise = 0.3 * rng.normal()
        x = np.tanh(x + noise)
    return x


def _jitter(scale):
    return scale * np.random.randn()


def _kick(x):
    return np.tanh(x + _jitter(0.3))


def bad_random_in_helper(x, n):
    for i in s2sad.checkpointed(range(n)):
        x = _kick(x)
    return x


def random_walk(x, n):
    # (no marker: `checkpoint=` leaves this loop its tape, the draws made once)
    for i in range(n):
        x = np.tanh(x * 1.1 + 0.3 * np.random.standard_normal())
    return x


def bad_write(x, n):
    u = np.ones(3) * x
    for i in s2sad.checkpointed(range(n)):
        u[0] = u[1] * 2.0
    return np.sum(u)


def bad_nested(x, n):
    for j in range(2):
        for i in s2sad.checkpointed(range(n)):
            x = x * 1.5
    return x


def bad_iterable(xs):
    total = 0.0
    for x in s2sad.checkpointed(xs):
        total = total + x
    return total


# ------------------------------------------------------- checkpointed while loops


def newton_until(a, x0, tol):
    """Newton's square root until it converges: the trip count depends on x0."""
    x = x0
    while s2sad.checkpointed(abs(x * x - a) > tol):
        x = 0.5 * (x + a / x)
    return x * x + x


def newton_countdown(a, n):
    """Exactly n Newton steps, counted down in the loop's test (an int carried)."""
    x = a
    left = n
    while s2sad.checkpointed(left > 0 and x > 0.0):
        x = 0.5 * (x + a / x)
        left = left - 1
    return x


def projectile(v, angle, drag, height):
    """A projectile with drag, explicit Euler, until it lands (y < 0)."""
    x = 0.0
    y = height
    vx = v * math.cos(angle)
    vy = v * math.sin(angle)
    dt = 0.01
    while s2sad.checkpointed(y >= 0.0):
        speed = math.sqrt(vx * vx + vy * vy)
        ax = -drag * speed * vx
        ay = -9.81 - drag * speed * vy
        x = x + dt * vx
        y = y + dt * vy
        vx = vx + dt * ax
        vy = vy + dt * ay
    return x + 0.1 * vx * vx


def bad_binomial_while(x, n):
    while s2sad.checkpointed(x < n, schedule="binomial"):
        x = x * 1.5
    return x


# --------------------------------------------- grad(f, checkpoint=...): no markers


def simulate(k, c, n):
    """Outermost loops: a for loop and a while loop (checkpointed), a loop with a
    break (checkpointed with CTZ), a loop carrying nothing active (kept on the tape)
    and an inner loop (inside a checkpointed one: part of its step)."""
    x = 1.0
    v = 0.0
    for i in range(n):
        a = -k * x - c * v
        for j in range(2):
            a = a * 0.99
        x = x + 0.01 * v
        v = v + 0.01 * a
    total = 0.0
    while x > 0.5:
        x = x * 0.9
        total = total + x
    for j in range(3):
        if x > 10.0:
            break
        x = x + c
    count = 0
    for j in range(n):
        count = count + 1
    if n > 2:
        for m in range(n):
            v = v * 0.95 + x * 0.01
    return x + v + total * count


def simulate_marked(k, c, n):
    """A loop the user marked keeps its own schedule."""
    x = 1.0
    for i in s2sad.checkpointed(range(n), snapshots=2, schedule="binomial"):
        x = x - 0.01 * k * x
    for i in range(n):
        x = x + 0.01 * c * x
    return x


def euler_plain_loop(k, c, n):
    x = 1.0
    v = 0.0
    for i in range(n):
        a = -k * x - c * v
        x = x + 0.01 * v
        v = v + 0.01 * a
    return x


# ------------------------------------------------------------ second derivatives


def calls_checkpointed(k, c, n):
    """A function whose callee has a checkpointed loop."""
    return euler_ctz(k, c, n) * k + newton(c * c + 1.0, 4)


# ------------------------------------------- carried arrays passed on, objects changed after


def carried_unchanged(x, n, s):
    """A carried array read by index that the step passes on as it is (``v = v``):
    its adjoint, one array, goes on from step to step (the step's reverse zeroed it)."""
    v = x
    w = x[0] * 1.0
    for i in s2sad.checkpointed(range(n), snapshots=s, schedule="binomial"):
        v = v
        w = w * 0.9 + v[2]
    return np.sum(x) + v[1] + w


def carried_unchanged_ctz(x, n):
    v = x * 1.0
    y = 0.5
    for i in s2sad.checkpointed(range(n)):
        y = y + v[0] * 0.3
        if i % 2 == 1:
            continue
        v = v * 1.1
    return v[1] * y


def skip_rebind(x, n, s):
    """`continue` passes a carried array read by index on unchanged."""
    v1 = x * 1.0
    for i in s2sad.checkpointed(range(n), snapshots=s, schedule="binomial"):
        if np.sum(v1) > -0.2:
            continue
        v1 = x ** 2
    return np.sin(v1[0])


def skip_rebind_while(x, n):
    v1 = x * 1.0
    k = 0
    while s2sad.checkpointed(k < n):
        k += 1
        if np.sum(v1) > 1.0:
            continue
        v1 = v1 * 1.5 + x[2]
    return np.sin(v1[0]) + v1[1]


def stop_rebind(x, n):
    """`break` with a carried array read by index."""
    v = x * 1.0
    for i in s2sad.checkpointed(range(n)):
        if v[0] > 3.0:
            break
        v = v * 1.5 + x[1]
    return v[0] + v[2]


def grown_after(x, y, n):
    """A list the loop reads grows after it: the step's reverse recomputes steps from
    the list as the loop saw it (it read the longer list: a step too many)."""
    acc = x
    ys = [y, x]
    k = 0
    while s2sad.checkpointed(k < n and acc < 2.5):
        k += 1
        for i in range(len(ys)):
            acc = acc + acc
    ys.append(acc)
    return ys[-1] + ys[0]


def grown_after_for(x, y, n, s):
    ys = [y, x]
    acc = x
    for i in s2sad.checkpointed(range(n), snapshots=s, schedule="binomial"):
        acc = acc * 0.5 + ys[-1] * len(ys)
    ys.append(acc)
    ys.append(acc * 2.0)
    return ys[-1] + ys[1]


def written_after(x, n, s):
    """Arrays the loop reads or carries, written into after it."""
    w = x * 1.0
    v = x * 0.5
    for i in s2sad.checkpointed(range(n), snapshots=s, schedule="binomial"):
        v = v * np.sin(w[1]) + w[0]
    w[1] = 7.0
    w[0] = w[0] * v[2]
    return np.sum(w * v)


def variance_passed_on(x, n):
    v2 = x * 1.0
    for i in s2sad.checkpointed(range(n)):
        v2 = v2
    for i in s2sad.checkpointed(range(n), snapshots=2, schedule="binomial"):
        v2 = v2
    return np.var(v2) + v2[1] * v2[2]


def aliased_init(x, n, s):
    """The carried array starts as the argument, which the loop reads by index: the
    carried array's adjoint goes into the argument's adjoint array (the taped loop
    dropped it)."""
    v = x
    for i in s2sad.checkpointed(range(n), snapshots=s, schedule="binomial"):
        v = v * 1.2 + x[2] * 0.1
    v = v * 1.0
    return v[0] * 0.5 + np.sum(v * v)
