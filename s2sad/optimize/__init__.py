"""optimize: rewrites of emitted IR that keep its meaning and shorten it.

Owns the simplifier: `simplify.simplify` (its contract, and the order the passes
run in), the frozen `context.Context` and `context.NameKinds` its passes read, the
passes by family (`copies`, `dead`, `cse`, `tapes`, `arithmetic`, `negations`,
`nesting`, `comments`), the questions they share (`common`), `context.name_kinds`
(what an activity analysis tells them), and `tapes.saved_names` (what a split
derivative's forward function hands on). May import `ir` and `primitives`; runs on
what `transform` produced and knows nothing of the api or the backend.
"""
