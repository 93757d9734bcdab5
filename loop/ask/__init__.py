"""Asking a model endpoint: the httpx client with tenacity retries, rate limits, limit headers, retry hints, cassettes."""
