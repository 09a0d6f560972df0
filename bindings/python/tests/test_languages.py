"""SMS templates chosen by languageCode, with fallback fr-CA -> fr -> defaultLanguageCode."""

import pytest

from support import start

LANGUAGES = ["en", "fr", "de", "es", "pt", "ru", "zh-TW", "zh-CN", "id", "ja"]


def template(engine, sms, number, **kwargs):
    """(languageCode reported by the message, the body with its code replaced by <CODE>)."""
    _started, message, code = start(engine, sms, number, **kwargs)
    assert message["body"].count(code) == 1, message["body"]
    return message["languageCode"], message["body"].replace(code, "<CODE>")


@pytest.fixture
def templates(engine, sms):
    found = {}
    for i, language in enumerate(LANGUAGES):
        reported, body = template(engine, sms, f"+1650555{3000 + i}", language_code=language)
        assert reported == language
        found[language] = body
    return found


def test_each_language_has_its_own_body(templates):
    assert len(set(templates.values())) == len(LANGUAGES), templates


def test_regional_variant_falls_back_to_the_language(engine, sms, templates):
    assert template(engine, sms, "+16505553100", language_code="fr-CA") == ("fr", templates["fr"])


def test_unknown_language_gives_the_default(engine, sms, templates):
    assert template(engine, sms, "+16505553101", language_code="xx") == ("en", templates["en"])
    assert template(engine, sms, "+16505553102") == ("en", templates["en"])


def test_default_language_is_configurable(make_engine, sms, templates, tmp_path):
    engine = make_engine(database=str(tmp_path / "fr.db"), sender=sms, defaultLanguageCode="fr")
    assert template(engine, sms, "+16505553103") == ("fr", templates["fr"])
    assert template(engine, sms, "+16505553104", language_code="xx") == ("fr", templates["fr"])
    assert template(engine, sms, "+16505553105", language_code="de") == ("de", templates["de"])
