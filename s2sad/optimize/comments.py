"""comments: the last pass over the reverse sweep's comments, which the other
passes leave with the statements they describe.
"""

from __future__ import annotations

from .. import ir


def tidy_comments(body, last=None):
    """Drop comments with no statement after them, and a comment that repeats the
    comment just before it (such as a branch's first line quoting the `if` again)."""
    out = []
    for i, s in enumerate(body):
        if isinstance(s, ir.Comment):
            following = body[i + 1] if i + 1 < len(body) else None
            if following is None or isinstance(following, ir.Comment) or s.text == last:
                continue
            last = s.text
        if isinstance(s, ir.If):
            s.body = tidy_comments(s.body, last)
            s.orelse = tidy_comments(s.orelse, last)
            last = None
        elif isinstance(s, ir.ForEach):
            s.body = tidy_comments(s.body, last)
            last = None
        out.append(s)
    return out
