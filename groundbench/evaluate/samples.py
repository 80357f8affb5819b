"""Rows of the published folder -> inspect samples: our prompt, the row's image bytes, the gate fields.

One sample per row valid under the condition (excluded rows are never asked), its id the row's
``example_id``, sorted by that id. The prompt is :func:`groundbench.loaders.prompts.build_prompt`,
the function ``groundbench requests`` uses. When the image is resized (``max_side``) the prompt is
built by the same function from the row's geometry in the sent frame (size, the supplied point and
box), so the words never contradict the pixels the model sees; the answer is mapped back before scoring.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any
from weakref import WeakKeyDictionary

import pyarrow as pa
from datasets import Dataset
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, Content, ContentImage, ContentText

from groundbench.errors import GroundBenchError
from groundbench.evaluate.images import Frame
from groundbench.evaluate.profile import profiled_input
from groundbench.evaluate.sent_images import RowImages, activate, source
from groundbench.loaders.prompts import build_prompt, template_hash
from groundbench.loaders.validity import VALIDITY_COLUMNS, Validity, take_rows, without_masks
from groundbench.schemas.request_conditions import check_condition, is_text_only, no_valid_rows
from groundbench.scoring.profiles import Profile
from groundbench.scoring.profiles.resample import scaled_row

Row = Mapping[str, Any]


class NoValidRows(GroundBenchError):
    """No row of the config may be asked under the condition (e.g. a GUI suite under ``part_named``); the
    reason names the conditions its rows are valid under (``valid``)."""

    def __init__(self, config: str, condition: str, valid: set[str]) -> None:
        error = no_valid_rows(config, condition, valid)
        super().__init__(error.path, error.field, error.reason)
        self.config, self.condition = config, condition


def load_rows(folder: Path, config: str) -> Dataset:
    """One config of the published folder (read through its Arrow table, :func:`rows_table`: the images stay
    bytes, ``{"bytes", "path"}``).

    Loaded once per command and (folder, config) inside :func:`loading_once` (``groundbench eval``:
    its tasks and its subset check), so the config's files are hashed against the card once."""
    from groundbench.loaders import load_config
    from groundbench.loaders.published import record_config_dir

    memo = _LOADED.get()
    key = (str(folder), config)
    if memo is not None and key in memo:
        return memo[key]
    record_config_dir(folder, config)  # an unknown config (or baselines): the error listing the configs of rows
    dataset = load_config(config, folder)
    if memo is not None:
        memo[key] = dataset
    return dataset


_LOADED: ContextVar[dict[tuple[str, str], Dataset] | None] = ContextVar("groundbench_loaded_rows", default=None)


@contextmanager
def loading_once() -> Iterator[None]:
    """Within this block a config is loaded (and its files hashed) once: one command's view of the folder
    (an inner block shares the outer one's)."""
    if _LOADED.get() is not None:
        yield
        return
    token = _LOADED.set({})
    try:
        yield
    finally:
        _LOADED.reset(token)


def in_sent_frame(row: Row, frame: Frame) -> dict[str, Any]:
    """A copy of the row whose size and part geometry are those of the resized image (for the prompt)."""
    return scaled_row(row, frame.sent_width, frame.sent_height)


def to_sample(
    row: Row,
    config: str,
    condition: str,
    gate: Mapping[str, str],
    images: RowImages,
    index: int,
    profile: Profile | None = None,
) -> Sample:
    """The sample a model is asked for one row (row ``index`` of the config, read without its image); its
    metadata is what the predictions line copies. The image is a reference (:mod:`.sent_images`)."""
    example_id = str(row["example_id"])
    metadata: dict[str, Any] = {"example_id": example_id, "config": config, "condition": condition, **gate}
    if profile is not None:  # the family's prompt, frame and answer format (groundbench/evaluate/profile.py)
        messages, extra = profiled_input(row, condition, profile, images, index, in_sent_frame)
        return Sample(id=example_id, input=messages, metadata={**metadata, **extra})
    content: list[Content] = []
    prompt_row: Row = row
    if not is_text_only(condition):
        width, height = int(row["width"]), int(row["height"])
        metadata["image"] = images.add(example_id, index, width, height)  # inspect's log keeps this, not the bytes
        content.append(ContentImage(image=metadata["image"]))
        frame = images.frame(width, height)
        if frame.resized:
            metadata["resize"] = frame.record()
            prompt_row = in_sent_frame(row, frame)
    content.append(ContentText(text=build_prompt(prompt_row, condition)))
    metadata["template_sha256"] = template_hash(condition)
    return Sample(id=example_id, input=[ChatMessageUser(content=content)], metadata=metadata)


def rows_table(dataset: Dataset) -> pa.Table:
    """The dataset's rows as its memory-mapped Arrow table, in order (made once per dataset: each
    ``with_format`` makes a new dataset and its fingerprint)."""
    table = _TABLES.get(dataset)
    if table is None:
        table = _TABLES[dataset] = dataset.with_format("arrow")[:]  # whatever its indices mapping
    return table


_TABLES: WeakKeyDictionary[Dataset, pa.Table] = WeakKeyDictionary()


def validity(dataset: Dataset) -> Validity:
    """Each row's kind, read column-wise from the memory-mapped table (no row becomes a Python object)."""
    table = rows_table(dataset)
    return Validity.of(table.select([c for c in VALIDITY_COLUMNS if c in table.column_names]))


def valid_rows(dataset: Dataset, condition: str) -> list[tuple[str, int]]:
    """(example id, index) of every row valid under the condition, by example id (read without the images)."""
    return validity(dataset).allowed(condition)


def valid_example_ids(folder: Path, config: str, condition: str) -> set[str]:
    """The example ids a complete run of (config, condition) answers (what the scorer expects)."""
    return {example_id for example_id, _ in valid_rows(load_rows(folder, config), condition)}


# Rows converted to Python objects at a time, for their prompts.
BATCH_ROWS = 256
# What a prompt reads of a row (loaders/prompts ``fields``, scoring/profiles ``Profile.prompt``, the resize's
# ``scaled_row``): only these columns are converted, the parts without their masks' runs (most of their bytes).
PROMPT_COLUMNS = ("example_id", "width", "height", "object_category", "parts", "target_part_id", "instruction",
                  "answer_type")  # fmt: skip


def prompt_rows(table: pa.Table, indices: list[int]) -> list[dict[str, Any]]:
    """The rows at ``indices`` of the config's table as Python objects, with what their prompts read."""
    return without_masks(take_rows(table, indices)).to_pylist()


def prompt_table(dataset: Dataset) -> pa.Table:
    """The columns prompts read, as the memory-mapped Arrow table (nothing is converted or copied)."""
    table = rows_table(dataset)
    return table.select([c for c in PROMPT_COLUMNS if c in table.column_names])


def chosen_rows(folder: Path, config: str, condition: str, limit: int | None) -> list[tuple[str, int]]:
    """(example id, index) of the rows a run of (config, condition) asks, by example id; the first ``limit``."""
    check_condition(condition, "command line")
    dataset = load_rows(folder, config)
    rows = validity(dataset)
    chosen = rows.allowed(condition)[:limit]
    if not chosen:
        raise NoValidRows(config, condition, rows.conditions())
    return chosen


def samples_of(
    folder: Path,
    config: str,
    condition: str,
    gate: Mapping[str, str],
    max_side: int | None,
    profile: Profile | None,
    chosen: Sequence[tuple[str, int]],
) -> list[Sample]:
    """The samples of the ``chosen`` rows (``chosen_rows``), in that order; only those rows are read."""
    dataset = load_rows(folder, config)
    size = profile.sent_size if profile is not None and profile.style.resized else None
    images = source(config, dataset, rows_table(dataset), max_side, size)
    activate()
    table = prompt_table(dataset)
    built: list[Sample] = []
    for start in range(0, len(chosen), BATCH_ROWS):
        window = chosen[start : start + BATCH_ROWS]
        batch = prompt_rows(table, [index for _, index in window])
        pairs = zip(batch, window, strict=True)
        built += [to_sample(row, config, condition, gate, images, index, profile) for row, (_, index) in pairs]
    return built


def samples(
    folder: Path,
    config: str,
    condition: str,
    gate: Mapping[str, str],
    max_side: int | None,
    limit: int | None,
    profile: Profile | None = None,
) -> list[Sample]:
    """The samples of one (config, condition), sorted by example id; the first ``limit`` when given (only those
    rows are read)."""
    with loading_once():  # one load (and seal check) for the rows' choice and their samples
        chosen = chosen_rows(folder, config, condition, limit)
        return samples_of(folder, config, condition, gate, max_side, profile, chosen)
