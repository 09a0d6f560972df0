"""Passkeys through the C ABI's JSON methods and the Engine's typed methods: a user who signed in
by SMS registers a passkey made by a software authenticator (softauth: P-256 as a browser's
virtual one, Ed25519, RSA) and signs in with it, with no code; the browser's PublicKeyCredential
JSON is what the methods take."""

import pytest

import phoneauth
from softauth import ORIGIN, RP_ID, Authenticator, b64url, unb64url

NUMBER, CODE = "+16505551234", "123456"


@pytest.fixture
def engine(make_engine, sms):
    return make_engine(sender=sms, testPhoneNumbers={NUMBER: CODE},
                       passkeys={"rpId": RP_ID, "rpName": "Example", "origins": [ORIGIN]})


def phone_sign_in(engine) -> dict:
    started = engine.verify_phone_number(NUMBER)
    credential = engine.credential(started["verificationId"], CODE)["credential"]
    return engine.sign_in_with_credential(credential)


def test_a_user_who_signed_in_by_sms_signs_in_again_with_a_passkey(engine):
    signed_in = phone_sign_in(engine)
    authenticator = Authenticator()
    options = engine.call("startPasskeyEnrollment", {"idToken": signed_in["idToken"]})["options"]
    assert options["rp"] == {"id": RP_ID, "name": "Example"}
    handle = unb64url(options["user"]["id"])  # made with a server key: not the uid itself
    assert len(handle) == 32 and signed_in["user"]["uid"].encode() not in handle
    assert options["authenticatorSelection"]["residentKey"] == "required"
    made = engine.call("finishPasskeyEnrollment", {"idToken": signed_in["idToken"],
                                                   "credential": authenticator.create(options), "name": "Phone"})
    assert made["passkey"]["credentialId"] == b64url(authenticator.credential_id)
    options = engine.call("startPasskeySignIn", {"phoneNumber": NUMBER})["options"]
    assert [c["id"] for c in options["allowCredentials"]] == [b64url(authenticator.credential_id)]
    again = engine.call("finishPasskeySignIn", {"credential": authenticator.get(options)})
    assert again["user"]["uid"] == signed_in["user"]["uid"]
    claims = engine.verify_id_token(again["idToken"])["claims"]
    assert claims["firebase"]["sign_in_provider"] == "passkey"
    listed = engine.call("listPasskeys", {"idToken": again["idToken"]})["passkeys"]
    assert [p["name"] for p in listed] == ["Phone"] and listed[0]["lastUsedAt"]


def test_refusals_name_their_reason_and_bad_input_its_field(engine):
    signed_in = phone_sign_in(engine)
    authenticator = Authenticator()
    options = engine.call("startPasskeyEnrollment", {"idToken": signed_in["idToken"]})["options"]
    engine.call("finishPasskeyEnrollment", {"idToken": signed_in["idToken"], "credential": authenticator.create(options)})
    options = engine.call("startPasskeySignIn", {})["options"]
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        engine.call("finishPasskeySignIn", {"credential": authenticator.get(options, origin="https://evil.example")})
    assert info.value.code == "invalidCredential" and info.value.details["reason"] == "wrongOrigin", info.value
    for credential, field in (({"id": "!"}, "credential.id"), ({"id": "AAAA", "rawId": "AAAB"}, "credential.rawId"),
                              ({"id": "AAAA", "response": {"clientDataJSON": "AA"}}, "credential.response.authenticatorData"),
                              ("not an object", "credential"), (None, "credential")):
        with pytest.raises(phoneauth.PhoneAuthError) as info:
            engine.call("finishPasskeySignIn", {} if credential is None else {"credential": credential})
        assert info.value.code == "invalidArgument" and info.value.details.get("field") == field, (field, info.value)


def test_off_unless_configured(make_engine, sms):
    engine = make_engine(sender=sms)
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        engine.call("startPasskeySignIn", {})
    assert info.value.code == "operationNotAllowed", info.value


def test_the_typed_methods_enrol_sign_in_list_and_delete(engine):
    signed_in = phone_sign_in(engine)
    uid, authenticator = signed_in["user"]["uid"], Authenticator("EdDSA", "packed")
    options = engine.start_passkey_enrollment(signed_in["idToken"])["options"]
    assert options["rp"]["id"] == RP_ID and options["user"]["name"]
    made = engine.finish_passkey_enrollment(signed_in["idToken"], authenticator.create(options), name="Laptop")
    assert made["passkey"]["credentialId"] == b64url(authenticator.credential_id)
    assert (made["passkey"]["name"], made["passkey"]["algorithm"], made["passkey"]["format"]) == ("Laptop", -8, "packed")
    # Beside it, the sign-in result of the session carried on, whose user lists the passkey.
    assert made["user"]["uid"] == uid and made["user"]["passkeyInfo"] == [made["passkey"]]
    assert engine.verify_id_token(made["idToken"])["claims"]["sub"] == uid and made["refreshToken"]
    # By uid, the user's passkey is allowed; with no name, any discoverable one answers.
    by_uid = engine.start_passkey_sign_in(uid=uid)["options"]
    assert [c["id"] for c in by_uid["allowCredentials"]] == [made["passkey"]["credentialId"]]
    anyone = engine.start_passkey_sign_in()["options"]
    assert not anyone.get("allowCredentials") and anyone["challenge"] != by_uid["challenge"]
    again = engine.finish_passkey_sign_in(authenticator.get(anyone), client_ip="203.0.113.9", user_agent="test/1.0")
    assert again["user"]["uid"] == uid and again["refreshToken"]
    assert engine.verify_id_token(again["idToken"])["claims"]["firebase"]["sign_in_provider"] == "passkey"
    listed = engine.list_passkeys(again["idToken"])["passkeys"]
    assert [(p["credentialId"], p["name"]) for p in listed] == [(made["passkey"]["credentialId"], "Laptop")]
    assert engine.delete_passkey(again["idToken"], made["passkey"]["credentialId"]) == {}
    assert engine.list_passkeys(again["idToken"])["passkeys"] == []
    assert not engine.get_user(uid)["user"].get("passkeyInfo")
    with pytest.raises(phoneauth.InvalidCredentialError) as info:
        engine.finish_passkey_sign_in(authenticator.get(engine.start_passkey_sign_in()["options"]))
    assert info.value.details["reason"] == "unknownCredential", info.value


@pytest.mark.parametrize("algorithm", ["ES256", "EdDSA", "RS256"])
@pytest.mark.parametrize("attestation", ["none", "packed"])
def test_every_key_type_and_attestation_signs_in(engine, algorithm, attestation):
    signed_in = phone_sign_in(engine)
    authenticator = Authenticator(algorithm, attestation)
    options = engine.start_passkey_enrollment(id_token=signed_in["idToken"])["options"]
    made = engine.finish_passkey_enrollment(id_token=signed_in["idToken"], credential=authenticator.create(options))
    assert (made["passkey"]["algorithm"], made["passkey"]["format"]) == (authenticator.cose_algorithm, attestation)
    for _ in range(2):  # the counter goes up each time
        options = engine.start_passkey_sign_in(phone_number=NUMBER)["options"]
        again = engine.finish_passkey_sign_in(credential=authenticator.get(options))
        assert again["user"]["uid"] == signed_in["user"]["uid"]


def test_the_typed_methods_leave_out_what_is_not_given(engine):
    # An argument not given is left out, and the method names the lowerCamel parameter missing;
    # other keywords go as lowerCamel too (an unknown one is refused by its name).
    signed_in = phone_sign_in(engine)
    for call, field in ((lambda: engine.finish_passkey_sign_in(), "credential"),
                        (lambda: engine.finish_passkey_enrollment(signed_in["idToken"]), "credential"),
                        (lambda: engine.finish_passkey_enrollment(credential={"id": "AAAA"}), "idToken"),
                        (lambda: engine.start_passkey_enrollment(), "idToken"),
                        (lambda: engine.list_passkeys(), "idToken"),
                        (lambda: engine.delete_passkey(signed_in["idToken"]), "credentialId")):
        with pytest.raises(phoneauth.PhoneAuthError) as info:
            call()
        assert info.value.code == "invalidArgument" and field in str(info.value.details), (field, info.value)
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        engine.start_passkey_sign_in(uid=signed_in["user"]["uid"], no_such_parameter=1)
    assert info.value.code == "invalidArgument" and "noSuchParameter" in str(info.value), info.value


def test_the_typed_methods_are_refused_when_passkeys_are_off(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers={NUMBER: CODE})
    signed_in = phone_sign_in(engine)
    for call in (lambda: engine.start_passkey_enrollment(signed_in["idToken"]),
                 lambda: engine.start_passkey_sign_in(phone_number=NUMBER)):
        with pytest.raises(phoneauth.OperationNotAllowedError):
            call()
