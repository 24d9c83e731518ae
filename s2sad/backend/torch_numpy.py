"""torch_numpy: what stands in for NumPy in a derivative run with PyTorch tensors
(`kinds.NAMESPACES`): the standard's names of array-api-compat's wrapper of
``torch`` (`standard.define`), which takes the standard's ``axis``, ``keepdims`` and
``correction`` where PyTorch's own functions take ``dim``, ``keepdim`` and an
unbiased variance; and ``add.at``, which the standard has not: the adjoint of a read
with an index array (``E[tokens]``, an embedding's rows) adds into the rows it read,
repeated ones as often as they were read, which PyTorch's ``index_put_`` with
``accumulate=True`` (or ``index_add_`` along one axis) does."""

import sys
import types

import array_api_compat.torch
import torch

from .standard import define

define(sys.modules[__name__], array_api_compat.torch)


def _add_at(a, index, values):
    """``np.add.at(a, index, values)`` for a tensor `a`: `index` an integer array, a
    tuple of them, or one 1-d integer array among whole slices (``x[:, idx]``)."""
    parts = index if isinstance(index, tuple) else (index,)
    values = torch.as_tensor(values, dtype=a.dtype, device=a.device)
    arrays = [k for k, p in enumerate(parts) if not isinstance(p, slice)]
    if len(arrays) == len(parts):
        a.index_put_(tuple(torch.as_tensor(p, device=a.device) for p in parts), values,
                     accumulate=True)
        return
    whole = all(p == slice(None) for p in parts if isinstance(p, slice))
    if len(arrays) == 1 and whole and getattr(parts[arrays[0]], "ndim", 1) == 1:
        axis = arrays[0]
        shape = a.shape[:axis] + (len(parts[axis]),) + a.shape[axis + 1:]
        a.index_add_(axis, torch.as_tensor(parts[axis], device=a.device),
                     torch.broadcast_to(values, shape))
        return
    raise ValueError("np.add.at (the adjoint of a read with an index array) of a tensor "
                     "through this index (slices with more than one index array, or "
                     "partial slices) has no counterpart in PyTorch: not supported yet")


add = types.SimpleNamespace(at=_add_at)
