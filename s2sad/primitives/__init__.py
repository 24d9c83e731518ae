"""Derivative rules of primitives: the tables, the registry, and the templates the
compiler inlines.

Owns the rule registry (`registry`: `Rule`, the tables `REVERSE` and `FORWARD`,
lookup by a call's input kinds, `register_rule`, `nondifferentiable`,
`stop_gradient`), the template machinery that reads a rule's ``def`` and inlines it
(`templates`), and the built-in rules: `forward` and `reverse` (arithmetic, `math`,
NumPy's elementwise functions, reductions and shapes), `linalg_forward` and
`linalg_reverse` (NumPy's linear algebra), `shaping_forward` and `shaping_reverse`
(NumPy's functions that reorder, pick, pad, repeat and contract arrays: ``np.sort``,
``np.take``, ``np.pad``, ``np.einsum``, ``np.median``...), `ufuncs_forward` and
`ufuncs_reverse` (the ufuncs named like the operators, such as ``np.multiply``, more
elementwise functions, ``.item()``, ``math.gamma`` and its kin), `helpers` (forward
rules of the runtime helpers that reverse code calls) and SciPy's: `scipy_special`,
`scipy_stats` and `scipy_stats_more` (the distributions' ``logpdf``, ``pdf``,
``cdf``...), `scipy_linalg` (``solve_triangular``, ``cho_factor``/``cho_solve``,
``sqrtm``...) and `scipy_signal` (``convolve``, ``correlate``), each loaded once the SciPy module it covers is
imported (`registry.OPTIONAL`). Rule bodies may call the runtime; this package
knows nothing of the transforms.

May import `ir`, `runtime` and `errors`.
"""

from .registry import (FORWARD, MOVES_WITH_ARGUMENTS, NONDIFFERENTIABLE, ON_CHANGE, OPERATORS,
                       REDUCTIONS, REVERSE, Rule, arities, candidates, has_rule, key_name, lookup,
                       nondifferentiable, register_rule, stop_gradient)
from .templates import NOT_LITERAL, fold, helper_objects, literal
# (the tables' decorators fill the registry as they are imported)
from . import forward, helpers, linalg_forward, linalg_reverse, reverse  # noqa: F401
from . import ufuncs_forward, ufuncs_reverse  # noqa: F401
from . import shaping_forward, shaping_reverse  # noqa: F401

__all__ = ["FORWARD", "MOVES_WITH_ARGUMENTS", "NONDIFFERENTIABLE", "NOT_LITERAL", "ON_CHANGE",
           "OPERATORS", "REDUCTIONS", "REVERSE", "Rule", "arities", "candidates", "fold",
           "has_rule", "helper_objects", "key_name", "literal", "lookup", "nondifferentiable",
           "register_rule", "stop_gradient"]
