"""phoneauthd under bad input: each request gets a precise JSON error, and the server stays up
(GET /healthz answers 200 after each)."""

from __future__ import annotations

import datetime
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Tuple

from conftest import ADMIN_TOKEN, PROJECT, TEST_CODE, TEST_NUMBER, Server, start_server

V3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
SEND = V3 + "sendVerificationCode?key=k"
LOOKUP = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:lookup"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
REAL_NUMBER = "+16502530000"


def lower_headers(headers: Dict[str, str]) -> Dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


def assert_up(server: Server) -> None:
    status, body, _ = server.get("/healthz")
    assert status == 200, body
    assert body == {"status": "ok"}
    assert server.process.poll() is None


def assert_toolkit_error(answer: Tuple[int, Any, Dict[str, str]], status: int, message: str) -> Dict[str, Any]:
    """Identity Toolkit's error shape, its message (before the first colon) `message`."""
    got_status, body, headers = answer
    assert got_status == status, (got_status, body)
    assert lower_headers(headers)["content-type"].startswith("application/json"), headers
    assert isinstance(body, dict) and set(body) == {"error"}, body
    error = body["error"]
    assert error["code"] == status, body
    assert isinstance(error["message"], str) and error["message"].split(":", 1)[0].strip() == message, body
    assert isinstance(error["errors"], list) and error["errors"], body
    for item in error["errors"]:
        assert item["message"] == error["message"] and item["domain"] == "global" and item["reason"], body
    return error


def assert_engine_error(answer: Tuple[int, Any, Dict[str, str]], status: int, code: str, number: int) -> Dict[str, Any]:
    """The engine's error object, unchanged: {"error": {"code", "status", "message", "details"}}."""
    got_status, body, headers = answer
    assert got_status == status, (got_status, body)
    assert lower_headers(headers)["content-type"].startswith("application/json"), headers
    assert isinstance(body, dict) and set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "status", "message", "details"}, body
    assert error["code"] == code and error["status"] == number, body
    assert isinstance(error["message"], str) and error["message"], body
    assert isinstance(error["details"], dict), body
    return error


def rfc3339(text: str) -> datetime.datetime:
    assert text.endswith("Z"), text
    return datetime.datetime.fromisoformat(text[:-1] + "+00:00")


# ---- bodies --------------------------------------------------------------------------------------

def test_non_json_body(emulator):
    assert_toolkit_error(emulator.post(SEND, raw=b"phoneNumber=+16505551234"), 400, "INVALID_ARGUMENT")
    assert_up(emulator)
    assert_toolkit_error(emulator.post(SEND, raw=b'{"phoneNumber": "+1650'), 400, "INVALID_ARGUMENT")
    assert_up(emulator)


def test_invalid_utf8_body(emulator):
    assert_toolkit_error(emulator.post(SEND, raw=b'{"phoneNumber": "\xff\xfe"}'), 400, "INVALID_ARGUMENT")
    assert_up(emulator)


def test_json_array_body(emulator):
    assert_toolkit_error(emulator.post(SEND, raw=b'[{"phoneNumber": "+16505551234"}]'), 400, "INVALID_ARGUMENT")
    assert_up(emulator)


def test_json_scalar_bodies(emulator):
    for raw in (b'"+16505551234"', b"42", b"null", b"true"):
        assert_toolkit_error(emulator.post(SEND, raw=raw), 400, "INVALID_ARGUMENT")
    assert_up(emulator)


def test_deeply_nested_body(emulator):
    raw = b'{"phoneNumber": ' + b"[" * 10_000 + b"]" * 10_000 + b"}"
    assert_toolkit_error(emulator.post(SEND, raw=raw), 400, "INVALID_ARGUMENT")
    assert_up(emulator)


def test_body_over_the_limit_toolkit(tmp_path):
    server = start_server(tmp_path, server={"emulatorCompat": True, "maxBodyBytes": 2048})
    try:
        raw = ('{"phoneNumber": "' + TEST_NUMBER + '", "clientType": "' + "x" * 4096 + '"}').encode()
        assert len(raw) > 4096
        assert_toolkit_error(server.post(SEND, raw=raw), 413, "PAYLOAD_TOO_LARGE")
        assert_up(server)
        # A body under the limit on the same server is served.
        status, body, _ = server.post(SEND, {"phoneNumber": TEST_NUMBER, "clientType": "CLIENT_TYPE_IOS"})
        assert status == 200, body
    finally:
        server.stop()


def test_body_over_the_limit_own_method(tmp_path):
    server = start_server(tmp_path, server={"emulatorCompat": True, "maxBodyBytes": 2048})
    try:
        raw = ('{"phoneNumber": "' + TEST_NUMBER + '", "languageCode": "' + "x" * 4096 + '"}').encode()
        status, body, _ = server.post("/phoneauth/v1/verifyPhoneNumber", raw=raw)
        assert status == 413, body
        assert body["error"]["code"] == "invalidArgument" and body["error"]["status"] == 18000, body
        assert_up(server)
    finally:
        server.stop()


def test_wrong_type(emulator):
    error = assert_toolkit_error(emulator.post(SEND, {"phoneNumber": 5}), 400, "INVALID_ARGUMENT")
    assert "phoneNumber" in error["message"], error
    assert_up(emulator)


def test_wrong_type_nested(emulator):
    answer = emulator.post("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start?key=k",
                           {"idToken": "x", "phoneEnrollmentInfo": "+16505554321"})
    error = assert_toolkit_error(answer, 400, "INVALID_ARGUMENT")
    assert "phoneEnrollmentInfo" in error["message"], error
    assert_up(emulator)


def test_unknown_field(emulator):
    error = assert_toolkit_error(emulator.post(SEND, {"phoneNumber": TEST_NUMBER, "bogus": 1}), 400, "INVALID_ARGUMENT")
    assert "bogus" in error["message"], error
    assert_up(emulator)


def test_missing_phone_number(emulator):
    assert_toolkit_error(emulator.post(SEND, {}), 400, "MISSING_PHONE_NUMBER")
    assert_toolkit_error(emulator.post(SEND, {"phoneNumber": ""}), 400, "MISSING_PHONE_NUMBER")
    assert_up(emulator)


def test_invalid_phone_number(emulator):
    assert_toolkit_error(emulator.post(SEND, {"phoneNumber": "+1"}), 400, "INVALID_PHONE_NUMBER")
    assert_toolkit_error(emulator.post(SEND, {"phoneNumber": "not a number"}), 400, "INVALID_PHONE_NUMBER")
    assert_up(emulator)


def test_missing_code_and_session_info(emulator):
    path = V3 + "verifyPhoneNumber?key=k"
    assert_toolkit_error(emulator.post(path, {"code": TEST_CODE}), 400, "MISSING_SESSION_INFO")
    status, started, _ = emulator.post(SEND, {"phoneNumber": TEST_NUMBER})
    assert status == 200, started
    assert_toolkit_error(emulator.post(path, {"sessionInfo": started["sessionInfo"]}), 400, "MISSING_CODE")
    assert_up(emulator)


# ---- paths and methods ---------------------------------------------------------------------------

def test_unknown_paths(emulator):
    for path in ("/", "/nope", V3 + "nope?key=k", "/identitytoolkit.googleapis.com/v1/accounts:nope",
                 "/identitytoolkit.googleapis.com/v2/accounts/mfaNope:start", "/securetoken.googleapis.com/v2/token",
                 "/www.googleapis.com/identitytoolkit/v3/relyingparty/", "/phoneauth/v2/verifyPhoneNumber"):
        assert_toolkit_error(emulator.post(path, {}), 404, "NOT_FOUND")
        assert_toolkit_error(emulator.get(path), 404, "NOT_FOUND")
    assert_up(emulator)


def test_wrong_method_on_a_client_path(emulator):
    for method in ("GET", "PUT", "DELETE"):
        answer = emulator.request(method, SEND)
        assert_toolkit_error(answer, 405, "METHOD_NOT_ALLOWED")
        assert lower_headers(answer[2]).get("allow") == "POST", answer[2]
    assert_up(emulator)


def test_wrong_method_on_healthz_and_jwks(emulator):
    for path in ("/healthz", "/.well-known/jwks.json", "/metrics"):
        answer = emulator.post(path, {})
        assert_toolkit_error(answer, 405, "METHOD_NOT_ALLOWED")
        assert lower_headers(answer[2]).get("allow") == "GET", answer[2]
    assert_up(emulator)


def test_wrong_method_on_an_own_method(emulator):
    answer = emulator.get("/phoneauth/v1/verifyPhoneNumber")
    assert answer[0] == 405, answer
    assert lower_headers(answer[2]).get("allow") == "POST", answer[2]
    assert isinstance(answer[1], dict) and "error" in answer[1], answer
    assert_up(emulator)


def test_unknown_own_method(emulator):
    error = assert_engine_error(emulator.post("/phoneauth/v1/noSuchMethod", {}), 404, "unknownMethod", 18002)
    assert error["details"].get("method") == "noSuchMethod", error
    assert_up(emulator)


def test_admin_own_method_without_a_bearer(emulator):
    for headers in ({}, {"Authorization": ADMIN_TOKEN}, {"Authorization": f"Basic {ADMIN_TOKEN}"},
                    {"Authorization": "Bearer "}):
        answer = emulator.post("/phoneauth/v1/listUsers", {}, headers=headers)
        assert_engine_error(answer, 403, "insufficientPermission", 18008)
    assert_up(emulator)


def test_admin_own_method_with_a_wrong_bearer(emulator):
    for token in ("wrong-token-0123456789abcdef", ADMIN_TOKEN[:-1], ADMIN_TOKEN + "x", ADMIN_TOKEN.upper()):
        answer = emulator.post("/phoneauth/v1/listUsers", {}, headers={"Authorization": f"Bearer {token}"})
        assert_engine_error(answer, 403, "insufficientPermission", 18008)
    status, body, _ = emulator.post("/phoneauth/v1/listUsers", {}, headers=ADMIN)
    assert status == 200 and body["users"] == [], body
    assert_up(emulator)


def test_admin_toolkit_path_without_a_bearer(emulator):
    assert_toolkit_error(emulator.post(LOOKUP, {"localId": ["u1"]}), 403, "INSUFFICIENT_PERMISSION")
    answer = emulator.post(LOOKUP, {"localId": ["u1"]}, headers={"Authorization": "Bearer wrong-token-0123456789abcdef"})
    assert_toolkit_error(answer, 403, "INSUFFICIENT_PERMISSION")
    assert_up(emulator)


def test_admin_toolkit_path_with_a_wrong_project(emulator):
    path = "/identitytoolkit.googleapis.com/v1/projects/some-other-project/accounts:lookup"
    assert_toolkit_error(emulator.post(path, {"localId": ["u1"]}, headers=ADMIN), 404, "PROJECT_NOT_FOUND")
    assert_toolkit_error(emulator.post(path, {"localId": ["u1"]}), 404, "PROJECT_NOT_FOUND")
    # The right project with the bearer is served: no match leaves out `users`.
    status, body, _ = emulator.post(LOOKUP, {"localId": ["u1"]}, headers=ADMIN)
    assert status == 200 and "users" not in body, body
    assert_up(emulator)


# ---- concurrency ---------------------------------------------------------------------------------

def test_fifty_concurrent_requests_are_all_answered(emulator):
    count = 50
    barrier = threading.Barrier(count)

    def one(i: int):
        barrier.wait(timeout=30)
        if i % 2 == 0:
            return emulator.post(SEND, {"phoneNumber": TEST_NUMBER})
        return emulator.get("/healthz")

    with ThreadPoolExecutor(max_workers=count) as pool:
        answers = list(pool.map(one, range(count)))
    assert len(answers) == count
    for i, (status, body, _) in enumerate(answers):
        assert status == 200, (i, status, body)
    sessions = {body["sessionInfo"] for i, (_, body, _) in enumerate(answers) if i % 2 == 0}
    # Inside resendAfterSeconds the same number gets the same verification, however many ask at once.
    assert len(sessions) == 1, sessions
    status, signed_in, _ = emulator.post(V3 + "verifyPhoneNumber?key=k",
                                         {"sessionInfo": sessions.pop(), "code": TEST_CODE})
    assert status == 200 and signed_in["idToken"], signed_in
    assert_up(emulator)


def test_fifty_concurrent_bad_requests_leave_the_server_up(emulator):
    count = 50
    barrier = threading.Barrier(count)
    bodies = [b"{", b"[]", b'{"phoneNumber": 5}', b'{"bogus": 1}', b"\xff"]

    def one(i: int):
        barrier.wait(timeout=30)
        return emulator.post(SEND, raw=bodies[i % len(bodies)])

    with ThreadPoolExecutor(max_workers=count) as pool:
        answers = list(pool.map(one, range(count)))
    for status, body, _ in answers:
        assert status == 400, body
        assert body["error"]["code"] == 400, body
    assert_up(emulator)


# ---- /phoneauth/v1 -------------------------------------------------------------------------------

def test_own_verify_phone_number_answers_the_engine_result(emulator):
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    status, body, _ = emulator.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})
    assert status == 200, body
    assert set(body) == {"verificationId", "codeLength", "expiresAt", "resendAt"}, body
    assert isinstance(body["verificationId"], str) and body["verificationId"]
    assert body["codeLength"] == 6
    expires, resend = rfc3339(body["expiresAt"]), rfc3339(body["resendAt"])
    # The defaults: codeTtlSeconds 300, resendAfterSeconds 60.
    assert abs((expires - before).total_seconds() - 300) <= 5, body
    assert abs((resend - before).total_seconds() - 60) <= 5, body
    # Asked again inside the resend window: the same verification, exactly.
    status, again, _ = emulator.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})
    assert status == 200 and again == body, (again, body)
    # The engine's own next step takes the verification ID.
    status, signed_in, _ = emulator.post("/phoneauth/v1/signInWithCredential", {
        "credential": {"providerId": "phone", "verificationId": body["verificationId"], "verificationCode": TEST_CODE}})
    assert status == 200, signed_in
    assert signed_in["idToken"] and signed_in["user"]["phoneNumber"] == TEST_NUMBER, signed_in


def test_own_method_engine_error_keeps_the_engine_shape(emulator):
    error = assert_engine_error(emulator.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": "+1"}), 400,
                                "invalidPhoneNumber", 17042)
    assert "reason" in error["details"], error
    assert_up(emulator)


def test_own_method_bad_json_keeps_the_engine_shape(emulator):
    assert_engine_error(emulator.post("/phoneauth/v1/verifyPhoneNumber", raw=b"{"), 400, "invalidArgument", 18000)
    assert_engine_error(emulator.post("/phoneauth/v1/verifyPhoneNumber", raw=b"[]"), 400, "invalidArgument", 18000)
    error = assert_engine_error(emulator.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": TEST_NUMBER, "bogus": 1}),
                                400, "invalidArgument", 18000)
    assert "bogus" in error["message"] or error["details"].get("field") == "bogus", error
    assert_up(emulator)


def test_own_method_429_carries_retry_after(tmp_path):
    server = start_server(tmp_path, engine={"quotas": {"smsPerNumberPerHour": 1}, "resendAfterSeconds": 0},
                          server={"emulatorCompat": True})
    try:
        status, body, _ = server.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": REAL_NUMBER})
        assert status == 200, body
        answer = server.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": REAL_NUMBER})
        error = assert_engine_error(answer, 429, "tooManyRequests", 17010)
        headers = lower_headers(answer[2])
        assert "retry-after" in headers, answer[2]
        assert int(headers["retry-after"]) == error["details"]["retryAfterSeconds"], (headers, error)
        assert 0 < int(headers["retry-after"]) <= 3600
        assert_up(server)
    finally:
        server.stop()


def test_own_client_method_requires_the_api_key_when_configured(production):
    answer = production.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})
    assert_engine_error(answer, 400, "invalidApiKey", 18009)
    status, body, _ = production.post("/phoneauth/v1/verifyPhoneNumber?key=test-api-key", {"phoneNumber": TEST_NUMBER})
    assert status == 200 and body["verificationId"], body
    assert_up(production)
