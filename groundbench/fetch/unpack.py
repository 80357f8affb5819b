"""Archive extraction that cannot write outside its folder.

Every member is checked before anything is written: no absolute path, no ``..``, no member whose
path or link target resolves outside the target folder, no device or FIFO, at most
``max_members`` members and ``max_bytes`` unpacked bytes (declared sizes, then counted while
writing, so a lying header cannot exceed the bound). macOS ``__MACOSX/`` and ``.DS_Store`` entries
are skipped. The caller unpacks into an empty temporary folder and renames it into place.

The archive's own integrity is checked to its last byte: every zip member's CRC-32 as it is read,
and a compressed tar's stream (gzip CRC and length, bzip2 block CRCs, xz check) drained to its end
after the last member, so a flipped or missing byte is one error and nothing is kept.
"""

from __future__ import annotations

import lzma
import posixpath
import shutil
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from groundbench.errors import GroundBenchError

MAX_BYTES = 64 * 1024**3  # 64 GiB: every source unpacks to well under this
MAX_MEMBERS = 2_000_000
CHUNK = 1 << 20
SKIPPED = ("__MACOSX/", ".DS_Store")
# What a damaged or truncated archive raises while it is read (gzip's BadGzipFile and bzip2's data errors
# are OSErrors without an errno; an OSError with one is the system's, e.g. a full disk, and passes).
DAMAGED = (EOFError, tarfile.TarError, zipfile.BadZipFile, zlib.error, lzma.LZMAError)
ZIP_MAGIC = b"PK\x03\x04"


def _skipped(name: str) -> bool:
    return name.startswith("__MACOSX/") or "/__MACOSX/" in name or PurePosixPath(name).name == ".DS_Store"


def _safe_name(archive: Path, name: str) -> str:
    """The member's normalised relative path, or an error naming it."""
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise GroundBenchError(archive.name, name, "member has an absolute path; refusing to unpack")
    norm = posixpath.normpath(path.as_posix())
    if norm == ".." or norm.startswith("../") or ".." in path.parts:
        raise GroundBenchError(archive.name, name, "member leaves the target folder ('..'); refusing to unpack")
    return norm


def _link_inside(archive: Path, name: str, target: str, hard: bool) -> None:
    base = "" if hard else posixpath.dirname(name)
    if target.startswith("/") or posixpath.normpath(posixpath.join(base, target)).split("/")[0] == "..":
        raise GroundBenchError(archive.name, name, f"link to {target!r} points outside the target folder")


def is_archive(path: Path) -> bool:
    return zipfile.is_zipfile(path) or tarfile.is_tarfile(path)


def extract(archive: Path, target: Path, max_bytes: int = MAX_BYTES, max_members: int = MAX_MEMBERS) -> int:
    """Unpack ``archive`` (zip or tar, any compression) into the empty folder ``target``; returns files written."""
    target.mkdir(parents=True, exist_ok=True)
    try:
        if zipfile.is_zipfile(archive):
            return _extract_zip(archive, target, max_bytes, max_members)
        if tarfile.is_tarfile(archive):
            return _extract_tar(archive, target, max_bytes, max_members)
    except DAMAGED as exc:
        raise _damaged(archive, exc) from exc
    except OSError as exc:
        if exc.errno is not None:
            raise
        raise _damaged(archive, exc) from exc
    with open(archive, "rb") as handle:
        if handle.read(len(ZIP_MAGIC)) == ZIP_MAGIC:
            raise _damaged(archive, zipfile.BadZipFile("no central directory at its end"))
    raise GroundBenchError(archive.name, "format", "expected a zip or tar archive")


def _damaged(archive: Path, exc: BaseException) -> GroundBenchError:
    detail = " ".join(str(exc).split()) or "ends early"
    return GroundBenchError(
        archive.name,
        "archive",
        f"damaged or truncated ({type(exc).__name__}: {detail}); nothing was kept: download it again",
    )


def _bounded_copy(source, dest: Path, budget: list[int], archive: Path, name: str) -> None:  # noqa: ANN001
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest, "wb") as out:
        while chunk := source.read(CHUNK):
            budget[0] -= len(chunk)
            if budget[0] < 0:
                raise GroundBenchError(archive.name, name, "unpacked size exceeds the bound; refusing to unpack")
            out.write(chunk)


def _check_inside(target: Path, dest: Path, archive: Path, name: str) -> None:
    real_target = target.resolve()
    real = dest.parent.resolve() / dest.name
    if real_target != real and real_target not in real.parents:
        raise GroundBenchError(archive.name, name, "member resolves outside the target folder")


def _extract_zip(archive: Path, target: Path, max_bytes: int, max_members: int) -> int:
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        if len(infos) > max_members:
            raise GroundBenchError(archive.name, "members", f"more than {max_members} members")
        if sum(i.file_size for i in infos) > max_bytes:
            raise GroundBenchError(archive.name, "size", f"declares more than {max_bytes} unpacked bytes")
        names = [(_safe_name(archive, i.filename), i) for i in infos if not _skipped(i.filename)]
        budget = [max_bytes]
        written = 0
        for name, info in names:
            mode = info.external_attr >> 16
            if (mode & 0o170000) == 0o120000:  # a symlink stored in a zip
                raise GroundBenchError(archive.name, info.filename, "symbolic links are not unpacked")
            dest = target / name
            _check_inside(target, dest, archive, info.filename)
            if info.is_dir():
                dest.mkdir(parents=True, exist_ok=True)
                continue
            with zf.open(info) as source:
                _bounded_copy(source, dest, budget, archive, info.filename)
            written += 1
    return written


def _extract_tar(archive: Path, target: Path, max_bytes: int, max_members: int) -> int:
    with tarfile.open(archive) as tf:
        members: list[tuple[str, tarfile.TarInfo]] = []
        declared = 0
        for member in tf:  # streams through a compressed archive once for the checks
            if len(members) >= max_members:
                raise GroundBenchError(archive.name, "members", f"more than {max_members} members")
            if _skipped(member.name):
                continue
            name = _safe_name(archive, member.name)
            if member.issym() or member.islnk():
                _link_inside(archive, name, member.linkname, member.islnk())
            elif not (member.isfile() or member.isdir()):
                raise GroundBenchError(archive.name, member.name, "device, FIFO or other special member")
            declared += member.size
            if declared > max_bytes:
                raise GroundBenchError(archive.name, "size", f"declares more than {max_bytes} unpacked bytes")
            members.append((name, member))
    # Second pass writes; tarfile's own "data" filter is a second guard for the same rules.
    budget = [max_bytes]
    written = 0
    with tarfile.open(archive) as tf:
        wanted = {member.name: name for name, member in members}
        for member in tf:
            if member.name not in wanted:
                continue
            dest = target / wanted[member.name]
            _check_inside(target, dest, archive, member.name)
            if member.isdir():
                dest.mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                source = tf.extractfile(member)
                assert source is not None
                _bounded_copy(source, dest, budget, archive, member.name)
                written += 1
            else:
                tf.extract(member, target, filter="data")
                written += 1
        # The members end before the compressed stream does: read it to the end, where gzip checks its
        # CRC-32 and length (and xz / bzip2 their checks) over every byte that was unpacked.
        while tf.fileobj is not None and tf.fileobj.read(CHUNK):
            pass
    return written


def remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
