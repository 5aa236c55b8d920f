"""HTTP API: ranks and summarizes documents for the dashboard."""

from shared.util import normalize


def rank(query: str) -> str:
    return normalize(query)


def summarize(text: str) -> str:
    return normalize(text)[:200]
