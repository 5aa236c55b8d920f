"""A function class: one deployment, each method callable by name."""


class Ranker:
    def rank(self, query: str) -> list[str]:
        return sorted(query.split())

    def score(self, query: str, doc: str) -> float:
        return float(query in doc)
