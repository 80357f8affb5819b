"""One folder per source format. Pure: source files in, records out.

Each folder describes itself in ``spec.py`` (``groundbench.core.spec.Folder``). The listing below is the one
place a folder is named: adding a source is its folder plus one line here (docs/adding-a-source.md). The
entries are "module:attribute" strings, loaded by the registry, so the core never imports a converter.
"""

FOLDERS = (
    "groundbench.converters.umd.spec:SPEC",
    "groundbench.converters.gui.spec:SPEC",
    "groundbench.converters.gapartnet.spec:SPEC",
)
