"""Runtime AD engines: independent witnesses for the compiler, and a fallback when a
function's source cannot be read.

Contract
--------
* `tape_grad(f, args, wrt=0, kwargs=None)` (reverse mode on a Wengert list, `tape`)
  and `dual_grad(f, args, wrt=0, kwargs=None)` (forward mode with vector dual
  numbers, `dual`) both return ``(f(*args), gradient)``. `wrt` is a position, a
  parameter name or a tuple of them; a tuple gives a tuple of gradients. A float
  argument gets a float, a list of floats a list, an ndarray an array.
* They run the user's function itself on traced values (`traced`), with `math`,
  ``from math import ...`` names and ``float`` replaced in a copy of its globals and
  in the Python functions it calls (`shim`). Derivatives of primitives come from the
  compiler's rule tables (`s2sad.primitives`); nothing here imports the compiler pipeline
  (parse, anf, dup, activity, reverse, simplify, emit, compile, pipeline, api).
* `dual_jacobian(f, args, wrt=0, kwargs=None)` returns ``(value, J)`` for an `f` with
  any number of outputs (numbers, arrays, lists and tuples of them), one row of `J`
  per output scalar; run over a gradient function it gives the Hessian.
* Callables the user registered a rule for (`s2sad.register_rule`) are
  differentiated with that rule: the tape reads the reverse rule, the dual numbers
  the forward rule.
* Control flow follows the primal values; comparisons, ``int``, ``round`` and ``//``
  give plain numbers.
* What an engine cannot follow raises `EngineError`, a subclass of
  `s2sad.errors.S2SADError`, naming the operation; an error the function raises by
  itself propagates unchanged.
* `irrun.run_ir` runs the compiler's dup-stage IR with traced values (used by
  `s2sad.graph` (module `s2sad.graphs`) to label a graph with values and adjoints).
"""

from .dual import Dual, dual_grad
from .dual import jacobian as dual_jacobian
from .tape import Tape, Var, tape_grad, trace
from .primitives import EngineError

__all__ = ["tape_grad", "dual_grad", "dual_jacobian", "trace", "Tape", "Var", "Dual",
           "EngineError"]
