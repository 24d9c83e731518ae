"""analysis: what each ANF statement computes and which values carry derivatives.

Owns the classification of right-hand sides (`classify`: `Op` and its `KINDS`) and
the activity analysis (`activity`: kinds, variedness, usefulness, objects and
shapes), made of parts a module each: `results` (the kinds of results), `shapes`,
`objects` (which list or array a name refers to; `rebuilt`, the lists a loop makes
anew in each iteration), `static` (``isinstance`` tests the
kinds decide), `checks` (the errors), `writes` and `holders` (writes into lists and
arrays), `shifts` (a softmax's max-shift, whose derivative is zero). May import
`ir`, `primitives`, `frontend`, `errors` and `runtime`; never a transform, the
optimizer, the backend or the api.
"""
