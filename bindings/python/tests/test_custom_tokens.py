"""createCustomToken / signInWithCustomToken: a host's own users signing in with engine-signed tokens."""

import pytest

import phoneauth
from test_tokens import decode


def test_custom_token_signs_in_and_claims_reach_the_id_token(engine):
    token = engine.create_custom_token(uid="host-user-7", claims={"role": "tester", "tier": 2})["customToken"]
    first = engine.sign_in_with_custom_token(custom_token=token)
    assert first["user"]["uid"] == "host-user-7"
    assert first["user"]["phoneNumber"] is None
    assert first["additionalUserInfo"] == {"isNewUser": True, "providerId": "custom"}
    claims = decode(engine, first["idToken"])  # PyJWT against the engine's JWKS
    assert claims["sub"] == "host-user-7"
    assert claims["role"] == "tester" and claims["tier"] == 2
    assert claims["firebase"]["sign_in_provider"] == "custom"
    refreshed = engine.refresh_id_token(refresh_token=first["refreshToken"])
    assert decode(engine, refreshed["idToken"])["role"] == "tester"
    again = engine.sign_in_with_custom_token(custom_token=token)
    assert again["additionalUserInfo"]["isNewUser"] is False
    assert engine.get_user(uid="host-user-7")["user"]["uid"] == "host-user-7"


def test_tokens_of_other_kinds_or_engines_are_refused(make_engine, sms, tmp_path):
    engine = make_engine(testPhoneNumbers={"+16505551234": "123456"})
    other = make_engine(database=str(tmp_path / "other.db"))
    with pytest.raises(phoneauth.InvalidCustomTokenError) as info:
        engine.sign_in_with_custom_token(custom_token=other.create_custom_token(uid="u")["customToken"])
    assert info.value.details["reason"] == "unknownKey"
    vid = engine.verify_phone_number(phone_number="+16505551234")["verificationId"]
    cred = engine.credential(verification_id=vid, verification_code="123456")["credential"]
    id_token = engine.sign_in_with_credential(credential=cred)["idToken"]
    with pytest.raises(phoneauth.CustomTokenMismatchError):
        engine.sign_in_with_custom_token(custom_token=id_token)
    with pytest.raises(phoneauth.InvalidIdTokenError):
        engine.verify_id_token(id_token=engine.create_custom_token(uid="u")["customToken"])
    with pytest.raises(phoneauth.InvalidCustomTokenError):
        engine.sign_in_with_custom_token(custom_token="")


@pytest.mark.parametrize("claims", [{"aud": "x"}, {"firebase": {}}, {"big": "a" * 1000}, "admin", [1]])
def test_bad_claims(engine, claims):
    with pytest.raises(phoneauth.InvalidArgumentError):
        engine.create_custom_token(uid="u", claims=claims)
