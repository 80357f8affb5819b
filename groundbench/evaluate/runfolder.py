"""The run folder: one ``groundbench eval`` at a time (its ``.lock``), bound to one setting (``run.json``).

The setting is what the answers depend on beyond the rows asked: the model and how it is asked. It is
read off the fields of the command's settings dataclass marked with :data:`SETTING`, so a field joins
it (is recorded, compared and named in the refusal) by being marked, with no code elsewhere. A
``run.json`` written before a field existed is read as holding that field's default. The configs,
conditions and ``--limit`` are not part of it: any of them may be added to a folder, which accumulates.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from groundbench.core.atomic import write_text
from groundbench.core.locks import exclusive
from groundbench.errors import GroundBenchError

SETTING_FILE = "run.json"
LOCK = ".lock"
SETTING: Mapping[str, bool] = {"run_setting": True}  # dataclasses.field(metadata=SETTING)


def _recorded(value: Any) -> Any:
    """A setting's value as run.json holds it (a model object by its name)."""
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


def run_setting(settings: Any) -> dict[str, Any]:
    """The marked fields of a settings dataclass instance, as ``run.json`` records them."""
    return {
        f.name: _recorded(getattr(settings, f.name))
        for f in dataclasses.fields(settings)
        if f.metadata.get("run_setting")
    }


def setting_defaults(settings: Any) -> dict[str, Any]:
    """The defaults of the marked fields (what a ``run.json`` that predates a field is read as)."""
    return {
        f.name: _recorded(f.default)
        for f in dataclasses.fields(settings)
        if f.metadata.get("run_setting") and f.default is not dataclasses.MISSING
    }


def check_setting(out: Path, setting: Mapping[str, Any], defaults: Mapping[str, Any]) -> None:
    """Refuse a command whose setting differs from the folder's ``run.json``, naming the first difference."""
    path = out / SETTING_FILE
    if not path.is_file():
        return
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        recorded = exc
    if not isinstance(recorded, dict):
        raise GroundBenchError(path, "file", f"expected the run's setting as one JSON object ({recorded})")
    before = {**defaults, **recorded}
    for name in sorted(set(before) | set(setting)):
        was, now = before.get(name), setting.get(name)
        if name not in before or name not in setting or was != now:
            asks = f"this command asks {now!r}" if name in setting else "a setting this version does not know"
            raise GroundBenchError(
                path,
                name,
                f"this folder holds a run with {name}={was!r}, {asks}: give another --out (or delete the folder "
                "to start again)",
            )


def write_setting(out: Path, setting: Mapping[str, Any]) -> None:
    """Bind the folder to its setting (before the first answer; rewritten only to add a new field's default)."""
    path = out / SETTING_FILE
    text = json.dumps(dict(setting), indent=1, sort_keys=True) + "\n"
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_text(path, text)


def make_folder(out: Path) -> None:
    """``out`` as a folder (made with its parents), or one line saying that it, or a folder above it, is a file."""
    file = next((p for p in [out, *out.parents] if p.exists() and not p.is_dir()), None)
    if file is not None:
        what = "--out is a file" if file == out else f"{file} is a file, so --out cannot be made below it"
        raise GroundBenchError(
            out,
            "--out",
            f"{what}: --out names the run folder eval writes (run.json, answers.jsonl, predictions.jsonl, "
            "scores.json); give a folder, new or one an earlier eval wrote (default: build/eval of the project)",
        )
    out.mkdir(parents=True, exist_ok=True)


@contextmanager
def held(out: Path) -> Iterator[None]:
    """Hold the run folder for this command alone; a folder it made and left empty is removed again."""
    made = not out.exists()
    make_folder(out)
    reason = "another groundbench eval is writing this run folder; wait for it to finish, then run again"
    try:
        with exclusive(out / LOCK, out / LOCK, reason):
            yield
    finally:
        if made and [p.name for p in out.iterdir()] == [LOCK]:
            shutil.rmtree(out, ignore_errors=True)
