# s2sad golden file: golden/inputs/math_calls.py:black_scholes, stage dup, wrt S, K, T, r, sigma.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math
from s2sad.runtime import dup


def black_scholes(S, K, T, r, sigma):
    S_a, S_b = dup(S)
    K_a, K_b = dup(K)
    T_a, T_b, T_c = dup(T, 3)
    r_a, r_b = dup(r)
    sigma_a, sigma_b, sigma_c, sigma_d = dup(sigma, 4)
    sqrtT = math.sqrt(T_a)
    sqrtT_a, sqrtT_b = dup(sqrtT)
    t1 = S_a / K_a
    t2 = math.log(t1)
    t3 = 0.5 * sigma_a
    t4 = t3 * sigma_b
    t5 = r_a + t4
    t6 = t5 * T_b
    t7 = t2 + t6
    t8 = sigma_c * sqrtT_a
    d1 = t7 / t8
    d1_a, d1_b = dup(d1)
    t9 = sigma_d * sqrtT_b
    d2 = d1_a - t9
    t10 = math.sqrt(2.0)
    t11 = d1_b / t10
    t12 = math.erf(t11)
    t13 = 1.0 + t12
    N1 = 0.5 * t13
    t14 = math.sqrt(2.0)
    t15 = d2 / t14
    t16 = math.erf(t15)
    t17 = 1.0 + t16
    N2 = 0.5 * t17
    t18 = S_b * N1
    t19 = -r_b
    t20 = t19 * T_c
    t21 = math.exp(t20)
    t22 = K_b * t21
    t23 = t22 * N2
    t24 = t18 - t23
    return t24
