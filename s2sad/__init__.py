"""s2sad: source-to-source automatic differentiation for Python.

    import s2sad

    @s2sad.grad
    def f(x):
        return x * x + 3 * x + 2

    f(5.0)  # 13.0

s2sad logs through ``logging.getLogger("s2sad")`` (a `logging.NullHandler`: nothing
is printed unless you configure logging): each derivative built, with the time of
each stage, each disk cache hit, miss, store and eviction, each derivative built again
because a function it calls was rebound. ``S2SAD_LOG=1`` (or a level: ``debug``,
``info``) in the environment prints them on stderr.
"""

import logging as _logging
import os as _os
import warnings as _warnings

from .api import grad, source, value_and_grad, vjp
from .backend.cachefiles import DiskCacheWarning
from .backend.native import NativeWarning
from .backend.diskcache import clear as clear_disk_cache
from .backend.diskcache import info as disk_cache_info
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
from .api.structured import (register_container, tree_flatten, tree_leaves, tree_map,
                             tree_unflatten)

__version__ = "0.1.0"

_LOG_VARIABLE = "S2SAD_LOG"


def _log_to_stderr(value: str):
    """The stderr handler ``S2SAD_LOG`` asks for, attached to the ``s2sad`` logger at
    its level: ``1`` (``true``, ``yes``, ``on``) INFO, a level's name or number that
    level; nothing for ``0`` (``false``, ``no``, ``off``) or an empty value."""
    text = value.strip().lower()
    if text in ("", "0", "false", "no", "off"):
        return None
    level = _logging.INFO if text in ("1", "true", "yes", "on") else \
        int(text) if text.isdigit() else _logging.getLevelName(text.upper())
    if not isinstance(level, int):
        _warnings.warn(f"{_LOG_VARIABLE}={value!r} is not a logging level (1, info, debug); "
                       "logging at INFO", stacklevel=3)
        level = _logging.INFO
    handler = _logging.StreamHandler()
    handler.setFormatter(_logging.Formatter("%(name)s: %(message)s"))
    logger = _logging.getLogger(__name__)
    logger.addHandler(handler)
    logger.setLevel(level)
    return handler


_logging.getLogger(__name__).addHandler(_logging.NullHandler())
_log_to_stderr(_os.environ.get(_LOG_VARIABLE, ""))

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
    "disk_cache_info",
    "DiskCacheWarning",
    "NativeWarning",
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
    "tree_map",
    "tree_flatten",
    "tree_unflatten",
    "tree_leaves",
    "register_container",
]
