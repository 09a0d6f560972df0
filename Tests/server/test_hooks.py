"""phoneauthd with a blocking hook over HTTP: a refusal reaches Firebase's clients as
BLOCKING_FUNCTION_ERROR_RESPONSE with the function's message, and PhoneAuth's own route as
blockingFunctionError; a beforeCreate refusal leaves no user; beforeSignIn's session claims reach
the ID token of signInWithPhoneNumber."""

from __future__ import annotations

import json

import jwt

from conftest import TEST_CODE, TEST_NUMBER, start_server
from sms_servers import Answer, FakeServer
from test_ios_replay import verify_id_token

SEND = "/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=k"
SIGN_IN = "/identitytoolkit.googleapis.com/v1/accounts:signInWithPhoneNumber?key=k"


def test_a_blocking_hook_refusal_answers_blocking_function_error_response(tmp_path):
    """A beforeSendSms hook over HTTP that refuses: Firebase's clients get the function's message
    inside BLOCKING_FUNCTION_ERROR_RESPONSE, as Identity Toolkit words it."""
    function = FakeServer(default=Answer(403, {"error": {"status": "PERMISSION_DENIED", "message": "Not invited."}}))
    server = start_server(tmp_path, engine={"sms": {"provider": "console"},
                                            "hooks": {"beforeSendSms": {"url": function.url + "/hook"}}})
    try:
        status, body, _ = server.post(SEND, {"phoneNumber": TEST_NUMBER})
        assert status == 400, body
        message = body["error"]["message"]
        code, detail = message.split(" : ", 1)
        assert code == "BLOCKING_FUNCTION_ERROR_RESPONSE", body
        # The iOS SDK takes the first JSON object out of the detail and shows its message.
        inner = json.loads(detail[detail.index("{"):])
        assert inner == {"error": {"message": "Not invited.", "status": "PERMISSION_DENIED"}}, detail
        status, body, _ = server.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})
        assert status == 403 and body["error"]["code"] == "blockingFunctionError", body
        assert body["error"]["message"] == "Not invited.", body
        assert function.count() == 2
        metrics = server.get("/metrics")[1]
        assert 'phoneauth_hook_calls_total{hook="beforeSendSms",outcome="refused"} 2' in metrics, metrics
        assert 'phoneauth_hook_duration_seconds_count{hook="beforeSendSms"} 2' in metrics, metrics
    finally:
        server.stop()
        function.close()


def sign_in(server):
    """sendVerificationCode + signInWithPhoneNumber for the test number, as Firebase's clients do."""
    status, sent, _ = server.post(SEND, {"phoneNumber": TEST_NUMBER})
    assert status == 200, sent
    return server.post(SIGN_IN, {"sessionInfo": sent["sessionInfo"], "code": TEST_CODE})


def test_a_before_create_refusal_answers_blocking_function_error_response_and_creates_no_user(tmp_path):
    function = FakeServer(default=Answer(403, {"error": {"status": "PERMISSION_DENIED",
                                                         "message": "Sign-up is by invitation."}}))
    server = start_server(tmp_path, engine={"sms": {"provider": "console"},
                                            "hooks": {"beforeCreate": {"url": function.url + "/beforeCreate"}}})
    try:
        status, body, _ = sign_in(server)
        assert status == 400, body
        code, detail = body["error"]["message"].split(" : ", 1)
        assert code == "BLOCKING_FUNCTION_ERROR_RESPONSE", body
        inner = json.loads(detail[detail.index("{"):])
        assert inner == {"error": {"message": "Sign-up is by invitation.", "status": "PERMISSION_DENIED"}}, detail
        [request] = function.requests
        event = jwt.decode(request.json()["data"]["jwt"], options={"verify_signature": False})
        assert event["event_type"] == "beforeCreate" and event["user_record"]["phone_number"] == TEST_NUMBER
        status, body, _ = server.admin("getUserByPhoneNumber", {"phoneNumber": TEST_NUMBER})
        assert body["error"]["code"] == "userNotFound", (status, body)
    finally:
        server.stop()
        function.close()


def test_before_sign_in_session_claims_reach_the_id_token(tmp_path):
    function = FakeServer(default=Answer(200, {"userRecord": {"updateMask": "sessionClaims",
                                                              "sessionClaims": {"device": "kiosk"}}}))
    server = start_server(tmp_path, engine={"sms": {"provider": "console"},
                                            "hooks": {"beforeSignIn": {"url": function.url + "/beforeSignIn"}}})
    try:
        status, signed, _ = sign_in(server)
        assert status == 200, signed
        assert verify_id_token(server, signed["idToken"])["device"] == "kiosk"
        assert function.count() == 1
        status, body, _ = server.admin("getUser", {"uid": signed["localId"]})
        assert status == 200 and body["user"]["customClaims"] is None, body  # session claims are not stored
    finally:
        server.stop()
        function.close()
