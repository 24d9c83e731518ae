"""cachefiles: the disk cache's directory: where, whether it is safe, its files, their
size, and eviction.

Contract
--------
`user_cache_dir` is the platform's per-user cache directory for s2sad. `usable`
says whether a directory may hold entries, which hold code that runs: on POSIX it must
belong to this user and not be writable by others. What cannot be used is warned
about with a `DiskCacheWarning`, once per directory, problem and process
(`cannot_use`).

An entry is a file named by a SHA-256 in hex and ``.json`` (`ENTRY`); a write in
progress is a temporary file beside it (`TEMP`). Nothing else in the directory is
counted, removed or read.

The cache is kept under a cap in bytes by least-recently-used eviction. An entry's
modification time is its last use: `touch` sets it to now on a hit (one `os.utime`),
and writing an entry sets it too. `Sizes.stored` is called after each write: it keeps
a running total of the directory per process (the first write in a process lists the
directory, later ones add the size written), and when the total goes over the cap it
lists the directory again and removes the entries used longest ago, never the one
just written, until the total is at most `LOW_WATER` of the cap. So the directory is
listed once per process and then once per tenth of the cap written, not on every
write; between listings, entries other processes write are not counted, so a
directory shared by processes writing at once may go over the cap by what they wrote
since their last listing.

Processes may share a directory: a file that vanishes between the listing and its
`stat` or `unlink` (another process removed it) is skipped, as is one that cannot be
removed (on Windows, an entry a reader has open). Nothing here raises `OSError`.

Imports nothing of s2sad.
"""

from __future__ import annotations

import os
import re
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path

ENTRY = re.compile(r"[0-9a-f]{64}\.json\Z")
TEMP = re.compile(r"\.[0-9a-f]{64}\..*\.tmp\Z")
LOW_WATER = 0.9  # eviction leaves the entries at most this fraction of the cap

_warned: set = set()
_safe_dirs: set = set()
_state_lock = threading.Lock()


class DiskCacheWarning(UserWarning):
    """The disk cache could not be used (it is skipped; nothing else changes)."""


def user_cache_dir() -> Path:
    """The platform's per-user cache directory for s2sad (not created here)."""
    home = os.path.expanduser("~")
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        return Path(base) / "s2sad" / "Cache"
    if sys.platform == "darwin":
        return Path(home) / "Library" / "Caches" / "s2sad"
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = xdg if os.path.isabs(xdg) else os.path.join(home, ".cache")
    return Path(base) / "s2sad"


def warn_once(key, message: str, stacklevel=4):
    """Warn `message` (a `DiskCacheWarning`) the first time `key` is seen."""
    with _state_lock:
        if key in _warned:
            return
        _warned.add(key)
    warnings.warn(f"s2sad disk cache: {message}", DiskCacheWarning, stacklevel=stacklevel)


def cannot_use(folder, what: str, exc=None):
    detail = f": {exc}" if exc is not None else ""
    warn_once((folder, what), f"{what} {folder}{detail}; derivatives are built without it",
              stacklevel=6)


def usable(folder: Path) -> bool:
    """Whether entries in `folder` may be read and written: on POSIX the directory
    must belong to this user and not be writable by others (entries hold code).
    A directory that does not exist yet is usable (it is created private)."""
    if folder in _safe_dirs:
        return True
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        return True
    except OSError as exc:
        cannot_use(folder, "cannot use the directory", exc)
        return False
    if os.name == "posix" and (st.st_uid != os.getuid() or st.st_mode & 0o022):
        cannot_use(folder, "will not use a directory that other users can write to or "
                           "that belongs to another user:")
        return False
    _safe_dirs.add(folder)
    return True


@dataclass(frozen=True)
class Entry:
    path: Path
    size: int
    used: int  # last use: modification time in nanoseconds


def entries(folder: Path) -> list:
    """The entries in `folder`, least recently used first (none when the directory
    cannot be listed)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    out = []
    for name in names:
        if ENTRY.match(name):
            path = folder / name
            try:
                st = os.stat(path)
            except OSError:  # removed by another process since the listing
                continue
            out.append(Entry(path, st.st_size, st.st_mtime_ns))
    out.sort(key=lambda e: (e.used, e.path.name))
    return out


def touch(path: Path) -> None:
    """Mark the entry at `path` as used now."""
    try:
        os.utime(path)
    except OSError:
        pass


def clear(folder: Path) -> int:
    """Delete the entries and stray temporary files in `folder`; how many."""
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    removed = 0
    for name in names:
        if ENTRY.match(name) or TEMP.match(name):
            try:
                os.unlink(folder / name)
                removed += 1
            except OSError:
                pass
    return removed


def evict(folder: Path, cap: int, keep: Path | None = None) -> tuple:
    """Remove the least recently used entries of `folder` (never `keep`) while their
    total is over `LOW_WATER` of `cap`, when it is over `cap`: ``(total after,
    [removed entries])``."""
    found = entries(folder)
    total = sum(e.size for e in found)
    removed = []
    if total <= cap:
        return total, removed
    for e in found:
        if total <= cap * LOW_WATER:
            break
        if keep is not None and e.path.name == keep.name:
            continue
        try:
            os.unlink(e.path)
        except FileNotFoundError:  # another process evicted it first
            pass
        except OSError:  # open elsewhere (Windows) or not ours to remove: keep it
            continue
        else:
            removed.append(e)
        total -= e.size
    return total, removed


class Sizes:
    """The running total of each directory's entries in this process (see the module
    docstring)."""

    def __init__(self):
        self.totals: dict = {}
        self.lock = threading.Lock()

    def stored(self, folder: Path, path: Path, size: int, cap: int) -> list:
        """`path` (`size` bytes) was just written in `folder`: evict if the total is
        over `cap`; the entries removed."""
        with self.lock:
            total = self.totals.get(folder)
            if total is None:
                total = sum(e.size for e in entries(folder))
            else:
                total += size
            removed = []
            if total > cap:
                total, removed = evict(folder, cap, keep=path)
            self.totals[folder] = total
            return removed

    def forget(self, folder: Path) -> None:
        """The directory changed in a way the running total does not know (cleared)."""
        with self.lock:
            self.totals.pop(folder, None)


@dataclass(frozen=True)
class CacheInfo:
    """A disk cache directory, whether it is the one in use, its entries and their
    total size, and the cap; printed as a table (``s2sad cache info``)."""

    directory: Path
    enabled: bool
    entries: int
    size: int  # bytes
    max_size: int  # bytes

    def __str__(self) -> str:
        state = "yes" if self.enabled else \
            "no (S2SAD_DISK_CACHE=1 or s2sad.enable_disk_cache() turns it on)"
        return (f"directory  {self.directory}\n"
                f"enabled    {state}\n"
                f"entries    {self.entries}\n"
                f"size       {_size_text(self.size)}\n"
                f"cap        {_size_text(self.max_size)} (S2SAD_CACHE_MAX_MB, or "
                f"s2sad.enable_disk_cache(max_mb=...))\n")


def _size_text(size: int) -> str:
    if size >= 1e15:
        return "none"
    if size < 1e3:
        return f"{size} bytes"
    for unit, scale in (("kB", 1e3), ("MB", 1e6), ("GB", 1e9)):
        if size < scale * 1e3 or unit == "GB":
            return f"{size / scale:.4g} {unit}"
