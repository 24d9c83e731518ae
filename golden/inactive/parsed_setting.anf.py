# s2sad golden file: golden/inputs/inactive.py:parsed_setting, stage anf, wrt 0.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.inactive import *  # noqa: F401,F403


def parsed_setting(x, text):
    n = 2
    try:
        n_1 = n
        n_1 = int(text)
    except ValueError:
        print(f"not a number: {text!r}")
    t1 = x**n_1
    return t1
