"""Bad configuration and bad calls: every one is an error object of the documented kind, never a
crash, and no message gives away a code or a full phone number."""

import json

import pytest

import phoneauth
from support import POSTGRES, REAL_NUMBER, TEST_NUMBER, sign_in_with_code, start


def names(exc, field):
    return field in exc.message or field in json.dumps(exc.details)


# -- configuration -----------------------------------------------------------------------------

def test_unknown_config_key_is_named(make_engine):
    with pytest.raises(phoneauth.InvalidConfigurationError) as info:
        make_engine(databse="x.db")
    assert "databse" in info.value.message
    assert info.value.details.get("key") == "databse"


def test_database_is_required():
    with pytest.raises(phoneauth.InvalidConfigurationError) as info:
        phoneauth.Engine({"projectId": "p"})
    assert names(info.value, "database")


@pytest.mark.skipif(POSTGRES, reason="a SQLite file's folder: on PostgreSQL the path only names the schema")
def test_database_in_a_missing_directory(make_engine, tmp_path):
    with pytest.raises(phoneauth.StorageError):
        make_engine(database=str(tmp_path / "no" / "such" / "dir" / "auth.db"))


@pytest.mark.parametrize("key, value", [
    ("signingAlgorithm", "HS256"),
    ("codeLength", 5),
    ("codeLength", 11),
    ("codeLength", "6"),
    ("codeTtlSeconds", 0),
    ("maxAttempts", 21),
    ("idTokenTtlSeconds", 59),
    ("idTokenTtlSeconds", 86401),
    ("resendAfterSeconds", -1),
    ("sqliteSynchronous", "sometimes"),
    ("projectId", 7),
    ("sms", {"provider": "carrier-pigeon"}),
    ("sms", {"colour": "red"}),
    ("appVerification", {"disabledForTesting": "yes"}),
])
def test_bad_config_values_name_their_key(make_engine, key, value):
    with pytest.raises(phoneauth.InvalidConfigurationError) as info:
        make_engine(**{key: value})
    assert names(info.value, key)


# -- calls -------------------------------------------------------------------------------------

def test_unknown_method(engine):
    with pytest.raises(phoneauth.UnknownMethodError) as info:
        engine.call("noSuchMethod", {})
    assert info.value.details.get("method") == "noSuchMethod"


def test_empty_method(engine):
    with pytest.raises(phoneauth.InvalidArgumentError):
        engine.call("", {})


def test_wrong_parameter_types_name_the_field(engine, sms):
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.verify_phone_number(phone_number=5)
    assert names(info.value, "phoneNumber")
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.verify_phone_number(REAL_NUMBER, language_code=["fr"])
    assert names(info.value, "languageCode")
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.verify_id_token(id_token="x.y.z", check_revoked="yes")
    assert names(info.value, "checkRevoked")
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.update_user(uid="someone", disabled="no")
    assert names(info.value, "disabled")


def test_unknown_parameter_is_named(engine):
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.verify_phone_number(REAL_NUMBER, colour="red")
    assert names(info.value, "colour")
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.get_jwks(extra=1)
    assert names(info.value, "extra")


def test_missing_required_parameter_is_named(engine):
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.get_user()
    assert names(info.value, "uid")
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.refresh_id_token()
    assert names(info.value, "refreshToken")


@pytest.mark.parametrize("size", [1024 * 1024 + 16, 10 * 1024 * 1024])
def test_huge_parameters_are_refused(engine, size):
    with pytest.raises(phoneauth.InvalidArgumentError):
        engine.call("verifyPhoneNumber", {"phoneNumber": REAL_NUMBER, "languageCode": "a" * size})


@pytest.mark.parametrize("text", [
    b"{not json",
    b'{"phoneNumber": "+16505553434"',
    b"[]",
    b'"just a string"',
    b'{"phoneNumber": "\xff\xfe"}',
])
def test_malformed_json_text(engine, text):
    with pytest.raises(phoneauth.InvalidArgumentError):
        engine.call_json("verifyPhoneNumber", text)


def test_json_syntax_error_gives_line_and_column(engine):
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.call_json("verifyPhoneNumber", b'{\n  "phoneNumber": +1}')
    assert "line" in (info.value.message + json.dumps(info.value.details)).lower()


def test_no_params_means_empty_object(engine):
    assert engine.call("getJwks")["keys"]
    with pytest.raises(phoneauth.MissingPhoneNumberError):
        engine.call("verifyPhoneNumber")


@pytest.mark.parametrize("number, reason", [
    ("+1 23", "tooShort"),
    ("+999 1234567", "invalidCountryCode"),
    ("hello", "notANumber"),
])
def test_invalid_phone_numbers(engine, number, reason):
    with pytest.raises(phoneauth.InvalidPhoneNumberError) as info:
        engine.verify_phone_number(number)
    assert info.value.details.get("reason") == reason


@pytest.mark.parametrize("number", ["+16505553434", "+1 650-555-3434", "+447400123456", "+44 7400 123456"])
def test_valid_phone_numbers(engine, number):
    assert engine.verify_phone_number(number)["verificationId"]


def test_missing_phone_number(engine):
    with pytest.raises(phoneauth.MissingPhoneNumberError):
        engine.verify_phone_number()
    with pytest.raises(phoneauth.MissingPhoneNumberError):
        engine.verify_phone_number("")


@pytest.mark.parametrize("credential", [
    "a string",
    ["a", "list"],
    {"providerId": "password", "verificationId": "abc", "verificationCode": "123456"},
])
def test_malformed_credential(engine, credential):
    with pytest.raises(phoneauth.InvalidCredentialError):
        engine.sign_in_with_credential(credential=credential)


def test_messages_never_hold_codes_or_phone_numbers(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers={TEST_NUMBER: "123456"}, maxAttempts=2)
    started, _message, code = start(engine, sms, REAL_NUMBER)
    wrong = "".join(str((int(d) + 1) % 10) for d in code)
    errors = []

    def collect(function, *args, **kwargs):
        with pytest.raises(phoneauth.PhoneAuthError) as info:
            function(*args, **kwargs)
        errors.append(info.value)

    collect(sign_in_with_code, engine, started["verificationId"], wrong)
    collect(sign_in_with_code, engine, started["verificationId"], wrong)
    collect(sign_in_with_code, engine, started["verificationId"], code)  # dead now
    test_started = engine.verify_phone_number(TEST_NUMBER)
    collect(sign_in_with_code, engine, test_started["verificationId"], "654321")
    collect(engine.get_user_by_phone_number, phone_number="+16505559876")
    collect(engine.verify_phone_number, "+1 650 555 343")
    collect(engine.verify_phone_number, REAL_NUMBER, colour="red")
    for exc in errors:
        for secret in (code, wrong, "123456", "654321"):
            assert secret not in exc.message, repr(exc)
        for number in (REAL_NUMBER, "6505553434", "6505559876", "650 555 343", TEST_NUMBER, "6505551234"):
            assert number not in exc.message, repr(exc)
        assert code not in json.dumps(exc.details)
