"""Bad calls of the linking and second-factor methods: each missing field, wrong type or unknown
field gets its precise error, naming the field where the error is invalidArgument."""

import pytest

import phoneauth
from support import FIXED_NUMBERS, fixed_credential

A, B = "+16505551230", "+16505551231"
TOKEN, CRED = "<id token>", "<credential>"  # replaced by a live ID token and a sign-in credential
PHONE_ASSERTION = {"factorId": "phone", "credential": CRED}
E = phoneauth

CASES = [
    # method, params, error class, the field named (None: not checked)
    *[(m, p, e, f) for m in ("linkWithCredential", "updatePhoneNumber", "reauthenticateWithCredential")
      for p, e, f in [
          ({"credential": CRED}, E.InvalidArgumentError, "idToken"),
          ({"idToken": 5, "credential": CRED}, E.InvalidArgumentError, "idToken"),
          ({"idToken": TOKEN}, E.InvalidCredentialError, "credential"),
          ({"idToken": TOKEN, "credential": "abc"}, E.InvalidCredentialError, "credential"),
          ({"idToken": TOKEN, "credential": {}}, E.MissingVerificationIDError, None),
          ({"idToken": TOKEN, "credential": CRED, "extra": 1}, E.InvalidArgumentError, "extra"),
      ]],
    ("unlink", {"idToken": TOKEN}, E.InvalidArgumentError, "providerId"),
    ("unlink", {"providerId": "phone"}, E.InvalidArgumentError, "idToken"),
    ("unlink", {"idToken": TOKEN, "providerId": 1}, E.InvalidArgumentError, "providerId"),
    ("unlink", {"idToken": TOKEN, "providerId": "phone", "x": 1}, E.InvalidArgumentError, "x"),
    ("mfaEnrollStart", {"phoneNumber": B}, E.InvalidArgumentError, "idToken"),
    ("mfaEnrollStart", {"idToken": TOKEN}, E.MissingPhoneNumberError, None),
    ("mfaEnrollStart", {"idToken": TOKEN, "phoneNumber": "abc"}, E.InvalidPhoneNumberError, None),
    ("mfaEnrollStart", {"idToken": TOKEN, "phoneNumber": B, "languageCode": 1}, E.InvalidArgumentError, "languageCode"),
    ("mfaEnrollStart", {"idToken": TOKEN, "phoneNumber": B, "foo": 1}, E.InvalidArgumentError, "foo"),
    ("mfaEnrollFinalize", {"credential": CRED}, E.InvalidArgumentError, "idToken"),
    ("mfaEnrollFinalize", {"idToken": TOKEN}, E.InvalidCredentialError, "credential"),
    ("mfaEnrollFinalize", {"idToken": TOKEN, "credential": CRED, "displayName": 5}, E.InvalidArgumentError, "displayName"),
    ("mfaEnrollFinalize", {"idToken": TOKEN, "credential": CRED, "sessionInfo": "s"}, E.InvalidArgumentError, "sessionInfo"),
    ("mfaEnrollFinalize", {"idToken": TOKEN, "credential": CRED, "foo": 5}, E.InvalidArgumentError, "foo"),
    ("mfaEnrollFinalize", {"idToken": TOKEN, "factorId": "email"}, E.InvalidArgumentError, "factorId"),
    ("mfaEnrollFinalize", {"idToken": TOKEN, "factorId": "totp", "credential": CRED}, E.InvalidArgumentError, "credential"),
    ("mfaEnrollFinalize", {"idToken": TOKEN, "factorId": "totp", "verificationCode": "123456"},
     E.MissingMultiFactorSessionError, "sessionInfo"),
    ("mfaEnrollFinalize", {"idToken": TOKEN, "factorId": "totp", "sessionInfo": "s"}, E.MissingVerificationCodeError, None),
    ("mfaTotpStart", {}, E.InvalidArgumentError, "idToken"),
    ("mfaTotpStart", {"idToken": TOKEN, "issuer": 1}, E.InvalidArgumentError, "issuer"),
    ("mfaTotpStart", {"idToken": TOKEN, "accountName": "a" * 257}, E.InvalidArgumentError, "accountName"),
    ("mfaTotpStart", {"idToken": TOKEN, "foo": 1}, E.InvalidArgumentError, "foo"),
    ("mfaUnenroll", {"idToken": TOKEN}, E.InvalidArgumentError, "enrollmentId"),
    ("mfaUnenroll", {"idToken": TOKEN, "enrollmentId": 3}, E.InvalidArgumentError, "enrollmentId"),
    ("mfaUnenroll", {"idToken": TOKEN, "enrollmentId": "x", "y": 1}, E.InvalidArgumentError, "y"),
    ("mfaResolveSignIn", {"assertion": PHONE_ASSERTION}, E.MissingMultiFactorSessionError, None),
    ("mfaResolveSignIn", {"session": "s"}, E.MissingMultiFactorInfoError, None),
    ("mfaResolveSignIn", {"session": 1, "assertion": PHONE_ASSERTION}, E.InvalidArgumentError, "session"),
    ("mfaResolveSignIn", {"session": "s", "assertion": "x"}, E.InvalidArgumentError, "assertion"),
    ("mfaResolveSignIn", {"session": "s", "assertion": {"credential": CRED}}, E.InvalidArgumentError, "assertion.factorId"),
    ("mfaResolveSignIn", {"session": "s", "assertion": {"factorId": "email"}}, E.InvalidArgumentError, "assertion.factorId"),
    ("mfaResolveSignIn", {"session": "s", "assertion": {"factorId": "totp", "verificationCode": "123456"}},
     E.MissingMultiFactorInfoError, "assertion.enrollmentId"),
    ("mfaResolveSignIn", {"session": "s", "assertion": dict(PHONE_ASSERTION, z=1)}, E.InvalidArgumentError, "assertion.z"),
    ("mfaResolveSignIn", {"session": "s", "assertion": PHONE_ASSERTION, "z": 1}, E.InvalidArgumentError, "z"),
    ("verifyPhoneNumber", {"multiFactorHint": "h"}, E.MissingMultiFactorSessionError, None),
    ("verifyPhoneNumber", {"multiFactorSession": "s"}, E.MissingMultiFactorInfoError, None),
    ("verifyPhoneNumber", {"multiFactorHint": 1, "multiFactorSession": "s"}, E.InvalidArgumentError, "multiFactorHint"),
    ("verifyPhoneNumber", {"multiFactorHint": "h", "multiFactorSession": 1}, E.InvalidArgumentError, "multiFactorSession"),
    ("verifyPhoneNumber", {"phoneNumber": B, "multiFactorHint": "h", "multiFactorSession": "s"},
     E.InvalidArgumentError, "phoneNumber"),
    ("verifyPhoneNumber", {"phoneNumber": B, "multiFactorSession": "s"}, E.InvalidArgumentError, "phoneNumber"),
]


def fill(value, token, cred):
    if value == TOKEN:
        return token
    if value == CRED:
        return cred
    if isinstance(value, dict):
        return {k: fill(v, token, cred) for k, v in value.items()}
    return value


@pytest.fixture
def engine(make_engine, sms):
    return make_engine(sender=sms, testPhoneNumbers=FIXED_NUMBERS)


@pytest.mark.parametrize("method, params, error, field", CASES,
                         ids=[f"{m}-{i}" for i, (m, *_rest) in enumerate(CASES)])
def test_bad_calls_get_precise_errors(engine, method, params, error, field):
    token = engine.sign_in_with_credential(credential=fixed_credential(engine, A))["idToken"]
    cred = fixed_credential(engine, B)
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        engine.call(method, fill(params, token, cred))
    assert type(info.value) is error, repr(info.value)
    if field is not None:
        assert info.value.details.get("field") == field, repr(info.value)
        if error is phoneauth.InvalidArgumentError:
            assert field.split(".")[-1] in info.value.message
