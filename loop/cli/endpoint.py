"""`loop endpoint limits` and `forget`: what the adaptive limiter learned about an endpoint and key (the shared
limits.db, loop.ask.ratelimit), shown or cleared."""

from __future__ import annotations

import json

import click

from loop.cli.common import handle_errors, load_config
from loop.run.settings import limit_state


@click.group("endpoint")
def endpoint_group():
    """See and clear what loop learned about an endpoint's rate limit (the shared limits.db)."""


def _limit_target(ctx, base_url, every):
    path, key = limit_state(load_config(ctx), base_url)
    return path, None if every else key


@endpoint_group.command("limits")
@click.option("--base-url", default=None, help="The endpoint (default: endpoint.base_url, $LOOP_BASE_URL).")
@click.option("--all", "every", is_flag=True, help="Every endpoint and key in the file, not only this one.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def endpoint_limits(ctx, base_url, every, as_json):
    """Show the rate, pause and expiry learned for the endpoint and API key (keyed by their hash)."""
    from datetime import datetime, timezone

    from loop.ask.ratelimit import learned

    path, key = _limit_target(ctx, base_url, every)
    rows = learned(path, key) if path is not None else []
    if as_json:
        click.echo(json.dumps({"state": str(path) if path else "memory", "limits": rows}))
        return
    if path is None:
        click.echo("endpoint.limit_state is \"memory\": nothing is kept between processes")
        return
    if not rows:
        click.echo(f"{path}: nothing learned" + ("" if every else " for this endpoint and key"))
        return

    def when(t):
        return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC") if t else "-"

    def per_minute(rate):
        return f"{60 * rate:.1f}/min" if rate else "-"

    click.echo(f"{path}:")
    for r in rows:
        tokens = f"{60 * r['token_rate']:.0f} tokens/min" if r["token_rate"] else "-"
        click.echo(f"  {r['key']}  rate {per_minute(r['rate'])}  ceiling {per_minute(r['ceiling'])}  tokens {tokens}"
                   f"  paused until {when(r['pause_until'])}  "
                   + (f"expired {when(r['expires'])}" if r["expired"] else f"expires {when(r['expires'])}"))


@endpoint_group.command("forget")
@click.option("--base-url", default=None, help="The endpoint (default: endpoint.base_url, $LOOP_BASE_URL).")
@click.option("--all", "every", is_flag=True, help="Every endpoint and key in the file.")
@click.pass_context
@handle_errors
def endpoint_forget(ctx, base_url, every):
    """Forget what was learned about the endpoint and API key: the next batch starts from nothing."""
    from loop.ask.ratelimit import forget

    path, key = _limit_target(ctx, base_url, every)
    n = forget(path, key) if path is not None else 0
    click.echo(f"forgot {n} learned limit{'s' * (n != 1)}" + (f" in {path}" if path else ""))
