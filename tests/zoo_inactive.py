"""Programs whose code carries no derivative in places (asserts, raises, f-strings,
prints, logging, settings in dicts, imports, `with` and `try` blocks, `:=`): that code
runs as written in every derivative (tests/test_inactive.py)."""

import logging
import math
import os
import warnings

import numpy as np

import s2sad

log = logging.getLogger("s2sad.tests.inactive")


def guarded(x, y):
    assert x > 0, f"x must be positive, got {x}"
    z = x * y
    if z > 1e6:
        raise ValueError(f"z = {z:.3g} is too large")
    return math.log(x) * z


def printing(x, y):
    print(f"start x={x:.2f}")
    s = 0.0
    for i in range(3):
        s = s + math.sin(x * i) * y
        print("step", i, f"{s:.3f}")
    log.info("done with %s", s)
    return s * x


def settings(x, y):
    cfg = {"scale": 0.5, "power": 3}
    names = {"x", "y"}
    label = "loss" if "x" in names else "other"
    return (x * y * cfg["scale"]) ** cfg["power"] + len(label)


def imports_inside(x):
    import math as m
    from math import exp

    return m.sin(x) * exp(x)


def with_blocks(x, y):
    with np.errstate(divide="ignore"):
        r = np.log(x) * y
    with warnings.catch_warnings():
        z = math.cos(r) * x
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        print("quiet", f"{z:.2f}")
    return z * y


def with_try(x):
    try:
        import no_such_module_s2sad  # noqa: F401
        found = True
    except ImportError:
        found = False
        print("not found")
    try:
        n = int("3")
        print("n is", n)
    except ValueError:
        print("no n")
    return x ** 2


def walrus(x, y):
    if (n := 3) > 2:
        y = y * n
    return (z := x * y) * z


def raises_late(x):
    if x > 0:
        return x * x
    raise ValueError(f"x = {x} is not positive")


def helper_checks(a):
    if a < -100:
        raise ValueError("a is too small")
    print("helper", f"{a:.1f}")
    return math.exp(a) * a


def calls_helper(x):
    s = 0.0
    for i in range(2):
        s = s + helper_checks(x * i + 0.5)
    return s


def try_settings(x, text, scale=None):
    n = 2
    try:
        n = int(text)
    except ValueError:
        print("not a number:", text)
    try:
        scale = float(scale)
    except TypeError:
        scale = 0.5
    return x ** n * scale


def try_in_a_loop(x, texts):
    s = 0.0
    for t in texts:
        try:
            k = float(t)
        except ValueError:
            k = 1.0
        s = s + math.sin(x * k)
    return s


def try_keeps_the_last(x, texts):
    s = 0.0
    k = 1.0
    for t in texts:
        try:
            k = float(t)
        except ValueError:
            pass
        s = s + math.sin(x * k)
    return s


# refused: an active value read through code that runs as written

def dict_of_active(x):
    d = {"w": x, "b": 1.0}
    return d["w"] * 2.0


def string_of_active(x):
    s = f"{x}"
    return float(s) * x


def try_assigns(x, s):
    try:
        n = int(s)
    except ValueError:
        n = 2
    return x * n


def try_assigns_active(x):
    try:
        y = x * 2.0
    except ValueError:
        y = 0.0
    return y


def try_returns(x):
    try:
        return x * 2.0
    except ValueError:
        return 0.0


def with_other_manager(x):
    with open("/dev/null") as fh:  # noqa: F841
        y = x * 2.0
    return y


def try_appends(x):
    xs = [x]
    try:
        xs.append(x * 2.0)
    except ValueError:
        pass
    return xs[0] + xs[-1]


def in_a_loop(x):
    s = 0.0
    for i in range(4):
        if i > 10:
            raise RuntimeError(f"i = {i}")
        try:
            print("i", i)
        except OSError:
            pass
        with np.errstate(all="ignore"):
            s = s + math.sin(x * i)
    return s


def walrus_in_while(x):
    k = 0
    while (k := k + 1) < 3:
        x = x * math.cos(x)
    return x


def checks_a_list(xs):
    assert all(v > 0 for v in xs), f"not positive: {[round(v, 2) for v in xs]}"
    s = 0.0
    for v in xs:
        s = s + v * v
    return s


def checkpointed_prints(x, n=6):
    for i in s2sad.checkpointed(range(n), snapshots=2, schedule="binomial"):
        assert x > -100.0, "diverged"
        print("step", i)
        x = math.sin(x) * 1.1
    return x


def checkpointed_while_logs(x):
    k = 0
    while s2sad.checkpointed(k < 5):
        log.info("step %d", k)
        if k > 100:
            print("never")
        x = x * math.cos(x) + 0.5
        k += 1
    return x


def imports_its_own(x):
    import math as m
    import numpy as npx

    y = 1.0
    for i in range(3):
        y = y * m.cos(x * i) + npx.sin(x)
    return y * m.pi


def calls_one_that_imports(x):
    return imports_its_own(x) * 2.0 + imports_its_own(x * 0.5)


def hands_an_array_to_an_unknown_function(x):
    y = np.array([x, 2.0 * x])
    np.save(os.devnull, y)
    return float(np.sum(y ** 2))


def prints_an_array(w):
    print("w =", np.round(w, 2))
    assert np.all(np.isfinite(w)), "w is not finite"
    return np.sum(np.sin(w) ** 2) * w[0]
