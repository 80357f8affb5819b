"""Rows of the published folder -> inspect samples: our prompt, the row's image bytes, the gate fields.

One sample per row valid under the condition (excluded rows are never asked), its id the row's
``example_id``, sorted by that id. The prompt is :func:`groundbench.loaders.prompts.build_prompt`,
the function ``groundbench requests`` uses. When the image is resized (``max_side``) the prompt is
built by the same function from the row's geometry in the sent frame (size, the supplied point and
box), so the words never contradict the pixels the model sees; the answer is mapped back before scoring.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from datasets import Dataset
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, Content, ContentImage, ContentText

from groundbench.errors import GroundBenchError
from groundbench.evaluate.images import Frame, prepared_image, verified_bytes
from groundbench.evaluate.profile import profiled_input
from groundbench.loaders.prompts import build_prompt, template_hash
from groundbench.schemas.request_conditions import (
    check_condition,
    conditions_of,
    is_text_only,
    no_valid_rows,
    row_allows,
)
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
    """One config of the published folder, image bytes undecoded (``{"bytes", "path"}``)."""
    from datasets import Image

    from groundbench.loaders import load_config
    from groundbench.loaders.published import config_dir

    config_dir(folder, config)  # an unknown config: the error listing the folder's configs
    return load_config(config, folder).cast_column("image", Image(decode=False))


def in_sent_frame(row: Row, frame: Frame) -> dict[str, Any]:
    """A copy of the row whose size and part geometry are those of the resized image (for the prompt)."""
    return scaled_row(row, frame.sent_width, frame.sent_height)


def to_sample(
    row: Row, config: str, condition: str, gate: Mapping[str, str], max_side: int | None, profile: Profile | None = None
) -> Sample:
    """The sample a model is asked for one row; its metadata is what the predictions line copies."""
    example_id = str(row["example_id"])
    where = f"{config}: {example_id}"
    metadata: dict[str, Any] = {"example_id": example_id, "config": config, "condition": condition, **gate}
    if profile is not None:  # the family's prompt, frame and answer format (groundbench/evaluate/profile.py)
        messages, extra = profiled_input(row, condition, profile, max_side, where, in_sent_frame)
        return Sample(id=example_id, input=messages, metadata={**metadata, **extra})
    content: list[Content] = []
    prompt_row: Row = row
    if not is_text_only(condition):
        image = row["image"] or {}
        uri, frame = prepared_image(verified_bytes(image.get("bytes"), row["image_sha256"], where), where, max_side)
        content.append(ContentImage(image=uri))
        if frame.resized:
            metadata["resize"] = frame.record()
            prompt_row = in_sent_frame(row, frame)
    content.append(ContentText(text=build_prompt(prompt_row, condition)))
    metadata["template_sha256"] = template_hash(condition)
    return Sample(id=example_id, input=[ChatMessageUser(content=content)], metadata=metadata)


def valid_rows(dataset: Dataset, condition: str) -> list[tuple[str, int]]:
    """(example id, index) of every row valid under the condition, by example id (read without the images)."""
    rows = enumerate(dataset.remove_columns("image"))
    return sorted((row["example_id"], index) for index, row in rows if row_allows(row, condition))


def valid_example_ids(folder: Path, config: str, condition: str) -> set[str]:
    """The example ids a complete run of (config, condition) answers (what the scorer expects)."""
    return {example_id for example_id, _ in valid_rows(load_rows(folder, config), condition)}


def samples(
    folder: Path,
    config: str,
    condition: str,
    gate: Mapping[str, str],
    max_side: int | None,
    limit: int | None,
    profile: Profile | None = None,
) -> list[Sample]:
    """The samples of one (config, condition), sorted by example id; the first ``limit`` when given."""
    check_condition(condition, "command line")
    dataset = load_rows(folder, config)
    chosen = valid_rows(dataset, condition)[:limit]
    if not chosen:
        raise NoValidRows(config, condition, {c for row in dataset.remove_columns("image") for c in conditions_of(row)})
    return [to_sample(dataset[index], config, condition, gate, max_side, profile) for _, index in chosen]
