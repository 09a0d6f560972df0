"""rekey {newMasterKey}: every secret of the store sealed again under a new master key, at once,
with the key file replaced only once the store is rekeyed; and stores left by an interrupted rekey
open (a rekey that committed opens with the new key, one that did not with the old)."""

import base64
import os
import random
import signal
import subprocess
import sys
import time

import pyotp
import pytest

import phoneauth
from support import POSTGRES, REAL_NUMBER, FIXED_NUMBERS, SmsCapture, custom_sign_in, engine_config, fixed_credential

pytestmark = pytest.mark.skipif(POSTGRES, reason="the key file and its recovery are SQLite's; the sealed values are the same code")

NEW_KEY = base64.b64encode(bytes(range(100, 132))).decode()


def build_state(engine, sms):
    """A user with a TOTP factor, a refreshed session (its secret kept sealed for retries) and an
    SMS queued with no sender (its body sealed)."""
    signed = engine.sign_in_with_credential(credential=fixed_credential(engine, "+16505551230"))
    started = engine.mfa_totp_start(signed["idToken"])
    totp = pyotp.TOTP(started["secretKey"])
    engine.mfa_enroll_finalize(signed["idToken"], factor_id="totp", session_info=started["sessionInfo"],
                               verification_code=totp.now())
    session = custom_sign_in(engine, "plain")
    refreshed = engine.refresh_id_token(refresh_token=session["refreshToken"])
    queued = engine.verify_phone_number(REAL_NUMBER)["verificationId"]
    return {"totp": totp, "refresh": refreshed["refreshToken"], "first": session["refreshToken"], "queued": queued}


def check_state(engine, state, sms):
    """Everything sealed still opens: the TOTP factor signs in, the retried refresh gets the same
    token, the queued SMS is sent with its code."""
    engine.set_sms_sender(sms)
    message = sms.wait_for(verification_id=state["queued"])
    assert message["body"]
    again = engine.refresh_id_token(refresh_token=state["first"])  # a retry within the reuse interval
    assert again["refreshToken"] == state["refresh"]
    with pytest.raises(phoneauth.SecondFactorRequiredError) as required:
        engine.sign_in_with_credential(credential=fixed_credential(engine, "+16505551230"))
    resolver = engine.get_multi_factor_resolver(required.value)
    totp_hint = next(h for h in resolver.hints if h["factorId"] == "totp")
    from phoneauth import TotpMultiFactorGenerator
    # The next step's code: the enrolment spent this step's (a replay otherwise).
    resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(totp_hint["uid"], state["totp"].at(time.time() + 30)))


def test_rekey_with_a_key_file_replaces_it_and_keeps_every_secret(make_engine, db_path, sms):
    engine = make_engine(testPhoneNumbers=FIXED_NUMBERS, refreshReuseIntervalSeconds=300)
    state = build_state(engine, sms)
    old_key = open(db_path + ".key").read()
    result = engine.call("rekey", {"newMasterKey": NEW_KEY})
    assert result == {"rekeyed": True, "keyFile": db_path + ".key"}
    assert open(db_path + ".key").read().strip() == NEW_KEY and not os.path.exists(db_path + ".key.new")
    assert oct(os.stat(db_path + ".key").st_mode & 0o777) == "0o600"
    check_state(engine, state, SmsCapture())
    engine.close()
    reopened = make_engine(testPhoneNumbers=FIXED_NUMBERS, refreshReuseIntervalSeconds=300)  # the new key file
    reopened.refresh_id_token(refresh_token=state["refresh"])
    reopened.close()
    with pytest.raises(phoneauth.InvalidConfigurationError):
        phoneauth.Engine(engine_config(db_path, masterKey=old_key.strip()))


def test_rekey_with_a_configured_key_needs_the_new_one_afterwards(make_engine, db_path, sms):
    old = base64.b64encode(bytes(32)).decode()
    engine = make_engine(masterKey=old, testPhoneNumbers=FIXED_NUMBERS, refreshReuseIntervalSeconds=300)
    state = build_state(engine, sms)
    assert engine.call("rekey", {"newMasterKey": NEW_KEY}) == {"rekeyed": True}
    engine.close()
    with pytest.raises(phoneauth.InvalidConfigurationError):
        phoneauth.Engine(engine_config(db_path, masterKey=old))
    check_state(make_engine(masterKey=NEW_KEY, testPhoneNumbers=FIXED_NUMBERS, refreshReuseIntervalSeconds=300), state, SmsCapture())


def test_bad_new_keys_change_nothing(make_engine, db_path):
    engine = make_engine()
    token = custom_sign_in(engine, "u")["idToken"]
    for bad in ("", "short", "z" * 64, base64.b64encode(bytes(31)).decode()):
        with pytest.raises((phoneauth.InvalidArgumentError,)):
            engine.call("rekey", {"newMasterKey": bad})
    engine.verify_id_token(id_token=token)
    assert not os.path.exists(db_path + ".key.new")


def test_a_rekey_that_never_committed_leaves_the_old_key(make_engine, db_path):
    engine = make_engine()
    refresh = custom_sign_in(engine, "u")["refreshToken"]
    engine.close()
    with open(db_path + ".key.new", "w") as f:  # written, then the process died before committing
        f.write(NEW_KEY + "\n")
    os.chmod(db_path + ".key.new", 0o600)
    engine = make_engine()
    engine.refresh_id_token(refresh_token=refresh)
    assert not os.path.exists(db_path + ".key.new"), "the unused new key is removed"


def test_an_empty_pending_key_file_is_a_rekey_that_never_began(make_engine, db_path):
    """A process killed between creating <key file>.new and writing it (as earlier versions could
    be, since they wrote it in place) left it empty: the store opens with its key, and it goes."""
    engine = make_engine()
    refresh = custom_sign_in(engine, "u")["refreshToken"]
    engine.close()
    open(db_path + ".key.new", "w").close()
    os.chmod(db_path + ".key.new", 0o600)
    engine = make_engine()
    engine.refresh_id_token(refresh_token=refresh)
    assert not os.path.exists(db_path + ".key.new")


def test_a_rekey_that_committed_but_did_not_rename_opens_with_the_new_key(make_engine, db_path):
    engine = make_engine()
    refresh = custom_sign_in(engine, "u")["refreshToken"]
    old_key = open(db_path + ".key").read()
    engine.call("rekey", {"newMasterKey": NEW_KEY})
    engine.close()
    os.rename(db_path + ".key", db_path + ".key.new")  # as if the process died before renaming
    with open(db_path + ".key", "w") as f:
        f.write(old_key)
    os.chmod(db_path + ".key", 0o600)
    engine = make_engine()
    engine.refresh_id_token(refresh_token=refresh)
    assert open(db_path + ".key").read().strip() == NEW_KEY and not os.path.exists(db_path + ".key.new")


REKEY_CHILD = """
import json, sys, phoneauth
engine = phoneauth.Engine(json.loads(sys.argv[1]))
print("ready", flush=True)
engine.call("rekey", {"newMasterKey": sys.argv[2]})
print("done", flush=True)
"""


@pytest.mark.parametrize("attempt", range(4))
def test_a_rekey_killed_at_any_moment_leaves_a_working_store(make_engine, db_path, attempt):
    engine = make_engine(refreshReuseIntervalSeconds=300)
    tokens = []
    for i in range(300):  # many sealed refresh secrets, so the rekey takes a while
        session = custom_sign_in(engine, f"u{i}")
        engine.refresh_id_token(refresh_token=session["refreshToken"])
        tokens.append(session["refreshToken"])
    engine.close()
    import json
    key = base64.b64encode(os.urandom(32)).decode()
    child = subprocess.Popen([sys.executable, "-c", REKEY_CHILD, json.dumps(engine_config(db_path, refreshReuseIntervalSeconds=300)), key],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    time.sleep(random.uniform(0, 0.05))
    child.send_signal(signal.SIGKILL)
    child.wait()
    engine = make_engine(refreshReuseIntervalSeconds=300)  # opens with whichever key the store has
    for token in random.sample(tokens, 20):
        engine.refresh_id_token(refresh_token=token)  # a retry: the sealed secret opens
    assert not os.path.exists(db_path + ".key.new")
