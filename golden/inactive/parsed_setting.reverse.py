# s2sad golden file: golden/inputs/inactive.py:parsed_setting, stage reverse, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.inactive import *  # noqa: F401,F403


def parsed_setting_grad(x, text):
    n = 2
    try:
        n_1 = n
        n_1 = int(text)
    except ValueError:
        print(f"not a number: {text!r}")
    t1 = x**n_1
    # line 31: return x ** n
    t1_bar = 1.0
    x_bar = t1_bar * n_1 * (x if n_1 else 1.0) ** (n_1 - 1)
    return x_bar
