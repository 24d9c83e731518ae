"""api: what users call.

Its modules, each importing only those listed before it:

* `arguments`: which parameters `wrt` names, binding a call's arguments, their
  kinds, the types derivatives are given back with, the shared options.
* `guards`: what a built derivative depends on outside its arguments (the
  functions its names meant, the kinds of the values it read), and the checks that
  it still holds.
* `dispatch`: the compiled derivatives and their caches, the lock the pipeline
  runs under, and `grad`'s generated dispatcher (`dispatch.State`).
* `shapes`: the structure of arguments, tangents and derivative blocks.
* `debug`: the run-time NaN debugger.
* `forward`: `jvp`, `derivative`, the gradient by forward mode, `hessian`, `hvp`,
  ``grad(grad(f))``.
* `reverse`: `grad`, `value_and_grad`, `vjp`, `source`.
* `jacobians`: `jacobian`, by forward or reverse mode.
* `gradcheck` (`s2sad.check`) and `graphs` (`s2sad.graph`).
* `explain` (`s2sad.explain`): the function and its derivative side by side, as
  an HTML page.

May import everything below it: `driver`, `backend`, `engines` and the packages
they use.
"""

from .reverse import grad, source, value_and_grad, vjp
from .forward import derivative, hessian, hvp, jvp
from .jacobians import jacobian

__all__ = ["grad", "source", "value_and_grad", "vjp", "derivative", "hessian", "hvp",
           "jacobian", "jvp"]
