"""The package list, found rather than kept by hand: every folder with an ``__init__.py`` under each folder
``pyproject.toml``'s ``[tool.setuptools.package-dir]`` maps to a package name, so a new source folder
(``converters/<name>/``) is in the wheel without a line here or in ``pyproject.toml``; so is every folder
``[tool.setuptools.package-data]`` names (a folder of data files). Everything else about
the build is declared in ``pyproject.toml``."""

import tomllib
from pathlib import Path

from setuptools import find_packages, setup

HERE = Path(__file__).resolve().parent
SETUPTOOLS = tomllib.loads((HERE / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
FOLDERS = SETUPTOOLS["package-dir"]
DATA_FOLDERS = set(SETUPTOOLS["package-data"])  # folders of data files (templates, configs) are packages too

PACKAGES = sorted(
    set(FOLDERS)
    | DATA_FOLDERS
    | {f"{name}.{sub}" for name, folder in FOLDERS.items() for sub in find_packages(str(HERE / folder))}
)

setup(packages=PACKAGES)
