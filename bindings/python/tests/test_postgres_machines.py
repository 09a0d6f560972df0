"""Several processes ("machines"), each with its own engine, sharing one PostgreSQL database over
TCP: the guarantees that must hold across them (single-use codes, exact send limits and lockouts,
refresh-token rotation, durable delivery after a crash, concurrent first start, a server restart
under load) and a storage error that never shows the password.

Runs only with PHONEAUTH_TEST_DATABASE=postgres and PHONEAUTH_TEST_POSTGRES_URL (see
Tests/pg/cluster.sh); the restart test starts and restarts a server of its own (Tests/pg/cluster.sh),
since the suite's server serves other tests meanwhile. Every engine lives in a pg_worker.py child
process; each test has a schema of its own, dropped at the end.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import uuid
from typing import Any, Dict, List

import pytest

if os.environ.get("PHONEAUTH_TEST_DATABASE") != "postgres":
    pytest.skip("PostgreSQL tests: set PHONEAUTH_TEST_DATABASE=postgres", allow_module_level=True)

from pg_support import (REPLY_TIMEOUT, Workers, code_in, error_of, kind, merged, no_storage_errors, open_all, race,
                        sign_in_call, sms_of, succeeded, wrong)

TEST_NUMBER, TEST_CODE = "+16505551234", "123456"
REAL_NUMBER = "+16505553434"
LEASE_SECONDS = 30  # DeliveryWorker.leaseMilliseconds; not configurable
CLUSTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "Tests", "pg", "cluster.sh")


# -- the database ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pg_url() -> str:
    url = os.environ.get("PHONEAUTH_TEST_POSTGRES_URL")
    if not url:
        pytest.fail("PHONEAUTH_TEST_DATABASE=postgres but PHONEAUTH_TEST_POSTGRES_URL is not set "
                    "(start a server with Tests/pg/cluster.sh start DIR and source DIR/env)", pytrace=False)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.fail("PHONEAUTH_TEST_DATABASE=postgres needs psycopg (make venv)", pytrace=False)
    return url


@pytest.fixture
def sql(pg_url):
    """sql(query, *params) -> rows, on a connection of its own (autocommit)."""
    import psycopg

    def run(query: str, *params: Any) -> List[tuple]:
        with psycopg.connect(pg_url, autocommit=True, connect_timeout=10) as conn:
            cur = conn.execute(query, params or None)
            return cur.fetchall() if cur.description else []

    return run


@pytest.fixture
def new_schema(pg_url):
    """new_schema() -> a fresh schema name; every one made is dropped at the end of the test."""
    import psycopg
    made: List[str] = []

    def make() -> str:
        made.append("m_" + uuid.uuid4().hex[:12])
        return made[-1]

    yield make
    if made:
        with psycopg.connect(pg_url, autocommit=True, connect_timeout=30) as conn:
            for name in made:
                conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")


@pytest.fixture
def schema(new_schema) -> str:
    return new_schema()


@pytest.fixture
def cfg(pg_url, schema):
    """cfg(**overrides) -> an engine configuration on this test's schema, with one master key
    for all its engines; overrides are merged one level deep (postgres, sms, quotas...)."""
    master_key = secrets.token_hex(32)

    def make(**overrides: Any) -> Dict[str, Any]:
        config: Dict[str, Any] = {
            "database": pg_url,
            "masterKey": master_key,
            "postgres": {"schema": schema, "poolSize": 4, "connectTimeoutSeconds": 5, "statementTimeoutMs": 5000},
            "resendAfterSeconds": 0,
            "sms": {"provider": "callback", "retryBackoffMs": 50},
        }
        return merged(config, overrides)

    return make


# -- the worker processes (pg_support.py) ------------------------------------------------------------

@pytest.fixture
def spawn(schema, tmp_path):
    """spawn(n) -> n started workers (binding imported, no engine yet); all stopped at the end,
    before the schema is dropped."""
    workers = Workers(tmp_path)
    yield workers.spawn
    workers.stop_all()


# -- 1. one code, one sign-in ------------------------------------------------------------------------

@pytest.mark.parametrize("retry_seconds", [0, 30])
def test_fifty_concurrent_sign_ins_with_one_code_open_one_session(spawn, cfg, sql, schema, retry_seconds):
    """Retries off: one sign-in succeeds. On: every one gets the session the code opened (each
    after the first is taken for a retry within signInRetrySeconds). One user, one session."""
    config = cfg(testPhoneNumbers={TEST_NUMBER: TEST_CODE}, signInRetrySeconds=retry_seconds)
    maker, *racers = spawn(4)
    open_all([maker, *racers], config)
    assert {w.ok("getStorageStatistics", {})["driver"] for w in racers} == {"postgresql"}
    verification_id = maker.ok("verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})["verificationId"]

    call = sign_in_call(verification_id, TEST_CODE)
    outcomes = race(racers, [[[call]] * n for n in (17, 17, 16)])

    assert len(outcomes) == 50
    no_storage_errors(outcomes)
    wins = [o for o in outcomes if "ok" in o]
    if retry_seconds:
        assert len(wins) == 50, {kind(o) for o in outcomes if "error" in o}
        assert len({o["ok"]["refreshToken"] for o in wins}) == 1
    else:
        assert len(wins) == 1, f"{len(wins)} sign-ins succeeded with one code (in {[o['worker'] for o in wins]})"
        losses = {kind(o) for o in outcomes if "error" in o}
        assert losses == {("sessionExpired", "alreadyUsed")}, f"the other sign-ins failed with {losses}"
    # One user, one session in the database.
    assert sql(f"SELECT count(*) FROM {schema}.users")[0][0] == 1
    assert sql(f"SELECT count(*) FROM {schema}.sessions")[0][0] == 1


# -- 2. limits kept across processes -----------------------------------------------------------------

def test_per_number_sms_quota_is_exact_across_processes(spawn, cfg, sql, schema):
    config = cfg(quotas={"smsPerNumberPerHour": 5})
    workers = spawn(3)
    open_all(workers, config, sender=True)

    call = ["verifyPhoneNumber", {"phoneNumber": REAL_NUMBER}]
    outcomes = race(workers, [[[call] * 3] * 4] * 3)  # 3 processes x 4 threads x 3 calls

    assert len(outcomes) == 36
    no_storage_errors(outcomes)
    sent = [o["ok"]["verificationId"] for o in outcomes if "ok" in o]
    assert len(sent) == 5, f"{len(sent)} verifications sent with smsPerNumberPerHour 5"
    refused = [o["error"] for o in outcomes if "error" in o]
    assert {(e["code"], e["details"].get("reason"), e["details"].get("limit")) for e in refused} == \
        {("tooManyRequests", "rateLimit", "smsPerNumberPerHour")}
    assert sql(f"SELECT count(*) FROM {schema}.verifications")[0][0] == 5
    # Each new verification replaced the one before (resendAfterSeconds 0): one is left active,
    # and its SMS is delivered (those of the others may have been given up, never sent twice).
    states = {vid: workers[0].ok("getVerificationStatus", {"verificationId": vid})["state"] for vid in sent}
    assert sorted(states.values()) == ["active"] + ["replaced"] * 4, states
    active = next(vid for vid, state in states.items() if state == "active")
    deadline = time.monotonic() + 15
    while True:
        delivered = [m["verificationId"] for w in workers for m in w.request({"op": "messages"})["messages"]]
        if active in delivered or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert active in delivered, "the SMS of the verification let through last was not delivered"
    assert set(delivered) <= set(sent) and len(delivered) == len(set(delivered)), delivered


def test_per_number_lockout_is_exact_across_processes(spawn, cfg):
    # maxAttempts 20, so that no verification dies of wrong codes first: 6 wrong codes on a first
    # verification, then 12 on a second one, from 3 processes at once. The 12th wrong code in a
    # row locks the number (and says so itself), so 11 are refused as wrong and 7 as locked.
    limit = 12
    config = cfg(maxAttempts=20, quotas={"maxConsecutiveFailures": limit, "smsPerNumberPerHour": 0})
    maker, *guessers = spawn(4)
    open_all([maker], config, sender=True)
    open_all(guessers, config)

    def new_verification():
        verification_id = maker.ok("verifyPhoneNumber", {"phoneNumber": REAL_NUMBER})["verificationId"]
        return verification_id, code_in(sms_of(maker, verification_id)["body"])

    first, first_code = new_verification()
    outcomes = race(guessers, [[[sign_in_call(first, wrong(first_code))]] * 2] * 3)
    no_storage_errors(outcomes)
    assert {kind(o) for o in outcomes} == {("invalidVerificationCode", None)}
    assert sorted(o["error"]["details"]["attemptsLeft"] for o in outcomes) == list(range(14, 20))

    second, code = new_verification()
    outcomes = race(guessers, [[[sign_in_call(second, wrong(code))] * 2] * 2] * 3)
    no_storage_errors(outcomes)
    wrong_codes = [o for o in outcomes if kind(o) == ("invalidVerificationCode", None)]
    locked = [o for o in outcomes if kind(o) == ("tooManyRequests", "numberLocked")]
    assert len(wrong_codes) + len(locked) == len(outcomes) == 12, {kind(o) for o in outcomes}
    assert (6 + len(wrong_codes), len(locked)) == (limit - 1, 7), \
        f"{6 + len(wrong_codes)} wrong codes were checked before the lock, {len(locked)} calls refused as locked"
    assert sorted(o["error"]["details"]["attemptsLeft"] for o in wrong_codes) == list(range(15, 20))

    # Locked for everyone: the right code, in any process, and a new verification.
    for worker in (maker, *guessers):
        assert kind(worker.call(*sign_in_call(second, code))) == ("tooManyRequests", "numberLocked")
    assert kind(guessers[0].call("verifyPhoneNumber", {"phoneNumber": REAL_NUMBER})) == \
        ("tooManyRequests", "numberLocked")


# -- 3. refresh-token rotation -----------------------------------------------------------------------

def test_refresh_token_rotated_in_one_process_and_replayed_in_another_ends_the_session(spawn, cfg):
    # Strict rotation (no reuse interval): any replay is theft.
    config = cfg(testPhoneNumbers={TEST_NUMBER: TEST_CODE}, refreshReuseIntervalSeconds=0)
    a, b = spawn(2)
    open_all([a, b], config)
    started = a.ok("verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})
    signed = a.ok(*sign_in_call(started["verificationId"], TEST_CODE))
    first = signed["refreshToken"]
    second = a.ok("refreshIdToken", {"refreshToken": first})["refreshToken"]
    assert second != first
    assert b.ok("verifyIdToken", {"idToken": signed["idToken"], "checkRevoked": True})

    replay = error_of(b.call("refreshIdToken", {"refreshToken": first}))
    assert (replay["code"], replay["details"].get("reason")) == ("invalidUserToken", "reused")
    # The session is over for both processes, its current token included.
    for worker in (a, b):
        assert error_of(worker.call("refreshIdToken", {"refreshToken": second}))["code"] == "invalidUserToken"
    assert error_of(a.call("refreshIdToken", {"refreshToken": first}))["code"] == "invalidUserToken"


def test_concurrent_refreshes_of_one_token_across_processes_share_one_new_token(spawn, cfg):
    # Within the reuse interval (10 s by default) concurrent refreshes are not theft: every
    # caller, in either process, gets the same next token, and the session lives on.
    config = cfg(testPhoneNumbers={TEST_NUMBER: TEST_CODE})
    a, b = spawn(2)
    open_all([a, b], config)
    started = a.ok("verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})
    first = a.ok(*sign_in_call(started["verificationId"], TEST_CODE))["refreshToken"]

    outcomes = race([a, b], [[[["refreshIdToken", {"refreshToken": first}]]] * 4] * 2)
    no_storage_errors(outcomes)
    assert [o for o in outcomes if "error" in o] == []
    tokens = {o["ok"]["refreshToken"] for o in outcomes}
    assert len(tokens) == 1, f"{len(tokens)} different next tokens"
    assert b.ok("refreshIdToken", {"refreshToken": tokens.pop()})["refreshToken"]


# -- 4. a crash does not lose queued SMS -------------------------------------------------------------

def test_sms_queued_by_a_killed_process_are_delivered_by_another(spawn, cfg):
    config = cfg()
    numbers = ["+1650555%04d" % n for n in range(4001, 4006)]
    victim, = spawn(1)
    # A sender that never returns: the engine holds every message (one being sent, the others
    # queued, their leases renewed) until it dies. (An engine with no sender at all hands its
    # queue back to the store at once, for engines that have one.)
    open_all([victim], config, sender="stuck")
    queued_at = time.monotonic()
    queued_wall = time.time()  # before the leases were taken
    ids = {victim.ok("verifyPhoneNumber", {"phoneNumber": n})["verificationId"]: n for n in numbers}
    os.kill(victim.proc.pid, signal.SIGKILL)
    assert victim.proc.wait(10) == -signal.SIGKILL

    rescuer, = spawn(1)
    open_all([rescuer], config, sender=True)
    # The lease (30 s, DeliveryWorker.leaseMilliseconds, not configurable) must run out first.
    timeout = LEASE_SECONDS + 20
    messages = rescuer.request({"op": "wait_messages", "verificationIds": list(ids), "timeout": timeout},
                               timeout=timeout + REPLY_TIMEOUT)["messages"]
    waited = time.monotonic() - queued_at
    got = {}
    for message in messages:
        got.setdefault(message["verificationId"], []).append(message)
    missing = set(ids) - set(got)
    assert not missing, f"{len(missing)} of {len(ids)} SMS lost ({waited:.1f} s after they were queued)"
    assert set(got) == set(ids), "an SMS of a verification nobody started"
    assert {vid: len(ms) for vid, ms in got.items()} == {vid: 1 for vid in ids}, "an SMS sent twice"
    for vid, (message,) in got.items():
        assert message["to"] == ids[vid]
        # Not taken from the (dead) engine that held it before its lease ran out.
        assert message["receivedAt"] - queued_wall >= LEASE_SECONDS - 0.5, \
            f"an SMS leased to another engine was sent {message['receivedAt'] - queued_wall:.1f} s after it was queued"
        # The body the killed process sealed opens in the other one: its code signs in.
        signed = rescuer.ok(*sign_in_call(vid, code_in(message["body"])))
        assert signed["user"]["phoneNumber"] == ids[vid]


# -- 5. engines starting together on an empty schema -------------------------------------------------

def test_four_processes_opening_an_empty_schema_at_once(spawn, cfg, sql, schema, new_schema):
    numbers = {"+1650555%04d" % n: TEST_CODE for n in range(1230, 1234)}
    config = cfg(testPhoneNumbers=numbers)
    workers = spawn(4)
    open_all(workers, config)  # the four open requests go out together
    uids = set()
    for worker, number in zip(workers, numbers):
        started = worker.ok("verifyPhoneNumber", {"phoneNumber": number})
        uids.add(worker.ok(*sign_in_call(started["verificationId"], TEST_CODE))["user"]["uid"])
    assert len(uids) == 4

    # What one engine alone makes of an empty schema.
    reference = new_schema()
    alone, = spawn(1)
    open_all([alone], {**config, "postgres": {**config["postgres"], "schema": reference}})
    alone.request({"op": "close"})

    def tables(name):
        return sorted(r[0] for r in sql("SELECT tablename FROM pg_tables WHERE schemaname = %s", name))

    def indexes(name):
        return sorted(r[0] for r in sql("SELECT indexname FROM pg_indexes WHERE schemaname = %s", name))

    versions = sql(f"SELECT version FROM {schema}.schema_version")
    expected = sql(f"SELECT version FROM {reference}.schema_version")
    assert len(expected) == 1 and expected[0][0] >= 1
    assert versions == expected, f"schema_version holds {versions}, an engine alone writes {expected}"
    assert tables(schema) == tables(reference)
    assert indexes(schema) == indexes(reference)
    assert "users" in tables(schema)
    assert sql(f"SELECT count(*) FROM {schema}.users")[0][0] == 4


# -- 6. a server restart under load ------------------------------------------------------------------

class TestRestartOfAServerOfItsOwn:
    """A restart would break whatever else uses the suite's server meanwhile (pytest's other worker,
    and make test runs suites side by side): this test restarts a server of its own, which the
    fixtures below put in place of the suite's for it."""

    @pytest.fixture
    def own_server(self):
        folder = tempfile.mkdtemp(prefix="phoneauth-pg-")  # in /tmp: the server's user must reach it
        try:
            subprocess.run(["bash", CLUSTER, "start", folder], check=True, capture_output=True, timeout=120)
            with open(os.path.join(folder, "env")) as f:
                env = dict(line.removeprefix("export ").rstrip("\n").split("=", 1) for line in f
                           if line.startswith("export "))
            yield env["PHONEAUTH_TEST_POSTGRES_URL"], env["PHONEAUTH_TEST_PG_RESTART"].strip('"')
        finally:
            subprocess.run(["bash", CLUSTER, "stop", folder], capture_output=True, timeout=120)
            subprocess.run(["rm", "-rf", folder])

    @pytest.fixture
    def pg_url(self, own_server) -> str:
        return own_server[0]

    @pytest.fixture
    def pg_restart(self, own_server) -> str:
        return own_server[1]

    def test_server_restart_under_load(self, spawn, cfg, tmp_path, pg_restart):
        connect_s, statement_ms = 2, 2000
        bound = connect_s + statement_ms / 1000 + 3.0  # the longest a call may take, with a margin
        numbers = {"+1650555%04d" % n: TEST_CODE for n in range(1230, 1234)}
        config = cfg(testPhoneNumbers=numbers,
                     postgres={"connectTimeoutSeconds": connect_s, "statementTimeoutMs": statement_ms})
        workers = spawn(2)
        open_all(workers, config)
        # The loops run until 5 s after the restart, however long it takes (a loaded machine can take
        # seconds to restart a server), with a hard limit.
        stop = tmp_path / "stop"
        for worker, pair in zip(workers, (list(numbers)[:2], list(numbers)[2:])):
            worker.send({"op": "signin_loop", "numbers": pair, "code": TEST_CODE, "until": time.time() + 120, "stop": str(stop)})
        time.sleep(2)
        restart_began = time.time()
        done = subprocess.run(pg_restart, shell=True, capture_output=True, text=True, timeout=90)
        restart_ended = time.time()
        time.sleep(5)
        stop.touch()
        assert done.returncode == 0, f"the restart failed: {done.stderr[-2000:]}"
        runs = [worker.receive(timeout=bound + 30) for worker in workers]

        sessions = []
        for worker, run in zip(workers, runs):
            calls = run["calls"]
            for call in calls:
                if "error" in call:
                    error = call["error"]
                    assert error["code"] == "storageError" and error["details"].get("retryable") is True, \
                        f"{call['method']} in {worker.name} failed with {error['repr']}"
                assert call["elapsed"] <= bound, \
                    f"{call['method']} in {worker.name} took {call['elapsed']:.1f} s (at most {bound} s expected)"
            failures = [c for c in calls if "error" in c]
            after = [s for s in run["sessions"] if s["t0"] > restart_ended]
            assert after, (f"no sign-in succeeded in {worker.name} after the restart "
                           f"({len(run['sessions'])} in all, {len(failures)} storage errors)")
            print(f"{worker.name}: {len(calls)} calls (the longest {max(c['elapsed'] for c in calls):.2f} s), "
                  f"{len(failures)} storage errors, {len(run['sessions'])} sign-ins ({len(after)} after the "
                  f"restart, which took {restart_ended - restart_began:.1f} s); errors: "
                  f"{sorted({c['error']['message'] for c in failures})}")
            sessions.extend(run["sessions"])

        # Nothing committed was lost: in a fresh engine every user is there and every session refreshes.
        fresh, = spawn(1)
        open_all([fresh], config)
        uids = sorted({s["uid"] for s in sessions})
        tokens = [s["refreshToken"] for s in sessions]
        get_users = [["getUser", {"uid": uid}] for uid in uids]
        refreshes = [[["refreshIdToken", {"refreshToken": t}] for t in tokens[i::4]] for i in range(4)]
        outcomes = race([fresh], [[get_users] + refreshes])  # five threads in the fresh engine
        failed = [o for o in outcomes if "error" in o]
        assert not failed, f"{len(failed)} of {len(outcomes)} committed users or sessions lost, e.g. {failed[0]['error']['repr']}"


# -- 7. the password stays secret --------------------------------------------------------------------

@pytest.fixture
def silent_server():
    """A port that takes TCP connections and never answers (the kernel completes the handshake;
    nobody accepts or reads), so connecting can only end by timing out."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def _with_password(url: str, password: str) -> str:
    parts = urllib.parse.urlsplit(url)
    netloc = f"{parts.username}:{password}@{parts.hostname}:{parts.port}"
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


@pytest.mark.parametrize("where", ["closed port", "closed port, parameter", "closed port, percent-encoded",
                                   "silent server", "wrong password"])
def test_a_storage_error_never_contains_the_password(spawn, cfg, pg_url, silent_server, where):
    connect_s = 2
    url = {
        "closed port": "postgresql://phoneauth:s3cretPW@127.0.0.1:1/phoneauth",
        "closed port, parameter": "postgresql://phoneauth@127.0.0.1:1/phoneauth?password=s3cretPW",
        "closed port, percent-encoded": "postgres://phoneauth:s3cret%50W@127.0.0.1:1/phoneauth",
        "silent server": f"postgresql://phoneauth:s3cretPW@127.0.0.1:{silent_server}/phoneauth",
        "wrong password": _with_password(pg_url, "s3cretPW"),  # the real server refuses it
    }[where]
    config = cfg(database=url, postgres={"connectTimeoutSeconds": connect_s})
    worker, = spawn(1)
    outcome = worker.open(config)
    error = error_of(outcome)
    assert error["code"] == "storageError", error["repr"]
    if where != "wrong password":  # the server may come; a wrong password stays wrong
        assert error["details"].get("retryable") is True, error["repr"]
    assert outcome["elapsed"] <= connect_s + 2, f"opening took {outcome['elapsed']:.1f} s"
    for text in (error["str"], error["repr"], error["message"], json.dumps(error["details"])):
        assert "s3cretPW" not in text and "s3cret%50W" not in text
    assert "127.0.0.1" in error["message"]
