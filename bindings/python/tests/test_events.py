"""Durable events: each change records its event in its own transaction, and the event thread
delivers them at least once, a user's in order, to the host's handler or to a Standard Webhooks
receiver; a receiver that is down, or an engine killed before delivery, loses nothing."""

from __future__ import annotations

import base64
import json
import signal
import subprocess
import sys
import textwrap
import threading

import pytest
from standardwebhooks.webhooks import Webhook

import phoneauth
from sms_servers import Answer, FakeServer
from support import (FIXED_NUMBERS, POSTGRES, REAL_NUMBER, TEST_CODE, start, credential_for, custom_sign_in, engine_config, enrol_fixed,
                     fixed_credential, wait_until)
from test_hooks import Recorder

A, B, C, D = "+16505551230", "+16505551231", "+16505551232", "+16505551233"
SECRET = "whsec_" + base64.b64encode(b"a secret for the events receiver").decode()


class Inbox:
    """An in-process event handler: keeps what it takes; `refuse` says which events to turn away."""

    def __init__(self, refuse=lambda event: False):
        self.events = []
        self.offered = []
        self.refuse = refuse
        self._cond = threading.Condition()

    def __call__(self, event):
        with self._cond:
            self.offered.append(event)
            if self.refuse(event):
                return False
            self.events.append(event)
            self._cond.notify_all()
        return None  # anything but False takes it

    def wait(self, count, what="events"):
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.events) >= count, 30):
                raise AssertionError(f"{len(self.events)} {what} within 30 s, expected {count}: {self.types()}")
            return list(self.events)

    def types(self):
        return [e["type"] for e in self.events]


def opened(make_engine, sms=None, events=None, **overrides):
    return make_engine(sender=sms, testPhoneNumbers=FIXED_NUMBERS, events={"retryMs": 10, **(events or {})},
                       **overrides)


def sign_in(engine, number):
    return engine.sign_in_with_credential(credential=fixed_credential(engine, number))


def test_a_first_sign_in_is_created_then_signed_in(make_engine):
    engine = opened(make_engine)
    inbox = Inbox()
    engine.set_event_handler(inbox)
    uid = sign_in(engine, A)["user"]["uid"]
    created, signed = inbox.wait(2)
    assert (created["type"], signed["type"]) == ("userCreated", "userSignedIn")
    assert created["id"].startswith("evt_") and created["id"] != signed["id"]
    assert created["data"]["user"]["uid"] == uid and created["data"]["user"]["phoneNumber"] == "+*******1230"
    assert signed["data"]["isNewUser"] is True and signed["data"]["provider"] == "phone"
    assert created["timestamp"].endswith("Z")
    sign_in(engine, A)
    assert inbox.wait(3)[2]["data"]["isNewUser"] is False


def test_numbers_in_full_only_when_configured(make_engine):
    engine = opened(make_engine, events={"includePhoneNumbers": True})
    inbox = Inbox()
    engine.set_event_handler(inbox)
    sign_in(engine, A)
    assert inbox.wait(2)[0]["data"]["user"]["phoneNumber"] == A


def test_every_change_is_an_event(make_engine, sms):
    engine = opened(make_engine, sms, quotas={"maxConsecutiveFailures": 2}, refreshReuseIntervalSeconds=0)
    inbox = Inbox()
    engine.set_event_handler(inbox)
    host = custom_sign_in(engine, "host")  # userCreated, userSignedIn
    linked = engine.link_with_credential(host["idToken"], fixed_credential(engine, A))  # userUpdated
    engine.update_phone_number(linked["idToken"], fixed_credential(engine, B))  # userUpdated
    engine.update_user("host", display_name="Ada", disabled=False)  # userUpdated
    engine.set_custom_user_claims("host", {"role": "admin"})  # userUpdated
    signed = sign_in(engine, B)  # userSignedIn
    enrolled = enrol_fixed(engine, signed["idToken"], C)  # secondFactorEnrolled
    factor = enrolled["user"]["multiFactor"]["enrolledFactors"][0]["uid"]
    engine.mfa_unenroll(enrolled["idToken"], factor)  # secondFactorRemoved
    first = engine.refresh_id_token(signed["refreshToken"])
    engine.refresh_id_token(first["refreshToken"])
    with pytest.raises(phoneauth.PhoneAuthError):
        engine.refresh_id_token(signed["refreshToken"])  # a rotated-away token again: sessionRevoked (reused)
    engine.sign_out(refresh_token=host["refreshToken"])  # sessionRevoked (signedOut)
    engine.revoke_refresh_tokens("host")  # sessionRevoked (revoked)
    started, _message, _code = start(engine, sms, REAL_NUMBER)
    for _ in range(2):
        with pytest.raises(phoneauth.PhoneAuthError):
            engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], "000000"))
    engine.delete_user("host")  # userDeleted
    expected = ["userCreated", "userSignedIn", "userUpdated", "userUpdated", "userUpdated", "userUpdated",
                "userSignedIn", "secondFactorEnrolled", "secondFactorRemoved", "sessionRevoked", "sessionRevoked",
                "sessionRevoked", "phoneNumberLocked", "userDeleted"]
    events = inbox.wait(len(expected))
    host_events = [e for e in events if e["type"] != "phoneNumberLocked"]  # the number's own order is apart
    assert [e["type"] for e in host_events] == [t for t in expected if t != "phoneNumberLocked"]  # in order
    assert [e["data"]["changed"] for e in events if e["type"] == "userUpdated"] == [
        ["phoneNumber"], ["phoneNumber"], ["displayName"], ["customClaims"]]  # disabled was already false
    assert [e["data"]["reason"] for e in events if e["type"] == "sessionRevoked"] == [
        "reused", "signedOut", "revoked"]
    enrolment = next(e for e in events if e["type"] == "secondFactorEnrolled")["data"]
    assert enrolment["uid"] == "host" and enrolment["factor"]["uid"] == factor
    assert enrolment["factor"]["phoneNumber"] == "+*******1232"
    [locked] = [e for e in events if e["type"] == "phoneNumberLocked"]
    assert locked["data"]["phoneNumber"] == "+*******3434" and locked["data"]["until"]
    assert host_events[-1]["data"]["user"]["customClaims"] == {"role": "admin"}  # userDeleted: the user as it was
    assert len({e["id"] for e in events}) == len(events)


def test_what_is_refused_or_rolled_back_is_no_event(make_engine):
    engine = opened(make_engine)
    inbox = Inbox()
    engine.set_event_handler(inbox)
    engine.create_user(uid="one", phone_number=A)
    with pytest.raises(phoneauth.PhoneAuthError):
        engine.create_user(uid="two", phone_number=A)  # the number is taken: nothing written
    engine.set_hook("beforeCreate", Recorder({"error": {"message": "no"}}))
    with pytest.raises(phoneauth.BlockingFunctionError):
        sign_in(engine, B)
    engine.update_user("one", display_name=None, disabled=False)  # the values it had: no change, no event
    engine.update_user("one", display_name="marker")
    assert inbox.wait(2) and inbox.types() == ["userCreated", "userUpdated"]
    assert inbox.events[1]["data"]["changed"] == ["displayName"]


def test_a_refused_event_comes_again_and_holds_back_that_users_later_ones(make_engine):
    engine = opened(make_engine)
    refusals = []

    def refuse_first_created(event):
        if event["type"] == "userCreated" and not refusals:
            refusals.append(event["id"])
            return True
        return False

    inbox = Inbox(refuse_first_created)
    engine.set_event_handler(inbox)
    sign_in(engine, A)
    created, signed = inbox.wait(2)
    assert created["id"] == refusals[0] and signed["type"] == "userSignedIn"
    offered = [e["id"] for e in inbox.offered]
    assert offered.index(signed["id"]) > offered.index(created["id"], 1)  # only after the retry was taken


def test_events_wait_for_a_handler(make_engine, sms):
    engine = opened(make_engine)
    sign_in(engine, A)
    assert engine.get_status()["events"]["pending"] == 2
    assert engine.get_status()["events"]["oldestPendingAt"]
    inbox = Inbox()
    engine.set_event_handler(inbox)
    assert [e["type"] for e in inbox.wait(2)] == ["userCreated", "userSignedIn"]
    wait_until(lambda: engine.get_status()["events"]["pending"] == 0, what="the outbox to empty")
    assert engine.get_status()["events"]["oldestPendingAt"] is None


def test_without_events_configured_nothing_is_recorded_and_no_handler_is_taken(make_engine):
    engine = make_engine(testPhoneNumbers=FIXED_NUMBERS)
    with pytest.raises(phoneauth.InvalidArgumentError):  # the C setter's status: no message to carry
        engine.set_event_handler(Inbox())
    sign_in(engine, A)
    assert engine.get_status()["events"] == {"pending": 0, "oldestPendingAt": None}


@pytest.mark.parametrize("events,why", [
    ({"url": "http://127.0.0.1:9/e"}, "events.secret"),
    ({"url": "http://127.0.0.1:9/e", "secret": "plain"}, "events.secret"),
    ({"secret": SECRET}, "events.url"),
    ({"retryMs": 5}, "events.retryMs"),
    ({"retryMs": 1000, "maxRetryMs": 500}, "events.maxRetryMs"),
    ({"url": "http://203.0.113.1/e", "secret": SECRET}, "events.url"),
    ({"nope": 1}, "events.nope"),
])
def test_bad_events_configurations_are_refused(make_engine, events, why):
    with pytest.raises(phoneauth.InvalidConfigurationError) as info:
        make_engine(events=events)
    assert why in str(info.value)


def taking(taken):
    """A receiver's answer that takes each event (204) and keeps its request in `taken`."""

    def respond(request):
        taken.append(request)
        return Answer(204)

    return respond


def test_a_receiver_down_for_a_while_gets_every_event_once_it_is_back(make_engine):
    taken = []
    receiver = FakeServer(default=taking(taken))
    receiver.script(*[Answer(503)] * 6)  # down for the first six requests
    try:
        engine = opened(make_engine, events={"url": receiver.url + "/events", "secret": SECRET})
        log = []
        engine.set_log_sink(log.append)
        uids = [sign_in(engine, n)["user"]["uid"] for n in (A, B, C)]
        wait_until(lambda: len(taken) >= 6, what="six events taken")
        payloads = [Webhook(SECRET).verify(r.body, r.header_dict()) for r in taken]
        assert [p["id"] for p in payloads] == [r.header("webhook-id") for r in taken]
        assert len({p["id"] for p in payloads}) == 6  # each event once among those taken
        for uid in uids:  # per user, created before signed in
            assert [p["type"] for p in payloads if p["data"]["user"]["uid"] == uid] == ["userCreated", "userSignedIn"]
        failures = wait_until(lambda: [e for e in log if e["event"] == "eventDeliveryFailed"] or None)
        assert len(failures) == 6 and all(f["error"] == "HTTP 503" for f in failures)
        wait_until(lambda: engine.get_status()["events"]["pending"] == 0, what="the outbox to empty")
        assert len(taken) == 6
    finally:
        receiver.close()


KILLED_CHILD = """
import json, sys, phoneauth
config = json.loads(sys.argv[1])
engine = phoneauth.Engine(config)
started = engine.verify_phone_number(sys.argv[2])
engine.sign_in_with_credential(credential=engine.credential(
    verification_id=started["verificationId"], verification_code=sys.argv[3])["credential"])
sys.stdin.read()  # held until killed
"""


def test_an_engine_killed_before_delivery_delivers_after_reopening(db_path):
    held = threading.Event()
    receiver = FakeServer(default=Answer(503, hold=held))  # stuck: the first delivery never returns
    try:
        config = engine_config(db_path, testPhoneNumbers=FIXED_NUMBERS, events={
            "url": receiver.url + "/events", "secret": SECRET, "retryMs": 10, "timeoutMs": 1000})
        child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(KILLED_CHILD), json.dumps(config), A,
                                  TEST_CODE], stdin=subprocess.PIPE)
        try:
            receiver.wait_for_requests(1, timeout=30)  # signed in, and its first event is on the way
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(30)
        taken = []
        receiver.answer(taking(taken))
        held.set()
        with phoneauth.Engine(config) as engine:
            # The killed engine's lease on the event it was sending runs out (2 x timeoutMs + 5 s).
            wait_until(lambda: len(taken) >= 2, timeout=60, what="delivery after the restart")
            payloads = [json.loads(r.body) for r in taken]
            assert [p["type"] for p in payloads] == ["userCreated", "userSignedIn"]
            assert payloads[0]["data"]["user"]["uid"] == engine.get_user_by_phone_number(A)["user"]["uid"]
    finally:
        receiver.close()


@pytest.mark.skipif(not POSTGRES, reason="two engines on one PostgreSQL database")
def test_two_engines_deliver_each_event_once(make_engine):
    receiver = FakeServer(default=Answer(204))
    try:
        engines = [opened(make_engine, events={"url": receiver.url + "/events", "secret": SECRET}) for _ in range(2)]
        for i, number in enumerate(sorted(FIXED_NUMBERS)):
            sign_in(engines[i % 2], number)
        wait_until(lambda: receiver.count() >= 20, what="20 events")
        wait_until(lambda: all(e.get_status()["events"]["pending"] == 0 for e in engines), what="the outbox to empty")
        ids = [r.header("webhook-id") for r in receiver.requests]  # every answer is a 204
        assert len(ids) == 20 and len(set(ids)) == 20
    finally:
        receiver.close()


def test_an_operator_lists_and_drops_an_event_its_receiver_never_takes(make_engine, sms):
    engine = opened(make_engine, sms, quotas={"maxConsecutiveFailures": 1})
    inbox = Inbox(lambda event: event["type"] == "userCreated")  # a receiver that never takes these
    engine.set_event_handler(inbox)
    uid = sign_in(engine, A)["user"]["uid"]
    started, _message, _code = start(engine, sms, REAL_NUMBER)
    with pytest.raises(phoneauth.PhoneAuthError):
        engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], "000000"))
    inbox.wait(1)  # phoneNumberLocked goes; the user's userSignedIn waits behind userCreated
    wait_until(lambda: any(e["type"] == "userCreated" for e in inbox.offered[1:]), what="a retry")
    page = engine.list_pending_events(max_results=1)
    [stuck] = page["events"]
    assert (stuck["type"], stuck["subject"]) == ("userCreated", uid) and stuck["attempts"] >= 1
    assert stuck["lastError"] == "the handler did not take it" and page["pageToken"] == stuck["id"]
    # The receiver has taken phoneNumberLocked; its delivery is written down just after, by the
    # delivery thread (on a busy machine, after the retry above has begun).
    wait_until(lambda: [e["type"] for e in engine.list_pending_events(page_token=page["pageToken"])["events"]]
               == ["userSignedIn"], what="only userSignedIn pending behind userCreated")
    engine.drop_pending_event(stuck["id"])
    assert [e["type"] for e in inbox.wait(2)][1] == "userSignedIn"  # no longer held back
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.drop_pending_event("evt_unknown")
    assert info.value.details == {"field": "eventId", "reason": "unknown"}


def test_dropping_a_stuck_event_lets_the_ones_it_held_back_go_at_once(make_engine):
    engine = opened(make_engine, events={"retryMs": 600000})  # a retry would come only in ten minutes
    inbox = Inbox(lambda event: event["type"] == "userCreated")
    engine.set_event_handler(inbox)
    sign_in(engine, A)
    wait_until(lambda: inbox.offered, what="the first offer")
    stuck = wait_until(lambda: [e for e in engine.list_pending_events()["events"] if e["attempts"] == 1] or None)
    engine.drop_pending_event(stuck[0]["id"])
    assert inbox.wait(1)[0]["type"] == "userSignedIn"  # not ten minutes later
