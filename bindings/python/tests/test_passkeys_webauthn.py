"""phoneauth's passkey verification (libfido2 underneath) against an independent one, PyPI's
`webauthn` (Duo Labs' py_webauthn): the same registration (attestationObject, clientDataJSON)
and assertion (authenticatorData, signature, clientDataJSON), checked with the same challenge,
origin and relying party ID, and the assertion against the public key webauthn extracted, are
accepted by both or refused by both, case by case: ES256, EdDSA and RS256 keys, attestation none
and packed (self); another origin, another relying party's hash, a signature tampered with and a
counter gone back refused."""

import pytest
from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers.exceptions import WebAuthnException

import phoneauth
from softauth import ORIGIN, RP_ID, Authenticator, b64url, unb64url

NUMBER, CODE = "+16505551234", "123456"
OTHER_ORIGIN, OTHER_RP_ID = "https://login.example.net", "login.example.net"
KEYS = [(algorithm, attestation) for algorithm in ("ES256", "EdDSA", "RS256") for attestation in ("none", "packed")]
ACCEPTED = "accepted"


@pytest.fixture
def engine(make_engine, sms):
    return make_engine(sender=sms, testPhoneNumbers={NUMBER: CODE},
                       passkeys={"rpId": RP_ID, "rpName": "Example", "origins": [ORIGIN]})


@pytest.fixture
def id_token(engine) -> str:
    started = engine.verify_phone_number(NUMBER)
    credential = engine.credential(started["verificationId"], CODE)["credential"]
    return engine.sign_in_with_credential(credential)["idToken"]


def tampered(signature: bytes) -> bytes:
    """The same signature with its last byte changed (still well-formed DER for ES256)."""
    return signature[:-1] + bytes([signature[-1] ^ 0x01])


class Tampering:
    """While active, the authenticator's signatures come out with a byte changed."""

    def __init__(self, authenticator: Authenticator):
        self.authenticator = authenticator

    def __enter__(self):
        sign = self.authenticator.sign
        self.authenticator.sign = lambda message: tampered(sign(message))

    def __exit__(self, *exc_info):
        del self.authenticator.sign  # the class's method again


# ---- the two verdicts on one registration or assertion --------------------------------------------

def phoneauth_registers(engine, id_token: str, credential: dict) -> str:
    try:
        made = engine.finish_passkey_enrollment(id_token, credential)
    except phoneauth.InvalidCredentialError as refused:
        return refused.details["reason"]
    assert made["passkey"]["credentialId"] == credential["id"]
    return ACCEPTED


def webauthn_registers(options: dict, credential: dict):
    """(ACCEPTED, VerifiedRegistration) or (the refusal's text, None)."""
    try:
        return ACCEPTED, verify_registration_response(
            credential=credential, expected_challenge=unb64url(options["challenge"]), expected_rp_id=RP_ID,
            expected_origin=ORIGIN)
    except WebAuthnException as refused:
        return str(refused), None


def phoneauth_signs_in(engine, credential: dict) -> str:
    try:
        engine.finish_passkey_sign_in(credential)
    except phoneauth.InvalidCredentialError as refused:
        return refused.details["reason"]
    return ACCEPTED


def webauthn_signs_in(options: dict, credential: dict, public_key: bytes, sign_count: int):
    """(ACCEPTED, the new sign count) or (the refusal's text, None)."""
    try:
        verified = verify_authentication_response(
            credential=credential, expected_challenge=unb64url(options["challenge"]), expected_rp_id=RP_ID,
            expected_origin=ORIGIN, credential_public_key=public_key, credential_current_sign_count=sign_count)
    except WebAuthnException as refused:
        return str(refused), None
    return ACCEPTED, verified.new_sign_count


def register(engine, id_token: str, authenticator: Authenticator):
    """A registration both accept; webauthn's VerifiedRegistration."""
    options = engine.start_passkey_enrollment(id_token)["options"]
    credential = authenticator.create(options)
    verdict, verified = webauthn_registers(options, credential)
    assert verdict == ACCEPTED
    assert phoneauth_registers(engine, id_token, credential) == ACCEPTED
    return verified


# ---- both accept ------------------------------------------------------------------------------------

@pytest.mark.parametrize("algorithm,attestation", KEYS)
def test_both_accept_the_registration_and_its_assertions(engine, id_token, algorithm, attestation):
    authenticator = Authenticator(algorithm, attestation)
    verified = register(engine, id_token, authenticator)
    # webauthn read the same credential out of the attestation: its ID, key, format and counter.
    assert (verified.credential_id, verified.credential_public_key) == (authenticator.credential_id,
                                                                       authenticator.cose_key())
    assert (verified.fmt, verified.sign_count, verified.user_verified) == (attestation, 0, True)
    listed = engine.list_passkeys(id_token)["passkeys"]
    assert [(p["credentialId"], p["algorithm"], p["format"]) for p in listed] == [
        (b64url(verified.credential_id), authenticator.cose_algorithm, verified.fmt)]
    sign_count = verified.sign_count
    for asked in ({"phone_number": NUMBER}, {}):  # the user's passkeys, then any discoverable one
        options = engine.start_passkey_sign_in(**asked)["options"]
        assertion = authenticator.get(options)
        verdict, new_count = webauthn_signs_in(options, assertion, verified.credential_public_key, sign_count)
        assert (verdict, new_count) == (ACCEPTED, authenticator.counter)
        assert phoneauth_signs_in(engine, assertion) == ACCEPTED
        sign_count = new_count


# ---- both refuse --------------------------------------------------------------------------------------

@pytest.mark.parametrize("algorithm,attestation", KEYS)
def test_both_refuse_a_registration_with_one_thing_wrong(engine, id_token, algorithm, attestation):
    authenticator = Authenticator(algorithm, attestation)
    cases = [("another origin", "wrongOrigin", "origin", lambda options: authenticator.create(options,
                                                                                         origin=OTHER_ORIGIN)),
             ("another relying party", "wrongRelyingParty", "RP ID hash",
              lambda options: authenticator.create(options, rp_id=OTHER_RP_ID))]
    if attestation == "packed":
        def tampered_create(options):
            with Tampering(authenticator):
                return authenticator.create(options)
        cases.append(("a tampered attestation signature", "badSignature", "signature", tampered_create))
    for case, reason, webauthn_says, create in cases:
        options = engine.start_passkey_enrollment(id_token)["options"]
        credential = create(options)
        webauthn_verdict, _ = webauthn_registers(options, credential)
        assert webauthn_verdict != ACCEPTED and webauthn_says in webauthn_verdict, (case, webauthn_verdict)
        assert phoneauth_registers(engine, id_token, credential) == reason, case
    # The same authenticator, answering as it should, is accepted by both.
    register(engine, id_token, authenticator)


@pytest.mark.parametrize("algorithm,attestation", KEYS)
def test_both_refuse_an_assertion_with_one_thing_wrong(engine, id_token, algorithm, attestation):
    authenticator = Authenticator(algorithm, attestation)
    verified = register(engine, id_token, authenticator)
    options = engine.start_passkey_sign_in()["options"]
    first = authenticator.get(options)
    verdict, sign_count = webauthn_signs_in(options, first, verified.credential_public_key, verified.sign_count)
    assert verdict == ACCEPTED and phoneauth_signs_in(engine, first) == ACCEPTED

    def gone_back(options):
        authenticator.counter = sign_count - 1  # get() counts up to the stored count: not above it
        return authenticator.get(options)

    def tampered_get(options):
        with Tampering(authenticator):
            return authenticator.get(options)

    cases = [("another origin", "wrongOrigin", "origin", lambda options: authenticator.get(options, origin=OTHER_ORIGIN)),
             ("another relying party", "wrongRelyingParty", "RP ID hash",
              lambda options: authenticator.get(options, rp_id=OTHER_RP_ID)),
             ("a tampered signature", "badSignature", "signature", tampered_get),
             ("a counter gone back", "counterWentBack", "sign count", gone_back)]
    for case, reason, webauthn_says, get in cases:
        options = engine.start_passkey_sign_in(phone_number=NUMBER)["options"]
        assertion = get(options)
        webauthn_verdict, _ = webauthn_signs_in(options, assertion, verified.credential_public_key, sign_count)
        assert webauthn_verdict != ACCEPTED and webauthn_says in webauthn_verdict, (case, webauthn_verdict)
        assert phoneauth_signs_in(engine, assertion) == reason, case
    # Nothing refused moved the counter: the next assertion, counted up from it, is accepted by both.
    authenticator.counter = sign_count
    options = engine.start_passkey_sign_in()["options"]
    assertion = authenticator.get(options)
    assert webauthn_signs_in(options, assertion, verified.credential_public_key, sign_count) == (ACCEPTED,
                                                                                               sign_count + 1)
    assert phoneauth_signs_in(engine, assertion) == ACCEPTED
