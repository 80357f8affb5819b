"""``groundbench list``: what there is to ask (the sections: ``groundbench.review.listing``), as tables or JSON."""

from __future__ import annotations

import argparse

from rich.table import Table

from groundbench.commands.options import DATA, out
from groundbench.commands.options import data_folder as _data_folder
from groundbench.errors import unknown_name

NAME = "list"
HELP = """List what there is to ask: the configs of the published folder (stratum, rows, excluded rows and the
conditions valid for each) and every condition. Names a section to show only that one."""
PARENTS = (DATA,)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sections", nargs="*", metavar="SECTION", help="sections to show (default: every section)")
    parser.add_argument("--json", action="store_true", help="print the sections as JSON (section -> rows) instead")


def run(args: argparse.Namespace) -> int:
    import json

    from rich.markup import escape

    from groundbench.review.listing import NAMES, cell, chosen

    for name in args.sections:
        if name not in NAMES:
            raise unknown_name("command line", "section", name, NAMES)
    tables = [(section, section.rows(lambda: _data_folder(args))) for section in chosen(args.sections)]
    if args.json:
        print(json.dumps({section.name: rows for section, rows in tables}, indent=1, ensure_ascii=False))
        return 0
    for section, rows in tables:
        table = Table(title=escape(f"{section.name}: {section.title}"), title_justify="left")
        for column in rows[0] if rows else ():
            table.add_column(column, justify="right" if isinstance(rows[0][column], int) else "left")
        for row in rows:  # escaped: a syntax such as `[x, y]` is text, not rich markup
            table.add_row(*(escape(cell(value)) for value in row.values()))
        out.print(table)
    return 0
