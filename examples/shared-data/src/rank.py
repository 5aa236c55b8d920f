"""Ranks support answers; the nightly evaluation scores it."""


def run(row):
    return {"output": row["input"].strip().lower()}
