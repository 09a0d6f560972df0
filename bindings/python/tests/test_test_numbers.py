"""Fictional test numbers (testPhoneNumbers) and appVerification.disabledForTesting."""

import json
import time

import pytest

import phoneauth
from support import REAL_NUMBER, TEST_CODE, TEST_NUMBER, sent_before, sign_in_with_code, start

TEST_NUMBERS = {TEST_NUMBER: TEST_CODE}


def test_test_number_signs_in_with_its_code_and_gets_no_sms(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers=TEST_NUMBERS)
    started = engine.verify_phone_number(TEST_NUMBER)
    result = sign_in_with_code(engine, started["verificationId"], TEST_CODE)
    assert result["user"]["phoneNumber"] == TEST_NUMBER
    claims = engine.verify_id_token(id_token=result["idToken"])["claims"]
    assert claims["phone_number"] == TEST_NUMBER
    assert engine.get_verification_status(verification_id=started["verificationId"])["delivery"] == "none"
    assert sent_before(engine, sms, REAL_NUMBER) == []


def test_test_number_refuses_another_code(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers=TEST_NUMBERS)
    started = engine.verify_phone_number(TEST_NUMBER)
    with pytest.raises(phoneauth.InvalidVerificationCodeError):
        sign_in_with_code(engine, started["verificationId"], "654321")


def test_real_numbers_still_get_an_sms(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers=TEST_NUMBERS)
    _started, message, code = start(engine, sms, REAL_NUMBER)
    assert message["to"] == REAL_NUMBER


def test_ten_test_numbers_are_allowed(make_engine):
    numbers = {f"+1650555{1200 + i}": "123456" for i in range(10)}
    engine = make_engine(testPhoneNumbers=numbers)
    started = engine.verify_phone_number("+16505551209")
    sign_in_with_code(engine, started["verificationId"], "123456")


@pytest.mark.parametrize("entries", [
    {"+1 23": "123456"},                                   # not a valid number
    {"hello": "123456"},
    {TEST_NUMBER: "12345"},                                # codes are 6 digits
    {TEST_NUMBER: "1234567"},
    {TEST_NUMBER: "12a456"},
    {TEST_NUMBER: 123456},                                 # not a string
    {f"+1650555{1200 + i}": "123456" for i in range(11)},  # more than 10
], ids=["short-number", "not-a-number", "5-digit-code", "7-digit-code", "letter-in-code",
        "code-not-string", "eleven-entries"])
def test_bad_test_numbers_are_refused(make_engine, entries):
    with pytest.raises(phoneauth.InvalidConfigurationError) as info:
        make_engine(testPhoneNumbers=entries)
    exc = info.value
    assert "testPhoneNumbers" in exc.message + json.dumps(exc.details)


def test_app_verification_disabled_for_testing(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers=TEST_NUMBERS,
                         appVerification={"disabledForTesting": True})
    with pytest.raises(phoneauth.AppNotVerifiedError) as info:
        engine.verify_phone_number(REAL_NUMBER)
    assert "disabledForTesting" in json.dumps(info.value.details.get("setting"))
    assert "6505553434" not in info.value.message
    started = engine.verify_phone_number(TEST_NUMBER)
    sign_in_with_code(engine, started["verificationId"], TEST_CODE)
    time.sleep(0.5)
    assert sms.messages == []
