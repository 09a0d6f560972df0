"""SMS second factors: enrolment, the secondFactorRequired resolver, and what a factor's number may
no longer do. TOTP factors are in test_totp.py; session expiry and requiresRecentLogin need a
clock and are tested in Swift."""

import json

import pytest

import phoneauth
from phoneauth import MultiFactorResolver, PhoneMultiFactorGenerator, TotpMultiFactorGenerator
from support import (FIXED_NUMBERS, REAL_NUMBER, TEST_CODE, code_in, credential_for, custom_sign_in,
                     enrol_fixed, fixed_credential, resolve_fixed, resolver_of, sign_in,
                     sign_in_with_code, start)
from test_tokens import decode

SECOND_NUMBER = "+16505553435"  # a real (SMS-sent) number for the seed flow's second factor
A, B, C, D = "+16505551230", "+16505551231", "+16505551232", "+16505551233"


@pytest.fixture
def engine(make_engine, sms):
    """The usual engine, plus FIXED_NUMBERS."""
    return make_engine(sender=sms, testPhoneNumbers=FIXED_NUMBERS)


def test_sms_second_factor_seed_flow(engine, sms):
    first = sign_in(engine, sms, REAL_NUMBER)
    uid = first["user"]["uid"]
    assert first["user"]["multiFactor"] == {"enrolledFactors": []}

    started = engine.mfa_enroll_start(first["idToken"], SECOND_NUMBER)
    assert set(started) == {"verificationId", "codeLength", "expiresAt", "resendAt", "channel"}
    message = sms.wait_for(verification_id=started["verificationId"])
    assert message["to"] == SECOND_NUMBER
    cred = credential_for(engine, started["verificationId"], code_in(message["body"], started["codeLength"]))
    enrolled = engine.mfa_enroll_finalize(first["idToken"], credential=cred, display_name="Work phone")
    [factor] = enrolled["user"]["multiFactor"]["enrolledFactors"]
    assert factor["factorId"] == "phone" and factor["displayName"] == "Work phone"
    assert factor["phoneNumber"] == SECOND_NUMBER
    assert enrolled["additionalUserInfo"] == {"isNewUser": False, "providerId": "phone"}
    claims = decode(engine, enrolled["idToken"])
    assert claims["firebase"]["sign_in_second_factor"] == "phone"
    assert claims["firebase"]["second_factor_identifier"] == factor["uid"]
    engine.sign_out(refresh_token=first["refreshToken"])
    engine.sign_out(refresh_token=enrolled["refreshToken"])

    started, _message, code = start(engine, sms, REAL_NUMBER)
    with pytest.raises(phoneauth.SecondFactorRequiredError) as info:
        sign_in_with_code(engine, started["verificationId"], code)
    assert set(info.value.details) == {"session", "expiresAt", "hints"}
    resolver = engine.get_multi_factor_resolver(info.value)
    assert resolver.session == info.value.details["session"]
    assert resolver.expires_at == info.value.details["expiresAt"]
    assert resolver.hints == [{"uid": factor["uid"], "factorId": "phone", "displayName": "Work phone",
                               "phoneNumber": "+*******3435", "enrollmentTime": factor["enrollmentTime"]}]

    challenge = resolver.verify_phone_number(resolver.hints[0])
    assert set(challenge) == {"verificationId", "codeLength", "expiresAt", "resendAt", "channel"}
    assert SECOND_NUMBER not in json.dumps(challenge)
    assert engine.get_verification_status(challenge["verificationId"])["phoneNumber"] == "+*******3435"
    message = sms.wait_for(verification_id=challenge["verificationId"])
    assert message["to"] == SECOND_NUMBER
    cred = credential_for(engine, challenge["verificationId"], code_in(message["body"], challenge["codeLength"]))
    result = resolver.resolve_sign_in(PhoneMultiFactorGenerator.assertion(cred))

    assert set(result) == {"user", "idToken", "refreshToken", "expiresIn", "additionalUserInfo"}
    assert result["user"]["uid"] == uid
    assert result["additionalUserInfo"] == {"isNewUser": False, "providerId": "phone"}
    claims = decode(engine, result["idToken"])  # PyJWT against getJwks
    assert claims["sub"] == uid and claims["phone_number"] == REAL_NUMBER
    assert claims["firebase"]["sign_in_provider"] == "phone"
    assert claims["firebase"]["sign_in_second_factor"] == "phone"
    assert claims["firebase"]["second_factor_identifier"] == factor["uid"]
    assert claims["sid"] not in (decode(engine, first["idToken"])["sid"],
                                 decode(engine, enrolled["idToken"])["sid"])
    assert engine.verify_id_token(id_token=result["idToken"], check_revoked=True)["claims"]["sub"] == uid
    # The session's refreshed tokens keep the second factor.
    refreshed = decode(engine, engine.refresh_id_token(refresh_token=result["refreshToken"])["idToken"])
    assert refreshed["firebase"]["second_factor_identifier"] == factor["uid"]


def test_enrolment_opens_a_new_session_and_keeps_the_old_one(engine):
    first = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    enrolled = enrol_fixed(engine, first["idToken"], B)
    assert decode(engine, enrolled["idToken"])["sid"] != decode(engine, first["idToken"])["sid"]
    assert "sign_in_second_factor" not in decode(engine, first["idToken"])["firebase"]
    refreshed = engine.refresh_id_token(refresh_token=first["refreshToken"])
    assert decode(engine, refreshed["idToken"])["sub"] == first["user"]["uid"]


def test_get_user_lists_factors_with_full_numbers(engine):
    first = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    enrol_fixed(engine, first["idToken"], B, display_name="desk")
    enrol_fixed(engine, first["idToken"], C)
    factors = engine.get_user(uid=first["user"]["uid"])["user"]["multiFactor"]["enrolledFactors"]
    assert sorted((f["factorId"], f["phoneNumber"], f["displayName"]) for f in factors) == [
        ("phone", B, "desk"), ("phone", C, None)]
    assert len({f["uid"] for f in factors}) == 2
    assert all(f["enrollmentTime"].endswith("Z") for f in factors)
    hints = resolver_of(engine, lambda: engine.sign_in_with_credential(
        credential=fixed_credential(engine, A))).hints
    assert [h["uid"] for h in hints] == [f["uid"] for f in factors]
    assert [h["phoneNumber"] for h in hints] == ["+*******" + f["phoneNumber"][-4:] for f in factors]


def test_factors_are_listed_in_enrolment_order(engine):
    first = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    numbers = list(FIXED_NUMBERS)[1:6]
    for number in numbers:
        enrol_fixed(engine, first["idToken"], number)
    factors = engine.get_user(uid=first["user"]["uid"])["user"]["multiFactor"]["enrolledFactors"]
    assert [f["phoneNumber"] for f in factors] == numbers


def test_verification_status_masks_all_but_four_digits(engine):
    started = engine.verify_phone_number(REAL_NUMBER)
    assert engine.get_verification_status(started["verificationId"])["phoneNumber"] == "+*******3434"


def test_resolver_session_is_single_use(engine):
    first = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    enrol_fixed(engine, first["idToken"], B)
    resolver = resolver_of(engine, lambda: engine.sign_in_with_credential(credential=fixed_credential(engine, A)))
    challenge = resolver.verify_phone_number(resolver.hints[0]["uid"])  # a hint's uid works too
    cred = credential_for(engine, challenge["verificationId"], TEST_CODE)
    signed = resolver.resolve_sign_in(PhoneMultiFactorGenerator.assertion(cred))
    assert signed["user"]["uid"] == first["user"]["uid"]
    # The same proof again soon after is a retry (signInRetrySeconds): the same session, not a second.
    again = resolver.resolve_sign_in(PhoneMultiFactorGenerator.assertion(cred))
    assert again["refreshToken"] == signed["refreshToken"]
    # Anything else finds the challenge used: a wrong code for it, a new code sent for it.
    with pytest.raises(phoneauth.InvalidMultiFactorSessionError):
        resolver.resolve_sign_in(PhoneMultiFactorGenerator.assertion(
            credential_for(engine, challenge["verificationId"], "000000")))
    with pytest.raises(phoneauth.InvalidMultiFactorSessionError):
        resolver.verify_phone_number(resolver.hints[0])


def test_unknown_sessions_and_hints(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    alice_factor = enrol_fixed(engine, alice["idToken"], B)["user"]["multiFactor"]["enrolledFactors"][0]
    bob = engine.sign_in_with_credential(credential=fixed_credential(engine, C))
    enrol_fixed(engine, bob["idToken"], D)
    resolver = resolver_of(engine, lambda: engine.sign_in_with_credential(credential=fixed_credential(engine, C)))
    with pytest.raises(phoneauth.InvalidMultiFactorSessionError):
        engine.verify_phone_number(multi_factor_hint=resolver.hints[0]["uid"], multi_factor_session="nope")
    with pytest.raises(phoneauth.InvalidMultiFactorSessionError):
        engine.mfa_resolve_sign_in(session="nope", assertion=TotpMultiFactorGenerator.assertion_for_sign_in(
            resolver.hints[0]["uid"], "123456"))
    # Alice's factor is not Bob's, nor is an unknown uid, nor (for TOTP) a phone factor.
    for hint in (alice_factor["uid"], "no-such-factor"):
        with pytest.raises(phoneauth.MultiFactorInfoNotFoundError):
            resolver.verify_phone_number(hint)
    for enrollment_id in (alice_factor["uid"], resolver.hints[0]["uid"]):
        with pytest.raises(phoneauth.MultiFactorInfoNotFoundError):
            resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(enrollment_id, "123456"))
    # None of that used up the session.
    assert resolve_fixed(engine, resolver, resolver.hints[0])["user"]["uid"] == bob["user"]["uid"]


def test_wrong_sms_code_counts_against_the_verification_not_the_session(engine):
    first = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    enrol_fixed(engine, first["idToken"], B)
    resolver = resolver_of(engine, lambda: engine.sign_in_with_credential(credential=fixed_credential(engine, A)))
    challenge = resolver.verify_phone_number(resolver.hints[0])
    wrong = credential_for(engine, challenge["verificationId"], "654321")
    with pytest.raises(phoneauth.InvalidVerificationCodeError) as info:
        resolver.resolve_sign_in(PhoneMultiFactorGenerator.assertion(wrong))
    assert info.value.details["attemptsLeft"] == 4
    right = credential_for(engine, challenge["verificationId"], TEST_CODE)
    assert resolver.resolve_sign_in(PhoneMultiFactorGenerator.assertion(right))["idToken"]


def test_enrolment_refusals(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers=FIXED_NUMBERS, mfa={"maxFactors": 1})
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    engine.sign_in_with_credential(credential=fixed_credential(engine, B))  # Bob signs in with B
    with pytest.raises(phoneauth.UnsupportedFirstFactorError):
        engine.mfa_enroll_start(alice["idToken"], A)  # her own sign-in number
    # Bob's sign-in number: refused only once the code proves Alice holds the number, so that
    # enrolment cannot be used to find out which numbers have accounts.
    started = engine.mfa_enroll_start(alice["idToken"], B)
    with pytest.raises(phoneauth.UnsupportedFirstFactorError):
        engine.mfa_enroll_finalize(alice["idToken"], credential=credential_for(engine, started["verificationId"], TEST_CODE))
    enrol_fixed(engine, alice["idToken"], C)
    with pytest.raises(phoneauth.SecondFactorAlreadyEnrolledError):
        engine.mfa_enroll_start(alice["idToken"], C)
    with pytest.raises(phoneauth.MaximumSecondFactorCountExceededError):
        engine.mfa_enroll_start(alice["idToken"], D)
    with pytest.raises(phoneauth.MaximumSecondFactorCountExceededError):
        engine.mfa_totp_start(alice["idToken"])


def test_max_factors_default_is_five(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    for number in list(FIXED_NUMBERS)[1:6]:
        enrol_fixed(engine, alice["idToken"], number)
    with pytest.raises(phoneauth.MaximumSecondFactorCountExceededError):
        engine.mfa_enroll_start(alice["idToken"], list(FIXED_NUMBERS)[6])


def test_an_enrolled_number_is_not_a_first_factor(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    enrol_fixed(engine, alice["idToken"], B)
    with pytest.raises(phoneauth.UnsupportedFirstFactorError):
        engine.sign_in_with_credential(credential=fixed_credential(engine, B))
    custom_sign_in(engine, "carol")
    with pytest.raises(phoneauth.UnsupportedFirstFactorError) as info:
        engine.update_user(uid="carol", phone_number=B)
    assert info.value.details.get("field") == "phoneNumber"
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user_by_phone_number(phone_number=B)


def test_verifications_serve_one_purpose(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    bob = custom_sign_in(engine, "bob")
    # An enrolment's code does not sign in, nor enrol for another user.
    started = engine.mfa_enroll_start(alice["idToken"], B)
    enrol_cred = credential_for(engine, started["verificationId"], TEST_CODE)
    with pytest.raises(phoneauth.SessionExpiredError) as info:
        engine.sign_in_with_credential(credential=enrol_cred)
    assert info.value.details["reason"] == "wrongPurpose"
    with pytest.raises(phoneauth.SessionExpiredError) as info:
        engine.mfa_enroll_finalize(bob["idToken"], credential=enrol_cred)
    assert info.value.details["reason"] == "wrongPurpose"
    # A sign-in code does not enrol.
    with pytest.raises(phoneauth.SessionExpiredError) as info:
        engine.mfa_enroll_finalize(alice["idToken"], credential=fixed_credential(engine, C))
    assert info.value.details["reason"] == "wrongPurpose"
    # A second factor's code does not sign in as a first factor.
    enrol_fixed(engine, alice["idToken"], D)
    resolver = resolver_of(engine, lambda: engine.sign_in_with_credential(credential=fixed_credential(engine, A)))
    challenge = resolver.verify_phone_number(resolver.hints[0])
    with pytest.raises(phoneauth.SessionExpiredError) as info:
        engine.sign_in_with_credential(credential=credential_for(engine, challenge["verificationId"], TEST_CODE))
    assert info.value.details["reason"] == "wrongPurpose"


def test_unenroll(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    [factor] = enrol_fixed(engine, alice["idToken"], B)["user"]["multiFactor"]["enrolledFactors"]
    with pytest.raises(phoneauth.MultiFactorInfoNotFoundError):
        engine.mfa_unenroll(alice["idToken"], "no-such-factor")
    result = engine.mfa_unenroll(alice["idToken"], factor["uid"])
    assert set(result) == {"user", "idToken", "refreshToken", "expiresIn", "additionalUserInfo"}
    assert result["user"]["multiFactor"] == {"enrolledFactors": []}
    engine.refresh_id_token(refresh_token=result["refreshToken"])  # fresh tokens of a continuing session
    assert decode(engine, result["idToken"])["auth_time"] == decode(engine, alice["idToken"])["auth_time"]
    with pytest.raises(phoneauth.MultiFactorInfoNotFoundError):
        engine.mfa_unenroll(alice["idToken"], factor["uid"])
    engine.refresh_id_token(refresh_token=alice["refreshToken"])  # sessions continue
    again = engine.sign_in_with_credential(credential=fixed_credential(engine, A))  # no second factor
    assert "sign_in_second_factor" not in decode(engine, again["idToken"])["firebase"]
    # The number is free again, even as a first factor.
    assert engine.sign_in_with_credential(credential=fixed_credential(engine, B))["additionalUserInfo"]["isNewUser"]


def test_delete_user_removes_factors_and_pending_sessions(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    enrol_fixed(engine, alice["idToken"], B)
    resolver = resolver_of(engine, lambda: engine.sign_in_with_credential(credential=fixed_credential(engine, A)))
    engine.delete_user(uid=alice["user"]["uid"])
    with pytest.raises(phoneauth.InvalidUserTokenError):
        engine.refresh_id_token(refresh_token=alice["refreshToken"])
    with pytest.raises(phoneauth.InvalidMultiFactorSessionError):
        resolver.verify_phone_number(resolver.hints[0])
    anew = engine.sign_in_with_credential(credential=fixed_credential(engine, A))  # no secondFactorRequired
    assert anew["additionalUserInfo"]["isNewUser"] is True
    assert anew["user"]["uid"] != alice["user"]["uid"]
    assert anew["user"]["multiFactor"] == {"enrolledFactors": []}
    assert engine.sign_in_with_credential(credential=fixed_credential(engine, B))["user"]["phoneNumber"] == B


def test_custom_token_user_with_a_second_factor(engine):
    first = engine.sign_in_with_custom_token(
        custom_token=engine.create_custom_token(uid="host-9", claims={"role": "admin"})["customToken"])
    enrol_fixed(engine, first["idToken"], B)
    token = engine.create_custom_token(uid="host-9", claims={"role": "admin"})["customToken"]
    resolver = resolver_of(engine, lambda: engine.sign_in_with_custom_token(custom_token=token))
    assert [h["phoneNumber"] for h in resolver.hints] == ["+*******1231"]
    result = resolve_fixed(engine, resolver, resolver.hints[0])
    assert result["user"]["uid"] == "host-9"
    assert result["additionalUserInfo"] == {"isNewUser": False, "providerId": "custom"}
    claims = decode(engine, result["idToken"])
    assert claims["firebase"]["sign_in_provider"] == "custom"
    assert claims["firebase"]["sign_in_second_factor"] == "phone"
    assert claims["role"] == "admin"


def test_disabled_user_cannot_resolve(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    enrol_fixed(engine, alice["idToken"], B)
    resolver = resolver_of(engine, lambda: engine.sign_in_with_credential(credential=fixed_credential(engine, A)))
    challenge = resolver.verify_phone_number(resolver.hints[0])
    engine.update_user(uid=alice["user"]["uid"], disabled=True)
    cred = credential_for(engine, challenge["verificationId"], TEST_CODE)
    with pytest.raises(phoneauth.UserDisabledError):
        resolver.resolve_sign_in(PhoneMultiFactorGenerator.assertion(cred))
    with pytest.raises(phoneauth.UserDisabledError):
        resolver.verify_phone_number(resolver.hints[0])


def test_resolver_is_built_only_from_second_factor_errors(engine):
    with pytest.raises(TypeError):
        MultiFactorResolver(engine, ValueError("x"))
    with pytest.raises(phoneauth.UnknownMethodError) as info:
        engine.call("noSuchMethod")
    with pytest.raises(ValueError):
        engine.get_multi_factor_resolver(info.value)


def test_assertion_helpers():
    cred = {"providerId": "phone", "verificationId": "v", "verificationCode": "1"}
    assert PhoneMultiFactorGenerator.assertion(cred) == {"factorId": "phone", "credential": cred}
    assert TotpMultiFactorGenerator.assertion_for_sign_in("e1", "123456") == {
        "factorId": "totp", "enrollmentId": "e1", "verificationCode": "123456"}


@pytest.mark.parametrize("mfa", [
    {"recentSignInSeconds": 9}, {"recentSignInSeconds": 86401},
    {"maxFactors": 0}, {"maxFactors": 21},
    {"sessionTtlSeconds": 29}, {"sessionTtlSeconds": 3601},
    {"sessionTtlSeconds": "300"}, {"colour": 1},
])
def test_bad_mfa_config_is_refused(make_engine, mfa):
    with pytest.raises(phoneauth.InvalidConfigurationError) as info:
        make_engine(mfa=mfa)
    assert "mfa" in info.value.message + json.dumps(info.value.details)


def test_mfa_config_limits_are_accepted(make_engine, tmp_path):
    make_engine(mfa={"recentSignInSeconds": 10, "maxFactors": 20, "sessionTtlSeconds": 30})
    make_engine(database=str(tmp_path / "other.db"), mfa={"recentSignInSeconds": 86400, "maxFactors": 1, "sessionTtlSeconds": 3600})
