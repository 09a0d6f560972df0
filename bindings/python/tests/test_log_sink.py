"""Engine.set_log_sink: the security events (codeSent, deliveryFailed, signInSucceeded,
signInFailed, limitTripped, lockout), what they must never hold, and the callback bridge."""

import json
import threading
import time
from datetime import datetime, timedelta, timezone

import pytest

import phoneauth
from support import (FIXED_NUMBERS, REAL_NUMBER, credential_for, custom_sign_in, engine_config, enrol_fixed,
                     fixed_credential, parse_time, resolve_fixed, resolver_of, run_python, sign_in,
                     sign_in_with_code, start, wait_until)
from test_codes import wrong

MASKED = "+*******3434"
IP = "203.0.113.5"


class Events:
    """A log sink that records every event (from any thread) and lets tests wait for one."""

    def __init__(self):
        self.events = []
        self.threads = []
        self._lock = threading.Lock()

    def __call__(self, event):
        with self._lock:
            self.events.append(event)
            self.threads.append(threading.get_ident())

    def named(self, name):
        with self._lock:
            return [e for e in self.events if e["event"] == name]

    def wait_for(self, name, count=1):
        return wait_until(lambda: self.named(name)[count - 1:], what=f"{count} {name} event(s)")[0]


@pytest.fixture
def events():
    return Events()


def without_time(event):
    assert abs(parse_time(event["time"]) - datetime.now(timezone.utc)) < timedelta(seconds=30)
    return {k: v for k, v in event.items() if k != "time"}


def test_code_sent(engine, sms, events):
    engine.set_log_sink(events)
    start(engine, sms, REAL_NUMBER, language_code="fr")
    event = events.wait_for("codeSent")
    assert without_time(event) == {"event": "codeSent", "phoneNumber": MASKED, "channel": "sms", "languageCode": "fr", "attempt": 1,
                                   "provider": "callback", "encoding": "GSM-7", "segments": 1}


def test_delivery_failed_then_code_sent(make_engine, events):
    calls = []
    engine = make_engine(sender=lambda message: calls.append(message) or len(calls) > 1)  # fails once
    engine.set_log_sink(events)
    engine.verify_phone_number(REAL_NUMBER)
    sent = events.wait_for("codeSent")
    [failed] = events.named("deliveryFailed")
    assert without_time(failed) == {"event": "deliveryFailed", "phoneNumber": MASKED, "channel": "sms", "languageCode": "en",
                                    "attempt": 1, "willRetry": True, "provider": "callback", "reason": "rejected",
                                    "encoding": "GSM-7", "segments": 1}
    assert sent["attempt"] == 2
    assert events.events.index(failed) < events.events.index(sent)


def test_last_delivery_failure_will_not_retry(make_engine, events):
    engine = make_engine(sender=lambda message: False, sms={"retryBackoffMs": 50, "maxAttempts": 2})
    engine.set_log_sink(events)
    engine.verify_phone_number(REAL_NUMBER)
    last = events.wait_for("deliveryFailed", count=2)
    assert (last["attempt"], last["willRetry"]) == (2, False)
    assert events.named("deliveryFailed")[0]["willRetry"] is True
    assert events.named("codeSent") == []


def test_sign_in_succeeded_and_failed(make_engine, sms, events):
    engine = make_engine(sender=sms, signInRetrySeconds=0)  # the used code again fails at once
    engine.set_log_sink(events)
    started, _message, code = start(engine, sms, REAL_NUMBER)
    with pytest.raises(phoneauth.InvalidVerificationCodeError):
        engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], wrong(code)),
                                       client_ip=IP)
    result = engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], code),
                                            client_ip=IP)
    [failed] = events.named("signInFailed")
    assert without_time(failed) == {"event": "signInFailed", "code": "invalidVerificationCode", "clientIp": IP}
    [succeeded] = events.named("signInSucceeded")
    assert without_time(succeeded) == {"event": "signInSucceeded", "uid": result["user"]["uid"],
                                       "phoneNumber": MASKED, "provider": "phone", "isNewUser": True,
                                       "clientIp": IP}
    with pytest.raises(phoneauth.SessionExpiredError):  # the code again: failed, with its reason
        sign_in_with_code(engine, started["verificationId"], code)
    again = events.named("signInFailed")[-1]
    assert (again["code"], again["reason"]) == ("sessionExpired", "alreadyUsed")
    assert "clientIp" not in again
    sign_in(engine, sms)
    assert events.named("signInSucceeded")[-1]["isNewUser"] is False


def test_a_retried_sign_in_is_told_as_retried(engine, sms, events):
    engine.set_log_sink(events)
    started, _message, code = start(engine, sms, REAL_NUMBER)
    first = sign_in_with_code(engine, started["verificationId"], code)
    again = sign_in_with_code(engine, started["verificationId"], code)
    assert again["refreshToken"] == first["refreshToken"]
    told, retried = events.named("signInSucceeded")
    assert "retried" not in told
    assert without_time(retried) == {"event": "signInSucceeded", "uid": first["user"]["uid"],
                                     "phoneNumber": MASKED, "provider": "phone", "isNewUser": True,
                                     "retried": True}


def test_every_new_session_is_a_sign_in(make_engine, events):
    engine = make_engine(testPhoneNumbers=FIXED_NUMBERS)
    engine.set_log_sink(events)
    a, b = "+16505551230", "+16505551231"
    host = custom_sign_in(engine, "host-1")
    linked = engine.link_with_credential(host["idToken"], fixed_credential(engine, a))
    engine.refresh_id_token(refresh_token=linked["refreshToken"])  # not a new session
    enrolled = enrol_fixed(engine, linked["idToken"], b)
    resolver = resolver_of(engine, lambda: engine.sign_in_with_credential(credential=fixed_credential(engine, a)))
    resolve_fixed(engine, resolver, resolver.hints[0])
    seen = [(e["uid"], e["provider"], e.get("phoneNumber"), e.get("secondFactor"), e["isNewUser"])
            for e in events.named("signInSucceeded")]
    assert seen == [
        ("host-1", "custom", None, None, True),
        ("host-1", "phone", "+*******1230", None, False),  # a link makes it a phone session
        ("host-1", "phone", "+*******1230", "phone", False),  # the enrolment's new session
        ("host-1", "phone", "+*******1230", "phone", False),  # the resolved sign-in
    ]
    assert enrolled["user"]["uid"] == "host-1"


def test_limit_tripped(make_engine, sms, events):
    engine = make_engine(sender=sms, quotas={"smsPerNumberPerHour": 1})
    engine.set_log_sink(events)
    start(engine, sms, REAL_NUMBER)
    with pytest.raises(phoneauth.TooManyRequestsError) as info:
        engine.verify_phone_number(REAL_NUMBER)
    [tripped] = events.named("limitTripped")
    assert without_time(tripped) == {"event": "limitTripped", "limit": "smsPerNumberPerHour", "scope": MASKED,
                                     "retryAfterSeconds": info.value.details["retryAfterSeconds"]}


def test_lockout(make_engine, sms, events):
    engine = make_engine(sender=sms, quotas={"maxConsecutiveFailures": 2})
    engine.set_log_sink(events)
    started, _message, code = start(engine, sms, REAL_NUMBER)
    for _ in range(2):
        with pytest.raises(phoneauth.PhoneAuthError):
            engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], wrong(code)),
                                           client_ip=IP)
    [lockout] = events.named("lockout")
    assert (lockout["phoneNumber"], lockout["clientIp"]) == (MASKED, IP)
    until = parse_time(lockout["until"]) - parse_time(lockout["time"])
    assert timedelta(seconds=3599) <= until <= timedelta(seconds=3601)  # lockoutSeconds 3600
    assert events.named("signInFailed")[-1]["reason"] == "numberLocked"


def test_no_event_holds_a_secret_or_a_full_number(make_engine, sms, events):
    # 8-digit codes: 8 given digits in a row do not turn up by chance.
    engine = make_engine(sender=sms, codeLength=8, quotas={"maxConsecutiveFailures": 3, "smsPerNumberPerHour": 3})
    engine.set_log_sink(events)
    secrets, codes = [], []
    started, message, code = start(engine, sms, REAL_NUMBER, client_ip=IP)
    codes += [code, wrong(code)]
    with pytest.raises(phoneauth.InvalidVerificationCodeError):
        sign_in_with_code(engine, started["verificationId"], wrong(code))
    result = sign_in_with_code(engine, started["verificationId"], code)
    refreshed = engine.refresh_id_token(refresh_token=result["refreshToken"])
    secrets += [result["idToken"], result["refreshToken"], refreshed["idToken"], refreshed["refreshToken"],
                started["verificationId"], message["body"]]
    custom = engine.create_custom_token(uid="host-1")["customToken"]
    secrets += [custom, engine.sign_in_with_custom_token(custom_token=custom)["refreshToken"]]
    for _ in range(2):  # the third SMS reaches the limit...
        started, _message, code = start(engine, sms, REAL_NUMBER)
        codes += [code, wrong(code)]
    with pytest.raises(phoneauth.TooManyRequestsError):
        engine.verify_phone_number(REAL_NUMBER)
    for _ in range(3):  # ...and three wrong codes lock the number
        with pytest.raises(phoneauth.PhoneAuthError):
            sign_in_with_code(engine, started["verificationId"], wrong(code))
    events.wait_for("codeSent", 3)
    kinds = {e["event"] for e in events.events}
    assert kinds >= {"codeSent", "signInSucceeded", "signInFailed", "limitTripped", "lockout"}, kinds
    text = json.dumps(events.events)
    for secret in secrets + codes:
        assert secret not in text
    for full in (REAL_NUMBER, "6505553434", "650-555-3434"):
        assert full not in text
    assert MASKED in text


def test_removed_or_replaced_sink_gets_nothing(engine, sms, events):
    engine.set_log_sink(events)
    start(engine, sms, REAL_NUMBER)
    events.wait_for("codeSent")
    engine.set_log_sink(None)
    seen = len(events.events)
    sign_in(engine, sms)
    time.sleep(0.5)
    assert len(events.events) == seen
    engine.set_log_sink(events)
    newer = Events()
    engine.set_log_sink(newer)
    sign_in(engine, sms)
    newer.wait_for("codeSent")
    newer.wait_for("signInSucceeded")
    assert len(events.events) == seen


def test_a_raising_sink_changes_nothing(engine, sms, capsys):
    calls = []

    def sink(event):
        calls.append(event)
        raise RuntimeError("sink broke on " + json.dumps(event))

    engine.set_log_sink(sink)
    for _ in range(2):
        result = sign_in(engine, sms)
        assert result["user"]["phoneNumber"] == REAL_NUMBER
    wait_until(lambda: len([c for c in calls if c["event"] == "codeSent"]) == 2, what="two codeSent events")
    err = capsys.readouterr().err
    assert err.count("RuntimeError") == 1  # reported once, not per event
    assert "sink broke" not in err and MASKED not in err


def test_sink_gets_events_from_the_delivery_thread_and_the_caller(engine, sms, events):
    engine.set_log_sink(events)
    started, _message, code = start(engine, sms, REAL_NUMBER)
    events.wait_for("codeSent")
    sign_in_with_code(engine, started["verificationId"], code)
    by_event = dict(zip((e["event"] for e in events.events), events.threads))
    assert by_event["signInSucceeded"] == threading.get_ident()
    assert by_event["codeSent"] != threading.get_ident()


def test_sink_called_from_many_threads_at_once(make_engine, events):
    engine = make_engine(testPhoneNumbers=FIXED_NUMBERS)
    engine.set_log_sink(events)
    errors = []

    def work(number):
        try:
            for _ in range(5):
                engine.sign_in_with_credential(credential=fixed_credential(engine, number))
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in sorted(FIXED_NUMBERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert len(events.named("signInSucceeded")) == 5 * len(FIXED_NUMBERS)


def test_closing_from_the_sink_is_refused(engine, sms):
    outcome = []

    def sink(event):
        if event["event"] == "signInSucceeded":
            try:
                engine.close()
                outcome.append("closed")
            except RuntimeError:
                outcome.append("refused")

    engine.set_log_sink(sink)
    sign_in(engine, sms)
    assert outcome == ["refused"]
    assert not engine.closed


def test_bad_sinks_and_closed_engines(make_engine):
    engine = make_engine()
    with pytest.raises(TypeError):
        engine.set_log_sink("not callable")
    engine.close()
    with pytest.raises(ValueError):
        engine.set_log_sink(lambda event: None)
    with pytest.raises(ValueError):
        engine.set_log_sink(None)


def test_the_callback_is_kept_alive(db_path):
    # Nothing but the engine refers to the sink; a collected callback would crash the child.
    done = run_python("""
        import gc, json, sys, threading
        import phoneauth
        got = []
        done = threading.Event()
        engine = phoneauth.Engine(json.loads(sys.argv[1]))
        engine.set_sms_sender(lambda message: None)
        engine.set_log_sink(lambda event: (got.append(event["event"]), done.set()))
        gc.collect()
        engine.verify_phone_number("+16505553434")
        if not done.wait(15):
            sys.exit("no event within 15 s")
        engine.close()
        print(got)
    """, json.dumps(engine_config(db_path)))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "codeSent" in done.stdout
