def normalize(text: str) -> str:
    return " ".join(text.split()).lower()
