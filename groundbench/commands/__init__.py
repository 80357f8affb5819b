"""Every ``groundbench`` command, in one table: the user commands, the maintainer tools, the pipeline stages.

Each is a module (``groundbench/commands/protocol.py`` says what it holds). To add a command: its module
(``groundbench/commands/<name>.py``; a stage's under ``groundbench/stages/``) and its line in its group below.

The table names modules, so reading it imports none: ``groundbench/entry.py`` runs a stage with its own module
alone (a stage's process, and so its ``dvc.yaml`` code deps, hold no other command); the whole command line
(``groundbench/commands/parser.py``) lists the groups in this order in ``groundbench --help``; ``groundbench
dvc-deps`` maps each ``dvc.yaml`` command to its stage's module. This module imports nothing of the project.
"""

from __future__ import annotations

from collections.abc import Sequence

# The command modules `list` and `eval` become attributes of this package when loaded, hiding those builtins
# from the code here: it uses neither.

USERS = {
    "list": "groundbench.commands.list",
    "requests": "groundbench.commands.requests",
    "eval": "groundbench.commands.eval",
    "profiles": "groundbench.commands.profiles",
    "eval-log": "groundbench.commands.eval_log",
    "score": "groundbench.commands.score",
    "import": "groundbench.commands.import_runs",
    "compare": "groundbench.commands.compare",
    "preview": "groundbench.commands.preview",
    "sheet": "groundbench.commands.sheet",
    "table": "groundbench.commands.table",
    "plot": "groundbench.commands.plot",
    "results": "groundbench.commands.results",
}
MAINTAINERS = {
    "fetch": "groundbench.commands.fetch",
    "sources": "groundbench.commands.sources",
    "verify": "groundbench.commands.verify",
    "summary": "groundbench.commands.summary",
    "pull": "groundbench.commands.pull",
    "check-card": "groundbench.commands.check_card",
    "publish": "groundbench.commands.publish",
    "version": "groundbench.commands.version",
    "dvc-deps": "groundbench.commands.dvc_deps",
    "render": "groundbench.commands.render",
}
STAGES = {
    "code": "groundbench.stages.code",
    "sample": "groundbench.stages.sample",
    "generate-gui": "groundbench.stages.generate_gui",
    "convert": "groundbench.stages.convert",
    "derive": "groundbench.stages.derive",
    "bake": "groundbench.stages.bake",
    "store": "groundbench.stages.store",
    "assemble": "groundbench.stages.assemble",
    "report": "groundbench.stages.report",
}
GROUPS = (
    ("user commands (load, ask, score and look at the data)", USERS),
    ("maintainer tools (fetch the sources, build, check and publish a release)", MAINTAINERS),
    ("pipeline stages (dvc.yaml runs each in its own process: bin/groundbench STAGE)", STAGES),
)
# Global options that take a value (the command is the first word that is neither one nor its value).
VALUED = ("--root",)


def command_name(argv: Sequence[str]) -> str | None:
    """The sub-command of ``argv`` (after the global options), or None (``--help``, ``--version``, nothing)."""
    skip = False
    for word in argv:
        if skip:
            skip = False
        elif word in VALUED:
            skip = True
        elif not word.startswith("-"):
            return word
    return None
