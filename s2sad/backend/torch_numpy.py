"""torch_numpy: what stands in for NumPy in a derivative run with PyTorch tensors
(`kinds.NAMESPACES`): the standard's names of array-api-compat's wrapper of
``torch`` (`standard.define`), which takes the standard's ``axis``, ``keepdims`` and
``correction`` where PyTorch's own functions take ``dim``, ``keepdim`` and an
unbiased variance."""

import sys

import array_api_compat.torch

from .standard import define

define(sys.modules[__name__], array_api_compat.torch)
