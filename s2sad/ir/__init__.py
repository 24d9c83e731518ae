"""ir: the representation every stage reads and writes.

Owns the statement classes and their walkers (`nodes`), the kinds of values the
analyses and transforms work with (`kinds`) and the symbols of Python's operators
(`operators`). Imports nothing from the rest of s2sad; every other package may
import it. ``from s2sad import ir`` gives the
names of `nodes` directly (``ir.Assign``, ``ir.walk``).
"""

from .nodes import *  # noqa: F401,F403  (the package is its nodes' namespace)
