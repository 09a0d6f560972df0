"""linkWithCredential, updatePhoneNumber, reauthenticateWithCredential, unlink, the temporary proof
of credentialAlreadyInUse, and the ID-token checks every method taking an idToken makes."""

import time

import pytest

import phoneauth
from support import FIXED_NUMBERS, custom_sign_in, enrol_fixed, fixed_credential, resolve_fixed, resolver_of
from test_tokens import decode

A, B, C, D = "+16505551230", "+16505551231", "+16505551232", "+16505551233"


@pytest.fixture
def engine(make_engine, sms):
    """The usual engine, plus FIXED_NUMBERS."""
    return make_engine(sender=sms, testPhoneNumbers=FIXED_NUMBERS)


def test_custom_token_user_links_a_phone(engine):
    host = custom_sign_in(engine, "host-1")
    linked = engine.link_with_credential(host["idToken"], fixed_credential(engine, A))
    assert set(linked) == {"user", "idToken", "refreshToken", "expiresIn", "additionalUserInfo"}
    assert linked["user"]["uid"] == "host-1" and linked["user"]["phoneNumber"] == A
    assert linked["user"]["providerData"] == [{"providerId": "phone", "uid": A, "phoneNumber": A}]
    assert linked["additionalUserInfo"] == {"isNewUser": False, "providerId": "phone"}  # as Firebase's after a link
    old, new = decode(engine, host["idToken"]), decode(engine, linked["idToken"])
    assert new["phone_number"] == A and "phone_number" not in old
    assert new["firebase"]["sign_in_provider"] == "phone"
    assert new["auth_time"] == old["auth_time"]  # carries on the presented session...
    assert new["sid"] != old["sid"]  # ...as a new one
    engine.refresh_id_token(refresh_token=host["refreshToken"])  # the presented one stays valid
    assert engine.get_user_by_phone_number(phone_number=A)["user"]["uid"] == "host-1"
    # The number now signs in to the same account.
    by_phone = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    assert by_phone["user"]["uid"] == "host-1" and by_phone["additionalUserInfo"]["isNewUser"] is False
    with pytest.raises(phoneauth.ProviderAlreadyLinkedError):
        engine.link_with_credential(linked["idToken"], fixed_credential(engine, B))


def test_linking_a_taken_number_gives_a_single_use_proof(engine):
    owner = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    host = custom_sign_in(engine, "host-1")
    cred = fixed_credential(engine, A)
    with pytest.raises(phoneauth.CredentialAlreadyInUseError) as info:
        engine.link_with_credential(host["idToken"], cred)
    assert set(info.value.details) == {"temporaryProof", "expiresAt", "phoneNumber"}
    assert info.value.details["phoneNumber"] == A  # the number the code proved, kept by Firebase's clients
    proof = info.value.details["temporaryProof"]
    assert proof not in info.value.message and A not in info.value.message
    assert proof not in repr(info.value) and A not in repr(info.value)  # repr ends up in logs
    with pytest.raises(phoneauth.SessionExpiredError):  # the code was consumed
        engine.sign_in_with_credential(credential=cred)
    assert engine.get_user(uid="host-1")["user"]["phoneNumber"] is None

    result = engine.sign_in_with_credential(credential={"temporaryProof": proof})
    assert result["user"]["uid"] == owner["user"]["uid"]
    assert decode(engine, result["idToken"])["phone_number"] == A
    # Once only: presented again within signInRetrySeconds it is a retry, and gets that session.
    again = engine.sign_in_with_credential(credential={"temporaryProof": proof})
    assert again["refreshToken"] == result["refreshToken"]

    # The full form, as Firebase's credential carries it.
    with pytest.raises(phoneauth.CredentialAlreadyInUseError) as info:
        engine.link_with_credential(host["idToken"], fixed_credential(engine, A))
    full = {"providerId": "phone", "temporaryProof": info.value.details["temporaryProof"], "phoneNumber": A}
    assert engine.sign_in_with_credential(credential=full)["user"]["uid"] == owner["user"]["uid"]


def test_malformed_temporary_proofs(engine):
    with pytest.raises(phoneauth.InvalidCredentialError):
        engine.sign_in_with_credential(credential={"temporaryProof": "not-a-proof"})
    with pytest.raises(phoneauth.InvalidCredentialError):
        engine.sign_in_with_credential(credential={"temporaryProof": "x", "verificationId": "v"})
    with pytest.raises(phoneauth.InvalidCredentialError):
        engine.sign_in_with_credential(credential={"providerId": "custom", "temporaryProof": "x"})
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.sign_in_with_credential(credential={"temporaryProof": 5})
    assert info.value.details.get("field") == "credential.temporaryProof"


def test_an_enrolled_number_cannot_be_linked_or_set(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    enrol_fixed(engine, alice["idToken"], B)
    host = custom_sign_in(engine, "host-1")
    with pytest.raises(phoneauth.UnsupportedFirstFactorError):
        engine.link_with_credential(host["idToken"], fixed_credential(engine, B))
    bob = engine.sign_in_with_credential(credential=fixed_credential(engine, C))
    with pytest.raises(phoneauth.UnsupportedFirstFactorError):
        engine.update_phone_number(bob["idToken"], fixed_credential(engine, B))


def test_unlink(engine):
    host = custom_sign_in(engine, "host-1")
    linked = engine.link_with_credential(host["idToken"], fixed_credential(engine, A))
    with pytest.raises(phoneauth.NoSuchProviderError):
        engine.unlink(linked["idToken"], "custom")
    result = engine.unlink(linked["idToken"], "phone")
    assert set(result) == {"user"}
    assert result["user"]["phoneNumber"] is None
    assert result["user"]["providerData"] == []
    with pytest.raises(phoneauth.NoSuchProviderError):
        engine.unlink(linked["idToken"], "phone")
    engine.refresh_id_token(refresh_token=linked["refreshToken"])  # sessions continue
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user_by_phone_number(phone_number=A)
    # The number is free: it now makes a new user.
    assert engine.sign_in_with_credential(credential=fixed_credential(engine, A))["additionalUserInfo"]["isNewUser"]


def test_update_phone_number(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    engine.sign_in_with_credential(credential=fixed_credential(engine, C))  # Bob has C
    with pytest.raises(phoneauth.CredentialAlreadyInUseError) as info:
        engine.update_phone_number(alice["idToken"], fixed_credential(engine, C))
    assert info.value.details["phoneNumber"] == C
    # The code is consumed; its proof signs in to Bob, as a link's does.
    bob = engine.sign_in_with_credential(credential={"temporaryProof": info.value.details["temporaryProof"]})
    assert bob["user"]["phoneNumber"] == C and bob["user"]["uid"] != alice["user"]["uid"]
    updated = engine.update_phone_number(alice["idToken"], fixed_credential(engine, B))
    assert updated["user"]["uid"] == alice["user"]["uid"] and updated["user"]["phoneNumber"] == B
    assert set(updated) == {"user", "idToken", "refreshToken", "expiresIn", "additionalUserInfo"}
    assert decode(engine, updated["idToken"])["phone_number"] == B
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user_by_phone_number(phone_number=A)
    assert engine.get_user_by_phone_number(phone_number=B)["user"]["uid"] == alice["user"]["uid"]


def test_reauthenticate_gives_a_new_auth_time(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    time.sleep(1.1)  # auth_time is in whole seconds
    before = int(time.time())
    again = engine.reauthenticate_with_credential(alice["idToken"], fixed_credential(engine, A))
    after = time.time()
    assert again["user"]["uid"] == alice["user"]["uid"]
    assert again["additionalUserInfo"] == {"isNewUser": False, "providerId": "phone"}
    old, new = decode(engine, alice["idToken"]), decode(engine, again["idToken"])
    assert new["auth_time"] > old["auth_time"]
    assert before <= new["auth_time"] <= after  # the time of the reauthentication
    assert new["sid"] != old["sid"]


def test_reauthenticate_with_another_number_is_a_mismatch(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    engine.sign_in_with_credential(credential=fixed_credential(engine, B))  # Bob's number
    for number in (B, C):  # another user's, and nobody's
        with pytest.raises(phoneauth.UserMismatchError):
            engine.reauthenticate_with_credential(alice["idToken"], fixed_credential(engine, number))
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user_by_phone_number(phone_number=C)  # no user was made for C


def test_reauthenticate_with_a_second_factor(engine):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    enrolled = enrol_fixed(engine, alice["idToken"], B)
    time.sleep(1.1)
    resolver = resolver_of(engine, lambda: engine.reauthenticate_with_credential(
        enrolled["idToken"], fixed_credential(engine, A)))
    result = resolve_fixed(engine, resolver, resolver.hints[0])
    claims = decode(engine, result["idToken"])
    assert claims["auth_time"] > decode(engine, alice["idToken"])["auth_time"]
    assert claims["firebase"]["sign_in_second_factor"] == "phone"


# Every method that takes an idToken, called with valid other arguments (None: filled in the test).
ID_TOKEN_METHODS = [
    ("linkWithCredential", {"credential": None}),
    ("updatePhoneNumber", {"credential": None}),
    ("reauthenticateWithCredential", {"credential": None}),
    ("unlink", {"providerId": "phone"}),
    ("mfaEnrollStart", {"phoneNumber": D}),
    ("mfaEnrollFinalize", {"credential": None}),
    ("mfaTotpStart", {}),
    ("mfaUnenroll", {"enrollmentId": "x"}),
]


def call_with(engine, method, params, id_token):
    params = dict(params, idToken=id_token)
    if "credential" in params:
        params["credential"] = fixed_credential(engine, C)
    return engine.call(method, params)


@pytest.mark.parametrize("method, params", ID_TOKEN_METHODS, ids=[m for m, _ in ID_TOKEN_METHODS])
def test_ended_sessions_tokens_are_refused(engine, method, params):
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    engine.sign_out(refresh_token=alice["refreshToken"])
    with pytest.raises(phoneauth.InvalidUserTokenError) as info:
        call_with(engine, method, params, alice["idToken"])
    assert info.value.details["reason"] == "sessionEnded"
    # So are a revoked user's, a disabled user's and a deleted user's.
    again = engine.sign_in_with_credential(credential=fixed_credential(engine, A))
    engine.revoke_refresh_tokens(uid=again["user"]["uid"])
    with pytest.raises(phoneauth.InvalidUserTokenError):
        call_with(engine, method, params, again["idToken"])
    host = custom_sign_in(engine, "host-1")
    engine.update_user(uid="host-1", disabled=True)
    with pytest.raises(phoneauth.UserDisabledError):
        call_with(engine, method, params, host["idToken"])
    gone = custom_sign_in(engine, "host-2")
    engine.delete_user(uid="host-2")
    with pytest.raises(phoneauth.UserNotFoundError):
        call_with(engine, method, params, gone["idToken"])


@pytest.mark.parametrize("method, params", ID_TOKEN_METHODS, ids=[m for m, _ in ID_TOKEN_METHODS])
def test_bad_id_tokens_are_refused(make_engine, engine, tmp_path, method, params):
    with pytest.raises(phoneauth.InvalidIdTokenError):
        call_with(engine, method, params, "x.y.z")
    other = make_engine(database=str(tmp_path / "other.db"), testPhoneNumbers=FIXED_NUMBERS)
    foreign = other.sign_in_with_credential(credential=fixed_credential(other, A))["idToken"]
    with pytest.raises(phoneauth.InvalidIdTokenError):
        call_with(engine, method, params, foreign)
    with pytest.raises(phoneauth.InvalidIdTokenError):  # a custom token is not an ID token
        call_with(engine, method, params, engine.create_custom_token(uid="u")["customToken"])
