"""The built-in captcha verifiers (captcha.provider): reCAPTCHA, hCaptcha and Turnstile's
siteverify and reCAPTCHA Enterprise's assessments, each played by a loopback server that answers
as the service documents. Every answer maps to captchaCheckFailed's precise reason; a service
that cannot be reached or answers garbage is verifierFailed, never a pass; the secret is sent to
the service and nowhere else."""

import json
import threading

import pytest

import phoneauth
from sms_servers import Answer, FakeServer
from support import REAL_NUMBER
from test_log_sink import Events

SECRET = "0x4AAAAAAAsecret-never-shown"
IP = "203.0.113.7"
PATHS = {"recaptcha": "/recaptcha/api/siteverify", "hcaptcha": "/siteverify",
         "turnstile": "/turnstile/v0/siteverify",
         "recaptchaEnterprise": "/v1/projects/acme-auth/assessments"}


@pytest.fixture
def service():
    server = FakeServer()
    yield server
    server.close()


def engine_with(make_engine, sms, service, kind, events=None, **provider):
    settings = {"type": kind, "secret": SECRET, "baseUrl": service.url, **provider}
    if kind == "recaptchaEnterprise":
        settings.setdefault("siteKey", "site-key-1")
        settings.setdefault("projectId", "acme-auth")
    engine = make_engine(sender=sms, captcha={"provider": settings, "minScore": 0.5})
    if events is not None:
        engine.set_log_sink(events)
    return engine


def siteverify(success, **fields):
    if success:
        fields.setdefault("hostname", "login.example.com")
    return Answer(200, {"success": success, **fields})


def assessment(valid, score=0.9, reason=None, hostname="login.example.com", action="login"):
    properties = {"valid": valid, "hostname": hostname, "action": action, "createTime": "2026-11-27T09:00:00Z"}
    if reason:
        properties["invalidReason"] = reason
    return Answer(200, {"name": "projects/1/assessments/a", "tokenProperties": properties,
                        "riskAnalysis": {"score": score, "reasons": []}})


def send(engine, token="token-1"):
    return engine.verify_phone_number(REAL_NUMBER, app_verification={"captchaToken": token}, client_ip=IP)


def refused(engine, reason, token="token-1"):
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        send(engine, token)
    assert info.value.code == "captchaCheckFailed", repr(info.value)
    assert info.value.details.get("reason") == reason, repr(info.value)
    assert SECRET not in str(info.value) and SECRET not in repr(info.value)
    return info.value


@pytest.mark.parametrize("kind", ["recaptcha", "hcaptcha", "turnstile"])
def test_a_good_token_sends_the_code_and_the_request_is_the_services(make_engine, sms, service, kind):
    service.answer(siteverify(True, hostname="login.example.com", challenge_ts="2026-11-27T09:00:00Z"))
    engine = engine_with(make_engine, sms, service, kind, siteKey="site-key-1", hostname="login.example.com")
    started = send(engine)
    sms.wait_for(verification_id=started["verificationId"])
    [request] = service.wait_for_requests(1)
    assert (request.method, request.path) == ("POST", PATHS[kind])
    assert request.header("Content-Type") == "application/x-www-form-urlencoded"
    form = request.form()
    assert (form["secret"], form["response"], form["remoteip"]) == (SECRET, "token-1", IP)
    assert form.get("sitekey") == ("site-key-1" if kind == "hcaptcha" else None)


def test_recaptcha_enterprise_creates_an_assessment(make_engine, sms, service):
    service.answer(assessment(True))
    engine = engine_with(make_engine, sms, service, "recaptchaEnterprise", action="login",
                         hostname="login.example.com")
    sms.wait_for(verification_id=send(engine)["verificationId"])
    [request] = service.wait_for_requests(1)
    assert request.path == PATHS["recaptchaEnterprise"] + "?key=" + SECRET
    assert request.json() == {"event": {"token": "token-1", "siteKey": "site-key-1", "expectedAction": "login",
                                        "userIpAddress": IP}}


@pytest.mark.parametrize("kind, answer, reason", [
    ("recaptcha", siteverify(False, **{"error-codes": ["invalid-input-response"]}), "rejected"),
    ("recaptcha", siteverify(False, **{"error-codes": ["timeout-or-duplicate"]}), "expired"),
    ("recaptcha", siteverify(True, score=0.3, action="login"), "lowScore"),
    ("recaptcha", siteverify(True, score=0.9, action="signup"), "wrongAction"),
    ("recaptcha", siteverify(True, score=0.9, action="login", hostname="evil.example"), "wrongHostname"),
    ("recaptcha", siteverify(False, **{"error-codes": ["invalid-input-secret"]}), "verifierFailed"),
    ("hcaptcha", siteverify(False, **{"error-codes": ["already-seen-response"]}), "alreadyUsed"),
    ("hcaptcha", siteverify(False, **{"error-codes": ["expired-input-response"]}), "expired"),
    ("hcaptcha", siteverify(False, **{"error-codes": ["sitekey-secret-mismatch"]}), "verifierFailed"),
    ("turnstile", siteverify(False, **{"error-codes": ["timeout-or-duplicate"]}), "expired"),
    ("turnstile", siteverify(False, **{"error-codes": ["internal-error"]}), "verifierFailed"),
    ("recaptchaEnterprise", assessment(False, reason="EXPIRED"), "expired"),
    ("recaptchaEnterprise", assessment(False, reason="DUPE"), "alreadyUsed"),
    ("recaptchaEnterprise", assessment(False, reason="MALFORMED"), "rejected"),
    ("recaptchaEnterprise", assessment(True, score=0.1), "lowScore"),
    ("recaptchaEnterprise", assessment(True, action="signup"), "wrongAction"),
    ("recaptchaEnterprise", assessment(True, hostname="evil.example"), "wrongHostname"),
    ("recaptcha", Answer(200, "<html>not json</html>"), "verifierFailed"),
    ("recaptcha", Answer(200, {"score": 0.9}), "verifierFailed"),
    ("recaptcha", Answer(500, {"success": True}), "verifierFailed"),
    ("recaptchaEnterprise", Answer(403, {"error": {"code": 403, "status": "PERMISSION_DENIED"}}), "verifierFailed"),
])
def test_each_answer_is_its_precise_refusal(make_engine, sms, service, kind, answer, reason):
    service.answer(answer)
    engine = engine_with(make_engine, sms, service, kind, action="login", hostname="login.example.com")
    refused(engine, reason)


def test_a_service_that_does_not_answer_is_verifier_failed(make_engine, sms, service):
    held = threading.Event()
    service.answer(Answer(200, {"success": True}, hold=held))
    engine = engine_with(make_engine, sms, service, "turnstile", timeoutMs=300)
    try:
        refused(engine, "verifierFailed")
    finally:
        held.set()


def test_a_service_that_cannot_be_reached_is_verifier_failed(make_engine, sms):
    closed = FakeServer()
    url = closed.url
    closed.close()
    engine = make_engine(sender=sms, captcha={"provider": {"type": "recaptcha", "secret": SECRET, "baseUrl": url}})
    refused(engine, "verifierFailed")


def test_the_secret_never_reaches_an_event(make_engine, sms, service):
    events = Events()
    service.script(siteverify(False, **{"error-codes": ["invalid-input-secret"]}), siteverify(True))
    engine = engine_with(make_engine, sms, service, "recaptcha", events=events)
    refused(engine, "verifierFailed")
    send(engine, "token-2")
    events.wait_for("codeSent")
    assert SECRET not in json.dumps(events.events)


def test_a_host_verifier_replaces_the_built_in_one(make_engine, sms, service):
    service.answer(siteverify(False, **{"error-codes": ["invalid-input-response"]}))
    engine = engine_with(make_engine, sms, service, "recaptcha")
    engine.set_captcha_verifier(lambda request: {"success": True})
    sms.wait_for(verification_id=send(engine)["verificationId"])
    assert service.count() == 0


@pytest.mark.parametrize("provider, key", [
    ({"type": "recaptcha"}, "captcha.provider.secret"),
    ({"type": "friendlyCaptcha", "secret": "s"}, "captcha.provider.type"),
    ({"type": "recaptchaEnterprise", "secret": "s", "siteKey": "k"}, "captcha.provider.projectId"),
    ({"type": "recaptcha", "secret": "s", "baseUrl": "http://captcha.example"}, "captcha.provider.baseUrl"),
    ({"type": "recaptcha", "secret": "s", "score": 1}, "captcha.provider.score"),
    ({"type": "recaptcha", "secret": "s", "siteKey": "key\"<script>"}, "captcha.provider.siteKey"),
    ({"type": "hcaptcha", "secret": "s", "widget": "score", "action": "a"}, "captcha.provider.widget"),
    ({"type": "recaptcha", "secret": "s", "widget": "score"}, "captcha.provider.action"),
    ({"type": "recaptcha", "secret": "s", "widget": "invisible"}, "captcha.provider.widget"),
    ({"type": "recaptcha", "secret": "s", "scriptUrl": "http://cdn.example/api.js"}, "captcha.provider.scriptUrl"),
    ({"type": "recaptcha", "secret": "s", "scriptUrl": "https://cdn.example/api.js?x=1"},
     "captcha.provider.scriptUrl"),
    ({"type": "recaptcha", "secret": "s", "scriptUrl": "https://cdn.example;script-src*/api.js"},
     "captcha.provider.scriptUrl"),  # a policy directive smuggled in as a host
])
def test_a_bad_provider_is_refused_at_open_naming_the_key(make_engine, provider, key):
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        make_engine(captcha={"provider": provider})
    assert info.value.code == "invalidConfiguration"
    assert key in info.value.message or info.value.details.get("key") == key, repr(info.value)
