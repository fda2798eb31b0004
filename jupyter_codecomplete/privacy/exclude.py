"""Which documents never reach a model: :class:`Exclusions`.

Paths are matched in gitignore syntax (``pathspec``'s ``GitIgnoreSpec``, git's own rules,
negation included), in this order, the first layer that decides wins:

1. the administrator's ``c.CodeCompleteApp.exclude`` (relative to the server's root): what it
   excludes no user file can bring back;
2. ``.codecompleteignore`` files, the nearest one first, up to the server's root (a nearer file's
   ``!pattern`` brings back what a farther one excluded, as git does);
3. the defaults (``c.CodeCompleteApp.default_exclude``: ``.env*``, ``*.pem``, ``id_rsa*``,
   ``*credentials*``, ``*secret*``...), which a ``.codecompleteignore`` may undo;
4. for context only (other open files, other paths' edits), ``.gitignore`` files the same way:
   a file git ignores is not sent beside the document being edited, but is itself completed.

An excluded document gets no suggestions, and is never sent as context from anywhere. Ignore
files are read at most once per :data:`RECHECK_SECONDS` per folder (a stat), and at most
:data:`MAX_IGNORE_BYTES` of each.
"""

from __future__ import annotations

import os
import posixpath
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from pathspec import GitIgnoreSpec

IGNORE_FILE = ".codecompleteignore"
GITIGNORE = ".gitignore"
DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".env*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    ".pgpass",
    "*credentials*",
    "*secret*",
)
RECHECK_SECONDS = 2.0
MAX_IGNORE_BYTES = 256 * 1024
# A client's drive prefix (``RTC:notebooks/a.ipynb``), not part of the path on disk.
_DRIVE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*:(?!//)")


@dataclass(frozen=True)
class Excluded:
    """Why a path is excluded: ``source`` is ``admin``, ``ignore_file``, ``default`` or
    ``gitignore``; ``reason`` says it for the user ("excluded by .codecompleteignore")."""

    path: str
    source: str
    reason: str


def normalize(path: str) -> str | None:
    """A client's path as a path relative to the server's root (``/``-separated); None for an
    empty one. A path that leaves the root keeps its ``..`` (only layers 1 and 3 match it)."""
    p = _DRIVE.sub("", path.strip()).replace("\\", "/")
    if not p:
        return None
    p = posixpath.normpath(p.lstrip("/"))
    return None if p in ("", ".") else p


class _IgnoreFiles:
    """The parsed ignore files of one name, by folder, each checked again after RECHECK_SECONDS."""

    def __init__(self, root: str, name: str) -> None:
        self.root = root
        self.name = name
        self._specs: dict[str, tuple[float, tuple[int, int] | None, GitIgnoreSpec | None]] = {}
        self._lock = threading.Lock()

    def spec(self, folder: str) -> GitIgnoreSpec | None:
        """The spec of ``folder``'s (relative) ignore file, or None when it has none."""
        now = time.monotonic()
        with self._lock:
            known = self._specs.get(folder)
        if known is not None and now - known[0] < RECHECK_SECONDS:
            return known[2]
        path = os.path.join(self.root, folder, self.name)
        try:
            st = os.stat(path)
            stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if known is not None and known[1] == stamp:
            spec = known[2]
        elif stamp is None:
            spec = None
        else:
            spec = self._read(path)
        with self._lock:
            self._specs[folder] = (now, stamp, spec)
            if len(self._specs) > 4096:
                self._specs.clear()
        return spec

    @staticmethod
    def _read(path: str) -> GitIgnoreSpec | None:
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_IGNORE_BYTES)
        except OSError:
            return None
        lines = data.decode("utf-8", "replace").splitlines()
        try:
            return GitIgnoreSpec.from_lines(lines)
        except Exception:  # a malformed pattern: the rest of the file still counts
            good = []
            for line in lines:
                try:
                    GitIgnoreSpec.from_lines([line])
                except Exception:
                    continue
                good.append(line)
            return GitIgnoreSpec.from_lines(good)

    def decide(self, rel: str) -> tuple[bool, str] | None:
        """The nearest ignore file's say on ``rel`` (excluded?, that file's path), or None."""
        if rel.startswith("../") or rel == "..":
            return None
        folder = posixpath.dirname(rel)
        while True:
            spec = self.spec(folder)
            if spec is not None:
                inner = rel[len(folder) + 1 :] if folder else rel
                found = spec.check_file(inner)
                if found.include is not None:
                    return bool(found.include), posixpath.join(folder, self.name)
            if not folder:
                return None
            folder = posixpath.dirname(folder)


class Exclusions:
    """The exclusion rules of one server (``root``: its root folder)."""

    def __init__(
        self,
        root: str | None = None,
        admin: Sequence[str] = (),
        defaults: Sequence[str] = DEFAULT_EXCLUDE,
        gitignore: bool = True,
    ) -> None:
        self.root = os.path.abspath(root or os.getcwd())
        self.admin_patterns = tuple(admin)
        self.default_patterns = tuple(defaults)
        self._admin = GitIgnoreSpec.from_lines(self.admin_patterns)
        self._defaults = GitIgnoreSpec.from_lines(self.default_patterns)
        self._files = _IgnoreFiles(self.root, IGNORE_FILE)
        self._git = _IgnoreFiles(self.root, GITIGNORE) if gitignore else None

    def check(self, path: str | None, *, context: bool = False) -> Excluded | None:
        """Why ``path`` is excluded, or None. ``context``: the path is sent beside another
        document (``.gitignore`` counts too)."""
        if path is None:
            return None
        rel = normalize(path)
        if rel is None:
            return None
        if self._admin.check_file(rel).include:
            return Excluded(rel, "admin", "excluded by the administrator (c.CodeCompleteApp.exclude)")
        decided = self._files.decide(rel)
        if decided is not None:
            if decided[0]:
                return Excluded(rel, "ignore_file", f"excluded by {decided[1]}")
            return None  # a user's ``!pattern`` brings it back (not from the administrator's)
        if self._defaults.check_file(rel).include:
            pattern = next(
                (p for p in self.default_patterns if GitIgnoreSpec.from_lines([p]).check_file(rel).include),
                "",
            )
            return Excluded(rel, "default", f"excluded by default ({pattern}; see {IGNORE_FILE})")
        if context and self._git is not None:
            git = self._git.decide(rel)
            if git is not None and git[0]:
                return Excluded(rel, "gitignore", f"ignored by {git[1]}")
        return None
