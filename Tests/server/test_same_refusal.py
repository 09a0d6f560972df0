"""The same bad input gets the same refusal through phoneauthd's doors: its own route and the
Firebase routes (an end user's setAccountInfo / accounts:update, the admin's accounts:update, MFA
finalize, sendVerificationCode). The cases and answers are Tests/refusals.json's, which the C,
Python and PhoneAuthKit tests read too. (phoneauthd sets clientIp itself, so that case is theirs.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ADMIN_TOKEN, PROJECT, ROOT, TEST_CODE, TEST_NUMBER, start_server

CASES = json.loads((ROOT / "Tests/refusals.json").read_text())["cases"]
ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
V1 = "/identitytoolkit.googleapis.com/v1/accounts:"
V2 = "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:"
V3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty/"
ADMIN_UPDATE = f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:update"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("refusals"), server={"emulatorCompat": True})
    yield server
    server.stop()


def own_refusal(answer, case: str) -> None:
    status, body, _ = answer
    expected = CASES[case]
    error = body["error"]
    assert status == 400, body
    assert (error["code"], error["status"], error["message"], error["details"].get("field")) == \
        (expected["code"], expected["status"], expected["message"], expected["field"])


def firebase_refusal(answer, case: str) -> None:
    status, body, _ = answer
    expected = CASES[case]
    assert status == 400, body
    assert body["error"]["message"] == f"{expected['firebase']} : {expected['message']}"


def signed_in(server) -> str:
    status, sent, _ = server.post(V1 + "sendVerificationCode", {"phoneNumber": TEST_NUMBER})
    assert status == 200, sent
    status, session, _ = server.post(V1 + "signInWithPhoneNumber", {"sessionInfo": sent["sessionInfo"], "code": TEST_CODE})
    assert status == 200, session
    return session["idToken"]


def test_a_long_display_name(server):
    name = "x" * CASES["longDisplayName"]["value"]
    status, created, _ = server.post("/phoneauth/v1/createUser", {}, headers=ADMIN)
    uid = created["user"]["uid"]
    own_refusal(server.post("/phoneauth/v1/updateUser", {"uid": uid, "displayName": name}, headers=ADMIN), "longDisplayName")
    own_refusal(server.post("/phoneauth/v1/createUser", {"displayName": name}, headers=ADMIN), "longDisplayName")
    firebase_refusal(server.post(ADMIN_UPDATE, {"localId": uid, "displayName": name}, headers=ADMIN), "longDisplayName")
    id_token = signed_in(server)
    for path in (V1 + "update", V3 + "setAccountInfo"):
        firebase_refusal(server.post(path, {"idToken": id_token, "displayName": name}), "longDisplayName")
    status, body, _ = server.post(V1 + "lookup", {"idToken": id_token})
    assert status == 200 and "displayName" not in body["users"][0], "nothing of the refused name was stored"
    finalize = {"idToken": id_token, "displayName": name,
                "phoneVerificationInfo": {"sessionInfo": "0" * 32, "code": TEST_CODE}}
    firebase_refusal(server.post(V2 + "finalize", finalize), "longDisplayName")


def test_a_long_totp_account_name(server):
    id_token = signed_in(server)
    name = "x" * CASES["longTotpAccountName"]["value"]
    own_refusal(server.post("/phoneauth/v1/mfaTotpStart", {"idToken": id_token, "accountName": name}), "longTotpAccountName")


def test_app_verification_proofs(server):
    token = "t" * CASES["longCaptchaToken"]["value"]
    own = "/phoneauth/v1/verifyPhoneNumber"
    own_refusal(server.post(own, {"phoneNumber": TEST_NUMBER, "appVerification": {"captchaToken": token}}), "longCaptchaToken")
    own_refusal(server.post(own, {"phoneNumber": TEST_NUMBER, "appVerification": {"receipt": "r"}}), "receiptWithoutSecret")
    for path in (V1 + "sendVerificationCode", V3 + "sendVerificationCode"):
        firebase_refusal(server.post(path, {"phoneNumber": TEST_NUMBER, "recaptchaToken": token}), "longCaptchaToken")
        firebase_refusal(server.post(path, {"phoneNumber": TEST_NUMBER, "iosReceipt": "r"}), "receiptWithoutSecret")


def test_a_long_language_code(server):
    tag = "a" * CASES["longLanguageCode"]["value"]
    own_refusal(server.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": TEST_NUMBER, "languageCode": tag}),
                "longLanguageCode")
    # Firebase's clients send the language as a header, which is advice: one that is no tag is ignored.
    status, body, _ = server.post(V1 + "sendVerificationCode", {"phoneNumber": TEST_NUMBER}, headers={"X-Firebase-Locale": tag})
    assert status == 200, body
