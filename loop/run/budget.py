"""A batch's spending cap (`loop run --budget`): which requests may still be sent.

Plain bookkeeping with no HTTP or SQLite in it: the runner reports what each request cost (its tokens at
the batch's prices) and asks before each new request; nothing already sent is ever cancelled.
"""

from __future__ import annotations

import asyncio
import math

from loop.errors import ConfigError


def check_limit(limit: float) -> None:
    """A budget is an amount: NaN and infinity (click's FloatRange lets both through) are refused."""
    if not math.isfinite(limit):
        raise ConfigError(f"--budget {limit:g} is not an amount: give a finite number, 0 or more")


class Budget:
    """Admits a request only while what is spent, plus what the requests in flight are expected to cost,
    plus this one's expected cost stays within `limit`.

    A sample's expected cost is the mean of those answered so far (in this batch, earlier runs included).
    Until one is known, one request at a time is sent to learn it. A request that would exceed the limit
    waits while others are in flight (they may cost less than expected) and is refused once none is:
    from then on every request is refused, so a batch stops asking instead of skipping around."""

    def __init__(self, limit: float, prompt_price: float, completion_price: float, *, spent: float = 0.0,
                 answered: int = 0):
        check_limit(limit)
        if not prompt_price and not completion_price:
            raise ConfigError(f"--budget {limit:g} needs a price: endpoint.prompt_price and "
                              "endpoint.completion_price are both 0, so no request would ever cost anything")
        self.limit, self.prices = limit, (prompt_price, completion_price)
        self.spent, self.answered = spent, answered
        self.in_flight = 0  # samples asked for and not yet settled
        self.stopped = False
        self._changed = asyncio.Condition()

    def cost(self, prompt_tokens: int | None, completion_tokens: int | None) -> float:
        """Per-million prices, as the `usage` view computes them; a count below 0 counts as 0 (never a refund)."""
        return (max(0, prompt_tokens or 0) * self.prices[0] + max(0, completion_tokens or 0) * self.prices[1]) / 1e6

    def charge(self, prompt_tokens: int | None, completion_tokens: int | None) -> None:
        """One HTTP attempt's billed tokens (retries cost too when the server bills them): what the endpoint
        reported, or, where it reported no valid usage for an answer, the Endpoint's conservative estimate
        (RequestRecord.billed_*), so what it claims can never push the batch past its limit."""
        self.spent += self.cost(prompt_tokens, completion_tokens)

    @property
    def per_sample(self) -> float | None:
        return self.spent / self.answered if self.answered else None

    def _decide(self, samples: int) -> bool | None:
        """True: send; False: refuse; None: wait for a request in flight to settle."""
        if self.stopped:
            return False
        estimate = self.per_sample
        if estimate is None:  # nothing answered yet: one request at a time learns the cost of a sample
            fits = self.in_flight == 0 and self.spent < self.limit
        else:
            fits = self.spent + estimate * (self.in_flight + samples) <= self.limit
        if fits:
            return True
        return None if self.in_flight else False

    async def admit(self, samples: int) -> bool:
        """Whether a request for `samples` samples may be sent now (it is then counted as in flight)."""
        async with self._changed:
            while (decision := self._decide(samples)) is None:
                await self._changed.wait()
            if decision:
                self.in_flight += samples
            else:
                self.stopped = True
                self._changed.notify_all()
            return decision

    async def settle(self, samples: int, answered: int) -> None:
        """A request admitted for `samples` samples is over; `answered` of them came back with a reply."""
        async with self._changed:
            self.in_flight -= samples
            self.answered += answered
            self._changed.notify_all()
