"""Phone sign-in from start to end, the user it creates, and the user methods."""

import re

import pytest

import phoneauth
from support import REAL_NUMBER, sign_in, sign_in_with_code, start

RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


def test_full_sign_in_with_the_code_from_the_sms(engine, sms):
    started, message, code = start(engine, sms, REAL_NUMBER)
    assert message["to"] == REAL_NUMBER
    assert message["verificationId"] == started["verificationId"]
    cred = engine.credential(verification_id=started["verificationId"], verification_code=code)
    assert cred == {"credential": {"providerId": "phone", "verificationId": started["verificationId"],
                                   "verificationCode": code}}
    result = engine.sign_in_with_credential(credential=cred["credential"])
    assert set(result) >= {"user", "idToken", "refreshToken", "expiresIn", "additionalUserInfo"}
    assert result["additionalUserInfo"] == {"isNewUser": True, "providerId": "phone"}
    assert result["idToken"].count(".") == 2
    assert isinstance(result["refreshToken"], str) and len(result["refreshToken"]) >= 22
    assert result["expiresIn"] == 3600


def test_user_fields(engine, sms):
    user = sign_in(engine, sms)["user"]
    assert isinstance(user["uid"], str) and user["uid"]
    assert user["phoneNumber"] == REAL_NUMBER
    assert user["displayName"] is None
    assert user["disabled"] is False
    for time_field in (user["metadata"]["creationTime"], user["metadata"]["lastSignInTime"],
                       user["tokensValidAfterTime"]):
        assert isinstance(time_field, str) and RFC3339.match(time_field), time_field
    assert user["providerData"] == [{"providerId": "phone", "uid": REAL_NUMBER, "phoneNumber": REAL_NUMBER}]


def test_second_sign_in_is_the_same_user_and_not_new(engine, sms):
    first = sign_in(engine, sms)
    second = sign_in(engine, sms)
    assert first["additionalUserInfo"]["isNewUser"] is True
    assert second["additionalUserInfo"]["isNewUser"] is False
    assert second["user"]["uid"] == first["user"]["uid"]
    assert second["user"]["metadata"]["creationTime"] == first["user"]["metadata"]["creationTime"]
    assert second["user"]["metadata"]["lastSignInTime"] >= first["user"]["metadata"]["lastSignInTime"]
    assert second["refreshToken"] != first["refreshToken"]


def test_formatted_number_is_the_same_user(engine, sms):
    first = sign_in(engine, sms, REAL_NUMBER)
    started, message, code = start(engine, sms, "+1 650-555-3434")
    assert message["to"] == REAL_NUMBER
    second = sign_in_with_code(engine, started["verificationId"], code)
    assert second["user"]["uid"] == first["user"]["uid"]
    assert second["additionalUserInfo"]["isNewUser"] is False


def test_gb_number(engine, sms):
    result = sign_in(engine, sms, "+447400123456")
    assert result["user"]["phoneNumber"] == "+447400123456"


def test_two_numbers_are_two_users(engine, sms):
    a = sign_in(engine, sms, REAL_NUMBER)
    b = sign_in(engine, sms, "+447400123456")
    assert a["user"]["uid"] != b["user"]["uid"]


def test_get_user_and_get_user_by_phone_number(engine, sms):
    user = sign_in(engine, sms)["user"]
    assert engine.get_user(uid=user["uid"])["user"]["uid"] == user["uid"]
    assert engine.get_user(uid=user["uid"])["user"]["phoneNumber"] == REAL_NUMBER
    assert engine.get_user_by_phone_number(phone_number=REAL_NUMBER)["user"]["uid"] == user["uid"]
    assert engine.get_user_by_phone_number(phone_number="+1 650-555-3434")["user"]["uid"] == user["uid"]


def test_unknown_users(engine):
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user(uid="no-such-uid")
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user_by_phone_number(phone_number=REAL_NUMBER)
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.delete_user(uid="no-such-uid")
    with pytest.raises(phoneauth.InvalidPhoneNumberError):
        engine.get_user_by_phone_number(phone_number="hello")


def test_delete_user(engine, sms):
    first = sign_in(engine, sms)
    uid = first["user"]["uid"]
    assert engine.delete_user(uid=uid) == {}
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user(uid=uid)
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user_by_phone_number(phone_number=REAL_NUMBER)
    # Its sessions are gone.
    with pytest.raises((phoneauth.InvalidUserTokenError, phoneauth.UserNotFoundError)):
        engine.refresh_id_token(refresh_token=first["refreshToken"])
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.verify_id_token(id_token=first["idToken"], check_revoked=True)
    # Signing in again makes a new user.
    again = sign_in(engine, sms)
    assert again["additionalUserInfo"]["isNewUser"] is True
    assert again["user"]["uid"] != uid


def test_update_user_display_name(engine, sms):
    uid = sign_in(engine, sms)["user"]["uid"]
    assert engine.update_user(uid=uid, display_name="Ada")["user"]["displayName"] == "Ada"
    assert engine.get_user(uid=uid)["user"]["displayName"] == "Ada"
    assert engine.update_user(uid=uid, display_name=None)["user"]["displayName"] is None
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.update_user(uid="no-such-uid", display_name="x")


def test_verification_state_after_sign_in(engine, sms):
    started, _message, code = start(engine, sms, REAL_NUMBER)
    assert engine.get_verification_status(verification_id=started["verificationId"])["state"] == "active"
    sign_in_with_code(engine, started["verificationId"], code)
    status = engine.get_verification_status(verification_id=started["verificationId"])
    assert status["state"] == "used"
    assert status["verificationId"] == started["verificationId"]
