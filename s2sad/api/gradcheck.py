"""gradcheck: `s2sad.check`, a gradient checker (in the spirit of JAX's `check_grads`
and PyTorch's `gradcheck`).

Contract
--------
`check(f, *args, wrt=0, order=1, rtol=1e-6, atol=1e-8, raise_on_failure=True,
kwargs=None)` computes the derivatives of `f`'s scalar output at `args` with respect
to `wrt` (a position, a name or a tuple of them; float, list-of-floats and ndarray
arguments) by several methods, compares each with a reference, and returns a
`CheckReport`.

* ``order=1``, the gradient. Methods: ``reverse`` (`s2sad.grad`, the compiler),
  ``forward`` (the compiler's forward mode, one pass per input number), ``tape``
  and ``dual`` (the runtime engines, `s2sad.engines`). Reference: ``central
  differences``.
* ``order=2``, the Hessian of the `wrt` arguments (their scalars flattened in order).
  Methods: ``forward over reverse`` (`s2sad.hessian`), ``dual over reverse`` (dual
  numbers run through the compiled gradient's code), ``reverse + differences``, ``tape + differences`` and
  ``dual + differences`` (central differences of each method's gradient). The
  engines do not nest in each other (they trace plain numbers only), so ``dual over
  tape`` is reported as not available. ``forward over reverse`` is `s2sad.hessian`:
  the compiler's forward mode of its own reverse code. Reference: ``central
  differences``, second differences of `f` itself.
* Central differences are Richardson-extrapolated from the steps ``h`` and ``h/2``
  (``h = 2**-10`` or, for second differences, ``2**-8``, times ``max(1, |x|)``).
  Their error estimate is the difference from the same extrapolation one step size
  up (an overestimate of the truncation error) plus a bound on the rounding error.
  Where an estimate exceeds the tolerance (a kink or a branch within the step),
  smaller steps are tried and each number keeps the step with the smallest
  estimate; a reference still that uncertain gets a note in the report. A
  differenced method carries its own estimate too.
* A method agrees when, for every scalar, ``|method - reference| <= atol + rtol *
  |reference| + the estimates of both``. A method that raises shows as ``could not
  run: <reason>`` and is not a disagreement. If the differences cannot run (the
  function raises or overflows near the point), the first method that ran is the
  reference and the estimates are zero.
* ``ok``: no method disagrees and at least two methods (the reference included) ran.
  When not ok and `raise_on_failure` is true (the default, as in JAX and PyTorch: a
  check whose result nobody reads must not pass silently), `GradientCheckError`
  carries the report and prints its table.
* Mistakes in the call raise before anything runs: a `wrt` that names no parameter
  (`WrtError`), an integer where a gradient is asked (`IntegerArgumentError`), an
  output that is not one number (`NonScalarOutputError`), an `order` other than 1
  or 2; an error `f` itself raises at `args` propagates unchanged.
"""

from __future__ import annotations

import inspect
import numbers
import sys
import textwrap
import types
from dataclasses import dataclass, field

import numpy as np

from ..engines import args as engine_args
from ..engines import dual_grad, dual_jacobian, tape_grad
from ..errors import GradientCheckError, NonScalarOutputError, S2SADError
from . import dispatch, structured
from .arguments import normalize_wrt, public, signature_params
from .forward import hessian
from .reverse import grad

# base steps of central differences, the first tried first (times max(1, |x|))
STEPS = {1: (2.0 ** -10, 2.0 ** -14, 2.0 ** -18), 2: (2.0 ** -8, 2.0 ** -11, 2.0 ** -14)}
EPS = sys.float_info.epsilon

REFERENCE = "central differences"
NO_NESTING = "the engines trace plain numbers only, so one cannot run inside the other"

LEGEND = {
    1: ["reverse, forward: s2sad.grad in the compiler's two modes; tape, dual: the runtime "
        "engines; central differences: Richardson-extrapolated, with an error estimate (±)."],
    2: ["A over B: engine A run through B's gradient code; B + differences: central "
        "differences of B's gradient; central differences: second differences of f."],
}


# ------------------------------------------------------------------ the report


@dataclass
class MethodResult:
    """One way of computing the derivative and how it compares with the reference.

    `status` is ``"reference"``, ``"agrees"``, ``"disagrees"``, ``"could not run"``,
    ``"not available"`` or ``"not available yet"``. `derivative` is what the method computed (the gradient in
    the form `s2sad.grad` returns it, or the Hessian as a 2-d array). `max_error` is
    the largest ``|method - reference|`` and `where` the scalar it occurs at (for the
    reference: its largest error estimate). `reason` says why a method did not run.
    """

    name: str
    status: str
    derivative: object = None
    max_error: float | None = None
    where: str | None = None
    reason: str | None = None
    estimate: object = field(default=None, repr=False)  # flat error estimate, or None
    flat: object = field(default=None, repr=False)  # flat derivative, or None

    @property
    def ran(self) -> bool:
        return self.status in ("reference", "agrees", "disagrees")

    @property
    def agrees(self) -> bool | None:
        """True or False for a method that ran (the reference agrees), else None."""
        return self.status in ("reference", "agrees") if self.ran else None


@dataclass(repr=False)
class CheckReport:
    """What `s2sad.check` found; `str(report)` is a table, ``bool(report)`` is `ok`."""

    function: str
    at: str
    wrt: tuple
    order: int
    rtol: float
    atol: float
    methods: list
    ok: bool
    reference: str
    notes: list = field(default_factory=list)

    def method(self, name: str) -> MethodResult:
        for m in self.methods:
            if m.name == name:
                return m
        raise KeyError(f"no method {name!r}; the methods are "
                       f"{', '.join(m.name for m in self.methods)}")

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        what = "gradient" if self.order == 1 else "second derivatives"
        lines = [f"s2sad.check: {self.function}({self.at}), {what} with respect to "
                 f"{', '.join(self.wrt)}: {'ok' if self.ok else 'NOT OK'}", ""]
        rows = [("method", "result", "max error", "at", "derivative")]
        for m in self.methods:
            if m.ran:
                error = "-" if m.max_error is None else _number(m.max_error)
                if m.status == "reference" and m.max_error is not None:
                    error = "±" + error
                rows.append((m.name, m.status, error, m.where or "-", _show(m.derivative)))
            else:
                rows.append((m.name, f"{m.status}: {m.reason}"))
        widths = [max(len(r[i]) for r in rows if len(r) > 2) for i in range(4)]
        widths[0] = max(len(r[0]) for r in rows)
        for r in rows:
            if len(r) == 2:
                lines.append(r[0].ljust(widths[0]) + "  " + r[1])
            else:
                lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)) + "  " + r[4])
        lines.append("")
        rule = (f"Agreement: |method - {self.reference}| <= atol + rtol * |{self.reference}| "
                f"+ error estimates, for every number (rtol={self.rtol:g}, "
                f"atol={self.atol:g}).")
        for paragraph in self.notes:
            lines.extend(textwrap.wrap(paragraph, 88, break_on_hyphens=False,
                                       break_long_words=False))
        if self.notes:
            lines.append("")
        for paragraph in LEGEND[self.order] + [rule]:
            lines.extend(textwrap.wrap(paragraph, 88, break_on_hyphens=False,
                                       break_long_words=False))
        return "\n".join(lines)

    __repr__ = __str__


def _number(x: float) -> str:
    return "0" if x == 0 else f"{x:.2g}"


def _float(x: float, digits=10) -> str:
    text = f"{x:.{digits}g}"
    return text if any(c in text for c in ".ein") else text + ".0"


def _show(value) -> str:
    """A derivative on one line, 10 significant digits."""
    if value is None:
        return "-"
    if isinstance(value, tuple):
        return "(" + ", ".join(_show(v) for v in value) + ")"
    if isinstance(value, list):
        items = [_show(v) for v in value[:6]] + (["..."] if len(value) > 6 else [])
        return "[" + ", ".join(items) + "]"
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return _show(float(value))
        text = np.array2string(value, separator=", ", threshold=12, edgeitems=3,
                               max_line_width=10 ** 6,
                               formatter={"float_kind": _float})
        return " ".join(text.split())
    if isinstance(value, numbers.Integral):
        return str(value)
    if isinstance(value, numbers.Real):
        return _float(float(value))
    return repr(value)


# ------------------------------------------------------------------ the point


class _Point:
    """The arguments of the check and the scalars the derivatives are taken for."""

    def __init__(self, f, args, kwargs, positions, names):
        self.f = f
        self.args = list(args)
        self.kwargs = kwargs
        self.positions = positions
        self.labels, self.slots, values = [], [], []
        for pos in positions:
            name = names[pos] if pos < len(names) else f"argument {pos}"
            value = args[pos]
            if isinstance(value, list):
                for k, v in enumerate(value):
                    self.labels.append(f"{name}[{k}]")
                    self.slots.append((pos, k))
                    values.append(float(v))
            elif isinstance(value, np.ndarray):
                for k, v in enumerate(value.ravel()):
                    index = np.unravel_index(k, value.shape)
                    self.labels.append(f"{name}[{', '.join(map(str, index))}]"
                                       if value.ndim else name)
                    self.slots.append((pos, k))
                    values.append(float(v))
            else:
                self.labels.append(name)
                self.slots.append((pos, None))
                values.append(float(value))
        self.x = np.array(values, dtype=float)

    def args_at(self, x) -> list:
        """The arguments with the differentiated scalars replaced by `x`."""
        out = list(self.args)
        for pos in self.positions:
            original = self.args[pos]
            if isinstance(original, list):
                out[pos] = list(original)
            elif isinstance(original, np.ndarray):
                out[pos] = np.array(original, dtype=original.dtype)
        for (pos, k), v in zip(self.slots, x):
            if k is None:
                out[pos] = type(self.args[pos])(v)
            elif isinstance(out[pos], list):
                out[pos][k] = float(v)
            else:
                out[pos].reshape(-1)[k] = v
        return out

    def value(self, x) -> float:
        out = self.f(*self.args_at(x), **self.kwargs)
        return float(np.asarray(out))

    def flatten(self, gradient) -> np.ndarray:
        """A gradient (a tuple of one entry per wrt argument) as one flat array."""
        parts = [np.asarray(g, dtype=float).ravel() for g in gradient]
        flat = np.concatenate(parts) if parts else np.zeros(0)
        if flat.shape != self.x.shape:
            raise S2SADError(f"the gradient has {flat.size} numbers, expected {self.x.size}")
        return flat


# ------------------------------------------------------------ central differences


def _first_differences(func, point, base):
    """Richardson-extrapolated central differences of `func` (from a flat point to a
    number or a flat array) along every scalar, steps ``base * max(1, |x|)``:
    (derivative, error estimate), one column per scalar."""
    steps = base * np.maximum(1.0, np.abs(point.x))
    columns, estimates = [], []
    for k, h in enumerate(steps):
        d, biggest = {}, 0.0
        for s in (2 * h, h, h / 2):
            up, down = point.x.copy(), point.x.copy()
            up[k] += s
            down[k] -= s
            fu, fd = np.asarray(func(up), dtype=float), np.asarray(func(down), dtype=float)
            biggest = np.maximum(biggest, np.maximum(np.abs(fu), np.abs(fd)))
            d[s] = (fu - fd) / (2 * s)
        fine = (4 * d[h / 2] - d[h]) / 3
        coarse = (4 * d[h] - d[2 * h]) / 3
        columns.append(fine)
        estimates.append(np.abs(fine - coarse) + 8 * EPS * biggest / h)
    return np.array(columns, dtype=float).T, np.array(estimates, dtype=float).T


def _second_differences(point, base):
    """The Hessian of `f` by Richardson-extrapolated second differences, steps
    ``base * max(1, |x|)``, and its error estimate."""
    steps = base * np.maximum(1.0, np.abs(point.x))
    n = len(steps)
    hess, est = np.zeros((n, n)), np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            d, biggest = {}, 0.0
            for scale in (2.0, 1.0, 0.5):
                si, sj = scale * steps[i], scale * steps[j]
                total = 0.0
                for a, b, sign in ((1, 1, 1), (1, -1, -1), (-1, 1, -1), (-1, -1, 1)):
                    x = point.x.copy()
                    x[i] += a * si
                    x[j] += b * sj
                    v = point.value(x)
                    biggest = max(biggest, abs(v))
                    total += sign * v
                d[scale] = total / (4 * si * sj)
            fine = (4 * d[0.5] - d[1.0]) / 3
            coarse = (4 * d[1.0] - d[2.0]) / 3
            hess[i, j] = hess[j, i] = fine
            est[i, j] = est[j, i] = (abs(fine - coarse)
                                     + 32 * EPS * biggest / (steps[i] * steps[j]))
    return hess, est


def _adaptive(differences, bases, rtol, atol):
    """`differences(base)` for the first base step, and for smaller ones while some
    estimate exceeds the tolerance (a kink or a branch within the step): each number
    from the step with the smallest estimate."""
    value, est = differences(bases[0])
    for base in bases[1:]:
        if np.all(est <= atol + rtol * np.abs(value)):
            break
        v, e = differences(base)
        better = e < est
        value, est = np.where(better, v, value), np.where(better, e, est)
    return value, est


def _finite(values, what):
    if not np.all(np.isfinite(values)):
        raise S2SADError(f"{what} gave a value that is not finite (an overflow or a "
                         "singularity near the point?)")
    return values


# ------------------------------------------------------------------ the methods


def _reason(exc) -> str:
    if isinstance(exc, S2SADError):
        text = exc.one_line()
    else:
        text = f"{type(exc).__name__}: {exc}"
    return text.splitlines()[0] if text else type(exc).__name__


def _gradient_methods(f, point, wrt, kwargs):
    """(name, function of a flat point giving the gradient as the method returns it)."""
    compiled = []

    def reverse(x):
        if not compiled:
            compiled.append(grad(f, wrt=wrt))
        return compiled[0](*point.args_at(x), **kwargs)

    def tape(x):
        return tape_grad(f, point.args_at(x), wrt, kwargs)[1]

    def dual(x):
        return dual_grad(f, point.args_at(x), wrt, kwargs)[1]

    def forward(x):
        return grad(f, wrt=wrt, mode="forward")(*point.args_at(x), **kwargs)

    return [("reverse", reverse), ("forward", forward), ("tape", tape), ("dual", dual)]


def _run(name, compute):
    """A `MethodResult` for a method that ran (flat derivative and estimate filled in)
    or could not."""
    try:
        derivative, flat, estimate = compute()
        _finite(flat, name)
    except Exception as exc:  # an S2SADError, or the derivative code raised (1 / 0, ...)
        return MethodResult(name, "could not run", reason=_reason(exc))
    return MethodResult(name, "agrees", derivative=derivative, flat=flat, estimate=estimate)


def _order1(f, point, wrt, kwargs, as_tuple, rtol, atol):
    def present(gradient):
        return gradient if as_tuple else gradient[0]

    def differences():
        grad, est = _adaptive(lambda b: _first_differences(point.value, point, b),
                              STEPS[1], rtol, atol)
        grad = np.ravel(grad)
        return _shaped(point, grad, as_tuple), grad, np.ravel(est)

    results = [_run(REFERENCE, differences)]
    for name, method in _gradient_methods(f, point, wrt, kwargs):
        def compute(method=method):
            g = method(point.x)
            return present(g), point.flatten(g), None
        results.append(_run(name, compute))
    return results


def _shaped(point, flat, as_tuple):
    """A flat gradient in the form `s2sad.grad` returns it."""
    out, offset = [], 0
    for pos in point.positions:
        original = point.args[pos]
        size = np.size(original) if not isinstance(original, list) else len(original)
        part = flat[offset:offset + size]
        offset += size
        if isinstance(original, list):
            out.append([float(v) for v in part])
        elif isinstance(original, np.ndarray):
            out.append(part.reshape(original.shape))
        else:
            out.append(float(part[0]))
    return tuple(out) if as_tuple else out[0]


def _order2(f, point, wrt, kwargs, rtol, atol):
    def differences():
        hess, est = _adaptive(lambda b: _second_differences(point, b), STEPS[2], rtol, atol)
        return hess, hess.ravel(), est.ravel()

    def dual_over_reverse():
        full = point.args_at(point.x)
        compiled = dispatch.compiled_grad(f, wrt, full, kwargs)
        _, jac = dual_jacobian(compiled, full, wrt, kwargs)
        if jac.shape != (point.x.size, point.x.size):
            raise S2SADError(f"the Jacobian of the gradient has shape {jac.shape}")
        return jac, jac.ravel(), None

    results = [_run(REFERENCE, differences), _run("dual over reverse", dual_over_reverse)]
    for name, method in _gradient_methods(f, point, wrt, kwargs):
        def compute(method=method):
            method(point.x)  # fails fast, with the method's own message
            hess, est = _adaptive(
                lambda b: _first_differences(lambda x: point.flatten(method(x)), point, b),
                STEPS[1], rtol, atol)
            return hess, hess.ravel(), est.ravel()
        results.append(_run(f"{name} + differences", compute))
    def forward_over_reverse():
        full = point.args_at(point.x)
        blocks = hessian(f, wrt=tuple(point.positions))(*full, **kwargs)
        sizes = [np.size(np.asarray(full[p], dtype=float)) for p in point.positions]
        hess = np.block([[np.reshape(np.asarray(b, dtype=float), (si, sj))
                          for b, sj in zip(row, sizes)] for row, si in zip(blocks, sizes)])
        return hess, hess.ravel(), None

    results.insert(2, _run("forward over reverse", forward_over_reverse))
    results.append(MethodResult("dual over tape", "not available", reason=NO_NESTING))
    return results


# ------------------------------------------------------------------ comparing


def _location(point, k, order) -> str:
    if order == 1:
        return point.labels[k]
    n = point.x.size
    return f"({point.labels[k // n]}, {point.labels[k % n]})"


def _judge(m, other, allowed, point, order, notes, versus=None) -> None:
    """Mark `m` as disagreeing where it is further than `allowed` from `other`."""
    err = np.abs(m.flat - other.flat)
    bad = err > allowed
    if not np.any(bad):
        return
    m.status = "disagrees"
    k = int(np.argmax(np.where(bad, err / allowed, -1.0)))
    count = int(np.sum(bad))
    more = f" ({count} of {err.size} numbers disagree)" if count > 1 else ""
    notes.append(f"{m.name} disagrees {'with ' + other.name + ' ' if versus else ''}at "
                 f"{_location(point, k, order)}: {_float(m.flat[k])} where {other.name} "
                 f"gives {_float(other.flat[k])} (error {_number(err[k])}, allowed "
                 f"{_number(allowed[k])}){more}.")


def _compare(results, point, order, rtol, atol, notes):
    ran = [m for m in results if m.ran]
    if not ran:
        return None
    reference = ran[0]
    reference.status = "reference"
    ref = reference.flat
    ref_est = reference.estimate if reference.name == REFERENCE else None
    ref_est = np.zeros_like(ref) if ref_est is None else ref_est
    loose = np.zeros(ref.shape, dtype=bool)
    if reference.name == REFERENCE and ref.size:
        k = int(np.argmax(ref_est))
        reference.max_error, reference.where = float(ref_est[k]), _location(point, k, order)
        margin = atol + rtol * np.abs(ref)
        loose = (ref_est > 10 * margin) & (ref_est > rtol * np.max(np.abs(ref)))
        if np.any(loose):
            k = int(np.argmax(np.where(loose, ref_est / margin, -1.0)))
            notes.append(f"Central differences are uncertain at {_location(point, k, order)} "
                         f"(estimated error {_number(ref_est[k])}; a kink, branch or "
                         "discontinuity near the point?): there the methods were compared "
                         "within that margin, and with each other.")
    elif reference.name != REFERENCE:
        notes.append(f"Central differences could not run, so {reference.name} is the "
                     "reference.")
    others = ran[1:]
    for m in others:
        err = np.abs(m.flat - ref)
        if err.size:
            k = int(np.argmax(err))
            m.max_error = float(err[k])
            m.where = _location(point, k, order) if err[k] > 0 else None
        own = np.zeros_like(err) if m.estimate is None else m.estimate
        _judge(m, reference, atol + rtol * np.abs(ref) + ref_est + own, point, order, notes)
    if np.any(loose) and len(others) >= 2:
        # where the differences say little, the other methods must agree with each other
        first = others[0]
        first_est = np.zeros_like(ref) if first.estimate is None else first.estimate
        for m in others[1:]:
            own = np.zeros_like(ref) if m.estimate is None else m.estimate
            allowed = np.where(loose, atol + rtol * np.abs(first.flat) + first_est + own,
                               np.inf)
            _judge(m, first, allowed, point, order, notes, versus=True)
    return reference


def _culprit(results, order) -> str | None:
    """Which derivative rules the disagreements point at."""
    bad = {m.name for m in results if m.status == "disagrees"}
    good = {m.name for m in results if m.status in ("agrees", "reference")}
    if order != 1 or not bad:
        return None
    if bad == {"reverse"} and {"tape", "dual"} <= good:
        return ("Only the compiled gradient disagrees: check the reverse rules you "
                "registered (s2sad.register_rule) for functions this one calls, or "
                "report it as a bug in s2sad with the output of `s2sad show`.")
    if bad >= {"reverse", "tape"} and "dual" in good:
        return ("reverse and tape use the reverse derivative rules, forward and dual the "
                "forward ones: check the reverse rules (a rule you registered with "
                "s2sad.register_rule?).")
    if bad and bad <= {"dual", "forward"} and "reverse" in good:
        return ("forward and dual use the forward derivative rules: check the forward rules "
                "(a rule you registered with s2sad.register_rule?).")
    return None


# ------------------------------------------------------------------ check


def _scalar(f, out):
    value = np.asarray(out) if isinstance(out, np.ndarray) else out
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return
    if isinstance(value, numbers.Real) and not isinstance(value, np.ndarray):
        return
    what = f"an array of shape {value.shape}" if isinstance(value, np.ndarray) else \
        f"a {type(value).__name__}"
    raise NonScalarOutputError(
        f"s2sad.check needs a function that returns one number; "
        f"{getattr(f, '__qualname__', f)} returned {what}",
        hint="Check a scalar function of its output, such as its sum.")


def _argument(value) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_argument(v) for v in value[:6]) + \
            (", ...]" if len(value) > 6 else "]")
    if isinstance(value, np.ndarray):
        return f"array({_show(value)})"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _shown_args(args, kwargs, names) -> str:
    parts = [f"{names[i]}={_argument(a)}" if i < len(names) else _argument(a)
             for i, a in enumerate(args)]
    parts += [f"{k}={_argument(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)


@public
def check(f, *args, wrt=0, order=1, rtol=1e-6, atol=1e-8, raise_on_failure=True,
          kwargs=None) -> CheckReport:
    """Compare the derivatives of `f` at `args` computed by the compiler, the tape and
    dual-number engines and central differences (see the module docstring).

    Returns a `CheckReport` (``print(report)`` shows the table, ``report.ok`` says
    whether everything agreed). When not ok, raises `GradientCheckError` unless
    ``raise_on_failure=False``. `kwargs` are keyword arguments for `f`, passed as
    they are."""
    if getattr(f, "__s2sad__", None) is not None:
        raise S2SADError("s2sad.check needs the original function; this one is already "
                         "a gradient made by s2sad",
                         hint="Check the function you differentiated (f.__wrapped__).")
    if not callable(f):
        raise S2SADError(f"s2sad.check needs a function; got {f!r}")
    if order not in (1, 2) or isinstance(order, bool):
        raise S2SADError(f"s2sad.check takes order=1 (the gradient) or order=2 (second "
                         f"derivatives); got order={order!r}")
    kwargs = dict(kwargs or {})
    if isinstance(f, types.FunctionType) and any(structured.structured(a) for a in args):
        # (containers among the arguments: the function specialised on them, whose
        # parameters are their leaves, params_W...)
        wrt_names, _ = normalize_wrt(f, wrt)
        values = dict(zip(signature_params(f)[0], args))
        if any(structured.structured(values[n]) for n in wrt_names):
            flat = structured.Flat(f, values, wrt_names, "check")
            return check(flat.flat, *flat.args(), wrt=flat.wrt(), order=order, rtol=rtol,
                         atol=atol, raise_on_failure=raise_on_failure, kwargs=kwargs)
    try:
        names = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        names = []
    as_tuple = isinstance(wrt, (tuple, list))
    wrt = tuple(wrt) if as_tuple else wrt
    positions, _ = engine_args.wrt_positions(f, wrt, len(args))
    engine_args.check_values(f, args, positions)
    _scalar(f, f(*args, **kwargs))
    point = _Point(f, args, kwargs, positions, names)
    wrt_positions = tuple(positions)
    if order == 1:
        results = _order1(f, point, wrt_positions, kwargs, as_tuple, rtol, atol)
    else:
        results = _order2(f, point, wrt_positions, kwargs, rtol, atol)
    notes: list = []
    reference = _compare(results, point, order, rtol, atol, notes)
    ran = [m for m in results if m.ran]
    ok = len(ran) >= 2 and not any(m.status == "disagrees" for m in results)
    if len(ran) < 2:
        notes.insert(0, f"Only {len(ran)} method{'s' if len(ran) != 1 else ''} could compute "
                        "the derivatives, so nothing was compared: not ok.")
    culprit = _culprit(results, order)
    if culprit:
        notes.append(culprit)
    wrt_labels = tuple(names[p] if p < len(names) else f"argument {p}" for p in positions)
    report = CheckReport(
        function=getattr(f, "__qualname__", None) or getattr(f, "__name__", repr(f)),
        at=_shown_args(args, kwargs, names), wrt=wrt_labels, order=order, rtol=rtol,
        atol=atol, methods=results, ok=ok,
        reference=reference.name if reference is not None else REFERENCE, notes=notes)
    if not ok and raise_on_failure:
        raise GradientCheckError(str(report), report=report)
    return report


__all__ = ["check", "CheckReport", "MethodResult"]
