"""diskcache: an opt-in persistent cache of the derivative source s2sad emits.

Contract
--------
The cache is off unless `enable` was called or the environment variable
``S2SAD_DISK_CACHE`` is ``1`` (``true``, ``yes``, ``on``); `disable` turns it off
whatever the environment says. ``S2SAD_CACHE_DIR`` moves the default directory, which
is otherwise `cachefiles.user_cache_dir` (``$XDG_CACHE_HOME/s2sad`` or
``~/.cache/s2sad`` on Linux, ``~/Library/Caches/s2sad`` on macOS,
``%LOCALAPPDATA%\\s2sad\\Cache`` on Windows). The entries are kept under a cap,
`max_bytes` (``enable(max_mb=...)``, else ``S2SAD_CACHE_MAX_MB``, else
`DEFAULT_MAX_MB`; a megabyte is 10**6 bytes), by evicting those used longest ago
(`cachefiles`; a hit marks its entry used).

Logged (``logging.getLogger("s2sad.backend.diskcache")``, INFO): each hit, each miss
and why, each entry stored or not stored and why, each eviction.

`api` calls `lookup(f, entry, wrt, as_tuple, kinds)` only when its in-memory cache
misses. A hit returns ``(unit, compiled)`` rebuilt from the stored text: no parse,
analysis, transform, simplification or emit runs, only `compile.compile_unit`. A miss
returns a ticket, and `save(ticket, unit)` stores the unit the pipeline then builds.

An entry is used only when everything that decides the emitted code is what it was
when the entry was written:

* the key, whose SHA-256 names the entry's file and which the entry holds in full:
  the entry point (``grad``, ``value_and_grad``, ``vjp``), `wrt`, whether the
  gradient is a tuple, the kinds of the arguments (type, array rank and dtype), the
  ``checkpoint=``/``snapshots=`` option; the
  function's name, qualified name, first line, free variables and bytecode; s2sad's
  version and a stamp of its source files (size and modification time), the Python
  implementation and version, NumPy's version; and a digest of every rule registered
  with `s2sad.register_rule` (the rule's inlined body, inputs, options and the
  helpers it reads) and of every callable registered as non-differentiable;
* checked in the entry: the source text of the function and of every Python function
  its names reach (a callee, or a function the compiler only reads for the kind of
  its result), each found again by the same path (``g``, ``mod.g``) from the live
  globals and closure cells; and what each name and attribute chain in their code
  means now: a function by its place in that list, a module by its name, a callable
  with rules by its name and its rules, another callable by its name and type, any
  other value by its kind (a float, an int, an array of rank 2 and float dtype ...);
  and what each of their parameters' defaults means, the same way.
  A name the code does not reach (a local, a word in a comment) may only cause a
  needless miss. The source text is compared cheaply when the lines of the file
  around the function are the ones stored (`_same_source`), else through
  `inspect.getsourcelines`, as `parse` reads it.

One entry is kept per key: when a checked part differs, the entry is rewritten.

On a hit, the helpers the emitted code closes over (``math``, ``np``, runtime
helpers, objects a rule reads) are found again by module and qualified name in the
modules already imported (nothing is imported, nothing is unpickled); each derivative
runs in the live globals and closure cells of the user function it derives from, as
on a miss; and the names the transform resolved are looked up again, so the
dispatcher's guards and the in-memory cache's checks work as after a transform.

Never cached: a unit whose helpers cannot be found again by module and qualified name
(an object defined inside a function, a module not in ``sys.modules``), one that reaches
a Python function whose source cannot be read, or more than 64 functions, or whose
attribute lookups raise, or that differentiates a function no name reaches
(``self.predict(x)``). Only `api`'s reverse units (``grad``, ``value_and_grad``, ``vjp``)
use the cache: `s2sad.source`, ``s2sad show``, forward mode and the tape never do.

Disk trouble never raises: an entry that is missing, truncated, corrupt (its
SHA-256 does not match), from another format, or for another key is a miss, and
the entry is rewritten after the transform. Writes go to a temporary file in the
same directory, renamed over the entry with `os.replace`, so concurrent writers leave
one complete entry. A directory that cannot be read or written is skipped with a
`DiskCacheWarning` (once per directory, problem and process); on POSIX a directory
owned by another user, or that others may write to, is not used either (one
warning), because entries hold code that is run.

Size: a little over 800 lines, one file because what an entry checks is written and
read back by the same code (`_Survey` and `_rebuild`, `_meaning` for both): apart,
the two could drift and a stale entry pass.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import inspect
import json
import keyword
import linecache
import logging
import os
import re
import sys
import tempfile
import time
import types
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from . import cachefiles
from . import compile as compile_mod
from ..ir.kinds import kind_of, namespace_of, opaque
from ..frontend import defaults, parse
from .. import primitives as rules
from ..errors import S2SADError
from ..frontend.parse import MISSING as _UNRESOLVED  # what parse.lookup gives for no value

FORMAT = 1
MAGIC = "s2sad-disk-cache"
ENV_ENABLE = "S2SAD_DISK_CACHE"
ENV_DIR = "S2SAD_CACHE_DIR"
ENV_MAX_MB = "S2SAD_CACHE_MAX_MB"
DEFAULT_MAX_MB = 256
MAX_FUNCTIONS = 64

_ON = ("1", "true", "yes", "on")
_PACKAGE = __name__.split(".")[0]  # s2sad
log = logging.getLogger(__name__)


class _Uncacheable(Exception):
    """This unit cannot be stored safely."""


# ------------------------------------------------------------------ settings

_setting: object = None  # None: the environment decides; False: off; a Path: on, there
_max_mb: float | None = None  # None: the environment decides
_sizes = cachefiles.Sizes()


def default_dir() -> Path:
    """``S2SAD_CACHE_DIR`` when it is set, else `cachefiles.user_cache_dir`."""
    custom = os.environ.get(ENV_DIR, "")
    return Path(os.path.expanduser(custom)) if custom else cachefiles.user_cache_dir()


def _as_path(path, what) -> Path:
    if not isinstance(path, (str, os.PathLike)):
        raise S2SADError(f"{what} takes a directory (a str or a path); got {path!r}")
    return Path(os.path.expanduser(os.fspath(path)))


def enable(path=None, max_mb=None) -> Path:
    """Turn the disk cache on, in `path` (default: `default_dir`); return the directory.

    The directory is created (private to the user) when the first entry is written.
    `max_mb` caps the entries' total size in megabytes (default:
    ``S2SAD_CACHE_MAX_MB``, else 256): when a new entry takes them over it, the
    entries used longest ago are deleted (see `cachefiles`)."""
    global _setting, _max_mb
    folder = default_dir() if path is None else _as_path(path, "enable_disk_cache")
    if max_mb is not None and not _positive(max_mb):
        raise S2SADError(f"enable_disk_cache's max_mb is a size in megabytes, a positive "
                         f"number; got {max_mb!r}")
    _setting = folder.absolute()
    _max_mb = max_mb
    return _setting


def _positive(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def max_bytes() -> int:
    """The cap on the entries' total size, in bytes: `enable`'s `max_mb`, else
    ``S2SAD_CACHE_MAX_MB`` (a bad value is warned about once and ignored), else
    `DEFAULT_MAX_MB`."""
    mb = _max_mb
    if mb is None:
        text = os.environ.get(ENV_MAX_MB, "").strip()
        try:
            mb = float(text) if text else DEFAULT_MAX_MB
        except ValueError:
            mb = None
        if not _positive(mb):
            cachefiles.warn_once(ENV_MAX_MB, f"{ENV_MAX_MB}={text!r} is not a size in "
                                 f"megabytes (a positive number); using {DEFAULT_MAX_MB}")
            mb = DEFAULT_MAX_MB
    return int(min(mb * 1e6, sys.maxsize))


def disable() -> None:
    """Turn the disk cache off, whatever ``S2SAD_DISK_CACHE`` says."""
    global _setting
    _setting = False


def directory() -> Path | None:
    """The directory in use, or None when the disk cache is off."""
    if _setting is False:
        return None
    if _setting is not None:
        return _setting
    if os.environ.get(ENV_ENABLE, "").strip().lower() in _ON:
        return default_dir()
    return None


def clear(path=None) -> int:
    """Delete the entries (and stray temporary files) in `path`, by default the
    directory in use or `default_dir`; return how many files were removed. Other
    files in the directory are left alone; the in-memory cache is not touched."""
    folder = (directory() or default_dir()) if path is None else _as_path(
        path, "clear_disk_cache")
    _sizes.forget(folder.absolute())
    return cachefiles.clear(folder)


def info(path=None) -> cachefiles.CacheInfo:
    """What is in the disk cache directory `path` (default: the one in use, else
    ``S2SAD_CACHE_DIR``, else the platform's cache directory): a `CacheInfo` with the
    directory, whether the cache is on there, how many entries it holds, their total
    size and the cap in bytes; printed, the table ``s2sad cache info`` shows."""
    folder = (directory() or default_dir()) if path is None else _as_path(
        path, "disk_cache_info")
    found = cachefiles.entries(folder)
    used = directory()
    return cachefiles.CacheInfo(
        folder.absolute(), used is not None and used.absolute() == folder.absolute(),
        len(found), sum(e.size for e in found), max_bytes())


# ------------------------------------------------------------------- the key


def _package_stamp() -> str:
    """Size and modification time of every s2sad source file, at import (a changed
    checkout gives other keys even when the version number stays)."""
    root = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for p in sorted(root.rglob("*.py")):
        try:
            st = p.stat()
        except OSError:
            continue
        h.update(f"{p.relative_to(root).as_posix()}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:24]


_STAMP = _package_stamp()
_environment_cache: list = []


def _environment() -> list:
    if not _environment_cache:
        s2sad = sys.modules.get(_PACKAGE)
        numpy = sys.modules.get("numpy")
        _environment_cache.append([
            FORMAT, getattr(s2sad, "__version__", "?"), _STAMP, sys.implementation.name,
            ".".join(map(str, sys.version_info[:3])) + sys.version_info.releaselevel,
            getattr(numpy, "__version__", None)])
    return _environment_cache[0]


_BUILTIN_NONDIFF = frozenset(rules.NONDIFFERENTIABLE)  # before any user registers
_rule_digests: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_rules_token: list = []


def _forget_rules():
    _rules_token.clear()


rules.ON_CHANGE.append(_forget_rules)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _builtin_rule(rule) -> bool:
    return (getattr(rule.func, "__module__", None) or "").startswith(_PACKAGE + ".")


def _name_of(obj) -> str:
    """A name for an object that is the same in every process: module, qualified
    name and type (never an address)."""
    module = getattr(obj, "__module__", None)
    qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    tp = type(obj)
    return (f"{module if isinstance(module, str) else '?'}."
            f"{qual if isinstance(qual, str) else '?'}<{tp.__module__}.{tp.__qualname__}>")


def _helper_digest(value) -> str:
    if type(value) in (int, float, bool):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, types.ModuleType):
        return "module:" + value.__name__
    return "object:" + _name_of(value)


def _rule_digest(rule) -> str:
    """What a rule makes the compiler emit: for s2sad's own rules their name (the
    package stamp covers their text); for a user's rule its inlined body, inputs,
    options and the helpers it reads."""
    got = _rule_digests.get(rule)
    if got is not None:
        return got
    if _builtin_rule(rule):
        got = f"{rule.func.__module__}.{rule.func.__qualname__}:{rule.mode}:{rule.when!r}"
    else:
        t = rule.template
        parts = [rule.mode, repr(rule.when), ",".join(rule.inputs),
                 repr(sorted(rule.options.items())), _name_of(rule.func)]
        parts += [f"{n}={ast.dump(e)}" for n, e in t.assigns]
        parts += ["None" if e is None else ast.dump(e) for e in t.terms]
        parts += [f"{n}={_helper_digest(v)}" for n, v in sorted(t.helpers.items())]
        got = "user:" + _sha("\n".join(parts))[:32]
    _rule_digests[rule] = got
    return got


def rules_token() -> str:
    """A digest of every rule and non-differentiable callable a user registered."""
    if not _rules_token:
        items = []
        for table in (rules.REVERSE, rules.FORWARD):
            for key, found in list(table.items()):
                for rule in list(found):
                    if not _builtin_rule(rule):
                        name = key if isinstance(key, str) else _name_of(key)
                        items.append(f"{name}={_rule_digest(rule)}")
        for obj in set(rules.NONDIFFERENTIABLE) - _BUILTIN_NONDIFF:
            items.append(f"{_name_of(obj)}=nondifferentiable")
        _rules_token.append(_sha("\n".join(sorted(items)))[:32])
    return _rules_token[0]


_code_digest = parse.code_digest  # (the bytecode of a function, see `parse.check_source`)


def _identity(func) -> list:
    """What names the entry of a function (cheap: no source is read). Its source text
    is checked inside the entry."""
    code = func.__code__
    return [func.__name__, func.__qualname__, code.co_firstlineno, list(code.co_freevars),
            _code_digest(code)]


def _source(func) -> tuple:
    """(source lines, [digest of the text, first line, name, qualname, free
    variables]) as `parse` reads them (`inspect.getsourcelines`)."""
    lines, first = inspect.getsourcelines(func)
    return lines, [_sha("".join(lines)), max(first, 1), func.__name__, func.__qualname__,
                   list(func.__code__.co_freevars)]


# `inspect.findsource` takes the line co_firstlineno points at when it matches this
_DEF_LINE = re.compile(r"^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)")


def _unwrapped(func):
    """The function `inspect.getsourcelines` reads the source of (``__wrapped__``)."""
    try:
        target = inspect.unwrap(func)
    except ValueError:  # a cycle of __wrapped__
        return None
    return target if isinstance(target, types.FunctionType) else None


def _context(func, lines, record):
    """The lines of the function's file from its first line through the first line
    after it that is not blank or a comment (or to the end of the file): what
    `inspect.getsourcelines` reads to find the function's text. None when the
    file's lines in `linecache` are not the ones the source came from."""
    func = _unwrapped(func)
    if func is None:
        return None
    code = func.__code__
    first = record[1]
    text = linecache.getlines(code.co_filename, func.__globals__)
    start, end = first - 1, first - 1 + len(lines)
    if first != code.co_firstlineno or text[start:end] != lines:
        return None
    i = end
    while i < len(text) and (not text[i].strip() or text[i].lstrip().startswith("#")
                             or text[i].rstrip("\r\n").endswith("\\")):
        i += 1
    return {"lines": text[start:i + 1], "eof": i >= len(text)}


def _same_source(func, record, context) -> bool:
    """Does `func` have the source `record` describes? Cheap when the lines around it
    in its file are the ones stored (`_context`): the same text makes
    `inspect.getsourcelines` find the same function text, so it need not run (its
    tokenizer costs milliseconds the first time in a process); otherwise it runs."""
    target = _unwrapped(func)
    code = target.__code__ if target is not None else None
    if context is not None and code is not None and record[1:] == [
            code.co_firstlineno, func.__name__, func.__qualname__,
            list(func.__code__.co_freevars)]:
        linecache.checkcache(code.co_filename)
        text = linecache.getlines(code.co_filename, target.__globals__)
        start = code.co_firstlineno - 1
        stored = context["lines"]
        if 0 <= start < len(text) and _DEF_LINE.match(text[start]) \
                and text[start:start + len(stored)] == stored \
                and (not context["eof"] or len(text) == start + len(stored)):
            return True
    try:
        return _source(func)[1] == record
    except (OSError, TypeError):
        return False


def _key(f, entry, wrt, as_tuple, kinds, checkpoint=None) -> str:
    return json.dumps([_environment(), rules_token(), entry, list(wrt), bool(as_tuple),
                       [[n, repr(k)] for n, k in kinds.items()], _identity(f),
                       None if checkpoint is None else list(checkpoint)],
                      separators=(",", ":"), ensure_ascii=True)


# ------------------------------------------------------------ what names mean

_STRINGS_AND_COMMENTS = re.compile(r"""
      \#[^\r\n]*
    | [rRbBuUfF]{0,2}(?: '''(?:\\.|[^\\])*?''' | \"\"\"(?:\\.|[^\\])*?\"\"\"
                       | '(?:\\.|[^\\'\r\n])*' | "(?:\\.|[^\\"\r\n])*" )
""", re.VERBOSE | re.DOTALL)
_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def\s+\w+", re.MULTILINE)
_CHAIN = re.compile(r"(?<![\w.])[^\W\d]\w*(?:\s*\.\s*[^\W\d]\w*)*")


def _chains(text: str) -> list:
    """Every name and dotted chain in the code of a function's source (decorators,
    the function's own name, strings and comments left out), as lists of parts, in
    order of first appearance."""
    code = _STRINGS_AND_COMMENTS.sub(" ", text.replace("\\\n", " "))
    start = _DEF.search(code)
    code = code[start.end():] if start else code
    out, seen = [], set()
    for m in _CHAIN.finditer(code):
        parts = [p.strip() for p in m.group(0).split(".")]
        if keyword.iskeyword(parts[0]):
            continue
        chain = ".".join(parts)
        if chain not in seen:
            seen.add(chain)
            out.append(parts)
    return out


class _Resolver:
    """The values of names and attribute chains seen from inside one function:
    closure cells, then globals, then builtins (as `parse.lookup`), then getattr."""

    def __init__(self, func):
        self.func = func
        self.cells = parse.cells_of(func)
        self.builtins = getattr(func, "__builtins__", None)
        self.memo: dict = {}

    def value(self, text: str):
        got = self.memo.get(text, self)
        if got is not self:
            return got
        owner, dot, attr = text.rpartition(".")
        if text.startswith(_DEFAULT):  # (a parameter's default)
            got = defaults.values(self.func).get(text[len(_DEFAULT):], _UNRESOLVED)
        elif not dot:
            got = parse.lookup(text, self.func.__globals__, self.cells, self.builtins)
        else:
            base = self.value(owner)
            got = _UNRESOLVED if base is _UNRESOLVED else getattr(base, attr, _UNRESOLVED)
        self.memo[text] = got
        return got


_DEFAULT = "%default:"  # (the chain that names a parameter's default: `_Survey.scan`)


def _rules_of(value):
    try:
        nondiff = value in rules.NONDIFFERENTIABLE
    except TypeError:  # unhashable
        return False, [], []
    return nondiff, rules.candidates(value, "reverse"), rules.candidates(value, "forward")


def _traversed(value) -> bool:
    """Is `value` a Python function the compiler may read (not replaced by a rule)?"""
    if not isinstance(value, types.FunctionType):
        return False
    nondiff, reverse, _ = _rules_of(value)
    return not nondiff and not reverse


def _meaning(value, index_of) -> str:
    """What a resolved value means to the compiler, as text that is the same in
    every process (see the module docstring)."""
    if value is _UNRESOLVED:
        return "missing"
    if value is None:
        return "none"
    if isinstance(value, types.ModuleType):
        return "module:" + value.__name__
    nondiff, reverse, forward = _rules_of(value)
    digests = ",".join(_rule_digest(r) for r in reverse + forward)
    if isinstance(value, types.FunctionType) and not nondiff and not reverse:
        return f"function:{index_of(value)}:{digests}"
    if nondiff or reverse or forward:
        return f"rule:{_name_of(value)}:{'nondiff' if nondiff else ''}:{digests}"
    if isinstance(value, functools.partial):
        # (its function and the names of its bound arguments are written into the
        # derivative, which another process's partial of the same name may not have)
        raise _Uncacheable("it reads a functools.partial")
    if isinstance(value, type) and (fields := _fields_of(value)) is not None:
        # (a namedtuple's or dataclass's fields, in order: ``P(a, b)`` reads them so)
        return f"class:{_name_of(value)}:{','.join(fields)}"
    if callable(value):
        return "callable:" + _name_of(value)
    kind = kind_of(value)
    if opaque(kind):
        return f"other:{type(value).__module__}.{type(value).__qualname__}"
    return f"kind:{kind!r}"


def _fields_of(cls):
    """The field names of a namedtuple or dataclass class, in order; else None."""
    fields = getattr(cls, "_fields", None)
    if isinstance(fields, tuple) and issubclass(cls, tuple):
        return fields
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls))
    return None


class _Survey:
    """The functions reachable from the root by names in their code, how each is
    reached, and what each of their names means."""

    def __init__(self, root):
        self.funcs = []
        self.paths = []  # (index of the function whose name reaches it, chain)
        self.records = []
        self.contexts = []
        self.texts = []
        self.meanings = []  # per function: [[chain, meaning], ...]
        self.index = {}
        self.current = self.chain = None
        self.index_of(root)

    def run(self):
        i = 0
        while i < len(self.funcs):
            self.current = i
            self.meanings.append(self.scan(i))
            i += 1
        return self

    def index_of(self, func) -> int:
        i = self.index.get(id(func))
        if i is None:
            if len(self.funcs) >= MAX_FUNCTIONS:
                raise _Uncacheable("too many functions")
            try:
                lines, record = _source(func)
            except (OSError, TypeError) as exc:
                raise _Uncacheable(f"no source for {func!r}") from exc
            i = self.index[id(func)] = len(self.funcs)
            self.funcs.append(func)
            self.paths.append((self.current, self.chain))
            self.texts.append("".join(lines))
            self.records.append(record)
            self.contexts.append(_context(func, lines, record))
        return i

    def scan(self, i) -> list:
        resolver = _Resolver(self.funcs[i])
        out, seen = [], set()
        for parts in _chains(self.texts[i]):
            for k in range(1, len(parts) + 1):
                chain = ".".join(parts[:k])
                value = resolver.value(chain)
                if chain not in seen:
                    seen.add(chain)
                    if value is not _UNRESOLVED or k > 1:  # an unbound name is a local
                        self.chain = chain
                        out.append([chain, _meaning(value, self.index_of)])
                if value is _UNRESOLVED:
                    break
        for name, value in defaults.values(self.funcs[i]).items():  # (a helper's: used)
            self.chain = _DEFAULT + name
            out.append([self.chain, _meaning(value, self.index_of)])
        return out


# ----------------------------------------------------------- a unit from disk


@dataclass(eq=False)
class CachedName:
    name: str
    refs: dict = field(default_factory=dict)  # chain -> what it means now (the guards')


@dataclass(eq=False)
class CachedFunction:
    fn: CachedName  # its IR `name`, and `refs` for the dispatcher's guards
    user: object
    keep_defaults: bool = True


@dataclass(eq=False)
class CachedUnit:
    """What `compile` and `api` read of a `pipeline.Unit`, rebuilt from an entry (or,
    `from_disk` False, what `api.dispatch` keeps of a unit it built, not its IR)."""

    functions: list  # CachedFunction, in module order
    entry: tuple
    helpers: dict
    resolved: list
    texts: dict  # IR name -> emitted text of that function
    names: dict  # IR name -> its Python name
    text: str  # the whole emitted module
    root: object = None
    from_disk: bool = field(default=True, repr=False)
    restores: bool = True  # (see `pipeline.Unit.restores`)
    decided: list = field(default_factory=list)  # (see `pipeline.Unit.decided`)
    captured: list = field(default_factory=list)  # (see `pipeline.Unit.captured`)

    def namer(self, name: str) -> str:
        return self.names[name]


@dataclass(eq=False)
class Ticket:
    folder: Path
    path: Path
    key: str
    root: object
    entry: str = ""  # grad, value_and_grad or vjp


def _find(spec):
    """A helper object again from its import spec, among modules already imported."""
    if spec[0] == "module":
        return sys.modules.get(spec[1], _UNRESOLVED)
    _, module, qual = spec
    obj = sys.modules.get(module, _UNRESOLVED)
    for part in qual.split("."):
        if obj is _UNRESOLVED:
            break
        obj = getattr(obj, part, _UNRESOLVED)
    return obj


def _spec(obj):
    if isinstance(obj, types.ModuleType):
        spec = ["module", obj.__name__]
    else:
        module = getattr(obj, "__module__", None)
        qual = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
        if not (isinstance(module, str) and isinstance(qual, str)) or "<" in qual:
            raise _Uncacheable(f"the helper {obj!r} has no importable name")
        spec = ["object", module, qual]
    if _find(spec) is not obj:
        raise _Uncacheable(f"the helper {obj!r} is not found again by its name")
    return spec


def lookup(f, entry, wrt, as_tuple, kinds, checkpoint=None):
    """``(hit, ticket)``: ``hit`` is ``(unit, compiled)`` from disk or None; ``ticket``
    (for `save`) is None on a hit and when the cache is off or cannot be used."""
    folder = directory()
    if folder is None or not cachefiles.usable(folder):
        return None, None
    start = time.perf_counter()
    ticket = ticket_for(folder, f, entry, wrt, as_tuple, kinds, checkpoint)
    if ticket is None:
        return None, None
    why = "the function or a name it reads changed"
    try:
        payload = _read(ticket.path, ticket.key)
        if payload is not None:
            hit = _rebuild(payload, f, namespace_of(kinds))
            if hit is not None:
                cachefiles.touch(ticket.path)
                log.info("disk cache hit: %s of %s, from %s in %.1f ms", entry,
                         f.__qualname__, ticket.path, (time.perf_counter() - start) * 1e3)
                return hit, None
        elif not ticket.path.exists():
            why = "no entry"
        else:
            why = "the entry is damaged, or for another key"
    except Exception as exc:  # anything wrong with an entry makes it a miss
        why = f"the entry cannot be read ({type(exc).__name__}: {exc})"
    log.info("disk cache miss: %s of %s (%s)", entry, f.__qualname__, why)
    return None, ticket


def ticket_for(folder: Path, f, entry, wrt, as_tuple, kinds,
               checkpoint=None) -> Ticket | None:
    """Where the entry for these options lives, and its key (None when the source of
    `f` cannot be read: the pipeline reports that properly). `checkpoint` is
    `grad`'s ``(schedule, snapshots)`` or None."""
    try:
        key = _key(f, entry, wrt, as_tuple, kinds, checkpoint)
    except Exception:
        return None
    return Ticket(folder, folder / f"{_sha(key)}.json", key, f, entry)


def _read(path: Path, key: str):
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head, newline, body = data.partition(b"\n")
    if not newline:
        return None
    fields = head.split(b" ")
    if len(fields) != 3 or fields[0] != MAGIC.encode() or fields[1] != str(FORMAT).encode():
        return None
    if hashlib.sha256(body).hexdigest().encode() != fields[2]:
        return None
    payload = json.loads(body.decode("utf-8"))
    if not isinstance(payload, dict) or payload.get("key") != key:
        return None
    return payload


def _rebuild(payload: dict, f, namespace=None):
    funcs = []
    for owner, chain, record, context in payload["functions"]:
        func = f if owner is None else _Resolver(funcs[owner]).value(chain)
        if not _traversed(func) or not _same_source(func, record, context):
            return None
        funcs.append(func)
    index = {id(func): i for i, func in enumerate(funcs)}
    if len(index) != len(funcs):
        return None

    def index_of(func):
        return index.get(id(func), "?")

    refs = []  # per user function: {chain: value} (the dispatcher's guards read them)
    for func, meanings in zip(funcs, payload["meanings"], strict=True):
        resolver = _Resolver(func)
        refs.append({})
        for chain, meaning in meanings:
            refs[-1][chain] = value = resolver.value(chain)
            if _meaning(value, index_of) != meaning:
                return None
    helpers = {}
    for name, spec in payload["helpers"]:
        obj = _find(spec)
        if obj is _UNRESOLVED:
            return None
        helpers[name] = obj
    resolved = []
    for i, name in payload["resolved"]:
        obj = _Resolver(funcs[i]).value(name)
        if obj is _UNRESOLVED:
            return None
        resolved.append((funcs[i], name, obj))
    decided = []  # (the values a count or key was decided by: the same, or a miss)
    for i, name, text in payload.get("decided", ()):
        value = _Resolver(funcs[i]).value(name)
        if _decided_text(value) != text:
            return None
        decided.append((funcs[i], name, value))
    functions = [CachedFunction(CachedName(u["ir"], refs[u["user"]]), funcs[u["user"]],
                                u["keep_defaults"]) for u in payload["units"]]
    unit = CachedUnit(functions, tuple(payload["entry"]), helpers, resolved,
                      {u["ir"]: u["text"] for u in payload["units"]},
                      {u["ir"]: u["name"] for u in payload["units"]}, payload["text"],
                      restores=bool(payload.get("restores", True)), decided=decided)
    return unit, compile_mod.compile_unit(unit, namespace)


def _decided_text(value) -> str | None:
    """A value a derivative was built for (an int, a bool, a string, a tuple of
    ints and strings: `pipeline.Unit.decided`) as text that tells every other such
    value apart (its type's name with its repr: ``1``, ``True`` and ``"1"``
    differ); None for any other value."""
    if type(value) in (int, bool, str):
        return f"{type(value).__name__}:{value!r}"
    if type(value) is tuple:
        items = [_decided_text(v) for v in value]
        return None if None in items else f"tuple:({','.join(items)})"
    return None


def _describe(ticket: Ticket, unit) -> dict:
    survey = _Survey(ticket.root).run()

    def where(func) -> int:
        i = survey.index.get(id(func))
        if i is None:
            raise _Uncacheable(f"{func!r} is not reached by name from the function")
        return i

    if any(_decided_text(value) is None for _, _, value in unit.decided) or getattr(
            unit, "captured", None):  # (a sequence of functions: not told apart as text)
        raise _Uncacheable("it was built for a value no text tells apart")
    units = [{"ir": uf.fn.name, "name": unit.namer(uf.fn.name), "user": where(uf.user),
              "keep_defaults": bool(uf.keep_defaults), "text": unit.texts[uf.fn.name]}
             for uf in unit.functions]
    return {
        "key": ticket.key,
        "functions": [[owner, chain, record, context] for (owner, chain), record, context
                      in zip(survey.paths, survey.records, survey.contexts)],
        "meanings": survey.meanings,
        "units": units,
        "entry": list(unit.entry),
        "helpers": [[name, _spec(obj)] for name, obj in sorted(unit.helpers.items())],
        "resolved": [[where(func), name] for func, name, _ in unit.resolved],
        "decided": [[where(func), name, _decided_text(value)]
                    for func, name, value in unit.decided],
        "text": unit.text,
        "restores": bool(getattr(unit, "restores", True)),
    }


def save(ticket: Ticket, unit) -> bool:
    """Store `unit` for `ticket`'s key; whether it was stored. Never raises."""
    try:
        payload = _describe(ticket, unit)
        body = json.dumps(payload, separators=(",", ":"), ensure_ascii=True).encode()
    except Exception as exc:  # _Uncacheable, or anything unexpected: just do not store
        log.info("disk cache: %s of %s not stored: %s", ticket.entry,
                 ticket.root.__qualname__, exc)
        return False
    data = f"{MAGIC} {FORMAT} {hashlib.sha256(body).hexdigest()}\n".encode() + body
    folder = ticket.folder
    tmp = None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not cachefiles.usable(folder):
            return False
        fd, tmp = tempfile.mkstemp(prefix=f".{ticket.path.stem}.", suffix=".tmp",
                                   dir=folder)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        try:
            os.replace(tmp, ticket.path)
        except PermissionError:
            if not ticket.path.exists():
                raise
            os.unlink(tmp)  # Windows: a reader has the entry open; another writer won
            return False
        log.info("disk cache: stored %s of %s in %s (%d bytes)",
                 ticket.entry, ticket.root.__qualname__, ticket.path,
                 len(data))
        cap = max_bytes()
        removed = _sizes.stored(folder.absolute(), ticket.path, len(data), cap)
        if removed:
            log.info("disk cache: removed the %d least recently used entries of %s (%d "
                     "bytes) to keep it under %d bytes", len(removed), folder,
                     sum(e.size for e in removed), cap)
        return True
    except OSError as exc:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        cachefiles.cannot_use(folder, "cannot write to", exc)
        return False
