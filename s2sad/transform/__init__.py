"""transform: the derivative program from an analysed primal.

Owns reverse mode (`reverse`, checkpointed loops included), forward mode
(`forward`) and batched tangents (`batching`). May import `analysis`,
`primitives`, `frontend`, `ir`, `checkpoint`, `runtime` and `errors`.
"""
