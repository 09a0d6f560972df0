"""Storage errors say whether trying again may help, and never show a database password."""

from __future__ import annotations

import time

import pytest

import phoneauth


def test_unreachable_postgres_is_retryable_and_hides_the_password():
    started = time.monotonic()
    with pytest.raises(phoneauth.StorageError) as caught:
        phoneauth.Engine({"database": "postgresql://app:Pa55-w0rd@127.0.0.1:1/auth", "masterKey": "07" * 32,
                          "postgres": {"connectTimeoutSeconds": 2}})
    assert time.monotonic() - started < 2.5
    error = caught.value
    assert error.retryable is True and error.details["retryable"] is True
    assert "127.0.0.1:1/auth" in error.message
    assert "Pa55-w0rd" not in repr(error)


def test_postgres_without_a_master_key_names_the_key(monkeypatch):
    monkeypatch.delenv("PHONEAUTH_MASTER_KEY", raising=False)
    with pytest.raises(phoneauth.InvalidConfigurationError) as caught:
        phoneauth.Engine({"database": "postgresql://app:Pa55-w0rd@127.0.0.1:1/auth"})
    assert caught.value.details["key"] == "masterKey"
    assert "Pa55-w0rd" not in repr(caught.value)


def test_database_url_from_the_environment(monkeypatch):
    monkeypatch.setenv("PHONEAUTH_DATABASE_URL", "postgresql://app:Pa55-w0rd@127.0.0.1:1/envdb")
    with pytest.raises(phoneauth.StorageError) as caught:
        phoneauth.Engine({"masterKey": "07" * 32, "postgres": {"connectTimeoutSeconds": 1}})
    assert "127.0.0.1:1/envdb" in caught.value.message


def test_a_sqlite_file_that_cannot_be_opened_is_not_retryable(tmp_path):
    with pytest.raises(phoneauth.StorageError) as caught:
        phoneauth.Engine({"database": str(tmp_path / "missing-folder" / "auth.db"), "masterKey": "07" * 32})
    assert caught.value.retryable is False
