"""Errors s2sad raises on purpose.

Every deliberate error derives from `S2SADError`. An error that concerns a place in
the user's code carries that place (`filename`, `lineno`, `col`, `source_line`) and
prints it the way a compiler does: ``file:line:col: message``, the source line, a
caret under the column, then a hint that says what to do instead. Unsupported syntax
is also a `SyntaxError`, so Python's own traceback printer draws the caret.

An `S2SADError` is meant for the user, so its traceback is the user's: the entry
points take s2sad's own frames out of it as it leaves them (`user_traceback`), and
the last frame printed is the user's call. ``S2SAD_TRACEBACK=full`` in the
environment keeps every frame, for a bug report. Other exceptions keep theirs.

This module imports nothing from the rest of s2sad.
"""

from __future__ import annotations

import functools
import os
import types


class S2SADError(Exception):
    """Base class of every error s2sad raises deliberately."""

    def __init__(
        self,
        message: str,
        *,
        filename: str | None = None,
        lineno: int | None = None,
        col: int | None = None,
        source_line: str | None = None,
        hint: str | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.source_line = source_line
        self.hint = hint

    def located(self, filename, lineno, col=None, source_line=None):
        """Fill in the user's place if the error does not know it yet; return self."""
        if self.lineno is None:
            self.filename, self.lineno = filename, lineno
            self.col, self.source_line = col, source_line
            if isinstance(self, SyntaxError):
                _set_syntax_fields(self)
        return self

    def __str__(self) -> str:
        parts = []
        if self.filename is not None and self.lineno is not None:
            where = f"{self.filename}:{self.lineno}"
            if self.col is not None:
                where += f":{self.col + 1}"
            parts.append(f"{where}: {self.message}")
        else:
            parts.append(self.message)
        if self.source_line is not None and self.source_line.strip():
            text = self.source_line.rstrip("\n")
            stripped = text.lstrip()
            parts.append("    " + stripped)
            if self.col is not None:
                caret = max(self.col - (len(text) - len(stripped)), 0)
                parts.append("    " + " " * caret + "^")
        if self.hint:
            parts.append(self.hint)
        return "\n".join(parts)

    def one_line(self) -> str:
        """The headline: place and message, without source line and hint."""
        return str(self).splitlines()[0]


def _set_syntax_fields(err):
    err.msg = err.message + (f"\n{err.hint}" if err.hint else "")
    err.offset = None if err.col is None else err.col + 1
    err.text = err.source_line
    err.end_lineno = err.end_offset = None
    err.print_file_and_line = None


class UnsupportedSyntaxError(S2SADError, SyntaxError):
    """The function uses a construct s2sad does not differentiate."""

    def __init__(self, message: str, **kw):
        S2SADError.__init__(self, message, **kw)
        _set_syntax_fields(self)


class SourceNotFoundError(S2SADError):
    """The function's source text cannot be read (built-in, REPL, exec, lambda)."""


class StaleSourceError(SourceNotFoundError):
    """The function's file changed after the function was defined (edited without a
    reload): its text no longer compiles to the code that runs."""


class UnresolvedNameError(S2SADError):
    """A free name in the function has no value in its globals, closure or builtins."""


class NoRuleError(S2SADError):
    """A called function has no derivative rule and no Python source to transform."""


class NonScalarOutputError(S2SADError):
    """`grad` was asked for the gradient of an output that is not a scalar."""


class OptionError(S2SADError, TypeError):
    """An entry point was given a keyword it does not take, such as JAX's
    ``argnums`` (s2sad's `wrt`) or ``has_aux`` (not supported yet). Also a
    `TypeError`, as Python's own error for an unexpected keyword is."""


class WrtError(S2SADError):
    """`wrt` names no parameter, names one twice, or has the wrong type."""


class IntegerArgumentError(WrtError):
    """A gradient was asked for an argument whose value is an integer (or bool)."""


class ComplexArgumentError(WrtError):
    """A derivative was asked with respect to a complex number (a complex, a complex
    array, a list holding one): complex numbers are not supported yet."""

    HINT = ("Pass the real and imaginary parts as two float arguments (z.real and "
            "z.imag for an array) and write the function over them.")

    @classmethod
    def of(cls, what: str, value, **where) -> "ComplexArgumentError":
        """The error for the complex `value`; `what` says where ("grad of f with
        respect to `z`"), `where` is the place keywords."""
        if getattr(value, "ndim", 0):
            described = f"an array of {value.dtype}"
        elif isinstance(value, (list, tuple)):
            described = f"a {type(value).__name__} holding complex numbers"
        else:
            described = f"the complex number {value!r}"
        return cls(f"{what}: its value is {described}, and complex numbers are not "
                   "supported yet", hint=cls.HINT, **where)

    @staticmethod
    def holds(value) -> bool:
        """Does `value` hold a complex number: a complex, a NumPy complex scalar or
        array, a list or tuple with one?"""
        if isinstance(value, complex):
            return True
        dtype = getattr(value, "dtype", None)
        if dtype is not None:
            return getattr(dtype, "kind", None) == "c"
        if isinstance(value, (list, tuple)):
            return any(ComplexArgumentError.holds(v) for v in value)
        return False


class NotDifferentiableError(S2SADError):
    """A value reaches the output through an operation that has no derivative."""


class CheckpointError(NotDifferentiableError):
    """A loop marked with `s2sad.checkpointed` does what its step functions cannot."""


class NonFiniteError(S2SADError, FloatingPointError):
    """With ``debug=True`` (or ``S2SAD_DEBUG_NANS=1``), a derivative value became NaN or
    infinite; the error names the user's line that produced it."""


class GradientCheckError(S2SADError):
    """`s2sad.check` found derivatives that disagree, or fewer than two methods could
    compute them. `report` is the full `CheckReport`; the message is its table."""

    def __init__(self, message: str, report=None, **kw):
        super().__init__(message, **kw)
        self.report = report


# ------------------------------------------------------------- tracebacks

TRACEBACK_VARIABLE = "S2SAD_TRACEBACK"
_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
_DISPATCHER = "<s2sad dispatcher "


def internal_file(filename: str) -> bool:
    """Is `filename` s2sad's own code: a module of the package, or the dispatcher
    ``grad`` generates? (Not a derivative it emits, ``<s2sad-N f_grad>``, which
    the user needs to see.)"""
    if filename.startswith("<"):
        return filename.startswith(_DISPATCHER)
    return filename.startswith(_PACKAGE) or os.path.abspath(filename).startswith(_PACKAGE)


def user_traceback(exc: BaseException) -> BaseException:
    """`exc` with s2sad's own frames (`internal_file`) taken out of its traceback,
    when it is an `S2SADError`: the frames left are the user's, the emitted
    derivative's and other libraries', so the last frame printed is the user's call
    and the message follows it. An `S2SADError` it was chained from is trimmed too.
    With ``S2SAD_TRACEBACK=full`` in the environment nothing changes. Any other
    exception is left as it is. Returns `exc`.

    The entry points call it where an error leaves them and re-raise with a bare
    ``raise``, which adds no frame and, from Python 3.11, keeps the traceback set
    here (3.10 re-raises the traceback it caught: the full one)."""
    if os.environ.get(TRACEBACK_VARIABLE, "").strip().lower() == "full":
        return exc
    seen: set = set()
    err = exc
    while isinstance(err, S2SADError) and id(err) not in seen:
        seen.add(id(err))
        kept, n = [], 0
        tb = err.__traceback__
        while tb is not None:
            n += 1
            if not internal_file(tb.tb_frame.f_code.co_filename):
                kept.append(tb)
            tb = tb.tb_next
        if len(kept) != n:
            rebuilt = None
            for tb in reversed(kept):
                rebuilt = types.TracebackType(rebuilt, tb.tb_frame, tb.tb_lasti, tb.tb_lineno)
            err.with_traceback(rebuilt)
        err = err.__cause__ or (None if err.__suppress_context__ else err.__context__)
    return exc


def user_facing(fn):
    """`fn`, a function users call, with `user_traceback` applied to an
    `S2SADError` that leaves it (for the entry points below `api`, such as
    `register_rule`; `api.arguments.public`, which the others wear, also refuses
    JAX's keywords)."""
    @functools.wraps(fn)
    def entry(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except S2SADError as exc:
            user_traceback(exc)
            raise  # (a bare raise adds no frame: the traceback stays as trimmed)

    return entry
