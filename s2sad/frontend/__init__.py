"""frontend: from a Python function to the IR the analyses read.

Owns reading the user's source (`parse`, with `source` for its lines and
`higher_order` for ``map`` and ``key=``), rewriting it into a smaller subset of
Python (`desugar`, with `expand` and `expand_calls` for comprehensions, the
builtins over sequences and ``*`` targets), lowering that to ANF/SSA (`anf`, with `liveness` and `blocks`;
`kept` lowers the code that carries no derivative to run as written)
and making every reuse of a value explicit (`dup`); `program` runs those stages on a
function and on the functions it calls, once each. May import `ir`, `errors`,
`runtime` and `checkpoint` (for the loop-marker it recognises); nothing above.
"""
