"""Blocking hooks (beforeSendSms): in process through the binding's set_hook, and over HTTP as
Firebase calls a blocking function, against a loopback function that verifies the signed event
with the engine's JWKS. A refusal is BlockingFunctionError with the hook's message; a BLOCK sends
nothing and counts nothing; a hook that fails follows hooks.<name>.onError."""

from __future__ import annotations

import json
import threading

import jwt
import pytest

import phoneauth
from sms_servers import Answer, FakeServer
from support import REAL_NUMBER, TEST_CODE, TEST_NUMBER, code_in, credential_for, sign_in, start
from test_log_sink import Events

SECOND_NUMBER = "+16505553435"


def opened(make_engine, sms, **overrides):
    """An engine whose TEST_NUMBER is a test number (no SMS, TEST_CODE)."""
    return make_engine(sender=sms, testPhoneNumbers={TEST_NUMBER: TEST_CODE}, **overrides)


@pytest.fixture
def engine(make_engine, sms):
    return opened(make_engine, sms)


class Recorder:
    """An in-process hook that records each event and answers what the test set."""

    def __init__(self, answer=()):
        self.events = []
        self.answer = {} if answer == () else answer

    def __call__(self, event):
        self.events.append(event)
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer(event) if callable(self.answer) else self.answer


def test_before_send_sms_sees_each_sign_in_sms_and_lets_it_go(engine, sms):
    hook = Recorder()
    engine.set_hook("beforeSendSms", hook)
    started = engine.verify_phone_number(REAL_NUMBER, language_code="fr-CA", client_ip="203.0.113.9")
    sms.wait_for(verification_id=started["verificationId"])
    [event] = hook.events
    assert event["event_type"] == "beforeSendSms" and event["phone_number"] == REAL_NUMBER
    assert event["sms_type"] == "SIGN_IN_OR_SIGN_UP" and event["locale"] == "fr-CA"
    assert event["sign_in_method"] == "phone"
    assert event["ip_address"] == "203.0.113.9" and event["event_id"] and event["iat"] > 0
    assert "user_record" not in event
    engine.verify_phone_number(TEST_NUMBER)  # test numbers meet the hook too
    assert [e["phone_number"] for e in hook.events] == [REAL_NUMBER, TEST_NUMBER]
    assert hook.events[0]["event_id"] != hook.events[1]["event_id"]


def test_every_event_carries_the_address_and_user_agent_firebase_sdks_require(engine):
    """Firebase's SDKs read ip_address and user_agent as required keys: they are in every event,
    the empty string when the call named none, for the SMS and the sign-in hooks alike."""
    sms_hook, sign_in_hook = Recorder(), Recorder()
    engine.set_hook("beforeSendSms", sms_hook)
    engine.set_hook("beforeSignIn", sign_in_hook)
    started = engine.verify_phone_number(TEST_NUMBER)
    engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], TEST_CODE))
    for event in (sms_hook.events[-1], sign_in_hook.events[-1]):
        assert event["ip_address"] == "" and event["user_agent"] == "", event
    agent = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)"
    started = engine.verify_phone_number(TEST_NUMBER, client_ip="198.51.100.7", user_agent=agent)
    engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], TEST_CODE),
                                   client_ip="198.51.100.7", user_agent=agent)
    for event in (sms_hook.events[-1], sign_in_hook.events[-1]):
        assert event["ip_address"] == "198.51.100.7" and event["user_agent"] == agent, event


@pytest.mark.parametrize("params, problem", [
    ({"user_agent": "curl/8.0"}, "is given only with 'clientIp'"),
    ({"client_ip": "198.51.100.7", "user_agent": "x" * 513}, "is over 512 bytes"),
    ({"client_ip": "198.51.100.7", "user_agent": 7}, "userAgent"),
])
def test_a_user_agent_alone_too_long_or_not_text_is_refused(engine, params, problem):
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.verify_phone_number(TEST_NUMBER, **params)
    assert info.value.details["field"] == "userAgent" and problem in info.value.message, info.value


def test_a_block_sends_nothing_and_counts_nothing(make_engine, sms):
    engine = opened(make_engine, sms, quotas={"smsPerNumberPerHour": 1})
    hook = Recorder({"recaptchaActionOverride": "BLOCK"})
    engine.set_hook("beforeSendSms", hook)
    for _ in range(3):
        with pytest.raises(phoneauth.BlockingFunctionError) as info:
            engine.verify_phone_number(REAL_NUMBER)
        assert info.value.details == {"hook": "beforeSendSms", "reason": "smsBlocked"}, info.value.details
    assert sms.messages == []
    hook.answer = {"recaptchaActionOverride": "ALLOW"}
    started = engine.verify_phone_number(REAL_NUMBER)  # the number's one SMS an hour is still there
    sms.wait_for(verification_id=started["verificationId"])
    assert len(sms.messages) == 1  # delivery is in order: a blocked code's SMS would have come first


def test_a_refusal_reaches_the_caller_with_the_hooks_message(engine, sms):
    invited = {TEST_NUMBER, SECOND_NUMBER}

    def only_invited(event):
        if event["phone_number"] in invited:
            return {}
        return {"error": {"status": "PERMISSION_DENIED", "message": "Only invited numbers may sign up."}}

    engine.set_hook("beforeSendSms", Recorder(only_invited))
    engine.verify_phone_number(TEST_NUMBER)
    with pytest.raises(phoneauth.BlockingFunctionError) as info:
        engine.verify_phone_number(REAL_NUMBER)
    assert info.value.message == "Only invited numbers may sign up."
    assert info.value.details == {"hook": "beforeSendSms", "reason": "refused", "status": "PERMISSION_DENIED"}
    sms.wait_for(verification_id=engine.verify_phone_number(SECOND_NUMBER)["verificationId"])
    assert sms.matching(to=REAL_NUMBER) == []


def test_a_hooks_message_is_cut_and_cleaned(engine):
    hidden = "\n\x07\u0085\u2028\u202e\u2066\u200b"  # controls, C1, line separator, bidi, zero-width
    engine.set_hook("beforeSendSms", Recorder({"error": {"message": "no" + hidden + "way" + "é" * 600}}))
    with pytest.raises(phoneauth.BlockingFunctionError) as info:
        engine.verify_phone_number(TEST_NUMBER)
    assert info.value.message.startswith("noway") and len(info.value.message.encode()) <= 512
    assert info.value.details["status"] == "PERMISSION_DENIED"


@pytest.mark.parametrize("answer", [RuntimeError("the hook broke"), None, [1, 2], "yes",
                                    {"recaptchaActionOverride": "MAYBE"}, {"x": "y" * 9000}])
def test_a_hook_that_fails_denies_unless_on_error_allows(make_engine, sms, answer):
    denying = opened(make_engine, sms)
    denying.set_hook("beforeSendSms", Recorder(answer))
    with pytest.raises(phoneauth.BlockingFunctionError) as info:
        denying.verify_phone_number(TEST_NUMBER)
    assert info.value.details == {"hook": "beforeSendSms", "reason": "hookFailed"}, info.value.details

    allowing = opened(make_engine, sms, hooks={"beforeSendSms": {"onError": "allow"}})
    allowing.set_hook("beforeSendSms", Recorder(answer))
    allowing.verify_phone_number(TEST_NUMBER)


def test_second_factor_sms_carry_their_type_and_user(engine, sms):
    first = sign_in(engine, sms, REAL_NUMBER)
    hook = Recorder()
    engine.set_hook("beforeSendSms", hook)
    started = engine.mfa_enroll_start(first["idToken"], SECOND_NUMBER)
    message = sms.wait_for(verification_id=started["verificationId"])
    cred = credential_for(engine, started["verificationId"], code_in(message["body"], started["codeLength"]))
    engine.mfa_enroll_finalize(first["idToken"], credential=cred, display_name="Work")
    enrolment = hook.events[-1]
    assert (enrolment["sms_type"], enrolment["phone_number"]) == ("MULTI_FACTOR_ENROLLMENT", SECOND_NUMBER)
    assert enrolment["sub"] == first["user"]["uid"] and enrolment["user_record"]["uid"] == first["user"]["uid"]
    assert enrolment["user_record"]["phone_number"] == REAL_NUMBER
    assert enrolment["user_record"]["provider_data"] == [
        {"uid": REAL_NUMBER, "provider_id": "phone", "phone_number": REAL_NUMBER}]

    started, _message, code = start(engine, sms, REAL_NUMBER)
    with pytest.raises(phoneauth.SecondFactorRequiredError) as info:
        engine.sign_in_with_credential(credential_for(engine, started["verificationId"], code))
    resolver = engine.get_multi_factor_resolver(info.value)
    resolver.verify_phone_number(resolver.hints[0])
    challenge = hook.events[-1]
    assert (challenge["sms_type"], challenge["phone_number"]) == ("MULTI_FACTOR_SIGN_IN", SECOND_NUMBER)
    [factor] = challenge["user_record"]["multi_factor"]["enrolled_factors"]
    assert (factor["factor_id"], factor["phone_number"], factor["display_name"]) == ("phone", SECOND_NUMBER, "Work")


def test_removing_the_hook_and_bad_names(engine, sms):
    engine.set_hook("beforeSendSms", Recorder({"recaptchaActionOverride": "BLOCK"}))
    engine.set_hook("beforeSendSms", None)
    engine.verify_phone_number(TEST_NUMBER)
    with pytest.raises(phoneauth.InvalidArgumentError):
        engine.set_hook("beforeSmsSent", Recorder())
    with pytest.raises(TypeError):
        engine.set_hook("beforeSendSms", "not callable")
    with pytest.raises(TypeError):
        engine.set_hook(None, Recorder())


def test_each_call_is_told_to_the_log_sink(engine):
    events = Events()
    engine.set_log_sink(events)
    engine.set_hook("beforeSendSms", Recorder({"error": {"message": "no"}}))
    with pytest.raises(phoneauth.BlockingFunctionError):
        engine.verify_phone_number(TEST_NUMBER)
    engine.set_hook("beforeSendSms", Recorder({"recaptchaActionOverride": "BLOCK"}))
    with pytest.raises(phoneauth.BlockingFunctionError):
        engine.verify_phone_number(TEST_NUMBER)
    engine.set_hook("beforeSendSms", Recorder({"recaptchaActionOverride": "PERHAPS"}))
    with pytest.raises(phoneauth.BlockingFunctionError):
        engine.verify_phone_number(TEST_NUMBER)
    engine.set_hook("beforeSendSms", Recorder())
    engine.verify_phone_number(TEST_NUMBER)
    called = [events.wait_for("hookCalled", count=i) for i in (1, 2, 3, 4)]
    assert [(e["hook"], e["outcome"]) for e in called] == [
        ("beforeSendSms", "refused"), ("beforeSendSms", "blocked"), ("beforeSendSms", "failed"),
        ("beforeSendSms", "answered")]
    assert all(isinstance(e["ms"], int) for e in called)
    assert TEST_NUMBER not in json.dumps(events.events)


def test_a_slow_hook_holds_at_most_eight_calls_and_the_next_fails_at_once(engine):
    inside, release = threading.Semaphore(0), threading.Event()

    def slow(event):
        inside.release()
        release.wait(60)  # the test lets them go
        return {}

    engine.set_hook("beforeSendSms", slow)
    threads = [threading.Thread(target=engine.verify_phone_number, args=(TEST_NUMBER,)) for _ in range(8)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(8):
            assert inside.acquire(timeout=60)
        with pytest.raises(phoneauth.BlockingFunctionError) as info:
            engine.verify_phone_number(TEST_NUMBER)
        assert info.value.details["reason"] == "hookFailed" and "8 calls" in info.value.message
    finally:
        release.set()
        for thread in threads:
            thread.join()
    engine.verify_phone_number(TEST_NUMBER)  # places free again


@pytest.mark.parametrize("hooks, key", [
    ({"beforeSmsSent": {}}, "hooks.beforeSmsSent"),
    ({"beforeSendSms": {"onError": "maybe"}}, "hooks.beforeSendSms.onError"),
    ({"beforeSendSms": {"url": "http://functions.example/hook"}}, "hooks.beforeSendSms.url"),
    ({"beforeSendSms": {"timeoutMs": 100}}, "hooks.beforeSendSms.url"),
    ({"beforeSendSms": {"url": "https://functions.example/hook", "timeoutMs": 10}}, "hooks.beforeSendSms.timeoutMs"),
])
def test_bad_hook_configuration_is_refused_naming_the_key(make_engine, hooks, key):
    with pytest.raises(phoneauth.InvalidConfigurationError) as info:
        make_engine(hooks=hooks)
    assert key in info.value.message or info.value.details.get("key") == key, repr(info.value)


# Over HTTP: the engine as Firebase's identity service, calling a function on loopback.

class Function:
    """A blocking function on loopback at /<name>: checks each request as Firebase's functions SDK
    does (the JWT's signature against the engine's JWKS, its audience, issuer and expiry), records
    the verified payload, and answers what the test set."""

    def __init__(self, engine_of, name="beforeSendSms"):
        self.engine_of = engine_of
        self.payloads, self.problems = [], []
        self.answer = Answer(200, {})

        def respond(request) -> Answer:
            try:
                body = request.json()
                token = body["data"]["jwt"]
                engine = self.engine_of()
                keys = {key["kid"]: key for key in engine.get_jwks()["keys"]}
                header = jwt.get_unverified_header(token)
                key = jwt.PyJWK(keys[header["kid"]]).key
                self.payloads.append(jwt.decode(token, key, algorithms=[header["alg"]], audience=self.url,
                                                issuer=ISSUER))
            except Exception as exc:  # noqa: BLE001 (the test reads it)
                self.problems.append(repr(exc))
                return Answer(400, {"error": {"status": "INVALID_ARGUMENT", "message": "bad request"}})
            return self.answer

        self.server = FakeServer(default=respond)
        self.url = f"{self.server.url}/{name}"

    def close(self):
        self.server.close()


PROJECT = "hooks-test"
ISSUER = f"https://securetoken.google.com/{PROJECT}"


@pytest.fixture
def function():
    holder = {}
    made = Function(lambda: holder["engine"])
    made.holder = holder
    yield made
    made.close()


def http_engine(make_engine, sms, function, **hook):
    engine = opened(make_engine, sms, projectId=PROJECT, issuer=ISSUER,
                    hooks={"beforeSendSms": {"url": function.url, **hook}})
    function.holder["engine"] = engine
    return engine


def test_an_http_hook_gets_a_jwt_the_engines_keys_verify(make_engine, sms, function):
    engine = http_engine(make_engine, sms, function)
    started = engine.verify_phone_number(REAL_NUMBER, client_ip="198.51.100.4")
    sms.wait_for(verification_id=started["verificationId"])
    assert function.problems == []
    [payload] = function.payloads
    assert payload["aud"] == function.url and payload["iss"] == ISSUER and payload["exp"] > payload["iat"]
    assert payload["event_type"] == "beforeSendSms" and payload["phone_number"] == REAL_NUMBER
    assert payload["sms_type"] == "SIGN_IN_OR_SIGN_UP" and payload["ip_address"] == "198.51.100.4"


def test_an_http_refusal_and_block(make_engine, sms, function):
    engine = http_engine(make_engine, sms, function)
    function.answer = Answer(403, {"error": {"status": "PERMISSION_DENIED", "message": "Not from here."}})
    with pytest.raises(phoneauth.BlockingFunctionError) as info:
        engine.verify_phone_number(REAL_NUMBER)
    assert info.value.message == "Not from here." and info.value.details["status"] == "PERMISSION_DENIED"
    function.answer = Answer(200, {"recaptchaActionOverride": "BLOCK"})
    with pytest.raises(phoneauth.BlockingFunctionError) as info:
        engine.verify_phone_number(REAL_NUMBER)
    assert info.value.details["reason"] == "smsBlocked"
    function.answer = Answer(200, {})
    started = engine.verify_phone_number(REAL_NUMBER)
    sms.wait_for(verification_id=started["verificationId"])
    # Delivery is in order: an SMS of a refused or blocked request would have come first.
    assert [m["verificationId"] for m in sms.messages] == [started["verificationId"]]
    assert function.problems == []


@pytest.mark.parametrize("on_error", ["deny", "allow"])
def test_an_http_hook_slower_than_its_deadline_follows_on_error(make_engine, sms, function, on_error):
    engine = http_engine(make_engine, sms, function, timeoutMs=200, onError=on_error)
    release = threading.Event()
    function.answer = Answer(200, {}, hold=release)  # answers only once the test lets it
    try:
        if on_error == "deny":
            with pytest.raises(phoneauth.BlockingFunctionError) as info:
                engine.verify_phone_number(TEST_NUMBER)
            assert info.value.details["reason"] == "hookFailed"
        else:
            assert engine.verify_phone_number(TEST_NUMBER)["verificationId"]
        assert function.server.count() == 1  # it was asked, and gave up on
    finally:
        release.set()


@pytest.mark.parametrize("answer", [
    Answer(500, "oops"), Answer(200, "not json"), Answer(502, {"no": "error"}),
    Answer(500, {"error": {"status": "INTERNAL", "message": "An unexpected error occurred."}}),  # it crashed
    Answer(404, "no such function"),
])
def test_an_http_hook_that_answers_garbage_fails(make_engine, sms, function, answer):
    engine = http_engine(make_engine, sms, function)
    function.answer = answer
    with pytest.raises(phoneauth.BlockingFunctionError) as info:
        engine.verify_phone_number(TEST_NUMBER)
    assert info.value.details["reason"] == "hookFailed"


def test_an_http_200_with_an_error_refuses(make_engine, sms, function):
    engine = http_engine(make_engine, sms, function)
    function.answer = Answer(200, {"error": {"status": "INVALID_ARGUMENT", "message": "Bad number."}})
    with pytest.raises(phoneauth.BlockingFunctionError) as info:
        engine.verify_phone_number(TEST_NUMBER)
    assert info.value.message == "Bad number." and info.value.details["status"] == "INVALID_ARGUMENT"


def test_an_in_process_hook_replaces_the_http_one(make_engine, sms, function):
    engine = http_engine(make_engine, sms, function)
    engine.set_hook("beforeSendSms", Recorder())
    engine.verify_phone_number(TEST_NUMBER)
    assert function.payloads == []
    engine.set_hook("beforeSendSms", None)
    engine.verify_phone_number(TEST_NUMBER)
    assert len(function.payloads) == 1


def test_code_sign_in_still_works_after_an_allowed_sms(engine, sms):
    engine.set_hook("beforeSendSms", Recorder())
    started = engine.verify_phone_number(TEST_NUMBER)
    signed = engine.sign_in_with_credential(credential_for(engine, started["verificationId"], TEST_CODE))
    assert signed["idToken"]
