"""The seed ledger: harness/seeds/current.seed holds one 64-bit integer, rotated between batches.

Replay uses the stored seed of a grade, never the current one.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from loop.errors import ConfigError

DEFAULT_SEED = 1


def seed_path(root: Path) -> Path:
    return root / "harness" / "seeds" / "current.seed"


def current(root: Path) -> int:
    path = seed_path(root)
    if not path.is_file():
        return DEFAULT_SEED
    text = path.read_text().strip()
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"{path}: not an integer seed: {text[:40]!r}") from None
    if not 0 <= value < 2**63:
        raise ConfigError(f"{path}: seed {value} is not a non-negative 64-bit (signed) integer")
    return value


def rotate(root: Path) -> tuple[int | None, int]:
    """Write a fresh seed from `secrets`; returns (old, new)."""
    path = seed_path(root)
    old = current(root) if path.is_file() else None
    new = secrets.randbits(63)  # fits a signed SQLite INTEGER
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(f"{new}\n")
    tmp.replace(path)
    return old, new
