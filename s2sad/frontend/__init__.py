"""frontend: from a Python function to the IR the analyses read.

Owns reading the user's source (`parse`), lowering it to ANF/SSA (`anf`) and making
every reuse of a value explicit (`dup`). May import `ir`, `errors`, `runtime` and
`checkpoint` (for the loop-marker it recognises); nothing above.
"""
