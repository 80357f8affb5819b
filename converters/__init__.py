"""One folder per source format. Pure: source files in, records out.

Each folder describes itself: ``spec.py`` (``groundbench.core.spec.Folder``: its sources, configs, samples,
params and card facts) and ``columns.py`` (``groundbench.schemas.folders.FolderColumns``: what its rows add
to the shared record). The listing below is the one place a folder is named: adding a source is its folder
plus one line here (docs/adding-a-source.md). The entries are package names, loaded by name (the registry
loads a folder's spec only when a command asks for it), so the core never imports a converter.
"""

FOLDERS = (
    "groundbench.converters.umd",
    "groundbench.converters.gui",
    "groundbench.converters.gapartnet",
)
