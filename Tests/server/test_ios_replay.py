"""phoneauthd as the Firebase iOS SDK sees it after `Auth.auth().useEmulator(withHost:port:)`.

`IOSClient` replays the SDK's requests: the same paths (Google's host kept as the first path
segment, `?key=` on every call), the same JSON field names, the same headers; each test then
checks every response field the SDK reads (see IDENTITY-TOOLKIT.md). Every ID token is verified
against the server's JWKS, as a backend would verify it.
"""

from __future__ import annotations

import re
import time
import urllib.parse
from typing import Any, Dict, Optional, Tuple

import jwt
import pytest

from conftest import (ADMIN_TOKEN, ISSUER, PROJECT, SECOND_CODE, SECOND_NUMBER, TEST_CODE, TEST_NUMBER, Server,
                      start_server)

API_KEY = "test-api-key"
# Numbers libphonenumber takes as valid US numbers (FIXED_LINE_OR_MOBILE), not test numbers: real SMS.
REAL_NUMBER = "+16502530000"
OTHER_REAL_NUMBER = "+14155550123"
WEBHOOK_SECRET = "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


class IOSClient:
    """The requests FirebaseAuth (iOS) sends, byte for byte in paths and field names."""

    V3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
    V2 = "/identitytoolkit.googleapis.com/v2/"
    TOKEN = "/securetoken.googleapis.com/v1/token"

    def __init__(self, server: Server, key: Optional[str] = "any-key", locale: Optional[str] = None):
        self.server, self.key, self.locale = server, key, locale

    def _headers(self) -> Dict[str, str]:
        headers = {"X-Client-Version": "iOS/FirebaseSDK/11.5.0/FirebaseCore-iOS",
                   "X-Ios-Bundle-Identifier": "com.example.phoneauth"}
        if self.locale:
            headers["X-Firebase-Locale"] = self.locale
        return headers

    def _query(self) -> str:
        return "" if self.key is None else "?key=" + urllib.parse.quote(self.key)

    def relyingparty(self, name: str, body: Dict[str, Any]) -> Tuple[int, Any, Dict[str, str]]:
        return self.server.post(self.V3 + name + self._query(), body, headers=self._headers())

    def v2(self, endpoint: str, body: Dict[str, Any]) -> Tuple[int, Any, Dict[str, str]]:
        return self.server.post(self.V2 + endpoint + self._query(), body, headers=self._headers())

    # The SDK's calls, one method each.

    def send_verification_code(self, phone: str):
        return self.relyingparty("sendVerificationCode", {"phoneNumber": phone, "clientType": "CLIENT_TYPE_IOS"})

    def verify_phone_number(self, session_info: str, code: str, id_token: Optional[str] = None,
                            operation: str = "SIGN_UP_OR_IN"):
        body: Dict[str, Any] = {"sessionInfo": session_info, "code": code}
        if id_token is not None:
            body["idToken"] = id_token
        body["operation"] = operation
        return self.relyingparty("verifyPhoneNumber", body)

    def verify_temporary_proof(self, proof: str, phone: str):
        return self.relyingparty("verifyPhoneNumber",
                                 {"temporaryProof": proof, "phoneNumber": phone, "operation": "SIGN_UP_OR_IN"})

    def get_account_info(self, id_token: str):
        return self.relyingparty("getAccountInfo", {"idToken": id_token})

    def verify_custom_token(self, token: str):
        return self.relyingparty("verifyCustomToken", {"token": token, "returnSecureToken": True})

    def verify_client(self, app_token: str):
        return self.relyingparty("verifyClient", {"appToken": app_token, "isSandbox": True})

    def refresh(self, refresh_token: str):
        return self.server.post(self.TOKEN + self._query(), {"grantType": "refresh_token", "refreshToken": refresh_token},
                                headers=self._headers())

    def refresh_form(self, refresh_token: str):
        form = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": refresh_token}).encode()
        return self.server.request("POST", self.TOKEN + self._query(), raw=form,
                                   headers={**self._headers(), "Content-Type": "application/x-www-form-urlencoded"})

    def mfa_enrollment_start(self, id_token: str, phone: str):
        return self.v2("accounts/mfaEnrollment:start", {"idToken": id_token, "phoneEnrollmentInfo": {"phoneNumber": phone}})

    def mfa_enrollment_finalize(self, id_token: str, session_info: str, code: str, display_name: str):
        return self.v2("accounts/mfaEnrollment:finalize",
                       {"idToken": id_token, "displayName": display_name,
                        "phoneVerificationInfo": {"sessionInfo": session_info, "code": code}})

    def mfa_enrollment_withdraw(self, id_token: str, enrollment_id: str):
        return self.v2("accounts/mfaEnrollment:withdraw", {"idToken": id_token, "mfaEnrollmentId": enrollment_id})

    def mfa_sign_in_start(self, pending: str, enrollment_id: str, hint_phone: str):
        return self.v2("accounts/mfaSignIn:start", {"mfaPendingCredential": pending, "mfaEnrollmentId": enrollment_id,
                                                    "phoneSignInInfo": {"phoneNumber": hint_phone}})

    def mfa_sign_in_finalize(self, pending: str, session_info: str, code: str):
        return self.v2("accounts/mfaSignIn:finalize",
                       {"mfaPendingCredential": pending,
                        "phoneVerificationInfo": {"sessionInfo": session_info, "code": code}})

    # Sequences.

    def start(self, phone: str) -> str:
        status, body, _ = self.send_verification_code(phone)
        assert status == 200, body
        assert isinstance(body, dict) and isinstance(body.get("sessionInfo"), str) and body["sessionInfo"], body
        return body["sessionInfo"]

    def sign_in(self, phone: str, code: str) -> Dict[str, Any]:
        status, body, _ = self.verify_phone_number(self.start(phone), code)
        assert status == 200, body
        return body


# ---- helpers ------------------------------------------------------------------------------------

def verify_id_token(server: Server, token: str) -> Dict[str, Any]:
    """The token's claims, after checking its ES256 signature against GET /.well-known/jwks.json,
    its audience, issuer and times, and the claims the iOS SDK reads."""
    status, jwks, _ = server.get("/.well-known/jwks.json")
    assert status == 200, jwks
    kid = jwt.get_unverified_header(token).get("kid")
    matching = [k for k in jwks["keys"] if k.get("kid") == kid]
    assert len(matching) == 1, f"kid {kid!r} not in the JWKS {jwks}"
    key = jwt.PyJWK(matching[0])
    claims = jwt.decode(token, key.key, algorithms=["ES256"], audience=PROJECT, issuer=ISSUER,
                        options={"require": ["exp", "iat", "auth_time", "sub", "iss", "aud"]})
    assert isinstance(claims["exp"], int) and isinstance(claims["iat"], int) and isinstance(claims["auth_time"], int)
    assert claims["iat"] <= claims["exp"] and claims["auth_time"] <= claims["iat"]
    assert claims["sub"] and len(claims["sub"]) <= 128
    assert claims["firebase"]["sign_in_provider"] == "phone", claims
    return claims


def assert_toolkit_error(answer: Tuple[int, Any, Dict[str, str]], status: int, *messages: str) -> Dict[str, Any]:
    """An Identity Toolkit error: the HTTP status, the body {"error": {"code", "message", "errors"}},
    and the message (before the first colon, as the SDKs split it) one of `messages`."""
    got_status, body, _ = answer
    assert got_status == status, (got_status, body)
    assert isinstance(body, dict) and set(body) == {"error"}, body
    error = body["error"]
    assert error["code"] == status, body
    assert isinstance(error["message"], str) and error["message"], body
    if messages:
        assert error["message"].split(":", 1)[0].strip() in messages, body
    assert isinstance(error["errors"], list) and len(error["errors"]) >= 1, body
    for item in error["errors"]:
        assert isinstance(item["message"], str) and item["message"], body
        assert item["domain"] == "global", body
        assert isinstance(item["reason"], str) and item["reason"], body
    return error


def assert_sign_in(server: Server, body: Dict[str, Any], phone: str, new_user: bool) -> Dict[str, Any]:
    """A completed verifyPhoneNumber: every field the SDK reads, and a valid ID token."""
    assert isinstance(body["idToken"], str) and body["idToken"], body
    assert isinstance(body["refreshToken"], str) and body["refreshToken"], body
    assert body["expiresIn"] == "3600", body
    assert isinstance(body["localId"], str) and body["localId"], body
    assert body["isNewUser"] is new_user, body
    assert body["phoneNumber"] == phone, body
    claims = verify_id_token(server, body["idToken"])
    assert claims["sub"] == body["localId"]
    assert claims["user_id"] == body["localId"]
    assert claims["phone_number"] == phone
    assert claims["firebase"]["identities"]["phone"] == [phone]
    return claims


def assert_tokens_only(server: Server, body: Dict[str, Any]) -> Dict[str, Any]:
    """The multi-factor endpoints' answer: idToken and refreshToken, no expiresIn."""
    assert isinstance(body.get("idToken"), str) and body["idToken"], body
    assert isinstance(body.get("refreshToken"), str) and body["refreshToken"], body
    assert "expiresIn" not in body, body
    return verify_id_token(server, body["idToken"])


def assert_refreshed(server: Server, answer: Tuple[int, Any, Dict[str, str]], uid: str) -> Dict[str, Any]:
    status, body, _ = answer
    assert status == 200, body
    assert isinstance(body["access_token"], str) and body["access_token"], body
    assert body["access_token"] == body["id_token"], body
    assert isinstance(body["refresh_token"], str) and body["refresh_token"], body
    assert isinstance(body["expires_in"], str) and body["expires_in"] == "3600", body
    assert body["token_type"] == "Bearer", body
    assert body["user_id"] == uid, body
    assert body["project_id"] == PROJECT, body
    claims = verify_id_token(server, body["id_token"])
    assert claims["sub"] == uid
    return body


def admin(server: Server, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
    status, body, _ = server.post(f"/phoneauth/v1/{method}", params, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert status == 200, body
    return body


def custom_token_user(server: Server, client: IOSClient, uid: str) -> Dict[str, Any]:
    """A user without a phone number, signed in with a custom token."""
    token = admin(server, "createCustomToken", {"uid": uid})["customToken"]
    status, body, _ = client.verify_custom_token(token)
    assert status == 200, body
    assert body["localId"] == uid and body["idToken"] and body["refreshToken"], body
    assert "phoneNumber" not in body, body
    return body


def code_in(message: Dict[str, Any]) -> str:
    runs = re.findall(r"\d{6}", message["body"])
    assert len(runs) == 1, message
    return runs[0]


def start_webhook_server(tmp_path, engine: Optional[Dict[str, Any]] = None):
    """Like the `production` fixture, with more engine settings: (server, receiver)."""
    from sms_servers import Answer, FakeServer

    receiver = FakeServer()
    receiver.answer(Answer(200, {"messageId": "m1"}))
    settings = {"sms": {"providers": [{"type": "webhook", "url": receiver.url, "secret": WEBHOOK_SECRET}]}}
    settings.update(engine or {})
    try:
        server = start_server(tmp_path, engine=settings, server={"apiKeys": [API_KEY]})
    except BaseException:
        receiver.close()
        raise
    return server, receiver


def enrolled_user(server: Server, client: IOSClient) -> Tuple[Dict[str, Any], str]:
    """A user signed in by TEST_NUMBER with SECOND_NUMBER enrolled as its second factor:
    (the first sign-in's answer, the enrollment ID)."""
    first = client.sign_in(TEST_NUMBER, TEST_CODE)
    status, started, _ = client.mfa_enrollment_start(first["idToken"], SECOND_NUMBER)
    assert status == 200, started
    status, finished, _ = client.mfa_enrollment_finalize(first["idToken"], started["phoneSessionInfo"]["sessionInfo"],
                                                         SECOND_CODE, "work phone")
    assert status == 200, finished
    status, account, _ = client.get_account_info(finished["idToken"])
    assert status == 200, account
    return first, account["users"][0]["mfaInfo"][0]["mfaEnrollmentId"]


# ---- the first factor ---------------------------------------------------------------------------

def test_send_verification_code_answers_session_info(emulator):
    status, body, _ = IOSClient(emulator).send_verification_code(TEST_NUMBER)
    assert status == 200, body
    assert isinstance(body["sessionInfo"], str) and len(body["sessionInfo"]) >= 16, body


def test_verify_phone_number_signs_up_then_signs_in(emulator):
    client = IOSClient(emulator, locale="fr")
    first = client.sign_in(TEST_NUMBER, TEST_CODE)
    assert_sign_in(emulator, first, TEST_NUMBER, new_user=True)
    second = client.sign_in(TEST_NUMBER, TEST_CODE)
    assert_sign_in(emulator, second, TEST_NUMBER, new_user=False)
    assert second["localId"] == first["localId"]
    assert second["idToken"] != first["idToken"] and second["refreshToken"] != first["refreshToken"]


def test_get_account_info_answers_exactly_one_user(emulator):
    client = IOSClient(emulator)
    signed_in = client.sign_in(TEST_NUMBER, TEST_CODE)
    before = int(time.time() * 1000)
    status, body, _ = client.get_account_info(signed_in["idToken"])
    assert status == 200, body
    assert isinstance(body["users"], list) and len(body["users"]) == 1, body
    user = body["users"][0]
    assert user["localId"] == signed_in["localId"]
    assert user["phoneNumber"] == TEST_NUMBER
    for key in ("createdAt", "lastLoginAt"):
        assert isinstance(user[key], str) and user[key].isdigit(), user
        assert abs(int(user[key]) - before) < 60_000, user  # milliseconds, not seconds
    assert int(user["createdAt"]) <= int(user["lastLoginAt"])
    assert user["providerUserInfo"][0] == {"providerId": "phone", "rawId": TEST_NUMBER, "phoneNumber": TEST_NUMBER}
    assert "mfaInfo" not in user or user["mfaInfo"] == []


def test_refresh_as_json(emulator):
    client = IOSClient(emulator)
    signed_in = client.sign_in(TEST_NUMBER, TEST_CODE)
    body = assert_refreshed(emulator, client.refresh(signed_in["refreshToken"]), signed_in["localId"])
    # The rotated refresh token refreshes again.
    assert_refreshed(emulator, client.refresh(body["refresh_token"]), signed_in["localId"])


def test_refresh_as_form(emulator):
    client = IOSClient(emulator)
    signed_in = client.sign_in(TEST_NUMBER, TEST_CODE)
    body = assert_refreshed(emulator, client.refresh_form(signed_in["refreshToken"]), signed_in["localId"])
    assert_refreshed(emulator, client.refresh_form(body["refresh_token"]), signed_in["localId"])


def test_refresh_with_a_garbage_token_is_refused(emulator):
    assert_toolkit_error(IOSClient(emulator).refresh("not-a-refresh-token"), 400, "INVALID_REFRESH_TOKEN")


# ---- multi-factor --------------------------------------------------------------------------------

def test_multi_factor_enrol_sign_in_and_withdraw(emulator):
    client = IOSClient(emulator)
    first = client.sign_in(TEST_NUMBER, TEST_CODE)
    uid = first["localId"]

    # Enrolment.
    status, started, _ = client.mfa_enrollment_start(first["idToken"], SECOND_NUMBER)
    assert status == 200, started
    session_info = started["phoneSessionInfo"]["sessionInfo"]
    assert isinstance(session_info, str) and session_info
    status, finished, _ = client.mfa_enrollment_finalize(first["idToken"], session_info, SECOND_CODE, "work phone")
    assert status == 200, finished
    claims = assert_tokens_only(emulator, finished)
    assert claims["sub"] == uid

    # As the SDK does next: refresh, then look the account up.
    refreshed = assert_refreshed(emulator, client.refresh(finished["refreshToken"]), uid)
    status, account, _ = client.get_account_info(refreshed["id_token"])
    assert status == 200, account
    factors = account["users"][0]["mfaInfo"]
    assert len(factors) == 1, factors
    enrollment_id = factors[0]["mfaEnrollmentId"]
    assert isinstance(enrollment_id, str) and enrollment_id
    assert factors[0]["phoneInfo"] == SECOND_NUMBER
    assert factors[0]["displayName"] == "work phone"

    # The first factor alone now answers the pending credential and masked hints, no tokens.
    status, pending, _ = client.verify_phone_number(client.start(TEST_NUMBER), TEST_CODE)
    assert status == 200, pending
    assert "idToken" not in pending and "refreshToken" not in pending, pending
    assert isinstance(pending["mfaPendingCredential"], str) and pending["mfaPendingCredential"], pending
    assert len(pending["mfaInfo"]) == 1, pending
    hint = pending["mfaInfo"][0]
    assert hint["mfaEnrollmentId"] == enrollment_id
    assert hint["displayName"] == "work phone"
    # One precision everywhere: the hint's time is the lookup's, milliseconds included.
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", factors[0]["enrolledAt"]), factors
    assert hint["enrolledAt"] == factors[0]["enrolledAt"], (hint, factors)
    masked = hint["phoneInfo"]
    assert isinstance(masked, str) and masked.endswith(SECOND_NUMBER[-4:]), hint
    assert SECOND_NUMBER not in masked and SECOND_NUMBER[1:] not in masked, hint
    assert not re.search(r"\d{5,}", masked), hint

    # The second factor, with the masked number as the SDK sends it.
    status, challenge, _ = client.mfa_sign_in_start(pending["mfaPendingCredential"], enrollment_id, masked)
    assert status == 200, challenge
    challenge_info = challenge["phoneResponseInfo"]["sessionInfo"]
    assert isinstance(challenge_info, str) and challenge_info
    status, resolved, _ = client.mfa_sign_in_finalize(pending["mfaPendingCredential"], challenge_info, SECOND_CODE)
    assert status == 200, resolved
    claims = assert_tokens_only(emulator, resolved)
    assert claims["sub"] == uid
    assert claims["firebase"]["sign_in_second_factor"] == "phone", claims
    if "second_factor_identifier" in claims["firebase"]:
        assert claims["firebase"]["second_factor_identifier"] == enrollment_id, claims

    # Withdrawal, then the first factor signs in by itself again.
    status, withdrawn, _ = client.mfa_enrollment_withdraw(resolved["idToken"], enrollment_id)
    assert status == 200, withdrawn
    assert_tokens_only(emulator, withdrawn)
    status, account, _ = client.get_account_info(withdrawn["idToken"])
    assert status == 200, account
    assert account["users"][0].get("mfaInfo", []) == [], account
    again = client.sign_in(TEST_NUMBER, TEST_CODE)
    assert_sign_in(emulator, again, TEST_NUMBER, new_user=False)
    assert again["localId"] == uid


def test_mfa_pending_credential_cannot_be_finalized_with_a_wrong_code(emulator):
    client = IOSClient(emulator)
    _, enrollment_id = enrolled_user(emulator, client)
    status, pending, _ = client.verify_phone_number(client.start(TEST_NUMBER), TEST_CODE)
    assert status == 200 and "mfaPendingCredential" in pending, pending
    status, challenge, _ = client.mfa_sign_in_start(pending["mfaPendingCredential"], enrollment_id,
                                                    pending["mfaInfo"][0]["phoneInfo"])
    assert status == 200, challenge
    answer = client.mfa_sign_in_finalize(pending["mfaPendingCredential"], challenge["phoneResponseInfo"]["sessionInfo"],
                                         "000000")
    assert_toolkit_error(answer, 400, "INVALID_CODE")


def test_mfa_sign_in_start_with_an_unknown_enrollment_id(emulator):
    client = IOSClient(emulator)
    enrolled_user(emulator, client)
    status, pending, _ = client.verify_phone_number(client.start(TEST_NUMBER), TEST_CODE)
    assert status == 200 and "mfaPendingCredential" in pending, pending
    answer = client.mfa_sign_in_start(pending["mfaPendingCredential"], "no-such-enrollment", "+1******4321")
    assert_toolkit_error(answer, 400, "MFA_ENROLLMENT_NOT_FOUND")


def test_mfa_sign_in_start_with_an_unknown_pending_credential(emulator):
    client = IOSClient(emulator)
    _, enrollment_id = enrolled_user(emulator, client)
    answer = client.mfa_sign_in_start("not-a-pending-credential", enrollment_id, "+1******4321")
    assert_toolkit_error(answer, 400, "INVALID_MFA_PENDING_CREDENTIAL")


# ---- linking and updating the number -------------------------------------------------------------

def test_custom_token_user_links_a_number(emulator):
    client = IOSClient(emulator)
    user = custom_token_user(emulator, client, "u1")
    status, body, _ = client.verify_phone_number(client.start(SECOND_NUMBER), SECOND_CODE, id_token=user["idToken"],
                                                 operation="LINK")
    assert status == 200, body
    assert_sign_in(emulator, body, SECOND_NUMBER, new_user=False)
    assert body["localId"] == "u1"
    status, account, _ = client.get_account_info(body["idToken"])
    assert status == 200, account
    assert account["users"][0]["phoneNumber"] == SECOND_NUMBER
    assert account["users"][0]["providerUserInfo"] == [
        {"providerId": "phone", "rawId": SECOND_NUMBER, "phoneNumber": SECOND_NUMBER}]
    # The number now signs in to u1.
    again = client.sign_in(SECOND_NUMBER, SECOND_CODE)
    assert again["localId"] == "u1" and again["isNewUser"] is False


def test_linking_a_second_number_is_refused(emulator):
    client = IOSClient(emulator)
    user_a = client.sign_in(TEST_NUMBER, TEST_CODE)
    answer = client.verify_phone_number(client.start(SECOND_NUMBER), SECOND_CODE, id_token=user_a["idToken"],
                                        operation="LINK")
    assert_toolkit_error(answer, 400, "PROVIDER_ALREADY_LINKED")


def test_linking_a_number_another_account_owns_answers_a_temporary_proof(emulator):
    client = IOSClient(emulator)
    owner = client.sign_in(TEST_NUMBER, TEST_CODE)
    user = custom_token_user(emulator, client, "u2")
    status, body, _ = client.verify_phone_number(client.start(TEST_NUMBER), TEST_CODE, id_token=user["idToken"],
                                                 operation="LINK")
    assert status == 200, body
    assert "idToken" not in body and "refreshToken" not in body, body
    assert body["phoneNumber"] == TEST_NUMBER, body
    assert isinstance(body["temporaryProof"], str) and body["temporaryProof"], body

    # The SDK's credentialAlreadyInUse carries the proof; signing in with it opens the owner's account.
    status, signed_in, _ = client.verify_temporary_proof(body["temporaryProof"], body["phoneNumber"])
    assert status == 200, signed_in
    assert_sign_in(emulator, signed_in, TEST_NUMBER, new_user=False)
    assert signed_in["localId"] == owner["localId"]
    # u2 kept no number.
    status, account, _ = client.get_account_info(user["idToken"])
    assert status == 200, account
    assert "phoneNumber" not in account["users"][0], account


@pytest.mark.parametrize("retry_seconds", [0, 30])
def test_a_temporary_proof_works_once(tmp_path, retry_seconds):
    """Once; presented again within signInRetrySeconds it is a retry and gets the same session."""
    server = start_server(tmp_path, engine={"signInRetrySeconds": retry_seconds}, server={"emulatorCompat": True})
    try:
        client = IOSClient(server)
        client.sign_in(TEST_NUMBER, TEST_CODE)
        user = custom_token_user(server, client, "u3")
        status, body, _ = client.verify_phone_number(client.start(TEST_NUMBER), TEST_CODE,
                                                     id_token=user["idToken"], operation="LINK")
        assert status == 200 and "temporaryProof" in body, body
        status, signed_in, _ = client.verify_temporary_proof(body["temporaryProof"], TEST_NUMBER)
        assert status == 200, signed_in
        again = client.verify_temporary_proof(body["temporaryProof"], TEST_NUMBER)
        if retry_seconds:
            assert again[0] == 200 and again[1]["refreshToken"] == signed_in["refreshToken"], again
        else:
            assert_toolkit_error(again, 400, "INVALID_TEMPORARY_PROOF")
    finally:
        server.stop()


def test_update_changes_the_number(emulator):
    client = IOSClient(emulator)
    user_a = client.sign_in(TEST_NUMBER, TEST_CODE)
    status, body, _ = client.verify_phone_number(client.start(SECOND_NUMBER), SECOND_CODE, id_token=user_a["idToken"],
                                                 operation="UPDATE")
    assert status == 200, body
    assert_sign_in(emulator, body, SECOND_NUMBER, new_user=False)
    assert body["localId"] == user_a["localId"]
    status, account, _ = client.get_account_info(body["idToken"])
    assert status == 200, account
    assert account["users"][0]["phoneNumber"] == SECOND_NUMBER
    # The old number is free again: it makes a new account.
    fresh = client.sign_in(TEST_NUMBER, TEST_CODE)
    assert fresh["isNewUser"] is True and fresh["localId"] != user_a["localId"]
    # A number another account has: no tokens, the number the code proved and a proof that signs
    # in to that account (without one the iOS SDK would take the 200 for a sign-in).
    status, taken, _ = client.verify_phone_number(client.start(TEST_NUMBER), TEST_CODE, id_token=body["idToken"],
                                                  operation="UPDATE")
    assert status == 200 and "idToken" not in taken and taken["phoneNumber"] == TEST_NUMBER, taken
    status, signed_in, _ = client.verify_temporary_proof(taken["temporaryProof"], TEST_NUMBER)
    assert status == 200 and signed_in["localId"] == fresh["localId"], signed_in


# ---- production mode -----------------------------------------------------------------------------

def test_production_verify_client_without_push_sender_is_a_json_error(production):
    status, body, _ = IOSClient(production, key=API_KEY).verify_client("a1b2c3d4e5f60718293a4b5c6d7e8f90")
    assert 400 <= status < 500, (status, body)
    assert_toolkit_error((status, body, {}), status)


def assert_api_key_refusal(answer: Tuple[int, Any, Dict[str, str]], service: str) -> None:
    """Google's answer to a missing or wrong API key, field by field."""
    error = assert_toolkit_error(answer, 400)
    message = "API key not valid. Please pass a valid API key."
    assert error["message"] == message, error
    assert error["errors"] == [{"message": message, "domain": "global", "reason": "badRequest"}], error
    assert error["status"] == "INVALID_ARGUMENT", error
    info = [d for d in error["details"] if d["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"]
    assert info == [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID",
                     "domain": "googleapis.com", "metadata": {"service": service}}], error


def test_production_send_without_api_key_is_refused(production):
    answer = IOSClient(production, key=None).send_verification_code(REAL_NUMBER)
    assert_api_key_refusal(answer, "identitytoolkit.googleapis.com")
    time.sleep(0.3)
    assert production.sms.count() == 0


def test_production_send_with_a_wrong_api_key_is_refused(production):
    answer = IOSClient(production, key="wrong-key").send_verification_code(REAL_NUMBER)
    assert_api_key_refusal(answer, "identitytoolkit.googleapis.com")
    time.sleep(0.3)
    assert production.sms.count() == 0


def test_production_refresh_with_a_wrong_api_key_names_secure_token(production):
    answer = IOSClient(production, key="wrong-key").refresh("any-refresh-token")
    assert_api_key_refusal(answer, "securetoken.googleapis.com")


def test_production_code_arrives_at_the_webhook_and_signs_in(production):
    client = IOSClient(production, key=API_KEY, locale="fr-CA")
    session_info = client.start(REAL_NUMBER)
    message = production.sms.wait_for_requests(1)[0].json()
    assert message["to"] == REAL_NUMBER
    assert message["verificationId"] == session_info
    assert message["purpose"] == "signIn"
    # X-Firebase-Locale picks the SMS language (fr-CA falls back to fr).
    assert message["languageCode"] == "fr" and "code de vérification" in message["body"], message
    status, body, _ = client.verify_phone_number(session_info, code_in(message))
    assert status == 200, body
    first = body
    assert_sign_in(production, first, REAL_NUMBER, new_user=True)

    status, account, _ = client.get_account_info(first["idToken"])
    assert status == 200, account
    assert len(account["users"]) == 1 and account["users"][0]["phoneNumber"] == REAL_NUMBER
    assert_refreshed(production, client.refresh(first["refreshToken"]), first["localId"])


def test_production_second_sign_in_is_not_a_new_user(tmp_path):
    server, receiver = start_webhook_server(tmp_path, {"resendAfterSeconds": 0})
    try:
        client = IOSClient(server, key=API_KEY)
        ids = []
        for round_number, new_user in ((1, True), (2, False)):
            session_info = client.start(OTHER_REAL_NUMBER)
            message = receiver.wait_for_requests(round_number)[round_number - 1].json()
            assert message["verificationId"] == session_info
            status, body, _ = client.verify_phone_number(session_info, code_in(message))
            assert status == 200, body
            assert_sign_in(server, body, OTHER_REAL_NUMBER, new_user=new_user)
            ids.append(body["localId"])
        assert ids[0] == ids[1]
    finally:
        server.stop()
        receiver.close()


def test_production_rejects_a_test_number_code_for_a_real_number(production):
    client = IOSClient(production, key=API_KEY)
    session_info = client.start(REAL_NUMBER)
    message = production.sms.wait_for_requests(1)[0].json()
    wrong = "000000" if code_in(message) != "000000" else "111111"
    assert_toolkit_error(client.verify_phone_number(session_info, wrong), 400, "INVALID_CODE")


# ---- errors ----------------------------------------------------------------------------------------

def test_wrong_code(emulator):
    client = IOSClient(emulator)
    answer = client.verify_phone_number(client.start(TEST_NUMBER), "000000")
    assert_toolkit_error(answer, 400, "INVALID_CODE")


def test_expired_code(tmp_path):
    server = start_server(tmp_path, engine={"codeTtlSeconds": 1}, server={"emulatorCompat": True})
    try:
        client = IOSClient(server)
        session_info = client.start(TEST_NUMBER)
        time.sleep(1.5)
        assert_toolkit_error(client.verify_phone_number(session_info, TEST_CODE), 400, "SESSION_EXPIRED")
    finally:
        server.stop()


def test_sms_quota_answers_429_with_retry_after(tmp_path):
    server, receiver = start_webhook_server(tmp_path, {"quotas": {"smsPerNumberPerHour": 1}, "resendAfterSeconds": 0})
    try:
        client = IOSClient(server, key=API_KEY)
        client.start(REAL_NUMBER)
        receiver.wait_for_requests(1)
        answer = client.send_verification_code(REAL_NUMBER)
        assert_toolkit_error(answer, 429, "TOO_MANY_ATTEMPTS_TRY_LATER", "QUOTA_EXCEEDED")
        headers = {k.lower(): v for k, v in answer[2].items()}
        assert "retry-after" in headers, answer[2]
        assert headers["retry-after"].isdigit() and 0 < int(headers["retry-after"]) <= 3600, headers
        time.sleep(0.3)
        assert receiver.count() == 1
    finally:
        server.stop()
        receiver.close()


def test_unknown_session_info(emulator):
    client = IOSClient(emulator)
    assert_toolkit_error(client.verify_phone_number("no-such-session-info", TEST_CODE), 400, "INVALID_SESSION_INFO")
    # Well-formed but never issued: change the last character of a real one.
    real = client.start(TEST_NUMBER)
    forged = real[:-1] + ("A" if real[-1] != "A" else "B")
    assert_toolkit_error(client.verify_phone_number(forged, TEST_CODE), 400, "INVALID_SESSION_INFO")


def test_get_account_info_of_a_deleted_user(emulator):
    client = IOSClient(emulator)
    signed_in = client.sign_in(TEST_NUMBER, TEST_CODE)
    admin(emulator, "deleteUser", {"uid": signed_in["localId"]})
    assert_toolkit_error(client.get_account_info(signed_in["idToken"]), 400, "USER_NOT_FOUND")


def test_garbage_id_token(emulator):
    assert_toolkit_error(IOSClient(emulator).get_account_info("garbage"), 400, "INVALID_ID_TOKEN")


def test_id_token_with_a_forged_signature(emulator):
    client = IOSClient(emulator)
    token = client.sign_in(TEST_NUMBER, TEST_CODE)["idToken"]
    head, payload, signature = token.split(".")
    forged = ".".join([head, payload, signature[:-2] + ("AA" if signature[-2:] != "AA" else "BB")])
    assert_toolkit_error(client.get_account_info(forged), 400, "INVALID_ID_TOKEN")
