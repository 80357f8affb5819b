"""``groundbench version bump {major,minor,patch}``: one semantic dataset version and a computed changelog.

The version lives in params.yaml ``dataset.version``; the card, the Croissant file and the
published shards' metadata read it from there at ``assemble``. A bump compares the current built
shards with the row index recorded at the previous bump (``data/versions/<version>.rows.tsv.gz``,
git-tracked: one ``config<TAB>example_id<TAB>row hash`` line per row, gzip without timestamps) and
writes an entry to ``CHANGELOG-data.md``: rows added, removed and changed per config. The row hash
is the sha256 (first 16 hex digits) of the row's canonical JSON without the image bytes (the
row's ``image_sha256`` stands for them).
"""

from __future__ import annotations

import datetime
import gzip
import hashlib
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path

from groundbench.core.atomic import write_bytes, write_text
from groundbench.core.params import PARAMS_FILE, load_params
from groundbench.core.shards import iter_batches
from groundbench.errors import GroundBenchError

VERSIONS = Path("data/versions")
CHANGELOG = Path("CHANGELOG-data.md")
PARTS = ("major", "minor", "patch")
SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")

RowIndex = dict[str, dict[str, str]]  # config -> example_id -> row hash


def bumped(version: str, part: str) -> str:
    match = SEMVER.match(version)
    if not match:
        raise GroundBenchError(PARAMS_FILE, "dataset.version", f"expected MAJOR.MINOR.PATCH, found {version!r}")
    major, minor, patch = (int(x) for x in match.groups())
    if part == "major":
        return f"{major + 1}.0.0"
    if part == "minor":
        return f"{major}.{minor + 1}.0"
    if part == "patch":
        return f"{major}.{minor}.{patch + 1}"
    raise GroundBenchError("command line", "part", f"expected one of {PARTS}, found {part!r}")


def row_hash(row: dict) -> str:
    row = {key: value for key, value in row.items() if key != "image"}
    return hashlib.sha256(json.dumps(row, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]


def row_index(shards_root: Path, configs: list[str]) -> RowIndex:
    index: RowIndex = {}
    for config in configs:
        rows: dict[str, str] = {}
        for batch in iter_batches(shards_root / config):
            for row in batch.drop_columns(["image"]).to_pylist():
                rows[row["example_id"]] = row_hash(row)
        index[config] = rows
    return index


def index_bytes(index: RowIndex) -> bytes:
    lines = [f"{c}\t{i}\t{h}\n" for c in sorted(index) for i, h in sorted(index[c].items())]
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as handle:  # no timestamp, no name
        handle.write("".join(lines).encode())
    return buffer.getvalue()


def read_index(path: Path) -> RowIndex:
    index: RowIndex = {}
    try:
        text = gzip.decompress(path.read_bytes()).decode()
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise GroundBenchError(path, "file", f"expected a gzipped row index ({exc})") from exc
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split("\t")
        if len(fields) != 3:
            raise GroundBenchError(path, f"line {number}", "expected config, example_id and row hash")
        index.setdefault(fields[0], {})[fields[1]] = fields[2]
    return index


@dataclass(frozen=True)
class ConfigChange:
    config: str
    added: int
    removed: int
    changed: int
    unchanged: int


def diff(previous: RowIndex, current: RowIndex) -> list[ConfigChange]:
    changes = []
    for config in sorted(set(previous) | set(current)):
        old, new = previous.get(config, {}), current.get(config, {})
        common = set(old) & set(new)
        changed = sum(1 for key in common if old[key] != new[key])
        changes.append(
            ConfigChange(config, len(set(new) - set(old)), len(set(old) - set(new)), changed, len(common) - changed)
        )
    return changes


def changelog_entry(old: str, new: str, changes: list[ConfigChange], baseline: bool) -> str:
    lines = [f"## {new}", ""]
    if baseline:
        lines += [f"Compared with {old}.", ""]
    else:
        lines += [f"No row index was recorded for {old}: every row counts as added.", ""]
    lines += ["| config | added | removed | changed | unchanged |", "| --- | ---: | ---: | ---: | ---: |"]
    lines += [f"| `{c.config}` | {c.added} | {c.removed} | {c.changed} | {c.unchanged} |" for c in changes]
    return "\n".join(lines) + "\n"


def bump(root: Path, shards_root: Path, configs: list[str], part: str) -> tuple[str, list[ConfigChange]]:
    """Bump params.yaml, record the current row index under the new version, prepend the changelog entry."""
    params_path = root / PARAMS_FILE
    text = params_path.read_text(encoding="utf-8")
    old = load_params(root).dataset.version
    new = bumped(old, part)
    previous_path = root / VERSIONS / f"{old}.rows.tsv.gz"
    previous = read_index(previous_path) if previous_path.is_file() else {}
    current = row_index(shards_root, configs)
    changes = diff(previous, current)
    write_bytes(root / VERSIONS / f"{new}.rows.tsv.gz", index_bytes(current))
    changelog = root / CHANGELOG
    head = (
        "# Data changelog\n\nGenerated by `groundbench version bump`; rows per config, by example_id and row hash.\n\n"
    )
    body = changelog.read_text(encoding="utf-8").removeprefix(head) if changelog.is_file() else ""
    write_text(changelog, head + changelog_entry(old, new, changes, previous_path.is_file()) + "\n" + body)
    # Edit the one line in place: params.yaml keeps its comments and layout.
    pattern = re.compile(r"^(dataset:\n(?:[ \t]+.*\n)*?[ \t]+version:[ \t]*)" + re.escape(old) + r"[ \t]*$", re.M)
    updated, count = pattern.subn(lambda m: m.group(1) + new, text, count=1)
    if count != 1:
        raise GroundBenchError(params_path, "dataset.version", "could not find the version line to update")
    # The new version is released today: its date (croissant.json datePublished, the BibTeX year).
    today = datetime.datetime.now(datetime.UTC).date().isoformat()
    # Quoted either way (a params.yaml rewritten by a YAML dumper single-quotes the date).
    dated = re.compile(r"""^([ \t]+date_published:[ \t]*)["']?[0-9-]+["']?""", re.M)
    updated = dated.sub(lambda m: f'{m.group(1)}"{today}"', updated, count=1)
    write_text(params_path, updated)
    return new, changes
