"""`phoneauth copy`: a SQLite deployment moved into PostgreSQL keeps its users signed in.

Runs the installed-style command (out/bin/phoneauth, $PHONEAUTH_CLI) against the test cluster
($PHONEAUTH_TEST_POSTGRES_URL) when PHONEAUTH_TEST_DATABASE=postgres, as `make test` does.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from urllib.parse import urlsplit

import pytest

import phoneauth
from support import REAL_NUMBER, SmsCapture, engine_config, sign_in

pytestmark = pytest.mark.skipif(os.environ.get("PHONEAUTH_TEST_DATABASE") != "postgres",
                                reason="PostgreSQL runs only (PHONEAUTH_TEST_DATABASE=postgres)")

CLI = os.environ.get("PHONEAUTH_CLI", "out/bin/phoneauth")


@pytest.fixture
def url() -> str:
    found = os.environ.get("PHONEAUTH_TEST_POSTGRES_URL")
    assert found, "PHONEAUTH_TEST_DATABASE=postgres needs PHONEAUTH_TEST_POSTGRES_URL"
    return found


def copy(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([CLI, "copy", *args], capture_output=True, text=True, timeout=60)


def sqlite_engine(path: str, sms: SmsCapture) -> phoneauth.Engine:
    # A plain SQLite engine, whatever the run's database: the source of the copy.
    config = engine_config(path)
    config["database"] = path
    config.pop("postgres", None)
    config.pop("masterKey", None)
    engine = phoneauth.Engine(config)
    engine.set_sms_sender(sms)
    return engine


def test_copied_users_stay_signed_in(tmp_path, url, monkeypatch):
    monkeypatch.delenv("PHONEAUTH_MASTER_KEY", raising=False)
    source = str(tmp_path / "auth.db")
    sms = SmsCapture()
    old = sqlite_engine(source, sms)
    signed_in = sign_in(old, sms, REAL_NUMBER)
    pending = old.verify_phone_number("+16505550142")["verificationId"]
    old.close()

    schema = "copy_" + uuid.uuid4().hex[:12]
    done = copy("--from", source, "--to", url, "--to-schema", schema)
    assert done.returncode == 0, done.stderr
    assert "users: 1 rows" in done.stdout and "sessions: 1 rows" in done.stdout
    assert f"{source}.key" in done.stdout  # where the master key is
    password = urlsplit(url).password
    assert password and password not in done.stdout + done.stderr

    master_key = (tmp_path / "auth.db.key").read_text().strip()
    moved = phoneauth.Engine({"database": url, "masterKey": master_key, "postgres": {"schema": schema},
                              "resendAfterSeconds": 0})
    try:
        uid = signed_in["user"]["uid"]
        assert moved.verify_id_token(signed_in["idToken"], check_revoked=True)["claims"]["sub"] == uid
        refreshed = moved.refresh_id_token(signed_in["refreshToken"])
        assert moved.verify_id_token(refreshed["idToken"])["claims"]["sub"] == uid
        assert moved.get_user(uid)["user"]["phoneNumber"] == REAL_NUMBER
        # The verification in flight was copied with its (pending) message.
        assert moved.get_verification_status(pending)["state"] == "active"
    finally:
        moved.close()

    # A second copy into the same schema is refused and changes nothing.
    again = copy("--from", source, "--to", url, "--to-schema", schema)
    assert again.returncode == 1
    assert "not empty" in again.stderr and password not in again.stderr


def test_copy_errors_name_the_server_not_the_password(tmp_path):
    source = str(tmp_path / "auth.db")
    sqlite_engine(source, SmsCapture()).close()
    done = copy("--from", source, "--to", "postgresql://app:Sup3rSecret@127.0.0.1:1/auth")
    assert done.returncode == 1
    assert "127.0.0.1:1/auth" in done.stderr
    assert "Sup3rSecret" not in done.stdout + done.stderr
    missing = copy("--from", str(tmp_path / "none.db"), "--to", "postgresql://app@127.0.0.1:1/auth")
    assert missing.returncode != 0 and "none.db" in missing.stderr
    assert not (tmp_path / "none.db").exists()


def test_storage_statistics_count_what_the_store_did(tmp_path, url):
    schema = "stats_" + uuid.uuid4().hex[:12]
    engine = phoneauth.Engine({"database": url, "masterKey": "07" * 32, "resendAfterSeconds": 0,
                               "postgres": {"schema": schema, "poolSize": 3},
                               "testPhoneNumbers": {"+16505551234": "123456"}})
    try:
        before = engine.get_storage_statistics()
        assert before["driver"] == "postgresql" and before["poolSize"] == 3
        for _ in range(3):
            verification = engine.verify_phone_number("+16505551234")["verificationId"]
            engine.call("signInWithCredential", {"credential": {"verificationId": verification,
                                                                "verificationCode": "123456"}})
        after = engine.get_storage_statistics()
        # Three verifications and three sign-ins (and perhaps the delivery thread's purge).
        assert 6 <= after["transactions"] - before["transactions"] <= 7
        # Each transaction is at least BEGIN, one statement and COMMIT.
        assert after["roundTrips"] - before["roundTrips"] >= 18
        with pytest.raises(phoneauth.InvalidArgumentError):
            engine.get_storage_statistics(extra=1)
    finally:
        engine.close()
