"""``groundbench profiles``: every model profile (``groundbench.scoring.profiles``)."""

from __future__ import annotations

import argparse
import json

from groundbench.commands.options import out

NAME = "profiles"
HELP = """Print every model profile (--profile of eval and requests): its answer format, the frame the model is sent
and answers in, and the family's GUI grounding prompt."""


def run(args: argparse.Namespace) -> int:
    from groundbench.scoring.profiles import listing

    for entry in listing():
        resize = "resized to it on our side" if entry["resized"] else "sent as it is"
        out.print(
            f"[bold]{entry['name']}[/bold]: answer format {entry['answer_format']}; frame {entry['frame']} ({resize})"
        )
        if entry["request_body"]:  # what every request adds for the family's answer syntax (its box tokens)
            out.print(f"request body: {json.dumps(entry['request_body'], sort_keys=True)}", markup=False)
        out.print(entry["gui_prompt"], markup=False, highlight=False)
        out.print("")
    return 0
