"""A file's sha256, hashed once per file identity and remembered on disk (``load_config``'s seal check).

A file's identity is what the kernel changes with every write to it: its device and inode, size,
``mtime_ns`` and ``ctime_ns``. A rewrite in place changes ``ctime`` even when it restores ``mtime``
(``cp -p``, ``touch -d``: ``ctime`` cannot be set back), a replacement (``os.replace``, a rebuild, a
download) brings another inode, so a file whose identity is the one recorded has the bytes that were
hashed. Two limits, as git's index has them:

- timestamps are coarse (a clock tick, up to seconds on some file systems), so a file written again within
  the tick of its hashing could keep its identity: a digest is remembered only for a file last changed at
  least ``SETTLED_NS`` before its hashing began, and only when its identity is the same after hashing as
  before (a file being written is hashed again next time);
- bytes that change below the file system (a failing disk, a write to the raw device) change no identity:
  ``groundbench verify`` hashes every byte every time, and that is the check for them.

The records live in ``store``, one small JSON file per hashed file (named by the sha256 of its resolved
path), each written atomically, so two processes at once each leave a whole record; one that cannot be
read is ignored and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from groundbench.core.atomic import write_text
from groundbench.core.manifests import sha256_file

SETTLED_NS = 2_000_000_000  # 2 s: coarser than any timestamp granularity of a local file system but FAT's


def file_sha256(path: Path, store: Path) -> str:
    """``path``'s sha256: the remembered one while the file keeps the identity it was hashed with, else
    hashed now (and remembered when the file had settled)."""
    path = path.resolve()
    record = store / f"{hashlib.sha256(str(path).encode('utf-8')).hexdigest()}.json"
    before = identity(path)
    remembered = _read(record, path, before)
    if remembered is not None:
        return remembered
    started = time.time_ns()
    sha = sha256_file(path)
    if identity(path) == before and started - max(before[3], before[4]) >= SETTLED_NS:
        write_text(record, json.dumps({"path": str(path), "identity": before, "sha256": sha}))
    return sha


def remembered(path: Path, store: Path) -> str | None:
    """``path``'s remembered sha256 while the file keeps the identity it was hashed with, else None (nothing read
    but a ``stat`` and the record)."""
    path = path.resolve()
    record = store / f"{hashlib.sha256(str(path).encode('utf-8')).hexdigest()}.json"
    return _read(record, path, identity(path))


def identity(path: Path) -> list[int]:
    """Device, inode, size, mtime_ns, ctime_ns: what a write to the file changes."""
    stat = path.stat()
    return [stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns]


def _read(record: Path, path: Path, now: list[int]) -> str | None:
    """The digest the record holds for ``path`` at identity ``now``; None when it holds none (absent,
    unreadable, another file's, another identity)."""
    try:
        found = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(found, dict) or found.get("path") != str(path) or found.get("identity") != now:
        return None
    sha = found.get("sha256")
    return sha if isinstance(sha, str) and len(sha) == 64 else None
