"""Prompts: render the chat messages that ask for a candidate. The default templates ship as package data
(templates/*.md); config key `loop.prompts` names a folder whose templates win, file by file."""

from __future__ import annotations

from pathlib import Path

PACKAGED = Path(__file__).resolve().parent / "templates"
NAMES = ("repair.md", "repair_repo.md", "feedback.md", "synthesize.md")
_folder: Path | None = None  # set once per command from the configuration (use_folder)


def use_folder(folder: Path | None) -> None:
    """Read templates from `folder` first (the project's own, e.g. the checkout's prompts/); None = packaged only."""
    global _folder
    _folder = folder


def template(name: str) -> Path:
    """The template file `name`: the configured folder's when it has one, else the packaged default."""
    if _folder is not None and (_folder / name).is_file():
        return _folder / name
    return PACKAGED / name
