"""Errors s2sad raises on purpose.

Every deliberate error derives from `S2SADError`. An error that concerns a place in
the user's code carries that place (`filename`, `lineno`, `col`, `source_line`) and
prints it the way a compiler does: ``file:line:col: message``, the source line, a
caret under the column, then a hint that says what to do instead. Unsupported syntax
is also a `SyntaxError`, so Python's own traceback printer draws the caret.

This module imports nothing from the rest of s2sad.
"""

from __future__ import annotations


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


class WrtError(S2SADError):
    """`wrt` names no parameter, names one twice, or has the wrong type."""


class IntegerArgumentError(WrtError):
    """A gradient was asked for an argument whose value is an integer (or bool)."""


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
