"""Background jobs: ingest documents from the queue."""

from shared.util import normalize


def ingest(document: str) -> str:
    return normalize(document)
