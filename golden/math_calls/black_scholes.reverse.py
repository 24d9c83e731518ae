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
    d2 = d1 - t6
    t7 = math.sqrt(2.0)
    t8 = d1 / t7
    t9 = 1.0 + math.erf(t8)
    N1 = 0.5 * t9
    t10 = d2 / t7
    t11 = 1.0 + math.erf(t10)
    N2 = 0.5 * t11
    t12 = -r
    t13 = t12 * T
    t14 = math.exp(t13)
    t15 = K * t14
    # line 25: return S * N1 - K * math.exp(-r * T) * N2
    t15_bar = -N2
    N2_bar = -t15
    K_b_bar = t15_bar * t14
    t14_bar = t15_bar * K
    t13_bar = t14_bar * t14
    t12_bar = t13_bar * T
    T_c_bar = t13_bar * t12
    S_b_bar = N1
    N1_bar = S
    # line 24: N2 = 0.5 * (1.0 + math.erf(d2 / math.sqrt(2.0)))
    t11_bar = N2_bar * 0.5
    t10_bar = t11_bar * 1.1283791670955126 * math.exp(-t10 * t10)
    d2_bar = t10_bar / t7
    # line 23: N1 = 0.5 * (1.0 + math.erf(d1 / math.sqrt(2.0)))
    t9_bar = N1_bar * 0.5
    t8_bar = t9_bar * 1.1283791670955126 * math.exp(-t8 * t8)
    d1_b_bar = t8_bar / t7
    # line 22: d2 = d1 - sigma * sqrtT
    t16_bar = -d2_bar
    sigma_d_bar = t16_bar * sqrtT
    sqrtT_b_bar = t16_bar * sigma
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
    # line 20: sqrtT = math.sqrt(T)
    sqrtT_bar = sqrtT_a_bar + sqrtT_b_bar
    T_a_bar = sqrtT_bar / (2.0 * sqrtT)
    # adjoint of sigma: the sum over its uses
    sigma_bar = sigma_a_bar + sigma_b_bar + sigma_c_bar + sigma_d_bar
    r_bar = t4_bar - t12_bar
    T_bar = T_a_bar + T_b_bar + T_c_bar
    K_bar = K_b_bar - t1_bar * t1 / K
    S_bar = S_a_bar + S_b_bar
    return S_bar, K_bar, T_bar, r_bar, sigma_bar
