# s2sad golden file: golden/inputs/math_calls.py:black_scholes, stage reverse, wrt S, K, T, r, sigma.
# Regenerate with `pytest tests/test_golden.py --update-golden` and review the diff.
from golden.inputs.math_calls import *  # noqa: F401,F403

import math


def black_scholes_grad(S, K, T, r, sigma):
    sqrtT = math.sqrt(T)
    t1 = S / K
    t2 = math.log(t1)
    t3 = 0.5 * sigma
    t4 = r + t3 * sigma
    t5 = t2 + t4 * T
    t6 = sigma * sqrtT
    d1 = t5 / t6
    t7 = sigma * sqrtT
    d2 = d1 - t7
    t8 = math.sqrt(2.0)
    t9 = d1 / t8
    t10 = 1.0 + math.erf(t9)
    N1 = 0.5 * t10
    t11 = math.sqrt(2.0)
    t12 = d2 / t11
    t13 = 1.0 + math.erf(t12)
    N2 = 0.5 * t13
    t14 = -r
    t15 = t14 * T
    t16 = math.exp(t15)
    t17 = K * t16
    # line 25: return S * N1 - K * math.exp(-r * T) * N2
    t17_bar = -N2
    N2_bar = -t17
    K_b_bar = t17_bar * t16
    t16_bar = t17_bar * K
    t15_bar = t16_bar * t16
    t14_bar = t15_bar * T
    T_c_bar = t15_bar * t14
    r_b_bar = -t14_bar
    S_b_bar = N1
    N1_bar = S
    # line 24: N2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    t13_bar = N2_bar * 0.5
    t12_bar = t13_bar * 1.1283791670955126 * math.exp(-t12 * t12)
    d2_bar = t12_bar / t11
    # line 23: N1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    t10_bar = N1_bar * 0.5
    t9_bar = t10_bar * 1.1283791670955126 * math.exp(-t9 * t9)
    d1_b_bar = t9_bar / t8
    # line 22: d2 = d1 - sigma * sqrtT
    t7_bar = -d2_bar
    sigma_d_bar = t7_bar * sqrtT
    sqrtT_b_bar = t7_bar * sigma
    # line 21: d1 = (math.log(S / K) + (r + 0.5 * sigma * sigma) * T) / (sigma * sqrtT)
    d1_bar = d2_bar + d1_b_bar
    t5_bar = d1_bar / t6
    t6_bar = -d1_bar * d1 / t6
    sigma_c_bar = t6_bar * sqrtT
    sqrtT_a_bar = t6_bar * sigma
    t4_bar = t5_bar * T
    T_b_bar = t5_bar * t4
    t3_bar = t4_bar * sigma
    sigma_b_bar = t4_bar * t3
    sigma_a_bar = t3_bar * 0.5
    t1_bar = t5_bar / t1
    S_a_bar = t1_bar / K
    K_a_bar = -t1_bar * t1 / K
    # line 20: sqrtT = math.sqrt(T)
    sqrtT_bar = sqrtT_a_bar + sqrtT_b_bar
    T_a_bar = sqrtT_bar / (2.0 * sqrtT)
    # adjoint of sigma: the sum over its uses
    sigma_bar = sigma_a_bar + sigma_b_bar + sigma_c_bar + sigma_d_bar
    r_bar = t4_bar + r_b_bar
    T_bar = T_a_bar + T_b_bar + T_c_bar
    K_bar = K_a_bar + K_b_bar
    S_bar = S_a_bar + S_b_bar
    return S_bar, K_bar, T_bar, r_bar, sigma_bar
