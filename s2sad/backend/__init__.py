"""backend: from IR to running code, and the disk cache of what was emitted.

Owns printing (`emit`; `kept` prints the user's statements kept as written; `reuse`
gives dead names to later values in a function too large for CPython's one-instruction
locals; `release` unbinds an array after its last read, ``del``), compiling with line maps back to the user's source
(`compile`), the persistent cache (`diskcache`; its directory, size cap and
eviction in `cachefiles`) and the emitted code compiled with numba for ``jit=True``
(`native`; the text as numba takes it in `native_text`). Used only by `driver` and
`api`; may import `ir`, `analysis`, `primitives`, `frontend`, `runtime` and `errors`.
"""
