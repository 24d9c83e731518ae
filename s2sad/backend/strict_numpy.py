"""strict_numpy: what stands in for NumPy in a derivative run with array-api-strict's
arrays (`kinds.NAMESPACES`): the standard's names of ``array_api_strict``
(`standard.define`)."""

import sys

import array_api_strict

from .standard import define

define(sys.modules[__name__], array_api_strict)
