"""POST /phoneauth/v1/receipts/{provider}: a provider's delivery callback, authenticated by the
provider's own signature (no API key, no admin token) and handed to the engine's reportDelivery
with the URL the provider called. Twilio's callbacks are signed here as its "Webhooks security"
page says: base64(HMAC-SHA1(auth token, URL + each POST field's name and value, sorted by name))."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
import urllib.parse
from typing import Dict, List, Optional, Tuple

import pytest

from conftest import Server, start_server
from sms_servers import Answer, FakeServer

AUTH_TOKEN = "0123456789abcdef0123456789abcdef"
ACCOUNT_SID = "AC0123456789abcdef0123456789abcdef"
MESSAGE_SID = "SM1f0e8ae6ade43cb3c0ce4525424e404f"
REAL_NUMBER = "+16502530000"
ROUTE = "/phoneauth/v1/receipts/twilio"


def twilio_entry(fake: FakeServer) -> Dict[str, object]:
    return {"type": "twilio", "baseUrl": fake.url, "accountSid": ACCOUNT_SID, "authToken": AUTH_TOKEN,
            "from": "+15017122661", "channels": ["sms"]}


def signature(url: str, fields: List[Tuple[str, str]], token: str = AUTH_TOKEN) -> str:
    text = url + "".join(name + value for name, value in sorted(fields))
    return base64.b64encode(hmac.new(token.encode(), text.encode(), hashlib.sha1).digest()).decode()


def status_fields(status: str, sid: str = MESSAGE_SID, error_code: Optional[str] = None) -> List[Tuple[str, str]]:
    fields = [("AccountSid", ACCOUNT_SID), ("ApiVersion", "2010-04-01"), ("From", "+15017122661"),
              ("MessageSid", sid), ("MessageStatus", status), ("SmsSid", sid), ("SmsStatus", status),
              ("To", REAL_NUMBER)]
    if error_code:
        fields.append(("ErrorCode", error_code))
    return fields


def post_callback(server: Server, fields: List[Tuple[str, str]], path: str = ROUTE, signed_url: Optional[str] = None,
                  sig: Optional[str] = None, body: Optional[bytes] = None, extra: Optional[Dict[str, str]] = None):
    headers = {"Content-Type": "application/x-www-form-urlencoded", **(extra or {})}
    if sig != "":
        headers["X-Twilio-Signature"] = sig or signature(signed_url or server.url + path, fields)
    raw = body if body is not None else urllib.parse.urlencode(fields).encode()
    return server.request("POST", path, raw=raw, headers=headers)


def receipts(body) -> List[Dict[str, object]]:
    """The result's receipts, each with the fields every receipt has."""
    assert set(body) == {"receipts"}, body
    return [{key: receipt[key] for key in ("messageId", "status", "applied")} for receipt in body["receipts"]]


def assert_refused(answer, status: int, reason: str) -> None:
    got, body, _ = answer
    assert got == status, (got, body)
    assert set(body) == {"error"} and body["error"]["details"].get("reason") == reason, body
    message = body["error"]["message"]
    assert AUTH_TOKEN not in message and REAL_NUMBER not in message, message


@pytest.fixture
def fake_twilio():
    fake = FakeServer()
    fake.answer(Answer(201, {"sid": MESSAGE_SID, "status": "queued"}))
    yield fake
    fake.close()


@pytest.fixture
def server(tmp_path, fake_twilio):
    # An API key is configured: the receipts route needs none, the provider's signature is its proof.
    started = start_server(tmp_path, engine={"sms": {"providers": [twilio_entry(fake_twilio)]}},
                           server={"apiKeys": ["test-api-key"], "maxBodyBytes": 1 << 20})
    yield started
    started.stop()


def test_a_signed_receipt_for_a_sent_code_is_applied(server, fake_twilio):
    status, sent, _ = server.post("/phoneauth/v1/verifyPhoneNumber?key=test-api-key", {"phoneNumber": REAL_NUMBER})
    assert status == 200, sent
    fake_twilio.wait_for_requests(1, timeout=30)
    # The engine records Twilio's answer (the message's SID) just after the request arrives.
    deadline = time.monotonic() + 30
    while True:
        status, verification, _ = server.admin("getVerificationStatus", {"verificationId": sent["verificationId"]})
        assert status == 200, verification
        if verification.get("providerMessageId") == MESSAGE_SID or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert verification["delivery"] == "sent", verification
    # The provider signs the whole URL it called, query included.
    path = ROUTE + "?attempt=1&tenant=default"
    status, body, _ = post_callback(server, status_fields("delivered"), path=path)
    assert status == 200, body
    assert receipts(body) == [{"messageId": MESSAGE_SID, "status": "delivered", "applied": True}], body
    status, verification, _ = server.admin("getVerificationStatus", {"verificationId": sent["verificationId"]})
    assert status == 200 and verification["delivery"] == "delivered", verification


def test_refused_callbacks_get_their_status_and_reason(server):
    fields = status_fields("failed", error_code="30003")
    good = signature(server.url + ROUTE, fields)
    forged = ("B" if good[0] == "A" else "A") + good[1:]
    assert_refused(post_callback(server, fields, sig=forged), 403, "badSignature")
    assert_refused(post_callback(server, fields, sig=""), 403, "missingSignature")
    assert_refused(post_callback(server, fields, sig=signature(server.url + ROUTE, fields, token="f" * 32)),
                   403, "badSignature")
    # The body changed after signing: failed made delivered.
    altered = urllib.parse.urlencode(status_fields("delivered", error_code="30003")).encode()
    assert_refused(post_callback(server, fields, sig=good, body=altered), 403, "badSignature")
    # Signed, but not a status callback.
    no_sid = [("AccountSid", ACCOUNT_SID), ("MessageStatus", "delivered")]
    assert_refused(post_callback(server, no_sid), 400, "malformed")


def test_the_route_refuses_what_is_not_a_callback(server):
    fields = status_fields("delivered")
    assert_refused(post_callback(server, fields, path="/phoneauth/v1/receipts/nosuchprovider"), 404, "unknownProvider")
    assert_refused(post_callback(server, fields, path="/phoneauth/v1/receipts/bad%20name"), 404, "unknownProvider")
    got, body, headers = server.request("PUT", ROUTE, raw=b"")
    assert got == 405 and headers.get("Allow") == "GET, POST", body
    # A GET is a subscription check, which Twilio does not make.
    assert_refused(server.request("GET", ROUTE + "?hub.mode=subscribe"), 400, "unsupported")
    # Capped at 64 KiB whatever server.maxBodyBytes allows other routes (1 MiB here).
    assert_refused(post_callback(server, fields, body=b"x" * (64 * 1024 + 1)), 413, "tooLarge")
    assert server.get("/healthz")[0] == 200


def test_behind_a_proxy_the_public_url_is_the_one_signed(tmp_path, fake_twilio):
    server = start_server(tmp_path, engine={"sms": {"providers": [twilio_entry(fake_twilio)]}},
                          server={"publicUrl": "https://auth.example.com"})
    try:
        fields = status_fields("undelivered", sid="SM00000000000000000000000000000042", error_code="30005")
        path = ROUTE + "?region=eu"
        status, body, headers = post_callback(server, fields, path=path, signed_url="https://auth.example.com" + path)
        # No message of this engine has that ID (yet, perhaps: a callback faster than the send's
        # record): read, nothing to apply it to, and the provider is asked to send it again later.
        assert status == 503 and headers.get("Retry-After") == "5", body
        assert body == {"receipts": [{"messageId": "SM00000000000000000000000000000042", "status": "failed",
                                      "applied": False, "reason": "unknownMessage"}]}, body
        # Signed for the address phoneauthd listens on, which is not the one Twilio was given.
        assert_refused(post_callback(server, fields, path=path), 403, "badSignature")
    finally:
        server.stop()


def test_metas_subscription_check_is_answered_with_its_challenge_for_the_right_token(tmp_path):
    """Meta checks a callback URL with a GET (hub.mode=subscribe, hub.verify_token, hub.challenge)
    before it sends statuses there; the answer is the challenge, as plain text."""
    token = "verify-" + base64.b16encode(hashlib.sha256(b"x").digest()[:8]).decode()
    entry = {"type": "whatsapp", "name": "meta", "baseUrl": "http://127.0.0.1:9", "phoneNumberId": "1234567890",
             "accessToken": "EAAtoken", "templates": {"en": "verification_code"}, "appSecret": "app-secret",
             "verifyToken": token}
    server = start_server(tmp_path, engine={"sms": {"providers": [entry, {
        "type": "twilio", "baseUrl": "http://127.0.0.1:9", "accountSid": ACCOUNT_SID, "authToken": AUTH_TOKEN,
        "from": "+15017122661"}]}})
    try:
        path = "/phoneauth/v1/receipts/meta?"
        query = {"hub.mode": "subscribe", "hub.verify_token": token, "hub.challenge": "1158201444"}
        got, body, headers = server.request("GET", path + urllib.parse.urlencode(query))
        assert got == 200 and body == 1158201444 and headers["Content-Type"].startswith("text/plain"), (got, body)
        assert_refused(server.request("GET", path + urllib.parse.urlencode({**query, "hub.verify_token": "wrong"})),
                       403, "badSignature")
        assert_refused(server.request("GET", path + urllib.parse.urlencode({**query, "hub.challenge": "<b>"})),
                       400, "malformed")
        assert_refused(server.request("GET", path + "hub.mode=subscribe"), 400, "malformed")
    finally:
        server.stop()
