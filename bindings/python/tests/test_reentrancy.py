"""verifyPhoneNumber again for the same number: same verification inside the resend window,
a new one replacing the old after it."""

import time
from datetime import datetime, timezone

import pytest

import phoneauth
from support import REAL_NUMBER, code_in, parse_time, sent_before, sign_in_with_code, start


def test_same_verification_inside_the_window(make_engine, sms):
    engine = make_engine(sender=sms, resendAfterSeconds=60)
    before = datetime.now(timezone.utc)
    first = engine.verify_phone_number(REAL_NUMBER)
    second = engine.verify_phone_number(REAL_NUMBER)
    third = engine.verify_phone_number("+1 650-555-3434")  # the same number, written otherwise
    assert second["verificationId"] == first["verificationId"]
    assert third["verificationId"] == first["verificationId"]
    assert 58 <= (parse_time(first["resendAt"]) - before).total_seconds() <= 62
    message = sms.wait_for(to=REAL_NUMBER)
    assert sent_before(engine, sms, "+447400123456") == [message]  # one SMS, however slow the machine
    sign_in_with_code(engine, first["verificationId"], code_in(message["body"]))


def test_other_number_is_another_verification(make_engine, sms):
    engine = make_engine(sender=sms, resendAfterSeconds=60)
    a = engine.verify_phone_number(REAL_NUMBER)
    b = engine.verify_phone_number("+447400123456")
    assert a["verificationId"] != b["verificationId"]
    sms.wait_for(verification_id=a["verificationId"])
    sms.wait_for(verification_id=b["verificationId"])


def test_new_verification_after_the_window_replaces_the_old(make_engine, sms):
    engine = make_engine(sender=sms, resendAfterSeconds=1)
    old, _message, old_code = start(engine, sms, REAL_NUMBER)
    time.sleep(2.1)
    new, _message, new_code = start(engine, sms, REAL_NUMBER)
    assert new["verificationId"] != old["verificationId"]
    assert len(sms.matching(to=REAL_NUMBER)) == 2
    with pytest.raises(phoneauth.SessionExpiredError) as info:
        sign_in_with_code(engine, old["verificationId"], old_code)
    assert info.value.details.get("reason") == "replaced"
    assert engine.get_verification_status(verification_id=old["verificationId"])["state"] == "replaced"
    assert sign_in_with_code(engine, new["verificationId"], new_code)["user"]["phoneNumber"] == REAL_NUMBER


def test_zero_window_replaces_at_once(make_engine, sms):
    engine = make_engine(sender=sms, resendAfterSeconds=0)
    old, _message, old_code = start(engine, sms, REAL_NUMBER)
    new, _message, new_code = start(engine, sms, REAL_NUMBER)
    assert new["verificationId"] != old["verificationId"]
    with pytest.raises(phoneauth.SessionExpiredError) as info:
        sign_in_with_code(engine, old["verificationId"], old_code)
    assert info.value.details.get("reason") == "replaced"
    sign_in_with_code(engine, new["verificationId"], new_code)
