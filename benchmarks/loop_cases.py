"""Loop benchmark cases, each with a reverse sweep written carefully by hand beside it
(a tape of floats in a list, the loop run backwards), the reference for what Python
can do.

Peers run the code below with ``math`` bound to their own operations (see
harness.py), Python loops included: autograd, JAX without jit and PyTorch record
every iteration as it runs, and tangent transforms the loop. Under ``jax.jit`` a
Python loop is unrolled into the compiled program (20 s of compilation for the
Euler case), so the ``*_jax_jit`` functions beside the cases are the minimal ports
a JAX user writes: ``lax.fori_loop`` for a counted loop, ``lax.while_loop`` for a
``while``. The imports of ``jax`` inside them run only while jit traces."""

import math


def loop_sum(x, y):
    acc = 0.0
    for i in range(1000):
        acc += math.sin(x * i) * y
    return acc


def loop_sum_by_hand(x, y):
    acc = 0.0
    tape = []
    for i in range(1000):
        t = x * i
        s = math.sin(t)
        tape.append(t)
        acc += s * y
    xb = 0.0
    yb = 0.0
    for i in range(999, -1, -1):
        t = tape.pop()
        yb += math.sin(t)
        xb += y * math.cos(t) * i
    return xb, yb


def loop_sum_jax_jit(x, y):
    import jax.numpy as jnp
    from jax import lax

    def body(i, acc):
        return acc + jnp.sin(x * i) * y

    return lax.fori_loop(0, 1000, body, 0.0)


def rosenbrock(xs):
    total = 0.0
    for i in range(len(xs) - 1):
        total += 100.0 * (xs[i + 1] - xs[i] ** 2) ** 2 + (1.0 - xs[i]) ** 2
    return total


def rosenbrock_by_hand(xs):
    n = len(xs)
    total = 0.0
    for i in range(n - 1):  # forward sweep
        d = xs[i + 1] - xs[i] ** 2
        e = 1.0 - xs[i]
        total += 100.0 * d * d + e * e
    g = [0.0] * n
    for i in range(n - 2, -1, -1):  # reverse sweep, recomputing from xs
        a = xs[i]
        d = xs[i + 1] - a * a
        g[i] += -400.0 * d * a - 2.0 * (1.0 - a)
        g[i + 1] += 200.0 * d
    return g


def euler(k, c):
    """A damped oscillator x'' = -k x - c x', explicit Euler, 1000 steps."""
    x = 1.0
    v = 0.0
    dt = 0.001
    for i in range(1000):
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    return x * x + v * v


def euler_by_hand(k, c):
    x = 1.0
    v = 0.0
    dt = 0.001
    xs = []
    vs = []
    for i in range(1000):
        xs.append(x)
        vs.append(v)
        a = -k * x - c * v
        x = x + dt * v
        v = v + dt * a
    xb = 2.0 * x
    vb = 2.0 * v
    kb = 0.0
    cb = 0.0
    for i in range(999, -1, -1):
        x = xs.pop()
        v = vs.pop()
        ab = dt * vb
        vb = vb + dt * xb - c * ab
        xb = xb - k * ab
        kb -= x * ab
        cb -= v * ab
    return kb, cb


def euler_jax_jit(k, c):
    from jax import lax

    dt = 0.001

    def step(i, state):
        x, v = state
        a = -k * x - c * v
        return x + dt * v, v + dt * a

    x, v = lax.fori_loop(0, 1000, step, (1.0, 0.0))
    return x * x + v * v


def newton(a):
    """Square root by Newton's method, to convergence."""
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def newton_by_hand(a):
    x = a
    tape = []
    while abs(x * x - a) > 1e-12 * a:
        tape.append(x)
        x = 0.5 * (x + a / x)
    xb = 1.0
    ab = 0.0
    while tape:
        x = tape.pop()
        ab += 0.5 * xb / x
        xb = 0.5 * xb * (1.0 - a / (x * x))
    return ab + xb


def newton_jax_jit(a):
    # JAX refuses reverse mode through lax.while_loop; the report shows its message.
    from jax import lax

    def cond(x):
        return abs(x * x - a) > 1e-12 * a

    def body(x):
        return 0.5 * (x + a / x)

    return lax.while_loop(cond, body, a)


TITLE = "Loops"

CASES = [
    ("loop sum, 1000 steps", loop_sum, loop_sum_by_hand, (0.7, 1.3), (0, 1)),
    ("Rosenbrock, 100 floats", rosenbrock, rosenbrock_by_hand,
     ([0.5 + 0.01 * i for i in range(100)],), 0),
    ("Euler oscillator, 1000 steps", euler, euler_by_hand, (2.0, 0.3), (0, 1)),
    ("Newton while loop", newton, newton_by_hand, (30.0,), 0),
]

# {case name: {tool key: port}}. Rosenbrock needs none: its loop runs 99 times over a
# list whose length jit sees, and unrolls in well under a second. jit then takes the
# list as 100 separate arguments, which is most of its time per call (an array
# argument would be faster; that is a NumPy case, not a port of this one).
PORTS = {
    "loop sum, 1000 steps": {"jax-jit": loop_sum_jax_jit},
    "Euler oscillator, 1000 steps": {"jax-jit": euler_jax_jit},
    "Newton while loop": {"jax-jit": newton_jax_jit},
}
