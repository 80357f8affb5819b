"""``groundbench import``'s edges: read the files, write the lines and the report (atomically), print a summary.

What happens between is pure (``scoring/imports``): each file's rows are read by its framework's module, joined
to the config's rows, written as prediction lines; then, when the file carries the framework's own verdicts and
the lines can be read (``--answer stored``, a declared ``--answer-format``), the written file is scored with the
project's own join and rule (``scoring.predictions``) and both counts are set side by side.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from groundbench.core.atomic import write_text
from groundbench.errors import GroundBenchError, unknown_name
from groundbench.scoring.formats import DEFAULT, parse_format
from groundbench.scoring.gate import folder_gate
from groundbench.scoring.imports import KINDS, READERS, pointerbench
from groundbench.scoring.imports.join import Joined, join
from groundbench.scoring.imports.lines import ANSWERS, STORED, prediction_line
from groundbench.scoring.imports.source import SourceRow
from groundbench.scoring.imports.theirs import Comparison, Ours, compare
from groundbench.scoring.metrics import gui_success
from groundbench.scoring.parse import FIELDS, STRICT
from groundbench.scoring.predictions import expand, read_prediction_lines, read_rows
from groundbench.scoring.predictions import join as join_lines

SHOWN = 5  # differences and unjoined rows printed; the report lists every one


@dataclass(frozen=True)
class ImportOptions:
    kind: str
    config: str
    model: str
    answer: str = "raw"
    answer_format: str | None = None


def _json(text: str, path: Path) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise GroundBenchError(path, "file", f"expected JSON ({exc})") from exc


def _jsonl(text: str, path: Path) -> list[Any]:
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                found.append(json.loads(line))
            except ValueError as exc:
                raise GroundBenchError(f"{path}: line {number}", "line", f"expected one JSON object ({exc})") from exc
    return found


def _table(text: str, path: Path) -> list[dict[str, str]]:
    """A VLMEvalKit TSV (pandas ``to_csv(sep="\\t", quoting=QUOTE_ALL)``): column -> cell, per row."""
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter="\t")
    rows = list(reader)
    if reader.fieldnames is None:
        raise GroundBenchError(path, "file", "expected a TSV with a header row, found an empty file")
    return rows


def _cell(value: Any) -> str:
    """A cell as the TSV dump writes it (pandas ``to_csv``): text as it is, a number as ``str``, empty as ""."""
    return "" if value is None else value if isinstance(value, str) else str(value)


def _sheet(path: Path) -> list[dict[str, str]]:
    """VLMEvalKit's default dump (``to_excel``, ``{model}_{dataset}.xlsx``): the first sheet's header row and
    rows, each cell as the TSV would hold it, so both dumps are read by one reader."""
    from openpyxl import load_workbook  # only for xlsx: the other kinds never pay its import
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        workbook = load_workbook(path, read_only=True, data_only=True)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, InvalidFileException) as exc:
        raise GroundBenchError(path, "file", f"expected an xlsx workbook ({type(exc).__name__}: {exc})") from exc
    try:
        rows = workbook.worksheets[0].iter_rows(values_only=True)
        header = [_cell(value) for value in next(rows, ())]
        if not header:
            raise GroundBenchError(path, "file", "expected a sheet with a header row, found an empty sheet")
        width = len(header)  # a read-only sheet drops a row's trailing empty cells: padded back
        return [
            dict(zip(header, [*map(_cell, row[:width]), *[""] * (width - len(row))], strict=True))
            for row in rows
            if any(value is not None for value in row)
        ]
    finally:
        workbook.close()


def load(path: Path, kind: str) -> Any:
    """The parsed content of one file, as its framework's module reads it."""
    if path.suffix.lower() == ".xls":
        raise GroundBenchError(path, "file", "expected .xlsx, .tsv or .json: an Excel 97 .xls sheet is not read")
    if path.suffix.lower() == ".xlsx":
        return _sheet(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise GroundBenchError(path, "file", f"expected a readable UTF-8 file ({exc})") from exc
    if kind == "screenspot-pro-eval":
        return _json(text, path)
    if kind == "lmms-eval":
        return _jsonl(text, path)
    if kind == "vlmevalkit":
        if path.suffix.lower() == ".json":
            data = _json(text, path)
            if not isinstance(data, list):
                raise GroundBenchError(path, "file", "expected a JSON list of rows (PRED_FORMAT=json)")
            return data
        return _table(text, path)
    stripped = text.lstrip()
    return _json(text, path) if stripped.startswith("[") else _jsonl(text, path)  # eval.py takes both


def read_sources(files: Sequence[Path], kind: str) -> list[SourceRow]:
    if kind not in READERS:
        raise unknown_name("command line", "--from", kind, KINDS)
    sources: list[SourceRow] = []
    for path in files:
        sources += READERS[kind](load(Path(path), kind), str(path))
    return sources


def config_rows(folder: Path, config: str) -> list[dict[str, Any]]:
    rows = [row for _, row in read_rows(folder, [config]).values()]
    if rows and not any((row.get("extras") or {}).get("gui") for row in rows):
        raise GroundBenchError(folder, "--config", f"expected a GUI config (rows with extras.gui), {config} is not one")
    return rows


def comparable(options: ImportOptions) -> str | None:
    """None when the written lines can be scored as they are; else why not."""
    if options.answer == STORED or options.answer_format is not None or options.kind == pointerbench.KIND:
        return None
    return (
        "ours is not computed: the raw answers are read in a declared format (give --answer-format, or --answer stored)"
    )


def score_written(folder: Path, config: str, path: Path, rows: Sequence[dict[str, Any]]) -> dict[str, Ours]:
    """GroundBench's verdict on every row of the config from the written lines (absent rows: failures)."""
    ours = {str(row["example_id"]): Ours(False, None) for row in rows}
    if not path.read_text(encoding="utf-8").strip():
        return ours
    indexed = read_rows(folder, [config])
    joined = join_lines(read_prediction_lines(path), indexed, folder_gate(folder), answer_format=parse_format(DEFAULT))
    items, _ = expand(joined.items, indexed, joined.seen)
    for item in items:
        point = item.answer.point if item.answer.status in (STRICT, FIELDS) else None
        ours[str(item.row["example_id"])] = Ours(gui_success(item.answer, item.row), point)
    return ours


def _where(source: SourceRow) -> dict[str, Any]:
    return {
        "file": source.file,
        "index": source.index,
        "image": source.image,
        "instruction": source.instruction,
        "id": source.source_id,
        "task": source.task,
    }


def build_report(
    options: ImportOptions,
    files: Sequence[Path],
    out: Path,
    sources: Sequence[SourceRow],
    rows: Sequence[Any],
    joined: Joined,
    comparison: Comparison | None,
    note: str | None,
) -> dict[str, Any]:
    return {
        "from": options.kind,
        "files": [str(f) for f in files],
        "config": options.config,
        "model": options.model,
        "answer": options.answer,
        "answer_format": parse_format("pixels").spec if options.answer == STORED else options.answer_format,
        "out": str(out),
        "counts": {
            "file_rows": len(sources),
            "config_rows": len(rows),
            "matched": len(joined.matched),
            "absent": len(joined.absent),
            "extra": len(joined.extra),
            "ambiguous": len(joined.ambiguous),
        },
        "absent": [str(row["example_id"]) for row in joined.absent],
        "extra": [{**_where(s), "reason": why} for s, why in joined.extra],
        "ambiguous": [{**_where(s), "candidates": c, "resolution": why} for s, c, why in joined.ambiguous],
        "theirs_vs_ours": None if comparison is None else comparison.to_dict(),
        "theirs_vs_ours_note": note,
    }


def run_import(
    folder: Path, files: Sequence[Path], options: ImportOptions, out: Path, report_path: Path | None, console: Console
) -> dict[str, Any]:
    """Import, write, compare, print; returns the report (also written to ``report_path``)."""
    if not options.model.strip():
        raise GroundBenchError("command line", "--model", "expected the model's name (a non-empty string)")
    if options.answer not in ANSWERS:
        raise unknown_name("command line", "--answer", options.answer, ANSWERS)
    answer_format = None if options.answer_format is None else parse_format(options.answer_format).spec
    if options.answer == STORED and answer_format is not None:
        raise GroundBenchError("command line", "--answer-format", "--answer stored writes pixels; give no format")
    options = ImportOptions(options.kind, options.config, options.model, options.answer, answer_format)
    sources = read_sources(files, options.kind)
    rows = config_rows(folder, options.config)
    joined = join(sources, rows)
    lines = [prediction_line(m, options.kind, options.model, options.answer, answer_format) for m in joined.matched]
    write_text(out, "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    comparison, note = None, None
    if any(s.verdict is not None for s in sources):
        note = comparable(options)
        if note is None:
            comparison = compare(joined, sources, score_written(folder, options.config, out, rows))
    else:
        note = "the file records no verdicts of its own: nothing to set beside ours"
    report = build_report(options, files, out, sources, rows, joined, comparison, note)
    if report_path is not None:
        write_text(report_path, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print_summary(report, console)
    return report


def print_summary(report: dict[str, Any], console: Console) -> None:
    counts = report["counts"]
    table = Table(title=escape(f"import --from {report['from']} -> {report['config']}"), show_header=True)
    for column in ("file rows", "config rows", "matched", "absent", "extra", "ambiguous"):
        table.add_column(column, justify="right")
    table.add_row(
        *(str(counts[key]) for key in ("file_rows", "config_rows", "matched", "absent", "extra", "ambiguous"))
    )
    console.print(table)
    if counts["absent"]:
        console.print(f"{counts['absent']} config rows are absent from the file: no line, each a failure when scored")
    for entry in report["extra"][:SHOWN]:
        console.print(escape(f"extra {entry['file']} row {entry['index']}: {entry['reason']}"), soft_wrap=True)
    for entry in report["ambiguous"][:SHOWN]:
        console.print(escape(f"ambiguous {entry['file']} row {entry['index']}: {entry['resolution']}"), soft_wrap=True)
    versus = report["theirs_vs_ours"]
    if versus is not None:
        theirs, ours = versus["theirs"], versus["ours"]
        reasons = ", ".join(f"{reason} {n}" for reason, n in versus["reasons"].items()) or "none"
        console.print(
            f"theirs {theirs['correct']} of {theirs['n']} correct; ours {ours['correct']} of {ours['n']}; "
            f"{len(versus['differences'])} rows differ ({reasons})",
            soft_wrap=True,
        )
        for entry in versus["differences"][:SHOWN]:
            name = entry["example_id"] or f"{entry['file']} row {entry['index']}"
            console.print(
                escape(f"  {name}: theirs {entry['theirs']}, ours {entry['ours']} ({entry['reason']})"), soft_wrap=True
            )
    elif report["theirs_vs_ours_note"]:
        console.print(escape(report["theirs_vs_ours_note"]), soft_wrap=True)
    console.print(escape(f"wrote {counts['matched']} prediction lines to {report['out']}"), soft_wrap=True)
