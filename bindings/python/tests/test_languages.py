"""SMS templates chosen by languageCode, with fallback fr-CA -> fr -> defaultLanguageCode."""

import pytest

import phoneauth

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


def test_host_templates_name_the_app_and_serve_their_language_as_default(make_engine, sms, tmp_path):
    engine = make_engine(database=str(tmp_path / "host.db"), sender=sms, defaultLanguageCode="sw",
                         sms={"appName": "Acme", "originBoundDomain": "login.example.com", "maxSegments": 2,
                              "templates": {"sw": "{code} ni nambari yako ya {appName}",
                                            "fr": "Code {appName} : {code}, valable {minutes} min"}})
    _started, message, code = start(engine, sms, "+16505553110", language_code="fr-CA")
    assert message["body"] == f"Code Acme : {code}, valable 5 min\n\n@login.example.com #{code}"
    assert (message["languageCode"], message["encoding"], message["segments"]) == ("fr", "GSM-7", 1)
    _started, message, code = start(engine, sms, "+16505553111", language_code="xx")
    assert (message["languageCode"], message["body"]) == ("sw", f"{code} ni nambari yako ya Acme\n\n@login.example.com #{code}")
    # A built-in language names the app; Japanese goes as UCS-2.
    _started, message, code = start(engine, sms, "+16505553112", language_code="ja")
    assert message["body"].startswith(f"Acme の認証コードは {code} です。")
    assert (message["encoding"], message["segments"]) == ("UCS-2", 1)


@pytest.mark.parametrize("sms_section, key", [
    ({"templates": {"fr": "Votre code"}}, "sms.templates.fr"),
    ({"templates": {"en": "{code} {name}"}}, "sms.templates.en"),
    ({"appName": "Acme", "originBoundDomain": "login.example.com"}, "sms.templates.es"),  # 74 UCS-2 units
    ({"originBoundDomain": "example.com/login"}, "sms.originBoundDomain"),
])
def test_a_bad_text_refuses_to_open_naming_it(make_engine, tmp_path, sms_section, key):
    with pytest.raises(phoneauth.InvalidConfigurationError) as raised:
        make_engine(database=str(tmp_path / "bad.db"), sms=sms_section)
    assert raised.value.details.get("key") == key and key in raised.value.message
    assert not (tmp_path / "bad.db").exists()  # checked before the store is created
