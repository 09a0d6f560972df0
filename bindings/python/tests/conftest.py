"""Fixtures for the pytest suite: real libphoneauth (PHONEAUTH_LIBRARY), real SQLite files in tmp_path,
or with PHONEAUTH_TEST_DATABASE=postgres schemas of the server at PHONEAUTH_TEST_POSTGRES_URL
named after those paths (support.engine_config; dropped after each test).

make_engine(**overrides)  opens an engine on tmp_path/"auth.db" (or `database=`) with the test
                          defaults of support.DEFAULTS, merged with overrides; closed at the end of the test.
sms                       a capturing SMS sender; sms.wait_for(number) waits for a message.
engine                    make_engine() with `sms` installed.
Helpers (sign_in, start, code_in, wait_until, run_python, ...) are in support.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import pytest

import phoneauth
from support import POSTGRES, SmsCapture, close_pg_connection, drop_schemas, engine_config


@pytest.fixture(autouse=True)
def _no_master_key_from_outside(monkeypatch):
    # The key file (<database>.key) is the default; a key in the environment would change it.
    # (PostgreSQL runs give the configuration key masterKey: support.engine_config.)
    monkeypatch.delenv("PHONEAUTH_MASTER_KEY", raising=False)


@pytest.fixture(autouse=True)
def _drop_test_schemas():
    # Autouse, so set up before make_engine and torn down after it has closed the engines.
    yield
    drop_schemas()


def pytest_sessionfinish(session, exitstatus):
    drop_schemas()
    close_pg_connection()


def pytest_report_header(config):
    if POSTGRES:
        return "phoneauth store: PostgreSQL (PHONEAUTH_TEST_DATABASE=postgres), one schema per database path"
    return "phoneauth store: SQLite files"


@pytest.fixture
def db_path(tmp_path) -> str:
    return str(tmp_path / "auth.db")


@pytest.fixture
def make_engine(db_path):
    opened: List[phoneauth.Engine] = []

    def factory(database: Optional[str] = None, sender: Any = None, **overrides: Any) -> phoneauth.Engine:
        engine = phoneauth.Engine(engine_config(database or db_path, **overrides))
        opened.append(engine)
        if sender is not None:
            engine.set_sms_sender(sender)
        return engine

    yield factory
    for engine in reversed(opened):
        engine.close()


@pytest.fixture
def sms() -> SmsCapture:
    return SmsCapture()


@pytest.fixture
def engine(make_engine, sms) -> phoneauth.Engine:
    return make_engine(sender=sms)


@pytest.fixture(scope="session")
def header_text() -> str:
    """include/phoneauth.h of this repository (the binding is checked against it)."""
    path = Path(__file__).resolve().parents[3] / "include" / "phoneauth.h"
    if not path.exists():
        pytest.skip(f"{path} not found (the tests run from a copy of the repository)")
    return path.read_text()


@pytest.fixture(scope="session")
def api_doc_text() -> str:
    """docs/API.md of this repository."""
    path = Path(__file__).resolve().parents[3] / "docs" / "API.md"
    if not path.exists():
        pytest.skip(f"{path} not found (the tests run from a copy of the repository)")
    return path.read_text()
