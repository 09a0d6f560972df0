"""Signing keys and the master key that encrypts them: durability, the generated key file,
a wrong key, the key's two encodings, and PHONEAUTH_MASTER_KEY."""

import base64
import os
import stat

import pytest

import phoneauth
from support import POSTGRES, REAL_NUMBER, engine_config, sign_in, sign_in_with_code, verify_in_child

KEY_A = bytes(range(32))
KEY_B = bytes(range(1, 33))


def kids(engine):
    return sorted(k["kid"] for k in engine.get_jwks()["keys"])


def mentions_master_key(exc):
    text = exc.message.lower().replace(" ", "").replace("_", "")
    return "masterkey" in text


def test_signing_keys_survive_a_restart(make_engine, sms):
    first = make_engine(sender=sms)
    before = kids(first)
    token = sign_in(first, sms)["idToken"]
    first.close()
    second = make_engine()
    assert kids(second) == before
    second.verify_id_token(id_token=token)


@pytest.mark.skipif(POSTGRES, reason="no key file with PostgreSQL: the master key must be given")
def test_key_file_is_generated_with_mode_0600(make_engine, db_path):
    make_engine()
    key_file = db_path + ".key"
    assert os.path.exists(key_file)
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600
    assert os.path.getsize(key_file) > 0


def test_no_key_file_with_a_master_key_in_the_config(make_engine, db_path):
    make_engine(masterKey=KEY_A.hex())
    assert not os.path.exists(db_path + ".key")


def test_master_key_in_hex_or_base64_is_the_same_key(make_engine):
    first = make_engine(masterKey=KEY_A.hex())
    before = kids(first)
    first.close()
    second = make_engine(masterKey=base64.b64encode(KEY_A).decode())
    assert kids(second) == before


def test_wrong_master_key_is_refused(make_engine):
    make_engine(masterKey=KEY_A.hex()).close()
    with pytest.raises((phoneauth.StorageError, phoneauth.InvalidConfigurationError)) as info:
        make_engine(masterKey=KEY_B.hex())
    assert mentions_master_key(info.value), info.value.message
    assert KEY_A.hex() not in info.value.message and KEY_B.hex() not in info.value.message


def test_master_key_given_where_the_key_file_was_used_is_refused(make_engine):
    make_engine().close()  # keys encrypted under the generated <database>.key
    with pytest.raises((phoneauth.StorageError, phoneauth.InvalidConfigurationError)) as info:
        make_engine(masterKey=KEY_B.hex())
    assert mentions_master_key(info.value), info.value.message


@pytest.mark.parametrize("bad", ["short", "00" * 31, "zz" * 32, base64.b64encode(bytes(16)).decode()])
def test_malformed_master_key(make_engine, bad):
    with pytest.raises(phoneauth.InvalidConfigurationError) as info:
        make_engine(masterKey=bad)
    assert info.value.details.get("key") == "masterKey"


def test_master_key_from_the_environment(make_engine, db_path):
    config = engine_config(db_path)
    config.pop("masterKey", None)  # the test key of PostgreSQL runs: here the environment gives it
    child = verify_in_child(config, REAL_NUMBER, env={"PHONEAUTH_MASTER_KEY": KEY_A.hex()})
    assert not os.path.exists(db_path + ".key"), "the environment's key was not used"
    # The database's keys are under KEY_A: the same key from the config opens it ...
    engine = make_engine(masterKey=KEY_A.hex())
    assert kids(engine) == sorted(k["kid"] for k in child["jwks"]["keys"])
    sign_in_with_code(engine, child["verificationId"], child["code"])
    engine.close()
    # ... and another one does not.
    with pytest.raises((phoneauth.StorageError, phoneauth.InvalidConfigurationError)):
        make_engine(masterKey=KEY_B.hex())
