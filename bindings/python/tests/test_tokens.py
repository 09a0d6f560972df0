"""ID tokens (checked independently with PyJWT against getJwks), verifyIdToken, refresh-token
rotation, signOut, revokeRefreshTokens and disabled users."""

import base64
import json
import threading
import time

import jwt
import pytest

import phoneauth
from support import REAL_NUMBER, parse_time, sign_in

KEY_TYPES = {"ES256": "EC", "RS256": "RSA", "EdDSA": "OKP"}
PRIVATE_MEMBERS = {"d", "p", "q", "dp", "dq", "qi", "k"}


def b64decode(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def b64encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def decode(engine, token, audience="phoneauth", issuer="https://phoneauth.local/phoneauth"):
    """Verifies `token` with PyJWT and the engine's published keys, not with the engine."""
    header = jwt.get_unverified_header(token)
    jwk = next(k for k in engine.get_jwks()["keys"] if k["kid"] == header["kid"])
    key = jwt.PyJWK(jwk)
    return jwt.decode(token, key.key, algorithms=[jwk["alg"]], audience=audience, issuer=issuer,
                      leeway=5)


@pytest.mark.parametrize("algorithm", [None, "ES256", "RS256", "EdDSA"])
def test_id_token_verifies_with_pyjwt(make_engine, sms, algorithm):
    overrides = {"signingAlgorithm": algorithm} if algorithm else {}
    engine = make_engine(sender=sms, **overrides)
    expected = algorithm or "ES256"
    result = sign_in(engine, sms)
    header = jwt.get_unverified_header(result["idToken"])
    assert header["alg"] == expected
    assert header["typ"] == "JWT"
    keys = engine.get_jwks()["keys"]
    assert header["kid"] in {k["kid"] for k in keys}
    for key in keys:
        assert {"kid", "kty", "alg", "use"} <= set(key)
        assert key["use"] == "sig"
        assert not PRIVATE_MEMBERS & set(key), f"private key material in the JWKS: {key.keys()}"
    signing = next(k for k in keys if k["kid"] == header["kid"])
    assert (signing["alg"], signing["kty"]) == (expected, KEY_TYPES[expected])
    claims = decode(engine, result["idToken"])
    assert claims["sub"] == result["user"]["uid"]
    assert engine.verify_id_token(id_token=result["idToken"])["claims"] == claims


def test_claims(engine, sms):
    now = time.time()
    result = sign_in(engine, sms)
    claims = decode(engine, result["idToken"])
    uid = result["user"]["uid"]
    assert claims["iss"] == "https://phoneauth.local/phoneauth"
    assert claims["aud"] == "phoneauth"
    assert claims["sub"] == uid and claims["user_id"] == uid
    assert isinstance(claims["iat"], int) and abs(claims["iat"] - now) < 10
    assert claims["exp"] - claims["iat"] == 3600
    assert claims["auth_time"] <= claims["iat"]
    assert claims["phone_number"] == REAL_NUMBER
    assert claims["firebase"]["identities"] == {"phone": [REAL_NUMBER]}
    assert claims["firebase"]["sign_in_provider"] == "phone"


def test_token_lifetime_is_configurable(make_engine, sms):
    engine = make_engine(sender=sms, idTokenTtlSeconds=120)
    result = sign_in(engine, sms)
    claims = decode(engine, result["idToken"])
    assert claims["exp"] - claims["iat"] == 120
    assert result["expiresIn"] == 120


def test_project_id_and_issuer(make_engine, sms, tmp_path):
    engine = make_engine(sender=sms, projectId="my-project")
    token = sign_in(engine, sms)["idToken"]
    claims = decode(engine, token, audience="my-project", issuer="https://phoneauth.local/my-project")
    assert engine.verify_id_token(id_token=token)["claims"] == claims

    other = make_engine(database=str(tmp_path / "issuer.db"), sender=sms,
                        projectId="my-project", issuer="https://auth.example.test/tenant")
    token = sign_in(other, sms)["idToken"]
    decode(other, token, audience="my-project", issuer="https://auth.example.test/tenant")
    other.verify_id_token(id_token=token)


def forged_variants(token):
    header_part, payload_part, signature = token.split(".")
    header = json.loads(b64decode(header_part))
    payload = json.loads(b64decode(payload_part))
    changed = dict(payload, phone_number="+16505550000", sub="someone-else", user_id="someone-else")
    middle = len(signature) // 2
    flipped = signature[:middle] + ("A" if signature[middle] != "A" else "B") + signature[middle + 1:]
    none_header = b64encode(json.dumps(dict(header, alg="none")).encode())
    unknown_kid = b64encode(json.dumps(dict(header, kid="no-such-key")).encode())
    return {
        "payload changed": f"{header_part}.{b64encode(json.dumps(changed).encode())}.{signature}",
        "signature changed": f"{header_part}.{payload_part}.{flipped}",
        "alg none": f"{none_header}.{payload_part}.",
        "HS256 with the kid": jwt.encode(payload, "a-shared-secret-of-at-least-32-bytes", algorithm="HS256", headers={"kid": header["kid"]}),
        "unknown kid": f"{unknown_kid}.{payload_part}.{signature}",
        "two parts": f"{header_part}.{payload_part}",
        "garbage": "not-a-token",
    }


def test_tampered_tokens_are_rejected(engine, sms):
    token = sign_in(engine, sms)["idToken"]
    engine.verify_id_token(id_token=token)
    for name, forged in forged_variants(token).items():
        with pytest.raises(phoneauth.InvalidIdTokenError) as info:
            engine.verify_id_token(id_token=forged)
        assert info.value.details.get("reason"), f"{name}: no details.reason"


def test_token_of_another_database_is_rejected(make_engine, sms, tmp_path):
    a = make_engine(sender=sms)
    b = make_engine(database=str(tmp_path / "other.db"))
    token = sign_in(a, sms)["idToken"]
    with pytest.raises(phoneauth.InvalidIdTokenError):
        b.verify_id_token(id_token=token)


def test_wrong_audience_or_issuer_is_rejected(make_engine, sms):
    engine = make_engine(sender=sms)
    token = sign_in(engine, sms)["idToken"]
    other_project = make_engine(projectId="other-project")  # same database, same keys
    with pytest.raises(phoneauth.InvalidIdTokenError):
        other_project.verify_id_token(id_token=token)
    other_issuer = make_engine(issuer="https://other.example.test")
    with pytest.raises(phoneauth.InvalidIdTokenError):
        other_issuer.verify_id_token(id_token=token)


def test_refresh_rotates_the_refresh_token(engine, sms):
    first = sign_in(engine, sms)
    refreshed = engine.refresh_id_token(refresh_token=first["refreshToken"])
    assert set(refreshed) >= {"idToken", "refreshToken", "expiresIn"}
    assert refreshed["refreshToken"] != first["refreshToken"]
    assert refreshed["expiresIn"] == 3600
    old_claims = decode(engine, first["idToken"])
    new_claims = decode(engine, refreshed["idToken"])
    assert new_claims["sub"] == old_claims["sub"]
    assert new_claims["auth_time"] == old_claims["auth_time"]
    # Again with the new one: works, and rotates again.
    again = engine.refresh_id_token(refresh_token=refreshed["refreshToken"])
    assert again["refreshToken"] not in (first["refreshToken"], refreshed["refreshToken"])


def test_reused_refresh_token_ends_the_session(engine, sms):
    first = sign_in(engine, sms)
    rotated = engine.refresh_id_token(refresh_token=first["refreshToken"])["refreshToken"]
    newest = engine.refresh_id_token(refresh_token=rotated)["refreshToken"]
    # Older than the previous generation: theft, whatever the reuse interval.
    with pytest.raises(phoneauth.InvalidUserTokenError) as info:
        engine.refresh_id_token(refresh_token=first["refreshToken"])
    assert info.value.details.get("reason") == "reused"
    with pytest.raises(phoneauth.InvalidUserTokenError):
        engine.refresh_id_token(refresh_token=newest)


def test_concurrent_refreshes_of_one_token_all_succeed(engine, sms):
    first = sign_in(engine, sms)
    results, errors = [], []

    def refresh():
        try:
            results.append(engine.refresh_id_token(refresh_token=first["refreshToken"])["refreshToken"])
        except phoneauth.PhoneAuthError as error:
            errors.append(error)

    threads = [threading.Thread(target=refresh) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(results) == 8
    assert len(set(results)) == 1          # one new token, the same for every caller
    assert engine.refresh_id_token(refresh_token=results[0])["refreshToken"]  # the session lives


def test_a_retry_after_a_lost_response_gets_the_same_token(engine, sms):
    first = sign_in(engine, sms)
    lost = engine.refresh_id_token(refresh_token=first["refreshToken"])
    retried = engine.refresh_id_token(refresh_token=first["refreshToken"])
    assert retried["refreshToken"] == lost["refreshToken"]
    assert engine.verify_id_token(retried["idToken"], check_revoked=True)["claims"]["sub"] == first["user"]["uid"]


def test_the_previous_token_after_the_reuse_interval_ends_the_session(make_engine, sms):
    engine = make_engine(sender=sms, refreshReuseIntervalSeconds=1)
    first = sign_in(engine, sms)
    rotated = engine.refresh_id_token(refresh_token=first["refreshToken"])["refreshToken"]
    time.sleep(1.2)
    with pytest.raises(phoneauth.InvalidUserTokenError) as info:
        engine.refresh_id_token(refresh_token=first["refreshToken"])
    assert info.value.details.get("reason") == "reused"
    with pytest.raises(phoneauth.InvalidUserTokenError):
        engine.refresh_id_token(refresh_token=rotated)


def test_a_zero_reuse_interval_is_strict(make_engine, sms):
    engine = make_engine(sender=sms, refreshReuseIntervalSeconds=0)
    first = sign_in(engine, sms)
    engine.refresh_id_token(refresh_token=first["refreshToken"])
    with pytest.raises(phoneauth.InvalidUserTokenError) as info:
        engine.refresh_id_token(refresh_token=first["refreshToken"])
    assert info.value.details.get("reason") == "reused"


def test_unknown_refresh_token(engine):
    with pytest.raises(phoneauth.InvalidUserTokenError):
        engine.refresh_id_token(refresh_token="not-a-refresh-token")


def test_sign_out_ends_only_that_session(engine, sms):
    a = sign_in(engine, sms)
    b = sign_in(engine, sms)
    assert a["user"]["uid"] == b["user"]["uid"]
    assert engine.sign_out(refresh_token=a["refreshToken"]) == {}
    with pytest.raises(phoneauth.InvalidUserTokenError) as info:
        engine.refresh_id_token(refresh_token=a["refreshToken"])
    assert info.value.details.get("reason") == "signedOut"
    engine.refresh_id_token(refresh_token=b["refreshToken"])
    assert engine.sign_out(refresh_token=a["refreshToken"]) == {}  # twice is not an error


def test_revoke_refresh_tokens(engine, sms):
    result = sign_in(engine, sms)
    uid = result["user"]["uid"]
    signed_in_at = parse_time(result["user"]["metadata"]["lastSignInTime"])
    engine.verify_id_token(id_token=result["idToken"], check_revoked=True)
    time.sleep(1.1)  # times are in seconds
    assert engine.revoke_refresh_tokens(uid=uid) == {}
    assert parse_time(engine.get_user(uid=uid)["user"]["tokensValidAfterTime"]) > signed_in_at
    with pytest.raises(phoneauth.IdTokenRevokedError):
        engine.verify_id_token(id_token=result["idToken"], check_revoked=True)
    engine.verify_id_token(id_token=result["idToken"])  # without checkRevoked: still valid
    with pytest.raises(phoneauth.InvalidUserTokenError):
        engine.refresh_id_token(refresh_token=result["refreshToken"])
    time.sleep(1.1)
    fresh = sign_in(engine, sms)
    engine.verify_id_token(id_token=fresh["idToken"], check_revoked=True)
    engine.refresh_id_token(refresh_token=fresh["refreshToken"])


def test_disabled_user(engine, sms):
    result = sign_in(engine, sms)
    uid = result["user"]["uid"]
    assert engine.update_user(uid=uid, disabled=True)["user"]["disabled"] is True
    assert engine.get_user(uid=uid)["user"]["disabled"] is True
    with pytest.raises(phoneauth.UserDisabledError):
        engine.verify_id_token(id_token=result["idToken"], check_revoked=True)
    engine.verify_id_token(id_token=result["idToken"])  # the signature and times are still fine
    with pytest.raises(phoneauth.UserDisabledError):
        sign_in(engine, sms)
    with pytest.raises((phoneauth.UserDisabledError, phoneauth.InvalidUserTokenError)):
        engine.refresh_id_token(refresh_token=result["refreshToken"])
    assert engine.update_user(uid=uid, disabled=False)["user"]["disabled"] is False
    time.sleep(1.1)  # disabling ended the sessions up to that second
    again = sign_in(engine, sms)
    assert again["user"]["uid"] == uid
    engine.verify_id_token(id_token=again["idToken"], check_revoked=True)
