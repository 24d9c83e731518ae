"""analysis: what each ANF statement computes and which values carry derivatives.

Owns the classification of right-hand sides (`classify`) and activity, kind and
shape inference (`activity`). May import `ir`, `primitives`, `frontend`, `errors`
and `runtime`; never a transform, the optimizer, the backend or the api.
"""
