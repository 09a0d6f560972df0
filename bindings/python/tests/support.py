"""Helpers shared by the tests (fixtures are in conftest.py)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
from datetime import datetime
from typing import Any, Callable, Dict, List, Optional

import phoneauth

REAL_NUMBER = "+16505553434"
TEST_NUMBER = "+16505551234"
TEST_CODE = "123456"
WAIT = 15.0  # seconds to wait for an SMS before failing


# Test defaults: no resend window (a second verification of a number is a new one, so a user can
# sign in twice in a row) and a short delivery backoff. Tests that need other values override them.
# The pumping defense, on by default, has tests of its own (test_pumping.py); here it would refuse
# the many codes the other tests send to +1 650 555 and never enter.
DEFAULTS: Dict[str, Any] = {
    "resendAfterSeconds": 0,
    "pumping": {"mode": "off"},
    "sms": {"provider": "callback", "retryBackoffMs": 50},
}


# -- the store: SQLite files, or schemas of a PostgreSQL server ------------------------------------
#
# With PHONEAUTH_TEST_DATABASE=postgres (and the server's URL in PHONEAUTH_TEST_POSTGRES_URL, as
# Tests/pg/cluster.sh writes it) every engine_config of a database path points at that server
# instead, in a schema named after the path: engines opened on one path share their state, as on
# one SQLite file, and two paths (two tests) never share a schema. PHONEAUTH_TEST_POSTGRES_URL
# alone (make test exports it to every suite) changes nothing.

POSTGRES = os.environ.get("PHONEAUTH_TEST_DATABASE") == "postgres"
# PostgreSQL has no key file beside the database: the tests give this key unless they set one.
TEST_MASTER_KEY = "5e" * 32


def postgres_url() -> str:
    url = os.environ.get("PHONEAUTH_TEST_POSTGRES_URL")
    if not url:
        raise RuntimeError("PHONEAUTH_TEST_DATABASE=postgres needs PHONEAUTH_TEST_POSTGRES_URL "
                           "(source the env file of Tests/pg/cluster.sh start)")
    return url


def _sanitised(text: str, limit: int) -> str:
    return re.sub(r"[^a-z0-9]", "_", text.lower())[:limit]


def schema_for(database: str) -> str:
    """The PostgreSQL schema standing for the database path `database`: "py_<folder>_<file>_<hash>",
    the same for the same path, different for different paths (the hash of the whole path)."""
    path = os.path.abspath(str(database))
    folder, file = os.path.split(path)
    digest = hashlib.sha1(path.encode()).hexdigest()[:10]
    return "py_%s_%s_%s" % (_sanitised(os.path.basename(folder), 30),
                            _sanitised(file.split(".")[0], 12), digest)


# Schemas that engine_config handed out since the last drop_schemas() (the fixture drops them
# after each test).
_used_schemas: set = set()


def is_postgres_url(database: str) -> bool:
    return str(database).startswith(("postgresql://", "postgres://"))


def engine_config(database: str, **overrides: Any) -> Dict[str, Any]:
    """DEFAULTS with `overrides` merged in (dicts one level deep), for the database at `database`.
    On PostgreSQL runs a path becomes the test server with the path's schema (unless overrides
    name a schema) and the test master key (unless overrides give one)."""
    config = json.loads(json.dumps(DEFAULTS))
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key].update(value)
        else:
            config[key] = value
    config["database"] = str(database)
    if POSTGRES and not is_postgres_url(database):
        config["database"] = postgres_url()
        postgres = dict(config.get("postgres") or {})
        postgres.setdefault("schema", schema_for(database))
        config["postgres"] = postgres
        config.setdefault("masterKey", TEST_MASTER_KEY)
        _used_schemas.add(postgres["schema"])
    return config


_pg_connection = None


def pg_connection():
    """One autocommit psycopg connection to the test server, for the tests' own queries."""
    global _pg_connection
    import psycopg  # only PostgreSQL runs need it

    if _pg_connection is None or _pg_connection.closed:
        _pg_connection = psycopg.connect(postgres_url(), autocommit=True)
    return _pg_connection


def close_pg_connection() -> None:
    global _pg_connection
    if _pg_connection is not None:
        _pg_connection.close()
        _pg_connection = None


def drop_schemas() -> None:
    """Drops the schemas engine_config handed out (PostgreSQL runs; the engines are closed)."""
    if not POSTGRES or not _used_schemas:
        return
    schemas = sorted(_used_schemas)
    _used_schemas.clear()
    try:
        db = pg_connection()
        # An engine left open after a failure must not make the run hang here.
        db.execute("SET lock_timeout = '5s'")
        for schema in schemas:
            db.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    except Exception as error:  # noqa: BLE001 (cleanup only: the cluster is thrown away anyway)
        print(f"note: could not drop the test schemas {schemas}: {error}", file=sys.stderr)


_TEXT_TYPES = ("text", "character varying", "character", "json", "jsonb", "bytea")


def stored_values(database: str):
    """(table, value) for every text or blob value of every table of the database at `database`:
    the SQLite file, or on PostgreSQL runs the tables of its schema (text-like columns as str,
    bytea as bytes). Asserts that there are tables at all."""
    if not POSTGRES or is_postgres_url(database):
        import sqlite3

        db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            assert tables, "the database has no tables"
            for table in tables:
                quoted = '"' + table.replace('"', '""') + '"'
                for row in db.execute(f"SELECT * FROM {quoted}"):
                    for value in row:
                        if isinstance(value, (str, bytes)):
                            yield table, value
        finally:
            db.close()
        return
    schema = schema_for(database)
    db = pg_connection()
    columns: Dict[str, List[tuple]] = {}
    for table, column, data_type in db.execute(
            "SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c"
            " JOIN information_schema.tables t USING (table_schema, table_name)"
            " WHERE c.table_schema = %s AND t.table_type = 'BASE TABLE'"
            " ORDER BY c.table_name, c.ordinal_position", (schema,)):
        columns.setdefault(table, []).append((column, data_type))
    assert columns, f"the database has no tables (schema {schema})"
    for table, cols in columns.items():
        wanted = [(c, t) for c, t in cols if t in _TEXT_TYPES]
        if not wanted:
            continue
        select = ", ".join(f'"{c}"' if t == "bytea" else f'"{c}"::text' for c, t in wanted)
        for row in db.execute(f'SELECT {select} FROM {schema}."{table}"'):
            for value in row:
                if isinstance(value, (str, bytes)):
                    yield table, value


def delivery_due_ms(database: str) -> int:
    """The due time (ms since the epoch, the engine's clock) of the one verification in the
    database at `database`: while its message waits, when the engine will next try it."""
    if not POSTGRES or is_postgres_url(database):
        import sqlite3

        db = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT due_at FROM verifications").fetchall()
        finally:
            db.close()
    else:
        rows = pg_connection().execute(f"SELECT due_at FROM {schema_for(database)}.verifications").fetchall()
    assert len(rows) == 1, f"{len(rows)} verifications, want one"
    return rows[0][0]


class SmsCapture:
    """An SMS sender that records every message and lets tests wait for one."""

    def __init__(self) -> None:
        self.messages: List[Dict[str, Any]] = []
        self._cond = threading.Condition()

    def __call__(self, message: Dict[str, Any]) -> None:
        with self._cond:
            self.messages.append(message)
            self._cond.notify_all()

    def matching(self, to: Optional[str] = None, verification_id: Optional[str] = None) -> List[Dict[str, Any]]:
        with self._cond:
            return [m for m in self.messages
                    if (to is None or m.get("to") == to)
                    and (verification_id is None or m.get("verificationId") == verification_id)]

    def wait_for(self, to: Optional[str] = None, verification_id: Optional[str] = None,
                 count: int = 1, timeout: float = WAIT) -> Dict[str, Any]:
        """Waits until `count` messages match; returns the last of them."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = self.matching(to, verification_id)
                if len(found) >= count:
                    return found[count - 1]
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(
                        f"no SMS for to={to!r} verificationId={verification_id!r} within {timeout}s "
                        f"({len(self.messages)} messages captured in all)")
                self._cond.wait(left)


def sent_before(engine: phoneauth.Engine, sms: SmsCapture, marker: str, **kwargs: Any) -> List[Dict[str, Any]]:
    """The SMS sent before a marker: starts a verification of the number `marker` (kwargs go to
    verify_phone_number) and waits for its SMS. One delivery thread (the callback's default) sends
    messages in the order they were queued, so what was queued before the marker has been sent by
    then: the list is final, with no waiting to see whether more come."""
    started = engine.verify_phone_number(marker, **kwargs)
    sms.wait_for(verification_id=started["verificationId"])
    return [m for m in sms.matching() if m["verificationId"] != started["verificationId"]]


def code_in(body: str, length: int = 6) -> str:
    """The code in an SMS body: its one run of exactly `length` ASCII digits (repeated on the
    autofill line "@domain #code" when there is one)."""
    runs = set(re.findall(r"(?<![0-9])[0-9]{%d}(?![0-9])" % length, body))
    assert len(runs) == 1, f"expected one {length}-digit code in the SMS body, found {len(runs)}"
    return runs.pop()


def start(engine: phoneauth.Engine, sms: SmsCapture, number: str, **kwargs: Any):
    """verifyPhoneNumber, then waits for its SMS. Returns (verification result, message, code)."""
    started = engine.verify_phone_number(number, **kwargs)
    message = sms.wait_for(verification_id=started["verificationId"])
    return started, message, code_in(message["body"], started["codeLength"])


def credential_for(engine: phoneauth.Engine, verification_id: str, code: str) -> Dict[str, Any]:
    return engine.credential(verification_id=verification_id, verification_code=code)["credential"]


def sign_in_with_code(engine: phoneauth.Engine, verification_id: str, code: str) -> Dict[str, Any]:
    return engine.sign_in_with_credential(credential=credential_for(engine, verification_id, code))


def sign_in(engine: phoneauth.Engine, sms: SmsCapture, number: str = REAL_NUMBER, **kwargs: Any) -> Dict[str, Any]:
    """The whole flow: verifyPhoneNumber, the code from the SMS, credential, signInWithCredential."""
    started, _message, code = start(engine, sms, number, **kwargs)
    return sign_in_with_code(engine, started["verificationId"], code)


def parse_time(text: str) -> datetime:
    """An RFC 3339 time of the library ("2026-11-21T09:30:00.250Z") as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def wait_until(predicate: Callable[[], Any], timeout: float = WAIT, interval: float = 0.05, what: str = "condition"):
    """Polls predicate() until it returns something true; returns that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def run_python(script: str, *args: str, env: Optional[Dict[str, str]] = None,
               timeout: float = 60) -> subprocess.CompletedProcess:
    """Runs a Python script in a new process with this interpreter (and so this binding)."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], env=full_env,
                          capture_output=True, text=True, timeout=timeout)


# Run in a child process: opens an engine with the configuration in argv[1], verifies the number
# in argv[2], waits for its SMS, prints {"verificationId", "code", "to", "jwks"} as JSON, closes.
VERIFY_IN_CHILD = """
import json, re, sys, threading
import phoneauth
config, number = json.loads(sys.argv[1]), sys.argv[2]
got = threading.Event()
box = {}
def sender(message):
    box.update(message)
    got.set()
with phoneauth.Engine(config) as engine:
    engine.set_sms_sender(sender)
    started = engine.verify_phone_number(number)
    if not got.wait(15):
        sys.exit("no SMS within 15 s")
    code = re.findall(r"(?<![0-9])[0-9]{%d}(?![0-9])" % started["codeLength"], box["body"])[0]
    print(json.dumps({"verificationId": started["verificationId"], "code": code,
                      "to": box["to"], "jwks": engine.get_jwks()}))
"""


def verify_in_child(config: Dict[str, Any], number: str, env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    done = run_python(VERIFY_IN_CHILD, json.dumps(config), number, env=env)
    assert done.returncode == 0, f"child failed ({done.returncode}): {done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- second factors and linking ------------------------------------------------------------------

# Ten fictional numbers (the most testPhoneNumbers takes) with the fixed code TEST_CODE: for tests
# that need several users or factors without waiting for SMS.
FIXED_NUMBERS = {"+1650555%04d" % n: TEST_CODE for n in range(1230, 1240)}


def fixed_credential(engine: phoneauth.Engine, number: str) -> Dict[str, Any]:
    """A sign-in credential for one of FIXED_NUMBERS."""
    return credential_for(engine, engine.verify_phone_number(number)["verificationId"], TEST_CODE)


def custom_sign_in(engine: phoneauth.Engine, uid: str) -> Dict[str, Any]:
    return engine.sign_in_with_custom_token(custom_token=engine.create_custom_token(uid=uid)["customToken"])


def enrol_fixed(engine: phoneauth.Engine, id_token: str, number: str, **kwargs: Any) -> Dict[str, Any]:
    """Enrols one of FIXED_NUMBERS as an SMS second factor; returns mfaEnrollFinalize's result."""
    started = engine.mfa_enroll_start(id_token, number)
    return engine.mfa_enroll_finalize(
        id_token, credential=credential_for(engine, started["verificationId"], TEST_CODE), **kwargs)


def resolver_of(engine: phoneauth.Engine, attempt: Callable[[], Any]) -> "phoneauth.MultiFactorResolver":
    """Runs attempt(), a sign-in that must fail with secondFactorRequired; returns its resolver."""
    try:
        attempt()
    except phoneauth.SecondFactorRequiredError as error:
        return engine.get_multi_factor_resolver(error)
    raise AssertionError("the sign-in did not ask for a second factor")


def resolve_fixed(engine: phoneauth.Engine, resolver: "phoneauth.MultiFactorResolver",
                  hint: Any) -> Dict[str, Any]:
    """Completes the sign-in with an SMS factor whose number is one of FIXED_NUMBERS."""
    challenge = resolver.verify_phone_number(hint)
    cred = credential_for(engine, challenge["verificationId"], TEST_CODE)
    return resolver.resolve_sign_in(phoneauth.PhoneMultiFactorGenerator.assertion(cred))


class Events:
    """A log sink keeping every event; tests wait for the ones they expect (with `fields`, only
    those with these values)."""

    def __init__(self):
        self.events = []
        self._lock = threading.Lock()

    def __call__(self, event):
        with self._lock:
            self.events.append(event)

    def all(self):
        with self._lock:
            return list(self.events)

    def named(self, name, **fields):
        return [e for e in self.all() if e["event"] == name and all(e.get(k) == v for k, v in fields.items())]

    def wait_for(self, name, count=1, timeout=WAIT, **fields):
        """Waits for `count` events of that name (with those fields); returns the count-th."""
        return self.wait_for_all(name, count, timeout, **fields)[count - 1]

    def wait_for_all(self, name, count, timeout=WAIT, **fields):
        """Waits for `count` events of that name (with those fields); returns all of them so far."""
        wait_until(lambda: self.named(name, **fields)[count - 1:], timeout=timeout,
                   what=f"{count} {name} event(s) with {fields}; got {self.all()}")
        return self.named(name, **fields)
