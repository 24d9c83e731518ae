"""MkDocs hook: the API reference (api.md) covers every name in `s2sad.__all__`.

api.md groups the public names by topic, one ``::: s2sad.NAME`` line each. A name in
`__all__` that api.md does not list is added at the end of the page under "Other
names", so a new public name is documented from its docstring as soon as it exists;
a listed name that is no longer public is a warning (an error under `--strict`).
`__all__` is read from s2sad/__init__.py's text, without importing s2sad.
"""

import ast
import logging
import os
import re

log = logging.getLogger("mkdocs.hooks.api_names")

INIT = os.path.join(os.path.dirname(__file__), "..", "..", "s2sad", "__init__.py")


def public_names():
    tree = ast.parse(open(INIT).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise ValueError("s2sad/__init__.py has no __all__")


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri != "api.md":
        return markdown
    names = public_names()
    listed = re.findall(r"^::: s2sad\.(\w+)\s*$", markdown, flags=re.M)
    for name in listed:
        if name not in names:
            log.warning("api.md lists s2sad.%s, which is not in s2sad.__all__", name)
    missing = [name for name in names if name not in listed]
    if missing:
        markdown = markdown.rstrip("\n") + "\n\n## Other names\n\n" + "".join(
            f"::: s2sad.{name}\n\n" for name in missing)
    return markdown
