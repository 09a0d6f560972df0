"""SMS delivery through the outbox: status, retries, failures, queued messages, and the body
not kept in clear once delivered."""

import os
import time

from support import POSTGRES, REAL_NUMBER, code_in, stored_values, wait_until


def status_of(engine, started):
    return engine.get_verification_status(verification_id=started["verificationId"])


def wait_for_delivery(engine, started, state):
    def reached():
        status = status_of(engine, started)
        return status if status["delivery"] == state else None

    return wait_until(reached, what=f'delivery "{state}"')


def test_pending_then_sent(make_engine, sms):
    engine = make_engine()  # no sender yet
    started = engine.verify_phone_number(REAL_NUMBER)
    status = status_of(engine, started)
    assert status["delivery"] == "pending"
    assert status["state"] == "active"
    assert status["verificationId"] == started["verificationId"]
    assert status["expiresAt"] == started["expiresAt"]
    assert "6505553434" not in status["phoneNumber"]  # masked
    assert status["phoneNumber"].endswith("34")
    engine.set_sms_sender(sms)
    sms.wait_for(verification_id=started["verificationId"])
    assert wait_for_delivery(engine, started, "sent")["attempts"] == 1


def test_failed_attempts_are_retried(make_engine):
    calls = []

    def flaky(message):
        calls.append(message)
        return len(calls) > 2  # False twice, then True

    engine = make_engine(sender=flaky, sms={"retryBackoffMs": 50, "maxAttempts": 5})
    started = engine.verify_phone_number(REAL_NUMBER)
    status = wait_for_delivery(engine, started, "sent")
    assert status["attempts"] == 3
    time.sleep(0.5)
    assert len(calls) == 3
    assert all(m["verificationId"] == started["verificationId"] for m in calls)


def test_sender_that_raises_is_retried_and_the_body_is_not_printed(make_engine, capsys):
    calls = []

    def raising(message):
        calls.append(message)
        if len(calls) == 1:
            raise RuntimeError("carrier said no to " + message["body"])

    engine = make_engine(sender=raising)
    started = engine.verify_phone_number(REAL_NUMBER)
    assert wait_for_delivery(engine, started, "sent")["attempts"] == 2
    err = capsys.readouterr().err
    assert "RuntimeError" in err
    assert calls[0]["body"] not in err


def test_delivery_gives_up_after_max_attempts(make_engine):
    calls = []
    engine = make_engine(sender=lambda message: calls.append(message) or False,
                         sms={"retryBackoffMs": 50, "maxAttempts": 2})
    started = engine.verify_phone_number(REAL_NUMBER)
    status = wait_for_delivery(engine, started, "failed")
    assert status["attempts"] == 2
    time.sleep(0.7)
    assert len(calls) == 2
    assert status_of(engine, started)["delivery"] == "failed"


def test_queued_messages_are_delivered_when_a_sender_is_installed(make_engine, sms):
    engine = make_engine()
    started = [engine.verify_phone_number(f"+1650555{7000 + i}") for i in range(3)]
    time.sleep(0.3)
    assert all(status_of(engine, s)["delivery"] == "pending" for s in started)
    engine.set_sms_sender(sms)
    for s in started:
        sms.wait_for(verification_id=s["verificationId"])
        wait_for_delivery(engine, s, "sent")
    assert len(sms.messages) == 3


def test_removed_sender_is_not_called(make_engine, sms):
    engine = make_engine(sender=sms)
    engine.set_sms_sender(None)
    started = engine.verify_phone_number(REAL_NUMBER)
    time.sleep(1.0)
    assert sms.messages == []
    assert status_of(engine, started)["delivery"] == "pending"
    engine.set_sms_sender(sms)
    sms.wait_for(verification_id=started["verificationId"])


def test_body_is_not_kept_in_clear_after_delivery(make_engine, sms, db_path):
    # An 8-digit code: 8 given ASCII digits in a row do not turn up by chance in random bytes.
    engine = make_engine(sender=sms, codeLength=8)
    started = engine.verify_phone_number(REAL_NUMBER)
    message = sms.wait_for(verification_id=started["verificationId"])
    code = code_in(message["body"], 8)
    wait_for_delivery(engine, started, "sent")
    engine.close()
    values = list(stored_values(db_path))
    assert values, "nothing stored at all: the scan would prove nothing"
    leaks = sorted({table for table, value in values
                    if (code if isinstance(value, str) else code.encode()) in value})
    assert leaks == [], f"the delivered code is still stored in clear in {leaks}"
    # Nor anywhere in the files (free pages, the write-ahead log). On PostgreSQL the server's
    # files are not ours to read: the scan of every table's values above is the check there.
    if POSTGRES:
        return
    for suffix in ("", "-wal"):
        if os.path.exists(db_path + suffix):
            with open(db_path + suffix, "rb") as f:
                assert message["body"].encode() not in f.read(), f"the SMS body is in {db_path + suffix}"
