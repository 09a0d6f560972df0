"""listUsers, setCustomUserClaims and updateUser's phoneNumber, through the binding."""

import pytest

import phoneauth
from test_tokens import decode


def make_users(engine, uids):
    for uid in uids:
        engine.sign_in_with_custom_token(custom_token=engine.create_custom_token(uid=uid)["customToken"])


def test_list_users_pages_in_a_stable_order(engine):
    make_users(engine, ["m", "k", "z", "a", "q"])
    seen, token = [], None
    while True:
        page = engine.list_users(max_results=2, **({"page_token": token} if token else {}))
        assert len(page["users"]) <= 2
        seen += [u["uid"] for u in page["users"]]
        token = page.get("pageToken")
        if not token:
            break
    assert seen == ["a", "k", "m", "q", "z"]
    with pytest.raises(phoneauth.InvalidArgumentError):
        engine.list_users(max_results=0)


def test_custom_claims_appear_in_the_next_id_token(engine):
    make_users(engine, ["u1"])
    session = engine.sign_in_with_custom_token(custom_token=engine.create_custom_token(uid="u1")["customToken"])
    assert "admin" not in decode(engine, session["idToken"])
    engine.set_custom_user_claims(uid="u1", claims={"admin": True})
    assert engine.get_user(uid="u1")["user"]["customClaims"] == {"admin": True}
    refreshed = engine.refresh_id_token(refresh_token=session["refreshToken"])
    assert decode(engine, refreshed["idToken"])["admin"] is True
    engine.set_custom_user_claims(uid="u1", claims=None)
    assert engine.get_user(uid="u1")["user"]["customClaims"] is None
    with pytest.raises(phoneauth.InvalidArgumentError):
        engine.set_custom_user_claims(uid="u1", claims={"iat": 1})


def test_update_phone_number(engine):
    make_users(engine, ["p1", "p2"])
    assert engine.update_user(uid="p1", phone_number="+44 7400 123456")["user"]["phoneNumber"] == "+447400123456"
    with pytest.raises(phoneauth.PhoneNumberAlreadyExistsError):
        engine.update_user(uid="p2", phone_number="+447400123456")
    assert engine.update_user(uid="p1", phone_number=None)["user"]["phoneNumber"] is None
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user_by_phone_number(phone_number="+447400123456")
