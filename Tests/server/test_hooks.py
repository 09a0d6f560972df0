"""phoneauthd with a blocking hook over HTTP: a refusal reaches Firebase's clients as
BLOCKING_FUNCTION_ERROR_RESPONSE with the function's message, and PhoneAuth's own route as
blockingFunctionError."""

from __future__ import annotations

import json

from conftest import TEST_NUMBER, start_server
from sms_servers import Answer, FakeServer

SEND = "/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=k"


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
