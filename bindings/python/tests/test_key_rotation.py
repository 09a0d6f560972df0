"""Signing-key rotation through the binding: a token signed before a rotation verifies with PyJWT
against the new JWKS until the old key retires; retiring a key refuses its tokens at once; and
engines in two processes that find automatic rotation due make exactly one new key."""

import json
import sqlite3
import subprocess
import sys
import time

import jwt
import pytest

import phoneauth
from support import POSTGRES, custom_sign_in, engine_config


def pyjwt_verify(engine, token):
    """Checks `token` as a client would: PyJWT with the engine's JWKS, signature and expiry."""
    keys = {k["kid"]: jwt.PyJWK(k) for k in engine.get_jwks()["keys"]}
    kid = jwt.get_unverified_header(token)["kid"]
    if kid not in keys:
        raise jwt.InvalidKeyError(f"kid {kid} is not in the JWKS")
    return jwt.decode(token, keys[kid].key, algorithms=[keys[kid].algorithm_name], audience="phoneauth",
                      options={"verify_iss": False})


def test_a_token_signed_before_a_rotation_verifies_against_the_new_jwks(make_engine):
    engine = make_engine(idTokenTtlSeconds=60)
    before = custom_sign_in(engine, "u")["idToken"]
    keys = engine.rotate_signing_key()["keys"]
    assert [k["active"] for k in keys] == [False, True] and "retiresAt" in keys[0]
    after = custom_sign_in(engine, "u")["idToken"]
    assert jwt.get_unverified_header(after)["kid"] != jwt.get_unverified_header(before)["kid"]
    assert pyjwt_verify(engine, before)["sub"] == "u"
    assert pyjwt_verify(engine, after)["sub"] == "u"
    engine.verify_id_token(id_token=before)


def test_the_old_key_leaves_the_jwks_when_its_tokens_have_expired(make_engine):
    engine = make_engine(idTokenTtlSeconds=60)
    before = custom_sign_in(engine, "u")["idToken"]
    old_kid = jwt.get_unverified_header(before)["kid"]
    engine.rotate_signing_key()
    retires = [k["retiresAt"] for k in engine.list_signing_keys()["keys"] if k["kid"] == old_kid]
    assert retires, "scheduled"
    # The old key retires idTokenTtlSeconds after the rotation: its last token has expired by then.
    assert jwt.decode(before, options={"verify_signature": False})["exp"] <= parse(retires[0])


def parse(rfc3339):
    return int(time.mktime(time.strptime(rfc3339, "%Y-%m-%dT%H:%M:%S.%fZ"))) - time.timezone


def test_retiring_a_leaked_key_refuses_its_tokens_at_once(make_engine):
    engine = make_engine()
    token = custom_sign_in(engine, "u")["idToken"]
    leaked = jwt.get_unverified_header(token)["kid"]
    keys = engine.retire_signing_key(kid=leaked)["keys"]
    assert leaked not in [k["kid"] for k in keys] and len(keys) == 1
    with pytest.raises(phoneauth.InvalidIdTokenError):
        engine.verify_id_token(id_token=token)
    with pytest.raises(jwt.InvalidKeyError):
        pyjwt_verify(engine, token)
    assert pyjwt_verify(engine, custom_sign_in(engine, "u")["idToken"])["sub"] == "u"


CHILD = """
import json, sys, phoneauth
engine = phoneauth.Engine(json.loads(sys.argv[1]))
print("ready", flush=True)
sys.stdin.readline()  # start together
token = engine.sign_in_with_custom_token(custom_token=engine.create_custom_token(uid="u")["customToken"])["idToken"]
import jwt
print(jwt.get_unverified_header(token)["kid"])
engine.close()
"""


@pytest.mark.skipif(POSTGRES, reason="the key's age is set through the SQLite file")
@pytest.mark.parametrize("attempt", range(3))
def test_two_processes_make_exactly_one_automatic_rotation(db_path, attempt):
    config = engine_config(db_path, signingKeyRotationDays=30)
    first = phoneauth.Engine(config)
    old_kid = first.get_jwks()["keys"][0]["kid"]
    first.close()
    with sqlite3.connect(db_path) as db:  # the key is now 31 days old
        db.execute("UPDATE secrets SET created_at = created_at - 31 * 86400000 WHERE kind = 'ES256'")
    children = [subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(config)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 text=True) for _ in range(2)]
    for child in children:  # both engines open before either signs
        assert child.stdout.readline().strip() == "ready"
    for child in children:
        child.stdin.write("\n")
        child.stdin.flush()
    signed = [child.communicate(timeout=60)[0].strip() for child in children]
    assert all(child.returncode == 0 for child in children)
    with sqlite3.connect(db_path) as db:
        rows = db.execute("SELECT kid, retire_at IS NULL FROM secrets WHERE kind = 'ES256' ORDER BY created_at").fetchall()
    assert len(rows) == 2, rows  # one rotation: the old key (retiring) and one new one
    assert rows[0] == (old_kid, 0) and rows[1][1] == 1
    assert signed == [rows[1][0]] * 2, "both processes sign with the one new key"
