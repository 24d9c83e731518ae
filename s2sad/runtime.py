"""Runtime helpers that generated code may call.

This module imports nothing from the rest of s2sad, so a derivative pasted into
another project needs only this file. Keep it short enough to read in one screen.
"""


def dup(value, n=2):
    """The dup stage's explicit duplication: `n` references to the same value."""
    return (value,) * n
