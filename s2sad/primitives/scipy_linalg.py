"""Rules for ``scipy.linalg``: ``solve_triangular``, ``cho_factor`` and ``cho_solve``,
``solve_sylvester``, ``sqrtm`` and ``expm``.

Loaded by `s2sad.primitives` the first time a rule is looked up after ``scipy.linalg``
has been imported, as `scipy_special` is; paired reverse and forward rules in the
form of `linalg_reverse` and `linalg_forward`, checked by
`tests/test_scipy_linalg_rules.py`.

* ``solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False)`` solves
  ``op(a) x = b`` reading one triangle of `a` (without its diagonal where
  ``unit_diagonal``): `a`'s adjoint is ``-b_bar x^T`` (transposed where ``trans`` is 1,
  2, 'T' or 'C') in that triangle and 0 in the other, as central differences of
  SciPy's function see it; `b`'s is a solve with the other ``trans``.
* ``cho_factor(a, lower=False)`` returns ``(c, lower)``: c holds the Cholesky factor
  in one triangle and `a`'s entries, as they were, in the other (SciPy leaves them
  there), so c's adjoint in that other triangle passes to `a` unchanged, and the
  factor's goes through the Cholesky adjoint to the triangle of `a` it reads.
* ``cho_solve((c, lower), b)`` solves ``(l l^T) x = b`` with l the factor in c's
  triangle: c's adjoint is ``(m + m^T) l`` in that triangle (``m = -b_bar x^T``),
  ``lower`` has none.
* ``solve_sylvester(a, b, q)``: ``a x + x b = q``; the adjoint of q solves the
  transposed equation, ``a_bar = -q_bar x^T``, ``b_bar = -x^T q_bar``.
* ``sqrtm(a)`` (real, without ``disp`` or ``blocksize``): ``x x = a`` gives
  ``x_dot = solve_sylvester(x, x, a_dot)`` and ``a_bar = solve_sylvester(x^T, x^T,
  x_bar)``, so its second derivatives go through ``solve_sylvester``'s rules.
* ``expm(a)`` of a matrix: ``a_dot``'s tangent is the upper-right block of
  ``expm([[a, a_dot], [0, a]])`` (the Frechet derivative), and ``a_bar`` that of
  ``expm([[a^T, out_bar], [0, a^T]])``: one exponential of twice the size each.

``b`` of ``solve_triangular`` and ``cho_solve`` is a vector or a matrix (one rule
variant each, `registry.Rule.when`), as SciPy takes it.
"""

import numpy as np
from scipy import linalg

from ..runtime import unbroadcast
from .facts import TABLE, Facts
from .registry import FORWARD, REVERSE, add_rule
from .shape_rules import first


def reverse(key, when=None):
    def register(func):
        add_rule(REVERSE, "reverse", key, func, when)
        return func

    return register


def forward(key, when=None):
    def register(func):
        add_rule(FORWARD, "forward", key, func, when)
        return func

    return register


# -------------------------------------------------------- triangular solves


@reverse(linalg.solve_triangular, when=("2d", "1d"))
def solve_triangular_reverse_1d(a, b, *, trans=0, lower=False, unit_diagonal=False,
                                overwrite_b=False, check_finite=True, out, out_bar):
    b_bar = linalg.solve_triangular(a, out_bar, trans=0 if trans in (1, 2, "T", "C") else 1,
                                    lower=lower, unit_diagonal=unit_diagonal)
    g = -np.outer(out, b_bar) if trans in (1, 2, "T", "C") else -np.outer(b_bar, out)
    return (np.tril(g, -1) if unit_diagonal else np.tril(g)) if lower else \
        (np.triu(g, 1) if unit_diagonal else np.triu(g)), b_bar


@forward(linalg.solve_triangular, when=("2d", "1d"))
def solve_triangular_forward_1d(a, b, *, trans=0, lower=False, unit_diagonal=False,
                                overwrite_b=False, check_finite=True, out, a_dot, b_dot):
    read = (np.tril(a_dot, -1) if unit_diagonal else np.tril(a_dot)) if lower else \
        (np.triu(a_dot, 1) if unit_diagonal else np.triu(a_dot))
    return linalg.solve_triangular(a, -((read.T if trans in (1, 2, "T", "C") else read) @ out),
                                   trans=trans, lower=lower, unit_diagonal=unit_diagonal), \
        linalg.solve_triangular(a, b_dot, trans=trans, lower=lower, unit_diagonal=unit_diagonal)


@reverse(linalg.solve_triangular, when=("2d", "2d"))
def solve_triangular_reverse_2d(a, b, *, trans=0, lower=False, unit_diagonal=False,
                                overwrite_b=False, check_finite=True, out, out_bar):
    b_bar = linalg.solve_triangular(a, out_bar, trans=0 if trans in (1, 2, "T", "C") else 1,
                                    lower=lower, unit_diagonal=unit_diagonal)
    g = -(out @ b_bar.T) if trans in (1, 2, "T", "C") else -(b_bar @ out.T)
    return (np.tril(g, -1) if unit_diagonal else np.tril(g)) if lower else \
        (np.triu(g, 1) if unit_diagonal else np.triu(g)), b_bar


@forward(linalg.solve_triangular, when=("2d", "2d"))
def solve_triangular_forward_2d(a, b, *, trans=0, lower=False, unit_diagonal=False,
                                overwrite_b=False, check_finite=True, out, a_dot, b_dot):
    read = (np.tril(a_dot, -1) if unit_diagonal else np.tril(a_dot)) if lower else \
        (np.triu(a_dot, 1) if unit_diagonal else np.triu(a_dot))
    return linalg.solve_triangular(a, -((read.T if trans in (1, 2, "T", "C") else read) @ out),
                                   trans=trans, lower=lower, unit_diagonal=unit_diagonal), \
        linalg.solve_triangular(a, b_dot, trans=trans, lower=lower, unit_diagonal=unit_diagonal)


# ---------------------------------------------------------------- Cholesky
# (with l the lower factor, l l^T = a: l_bar's adjoint in the lower triangle of a is
# phi(l^T l_bar) between l^-T and l^-1, phi taking the lower triangle with its diagonal
# halved, then g + g^T there and the diagonal once, as np.linalg.cholesky's rule; an
# upper factor u is l^T, reading a's upper triangle)


@reverse(linalg.cho_factor)
def cho_factor_reverse(a, *, lower=False, overwrite_a=False, check_finite=True, out, out_bar):
    n = a.shape[-1]
    l = np.tril(out[0]) if lower else np.triu(out[0]).T
    c_bar = unbroadcast(out_bar[0], out[0])  # (zeros where c is not read)
    l_bar = np.tril(c_bar) if lower else np.triu(c_bar).T
    l_inv = linalg.solve_triangular(l, np.eye(n), lower=True)
    g = l_inv.T @ ((l.T @ l_bar) * (np.tri(n) - 0.5 * np.eye(n))) @ l_inv
    g = (g + g.T) * np.tri(n) - g * np.eye(n)
    return g + np.triu(c_bar, 1) if lower else g.T + np.tril(c_bar, -1)


@forward(linalg.cho_factor)
def cho_factor_forward(a, *, lower=False, overwrite_a=False, check_finite=True, out, a_dot):
    # (l_dot = l phi(l^-1 a_dot_sym l^-T), a_dot_sym the symmetric matrix a_dot's read
    # triangle stands for; c's other triangle moves with a's)
    n = a.shape[-1]
    l = np.tril(out[0]) if lower else np.triu(out[0]).T
    read = np.tril(a_dot) if lower else np.triu(a_dot).T
    s = read + np.tril(read, -1).T
    l_inv = linalg.solve_triangular(l, np.eye(n), lower=True)
    l_dot = l @ ((l_inv @ s @ l_inv.T) * (np.tri(n) - 0.5 * np.eye(n)))
    c_and_lower_dot = (l_dot + np.triu(a_dot, 1) if lower else l_dot.T + np.tril(a_dot, -1),
                       0.0)
    return c_and_lower_dot


@reverse(linalg.cho_solve, when=("any", "1d"))
def cho_solve_reverse_1d(c_and_lower, b, *, overwrite_b=False, check_finite=True, out,
                         out_bar):
    b_bar = linalg.cho_solve(c_and_lower, out_bar)
    m = np.outer(b_bar, out)
    m = -(m + m.T)
    c = c_and_lower[0]
    return (np.tril(m @ np.tril(c)) if c_and_lower[1] else np.triu(np.triu(c) @ m), None), \
        b_bar


@forward(linalg.cho_solve, when=("any", "1d"))
def cho_solve_forward_1d(c_and_lower, b, *, overwrite_b=False, check_finite=True, out,
                         c_and_lower_dot, b_dot):
    c = c_and_lower[0]
    l = np.tril(c) if c_and_lower[1] else np.triu(c).T
    l_dot = np.tril(c_and_lower_dot[0]) if c_and_lower[1] else np.triu(c_and_lower_dot[0]).T
    return linalg.cho_solve(c_and_lower, -(l_dot @ (l.T @ out) + l @ (l_dot.T @ out))), \
        linalg.cho_solve(c_and_lower, b_dot)


@reverse(linalg.cho_solve, when=("any", "2d"))
def cho_solve_reverse_2d(c_and_lower, b, *, overwrite_b=False, check_finite=True, out,
                         out_bar):
    b_bar = linalg.cho_solve(c_and_lower, out_bar)
    m = b_bar @ out.T
    m = -(m + m.T)
    c = c_and_lower[0]
    return (np.tril(m @ np.tril(c)) if c_and_lower[1] else np.triu(np.triu(c) @ m), None), \
        b_bar


@forward(linalg.cho_solve, when=("any", "2d"))
def cho_solve_forward_2d(c_and_lower, b, *, overwrite_b=False, check_finite=True, out,
                         c_and_lower_dot, b_dot):
    c = c_and_lower[0]
    l = np.tril(c) if c_and_lower[1] else np.triu(c).T
    l_dot = np.tril(c_and_lower_dot[0]) if c_and_lower[1] else np.triu(c_and_lower_dot[0]).T
    return linalg.cho_solve(c_and_lower, -(l_dot @ (l.T @ out) + l @ (l_dot.T @ out))), \
        linalg.cho_solve(c_and_lower, b_dot)


# --------------------------------------------------- Sylvester, square root


@reverse(linalg.solve_sylvester)
def solve_sylvester_reverse(a, b, q, out, out_bar):
    q_bar = linalg.solve_sylvester(a.T, b.T, out_bar)
    return -(q_bar @ out.T), -(out.T @ q_bar), q_bar


@forward(linalg.solve_sylvester)
def solve_sylvester_forward(a, b, q, out, a_dot, b_dot, q_dot):
    return linalg.solve_sylvester(a, b, -(a_dot @ out)), \
        linalg.solve_sylvester(a, b, -(out @ b_dot)), linalg.solve_sylvester(a, b, q_dot)


@reverse(linalg.sqrtm)
def sqrtm_reverse(a, out, out_bar):
    return linalg.solve_sylvester(out.T, out.T, out_bar)


@forward(linalg.sqrtm)
def sqrtm_forward(a, out, a_dot):
    return linalg.solve_sylvester(out, out, a_dot)


# ------------------------------------------------------------ matrix exponential
# (the Frechet derivative of expm at a in the direction e is the upper-right block of
# expm([[a, e], [0, a]]); the adjoint is that derivative at a.T in the direction of the
# result's adjoint. Built with np.vstack and np.hstack, whose rules, with expm's own,
# carry second derivatives)


@reverse(linalg.expm, when=("2d",))
def expm_reverse(a, out, out_bar):
    n = a.shape[-1]
    at = a.T
    return linalg.expm(np.vstack((np.hstack((at, out_bar)),
                                  np.hstack((np.zeros_like(at), at)))))[:n, n:]


@forward(linalg.expm, when=("2d",))
def expm_forward(a, out, a_dot):
    n = a.shape[-1]
    return linalg.expm(np.vstack((np.hstack((a, a_dot)),
                                  np.hstack((np.zeros_like(a), a)))))[:n, n:]


def _factor(a):
    """The shapes of ``cho_factor``'s ``(c, lower)``."""
    x = a.shapes[0] if a.shapes else None
    return None if x is None else [tuple(x), ()]


def _solved(a):
    """The shape of ``cho_solve``'s result: b's."""
    return a.shapes[1] if len(a.shapes) > 1 else None


TABLE.update({linalg.solve_triangular: Facts(shape=_solved), linalg.cho_factor:
              Facts(shape=_factor, flags=(1,)), linalg.cho_solve: Facts(shape=_solved),
              linalg.solve_sylvester: Facts(shape=first), linalg.sqrtm: Facts(shape=first),
              linalg.expm: Facts(shape=first)})
