"""What a command runs with: the Config plus its flags turned into an Origin, EndpointSettings, a transport
and a SandboxConfig.

The runner (repair batches) and synthesis (test-suite batches) both ask an endpoint; this module sits below
both so neither imports the other for plumbing. It never prints and raises LoopErrors.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, fields, replace
from pathlib import Path
from urllib.parse import urlsplit

from loop.config import Config, EndpointSettings
from loop.errors import CassetteError, ResumeError
from loop.grading.model import Options
from loop.run import seeds
from loop.sandbox import SandboxConfig

# Recorded endpoint settings a resumed batch does not take back: the key is never recorded, and where the
# batch asks (base URL, model, cassettes, the adaptive limiter's state) is the Origin's decision.
_NOT_RESUMED = frozenset({"api_key", "key_hint", "api_key_env", "base_url", "model", "adaptive", "limit_state",
                          "max_pause", "min_requests_per_minute", "limit_state_ttl", "replay", "record"})


@dataclass(frozen=True)
class Origin:
    """Where a batch's candidates come from: a live endpoint, or a cassette to replay (or to record into)."""

    base_url: str | None = None
    model: str | None = None
    concurrency: int | None = None
    record: Path | None = None
    replay: Path | None = None

    @property
    def explicit(self) -> bool:
        """A flag named an endpoint or a cassette: no shipped default applies."""
        return bool(self.replay or self.record or self.base_url)


def grade_options(config: Config, *, suite: str | None = None, seed: int | None = None, trials: int | None = None,
                  k: int | None = None, trials_per_repeat: bool | None = None, rules: str = "loop") -> Options:
    """How a command grades: each value it was given, else the configuration's (the seed: the current one)."""
    return Options(suite=suite or config.loop.suite, seed=seeds.current(config.root) if seed is None else seed,
                   trials=config.loop.trials if trials is None else trials, k=k or config.loop.k,
                   trials_per_repeat=config.loop.trials_per_repeat if trials_per_repeat is None else trials_per_repeat,
                   rules=rules)


def sandbox_config(config: Config, no_sandbox: bool = False) -> SandboxConfig:
    s = config.sandbox
    return SandboxConfig(enabled=s.enabled and not no_sandbox, bwrap=s.bwrap, python=s.python, uid=s.uid)


def cluster_address(config: Config, flag: str | None = None) -> str | None:
    """Where a command grades: `--cluster`, else $LOOP_CLUSTER, else [cluster] scheduler; None = this machine."""
    address = flag if flag is not None else config.cluster.scheduler
    return address.strip() or None


def endpoint_settings(config: Config, origin: Origin, recorded: dict | None = None) -> EndpointSettings:
    """The settings a batch asks with: the flags, else what the batch recorded (on resume), else config.toml.
    The key always comes from the environment, never from a record."""
    e = config.endpoint
    settings = replace(
        e, base_url=origin.base_url or e.base_url, model=origin.model or e.model, api_key=config.api_key,
        max_concurrency=origin.concurrency or e.max_concurrency,
        # messages name the variable the key came from (or, without a key, the one to set)
        key_hint=f"${config.api_key_source or e.api_key_env}" if config.api_key_source or e.api_key_env else None,
        adaptive=e.adaptive and origin.replay is None,  # a cassette has no limit to learn
        limit_state=str(config.resolve(e.limit_state)) if e.limit_state not in ("", "memory") else e.limit_state,
    )
    if recorded:
        keep = {f.name for f in fields(EndpointSettings)} - _NOT_RESUMED
        if origin.concurrency:
            keep.discard("max_concurrency")
        # Batches recorded before the schema was one wrote "no limit" as null; it is 0 now.
        taken = {k: (0.0 if v is None and k.endswith("_per_minute") else v) for k, v in recorded.items() if k in keep}
        settings = replace(settings, **taken)
    return settings


def effective_settings(config: Config, settings: EndpointSettings, origin: Origin, loop: dict) -> dict:
    """What a batch records as its configuration: the settings it used (never the key) and `loop` as given."""
    endpoint = {f.name: getattr(settings, f.name) for f in fields(settings) if f.name != "api_key"}
    # What took effect, not what config.toml says: a live batch (--base-url) ignores the demo cassette there.
    endpoint["replay"] = str(origin.replay) if origin.replay else ""
    endpoint["record"] = str(origin.record) if origin.record else ""
    prices = {"prompt": config.endpoint.prompt_price, "completion": config.endpoint.completion_price}
    return {"config_file": str(config.path), "endpoint": endpoint, "prices": prices,
            "replay": str(origin.replay) if origin.replay else None,
            "record": str(origin.record) if origin.record else None, "loop": loop}


def resumed_origin(batch: dict, origin: Origin) -> tuple[Origin, dict]:
    """Where a resumed batch asks: the endpoint, model and request settings it recorded, unless a flag says
    otherwise. Another base URL is allowed (the same model served elsewhere); another model is refused."""
    try:
        recorded = json.loads(batch["config"] or "{}")
    except ValueError:
        recorded = {}
    endpoint = recorded.get("endpoint") if isinstance(recorded.get("endpoint"), dict) else {}
    if origin.model and batch["model"] and origin.model != batch["model"]:
        raise ResumeError(f"batch {batch['id']} was made with model {batch['model']!r}: resuming it with "
                          f"--model {origin.model!r} would credit {origin.model!r}'s replies to {batch['model']!r}; "
                          "start a new batch instead")
    if origin.explicit:
        return Origin(origin.base_url or batch["endpoint"], batch["model"], origin.concurrency, origin.record,
                      origin.replay), endpoint
    replay = Path(recorded["replay"]) if recorded.get("replay") else None
    return Origin(None if replay else batch["endpoint"], batch["model"], origin.concurrency, None, replay), endpoint


def default_origin(config: Config, origin: Origin) -> Origin:
    """The shipped config replays the demo cassette; any explicit endpoint or cassette flag wins."""
    if origin.explicit or config.endpoint.record:
        record = origin.record or (config.resolve(config.endpoint.record) if config.endpoint.record else None)
        return Origin(origin.base_url, origin.model, origin.concurrency, record, origin.replay)
    if config.endpoint.replay and not os.environ.get("LOOP_BASE_URL"):
        path = config.resolve(config.endpoint.replay)
        if not path.is_file():
            raise CassetteError(f"{config.path}: key 'endpoint.replay': cassette {path} not found")
        return Origin(None, origin.model, origin.concurrency, None, path)
    return origin


def limit_state(config: Config, base_url: str | None = None) -> tuple[Path | None, str]:
    """Where the adaptive limiter keeps what it learned about an endpoint (None: this process's memory only),
    and the key of `base_url` (else the configured one) with the configured API key in that file."""
    from loop.ask.ratelimit import default_path, limit_key

    s = endpoint_settings(config, Origin(base_url))
    return None if s.limit_state == "memory" else Path(s.limit_state or default_path()), limit_key(s.base_url, s.api_key)


def missing_key_warning(config: Config, settings: EndpointSettings, origin: Origin) -> str | None:
    """The warning for a remote endpoint asked without a key (None when there is nothing to warn about)."""
    if settings.api_key or origin.replay or _local(settings.base_url):
        return None
    hint = f"${config.endpoint.api_key_env} or $LOOP_API_KEY" if config.endpoint.api_key_env else "$LOOP_API_KEY"
    return f"no API key in {hint}; sending requests to {settings.base_url} without Authorization"


def _local(url: str) -> bool:
    return (urlsplit(url).hostname or "") in ("localhost", "127.0.0.1", "::1")


def make_transport(origin: Origin, settings: EndpointSettings):
    """The httpx transport of a cassette origin (None for a live endpoint); a missing or malformed cassette
    raises CassetteError here, before anything is written. Imports httpx only then: a live endpoint's
    batch imports it when it asks, a samples file's never. A recording reads the endpoint through the
    same bounded transport as a live batch, and never writes the key."""
    if origin.replay:
        from loop.ask.cassette import ReplayTransport

        return ReplayTransport(origin.replay)
    if origin.record:
        from loop.ask.cassette import RecordingTransport
        from loop.ask.transport import live_transport

        return RecordingTransport(live_transport(settings), origin.record, secret=settings.api_key)
    return None
