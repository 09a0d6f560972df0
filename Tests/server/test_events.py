"""phoneauthd's durable events, delivered to a Standard Webhooks receiver (`events.url`): a sign-in
through Identity Toolkit gives userCreated then userSignedIn, signed as the standardwebhooks package
expects, `webhook-id` the event's id, numbers masked; a receiver that answers 503 gets every event
again until it answers 2xx (each id acknowledged once, each user's events in order), and /metrics
counts the failures; while a delivery is held, /metrics and getStatus show the events pending.

The receiver's answers are scripted and held by the test (sms_servers.Answer's hold): nothing here
waits for time to pass to put events in order. Waiting for the backlog to drain polls /metrics,
since a delivered event leaves the store after its request was answered."""

from __future__ import annotations

import base64
import re
import secrets
import threading
import time
from collections import Counter
from typing import Dict, List, Optional

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from conftest import SECOND_CODE, SECOND_NUMBER, TEST_CODE, TEST_NUMBER, run_server, start_server
from sms_servers import Answer, FakeServer, Request

SEND = "/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=k"
SIGN_IN = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPhoneNumber?key=k"
SECRET = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
MASKED = {TEST_NUMBER: "+*******1234", SECOND_NUMBER: "+*******4321"}
WAIT = 15.0  # seconds: generous, for a busy machine


@pytest.fixture
def receiver():
    server = FakeServer()
    yield server
    server.close()


def start(tmp_path, receiver: FakeServer, **events):
    return start_server(tmp_path, engine={
        "sms": {"provider": "console"},
        "events": {"url": receiver.url + "/events", "secret": SECRET, "retryMs": 10, **events}})


def sign_in(server, number: str = TEST_NUMBER, code: str = TEST_CODE) -> dict:
    """sendVerificationCode + signInWithPhoneNumber, as Firebase's clients do; a new user."""
    status, sent, _ = server.post(SEND, {"phoneNumber": number})
    assert status == 200, sent
    status, signed, _ = server.post(SIGN_IN, {"sessionInfo": sent["sessionInfo"], "code": code})
    assert status == 200, signed
    assert signed["isNewUser"] is True, signed
    return signed


def verified(request: Request) -> dict:
    """The event a webhook request carries, its signature checked by the standardwebhooks package."""
    assert (request.method, request.path) == ("POST", "/events")
    payload = Webhook(SECRET).verify(request.body, request.header_dict())
    assert request.header("webhook-id") == payload["id"], (request.headers, payload)
    assert abs(int(request.header("webhook-timestamp")) - time.time()) < 300
    return payload


def metrics(server) -> str:
    status, text, _ = server.get("/metrics")
    assert status == 200 and isinstance(text, str), (status, text)
    return text


def metric(text: str, name: str) -> Optional[float]:
    """The value of the unlabelled sample `name`, or None when absent."""
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else None


def labelled(text: str, name: str) -> Dict[str, float]:
    """The samples of `name` by their labels' text, e.g. {'type="userCreated"': 2.0}."""
    return {m.group(1): float(m.group(2))
            for m in re.finditer(rf"^{re.escape(name)}\{{(.*)\}} (\S+)$", text, re.MULTILINE)}


def wait_drained(server) -> str:
    """Polls /metrics until no event is pending; returns that scrape."""
    deadline = time.monotonic() + WAIT
    while True:
        text = metrics(server)
        if metric(text, "phoneauth_events_pending") == 0:
            return text
        assert time.monotonic() < deadline, f"events still pending after {WAIT}s:\n{text}"
        time.sleep(0.02)


def check_user(event: dict, uid: str, number: str) -> None:
    user = event["data"]["user"]
    assert user["uid"] == uid, event
    assert user["phoneNumber"] == MASKED[number], event
    assert user["disabled"] is False, event
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", user["creationTime"]), event


def test_a_sign_in_delivers_user_created_then_user_signed_in_signed(tmp_path, receiver):
    server = start(tmp_path, receiver)
    try:
        signed = sign_in(server)
        requests = receiver.wait_for_requests(2, timeout=WAIT)
        events = [verified(request) for request in requests[:2]]
        assert [e["type"] for e in events] == ["userCreated", "userSignedIn"], events
        assert events[0]["id"] != events[1]["id"] and all(e["id"].startswith("evt_") for e in events), events
        for event, request in zip(events, requests):
            check_user(event, signed["localId"], TEST_NUMBER)
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", event["timestamp"])
            assert TEST_NUMBER[2:].encode() not in request.body  # masked everywhere
            # ... and the signature holds for this secret and this body only.
            with pytest.raises(WebhookVerificationError):
                Webhook("whsec_" + base64.b64encode(b"another secret, 32 bytes long...").decode()).verify(
                    request.body, request.header_dict())
            with pytest.raises(WebhookVerificationError):
                Webhook(SECRET).verify(request.body.replace(b'"disabled":false', b'"disabled":true '),
                                       request.header_dict())
        text = wait_drained(server)
        assert labelled(text, "phoneauth_event_delivery_failures_total") == {}, text
        status, body, _ = server.admin("getStatus", {})
        assert status == 200 and body["events"] == {"pending": 0, "oldestPendingAt": None}, body
    finally:
        server.stop()


def test_the_event_user_has_every_field_of_the_documented_shape(tmp_path, receiver):
    """docs/API.md, Events: `user` is {uid, phoneNumber, displayName, disabled, customClaims,
    creationTime, lastSignInTime, tenantId}; a field with no value is null (as in the User object), so a
    receiver can read each one."""
    server = start(tmp_path, receiver)
    try:
        signed = sign_in(server)
        requests = receiver.wait_for_requests(2, timeout=WAIT)
        for event in (verified(request) for request in requests[:2]):
            user = event["data"]["user"]
            assert set(user) == {"uid", "phoneNumber", "displayName", "disabled", "customClaims",
                                 "creationTime", "lastSignInTime", "tenantId"}, event
            assert user["tenantId"] is None, "the default pool"
            assert user["uid"] == signed["localId"] and user["displayName"] is None and user["customClaims"] is None
    finally:
        server.stop()


def test_a_failing_receiver_gets_every_event_again_until_it_takes_it(tmp_path, receiver):
    failures = 4
    receiver.script(*[Answer(503, {"error": "unavailable"}) for _ in range(failures)])
    server = start(tmp_path, receiver)
    try:
        first = sign_in(server)
        second = sign_in(server, SECOND_NUMBER, SECOND_CODE)
        status, body, _ = server.admin("updateUser", {"uid": first["localId"], "displayName": "First"})
        assert status == 200, body
        expected = {first["localId"]: ["userCreated", "userSignedIn", "userUpdated"],
                    second["localId"]: ["userCreated", "userSignedIn"]}
        total = sum(len(types) for types in expected.values())

        receiver.wait_for_requests(failures + total, timeout=WAIT)
        text = wait_drained(server)  # nothing is delivered after this: every event left the store
        requests = list(receiver.requests)
        events = [verified(request) for request in requests]
        # The script answers in arrival order: the first `failures` requests got 503.
        refused, acknowledged = events[:failures], events[failures:]
        ids = [e["id"] for e in acknowledged]
        assert len(ids) == len(set(ids)) == total, [(e["type"], e["id"]) for e in acknowledged]
        assert {e["id"] for e in refused} <= set(ids), "a refused event never came again"
        # The same event, whenever it is sent again, has the same body.
        bodies: Dict[str, bytes] = {}
        for event, request in zip(events, requests):
            assert bodies.setdefault(event["id"], request.body) == request.body, event["id"]
        # Each user's events in the order they happened.
        by_user: Dict[str, List[str]] = {}
        for event in acknowledged:
            by_user.setdefault(event["data"]["user"]["uid"], []).append(event["type"])
        assert by_user == expected, by_user
        for event in acknowledged:
            check_user(event, event["data"]["user"]["uid"],
                       TEST_NUMBER if event["data"]["user"]["uid"] == first["localId"] else SECOND_NUMBER)
        updated = next(e for e in acknowledged if e["type"] == "userUpdated")
        assert updated["data"]["changed"] == ["displayName"], updated
        assert updated["data"]["user"]["displayName"] == "First", updated

        counted = labelled(text, "phoneauth_event_delivery_failures_total")
        assert sum(counted.values()) >= failures, text
        assert set(counted) <= {f'type="{t}"' for t in Counter(e["type"] for e in refused)}, (counted, refused)
        assert metric(text, "phoneauth_events_pending") == 0, text
    finally:
        server.stop()


def test_a_held_delivery_shows_the_events_pending(tmp_path, receiver):
    gate = threading.Event()
    receiver.script(Answer(200, hold=gate))  # the first delivery waits for the test
    server = start(tmp_path, receiver, timeoutMs=30000)
    try:
        signed = sign_in(server)
        [held] = receiver.wait_for_requests(1, timeout=WAIT)
        # userCreated is being delivered (not yet answered) and userSignedIn waits behind it.
        text = metrics(server)
        assert metric(text, "phoneauth_events_pending") == 2, text
        assert metric(text, "phoneauth_events_oldest_pending_age_seconds") is not None, text
        status, body, _ = server.admin("getStatus", {})
        assert status == 200 and body["events"]["pending"] == 2, body
        assert isinstance(body["events"]["oldestPendingAt"], str), body
        assert receiver.count() == 1  # the user's next event waits for this one
        gate.set()
        requests = receiver.wait_for_requests(2, timeout=WAIT)
        text = wait_drained(server)
        events = [verified(request) for request in requests]
        assert [e["type"] for e in events] == ["userCreated", "userSignedIn"], events
        assert verified(held)["id"] == events[0]["id"]
        for event in events:
            check_user(event, signed["localId"], TEST_NUMBER)
        assert labelled(text, "phoneauth_event_delivery_failures_total") == {}, text
    finally:
        gate.set()
        server.stop()


def test_events_without_a_receiver_are_refused(tmp_path):
    """phoneauthd installs no handler: events with no url would wait in the store for ever."""
    refused = run_server(tmp_path, engine={"sms": {"provider": "console"}, "events": {}})
    assert refused.returncode == 1 and "events.url" in refused.stderr, refused.stderr
