"""App verification: Engine.set_push_sender / set_captcha_verifier and the methods around them,
and phoneauth.AppVerificationFlow running the client's steps (push first, captcha after).

The captcha verifier asks a real HTTP server standing in for the provider's siteverify endpoint;
the captcha page is simulated by building its callback URL. Receipt expiry (receiptTtlSeconds is
at least 30 s) is covered by the Swift tests, not here."""

import json
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, urlencode, urlsplit

import pytest

import phoneauth
from support import REAL_NUMBER, TEST_CODE, TEST_NUMBER, WAIT, custom_sign_in, sent_before, sign_in_with_code, start

SCHEME = "com.example.app"
CAPTCHA = {"pageUrl": "https://captcha.example/page"}
IP = "203.0.113.7"
OTHER_NUMBER = "+447400123456"


class PushService:
    """A push sender. With a device, each accepted push reaches device(payload) on another thread
    after `delay` seconds, as a silent push would; without, it is accepted and never arrives."""

    def __init__(self, device=None, delay=0.2):
        self.device, self.delay = device, delay
        self.messages, self.threads = [], []

    def __call__(self, message):
        self.messages.append(message)
        if self.device is not None:
            thread = threading.Timer(self.delay, self.device, [message["payload"]])
            self.threads.append(thread)
            thread.start()
        return True

    def join(self):
        for thread in self.threads:
            thread.join(10)


class DecidedWaits(threading.Condition):
    """A flow's condition (set as flow._arrived) whose waits the test ends, not the clock: each
    wait_for notes its timeout; then, if `time_passes`, a wait for what has not come ends at once as
    if that timeout had run out; if not, only a notification ends it (what came decides)."""

    def __init__(self, time_passes):
        super().__init__()
        self.time_passes = time_passes
        self.timeouts = []

    def wait_for(self, predicate, timeout=None):
        self.timeouts.append(timeout)
        while not predicate() and not self.time_passes:
            assert self.wait(WAIT), "nothing came to end the wait"
        return predicate()


class CaptchaProvider(ThreadingHTTPServer):
    """A captcha provider's siteverify endpoint on 127.0.0.1: POST token=...&remoteip=... answers
    {"success", "score"?} from `verdicts` (unknown tokens fail); 500 while `down`."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _SiteVerify)
        self.url = "http://127.0.0.1:%d/siteverify" % self.server_address[1]
        self.verdicts, self.requests, self.down = {}, [], False


class _SiteVerify(BaseHTTPRequestHandler):
    def do_POST(self):
        form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        self.server.requests.append({k: v[0] for k, v in form.items()})
        if self.server.down:
            self.send_error(500)
            return
        body = json.dumps(self.server.verdicts.get(form["token"][0], {"success": False})).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def provider():
    server = CaptchaProvider()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(10)


def http_verifier(provider):
    """The host's captcha verifier: asks the provider over HTTP; None when it cannot."""

    def verify(request):
        form = urlencode({"token": request["token"], "remoteip": request.get("clientIp", "")}).encode()
        try:
            with urllib.request.urlopen(provider.url, data=form, timeout=5) as response:
                answer = json.loads(response.read())
        except (OSError, ValueError):
            return None
        return {k: answer[k] for k in ("success", "score") if k in answer}

    return verify


def callback_url(challenge_url, scheme=SCHEME, **answer):
    """What the captcha page opens when done: the eventId of its URL with `answer` (captchaToken=
    or error=) in the percent-encoded deep link."""
    event_id = parse_qs(urlsplit(challenge_url).query)["eventId"][0]
    inner = "https://page/done?" + urlencode(dict(eventId=event_id, **answer))
    return scheme + "://phoneauth/link?deep_link_id=" + quote(inner, safe="")


def solved_with(token):
    """A simulated captcha page: the user solves it and the provider issued `token`."""
    return lambda url: callback_url(url, captchaToken=token)


def push_proof(engine, pushes):
    """verifyClient, then the receipt and secret of the push it sent."""
    engine.verify_client("device-token")
    return pushes.messages[-1]["payload"]["phoneauth"]


# -- the push path ---------------------------------------------------------------------------------

def test_push_path_end_to_end(make_engine, sms):
    engine = make_engine(sender=sms)
    flow = phoneauth.AppVerificationFlow(engine, app_token="device-token", token_type="sandbox")
    pushes = PushService(device=flow.notification_received)
    engine.set_push_sender(pushes)
    with pytest.raises(phoneauth.MissingAppCredentialError):
        engine.verify_phone_number(REAL_NUMBER)  # installing the push sender turned enforcement on
    flow._arrived = DecidedWaits(time_passes=False)  # the push ends the wait, or nothing does
    proof = flow.run()
    assert flow._arrived.timeouts == [5]  # suggestedTimeout, pushTimeoutSeconds' default
    pushes.join()
    [message] = pushes.messages
    assert (message["appToken"], message["tokenType"]) == ("device-token", "sandbox")
    assert proof == message["payload"]["phoneauth"]
    started, delivered, code = start(engine, sms, REAL_NUMBER, app_verification=proof)
    assert delivered["to"] == REAL_NUMBER
    assert sign_in_with_code(engine, started["verificationId"], code)["user"]["phoneNumber"] == REAL_NUMBER


def test_push_delivered_before_verify_client_returns(make_engine, sms):
    # A push may reach the app while verify_client is still running.
    engine = make_engine(sender=sms)
    flow = phoneauth.AppVerificationFlow(engine, app_token="device-token")
    engine.set_push_sender(lambda message: flow.notification_received(message["payload"]))
    started = flow.verify_phone_number(REAL_NUMBER)
    sms.wait_for(verification_id=started["verificationId"])


def test_wrong_secret_is_refused_and_uses_the_receipt_up(make_engine, sms):
    engine = make_engine(sender=sms)
    pushes = PushService()
    engine.set_push_sender(pushes)
    proof = push_proof(engine, pushes)
    with pytest.raises(phoneauth.InvalidAppCredentialError) as info:
        engine.verify_phone_number(REAL_NUMBER, app_verification=dict(proof, secret="guessed"))
    assert info.value.details == {"reason": "wrongSecret"}
    with pytest.raises(phoneauth.InvalidAppCredentialError) as info:
        engine.verify_phone_number(REAL_NUMBER, app_verification=proof)
    assert info.value.details == {"reason": "alreadyUsed"}
    assert sent_before(engine, sms, OTHER_NUMBER, app_verification=push_proof(engine, pushes)) == []


def test_receipt_works_once(make_engine, sms):
    engine = make_engine(sender=sms)
    pushes = PushService()
    engine.set_push_sender(pushes)
    proof = push_proof(engine, pushes)
    start(engine, sms, REAL_NUMBER, app_verification=proof)
    with pytest.raises(phoneauth.InvalidAppCredentialError) as info:
        engine.verify_phone_number("+447400123456", app_verification=proof)
    assert info.value.details == {"reason": "alreadyUsed"}


def test_receipt_of_another_database_is_unknown(make_engine, sms, tmp_path):
    engine = make_engine(sender=sms)
    engine.set_push_sender(PushService())
    other = make_engine(database=str(tmp_path / "other.db"))
    pushes = PushService()
    other.set_push_sender(pushes)
    proof = push_proof(other, pushes)
    with pytest.raises(phoneauth.InvalidAppCredentialError) as info:
        engine.verify_phone_number(REAL_NUMBER, app_verification=proof)
    assert info.value.details == {"reason": "unknown"}
    other.verify_phone_number(REAL_NUMBER, app_verification=proof)  # still good where it was made


@pytest.mark.parametrize("proof", [{}, {"receipt": "r"}, {"secret": "s"}, {"captchaToken": ""},
                                   {"receipt": "r", "secret": "s", "captchaToken": "t"}],
                         ids=["empty", "receipt-only", "secret-only", "empty-token", "both-kinds"])
def test_malformed_proof(make_engine, proof):
    engine = make_engine()
    engine.set_push_sender(PushService())
    with pytest.raises(phoneauth.InvalidAppCredentialError) as info:
        engine.verify_phone_number(REAL_NUMBER, app_verification=proof)
    assert info.value.details == {"field": "appVerification"}


def test_push_sender_gets_the_message_and_its_result_counts(make_engine):
    engine = make_engine()
    with pytest.raises(phoneauth.OperationNotAllowedError) as info:
        engine.verify_client("device-token")
    assert info.value.details == {"reason": "noPushSender"}
    pushes = PushService()
    engine.set_push_sender(pushes)
    sent = engine.verify_client("device-token")
    assert sent["suggestedTimeout"] == 5
    [message] = pushes.messages
    assert message["tokenType"] == "unknown"
    assert message["payload"]["phoneauth"]["receipt"] == sent["receipt"]
    assert message["payload"]["phoneauth"]["secret"]

    def raises(message):
        raise ConnectionError("push service down")

    for sender in (lambda message: False, lambda message: None, raises):
        engine.set_push_sender(sender)
        with pytest.raises(phoneauth.AppNotVerifiedError) as info:
            engine.verify_client("device-token")
        assert info.value.details == {"reason": "pushFailed"}
    with pytest.raises(TypeError):
        engine.set_push_sender("not callable")


def test_missing_app_token(make_engine):
    engine = make_engine()
    engine.set_push_sender(PushService())
    with pytest.raises(phoneauth.MissingAppTokenError):
        engine.verify_client("")
    with pytest.raises(phoneauth.MissingAppTokenError):
        engine.verify_client()
    # None is sent as null, which no parameter but those that clear something takes: a wrong type.
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.verify_client(None)
    assert info.value.details == {"field": "appToken"}
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.verify_client("device-token", token_type="production")
    assert info.value.details == {"field": "tokenType"}


def test_closing_from_the_push_sender_is_refused(make_engine):
    outcome = []

    def sender(message):
        try:
            engine.close()
        except RuntimeError:
            outcome.append("refused")
        return True

    engine = make_engine()
    engine.set_push_sender(sender)
    engine.verify_client("device-token")
    assert outcome == ["refused"] and not engine.closed


# -- the captcha path ------------------------------------------------------------------------------

def test_push_never_arriving_falls_back_to_the_captcha(make_engine, sms, provider):
    provider.verdicts["solved-1"] = {"success": True, "score": 0.9}
    engine = make_engine(sender=sms, captcha=CAPTCHA, appVerification={"pushTimeoutSeconds": 1})
    pushes = PushService()
    engine.set_push_sender(pushes)  # accepted, never delivered
    engine.set_captcha_verifier(http_verifier(provider))
    shown = []
    flow = phoneauth.AppVerificationFlow(engine, app_token="device-token", callback_scheme=SCHEME,
                                         solve_captcha=lambda url: shown.append(url) or callback_url(
                                             url, captchaToken="solved-1"), language_code="fr-CA")
    flow._arrived = DecidedWaits(time_passes=True)
    proof = flow.run()
    assert flow._arrived.timeouts == [1]  # waited suggestedTimeout for the push, then the captcha
    assert proof == {"captchaToken": "solved-1"}
    assert len(pushes.messages) == 1
    [url] = shown
    assert url.startswith(CAPTCHA["pageUrl"] + "?eventId=") and url.endswith("&callbackScheme=" + SCHEME + "&hl=fr")
    started = engine.verify_phone_number(REAL_NUMBER, app_verification=proof, client_ip=IP)
    sms.wait_for(verification_id=started["verificationId"])
    assert provider.requests == [{"token": "solved-1", "remoteip": IP}]


@pytest.mark.parametrize("push_sender", ["none", "fails", "raises"])
def test_no_push_goes_straight_to_the_captcha(make_engine, sms, provider, push_sender):
    provider.verdicts["solved-2"] = {"success": True}
    engine = make_engine(sender=sms, captcha=CAPTCHA)  # pushTimeoutSeconds 5: must not be waited
    if push_sender == "fails":
        engine.set_push_sender(lambda message: False)
    elif push_sender == "raises":
        engine.set_push_sender(lambda message: 1 / 0)
    engine.set_captcha_verifier(http_verifier(provider))
    flow = phoneauth.AppVerificationFlow(engine, app_token="device-token", callback_scheme=SCHEME,
                                         solve_captcha=solved_with("solved-2"))
    flow._arrived = DecidedWaits(time_passes=True)
    started = flow.verify_phone_number(REAL_NUMBER)
    assert flow._arrived.timeouts == []  # no push was sent: nothing to wait for
    sms.wait_for(verification_id=started["verificationId"])


@pytest.mark.parametrize("verdict, reason", [
    ({"success": False}, "rejected"),
    ({"success": True, "score": 0.2}, "lowScore"),
    (None, "verifierFailed"),  # the provider answers 500
])
def test_captcha_verdicts_that_fail(make_engine, sms, provider, verdict, reason):
    if verdict is None:
        provider.down = True
    else:
        provider.verdicts["solved-3"] = verdict
    engine = make_engine(sender=sms, captcha=CAPTCHA)
    engine.set_captcha_verifier(http_verifier(provider))
    flow = phoneauth.AppVerificationFlow(engine, callback_scheme=SCHEME, solve_captcha=solved_with("solved-3"))
    with pytest.raises(phoneauth.CaptchaCheckFailedError) as info:
        flow.verify_phone_number(REAL_NUMBER)
    assert info.value.details == {"reason": reason}
    assert [r["token"] for r in provider.requests] == ["solved-3"]
    provider.down, provider.verdicts["marker"] = False, {"success": True}
    assert sent_before(engine, sms, OTHER_NUMBER, app_verification={"captchaToken": "marker"}) == []


def test_score_at_min_score_passes(make_engine, sms, provider):
    provider.verdicts["solved-4"] = {"success": True, "score": 0.7}
    engine = make_engine(sender=sms, captcha=dict(CAPTCHA, minScore=0.7))
    engine.set_captcha_verifier(http_verifier(provider))
    start(engine, sms, REAL_NUMBER, app_verification={"captchaToken": "solved-4"})


def test_captcha_verifier_answers_through_the_buffer(make_engine):
    requests, answers = [], []

    def verifier(request):
        requests.append(request)
        return answers.pop(0)

    engine = make_engine(appVerification={"enforce": True})  # still on once the verifier is removed
    engine.set_captcha_verifier(verifier)
    with_padding = lambda size: {"success": True, "pad": "x" * (size - len('{"success": true, "pad": ""}'))}

    tokens = iter(range(100))

    def attempt(answer, **kwargs):
        answers.append(answer)
        try:
            # A token proves one request: a fresh one for each attempt.
            engine.verify_phone_number(REAL_NUMBER, app_verification={"captchaToken": f"t{next(tokens)}"}, **kwargs)
            return "sent"
        except phoneauth.CaptchaCheckFailedError as error:
            return error.details["reason"]

    assert attempt({"success": True}, client_ip=IP) == "sent"
    assert attempt({"success": True}) == "sent"
    assert requests == [{"token": "t0", "clientIp": IP}, {"token": "t1"}]
    assert attempt(with_padding(1023)) == "sent"  # 1023 bytes and the NUL fill the 1024
    assert attempt(with_padding(1024)) == "verifierFailed"
    assert attempt(None) == "verifierFailed"
    assert attempt({"success": "yes"}) == "verifierFailed"
    assert attempt(ValueError) == "verifierFailed"  # not JSON: json.dumps raises
    engine.set_captcha_verifier(lambda request: 1 / 0)
    assert attempt(None) == "verifierFailed"
    engine.set_captcha_verifier(None)
    assert attempt(None) == "noVerifier"
    with pytest.raises(TypeError):
        engine.set_captcha_verifier(42)


def test_captcha_page_reporting_an_error(make_engine):
    engine = make_engine(captcha=CAPTCHA)
    engine.set_captcha_verifier(lambda request: {"success": True})
    flow = phoneauth.AppVerificationFlow(engine, callback_scheme=SCHEME,
                                         solve_captcha=lambda url: callback_url(url, error="cancelled"))
    with pytest.raises(phoneauth.AppNotVerifiedError) as info:
        flow.run()
    assert info.value.details == {"reason": "captchaError", "error": "cancelled"}


def test_push_missing_and_no_captcha_fallback(make_engine):
    engine = make_engine(appVerification={"pushTimeoutSeconds": 1})
    engine.set_push_sender(PushService())
    flow = phoneauth.AppVerificationFlow(engine, app_token="device-token")
    flow._arrived = DecidedWaits(time_passes=True)
    with pytest.raises(phoneauth.AppNotVerifiedError) as info:
        flow.run()
    assert flow._arrived.timeouts == [1]
    assert info.value.details == {"reason": "noCaptcha"}


def test_captcha_challenge(make_engine, tmp_path):
    engine = make_engine(captcha={"pageUrl": "https://captcha.example/page?site=1"})
    challenge = engine.get_captcha_challenge(SCHEME)
    assert challenge["url"] == ("https://captcha.example/page?site=1&eventId=" + challenge["eventId"]
                                + "&callbackScheme=" + SCHEME + "&hl=en")
    for scheme in ("1app", "com example", "app/x"):
        with pytest.raises(phoneauth.InvalidArgumentError):
            engine.get_captcha_challenge(scheme)
    with pytest.raises(phoneauth.OperationNotAllowedError) as info:
        make_engine(database=str(tmp_path / "nopage.db")).get_captcha_challenge(SCHEME)
    assert info.value.details == {"reason": "noCaptchaPage"}


# -- what is not ours ------------------------------------------------------------------------------

@pytest.mark.parametrize("notification", [
    {}, [], "text", 42, True,
    {"aps": {"content-available": 1}},
    {"phoneauth": None}, {"phoneauth": 7}, {"phoneauth": []}, {"phoneauth": "not json"},
    {"phoneauth": "{}"}, {"phoneauth": {}},
    {"phoneauth": {"receipt": "r"}}, {"phoneauth": {"secret": "s"}},
    {"phoneauth": {"receipt": "", "secret": "s"}}, {"phoneauth": {"receipt": 1, "secret": 2}},
    {"phoneauth": {"receipt": "r" * 200, "secret": "s"}},
    {"PhoneAuth": {"receipt": "r", "secret": "s"}},
])
def test_malformed_notifications_are_not_handled(make_engine, notification):
    engine = make_engine()
    assert engine.can_handle_notification(notification) == {"handled": False}
    flow = phoneauth.AppVerificationFlow(engine)
    assert flow.notification_received(notification) is False


def test_notifications_that_are_ours(make_engine):
    engine = make_engine()
    pushed = {"receipt": "r1", "secret": "s1"}
    assert engine.can_handle_notification({"phoneauth": pushed, "aps": {}}) == dict(pushed, handled=True)
    assert engine.can_handle_notification({"phoneauth": json.dumps(pushed)}) == dict(pushed, handled=True)
    assert engine.can_handle_notification({"phoneauth": {"warning": "forwarding"}}) == {"handled": True}
    with pytest.raises(phoneauth.InvalidArgumentError):
        engine.can_handle_notification()


def test_malformed_urls_are_not_handled_and_use_nothing_up(make_engine):
    engine = make_engine(captcha=CAPTCHA)
    url = engine.get_captcha_challenge(SCHEME)["url"]
    good = callback_url(url, captchaToken="tok")
    event_id = parse_qs(urlsplit(url).query)["eventId"][0]
    link = SCHEME + "://phoneauth/link?deep_link_id="
    bad = [
        "not a url", "https://phoneauth/link?x=1", SCHEME + "://phoneauth/link",
        good.replace("://phoneauth/link", "://phoneauth/other"),
        good.replace("://", ":/"),
        good + "&extra=1",
        link + "https://page/done?eventId=%s&captchaToken=tok" % event_id,  # deep link not encoded
        link + quote("https://page/done?captchaToken=tok", safe=""),  # no eventId
        link + quote("https://page/done?eventId=%s" % event_id, safe=""),  # neither token nor error
        callback_url(url, captchaToken="tok", error="x"),  # both
        link + quote("https://page/done?eventId=%s&eventId=%s&captchaToken=t" % (event_id, event_id), safe=""),
        link + quote("https://page/done?eventId=01unknownEvent&captchaToken=t", safe=""),
        callback_url(url, scheme="com.other.app", captchaToken="tok"),  # another scheme
        callback_url(url, scheme="1bad", captchaToken="tok"),
        link + "%zz",
    ]
    flow = phoneauth.AppVerificationFlow(engine, callback_scheme=SCHEME, solve_captcha=lambda u: bad[0])
    for text in bad:
        assert engine.can_handle_url(text) == {"handled": False}, text
    with pytest.raises(phoneauth.AppNotVerifiedError) as info:
        flow.run()
    assert info.value.details == {"reason": "captchaNotHandled"}
    assert engine.can_handle_url(good) == {"handled": True, "captchaToken": "tok"}  # not used up
    assert engine.can_handle_url(good) == {"handled": False}  # each event once


# -- configuration -----------------------------------------------------------------------------------

def test_enforcement_off_by_configuration(make_engine, sms):
    engine = make_engine(sender=sms, appVerification={"enforce": False})
    pushes = PushService()
    engine.set_push_sender(pushes)
    start(engine, sms, REAL_NUMBER)
    assert pushes.messages == []


def test_enforcement_on_without_any_hook(make_engine):
    engine = make_engine(appVerification={"enforce": True})
    with pytest.raises(phoneauth.MissingAppCredentialError):
        engine.verify_phone_number(REAL_NUMBER)
    with pytest.raises(phoneauth.CaptchaCheckFailedError) as info:
        engine.verify_phone_number(REAL_NUMBER, app_verification={"captchaToken": "t"})
    assert info.value.details == {"reason": "noVerifier"}


def test_enforcement_stays_on_when_the_hooks_are_removed(make_engine, sms):
    # Replacing a hook must not open a window in which no proof is needed.
    engine = make_engine(sender=sms)
    engine.set_push_sender(PushService())
    engine.set_captcha_verifier(lambda request: {"success": False})
    engine.set_push_sender(None)
    with pytest.raises(phoneauth.MissingAppCredentialError):
        engine.verify_phone_number(REAL_NUMBER)
    engine.set_captcha_verifier(None)
    with pytest.raises(phoneauth.MissingAppCredentialError):
        engine.verify_phone_number(REAL_NUMBER)
    assert not sms.messages


def test_disabled_for_testing_still_limits_to_test_numbers(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers={TEST_NUMBER: TEST_CODE},
                         appVerification={"disabledForTesting": True})
    pushes = PushService()
    engine.set_push_sender(pushes)
    with pytest.raises(phoneauth.AppNotVerifiedError) as info:
        engine.verify_phone_number(REAL_NUMBER)
    assert info.value.details.get("setting") == "appVerification.disabledForTesting"
    with pytest.raises(phoneauth.AppNotVerifiedError):
        engine.verify_phone_number(REAL_NUMBER, app_verification=push_proof(engine, pushes))
    started = engine.verify_phone_number(TEST_NUMBER)  # no proof needed
    sign_in_with_code(engine, started["verificationId"], TEST_CODE)


def test_test_numbers_need_the_proof_when_enforced(make_engine):
    engine = make_engine(testPhoneNumbers={TEST_NUMBER: TEST_CODE})
    pushes = PushService()
    engine.set_push_sender(pushes)
    with pytest.raises(phoneauth.MissingAppCredentialError):
        engine.verify_phone_number(TEST_NUMBER)
    engine.verify_phone_number(TEST_NUMBER, app_verification=push_proof(engine, pushes))


def test_second_factor_enrolment_needs_the_proof(make_engine, sms):
    engine = make_engine(sender=sms)
    pushes = PushService()
    engine.set_push_sender(pushes)
    id_token = custom_sign_in(engine, "user-1")["idToken"]
    with pytest.raises(phoneauth.MissingAppCredentialError):
        engine.mfa_enroll_start(id_token, REAL_NUMBER)
    started = engine.mfa_enroll_start(id_token, REAL_NUMBER, app_verification=push_proof(engine, pushes))
    sms.wait_for(verification_id=started["verificationId"])


@pytest.mark.parametrize("section", [
    {"pushTimeoutSeconds": 0}, {"pushTimeoutSeconds": 121}, {"receiptTtlSeconds": 29},
    {"receiptTtlSeconds": 3601}, {"enforce": "yes"},
])
def test_bad_app_verification_configuration(make_engine, section):
    with pytest.raises(phoneauth.InvalidConfigurationError):
        make_engine(appVerification=section)
