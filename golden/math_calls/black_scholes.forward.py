# s2sad golden file: golden/inputs/math_calls.py:black_scholes, stage forward, wrt S, K, T, r, sigma.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def black_scholes_jvp(S, K, T, r, sigma, S_dot, K_dot, T_dot, r_dot, sigma_dot):
    sqrtT = math.sqrt(T)
    sqrtT_dot = T_dot / (2.0 * sqrtT)
    t1 = S / K
    t2 = math.log(t1)
    t2_dot = (S_dot / K - t1 * K_dot / K) / t1
    t3 = 0.5 * sigma
    t4 = r + t3 * sigma
    t5 = t2 + t4 * T
    t5_dot = t2_dot + (
        (r_dot + (0.5 * sigma_dot * sigma + t3 * sigma_dot)) * T + t4 * T_dot
    )
    t6 = sigma * sqrtT
    t6_dot = sigma_dot * sqrtT + sigma * sqrtT_dot
    d1 = t5 / t6
    d1_dot = t5_dot / t6 - d1 * t6_dot / t6
    d2 = d1 - t6
    d2_dot = d1_dot - t6_dot
    t7 = math.sqrt(2.0)
    t8 = d1 / t7
    N1 = 0.5 * (1.0 + math.erf(t8))
    N1_dot = 0.5 * (1.1283791670955126 * math.exp(-t8 * t8) * (d1_dot / t7))
    t9 = d2 / t7
    N2 = 0.5 * (1.0 + math.erf(t9))
    N2_dot = 0.5 * (1.1283791670955126 * math.exp(-t9 * t9) * (d2_dot / t7))
    t10 = S * N1
    t10_dot = S_dot * N1 + S * N1_dot
    t11 = -r
    t12 = math.exp(t11 * T)
    t13 = K * t12
    t14 = t10 - t13 * N2
    t14_dot = t10_dot - (
        (K_dot * t12 + K * (t12 * (t11 * T_dot - r_dot * T))) * N2 + t13 * N2_dot
    )
    return t14, t14_dot
