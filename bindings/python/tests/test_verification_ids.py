"""Verification IDs: unguessable, URL-safe, unique, and durable across engines and processes."""

import re
from datetime import datetime, timezone

import pytest

import phoneauth
from support import (REAL_NUMBER, code_in, engine_config, parse_time, sign_in_with_code, start,
                     verify_in_child)

ID_FORMAT = re.compile(r"^[A-Za-z0-9_-]{22,}$")  # base64url, at least 128 bits


def test_result_shape(make_engine):
    engine = make_engine()
    before = datetime.now(timezone.utc)
    started = engine.verify_phone_number(REAL_NUMBER)
    assert set(started) >= {"verificationId", "codeLength", "expiresAt", "resendAt"}
    assert started["codeLength"] == 6
    ttl = (parse_time(started["expiresAt"]) - before).total_seconds()
    assert 298 <= ttl <= 302


def test_ids_are_long_url_safe_and_unique(make_engine):
    engine = make_engine()
    ids = [engine.verify_phone_number(f"+1650555{2000 + i}")["verificationId"] for i in range(200)]
    for verification_id in ids:
        assert ID_FORMAT.match(verification_id), verification_id
    assert len(set(ids)) == len(ids)


def test_same_number_gets_new_ids_outside_the_resend_window(make_engine):
    engine = make_engine(resendAfterSeconds=0, quotas={"smsPerNumberPerHour": 0})
    ids = {engine.verify_phone_number(REAL_NUMBER)["verificationId"] for _ in range(20)}
    assert len(ids) == 20


def test_verification_survives_an_engine_restart(make_engine, sms):
    first = make_engine(sender=sms)
    started, _message, code = start(first, sms, REAL_NUMBER)
    first.close()
    second = make_engine()
    result = sign_in_with_code(second, started["verificationId"], code)
    assert result["user"]["phoneNumber"] == REAL_NUMBER


def test_undelivered_message_is_delivered_by_the_next_engine(make_engine, sms):
    first = make_engine()  # no sender: the message waits in the outbox
    started = first.verify_phone_number(REAL_NUMBER)
    first.close()
    second = make_engine(sender=sms)
    message = sms.wait_for(verification_id=started["verificationId"])
    assert message["to"] == REAL_NUMBER
    sign_in_with_code(second, started["verificationId"], code_in(message["body"]))


def test_verification_started_in_another_process(make_engine, db_path):
    child = verify_in_child(engine_config(db_path), REAL_NUMBER)
    assert child["to"] == REAL_NUMBER
    assert ID_FORMAT.match(child["verificationId"])
    engine = make_engine()  # opened after the child closed its engine
    result = sign_in_with_code(engine, child["verificationId"], child["code"])
    assert result["user"]["phoneNumber"] == REAL_NUMBER
    assert result["additionalUserInfo"]["isNewUser"] is True


def test_two_engines_on_one_database_see_each_others_verifications(make_engine, sms):
    a = make_engine(sender=sms)
    b = make_engine()
    started, _message, code = start(a, sms, REAL_NUMBER)
    assert b.get_verification_status(verification_id=started["verificationId"])["state"] == "active"
    sign_in_with_code(b, started["verificationId"], code)
    assert a.get_verification_status(verification_id=started["verificationId"])["state"] == "used"


def test_id_from_another_database_is_unknown(make_engine, sms, tmp_path):
    a = make_engine(sender=sms)
    b = make_engine(database=str(tmp_path / "other.db"))
    started, _message, code = start(a, sms, REAL_NUMBER)
    with pytest.raises(phoneauth.InvalidVerificationIDError):
        sign_in_with_code(b, started["verificationId"], code)
