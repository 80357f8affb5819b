"""The extras of ``pyproject.toml`` and the modules each brings, so a command run without its extra ends in one
line naming the extra instead of a traceback (stdlib only: read when a command fails, before anything else).

A light install (no extra) loads, asks (``requests``) and scores; ``build`` builds the dataset (DVC, the
converters' geometry and rendering, the checks and the engines; it includes ``plots``); ``plots`` draws figures
and sheets (matplotlib, and the DejaVu fonts it ships); ``eval`` asks models through inspect-ai.
tests/project/test_dependencies.py checks this table against the extras' packages.
"""

from __future__ import annotations

EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "build": (
        "cv2",
        "dask",
        "distributed",
        "dvc",
        "embreex",
        "mlcroissant",
        "pandera",
        "polars",
        "ruamel",
        "scipy",
        "trimesh",
    ),
    "plots": ("matplotlib",),
    "eval": ("inspect_ai", "openai"),
}


def extra_of(module: str | None) -> str | None:
    """The extra that brings ``module`` (a dotted name: its top-level package counts), or None."""
    top = (module or "").split(".")[0]
    return next((extra for extra, modules in EXTRA_MODULES.items() if top in modules), None)


def missing_extra(exc: BaseException | None) -> str | None:
    """The extra whose absence raised ``exc``: a ModuleNotFoundError for one of its modules, itself or the cause
    of the error it became (``core/registry.py`` names what it could not import); else None."""
    for _ in range(5):  # the chain is short; a cycle in it must not hang the error line
        if exc is None:
            return None
        if isinstance(exc, ModuleNotFoundError) and extra_of(exc.name) is not None:
            return extra_of(exc.name)
        exc = exc.__cause__ or exc.__context__
    return None


def install_hint(extra: str) -> str:
    return f"pip install 'groundbench[{extra}]'"


def needs_extra(command: str, extra: str) -> str:
    """The one line a command prints when its extra is not installed."""
    return f"`groundbench {command}` needs the {extra} extra: {install_hint(extra)}"
