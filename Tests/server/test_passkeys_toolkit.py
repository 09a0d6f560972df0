"""Passkeys over Identity Platform's v2 routes (passkeyEnrollment:start|finalize,
passkeySignIn:start|finalize), `deletePasskey` in accounts:update and `passkeyInfo` in lookups.
Each finalize is driven with Google's body (authenticatorRegistrationResponse {credentialId,
credentialType, authenticatorAttestationResponse {clientDataJson, ...}}) and with the browser's own
PublicKeyCredential JSON under the same field, bytes in standard base64 and in base64url; a
software authenticator makes the credentials."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, Optional

import pytest

from conftest import (ADMIN_TOKEN, PROJECT, ROOT, SECOND_CODE, SECOND_NUMBER, TEST_CODE, TEST_NUMBER, start_server,
                      write_config)
from passkey_authenticator import Authenticator
from sms_servers import Answer, FakeServer

RP_ID, ORIGIN = "login.example.com", "https://login.example.com"
V1 = "/identitytoolkit.googleapis.com/v1/accounts:{}?key=k"
V2 = "/identitytoolkit.googleapis.com/v2/accounts/{}?key=k"
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
PASSKEYS = {"rpId": RP_ID, "rpName": "Example", "origins": [ORIGIN]}
ENGINE = {"resendAfterSeconds": 0, "passkeys": PASSKEYS}
CLI = os.environ.get("PHONEAUTH_CLI") or str(ROOT / ".build" / "debug" / "phoneauth-cli")
ENCODINGS = ["base64", "base64url"]


@pytest.fixture
def server(tmp_path):
    running = start_server(tmp_path, engine=ENGINE, server={"emulatorCompat": True})
    yield running
    running.stop()


def authenticator() -> Authenticator:
    made = Authenticator(RP_ID, ORIGIN)
    # An ID whose standard base64 has "+", "/" and padding, so the two encodings differ.
    made.credential_id = b"\xfb\xff\xbf" + made.credential_id[3:]
    return made


def encode(data: bytes, encoding: str) -> str:
    return base64.b64encode(data).decode() if encoding == "base64" else base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def tenant_of(tenant: Optional[str]) -> Dict[str, str]:
    return {"tenantId": tenant} if tenant else {}


def path(name: str) -> str:
    return (V2 if "passkey" in name or "mfa" in name else V1).format(name)


def ok(server, name: str, body: Dict[str, Any]) -> Dict[str, Any]:
    status, answer, _ = server.post(path(name), body)
    assert status == 200, (name, answer)
    return answer


def refusal(server, name: str, body: Dict[str, Any]) -> str:
    status, answer, _ = server.post(path(name), body)
    assert status == 400, (name, answer)
    return answer["error"]["message"]


def claims(id_token: str) -> Dict[str, Any]:
    payload = id_token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def phone_sign_in(server, tenant: Optional[str] = None, number=TEST_NUMBER, code=TEST_CODE) -> Dict[str, Any]:
    sent = ok(server, "sendVerificationCode", {"phoneNumber": number, **tenant_of(tenant)})
    return ok(server, "signInWithPhoneNumber", {"sessionInfo": sent["sessionInfo"], "code": code, **tenant_of(tenant)})


def google_registration(made: Authenticator, encoding: str) -> Dict[str, Any]:
    return {"credentialId": encode(made.credential_id, encoding), "credentialType": "PUBLIC_KEY",
            "authenticatorAttestationResponse": {"clientDataJson": encode(made.last["clientData"], encoding),
                                                 "attestationObject": encode(made.last["attestationObject"], encoding),
                                                 "transports": ["internal"]}}


def google_assertion(made: Authenticator, encoding: str) -> Dict[str, Any]:
    parts = {"clientDataJson": "clientData", "authenticatorData": "authenticatorData", "signature": "signature",
             "userHandle": "userHandle"}
    return {"credentialId": encode(made.credential_id, encoding), "credentialType": "PUBLIC_KEY",
            "authenticatorAssertionResponse": {ours: encode(made.last[raw], encoding) for ours, raw in parts.items()}}


def browser_json(credential: Dict[str, Any], encoding: str) -> Dict[str, Any]:
    """The browser's JSON with its byte fields in `encoding` (standard base64: padded, "+" and "/")."""
    def again(text: str) -> str:
        return encode(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), encoding)
    response = {k: (again(v) if isinstance(v, str) else v) for k, v in credential["response"].items()}
    return {**credential, "id": again(credential["id"]), "rawId": again(credential["rawId"]), "response": response}


def enrol(server, id_token: str, made: Authenticator, shape: str = "google", encoding: str = "base64url",
          tenant: Optional[str] = None, **extra: Any) -> Dict[str, Any]:
    started = ok(server, "passkeyEnrollment:start", {"idToken": id_token, **tenant_of(tenant)})
    made_json = made.create(started["credentialCreationOptions"])
    given = google_registration(made, encoding) if shape == "google" else browser_json(made_json, encoding)
    return ok(server, "passkeyEnrollment:finalize",
              {"idToken": id_token, "authenticatorRegistrationResponse": given, **tenant_of(tenant), **extra})


def assertion(server, made: Authenticator, shape: str = "google", encoding: str = "base64url",
              tenant: Optional[str] = None) -> Dict[str, Any]:
    started = ok(server, "passkeySignIn:start", {**tenant_of(tenant)})
    made_json = made.get(started["credentialRequestOptions"])
    given = google_assertion(made, encoding) if shape == "google" else browser_json(made_json, encoding)
    return {"authenticatorAuthenticationResponse": given, **tenant_of(tenant)}


def lookup(server, id_token: str) -> Dict[str, Any]:
    return ok(server, "lookup", {"idToken": id_token})["users"][0]


@pytest.mark.parametrize("shape", ["google", "browser"])
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_a_passkey_enrolled_after_an_sms_sign_in_signs_in_as_the_same_uid(server, shape, encoding):
    phone = phone_sign_in(server)
    started = ok(server, "passkeyEnrollment:start", {"idToken": phone["idToken"]})
    options = started["credentialCreationOptions"]
    assert options["rp"] == {"id": RP_ID, "name": "Example"}
    assert options["user"]["id"] and options["user"]["name"] and options["challenge"]
    assert {"alg": "-7", "credentialType": "PUBLIC_KEY"} in options["pubKeyCredParams"]
    assert all(isinstance(p["alg"], str) for p in options["pubKeyCredParams"])
    assert options["authenticatorSelection"]["requireResidentKey"] is True
    assert options.get("excludeCredentials", []) == []

    made = authenticator()
    enrolled = enrol(server, phone["idToken"], made, shape, encoding, name="Laptop")
    assert set(enrolled) == {"idToken", "refreshToken"}
    assert claims(enrolled["idToken"])["sub"] == phone["localId"]
    user = lookup(server, enrolled["idToken"])
    assert [(p["credentialId"], p["displayName"]) for p in user["passkeyInfo"]] == [(made.id, "Laptop")]
    excluded = ok(server, "passkeyEnrollment:start", {"idToken": enrolled["idToken"]})
    assert excluded["credentialCreationOptions"]["excludeCredentials"] == [
        {"credentialId": made.id, "credentialType": "PUBLIC_KEY"}]

    started = ok(server, "passkeySignIn:start", {"sessionId": "the app's own session"})
    request = started["credentialRequestOptions"]
    assert request["rpId"] == RP_ID and request["challenge"] and request["userVerification"]
    made_json = made.get(request)
    given = google_assertion(made, encoding) if shape == "google" else browser_json(made_json, encoding)
    signed = ok(server, "passkeySignIn:finalize", {"authenticatorAuthenticationResponse": given})
    assert signed["localId"] == phone["localId"] and signed["refreshToken"]
    assert claims(signed["idToken"])["firebase"]["sign_in_provider"] == "passkey"
    refreshed = server.post("/securetoken.googleapis.com/v1/token?key=k",
                            {"grantType": "refresh_token", "refreshToken": signed["refreshToken"]})
    assert refreshed[0] == 200 and refreshed[1]["user_id"] == phone["localId"]


def test_deleted_through_accounts_update_the_passkey_signs_no_one_in(server):
    phone = phone_sign_in(server)
    made = authenticator()
    enrolled = enrol(server, phone["idToken"], made)
    kept = authenticator()
    enrolled = enrol(server, enrolled["idToken"], kept, shape="browser")
    # Google's credential IDs may come in standard base64 too.
    updated = ok(server, "update", {"idToken": enrolled["idToken"], "deletePasskey": [encode(made.credential_id, "base64")]})
    assert updated["localId"] == phone["localId"]
    assert [p["credentialId"] for p in lookup(server, enrolled["idToken"])["passkeyInfo"]] == [kept.id]
    message = refusal(server, "passkeySignIn:finalize", assertion(server, made))
    assert message.startswith("INVALID_PASSKEY : ") and "unknownCredential" in message
    assert ok(server, "passkeySignIn:finalize", assertion(server, kept))["localId"] == phone["localId"]
    # Deleting one that is not the user's is refused as an unknown one.
    message = refusal(server, "update", {"idToken": enrolled["idToken"], "deletePasskey": [made.id]})
    assert message.startswith("INVALID_PASSKEY : ") and "unknownCredential" in message
    # A refused list removes nothing, not even the user's own passkey before the unknown one.
    refusal(server, "update", {"idToken": enrolled["idToken"], "deletePasskey": [kept.id, made.id]})
    assert [p["credentialId"] for p in lookup(server, enrolled["idToken"])["passkeyInfo"]] == [kept.id]
    assert refusal(server, "update", {"idToken": enrolled["idToken"], "deletePasskey": made.id}).startswith(
        "INVALID_ARGUMENT : The field 'deletePasskey'")


def test_refusals_name_the_reason_or_the_field(server):
    phone = phone_sign_in(server)
    made = authenticator()
    enrolled = enrol(server, phone["idToken"], made)
    body = assertion(server, made)
    assert ok(server, "passkeySignIn:finalize", body)["localId"] == phone["localId"]
    replayed = refusal(server, "passkeySignIn:finalize", body)
    assert replayed.startswith("INVALID_PASSKEY : ") and "wrongChallenge" in replayed

    token = enrolled["idToken"]
    started = ok(server, "passkeyEnrollment:start", {"idToken": token})
    other = authenticator()
    other.create(started["credentialCreationOptions"])
    good = google_registration(other, "base64url")
    field = "authenticatorRegistrationResponse"
    cases = [
        ({"idToken": token}, f"'{field}' is required"),
        ({"idToken": token, field: "text"}, f"'{field}' must be an object"),
        ({"idToken": token, field: {**good, "credentialType": "SECRET"}}, f"'{field}.credentialType'"),
        ({"idToken": token, field: {k: v for k, v in good.items() if k != "credentialId"}}, f"'{field}.credentialId'"),
        ({"idToken": token, field: {**good, "authenticatorAttestationResponse": {
            **good["authenticatorAttestationResponse"], "clientDataJson": "not base64!"}}},
         f"'{field}.authenticatorAttestationResponse.clientDataJson'"),
        ({"idToken": token, field: {**good, "extra": 1}}, f"'{field}.extra'"),
        ({"idToken": token, field: good, "unknownField": 1}, "'unknownField'"),
        ({"idToken": token, field: {"id": other.id, "type": "public-key"}}, f"'{field}.response'"),
    ]
    for body, named in cases:
        message = refusal(server, "passkeyEnrollment:finalize", body)
        assert message.startswith("INVALID_ARGUMENT : ") and named in message, (body, message)
    # The browser's assertion without its signature names the browser's field.
    browser = assertion(server, made, shape="browser")
    del browser["authenticatorAuthenticationResponse"]["response"]["signature"]
    message = refusal(server, "passkeySignIn:finalize", browser)
    assert "'authenticatorAuthenticationResponse.response.signature'" in message, message
    # The valid registration is still accepted after all of that.
    finished = ok(server, "passkeyEnrollment:finalize", {"idToken": token, field: good})
    assert claims(finished["idToken"])["sub"] == phone["localId"]


def test_a_tenants_passkey_signs_in_to_that_tenant_only(server):
    number, code = "+16505550100", "111111"  # a test number of the tenant's only
    status, tenant, _ = server.post(f"/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/tenants",
                                    {"displayName": "Acme", "testPhoneNumbers": {number: code}}, headers=ADMIN)
    assert status == 200, tenant
    tenant_id = tenant["name"].rsplit("/", 1)[1]
    phone = phone_sign_in(server, tenant_id, number, code)
    made = authenticator()
    enrol(server, phone["idToken"], made, shape="browser", tenant=tenant_id)
    signed = ok(server, "passkeySignIn:finalize", assertion(server, made, tenant=tenant_id))
    assert signed["localId"] == phone["localId"]
    assert claims(signed["idToken"])["firebase"]["tenant"] == tenant_id
    message = refusal(server, "passkeySignIn:finalize", assertion(server, made))
    assert message.startswith("INVALID_PASSKEY : ") and "unknownCredential" in message
    assert refusal(server, "passkeySignIn:start", {"tenantId": "no-such-tenant"}).startswith("INVALID_TENANT_ID")


def test_a_user_with_a_second_factor_gets_the_pending_credential_and_finishes_with_it(server):
    phone = phone_sign_in(server)
    made = authenticator()
    enrolled = enrol(server, phone["idToken"], made)
    started = ok(server, "mfaEnrollment:start",
                 {"idToken": enrolled["idToken"], "phoneEnrollmentInfo": {"phoneNumber": SECOND_NUMBER}})
    ok(server, "mfaEnrollment:finalize", {"idToken": enrolled["idToken"], "phoneVerificationInfo": {
        "sessionInfo": started["phoneSessionInfo"]["sessionInfo"], "code": SECOND_CODE}})

    pending = ok(server, "passkeySignIn:finalize", assertion(server, made))
    assert "idToken" not in pending and pending["mfaPendingCredential"]
    hint = pending["mfaInfo"][0]
    sent = ok(server, "mfaSignIn:start", {"mfaPendingCredential": pending["mfaPendingCredential"],
                                          "mfaEnrollmentId": hint["mfaEnrollmentId"],
                                          "phoneSignInInfo": {"phoneNumber": hint["phoneInfo"]}})
    done = ok(server, "mfaSignIn:finalize", {"mfaPendingCredential": pending["mfaPendingCredential"],
                                             "phoneVerificationInfo": {
                                                 "sessionInfo": sent["phoneResponseInfo"]["sessionInfo"],
                                                 "code": SECOND_CODE}})
    assert claims(done["idToken"])["sub"] == phone["localId"]


def test_without_the_setting_passkeys_are_not_allowed(emulator):
    phone = phone_sign_in(emulator)
    for name, body in [("passkeyEnrollment:start", {"idToken": phone["idToken"]}), ("passkeySignIn:start", {})]:
        status, answer, _ = emulator.post(V2.format(name), body)
        assert status >= 400 and answer["error"]["message"].startswith("OPERATION_NOT_ALLOWED"), answer


@pytest.mark.skipif(not Path(CLI).exists(), reason="the phoneauth command is not built")
def test_the_command_shows_a_users_passkeys(server, tmp_path):
    phone = phone_sign_in(server)
    made = authenticator()
    enrol(server, phone["idToken"], made, name="Work laptop")
    config = write_config(tmp_path, ENGINE, {})
    shown = subprocess.run([CLI, "users", "get", phone["localId"], "--config", str(config)], capture_output=True,
                           text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    line = next(line for line in shown.stdout.splitlines() if line.startswith("passkey"))
    assert "Work laptop" in line and made.id in line and "last used -" in line


def test_before_sign_in_judges_a_passkey_sign_in(tmp_path):
    """A beforeSignIn function over HTTP is asked about a passkey sign-in (sign_in_method passkey)
    and its refusal reaches the client as BLOCKING_FUNCTION_ERROR_RESPONSE; its session claims
    reach the ID token of one it lets through."""
    methods = []

    def judge(request):
        event = json.loads(base64.urlsafe_b64decode(request.json()["data"]["jwt"].split(".")[1] + "=="))
        methods.append(event["sign_in_method"])
        if event["sign_in_method"] == "passkey" and methods.count("passkey") == 1:
            return Answer(403, {"error": {"status": "PERMISSION_DENIED", "message": "Not from there."}})
        return Answer(200, {"userRecord": {"updateMask": "sessionClaims", "sessionClaims": {"via": "hook"}}})

    function = FakeServer(default=judge)
    server = start_server(tmp_path, engine={**ENGINE, "hooks": {"beforeSignIn": {"url": function.url + "/hook"}}},
                          server={"emulatorCompat": True})
    try:
        phone = phone_sign_in(server)
        made = authenticator()
        enrol(server, phone["idToken"], made)
        message = refusal(server, "passkeySignIn:finalize", assertion(server, made))
        assert message.startswith("BLOCKING_FUNCTION_ERROR_RESPONSE : ") and "Not from there." in message
        signed = ok(server, "passkeySignIn:finalize", assertion(server, made))
        assert signed["localId"] == phone["localId"] and claims(signed["idToken"])["via"] == "hook"
        assert methods.count("passkey") == 2, methods
    finally:
        server.stop()
        function.close()


def test_over_the_limit_per_user_is_quota_exceeded(tmp_path):
    server = start_server(tmp_path, engine={**ENGINE, "passkeys": {**PASSKEYS, "maxPerUser": 1}},
                          server={"emulatorCompat": True})
    try:
        phone = phone_sign_in(server)
        enrolled = enrol(server, phone["idToken"], authenticator())
        status, answer, _ = server.post(path("passkeyEnrollment:start"), {"idToken": enrolled["idToken"]})
        assert status == 429 and answer["error"]["message"].startswith("QUOTA_EXCEEDED"), answer
    finally:
        server.stop()
