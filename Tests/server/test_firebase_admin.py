"""The unmodified PyPI firebase-admin, in emulator mode (FIREBASE_AUTH_EMULATOR_HOST), against phoneauthd."""

from __future__ import annotations

import time

import pytest
from firebase_admin import auth

from conftest import ISSUER, PROJECT, SECOND_NUMBER, TEST_CODE, TEST_NUMBER

V3 = "/www.googleapis.com/identitytoolkit/v3/relyingparty"


@pytest.fixture
def server(signing_emulator):
    return signing_emulator


@pytest.fixture
def app(firebase_app):
    return firebase_app


def sign_in(server, number=TEST_NUMBER, code=TEST_CODE):
    status, sent, _ = server.post(f"{V3}/sendVerificationCode?key=k", {"phoneNumber": number})
    assert status == 200, sent
    status, body, _ = server.post(f"{V3}/verifyPhoneNumber?key=k", {"sessionInfo": sent["sessionInfo"], "code": code})
    assert status == 200, body
    return body


def test_create_and_get_user(server, app):
    created = auth.create_user(uid="alice", phone_number=TEST_NUMBER, display_name="Alice", app=app)
    assert (created.uid, created.phone_number, created.display_name) == ("alice", TEST_NUMBER, "Alice")
    for user in (auth.get_user("alice", app=app), auth.get_user_by_phone_number(TEST_NUMBER, app=app)):
        assert (user.uid, user.phone_number, user.display_name, user.disabled) == ("alice", TEST_NUMBER, "Alice", False)
        assert [(p.provider_id, p.uid, p.phone_number) for p in user.provider_data] == [("phone", TEST_NUMBER, TEST_NUMBER)]
    with pytest.raises(auth.PhoneNumberAlreadyExistsError):
        auth.create_user(phone_number=TEST_NUMBER, app=app)
    with pytest.raises(auth.UidAlreadyExistsError):
        auth.create_user(uid="alice", phone_number=SECOND_NUMBER, app=app)


def test_get_unknown_user(server, app):
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user("nobody", app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_phone_number("+16505550000", app=app)


def test_list_users_pages(server, app):
    uids = {auth.create_user(uid=f"user{i}", phone_number=f"+1650555010{i}", app=app).uid for i in range(7)}
    page, seen, pages = auth.list_users(max_results=3, app=app), [], 0
    while page:
        assert len(page.users) <= 3
        seen += [user.uid for user in page.users]
        pages += 1
        page = page.get_next_page()
    assert sorted(seen) == sorted(uids) and pages >= 3
    assert sorted(user.uid for user in auth.list_users(max_results=3, app=app).iterate_all()) == sorted(uids)


def test_update_user(server, app):
    auth.create_user(uid="bob", phone_number=TEST_NUMBER, display_name="Bob", app=app)
    assert auth.update_user("bob", disabled=True, app=app).disabled is True
    assert auth.get_user("bob", app=app).disabled is True
    auth.update_user("bob", phone_number=SECOND_NUMBER, app=app)
    assert auth.get_user("bob", app=app).phone_number == SECOND_NUMBER
    assert auth.get_user_by_phone_number(SECOND_NUMBER, app=app).uid == "bob"
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_phone_number(TEST_NUMBER, app=app)
    auth.update_user("bob", phone_number=None, display_name=None, app=app)  # None: leave unchanged
    user = auth.get_user("bob", app=app)
    assert (user.phone_number, user.display_name) == (SECOND_NUMBER, "Bob")
    # firebase-admin 7 removes with DELETE_ATTRIBUTE: deleteProvider ["phone"], deleteAttribute ["DISPLAY_NAME"]
    auth.update_user("bob", phone_number=auth.DELETE_ATTRIBUTE, display_name=auth.DELETE_ATTRIBUTE, app=app)
    user = auth.get_user("bob", app=app)
    assert user.phone_number is None and user.display_name is None
    assert [p for p in user.provider_data if p.provider_id == "phone"] == []
    assert user.disabled is True


def test_custom_claims(server, app):
    uid = sign_in(server)["localId"]
    auth.set_custom_user_claims(uid, {"admin": True, "level": 3}, app=app)
    assert auth.get_user(uid, app=app).custom_claims == {"admin": True, "level": 3}
    claims = auth.verify_id_token(sign_in(server)["idToken"], app=app)
    assert claims["uid"] == uid and claims["admin"] is True and claims["level"] == 3
    auth.set_custom_user_claims(uid, None, app=app)
    assert not auth.get_user(uid, app=app).custom_claims
    claims = auth.verify_id_token(sign_in(server)["idToken"], app=app)
    assert "admin" not in claims and "level" not in claims


def test_revoke_refresh_tokens(server, app):
    signed_in = sign_in(server)
    assert auth.verify_id_token(signed_in["idToken"], check_revoked=True, app=app)["uid"] == signed_in["localId"]
    time.sleep(1.1)
    auth.revoke_refresh_tokens(signed_in["localId"], app=app)
    assert auth.get_user(signed_in["localId"], app=app).tokens_valid_after_timestamp > 0
    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(signed_in["idToken"], check_revoked=True, app=app)
    status, body, _ = server.post("/securetoken.googleapis.com/v1/token?key=k",
                                  {"grant_type": "refresh_token", "refresh_token": signed_in["refreshToken"]})
    assert not 200 <= status < 300, body


def test_disabled_user_token(server, app):
    signed_in = sign_in(server)
    auth.update_user(signed_in["localId"], disabled=True, app=app)
    with pytest.raises(auth.UserDisabledError):
        auth.verify_id_token(signed_in["idToken"], check_revoked=True, app=app)


def test_delete_user(server, app):
    auth.create_user(uid="carol", phone_number=TEST_NUMBER, app=app)
    auth.delete_user("carol", app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user("carol", app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_phone_number(TEST_NUMBER, app=app)


def test_delete_users(server, app):
    uids = [auth.create_user(uid=f"gone{i}", phone_number=f"+1650555020{i}", app=app).uid for i in range(3)]
    auth.create_user(uid="kept", app=app)
    identifiers = [auth.UidIdentifier(uid) for uid in uids + ["kept"]]
    assert len(auth.get_users(identifiers, app=app).users) == 4
    result = auth.delete_users(uids, app=app)
    assert (result.success_count, result.failure_count) == (3, 0)
    found = auth.get_users(identifiers, app=app)
    assert [user.uid for user in found.users] == ["kept"]
    assert sorted(identifier.uid for identifier in found.not_found) == sorted(uids)


def test_verify_id_token(server, app):
    signed_in = sign_in(server)
    assert signed_in["phoneNumber"] == TEST_NUMBER and isinstance(signed_in["expiresIn"], str)
    claims = auth.verify_id_token(signed_in["idToken"], app=app)
    assert claims["uid"] == claims["sub"] == signed_in["localId"]
    assert claims["phone_number"] == TEST_NUMBER
    assert claims["firebase"]["sign_in_provider"] == "phone"
    assert claims["aud"] == PROJECT and claims["iss"] == ISSUER


def test_custom_token_sign_in(server, app):
    token = auth.create_custom_token("dave", {"role": "editor"}, app=app)
    status, body, _ = server.post("/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=k",
                                  {"token": token.decode(), "returnSecureToken": True})
    assert status == 200, body
    assert body["localId"] == "dave" and body["refreshToken"]
    claims = auth.verify_id_token(body["idToken"], app=app)
    assert claims["uid"] == "dave" and claims["role"] == "editor"
    assert claims["firebase"]["sign_in_provider"] == "custom"
    assert auth.get_user("dave", app=app).uid == "dave"
