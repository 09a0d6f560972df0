"""The built-in SMS providers of `sms.providers` (Twilio, Vonage, Standard Webhooks), spoken to over
real HTTP(S) on 127.0.0.1 (fake services of sms_servers.py): the exact requests each sends, what
each kind of answer means (sent, retried later, given up, failed over to the next provider), the
Retry-After and backoff timing, timeouts, refused connections and TLS, the circuit breaker, the
webhook signature (checked with the standardwebhooks package), secrets never appearing in events,
statuses or configuration errors, and how many messages are sent at once (`sms.concurrency`, also
for the callback provider)."""

import base64
import email.utils
import hashlib
import hmac
import json
import secrets
import threading
import time
from datetime import datetime, timedelta, timezone

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

import phoneauth
from sms_servers import (Answer, FakeServer, closed_port, make_tls_files, no_proxy,  # noqa: F401 (fixtures)
                         server_tls_context, servers)
from support import (Events, REAL_NUMBER, WAIT, code_in, delivery_due_ms, engine_config, parse_time, sign_in_with_code,
                     wait_until)

# libcurl honours proxy variables; the fake services are on this machine.
pytestmark = pytest.mark.usefixtures("no_proxy")

MASKED = "+*******3434"

# Credentials of the fake services: random, so that finding one anywhere can only be a leak.
ACCOUNT_SID = "AC" + secrets.token_hex(16)
AUTH_TOKEN = "authtok" + secrets.token_hex(16)
API_KEY_SID = "SK" + secrets.token_hex(16)
API_KEY_SECRET = "keysecret" + secrets.token_hex(16)
MESSAGING_SERVICE_SID = "MG" + secrets.token_hex(16)
TWILIO_FROM = "+15005550006"
VONAGE_KEY = "vkey" + secrets.token_hex(4)
VONAGE_SECRET = "vsecret" + secrets.token_hex(12)
VONAGE_FROM = "PhoneAuth"
WEBHOOK_KEY_B64 = base64.b64encode(secrets.token_bytes(32)).decode()
WEBHOOK_SECRET = "whsec_" + WEBHOOK_KEY_B64

SECRETS = [AUTH_TOKEN, API_KEY_SECRET, VONAGE_SECRET, WEBHOOK_SECRET, WEBHOOK_KEY_B64,
           base64.b64encode(f"{ACCOUNT_SID}:{AUTH_TOKEN}".encode()).decode(),
           base64.b64encode(f"{API_KEY_SID}:{API_KEY_SECRET}".encode()).decode()]

# The SMS texts of the languages used here (Sources/PhoneAuthCore/Delivery/SMSTemplates.swift).
TEMPLATES = {
    "en": "{} is your verification code.",
    "fr": "{} est votre code de vérification.",
    "ru": "{} — ваш код подтверждения.",
    "zh-CN": "您的验证码是 {}。",
}
# What each of those texts costs: French's é is in GSM-7, Cyrillic and Chinese are not.
COST = {"en": "GSM-7", "fr": "GSM-7", "ru": "UCS-2", "zh-CN": "UCS-2"}


def cost(language):
    return {"encoding": COST[language], "segments": 1}

TWILIO_OK = Answer(201, {"sid": "SM123", "status": "queued"})


def vonage_answer(status, to="16505553434", message_id="0A0000000123ABCD"):
    part = {"to": to, "status": status}
    if status == "0":
        part["message-id"] = message_id
    else:
        part["error-text"] = "Vonage says no"
    return Answer(200, {"message-count": "1", "messages": [part]})


def numbers(first, count):
    """`count` distinct numbers that get real SMS (each test its own, so no limit is reached)."""
    return [f"+1650555{first + i:04d}" for i in range(count)]


# -- configuration ------------------------------------------------------------------------------

def twilio(server, **extra):
    return {"type": "twilio", "baseUrl": server.url, "accountSid": ACCOUNT_SID, "authToken": AUTH_TOKEN,
            "from": TWILIO_FROM, **extra}


def vonage(server, **extra):
    return {"type": "vonage", "baseUrl": server.url, "apiKey": VONAGE_KEY, "apiSecret": VONAGE_SECRET,
            "from": VONAGE_FROM, **extra}


def webhook(server, **extra):
    return {"type": "webhook", "url": server.url + "/sms/hook", "secret": WEBHOOK_SECRET, **extra}


def provider_config(db_path, providers, **sms):
    """The test defaults with `providers` (so without sms.provider, which cannot go with them) and
    room for many SMS per number."""
    config = engine_config(db_path, sms={"providers": providers, **sms}, quotas={"smsPerNumberPerHour": 100})
    del config["sms"]["provider"]
    return config


class PlannedRetries(Events):
    """Events, noting for each deliveryFailed how long after the failure the engine plans the next
    attempt (the store's due time less the event's time, in ms): what the engine decided, however
    late a busy machine lets it act on it. Read in the sink, which runs on the thread that recorded
    the failure and that later takes the retry (which changes the due time), so always in between."""

    def __init__(self, db_path):
        super().__init__()
        self.db_path = db_path
        self.delays = []

    def __call__(self, event):
        if event["event"] == "deliveryFailed":
            failed_at = round(parse_time(event["time"]).timestamp() * 1000)
            self.delays.append(delivery_due_ms(self.db_path) - failed_at)
        super().__call__(event)


def without_time(event):
    assert abs(parse_time(event["time"]) - datetime.now(timezone.utc)) < timedelta(seconds=30)
    return {k: v for k, v in event.items() if k != "time"}


def assert_fields(event, **expected):
    """The event has these fields with these values (others may be there too)."""
    got = {k: event.get(k, "<absent>") for k in expected}
    assert got == expected, f"in {event}"


def status_of(engine, verification_id):
    return engine.get_verification_status(verification_id=verification_id)


def settled_status(engine, verification_id, delivery, attempts=1):
    """The verification's status once its delivery reads `delivery` after at least `attempts`
    attempts (outcomes are written a moment after the events; "pending" is also the first state)."""
    def settled():
        status = status_of(engine, verification_id)
        return status if status["delivery"] == delivery and status["attempts"] >= attempts else None
    return wait_until(settled, timeout=5, what=f"delivery {delivery} after {attempts} attempt(s)")


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def media_type(request):
    return (request.header("Content-Type") or "").split(";")[0].strip().lower()


# -- fixtures -----------------------------------------------------------------------------------

@pytest.fixture
def open_engine(db_path, servers):
    """open_engine(providers, events=None, **sms) -> (engine, events): an engine sending through
    `providers`, with an Events sink (`events`, or a new one). Closed before the servers (this
    fixture depends on `servers`)."""
    opened = []

    def factory(providers, events=None, **sms):
        engine = phoneauth.Engine(provider_config(db_path, providers, **sms))
        opened.append(engine)
        events = events or Events()
        engine.set_log_sink(events)
        return engine, events

    yield factory
    for engine in reversed(opened):
        engine.close()


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory):
    return make_tls_files(tmp_path_factory.mktemp("tls"))


# -- 1. Twilio's request ------------------------------------------------------------------------

@pytest.mark.parametrize("auth, sender, language", [
    ("authToken", "from", "ru"),
    ("authTokenEnv", "messagingServiceSid", "en"),
    ("apiKey", "messagingServiceSid", "zh-CN"),
    ("apiKeySecretEnv", "from", "ru"),
])
def test_twilio_request_and_answer(open_engine, servers, monkeypatch, auth, sender, language):
    server = servers(TWILIO_OK)
    provider = {"type": "twilio", "baseUrl": server.url, "accountSid": ACCOUNT_SID}
    if auth == "authToken":
        provider["authToken"] = AUTH_TOKEN
    elif auth == "authTokenEnv":
        monkeypatch.setenv("PA_TEST_TWILIO_TOKEN", AUTH_TOKEN)
        provider["authTokenEnv"] = "PA_TEST_TWILIO_TOKEN"
    elif auth == "apiKey":
        provider.update(apiKeySid=API_KEY_SID, apiKeySecret=API_KEY_SECRET)
    else:
        monkeypatch.setenv("PA_TEST_TWILIO_KEY_SECRET", API_KEY_SECRET)
        provider.update(apiKeySid=API_KEY_SID, apiKeySecretEnv="PA_TEST_TWILIO_KEY_SECRET")
    expected_auth = basic(ACCOUNT_SID, AUTH_TOKEN) if auth.startswith("authToken") else basic(API_KEY_SID, API_KEY_SECRET)
    if sender == "from":
        provider["from"] = TWILIO_FROM
        sender_field = {"From": TWILIO_FROM}
    else:
        provider["messagingServiceSid"] = MESSAGING_SERVICE_SID
        sender_field = {"MessagingServiceSid": MESSAGING_SERVICE_SID}
    engine, events = open_engine([provider])

    started = engine.verify_phone_number(REAL_NUMBER, language_code=language)
    sent = events.wait_for("codeSent")
    [request] = server.requests
    assert request.method == "POST"
    assert request.path == f"/2010-04-01/Accounts/{ACCOUNT_SID}/Messages.json"
    assert request.header("Authorization") == expected_auth
    assert media_type(request) == "application/x-www-form-urlencoded"
    form = request.form()  # ASCII only: non-Latin text must come percent-encoded
    code = code_in(form.get("Body", ""), started["codeLength"])
    assert form == {"To": REAL_NUMBER, **sender_field, "Body": TEMPLATES[language].format(code)}
    assert without_time(sent) == {"event": "codeSent", "phoneNumber": MASKED, "channel": "sms", "languageCode": language,
                                  "attempt": 1, "provider": "twilio", "messageId": "SM123", **cost(language)}
    status = settled_status(engine, started["verificationId"], "sent")
    assert (status["attempts"], status["provider"], status["providerMessageId"]) == (1, "twilio", "SM123")
    assert "deliveryError" not in status
    # The text that went out holds the verification's real code.
    assert "idToken" in sign_in_with_code(engine, started["verificationId"], code)


# -- 2. Vonage's request ------------------------------------------------------------------------

@pytest.mark.parametrize("language, unicode", [("en", False), ("fr", False), ("ru", True), ("zh-CN", True)])
def test_vonage_request_and_answer(open_engine, servers, language, unicode):
    # French (é) is still GSM-7; Cyrillic and Chinese are not.
    server = servers(vonage_answer("0"))
    engine, events = open_engine([vonage(server)])
    started = engine.verify_phone_number(REAL_NUMBER, language_code=language)
    sent = events.wait_for("codeSent")
    [request] = server.requests
    assert (request.method, request.path) == ("POST", "/sms/json")
    assert media_type(request) == "application/x-www-form-urlencoded"
    assert request.header("Authorization") is None  # the credentials are form fields
    form = request.form()
    code = code_in(form.get("text", ""), started["codeLength"])
    expected = {"api_key": VONAGE_KEY, "api_secret": VONAGE_SECRET, "from": VONAGE_FROM, "to": "16505553434",
                "text": TEMPLATES[language].format(code)}
    if unicode:
        expected["type"] = "unicode"
    assert form == expected
    status = settled_status(engine, started["verificationId"], "sent")
    assert (status["attempts"], status["provider"]) == (1, "vonage")
    # Vonage's message IDs look like this one (its documentation's example is 0A0000000123ABCD1).
    assert without_time(sent) == {"event": "codeSent", "phoneNumber": MASKED, "channel": "sms", "languageCode": language,
                                  "attempt": 1, "provider": "vonage", "messageId": "0A0000000123ABCD", **cost(language)}
    assert status.get("providerMessageId") == "0A0000000123ABCD"


def test_vonage_non_us_number(open_engine, servers):
    server = servers(vonage_answer("0", to="447400123456"))
    engine, events = open_engine([vonage(server)])
    engine.verify_phone_number("+447400123456")
    events.wait_for("codeSent")
    assert server.requests[0].form()["to"] == "447400123456"


@pytest.mark.parametrize("vonage_status, reason", [("1", "rateLimited"), ("5", "serverError")])
def test_vonage_transient_status_is_retried(open_engine, servers, vonage_status, reason):
    server = servers(vonage_answer("0"))
    server.script(vonage_answer(vonage_status))
    engine, events = open_engine([vonage(server)], retryBackoffMs=10)
    started = engine.verify_phone_number(REAL_NUMBER)
    sent = events.wait_for("codeSent")
    [failed] = events.named("deliveryFailed")
    assert_fields(failed, attempt=1, provider="vonage", reason=reason, providerCode=vonage_status, willRetry=True)
    assert server.count() == 2
    assert settled_status(engine, started["verificationId"], "sent")["attempts"] == 2
    assert_fields(sent, attempt=2, provider="vonage", messageId="0A0000000123ABCD")


# -- 3. Retry-After ------------------------------------------------------------------------------

@pytest.mark.parametrize("http_status, reason, retry_after", [
    (429, "rateLimited", "1"), (503, "serverError", "1"), (429, "rateLimited", "date")])
def test_retry_after_is_respected(open_engine, servers, db_path, http_status, reason, retry_after):
    server = servers(TWILIO_OK)

    def refusal(_request):
        # An HTTP date 3 s ahead of the request, cut to whole seconds: at least 2 s from then.
        header = retry_after if retry_after != "date" else email.utils.formatdate(time.time() + 3, usegmt=True)
        return Answer(http_status, {"code": 20429, "message": "Too many requests"}, headers={"Retry-After": header})

    server.script(refusal)
    # A 10 ms backoff: only Retry-After can explain a second's wait.
    engine, events = open_engine([twilio(server)], events=PlannedRetries(db_path), retryBackoffMs=10)
    engine.verify_phone_number(REAL_NUMBER)
    sent = events.wait_for("codeSent")
    [failed] = events.named("deliveryFailed")
    assert_fields(failed, attempt=1, provider="twilio", reason=reason, httpStatus=http_status, willRetry=True)
    assert failed.get("retryAfterSeconds") in ({1} if retry_after == "1" else {1, 2, 3})
    # The engine planned the retry that long after the failure, and did not try before.
    assert events.delays == [failed["retryAfterSeconds"] * 1000]
    first, second = server.requests
    assert second.arrived - first.arrived >= 0.95
    assert_fields(sent, attempt=2, provider="twilio", messageId="SM123")


# -- 4. Server errors, backoff ------------------------------------------------------------------

def test_server_errors_are_retried_with_doubling_backoff(open_engine, servers, db_path):
    server = servers(TWILIO_OK)
    server.script(Answer(500, {"code": 20500, "message": "Internal Server Error"}), Answer(502, b"bad gateway"))
    engine, events = open_engine([twilio(server)], events=PlannedRetries(db_path), retryBackoffMs=200)
    started = engine.verify_phone_number(REAL_NUMBER)
    sent = events.wait_for("codeSent")
    failures = events.named("deliveryFailed")
    assert [(e["attempt"], e["reason"], e.get("httpStatus"), e["willRetry"]) for e in failures] == [
        (1, "serverError", 500, True), (2, "serverError", 502, True)]
    assert_fields(sent, attempt=3, provider="twilio", messageId="SM123")
    # 200 ms then 400 ms, each plus up to half again of jitter, as planned; never tried earlier.
    first_delay, second_delay = events.delays
    assert 200 <= first_delay <= 300 and 400 <= second_delay <= 600, events.delays
    first, second, third = server.requests
    assert second.arrived - first.arrived >= 0.2 and third.arrived - second.arrived >= 0.4
    status = settled_status(engine, started["verificationId"], "sent")
    assert (status["attempts"], status["provider"], status["providerMessageId"]) == (3, "twilio", "SM123")


def test_retries_end_at_max_attempts(open_engine, servers):
    server = servers(Answer(500, {"code": 20500, "message": "Internal Server Error"}))
    engine, events = open_engine([twilio(server)], retryBackoffMs=10, maxAttempts=3)
    started = engine.verify_phone_number(REAL_NUMBER)
    last = events.wait_for("deliveryFailed", count=3)
    assert_fields(last, attempt=3, willRetry=False, reason="serverError")
    status = settled_status(engine, started["verificationId"], "failed")
    assert (status["attempts"], status["deliveryError"]) == (3, "serverError")
    time.sleep(0.3)
    assert server.count() == 3


# -- 5. Invalid numbers: given up at once, no failover -----------------------------------------

INVALID_NUMBER_ANSWERS = [
    ("twilio", Answer(400, {"code": 21211, "message": "The 'To' number is not a valid phone number.",
                            "status": 400}), "21211", 400),
    ("twilio", Answer(400, {"code": 21614, "message": "'To' number is not a valid mobile number",
                            "status": 400}), "21614", 400),
    ("twilio", Answer(400, {"code": 21610, "message": "Attempt to send to unsubscribed recipient",
                            "status": 400}), "21610", 400),
    ("vonage", vonage_answer("6"), "6", 200),
    ("vonage", vonage_answer("7"), "7", 200),
    ("vonage", vonage_answer("33"), "33", 200),
    ("webhook", Answer(400, {"error": "invalidNumber"}), None, 400),
    ("webhook", Answer(422, {"error": "invalidNumber"}), None, 422),
]


@pytest.mark.parametrize("kind, answer, provider_code, http_status", INVALID_NUMBER_ANSWERS)
def test_invalid_number_is_given_up(open_engine, servers, kind, answer, provider_code, http_status):
    first = servers(answer)
    backup = servers(TWILIO_OK)
    make = {"twilio": twilio, "vonage": vonage, "webhook": webhook}[kind]
    engine, events = open_engine([make(first), twilio(backup, name="backup")], retryBackoffMs=10)
    started = engine.verify_phone_number(REAL_NUMBER)
    failed = events.wait_for("deliveryFailed")
    assert_fields(failed, attempt=1, provider=kind, reason="invalidNumber", willRetry=False, httpStatus=http_status)
    assert failed.get("providerCode") == provider_code
    status = settled_status(engine, started["verificationId"], "failed")
    assert (status["deliveryError"], status["attempts"]) == ("invalidNumber", 1)
    time.sleep(0.4)  # a retry (10 ms backoff) or a failover would have come by now
    assert (first.count(), backup.count()) == (1, 0)
    assert events.named("codeSent") == [] and len(events.named("deliveryFailed")) == 1


# -- 6. Provider faults: the next provider at once ----------------------------------------------

FAULTS = [
    ("twilio", Answer(401, {"code": 20003, "message": "Authenticate", "status": 401}), "20003", 401),
    ("twilio", Answer(403, {"code": 20003, "message": "Permission denied", "status": 403}), "20003", 403),
    ("twilio", Answer(400, {"code": 21606, "message": "The 'From' number is not valid", "status": 400}), "21606", 400),
    ("twilio", Answer(404, b"not found"), None, 404),
    ("vonage", vonage_answer("4"), "4", 200),  # bad credentials
    ("vonage", Answer(401, {"type": "unauthorized"}), None, 401),
    ("webhook", Answer(400, {"error": "somethingElse"}), None, 400),
    ("webhook", Answer(403, b""), None, 403),
]


@pytest.mark.parametrize("kind, answer, provider_code, http_status", FAULTS)
def test_provider_fault_fails_over_at_once(open_engine, servers, kind, answer, provider_code, http_status):
    primary = servers(answer)
    backup = servers(TWILIO_OK)
    make = {"twilio": twilio, "vonage": vonage, "webhook": webhook}[kind]
    # An hour's backoff: a retry could not reach the backup within the test, only a failover can.
    engine, events = open_engine([make(primary, name="primary"), twilio(backup, name="backup")],
                                 retryBackoffMs=3_600_000)
    started = engine.verify_phone_number(REAL_NUMBER)
    sent = events.wait_for("codeSent")
    assert without_time(sent) == {"event": "codeSent", "phoneNumber": MASKED, "channel": "sms", "languageCode": "en", "attempt": 1,
                                  "provider": "backup", "messageId": "SM123", "failedOver": ["primary"], **cost("en")}
    assert (primary.count(), backup.count()) == (1, 1)
    status = settled_status(engine, started["verificationId"], "sent")
    assert (status["attempts"], status["provider"], status["providerMessageId"]) == (1, "backup", "SM123")


def test_fault_of_the_last_provider_is_retried(open_engine, servers):
    # Nobody left to fail over to: the attempt failed, and the message is tried again later.
    primary = servers(Answer(401, {"code": 20003, "message": "Authenticate"}))
    backup = servers(vonage_answer("4"))
    engine, events = open_engine([twilio(primary, name="primary"), vonage(backup, name="backup")], retryBackoffMs=10,
                                 maxAttempts=2)
    started = engine.verify_phone_number(REAL_NUMBER)
    last = events.wait_for("deliveryFailed", count=2)
    first = events.named("deliveryFailed")[0]
    assert_fields(first, attempt=1, reason="providerFault", willRetry=True, provider="backup", providerCode="4")
    assert_fields(last, attempt=2, reason="providerFault", willRetry=False)
    assert (primary.count(), backup.count()) == (2, 2)
    assert settled_status(engine, started["verificationId"], "failed")["deliveryError"] == "providerFault"


# -- 7. Timeouts --------------------------------------------------------------------------------

def test_slow_answer_times_out(open_engine, servers):
    # The answer goes only once the engine has given up on it: the failure can only be its timeout.
    gave_up = threading.Event()
    server = servers(Answer(201, {"sid": "SM-late"}, hold=gave_up))
    engine, events = open_engine([twilio(server, timeoutMs=300)], retryBackoffMs=60_000, maxAttempts=2)
    began = time.monotonic()
    started = engine.verify_phone_number(REAL_NUMBER)
    try:
        failed = events.wait_for("deliveryFailed")
    finally:
        gave_up.set()
    assert time.monotonic() - began >= 0.25  # not before its 300 ms
    assert_fields(failed, attempt=1, provider="twilio", reason="timeout", willRetry=True)
    assert "httpStatus" not in failed
    assert events.named("codeSent") == []
    assert settled_status(engine, started["verificationId"], "pending").get("deliveryError") == "timeout"


# -- 8. Refused connections -----------------------------------------------------------------------

def test_refused_connection_is_retried_without_failover(open_engine, servers):
    backup = servers(TWILIO_OK)
    nowhere = {"type": "twilio", "name": "nowhere", "baseUrl": f"http://127.0.0.1:{closed_port()}",
               "accountSid": ACCOUNT_SID, "authToken": AUTH_TOKEN, "from": TWILIO_FROM}
    engine, events = open_engine([nowhere, twilio(backup, name="backup")], retryBackoffMs=60_000)
    started = engine.verify_phone_number(REAL_NUMBER)
    failed = events.wait_for("deliveryFailed")
    assert_fields(failed, attempt=1, provider="nowhere", reason="connectionFailed", willRetry=True)
    assert isinstance(failed.get("detail"), str) and failed["detail"]
    assert "httpStatus" not in failed
    assert settled_status(engine, started["verificationId"], "pending").get("deliveryError") == "connectionFailed"
    assert backup.count() == 0  # a failover comes within the attempt, before its deliveryFailed


# -- 9. TLS -----------------------------------------------------------------------------------------

def test_tls_with_private_ca(open_engine, servers, tls_files):
    server = servers(TWILIO_OK, tls=server_tls_context(tls_files))
    assert server.url.startswith("https://127.0.0.1:")
    engine, events = open_engine([twilio(server, caFile=tls_files["ca"])])
    engine.verify_phone_number(REAL_NUMBER)
    sent = events.wait_for("codeSent")
    assert_fields(sent, provider="twilio", messageId="SM123", attempt=1)
    assert server.requests[0].header("Authorization") == basic(ACCOUNT_SID, AUTH_TOKEN)


def test_tls_without_ca_file_fails(open_engine, servers, tls_files):
    server = servers(TWILIO_OK, tls=server_tls_context(tls_files))
    engine, events = open_engine([twilio(server)], retryBackoffMs=60_000)
    started = engine.verify_phone_number(REAL_NUMBER)
    failed = events.wait_for("deliveryFailed")
    assert_fields(failed, attempt=1, provider="twilio", reason="tlsError")
    assert isinstance(failed.get("detail"), str) and failed["detail"]
    assert server.count() == 0  # nothing was said to an untrusted server
    assert settled_status(engine, started["verificationId"], "pending").get("deliveryError") == "tlsError"


def test_tls_failure_fails_over(open_engine, servers, tls_files):
    secure = servers(TWILIO_OK, tls=server_tls_context(tls_files))
    plain = servers(Answer(201, {"sid": "SM-plain"}))
    # An hour's backoff: only a failover can reach the plain server within the test.
    engine, events = open_engine([twilio(secure, name="secure"), twilio(plain, name="plain")],
                                 retryBackoffMs=3_600_000)
    engine.verify_phone_number(REAL_NUMBER)
    sent = events.wait_for("codeSent")
    assert_fields(sent, attempt=1, provider="plain", messageId="SM-plain", failedOver=["secure"])
    assert (secure.count(), plain.count()) == (0, 1)


# -- 10. Circuit breaker --------------------------------------------------------------------------

def open_breaker(open_engine, servers, seconds):
    """Providers a and b, a behind a breaker of 2 failures and `seconds`, and one message whose
    two failures on a (two 500s; a works after them) open its breaker. Returns (engine, events, a, b)."""
    a = servers(Answer(201, {"sid": "SM-a"}))
    a.script(*[Answer(500, {"code": 20500, "message": "Internal Server Error"})] * 2)
    b = servers(Answer(201, {"sid": "SM-b"}))
    engine, events = open_engine([twilio(a, name="a"), twilio(b, name="b")],
                                 breaker={"failures": 2, "seconds": seconds}, maxAttempts=10, retryBackoffMs=10)
    engine.verify_phone_number(numbers(5100, 1)[0])
    skipped = events.wait_for("providerSkipped")
    assert without_time(skipped) == {"event": "providerSkipped", "provider": "a", "channel": "sms", "failures": 2,
                                     "reason": "serverError", "seconds": seconds}
    assert [e["attempt"] for e in events.wait_for_all("deliveryFailed", 2)] == [1, 2]
    return engine, events, a, b


def test_breaker_skips_a_failing_provider(open_engine, servers):
    # Open for an hour: the skipping is seen however slow the machine (no race with its end).
    engine, events, a, b = open_breaker(open_engine, servers, 3600)
    sent = events.wait_for("codeSent")
    # Two 500s from a (the second opened its breaker), then a skipped: b, with nothing failed over.
    assert_fields(sent, attempt=3, provider="b", messageId="SM-b", failedOver="<absent>")
    # While a is skipped, messages go straight to b.
    for count, number in enumerate(numbers(5101, 2), start=2):
        engine.verify_phone_number(number)
        assert_fields(events.wait_for("codeSent", count=count), provider="b", attempt=1)
    assert (a.count(), b.count()) == (2, 3)


def test_breaker_probes_a_skipped_provider_after_its_seconds(open_engine, servers):
    engine, events, a, b = open_breaker(open_engine, servers, 1)
    skipped_at = time.monotonic()
    # Once its second is out, the next message probes a and brings it back. (The first message's
    # last try goes to b, or on a machine slow enough to let the second run out, is that probe.)
    events.wait_for("codeSent")
    time.sleep(max(0.0, skipped_at + 1.1 - time.monotonic()))
    engine.verify_phone_number(numbers(5103, 1)[0])
    assert_fields(events.wait_for("codeSent", count=2), provider="a", messageId="SM-a", attempt=1)
    restored = events.wait_for("providerRestored")
    assert without_time(restored) == {"event": "providerRestored", "provider": "a", "channel": "sms"}
    engine.verify_phone_number(numbers(5104, 1)[0])
    assert_fields(events.wait_for("codeSent", count=3), provider="a", attempt=1)
    assert len(events.named("providerSkipped")) == 1 and len(events.named("providerRestored")) == 1


def test_breaker_counts_faults(open_engine, servers):
    a = servers(Answer(401, {"code": 20003, "message": "Authenticate"}))
    b = servers(Answer(201, {"sid": "SM-b"}))
    engine, events = open_engine([twilio(a, name="a"), twilio(b, name="b")], breaker={"failures": 2, "seconds": 30})
    for count, number in enumerate(numbers(5200, 3), start=1):
        engine.verify_phone_number(number)
        events.wait_for("codeSent", count=count)
    first, second, third = events.named("codeSent")
    assert first["failedOver"] == second["failedOver"] == ["a"]
    assert "failedOver" not in third  # a was skipped, not tried
    [skipped] = events.named("providerSkipped")
    assert_fields(skipped, provider="a", failures=2, reason="providerFault", seconds=30)
    assert (a.count(), b.count()) == (2, 3)


def test_breaker_counts_invalid_numbers_as_working(open_engine, servers):
    a = servers(Answer(500, {"code": 20500, "message": "Internal Server Error"}))
    a.script(Answer(500, {"code": 20500, "message": "Internal Server Error"}),
             Answer(400, {"code": 21211, "message": "The 'To' number is not a valid phone number."}))
    b = servers(Answer(201, {"sid": "SM-b"}))
    # A minute's backoff: no retry comes during the test, each message is one request to a.
    engine, events = open_engine([twilio(a, name="a"), twilio(b, name="b")], breaker={"failures": 2, "seconds": 30},
                                 retryBackoffMs=60_000)
    m1, m2, m3, m4 = numbers(5300, 4)
    for count, number in enumerate([m1, m2, m3], start=1):  # 500, invalid number, 500
        engine.verify_phone_number(number)
        events.wait_for("deliveryFailed", count=count)
    # providerSkipped would be told during the attempt, before its deliveryFailed.
    assert events.named("providerSkipped") == [], "the invalid number (a working answer) should have reset the count"
    engine.verify_phone_number(m4)  # a second 500 in a row: now a is skipped
    skipped = events.wait_for("providerSkipped")
    assert_fields(skipped, provider="a", failures=2, reason="serverError")
    assert (a.count(), b.count()) == (4, 0)


# -- 11. Webhook ----------------------------------------------------------------------------------

@pytest.mark.parametrize("secret_from", ["inline", "env"])
def test_webhook_is_signed_and_keeps_its_id_across_retries(open_engine, servers, monkeypatch, secret_from):
    server = servers(Answer(200, {"messageId": "wh-1"}))
    server.script(Answer(500, b"try later"))
    if secret_from == "env":
        monkeypatch.setenv("PA_TEST_WEBHOOK_SECRET", WEBHOOK_SECRET)
        provider = {"type": "webhook", "url": server.url + "/sms/hook", "secretEnv": "PA_TEST_WEBHOOK_SECRET"}
    else:
        provider = webhook(server)
    engine, events = open_engine([provider], retryBackoffMs=10)
    started = engine.verify_phone_number(REAL_NUMBER, language_code="fr")
    verification_id = started["verificationId"]
    sent = events.wait_for("codeSent")
    assert_fields(sent, attempt=2, provider="webhook", messageId="wh-1")
    [failed] = events.named("deliveryFailed")
    assert_fields(failed, attempt=1, provider="webhook", reason="serverError", httpStatus=500, willRetry=True)

    first, second = server.requests
    bodies = set()
    for request in (first, second):
        assert (request.method, request.path) == ("POST", "/sms/hook")
        assert media_type(request) == "application/json"
        assert request.header("webhook-id") == "msg_" + verification_id  # the same on the retry
        assert abs(int(request.header("webhook-timestamp")) - time.time()) < 30
        # The standardwebhooks package checks the signature (and the timestamp's age).
        payload = Webhook(WEBHOOK_SECRET).verify(request.body, request.header_dict())
        code = code_in(payload.get("body", ""), started["codeLength"])
        assert payload == {"to": REAL_NUMBER, "body": TEMPLATES["fr"].format(code), "languageCode": "fr",
                           "verificationId": verification_id, "purpose": "signIn", **cost("fr")}
        bodies.add(payload["body"])
        # ... and would refuse it under another secret, or with a changed body.
        with pytest.raises(WebhookVerificationError):
            Webhook("whsec_" + base64.b64encode(b"another secret, 32 bytes long...").decode()).verify(
                request.body, request.header_dict())
        with pytest.raises(WebhookVerificationError):
            Webhook(WEBHOOK_SECRET).verify(request.body.replace(b"signIn", b"signIm"), request.header_dict())
    assert len(bodies) == 1  # the same message both times
    status = settled_status(engine, verification_id, "sent")
    assert (status["attempts"], status["provider"], status["providerMessageId"]) == (2, "webhook", "wh-1")
    assert "idToken" in sign_in_with_code(engine, verification_id, code)


def test_webhook_signature_by_hand(open_engine, servers):
    # The Standard Webhooks scheme spelled out: HMAC-SHA256 over "id.timestamp.body" under the
    # base64-decoded key, base64, prefixed "v1,".
    server = servers(Answer(204))
    engine, events = open_engine([webhook(server)])
    engine.verify_phone_number(REAL_NUMBER)
    sent = events.wait_for("codeSent")
    assert "messageId" not in sent  # a 2xx without a messageId is sent all the same
    [request] = server.requests
    signed = f"{request.header('webhook-id')}.{request.header('webhook-timestamp')}.".encode() + request.body
    mac = hmac.new(base64.b64decode(WEBHOOK_KEY_B64), signed, hashlib.sha256).digest()
    signatures = request.header("webhook-signature").split(" ")
    assert "v1," + base64.b64encode(mac).decode() in signatures


@pytest.mark.parametrize("message_id", ["SM0123abcdef", "0A0000000123ABCD1", "3f2504e0-4f89-11d3-9a0c-0305e82c3301",
                                        "12345"])
def test_webhook_message_id_is_recorded(open_engine, servers, message_id):
    # Plain IDs as services hand them out: letters first or not, UUIDs, digits.
    server = servers(Answer(202, {"messageId": message_id}))
    engine, events = open_engine([webhook(server)])
    started = engine.verify_phone_number(REAL_NUMBER)
    sent = events.wait_for("codeSent")
    status = settled_status(engine, started["verificationId"], "sent")
    assert (sent.get("messageId"), status.get("providerMessageId")) == (message_id, message_id)


# -- 12. Secrets stay secret ----------------------------------------------------------------------

def assert_no_secret(what, text):
    for secret in SECRETS:
        assert secret not in text, f"a secret appears in {what}: {text}"


def echoing(status, make_body):
    """An answer built from the request: the fake service repeats what it got, credentials too,
    as error messages of real services sometimes do."""
    def respond(request):
        return Answer(status, make_body(f"{request.header('Authorization')} {request.body.decode()}"))
    return respond


def test_no_secret_in_events_or_statuses(open_engine, servers, monkeypatch):
    monkeypatch.setenv("PA_TEST_KEY_SECRET", API_KEY_SECRET)
    monkeypatch.setenv("PA_TEST_WEBHOOK_SECRET", WEBHOOK_SECRET)
    token = servers(echoing(401, lambda echo: {"code": 20003, "message": "Authenticate " + echo}))
    key = servers(echoing(403, lambda echo: {"code": 20003, "message": "Denied " + echo}))
    nexmo = servers(echoing(200, lambda echo: {"message-count": "1", "messages": [
        {"status": "4", "error-text": "Bad Credentials " + echo}]}))
    hook = servers(Answer(200, {"messageId": "done"}))
    hook.script(echoing(500, lambda echo: {"error": "later " + echo}))
    providers = [
        twilio(token, name="tw-token"),
        {"type": "twilio", "name": "tw-key", "baseUrl": key.url, "accountSid": ACCOUNT_SID, "apiKeySid": API_KEY_SID,
         "apiKeySecretEnv": "PA_TEST_KEY_SECRET", "from": TWILIO_FROM},
        vonage(nexmo),
        {"type": "webhook", "url": hook.url, "secretEnv": "PA_TEST_WEBHOOK_SECRET"},
    ]
    engine, events = open_engine(providers, retryBackoffMs=10)
    started = engine.verify_phone_number(REAL_NUMBER)
    sent = events.wait_for("codeSent")
    # Every provider got its own credentials ...
    assert token.requests[0].header("Authorization") == basic(ACCOUNT_SID, AUTH_TOKEN)
    assert key.requests[0].header("Authorization") == basic(API_KEY_SID, API_KEY_SECRET)
    assert nexmo.requests[0].form()["api_secret"] == VONAGE_SECRET
    Webhook(WEBHOOK_SECRET).verify(hook.requests[0].body, hook.requests[0].header_dict())
    # ... and the whole chain was walked twice: three faults, then the webhook's 500, then its 200.
    [failed] = events.named("deliveryFailed")
    assert_fields(failed, attempt=1, provider="webhook", reason="serverError",
                  failedOver=["tw-token", "tw-key", "vonage"])
    assert_fields(sent, attempt=2, provider="webhook", messageId="done", failedOver=["tw-token", "tw-key", "vonage"])
    for event in events.all():
        assert_no_secret(f"the {event['event']} event", json.dumps(event, ensure_ascii=False))
    assert_no_secret("the status", json.dumps(settled_status(engine, started["verificationId"], "sent"),
                                              ensure_ascii=False))


def error_text(error):
    return json.dumps({"code": error.code, "status": error.status, "message": error.message,
                       "details": error.details, "str": str(error), "repr": repr(error)}, ensure_ascii=False)


def good_twilio(**extra):
    return {"type": "twilio", "baseUrl": "https://api.twilio.com", "accountSid": ACCOUNT_SID,
            "authToken": AUTH_TOKEN, "from": TWILIO_FROM, **extra}


def good_vonage(**extra):
    return {"type": "vonage", "apiKey": VONAGE_KEY, "apiSecret": VONAGE_SECRET, "from": VONAGE_FROM, **extra}


def good_webhook(**extra):
    return {"type": "webhook", "url": "https://sms.example.com/hook", "secret": WEBHOOK_SECRET, **extra}


def without(provider, *keys):
    return {k: v for k, v in provider.items() if k not in keys}


P0 = "sms.providers[0]"
BAD_CONFIGURATIONS = [
    # (a name, the sms object, the keys the error may name)
    ("token and token env", {"providers": [good_twilio(authTokenEnv="PA_TEST_SET_TOKEN")]},
     {f"{P0}.authToken", f"{P0}.authTokenEnv"}),
    ("unset token env", {"providers": [without(good_twilio(authTokenEnv="PA_TEST_UNSET"), "authToken")]},
     {f"{P0}.authTokenEnv"}),
    ("api key and token env", {"providers": [without(good_twilio(apiKeySid=API_KEY_SID, apiKeySecret=API_KEY_SECRET,
                                                                 authTokenEnv="PA_TEST_UNSET"), "authToken")]},
     {f"{P0}.authTokenEnv"}),
    ("api key without secret", {"providers": [without(good_twilio(apiKeySid=API_KEY_SID), "authToken")]},
     {f"{P0}.apiKeySecret"}),
    ("unset api key secret env", {"providers": [without(good_twilio(apiKeySid=API_KEY_SID,
                                                                    apiKeySecretEnv="PA_TEST_UNSET"), "authToken")]},
     {f"{P0}.apiKeySecretEnv"}),
    ("no credentials", {"providers": [without(good_twilio(), "authToken")]}, {f"{P0}.authToken"}),
    ("from and service", {"providers": [good_twilio(messagingServiceSid=MESSAGING_SERVICE_SID)]},
     {f"{P0}.from", f"{P0}.messagingServiceSid"}),
    ("neither from nor service", {"providers": [without(good_twilio(), "from")]},
     {f"{P0}.from", f"{P0}.messagingServiceSid"}),
    ("no account", {"providers": [without(good_twilio(), "accountSid")]}, {f"{P0}.accountSid"}),
    ("http to another host", {"providers": [good_twilio(baseUrl="http://api.twilio.com")]}, {f"{P0}.baseUrl"}),
    ("http to a look-alike of localhost", {"providers": [good_twilio(baseUrl="http://localhost.example.com")]},
     {f"{P0}.baseUrl"}),
    ("http to a look-alike of 127.0.0.1", {"providers": [good_twilio(baseUrl="http://127.0.0.1.example.com:80")]},
     {f"{P0}.baseUrl"}),
    ("ftp url", {"providers": [good_twilio(baseUrl="ftp://127.0.0.1")]}, {f"{P0}.baseUrl"}),
    ("unknown key", {"providers": [good_twilio(authtoken=AUTH_TOKEN)]}, {f"{P0}.authtoken"}),
    ("unknown type", {"providers": [good_twilio(type="sendgrid")]}, {f"{P0}.type"}),
    ("timeout too short", {"providers": [good_twilio(timeoutMs=99)]}, {f"{P0}.timeoutMs"}),
    ("timeout too long", {"providers": [good_twilio(timeoutMs=120_001)]}, {f"{P0}.timeoutMs"}),
    ("missing ca file", {"providers": [good_twilio(caFile="/nonexistent/ca.pem")]}, {f"{P0}.caFile"}),
    ("name not plain", {"providers": [good_twilio(name="my provider")]}, {f"{P0}.name"}),
    ("same name twice", {"providers": [good_twilio(), good_twilio(baseUrl="http://127.0.0.1:9")]},
     {"sms.providers[1].name"}),
    ("vonage secret and env", {"providers": [good_vonage(apiSecretEnv="PA_TEST_SET_TOKEN")]},
     {f"{P0}.apiSecret", f"{P0}.apiSecretEnv"}),
    ("vonage without secret", {"providers": [without(good_vonage(), "apiSecret")]}, {f"{P0}.apiSecret"}),
    ("vonage unset secret env", {"providers": [without(good_vonage(apiSecretEnv="PA_TEST_UNSET"), "apiSecret")]},
     {f"{P0}.apiSecretEnv"}),
    ("vonage messaging service", {"providers": [good_vonage(messagingServiceSid=MESSAGING_SERVICE_SID)]},
     {f"{P0}.messagingServiceSid"}),
    ("webhook secret without whsec_", {"providers": [good_webhook(secret=WEBHOOK_KEY_B64)]}, {f"{P0}.secret"}),
    ("webhook secret not base64", {"providers": [good_webhook(secret="whsec_" + AUTH_TOKEN + "!*")]},
     {f"{P0}.secret"}),
    ("webhook secret too short", {"providers": [good_webhook(secret="whsec_" + base64.b64encode(b"8 bytes!").decode())]},
     {f"{P0}.secret"}),
    ("webhook secret and env", {"providers": [good_webhook(secretEnv="PA_TEST_SET_WEBHOOK")]},
     {f"{P0}.secret", f"{P0}.secretEnv"}),
    ("webhook unset secret env", {"providers": [without(good_webhook(secretEnv="PA_TEST_UNSET"), "secret")]},
     {f"{P0}.secretEnv"}),
    ("webhook without url", {"providers": [without(good_webhook(), "url")]}, {f"{P0}.url"}),
    ("webhook with baseUrl", {"providers": [good_webhook(baseUrl="https://sms.example.com")]}, {f"{P0}.baseUrl"}),
    ("webhook over http elsewhere", {"providers": [good_webhook(url="http://sms.example.com/hook")]}, {f"{P0}.url"}),
    ("provider and providers", {"provider": "callback", "providers": [good_twilio()]}, {"sms.providers"}),
    ("no providers", {"providers": []}, {"sms.providers"}),
    ("nine providers", {"providers": [good_twilio(name=f"p{i}") for i in range(9)]}, {"sms.providers"}),
    ("concurrency 0", {"providers": [good_twilio()], "concurrency": 0}, {"sms.concurrency"}),
    ("concurrency 257", {"providers": [good_twilio()], "concurrency": 257}, {"sms.concurrency"}),
    ("breaker failures 0", {"providers": [good_twilio()], "breaker": {"failures": 0}}, {"sms.breaker.failures"}),
    ("breaker failures 101", {"providers": [good_twilio()], "breaker": {"failures": 101}}, {"sms.breaker.failures"}),
    ("breaker seconds 3601", {"providers": [good_twilio()], "breaker": {"seconds": 3601}}, {"sms.breaker.seconds"}),
    ("max attempts 21", {"providers": [good_twilio()], "maxAttempts": 21}, {"sms.maxAttempts"}),
    ("backoff 9 ms", {"providers": [good_twilio()], "retryBackoffMs": 9}, {"sms.retryBackoffMs"}),
]


@pytest.mark.parametrize("name, sms, keys", BAD_CONFIGURATIONS, ids=[c[0] for c in BAD_CONFIGURATIONS])
def test_bad_configuration_names_the_key_and_no_secret(db_path, monkeypatch, name, sms, keys):
    monkeypatch.setenv("PA_TEST_SET_TOKEN", AUTH_TOKEN)
    monkeypatch.setenv("PA_TEST_SET_WEBHOOK", WEBHOOK_SECRET)
    monkeypatch.delenv("PA_TEST_UNSET", raising=False)
    config = engine_config(db_path, sms=sms)
    if "provider" not in sms:
        del config["sms"]["provider"]
    with pytest.raises(phoneauth.InvalidConfigurationError) as info:
        phoneauth.Engine(config).close()
    assert info.value.details.get("key") in keys, repr(info.value)
    assert_no_secret("the error", error_text(info.value))


def test_the_good_configurations_above_open(db_path, monkeypatch):
    # The bad configurations are these with one thing wrong: these must open (nothing is sent).
    monkeypatch.setenv("PA_TEST_SET_TOKEN", AUTH_TOKEN)
    for providers in ([good_twilio()], [good_vonage()], [good_webhook()],
                      [good_twilio(name="a"), good_vonage(name="b"), good_webhook(name="c")],
                      [without(good_twilio(apiKeySid=API_KEY_SID, apiKeySecret=API_KEY_SECRET), "authToken")],
                      [without(good_twilio(authTokenEnv="PA_TEST_SET_TOKEN", messagingServiceSid=MESSAGING_SERVICE_SID),
                               "authToken", "from")]):
        config = provider_config(db_path, providers, concurrency=256, maxAttempts=20, retryBackoffMs=10,
                                 breaker={"failures": 100, "seconds": 3600})
        phoneauth.Engine(config).close()


# -- 13. Concurrency ------------------------------------------------------------------------------

@pytest.mark.parametrize("concurrency, count, at_once", [(4, 8, 4), (1, 5, 1), (None, 8, 8)])
def test_http_concurrency(open_engine, servers, concurrency, count, at_once):
    # None: the default with HTTP providers, 16. Each answer waits until `at_once` requests are
    # in the server together: how many the engine sends at once is seen however slow the machine.
    server = servers(Answer(201, {"sid": "SM-slow"}, gather=at_once))
    extra = {} if concurrency is None else {"concurrency": concurrency}
    engine, events = open_engine([twilio(server)], **extra)
    for number in numbers(5400, count):
        engine.verify_phone_number(number)
    events.wait_for("codeSent", count=count)
    assert server.max_active == at_once, f"{server.max_active} requests at once"
    assert server.count() == count


class GatheringSender:
    """A callback sender whose calls return once `at_once` of them have run together (or after
    WAIT), counting the calls running at once."""

    def __init__(self, at_once):
        self.at_once = at_once
        self.cond = threading.Condition()
        self.active = 0
        self.max_active = 0
        self.calls = 0

    def __call__(self, message):
        with self.cond:
            self.active += 1
            self.calls += 1
            self.max_active = max(self.max_active, self.active)
            self.cond.notify_all()
            self.cond.wait_for(lambda: self.max_active >= self.at_once, WAIT)
            self.active -= 1


@pytest.mark.parametrize("concurrency, count, at_once", [(4, 8, 4), (None, 5, 1)])
def test_callback_concurrency(make_engine, concurrency, count, at_once):
    # None: the callback provider's default, one call at a time.
    sender = GatheringSender(at_once)
    sms = {"provider": "callback"} if concurrency is None else {"provider": "callback", "concurrency": concurrency}
    engine = make_engine(sender=sender, sms=sms)
    for number in numbers(5500, count):
        engine.verify_phone_number(number)
    wait_until(lambda: sender.calls == count and sender.active == 0, timeout=10, what=f"{count} calls")
    assert sender.max_active == at_once, f"{sender.max_active} calls at once"


# -- every provider down --------------------------------------------------------------------------

def test_every_provider_down_costs_a_bounded_number_of_requests_and_loses_nothing(open_engine, servers):
    # Both providers fail for a while (503) as traffic keeps coming. Once each has failed
    # `failures` times in a row it is asked once per `seconds` (a probe), whatever the traffic;
    # waiting messages use no attempts. When they recover every message goes out, exactly once.
    failures, seconds, outage = 3, 1, 3.0
    down = Answer(503, {"code": 20503, "message": "Service Unavailable"})
    a, b = servers(down), servers(down)
    # One message at a time: with more senders, the requests already on their way to a provider
    # when its third failure comes back would add to its count, as many as the machine's timing let
    # through (on a busy machine, once 11 against a bound of 8.9).
    engine, events = open_engine([twilio(a, name="a"), twilio(b, name="b")], concurrency=1,
                                 breaker={"failures": failures, "seconds": seconds}, maxAttempts=20, retryBackoffMs=10)
    began = time.monotonic()
    started = [engine.verify_phone_number(n)["verificationId"] for n in numbers(7000, 2)]
    for number in numbers(7002, 28):
        started.append(engine.verify_phone_number(number)["verificationId"])
        time.sleep(outage / 28)
    time.sleep(max(0.0, began + outage - time.monotonic()))
    during = (a.count(), b.count())
    # The outage as it was, however long a busy machine made it: the bound follows from its length.
    lasted = time.monotonic() - began
    print(f"requests during a {lasted:.1f} s outage, 30 messages: a {during[0]}, b {during[1]}")
    a.answer(TWILIO_OK)
    b.answer(TWILIO_OK)

    probes = lasted / seconds + 1
    for name, count in zip("ab", during):
        assert failures <= count <= failures + probes + 1, (name, during)
    assert {e["provider"] for e in events.named("providerSkipped")} == {"a", "b"}

    for verification_id in started:
        settled_status(engine, verification_id, "sent")
    # One codeSent per number (masked to its last four digits, which differ here).
    sent_to = sorted(e["phoneNumber"][-4:] for e in events.named("codeSent"))
    assert sent_to == sorted(n[-4:] for n in numbers(7000, 30)), "each message once after the outage"


def test_connections_are_kept_open_for_later_messages(open_engine, servers):
    # One sending thread and one provider: every message after the first reuses its connection.
    server = servers(TWILIO_OK)
    engine, events = open_engine([twilio(server)], concurrency=1)
    for count, number in enumerate(numbers(7100, 5), start=1):
        engine.verify_phone_number(number)
        events.wait_for("codeSent", count=count)
    assert (server.count(), server.connections) == (5, 1)


def test_proxy_from_the_environment(open_engine, servers, monkeypatch):
    # libcurl takes http_proxy / https_proxy / no_proxy from the environment, as other tools do.
    proxy = servers(TWILIO_OK)
    monkeypatch.setenv("http_proxy", proxy.url)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    target = f"http://127.0.0.1:{closed_port()}"
    engine, events = open_engine([{**twilio(proxy), "baseUrl": target}])
    engine.verify_phone_number(numbers(7200, 1)[0])
    assert_fields(events.wait_for("codeSent"), messageId="SM123")
    # A proxy is sent the whole URL.
    assert proxy.requests[0].path == f"{target}/2010-04-01/Accounts/{ACCOUNT_SID}/Messages.json"
