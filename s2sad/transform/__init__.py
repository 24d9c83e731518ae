"""transform: the derivative program from an analysed primal.

Owns reverse mode (`reverse`, with the reverse of one operation by its kind in
`adjoints`, adjoints of lists and arrays changed in place in `containers`, taped
loops in `loops`, checkpointed loops in `checkpointing`, the adjoints of
``np.where``'s branches without NaN in `masks`, the rules of decompositions of a
matrix symmetric by construction in `symmetric`), forward mode
(`forward`), what the two modes share (`common`) and batched tangents (`batching`).
Reverse and forward mode each pick what to do for an operation from one table
keyed by `classify.KINDS` (`adjoints.BY_KIND`, `forward.BY_KIND`). May import
`analysis`, `primitives`, `frontend`, `ir`, `checkpoint`, `runtime` and `errors`.
"""
