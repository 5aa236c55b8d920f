"""The support bot: answers a customer's question."""


def answer(input: str) -> str:
    text = input.strip().lower()
    if "refund" in text:
        return "Refunds are processed within 5 business days."
    if "password" in text:
        return "Use the 'Forgot password' link on the sign-in page."
    return "A support agent will get back to you shortly."
