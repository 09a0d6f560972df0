"""Nothing the caller sends is quoted back unless it is a known name or a short identifier: secrets
sent as keys, nested keys, method names, language codes or client addresses never appear in an
error's message or details."""

from __future__ import annotations

import json

import pytest

import phoneauth
from support import TEST_CODE, TEST_NUMBER

# What a refresh token looks like (too long, and dotted, to be a plain name), and a short secret
# that is not a name either (it starts with a digit).
SECRETS = ["MDFhMjA5Zjk4MDdjXzVFc1J0bFVtNlV2aFhBMQ.FzkCmLm4Vx8-LRmqKav2Ow.0.leWRGGODcR5EW9003P-QY7wb6ArpLjvwM_T65oAbykw",
           "4815162342hunter2", "p@ss w0rd!"]


def assert_not_echoed(error: phoneauth.PhoneAuthError, secret: str) -> None:
    everything = error.message + json.dumps(error.details) + str(error) + repr(error)
    assert secret not in everything, everything
    # Nor a telling piece of it.
    assert secret[:12] not in everything, everything


@pytest.mark.parametrize("secret", SECRETS)
def test_secrets_as_parameters_are_not_echoed(engine, secret):
    attempts = [
        lambda: engine.call("verifyPhoneNumber", {"phoneNumber": TEST_NUMBER, secret: 1}),       # a key
        lambda: engine.call("signInWithCredential", {"credential": {"verificationId": "x", secret: "y"}}),  # nested
        lambda: engine.call("getUser", {"uid": "u", "extra": {secret: 1}, secret: 2}),
        lambda: engine.call(secret, {}),                                                          # a method name
        lambda: engine.call("verifyPhoneNumber", {"phoneNumber": TEST_NUMBER, "clientIp": secret}),
        lambda: engine.call("verifyPhoneNumber", {"phoneNumber": secret}),
    ]
    for attempt in attempts:
        with pytest.raises(phoneauth.PhoneAuthError) as info:
            attempt()
        assert_not_echoed(info.value, secret)
    # An unknown key is located by its position instead.
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.call("verifyPhoneNumber", {"phoneNumber": TEST_NUMBER, secret: 1})
    assert info.value.details["position"] == 2


@pytest.mark.parametrize("secret", SECRETS)
def test_a_secret_language_code_is_neither_echoed_nor_fatal(make_engine, secret):
    engine = make_engine(testPhoneNumbers={TEST_NUMBER: TEST_CODE})
    started = engine.verify_phone_number(TEST_NUMBER, language_code=secret)
    assert started["verificationId"]
    # A wrong code afterwards reports nothing of it either.
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        engine.call("signInWithCredential", {"credential": {"verificationId": started["verificationId"],
                                                            "verificationCode": "000000"}, "clientIp": secret})
    assert_not_echoed(info.value, secret)
    assert engine.call("signInWithCredential", {"credential": {"verificationId": started["verificationId"],
                                                               "verificationCode": TEST_CODE}})["idToken"]


@pytest.mark.parametrize("secret", SECRETS)
def test_secrets_in_the_configuration_are_not_echoed(tmp_path, secret):
    base = {"database": str(tmp_path / "auth.db"), "masterKey": "07" * 32}
    for config in [dict(base, **{secret: 1}), dict(base, sms={secret: 1}),
                   dict(base, phoneNumberTypes={"deny": [secret]}),
                   dict(base, smsRegionPolicy={"allowlistOnly": {"allowedRegions": ["US", secret]}}),
                   dict(base, defaultLanguageCode=secret)]:
        with pytest.raises(phoneauth.InvalidConfigurationError) as info:
            phoneauth.Engine(config)
        assert_not_echoed(info.value, secret)


def test_plain_names_are_still_named(engine):
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.call("verifyPhoneNumber", {"phoneNumber": TEST_NUMBER, "languageCod": "fr"})
    assert "languageCod" in info.value.message and info.value.details["field"] == "languageCod"
    with pytest.raises(phoneauth.UnknownMethodError) as info:
        engine.call("verifyPhoneNumbers", {})
    assert info.value.details["method"] == "verifyPhoneNumbers"
