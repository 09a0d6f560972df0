"""Every Identity Toolkit and Secure Token operation under each path form a real client sends:
with Google's host as the first segment (Firebase's SDKs pointed at an emulator) and without it
(a client given a custom endpoint such as https://auth.example.com, and Google's discovery-based
clients: the discovery document's servicePath, then the method's path).
"""

from __future__ import annotations

from typing import Dict, Tuple

import pytest

from conftest import ADMIN_TOKEN, PROJECT, TEST_CODE, TEST_NUMBER

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}

# Each service's paths: (the form with the host, the form without it), the operation's name left to fill in.
V3 = ("/www.googleapis.com/identitytoolkit/v3/relyingparty/{}", "/identitytoolkit/v3/relyingparty/{}")
V1 = ("/identitytoolkit.googleapis.com/v1/accounts:{}", "/v1/accounts:{}")
V2 = ("/identitytoolkit.googleapis.com/v2/accounts/{}", "/v2/accounts/{}")
TOKEN = ("/securetoken.googleapis.com/v1/token", "/v1/token")
ADMIN_PATHS = (f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/{{}}", f"/v1/projects/{PROJECT}/{{}}")
FORMS = {"with the host": 0, "without the host": 1}

# (paths, operation, HTTP method, admin): every operation the server offers.
OPERATIONS = (
    [(V3, name, "POST", False) for name in ("sendVerificationCode", "verifyPhoneNumber", "getAccountInfo", "deleteAccount",
                                             "setAccountInfo", "verifyCustomToken", "verifyClient")]
    + [(V3, "getProjectConfig", "GET", False)]
    + [(V1, name, "POST", False) for name in ("sendVerificationCode", "signInWithPhoneNumber", "lookup", "delete", "update",
                                             "signInWithCustomToken")]
    + [(V2, name, "POST", False) for name in ("mfaEnrollment:start", "mfaEnrollment:finalize", "mfaEnrollment:withdraw",
                                             "mfaSignIn:start", "mfaSignIn:finalize", "passkeyEnrollment:start",
                                             "passkeyEnrollment:finalize", "passkeySignIn:start", "passkeySignIn:finalize")]
    + [(TOKEN, "", "POST", False)]
    + [(ADMIN_PATHS, name, "POST", True) for name in ("accounts", "accounts:lookup", "accounts:update", "accounts:delete",
                                                     "accounts:batchDelete")]
    + [(ADMIN_PATHS, "accounts:batchGet", "GET", True)]
)


def path(paths: Tuple[str, str], form: str, name: str) -> str:
    return paths[FORMS[form]].format(name)


@pytest.mark.parametrize("form", FORMS)
def test_every_operation_is_served_in_both_forms(emulator, form):
    """An empty request reaches the operation: it answers, or refuses in the operation's own
    words, never "No such endpoint"."""
    for paths, name, method, admin in OPERATIONS:
        where = path(paths, form, name)
        status, body, _ = emulator.request(method, where, {} if method == "POST" else None, headers=ADMIN if admin else None)
        assert status != 404 and status != 405, (where, status, body)
        if status != 200:
            assert not body["error"]["message"].startswith("NOT_FOUND"), (where, body)


@pytest.mark.parametrize("form", FORMS)
def test_a_sign_in_runs_through_each_form(emulator, form):
    """send, sign in, look up, refresh, update, admin lookup, delete: each by its path in `form`."""
    def post(paths: Tuple[str, str], name: str, body: Dict, headers=None):
        status, answer, _ = emulator.post(path(paths, form, name) + ("" if headers else "?key=k"), body, headers=headers)
        assert status == 200, (name, answer)
        return answer

    session = post(V3, "sendVerificationCode", {"phoneNumber": TEST_NUMBER})["sessionInfo"]
    signed = post(V3, "verifyPhoneNumber", {"sessionInfo": session, "code": TEST_CODE})
    assert post(V3, "getAccountInfo", {"idToken": signed["idToken"]})["users"][0]["localId"] == signed["localId"]
    session = post(V1, "sendVerificationCode", {"phoneNumber": TEST_NUMBER})["sessionInfo"]
    again = post(V1, "signInWithPhoneNumber", {"sessionInfo": session, "code": TEST_CODE})
    assert again["localId"] == signed["localId"] and again["isNewUser"] is False
    refreshed = post(TOKEN, "", {"grantType": "refresh_token", "refreshToken": again["refreshToken"]})
    assert refreshed["user_id"] == signed["localId"]
    post(V1, "update", {"idToken": refreshed["id_token"], "displayName": "Ada"})
    found = post(ADMIN_PATHS, "accounts:lookup", {"localId": [signed["localId"]]}, headers=ADMIN)
    assert found["users"][0]["displayName"] == "Ada"
    post(V1, "delete", {"idToken": refreshed["id_token"]})
    assert "users" not in post(ADMIN_PATHS, "accounts:lookup", {"localId": [signed["localId"]]}, headers=ADMIN)


@pytest.mark.parametrize("where", [
    "/v3/relyingparty/sendVerificationCode",  # what the server once served: not a Google path
    "/www.googleapis.com/v3/relyingparty/sendVerificationCode",
    "/identitytoolkit.googleapis.com/identitytoolkit/v3/relyingparty/sendVerificationCode",
    "/securetoken.googleapis.com/v1/accounts:sendVerificationCode",
    "/www.googleapis.com/v1/token",
    "/identitytoolkit.googleapis.com/v1/token",
    "/securetoken.googleapis.com/v2/accounts/mfaSignIn:start",
    "/identitytoolkit/v1/accounts:sendVerificationCode",
    "/v1/accounts:sendVerificationCodeX",
])
def test_a_path_of_no_service_is_not_found(emulator, where):
    status, body, _ = emulator.post(where + "?key=k", {"phoneNumber": TEST_NUMBER})
    assert status == 404, (where, body)
    assert body["error"]["message"].startswith("NOT_FOUND") and body["error"]["status"] == "NOT_FOUND", body
