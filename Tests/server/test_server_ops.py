"""phoneauthd as operators run it: configuration refusals, development mode off, client addresses
behind proxies, the push webhook, TLS, /metrics, the access log, SIGTERM, and the OpenAPI document."""

from __future__ import annotations

import json
import re
import signal
import socket
import ssl
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import ADMIN_TOKEN, HAS_TLS, PROJECT, TEST_CODE, TEST_NUMBER, needs_tls, run_server, start_server
from sms_servers import Answer, FakeServer, make_tls_files

V3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
CONSOLE = {"sms": {"provider": "console"}}


def sign_in(server, number=TEST_NUMBER, code=TEST_CODE, key="k"):
    status, sent, _ = server.post(f"{V3}/sendVerificationCode?key={key}", {"phoneNumber": number})
    assert status == 200, sent
    status, signed, _ = server.post(f"{V3}/verifyPhoneNumber?key={key}", {"sessionInfo": sent["sessionInfo"], "code": code})
    assert status == 200, signed
    return signed


@pytest.mark.parametrize("server_section, engine, key", [
    ({"emulatorCompat": True, "host": "0.0.0.0"}, {}, "server.emulatorCompat"),
    ({"adminTokens": ["short"]}, CONSOLE, "server.adminTokens"),
    ({"trustedProxies": ["10.0.0.0/33"]}, CONSOLE, "server.trustedProxies"),
    ({"bogus": 1}, CONSOLE, "bogus"),
    ({"tls": {"certificateFile": "/nonexistent.pem"}}, CONSOLE, "server.tls"),
    ({}, {}, "sms"),  # no provider outside development mode: codes would go nowhere
])
def test_bad_configurations_are_refused_at_start(tmp_path, server_section, engine, key):
    done = run_server(tmp_path, engine=engine, server=server_section)
    assert done.returncode == 1
    assert "invalidConfiguration" in done.stderr and key in done.stderr, done.stderr


def test_development_mode_is_unreachable_when_off(tmp_path):
    server = start_server(tmp_path, engine=CONSOLE)
    try:
        status, _, _ = server.get(f"/emulator/v1/projects/{PROJECT}/verificationCodes")
        assert status == 404
        status, body, _ = server.post(f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:lookup",
                                      {"localId": ["x"]}, headers={"Authorization": "Bearer owner"})
        assert status == 403 and body["error"]["message"].startswith("INSUFFICIENT_PERMISSION")
        status, _, _ = server.post("/phoneauth/v1/getUser", {"uid": "x"}, headers={"Authorization": "Bearer owner"})
        assert status == 403
        unsigned = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0." + "eyJ1aWQiOiJ4In0" + "."
        status, body, _ = server.post(f"{V3}/verifyCustomToken?key=k", {"token": unsigned, "returnSecureToken": True})
        assert status == 400 and body["error"]["message"].startswith("INVALID_CUSTOM_TOKEN")
        # The admin token works.
        status, body, _ = server.admin("listUsers", {})
        assert status == 200 and body["users"] == []
        # A master key never travels in a request.
        status, body, _ = server.admin("rekey", {"newMasterKey": "00" * 32})
        assert status == 403 and body["error"]["code"] == "operationNotAllowed"
    finally:
        server.stop()


def test_development_mode_keeps_codes_of_sent_messages(emulator):
    status, sent, _ = emulator.post(f"{V3}/sendVerificationCode?key=k", {"phoneNumber": "+16502530000"})
    assert status == 200
    status, codes, _ = emulator.get(f"/emulator/v1/projects/{PROJECT}/verificationCodes")
    assert status == 200
    [entry] = codes["verificationCodes"]
    assert entry["phoneNumber"] == "+16502530000" and entry["sessionInfo"] == sent["sessionInfo"]
    status, signed, _ = emulator.post(f"{V3}/verifyPhoneNumber?key=k", {"sessionInfo": sent["sessionInfo"], "code": entry["code"]})
    assert status == 200 and signed["phoneNumber"] == "+16502530000"


def access_log(server):
    return [json.loads(line) for line in server.stdout().splitlines()]


def wait_for_metric(server, line, timeout=30.0):
    """Returns once the metrics have `line` (an event the engine tells after the call answered)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status, text, _ = server.get("/metrics")
        if status == 200 and line in text.splitlines():
            return
        time.sleep(0.02)


def wait_for_log_lines(server, count, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lines = access_log(server)
        if len(lines) >= count:
            return lines
        time.sleep(0.02)
    raise AssertionError(f"{len(access_log(server))} access-log lines, expected {count}")


@pytest.mark.parametrize("trusted, forwarded, expected", [
    ([], "203.0.113.9", "127.0.0.1"),                          # not a trusted proxy: the socket's address
    (["127.0.0.1/32"], "203.0.113.9", "203.0.113.9"),
    (["127.0.0.0/8", "10.0.0.0/8"], "198.51.100.1, 203.0.113.9, 10.1.2.3", "203.0.113.9"),  # last untrusted hop
    (["127.0.0.1"], "not-an-address", "127.0.0.1"),
])
def test_client_address_believes_only_trusted_proxies(tmp_path, trusted, forwarded, expected):
    server = start_server(tmp_path, engine=CONSOLE, server={"trustedProxies": trusted})
    try:
        server.get("/healthz", headers={"X-Forwarded-For": forwarded})
        [line] = wait_for_log_lines(server, 1)
        assert line["clientIp"] == expected
    finally:
        server.stop()


def test_access_log_has_one_line_per_request_and_no_secrets(tmp_path):
    server = start_server(tmp_path, engine=CONSOLE)
    try:
        signed = sign_in(server)
        server.post(f"{V3}/getAccountInfo?key=k", {"idToken": signed["idToken"]})
        server.post("/securetoken.googleapis.com/v1/token?key=k", {"grantType": "refresh_token", "refreshToken": signed["refreshToken"]})
        lines = wait_for_log_lines(server, 4)
        assert [l["route"] for l in lines] == ["toolkit:sendVerificationCode", "toolkit:signInWithPhoneNumber", "toolkit:lookup", "toolkit:token"]
        assert all(l["status"] == 200 and l["method"] == "POST" and isinstance(l["ms"], int) for l in lines)
        everything = server.stdout() + server.stderr()
        for secret in (signed["idToken"], signed["refreshToken"], signed["refreshToken"].split(".")[-1], TEST_NUMBER, "key=k"):
            assert secret not in everything
    finally:
        server.stop()


def test_metrics_count_requests_sms_and_limits(tmp_path):
    receiver = FakeServer()
    receiver.answer(Answer(200, {"messageId": "m1"}))
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    server = start_server(tmp_path, engine={"sms": {"providers": [{"type": "webhook", "url": receiver.url, "secret": secret}]},
                                            "resendAfterSeconds": 0, "quotas": {"smsPerNumberPerHour": 1}})
    try:
        assert server.post(f"{V3}/sendVerificationCode?key=k", {"phoneNumber": "+16502530000"})[0] == 200
        receiver.wait_for_requests(1)
        status, body, headers = server.post(f"{V3}/sendVerificationCode?key=k", {"phoneNumber": "+16502530000"})
        assert status == 429 and "Retry-After" in headers
        # The codeSent event comes from the delivery thread once the outcome is stored: wait for it.
        wait_for_metric(server, "phoneauth_sms_sent_total 1")
        status, text, headers = server.get("/metrics")
        assert status == 200 and headers["Content-Type"].startswith("text/plain")
        assert re.search(r'phoneauth_http_requests_total\{[^}]*route="toolkit:sendVerificationCode"[^}]*status="200"[^}]*\} 1', text), text
        assert re.search(r'phoneauth_http_requests_total\{[^}]*status="429"[^}]*\} 1', text)
        assert 'phoneauth_http_request_duration_seconds_bucket{route="toolkit:sendVerificationCode"' in text
        assert re.search(r"phoneauth_sms_sent_total 1", text)
        assert re.search(r'phoneauth_limits_tripped_total\{limit="[^"]+"\} 1', text)
    finally:
        server.stop()
        receiver.close()


def test_verify_client_pushes_through_the_webhook_then_the_secret_sends_the_code(tmp_path):
    """The iOS SDK's production order: verifyClient -> silent push -> sendVerificationCode with
    iosReceipt and iosSecret. Without them the code is refused (a push path enforces app checks)."""
    pushes, sms = FakeServer(), FakeServer()
    for receiver in (pushes, sms):
        receiver.answer(Answer(200, {}))
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    engine = {"sms": {"providers": [{"type": "webhook", "url": sms.url, "secret": secret}]},
              "appVerification": {"pushWebhook": {"url": pushes.url, "secret": secret}}}
    server = start_server(tmp_path, engine=engine, server={"apiKeys": ["ios-key"]})
    try:
        status, body, _ = server.post(f"{V3}/sendVerificationCode?key=ios-key", {"phoneNumber": "+16502530000"})
        assert status == 400 and body["error"]["message"].startswith("MISSING_APP_CREDENTIAL")
        status, verified, _ = server.post(f"{V3}/verifyClient?key=ios-key", {"appToken": "a1b2c3", "isSandbox": True})
        assert status == 200 and verified["suggestedTimeout"] == "5"
        [push] = pushes.wait_for_requests(1)
        assert push.header("webhook-signature").startswith("v1,")
        sent = push.json()
        assert sent["appToken"] == "a1b2c3" and sent["tokenType"] == "sandbox"
        proof = sent["payload"]["phoneauth"]
        assert proof["receipt"] == verified["receipt"]
        status, wrong, _ = server.post(f"{V3}/sendVerificationCode?key=ios-key",
                                       {"phoneNumber": "+16502530000", "iosReceipt": proof["receipt"], "iosSecret": "x" * 43})
        assert status == 400 and wrong["error"]["message"].startswith("INVALID_APP_CREDENTIAL")
        status, again, _ = server.post(f"{V3}/verifyClient?key=ios-key", {"appToken": "a1b2c3", "isSandbox": True})
        proof = pushes.wait_for_requests(2)[1].json()["payload"]["phoneauth"]
        status, started, _ = server.post(f"{V3}/sendVerificationCode?key=ios-key",
                                         {"phoneNumber": "+16502530000", "iosReceipt": proof["receipt"], "iosSecret": proof["secret"]})
        assert status == 200, started
        code = re.search(r"\d{6}", sms.wait_for_requests(1)[0].json()["body"]).group()
        status, signed, _ = server.post(f"{V3}/verifyPhoneNumber?key=ios-key", {"sessionInfo": started["sessionInfo"], "code": code})
        assert status == 200 and signed["isNewUser"] is True
    finally:
        server.stop()
        pushes.close()
        sms.close()


def test_tls_without_the_trait_is_refused_by_name(tmp_path):
    """make test's build: a configuration asking for HTTPS is refused, and says how to get it."""
    if HAS_TLS:
        pytest.skip("this phoneauthd has the TLS trait")
    files = make_tls_files(tmp_path)
    run = run_server(tmp_path, engine=CONSOLE,
                     server={"tls": {"certificateFile": files["cert"], "privateKeyFile": files["key"]}})
    assert run.returncode == 1, run.stderr
    assert "built without the TLS trait" in run.stderr, run.stderr


@needs_tls
def test_tls(tmp_path):
    files = make_tls_files(tmp_path)
    server = start_server(tmp_path, engine=CONSOLE, server={"tls": {"certificateFile": files["cert"], "privateKeyFile": files["key"]}})
    try:
        assert server.url.startswith("https://")
        context = ssl.create_default_context(cafile=files["ca"])
        with urllib.request.urlopen(server.url + "/healthz", context=context, timeout=10) as answer:
            assert answer.status == 200 and json.load(answer) == {"status": "ok"}
    finally:
        server.stop()


def test_environment_overrides_the_file(tmp_path):
    other = "another-admin-token-0123456789"
    server = start_server(tmp_path, engine=CONSOLE, env={"PHONEAUTHD_ADMIN_TOKENS": f"{other}, spare-token-0123456789abc"})
    try:
        assert server.post("/phoneauth/v1/listUsers", {}, headers={"Authorization": f"Bearer {other}"})[0] == 200
        assert server.admin("listUsers", {})[0] == 403  # the file's token no longer counts
    finally:
        server.stop()


def wait_until_refused(server, timeout=30.0):
    """Returns once the server refuses new connections (its listener closed)."""
    host, port = server.host_port.rsplit(":", 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection((host, int(port)), timeout=5).close()
        except ConnectionRefusedError:
            return
        time.sleep(0.02)
    raise AssertionError("the server still accepts connections after SIGTERM")


def test_sigterm_finishes_requests_in_flight_then_closes(tmp_path):
    pushes = FakeServer()
    shutdown_begun = threading.Event()
    pushes.answer(Answer(200, {}, hold=shutdown_begun))  # the push keeps verifyClient in flight until then
    secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    server = start_server(tmp_path, engine={**CONSOLE, "appVerification": {"pushWebhook": {"url": pushes.url, "secret": secret}}})
    result = {}

    def slow_call():
        result["answer"] = server.post(f"{V3}/verifyClient?key=k", {"appToken": "t", "isSandbox": False})

    caller = threading.Thread(target=slow_call)
    caller.start()
    pushes.wait_for_requests(1)
    server.process.send_signal(signal.SIGTERM)
    wait_until_refused(server)  # the listener is closed: the shutdown has begun, the call still in flight
    shutdown_begun.set()
    caller.join(30)
    assert result["answer"][0] == 200 and "receipt" in result["answer"][1]
    assert server.process.wait(10) == 0
    assert '"stopped"' in server.stderr()
    pushes.close()
