# SPDX-License-Identifier: MIT
# greet.py — ünïcödé helpers: normalise, greet, and count text.
import unicodedata


GREETINGS = {
    "english": "hello",
    "german": "Hallo, schöne Grüße",
    "french": "Bonjour, ça va?",
    "spanish": "¡Hola, señor!",
    "chinese": "你好，世界",
    "japanese": "こんにちは世界",
    "korean": "안녕하세요",
    "arabic": "مرحبا بالعالم",
    "hebrew": "שלום עולם",
    "russian": "Привет, мир",
    "greek": "Γειά σου Κόσμε",
    "hindi": "नमस्ते दुनिया",
    "thai": "สวัสดีชาวโลก",
    "emoji": "👋🌍 hello 😀",
    "vietnamese": "Xin chào thế giới",
}


def greet(name: str, language: str = "english") -> str:
    """Return a greeting such as 'hello Zoë' or '你好 小明'."""
    text = GREETINGS.get(language, GREETINGS["english"])
    return f"{text} {name}"


def normalise(text: str) -> str:
    """NFC: 'é' (e + combining acute) becomes 'é'; 'ñ' becomes 'ñ'."""
    return unicodedata.normalize("NFC", text)


def utf16_length(text: str) -> int:
    """Length as JavaScript sees it: '😀' counts 2, 'ü' counts 1, '漢字' counts 2."""
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


def test_value() -> None:
    assert greet("Zoë") == "hello Zoë"
    assert normalise("Amélie") == "Amélie"
    assert utf16_length("a😀b") == 4
    x_1 = "ünïcödé 漢字 😀"
    assert utf16_length(x_1) == 13


if __name__ == "__main__":
    for language in sorted(GREETINGS):
        print(greet("world", language))
