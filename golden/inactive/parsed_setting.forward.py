# s2sad golden file: golden/inputs/inactive.py:parsed_setting, stage forward, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.inactive import *  # noqa: F401,F403


def parsed_setting_jvp(x, text, x_dot):
    n = 2
    try:
        n_1 = n
        n_1 = int(text)
    except ValueError:
        print(f"not a number: {text!r}")
    t1 = x**n_1
    t1_dot = n_1 * (x if n_1 else 1.0) ** (n_1 - 1) * x_dot
    return t1, t1_dot
