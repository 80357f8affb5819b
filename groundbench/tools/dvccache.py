"""The DVC cache behind a damaged file: find the object, say how to repair it, repair it.

``make build`` relinks every output to the DVC cache (``.dvc/config`` cache type
``hardlink,reflink,copy``, then ``dvc checkout --relink``): a workspace file *is* its cache object, and a
config's interim file, its shard and their object are one inode. One flipped bit in that object
changes every file linked to it, and DVC cannot tell: ``dvc status`` trusts the hashes it recorded,
and ``dvc checkout --force`` / ``dvc pull --force`` find the object present and keep its bytes.

:func:`diagnose` maps each file ``groundbench verify`` found changed to its DVC output (``dvc.lock``
and the ``.dir`` listings in the cache) and its object, and md5s the object: a damaged object (its bytes
no longer hash to its name) needs :func:`repair`; an intact object behind a damaged copy needs only
``dvc checkout --force``. :func:`repair` removes each damaged object and every tracked file with its
hash (its links), then restores them: ``dvc pull`` when a remote is configured and holds good bytes,
else ``dvc repro`` of the stages that own them (the build is deterministic: the same bytes come back),
then ``dvc checkout --relink`` so the outputs share one copy again.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from groundbench.errors import GroundBenchError

LOCK = "dvc.lock"
HASH_BLOCK = 8 * 1024 * 1024


@dataclass(frozen=True)
class Tracked:
    """A file DVC tracks: its md5 (as dvc.lock records it) and the stage output holding it."""

    path: str  # relative to the project root
    md5: str
    stage: str
    out: str


@dataclass(frozen=True)
class Damage:
    """A cache object whose bytes no longer hash to its name, and every tracked file with that hash."""

    md5: str
    object: Path
    files: tuple[str, ...]
    stages: tuple[str, ...]
    outs: tuple[str, ...]


@dataclass
class Diagnosis:
    damaged: list[Damage]
    copies: list[Tracked]  # changed files whose cache object is intact: `dvc checkout --force` restores them
    untracked: list[str]  # changed files DVC does not track (or records as they are now)

    def lines(self, root: Path) -> list[str]:
        """One repair line per damaged object and per group of damaged copies."""
        found = []
        for damage in self.damaged:
            found.append(
                f"{_rel(damage.object, root)}: damaged DVC cache object (its bytes no longer hash to its name) behind "
                f"{', '.join(damage.files)}; `dvc checkout --force` and `dvc pull --force` keep these bytes. Repair: "
                f"`groundbench verify --repair` (removes the object and its links, then `dvc pull "
                f"{' '.join(damage.outs)}` if a remote holds it, else `dvc repro {' '.join(damage.stages)}`)"
            )
        if self.copies:
            outs = " ".join(sorted({c.path for c in self.copies}))
            found.append(f"DVC's cache holds good bytes of the changed files: `dvc checkout --force {outs}`")
        return found


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def md5_file(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as handle:
        while block := handle.read(HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def is_dvc_project(root: Path) -> bool:
    return (root / ".dvc").is_dir() and (root / LOCK).is_file()


def cache_dir(root: Path) -> Path:
    """Where the project's DVC cache keeps md5-named objects (``cache.dir`` of its DVC config honoured)."""
    from dvc.repo import Repo

    with Repo(str(root)) as repo:
        return Path(repo.cache.local.path)  # <cache>/files/md5


def object_path(cache: Path, md5: str) -> Path:
    return cache / md5[:2] / md5[2:]


def tracked_files(root: Path, cache: Path) -> dict[str, Tracked]:
    """Every file of every output ``dvc.lock`` records (a directory output through its ``.dir`` listing)."""
    try:
        lock = yaml.safe_load((root / LOCK).read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise GroundBenchError(root / LOCK, "file", f"unreadable ({exc})") from exc
    found: dict[str, Tracked] = {}
    for stage, body in sorted((lock.get("stages") or {}).items()):
        for out in (body or {}).get("outs") or []:
            path, md5 = str(out.get("path")), str(out.get("md5") or "")
            if not md5.endswith(".dir"):
                found[path] = Tracked(path, md5, stage, path)
                continue
            listing = object_path(cache, md5)
            try:
                entries = json.loads(listing.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue  # the listing is not in this cache (a pulled subset): its files cannot be mapped
            for entry in entries:
                name = f"{path}/{entry['relpath']}"
                found[name] = Tracked(name, str(entry["md5"]), stage, path)
    return found


def diagnose(root: Path, changed: list[str]) -> Diagnosis:
    """What DVC holds behind each changed file (absolute or root-relative paths)."""
    diagnosis = Diagnosis([], [], [])
    if not is_dvc_project(root):
        diagnosis.untracked = list(changed)
        return diagnosis
    cache = cache_dir(root)
    tracked = tracked_files(root, cache)
    by_md5: dict[str, list[Tracked]] = {}
    for item in tracked.values():
        by_md5.setdefault(item.md5, []).append(item)
    damaged: dict[str, Damage] = {}
    for name in changed:
        rel = os.path.relpath(os.path.abspath(name), os.path.abspath(root)) if os.path.isabs(name) else name
        found = tracked.get(rel)
        if found is None:
            diagnosis.untracked.append(rel)
            continue
        item = found
        if item.md5 in damaged:
            continue
        obj = object_path(cache, item.md5)
        if obj.is_file() and md5_file(obj) == item.md5:
            here = root / rel
            if here.is_file() and md5_file(here) == item.md5:
                diagnosis.untracked.append(rel)  # as DVC recorded it: the records disagree, not the bytes
            else:
                diagnosis.copies.append(item)
            continue
        owners = by_md5[item.md5]
        damaged[item.md5] = Damage(
            item.md5,
            obj,
            tuple(sorted(t.path for t in owners)),
            tuple(sorted({t.stage for t in owners})),
            tuple(sorted({t.out for t in owners})),
        )
    diagnosis.damaged = list(damaged.values())
    return diagnosis


def _dvc(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DVC_NO_ANALYTICS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "dvc", *args], cwd=root, env=env, capture_output=True, text=True, check=False
    )


def _has_remote(root: Path) -> bool:
    return bool(_dvc(root, "remote", "default").stdout.strip())


def _restored(root: Path, damage: Damage, cache: Path) -> bool:
    obj = object_path(cache, damage.md5)
    return obj.is_file() and md5_file(obj) == damage.md5 and all((root / f).is_file() for f in damage.files)


def _remove(root: Path, damage: Damage) -> None:
    damage.object.unlink(missing_ok=True)
    for name in damage.files:
        (root / name).unlink(missing_ok=True)


def repair(root: Path, diagnosis: Diagnosis) -> list[str]:
    """Restore every damaged object and damaged copy; returns what was done, one line per step."""
    if not is_dvc_project(root):
        raise GroundBenchError(
            root / LOCK, "file", "--repair needs a DVC project (dvc.lock): rebuild instead (`make build`)"
        )
    cache = cache_dir(root)
    done: list[str] = []
    if diagnosis.copies:
        paths = sorted({c.path for c in diagnosis.copies})
        _checked(_dvc(root, "checkout", "--force", *paths), "dvc checkout --force")
        done.append(f"restored from the DVC cache: {' '.join(paths)}")
    left = list(diagnosis.damaged)
    for damage in left:
        _remove(root, damage)
        done.append(f"removed {_rel(damage.object, root)} and its links {' '.join(damage.files)}")
    if left and _has_remote(root):
        outs = sorted({out for d in left for out in d.outs})
        pulled = _dvc(root, "pull", *outs)
        good = [d for d in left if pulled.returncode == 0 and _restored(root, d, cache)]
        for damage in left:
            if damage not in good:
                _remove(root, damage)  # the remote lacks it or holds the same bad bytes
        if good:
            done.append(f"pulled from the DVC remote: {' '.join(sorted({o for d in good for o in d.outs}))}")
        left = [d for d in left if d not in good]
    if left:
        stages = sorted({stage for d in left for stage in d.stages})
        _checked(_dvc(root, "repro", *stages), f"dvc repro {' '.join(stages)}")
        done.append(f"rebuilt with dvc repro {' '.join(stages)}")
    if diagnosis.damaged:
        outs = sorted({out for d in diagnosis.damaged for out in d.outs})
        _checked(_dvc(root, "checkout", "--relink", *outs), "dvc checkout --relink")
        missing = [d for d in diagnosis.damaged if not _restored(root, d, cache)]
        if missing:
            raise GroundBenchError(
                missing[0].object, "md5", "still not restored after the repair (rebuild: `make build`)"
            )
    return done


def _checked(result: subprocess.CompletedProcess[str], what: str) -> None:
    if result.returncode != 0:
        last = (result.stderr or result.stdout).strip().splitlines()
        raise GroundBenchError("dvc", what, f"failed: {last[-1] if last else f'exit {result.returncode}'}")
