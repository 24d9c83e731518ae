# s2sad golden file: golden/inputs/math_calls.py:black_scholes, stage reverse, wrt S, K, T, r, sigma.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def black_scholes_grad(S, K, T, r, sigma):
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
    # line 25: return S * N1 - K * math.exp(-r * T) * N2
    t24_bar = 1.0
    t23_bar = -t24_bar
    t22_bar = t23_bar * N2
    N2_bar = t23_bar * t22
    K_b_bar = t22_bar * t21
    t21_bar = t22_bar * K
    t20_bar = t21_bar * t21
    t19_bar = t20_bar * T
    T_c_bar = t20_bar * t19
    r_b_bar = -t19_bar
    S_b_bar = t24_bar * N1
    N1_bar = t24_bar * S
    # line 24: N2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    t17_bar = N2_bar * 0.5
    t15_bar = t17_bar * 1.1283791670955126 * math.exp(-t15 * t15)
    d2_bar = t15_bar / t14
    # line 23: N1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    t13_bar = N1_bar * 0.5
    t11_bar = t13_bar * 1.1283791670955126 * math.exp(-t11 * t11)
    d1_b_bar = t11_bar / t10
    # line 22: d2 = d1 - sigma * sqrtT
    t9_bar = -d2_bar
    sigma_d_bar = t9_bar * sqrtT
    sqrtT_b_bar = t9_bar * sigma
    # line 21: d1 = (math.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrtT)
    d1_bar = d2_bar + d1_b_bar
    t7_bar = d1_bar / t8
    t8_bar = -d1_bar * d1 / t8
    sigma_c_bar = t8_bar * sqrtT
    sqrtT_a_bar = t8_bar * sigma
    t5_bar = t7_bar * T
    T_b_bar = t7_bar * t5
    t3_bar = t5_bar * sigma
    sigma_b_bar = t5_bar * t3
    sigma_a_bar = t3_bar * 0.5
    t1_bar = t7_bar / t1
    S_a_bar = t1_bar / K
    K_a_bar = -t1_bar * t1 / K
    # line 20: sqrtT = math.sqrt(T)
    sqrtT_bar = sqrtT_a_bar + sqrtT_b_bar
    T_a_bar = sqrtT_bar / (2.0 * sqrtT)
    # adjoint of sigma: the sum over its uses
    sigma_bar = sigma_a_bar + sigma_b_bar + sigma_c_bar + sigma_d_bar
    r_bar = t5_bar + r_b_bar
    T_bar = T_a_bar + T_b_bar + T_c_bar
    K_bar = K_a_bar + K_b_bar
    S_bar = S_a_bar + S_b_bar
    return S_bar, K_bar, T_bar, r_bar, sigma_bar
