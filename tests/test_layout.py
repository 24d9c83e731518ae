"""The package's layout holds: imports follow the layer order without cycles, modules
and classes stay small enough to read (or say why not), every package says what it
owns and may import, and emitted code needs nothing of s2sad but the runtime and the
checkpoint schedules.

The layers, lowest first (a module may import its own package and any lower layer;
the backend is imported only by the driver and the api):

    errors, runtime, checkpoint
    ir
    primitives, frontend
    analysis
    transform, optimize
    driver, backend, engines
    api
    cli, the package itself
"""

import ast
import os
import re

import pytest

import s2sad

PACKAGE = os.path.dirname(os.path.abspath(s2sad.__file__))
GOLDEN = os.path.join(os.path.dirname(PACKAGE), "golden")

LAYERS = [
    {"errors", "runtime", "checkpoint"},
    {"ir"},
    {"primitives", "frontend"},
    {"analysis"},
    {"transform", "optimize"},
    {"driver", "stages", "backend", "engines"},
    {"api"},
    {"cli", "__main__", ""},
]
ONLY_FROM = {"backend": {"driver", "api", "", "backend"}}
MAX_MODULE_LINES = 800
MAX_CLASS_LINES = 300
REASON = re.compile(r"^\s*Size:", re.M)  # a docstring paragraph saying why it is longer


def _modules() -> dict:
    """dotted name (without ``s2sad.``; '' for the package) -> path"""
    found = {}
    for root, _, files in os.walk(PACKAGE):
        if "__pycache__" in root:
            continue
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, f), PACKAGE)[:-3].split(os.sep)
                if rel[-1] == "__init__":
                    rel = rel[:-1]
                found[".".join(rel)] = os.path.join(root, f)
    return found


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].endswith("__init__.py")


def _resolve(importer: str, level: int, module: str | None) -> str:
    parts = importer.split(".") if importer else []
    if not _is_package(importer):
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    if module:
        parts += module.split(".")
    return ".".join(parts)


def _imports(name: str) -> set:
    """The s2sad modules `name` imports, at any depth of its code."""
    tree = ast.parse(open(MODULES[name]).read())
    out = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = _resolve(name, node.level, node.module)
            elif node.module and (node.module == "s2sad" or node.module.startswith("s2sad.")):
                base = node.module[len("s2sad."):] if node.module != "s2sad" else ""
            else:
                continue
            for alias in node.names:
                sub = f"{base}.{alias.name}" if base else alias.name
                targets.append(sub if sub in MODULES else base)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("s2sad."):
                    targets.append(alias.name[len("s2sad."):])
        out.update(t for t in targets if t != name)
    assert all(t in MODULES for t in out), (name, out - set(MODULES))
    return out


GRAPH = {name: _imports(name) for name in MODULES}


def _layer(name: str) -> int:
    top = name.split(".")[0]
    for i, layer in enumerate(LAYERS):
        if top in layer:
            return i
    raise AssertionError(f"s2sad.{name} is in no layer: add its package to LAYERS")


def test_every_module_has_a_layer():
    for name in MODULES:
        _layer(name)


def test_imports_go_down_the_layers():
    wrong = []
    for name, targets in GRAPH.items():
        for t in targets:
            top, ttop = name.split(".")[0], t.split(".")[0]
            if top == ttop:
                continue
            if _layer(t) > _layer(name):
                wrong.append(f"s2sad.{name} imports s2sad.{t} (a higher layer)")
            allowed = ONLY_FROM.get(ttop)
            if allowed is not None and top not in allowed:
                wrong.append(f"s2sad.{name} imports s2sad.{t} (only {sorted(allowed)} may)")
    assert not wrong, "\n".join(wrong)


def _cycle():
    """One import cycle between modules, or None. A package's ``__init__`` that
    re-exports its own modules is not a cycle with them (its modules import the
    modules, never the package)."""
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for t in sorted(GRAPH[n]):
            if state.get(t) == 1:
                return stack[stack.index(t):] + [t]
            if t not in state:
                found = visit(t)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(GRAPH):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_no_import_cycles():
    cycle = _cycle()
    assert cycle is None, "import cycle: " + " -> ".join(f"s2sad.{c}" for c in cycle)


def test_no_module_imports_another_modules_private_names():
    wrong = []
    for name in MODULES:
        tree = ast.parse(open(MODULES[name]).read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        wrong.append(f"s2sad.{name}: from {'.' * node.level}"
                                     f"{node.module or ''} import {alias.name}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_modules_and_classes_are_short_or_say_why(name):
    text = open(MODULES[name]).read()
    tree = ast.parse(text)
    doc = ast.get_docstring(tree) or ""
    lines = text.count("\n")
    assert lines <= MAX_MODULE_LINES or REASON.search(doc), (
        f"s2sad.{name} has {lines} lines: split it, or give the reason in a 'Size:' "
        "paragraph of its docstring")
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            length = node.end_lineno - node.lineno + 1
            assert length <= MAX_CLASS_LINES or REASON.search(ast.get_docstring(node) or ""), (
                f"class {node.name} in s2sad.{name} has {length} lines: split it, or give "
                "the reason in a 'Size:' paragraph of its docstring")


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _is_package(n)))
def test_packages_say_what_they_own_and_may_import(name):
    doc = ast.get_docstring(ast.parse(open(MODULES[name]).read())) or ""
    assert "import" in doc and len(doc.split()) >= 15, (
        f"s2sad.{name or 's2sad'}/__init__.py should open with what the package owns "
        "and what it may import")


def test_emitted_code_imports_only_the_runtime_and_checkpoints():
    seen = set()
    for root, _, files in os.walk(GOLDEN):
        for f in files:
            if not f.endswith(".py") or f.count(".") < 2:
                continue  # (the input modules, not emitted code)
            for line in open(os.path.join(root, f)):
                m = re.match(r"\s*(?:from|import) (s2sad[.\w]*)", line)
                if m:
                    seen.add(m.group(1))
    assert seen and seen <= {"s2sad.runtime", "s2sad.checkpoint"}, seen
