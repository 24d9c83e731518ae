# s2sad golden file: golden/inputs/math_calls.py:black_scholes, stage anf, wrt S, K, T, r, sigma.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def black_scholes(S, K, T, r, sigma):
    sqrtT = math.sqrt(T)
    t1 = S / K
    t2 = math.log(t1)
    t3 = 0.5 * sigma
    t4 = t3 * sigma
    t5 = r + t4
    t6 = t5 * T
    t7 = t2 + t6
    t8 = sigma * sqrtT
    d1 = t7 / t8
    t9 = sigma * sqrtT
    d2 = d1 - t9
    t10 = math.sqrt(2.0)
    t11 = d1 / t10
    t12 = math.erf(t11)
    t13 = 1.0 + t12
    N1 = 0.5 * t13
    t14 = math.sqrt(2.0)
    t15 = d2 / t14
    t16 = math.erf(t15)
    t17 = 1.0 + t16
    N2 = 0.5 * t17
    t18 = S * N1
    t19 = -r
    t20 = t19 * T
    t21 = math.exp(t20)
    t22 = K * t21
    t23 = t22 * N2
    t24 = t18 - t23
    return t24
