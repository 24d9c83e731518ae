"""optimize: rewrites of emitted IR that keep its meaning and shorten it.

Owns the simplifier (`simplify`). May import `ir` and `primitives`; runs on
what `transform` produced and knows nothing of the api or the backend.
"""
