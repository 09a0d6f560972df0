"""phoneauthd with the built-in captcha verifier (captcha.provider): Firebase's sendVerificationCode
with a recaptchaToken is checked by the configured service (a loopback stand-in for Google's
siteverify), then the code signs in; a refused token answers CAPTCHA_CHECK_FAILED."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

from conftest import TEST_CODE, TEST_NUMBER, start_server
from sms_servers import Answer, FakeServer

SEND = "/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=k"
SIGN_IN = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPhoneNumber?key=k"
SECRET = "6Lc-secret-of-the-site"


class SiteVerify:
    """Google's siteverify as its documentation describes it: a form POST of secret, response and
    remoteip, answered with JSON. Tokens it knows get their answer; any other is invalid."""

    def __init__(self):
        self.answers: Dict[str, Dict[str, Any]] = {}
        self.requests: List[Dict[str, str]] = []

        def respond(request) -> Answer:
            form = request.form()
            self.requests.append(dict(form, path=request.path))
            return Answer(200, self.answers.get(form.get("response", ""),
                                                {"success": False, "error-codes": ["invalid-input-response"]}))

        self.server = FakeServer(default=respond)
        self.url = self.server.url

    def close(self):
        self.server.close()


@pytest.fixture
def served(tmp_path):
    siteverify = SiteVerify()
    server = start_server(tmp_path, engine={
        "testPhoneNumbers": {TEST_NUMBER: TEST_CODE}, "sms": {"provider": "console"},
        "captcha": {"provider": {"type": "recaptcha", "secret": SECRET, "baseUrl": siteverify.url,
                                 "hostname": "login.example.com", "action": "sendVerificationCode"}}})
    yield server, siteverify
    server.stop()
    siteverify.close()


def test_a_recaptcha_token_the_service_accepts_sends_the_code_and_signs_in(served):
    server, siteverify = served
    siteverify.answers["good-token"] = {"success": True, "score": 0.9, "action": "sendVerificationCode",
                                        "hostname": "login.example.com", "challenge_ts": "2026-11-27T09:00:00Z"}
    status, sent, _ = server.post(SEND, {"phoneNumber": TEST_NUMBER, "recaptchaToken": "good-token"})
    assert status == 200, sent
    [request] = siteverify.requests
    assert (request["path"], request["secret"], request["response"]) == ("/recaptcha/api/siteverify", SECRET,
                                                                         "good-token")
    status, signed, _ = server.post(SIGN_IN, {"sessionInfo": sent["sessionInfo"], "code": TEST_CODE})
    assert status == 200 and signed["idToken"], signed


@pytest.mark.parametrize("token, answer, says", [
    ("bad-token", None, "rejected the token"),
    ("low", {"success": True, "score": 0.1, "action": "sendVerificationCode", "hostname": "login.example.com"},
     "below captcha.minScore"),
    ("elsewhere", {"success": True, "score": 0.9, "hostname": "evil.example"}, "another site"),
    ("old", {"success": False, "error-codes": ["timeout-or-duplicate"]}, "has expired"),
])
def test_a_refused_token_answers_captcha_check_failed(served, token, answer, says):
    server, siteverify = served
    if answer:
        siteverify.answers[token] = answer
    status, body, _ = server.post(SEND, {"phoneNumber": TEST_NUMBER, "recaptchaToken": token})
    assert status == 400, body
    message = body["error"]["message"]
    assert message.startswith("CAPTCHA_CHECK_FAILED"), body
    assert SECRET not in json.dumps(body)
    assert says in message, body  # after the code, the engine's reason
    assert SECRET not in server.stdout() + server.stderr()

