# s2sad golden file: golden/inputs/math_calls.py:black_scholes, stage forward, wrt S, K, T, r, sigma.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def black_scholes_jvp(S, K, T, r, sigma, S_dot, K_dot, T_dot, r_dot, sigma_dot):
    sqrtT = math.sqrt(T)
    sqrtT_dot = T_dot / (2.0 * sqrtT)
    t1 = S / K
    t1_dot = S_dot / K - t1 * K_dot / K
    t2 = math.log(t1)
    t2_dot = t1_dot / t1
    t3 = 0.5 * sigma
    t3_dot = 0.5 * sigma_dot
    t4 = t3 * sigma
    t4_dot = t3_dot * sigma + t3 * sigma_dot
    t5 = r + t4
    t5_dot = r_dot + t4_dot
    t6 = t5 * T
    t6_dot = t5_dot * T + t5 * T_dot
    t7 = t2 + t6
    t7_dot = t2_dot + t6_dot
    t8 = sigma * sqrtT
    t8_dot = sigma_dot * sqrtT + sigma * sqrtT_dot
    d1 = t7 / t8
    d1_dot = t7_dot / t8 - d1 * t8_dot / t8
    d2 = d1 - t8
    d2_dot = d1_dot - t8_dot
    t9 = math.sqrt(2.0)
    t10 = d1 / t9
    t10_dot = d1_dot / t9
    t11 = math.erf(t10)
    t11_dot = 1.1283791670955126 * math.exp(-t10 * t10) * t10_dot
    N1 = 0.5 * (1.0 + t11)
    N1_dot = 0.5 * t11_dot
    t12 = d2 / t9
    t12_dot = d2_dot / t9
    t13 = math.erf(t12)
    t13_dot = 1.1283791670955126 * math.exp(-t12 * t12) * t12_dot
    N2 = 0.5 * (1.0 + t13)
    N2_dot = 0.5 * t13_dot
    t14 = S * N1
    t14_dot = S_dot * N1 + S * N1_dot
    t15 = -r
    t16 = t15 * T
    t16_dot = t15 * T_dot - r_dot * T
    t17 = math.exp(t16)
    t17_dot = t17 * t16_dot
    t18 = K * t17
    t18_dot = K_dot * t17 + K * t17_dot
    t19 = t18 * N2
    t19_dot = t18_dot * N2 + t18 * N2_dot
    t20 = t14 - t19
    t20_dot = t14_dot - t19_dot
    return t20, t20_dot
