"""config.toml (tomllib) plus LOOP_* environment overrides, checked into one frozen `Config`.

Every unknown key or wrong type is a `ConfigError` naming the file and the key.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from loop.errors import ConfigError


@dataclass(frozen=True)
class LoopSection:
    db: str = "runs.db"
    tasks: list = field(default_factory=list)
    suite: str = "full"
    k: int = 5
    trials: int = 200
    trials_per_repeat: bool = False  # every repeat runs every trial (the old design; k times the cost)
    samples: int = 3
    seed_policy: str = "fixed"  # fixed | rotate
    concurrency: int = 0  # grading workers; 0 = one per core
    min_coverage: float = 0.8  # a graded batch deciding fewer of its candidates exits 3
    rounds: int = 1  # feedback rounds: a stable_fail candidate is sent its public evidence, up to this many rounds
    prompts: str = ""  # a folder of prompt templates that win over the packaged ones, file by file; "" = packaged only


@dataclass(frozen=True)
class SandboxSection:
    enabled: bool = True
    bwrap: str = "bwrap"
    python: str = "auto"
    uid: int = 1_000_000


@dataclass(frozen=True)
class ClusterSection:
    scheduler: str = ""  # a Dask scheduler (tcp://HOST:8786) to grade on; "" = this machine (LOOP_CLUSTER)
    connect_timeout: float = 10.0  # seconds to reach it before the command gives up (exit 2)


@dataclass(frozen=True)
class EndpointSettings:
    """[endpoint] of config.toml, and what loop.ask.endpoint.Endpoint runs with: the one endpoint schema.

    Fields marked `runtime` never come from config.toml and are never recorded: the key (read from the
    environment) and where it comes from, for messages.
    """

    base_url: str = "https://api.openai.com/v1"
    model: str = "gpt-4o-mini"
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.8
    max_tokens: int = 2048
    samples_per_request: int = 1  # the OpenAI `n`: completions asked for in one request
    connect_timeout: float = 10.0
    read_timeout: float = 120.0
    max_attempts: int = 6
    max_wait: float = 300.0
    max_concurrency: int = 4
    requests_per_minute: float = 0.0  # 0 = none configured (the adaptive limiter learns it)
    tokens_per_minute: float = 0.0  # 0 = none
    replay: str = ""
    record: str = ""
    adaptive: bool = True  # learn the rate (loop.ask.ratelimit) when requests_per_minute is not given
    limit_state: str = ""  # the shared state's SQLite file ("" = the user's cache; "memory" = this process)
    # What an endpoint may ask of loop is capped (docs/endpoint.md, "Caps"):
    max_pause: float = 60.0  # longest wait one wait hint (Retry-After, a reset header) puts on every sender
    min_requests_per_minute: float = 3.0  # the slowest the adaptive limiter paces, whatever it learned
    limit_state_ttl: float = 3600.0  # seconds what the limiter learned is kept after its last update
    attempt_timeout: float = 180.0  # total seconds one HTTP attempt may take (connect, send, wait, read)
    max_response_bytes: int = 8 * 1024 * 1024  # a response body, decompressed; more is bad_response
    max_reply_bytes: int = 1024 * 1024  # one reply as stored; a longer one is cut here and marked truncated
    prompt_price: float = 0.0  # per million prompt tokens, in the currency of your invoice
    completion_price: float = 0.0  # per million completion tokens
    api_key: str | None = field(default=None, repr=False, metadata={"runtime": True})
    key_hint: str | None = field(default=None, metadata={"runtime": True})  # the key's variable: "$LOOP_API_KEY"


def config_fields(cls) -> list:
    """The fields of a section that config.toml may set and a batch records (never the runtime ones)."""
    return [f for f in fields(cls) if not f.metadata.get("runtime")]


SECTIONS = {"loop": LoopSection, "sandbox": SandboxSection, "endpoint": EndpointSettings, "cluster": ClusterSection}


@dataclass(frozen=True)
class Config:
    root: Path
    path: Path | None
    loop: LoopSection = field(default_factory=LoopSection)
    sandbox: SandboxSection = field(default_factory=SandboxSection)
    endpoint: EndpointSettings = field(default_factory=EndpointSettings)
    cluster: ClusterSection = field(default_factory=ClusterSection)
    api_key: str | None = field(default=None, repr=False)
    api_key_source: str | None = None  # the variable the key came from (LOOP_API_KEY or endpoint.api_key_env)

    @property
    def db_path(self) -> Path:
        p = Path(self.loop.db)
        return p if p.is_absolute() else self.root / p

    def resolve(self, rel: str) -> Path:
        p = Path(rel)
        return p if p.is_absolute() else self.root / p

    def snapshot(self) -> dict:
        """What a batch records about its configuration (never the key)."""
        return {name: {f.name: getattr(getattr(self, name), f.name) for f in config_fields(cls)}
                for name, cls in SECTIONS.items()}


def _check(path: Path, section: str, cls, raw) -> object:
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: [{section}] must be a table")
    known = {f.name: f for f in config_fields(cls)}
    values = {}
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(f"{path}: unknown key '{key}' in [{section}]")
        default = getattr(cls(), key)
        ok = isinstance(value, type(default)) and not (isinstance(value, bool) and not isinstance(default, bool))
        if isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
            value, ok = float(value), True
        if not ok:
            raise ConfigError(f"{path}: key '{section}.{key}' must be {type(default).__name__}, got {value!r}")
        values[key] = value
    return cls(**values)


def load(path: Path | None = None, root: Path | None = None, env: dict | None = None) -> Config:
    env = os.environ if env is None else env
    if path is None:
        candidate = Path(env.get("LOOP_CONFIG", "config.toml"))
        path = candidate if candidate.is_file() else None
    root = root or (path.resolve().parent if path else Path.cwd())
    sections = {}
    if path is not None:
        try:
            raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(f"{path}: config file not found") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from None
        for name, value in raw.items():
            if name not in SECTIONS:
                raise ConfigError(f"{path}: unknown section or key '{name}'")
            sections[name] = _check(path, name, SECTIONS[name], value)
    config = Config(root=root, path=path, **sections)
    loop, endpoint = config.loop, config.endpoint
    if loop.seed_policy not in ("fixed", "rotate"):
        raise ConfigError(f"{path}: key 'loop.seed_policy' must be 'fixed' or 'rotate', got {loop.seed_policy!r}")
    if loop.suite not in ("smoke", "full"):
        raise ConfigError(f"{path}: key 'loop.suite' must be 'smoke' or 'full', got {loop.suite!r}")
    if not 0 <= loop.min_coverage <= 1:
        raise ConfigError(f"{path}: key 'loop.min_coverage' must be between 0 and 1, not {loop.min_coverage}")
    if loop.concurrency < 0:
        raise ConfigError(f"{path}: key 'loop.concurrency' must be 0 (one per core) or more")
    for key in ("k", "samples", "rounds"):
        if getattr(loop, key) < 1:
            raise ConfigError(f"{path}: key 'loop.{key}' must be at least 1")
    if endpoint.samples_per_request < 1:
        raise ConfigError(f"{path}: key 'endpoint.samples_per_request' must be at least 1 (the OpenAI n)")
    for key in ("max_pause", "min_requests_per_minute", "limit_state_ttl", "attempt_timeout", "max_response_bytes",
                "max_reply_bytes"):
        value = getattr(endpoint, key)
        if not (value > 0 and math.isfinite(value)):  # a cap of infinity would be no cap
            raise ConfigError(f"{path}: key 'endpoint.{key}' must be a finite number more than 0, got {value!r}")
    if config.cluster.connect_timeout <= 0:
        raise ConfigError(f"{path}: key 'cluster.connect_timeout' must be more than 0 seconds")
    cluster = replace(config.cluster, scheduler=env["LOOP_CLUSTER"]) if env.get("LOOP_CLUSTER") else config.cluster
    if env.get("LOOP_DB"):
        loop = replace(loop, db=env["LOOP_DB"])
    if env.get("LOOP_BASE_URL"):
        endpoint = replace(endpoint, base_url=env["LOOP_BASE_URL"])
    if env.get("LOOP_MODEL"):
        endpoint = replace(endpoint, model=env["LOOP_MODEL"])
    source = next((name for name in ("LOOP_API_KEY", endpoint.api_key_env) if name and env.get(name)), None)
    return replace(config, loop=loop, endpoint=endpoint, cluster=cluster, api_key=env[source] if source else None,
                   api_key_source=source)
