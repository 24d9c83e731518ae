"""s2sad: source-to-source automatic differentiation for Python.

    import s2sad

    @s2sad.grad
    def f(x):
        return x * x + 3 * x + 2

    f(5.0)  # 13.0
"""

from .api import grad, source, value_and_grad, vjp
from .backend.diskcache import DiskCacheWarning
from .backend.diskcache import clear as clear_disk_cache
from .backend.diskcache import directory as disk_cache_dir
from .backend.diskcache import disable as disable_disk_cache
from .backend.diskcache import enable as enable_disk_cache
from .api import derivative, hessian, hvp, jacobian, jvp
from .errors import (
    GradientCheckError,
    IntegerArgumentError,
    NonScalarOutputError,
    NoRuleError,
    NonFiniteError,
    NotDifferentiableError,
    CheckpointError,
    ComplexArgumentError,
    OptionError,
    S2SADError,
    SourceNotFoundError,
    StaleSourceError,
    UnresolvedNameError,
    UnsupportedSyntaxError,
    WrtError,
)
from .engines import EngineError
from .api.graphs import graph
from .api.explain import Explanation, explain
from .api.gradcheck import CheckReport, check
from .primitives import nondifferentiable, register_rule, stop_gradient
from .checkpoint import checkpointed

__version__ = "0.1.0"

__all__ = [
    "jvp",
    "hessian",
    "jacobian",
    "hvp",
    "derivative",
    "grad",
    "value_and_grad",
    "vjp",
    "source",
    "check",
    "CheckReport",
    "graph",
    "explain",
    "Explanation",
    "register_rule",
    "nondifferentiable",
    "stop_gradient",
    "enable_disk_cache",
    "disable_disk_cache",
    "clear_disk_cache",
    "disk_cache_dir",
    "DiskCacheWarning",
    "S2SADError",
    "UnsupportedSyntaxError",
    "SourceNotFoundError",
    "StaleSourceError",
    "UnresolvedNameError",
    "NoRuleError",
    "NonFiniteError",
    "NonScalarOutputError",
    "WrtError",
    "OptionError",
    "ComplexArgumentError",
    "IntegerArgumentError",
    "NotDifferentiableError",
    "GradientCheckError",
    "EngineError",
    "checkpointed",
    "CheckpointError",
]
