"""The platform tour's functions: an answer, and a sandbox provisioner."""


def answer(input: str) -> str:
    return "Thank you for asking: " + input


def provision(name: str) -> str:
    return "sandbox " + name
