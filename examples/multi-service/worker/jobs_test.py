from worker.jobs import ingest


def test_ingest():
    assert ingest("  A  b ") == "a b"
