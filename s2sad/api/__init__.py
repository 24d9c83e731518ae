"""api: what users call.

Owns argument checking, the caches and their lock, the reverse-mode entry points
(`reverse`: grad, value_and_grad, vjp, source), forward mode and second
derivatives (`forward`), the numerical check (`gradcheck`), the graph view
(`graphs`) and the run-time debugger (`debug`). May import everything below it:
`driver`, `backend`, `engines` and the packages they use.
"""

from .reverse import grad, source, value_and_grad, vjp
from .forward import derivative, hessian, hvp, jvp
from .jacobians import jacobian

__all__ = ["grad", "source", "value_and_grad", "vjp", "derivative", "hessian", "hvp",
           "jacobian", "jvp"]
