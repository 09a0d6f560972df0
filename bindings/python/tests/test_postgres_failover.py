"""PostgreSQL fail-over (issue 28): a primary with a synchronous standby, made by each test module
for itself (Tests/pg/cluster.sh primary / standby, in /tmp), apart from the shared test server.

A. A COMMIT whose answer is lost: with the standby stopped, a COMMIT waits on the primary for it;
   the call fails (after about statementTimeoutMs) with a retryable storageError, unacknowledged.
   Once the standby is back the change is committed, and the same call made again completes as
   if it had succeeded the first time: signInWithCredential, verifyPhoneNumber, refreshIdToken;
   and the calls that prove a code and open a session (linkWithCredential, updatePhoneNumber,
   reauthenticateWithCredential, mfaEnrollFinalize, mfaResolveSignIn with an SMS code or a TOTP
   code) give the session the committed call opened, never a second one, and still refuse any
   other proof. A COMMIT whose wait for the standby is cancelled (answered with a WARNING, not an
   error) fails the same way, and is made again the same way.
B. Fail-over under load: two engine processes signing in through a multi-host URI, the primary
   killed (SIGKILL) or frozen (SIGSTOP) and the standby promoted: no acknowledged sign-in is lost,
   no engine is reopened, every error is a retryable storageError and every call retried
   completes. Prints one line "FAILOVER: {json}" with the figures (pytest -s shows it).
C. The URI's connect_timeout is honoured: a host that takes the connection and never answers,
   first in the URI, costs the engine connect_timeout, not postgres.connectTimeoutSeconds.

Runs only with PHONEAUTH_TEST_DATABASE=postgres (and the shared server's PHONEAUTH_TEST_POSTGRES_URL,
for C). Every engine lives in a pg_worker.py child process. As root (CI), the servers run as
postgres through runuser, as cluster.sh does.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.parse
import uuid
from pathlib import Path
from typing import Any, Dict, List

import pyotp
import pytest

if os.environ.get("PHONEAUTH_TEST_DATABASE") != "postgres":
    pytest.skip("PostgreSQL tests: set PHONEAUTH_TEST_DATABASE=postgres", allow_module_level=True)

from pg_support import Workers, code_in, credential, merged, open_all, sign_in_call, succeeded, wrong

CLUSTER_SH = Path(__file__).resolve().parents[3] / "Tests" / "pg" / "cluster.sh"
TEST_NUMBER, TEST_CODE = "+16505551234", "123456"
REAL_NUMBER = "+16505553434"
STATEMENT_MS = 1500  # postgres.statementTimeoutMs: how long a call waits for a lost answer
RETRY_WINDOW = 120  # signInRetrySeconds and refreshReuseIntervalSeconds: far longer than any test
SYNC_CANCELLED = "canceling wait for synchronous replication"  # the server's WARNING when it gives up waiting


def cluster(*args: Any, timeout: float = 120) -> str:
    done = subprocess.run(["bash", str(CLUSTER_SH), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"cluster.sh {' '.join(map(str, args))} failed: {done.stderr[-2000:]}"
    return done.stdout


def retryable(error: Dict[str, Any]) -> bool:
    return error["code"] == "storageError" and error["details"].get("retryable") is True


def session_of(refresh_token: str):
    """(uid, session id) named by a refresh token (Sessions/RefreshToken.swift:
    "<uid in base64url>.<session id>.<generation>.<secret>")."""
    uid, session_id, _generation, _secret = refresh_token.split(".")
    return base64.urlsafe_b64decode(uid + "=" * (-len(uid) % 4)).decode(), session_id


# -- a primary and its synchronous standby ---------------------------------------------------------

class Server:
    """One server of a pair, in its own folder (cluster.sh writes DIR/port and DIR/env)."""

    def __init__(self, folder: Path):
        self.dir = folder

    @property
    def port(self) -> int:
        return int((self.dir / "port").read_text())

    @property
    def url(self) -> str:
        """The tests' URL (role phoneauth, password, TCP), as cluster.sh wrote it."""
        for line in (self.dir / "env").read_text().splitlines():
            if line.startswith("export PHONEAUTH_TEST_POSTGRES_URL="):
                return line.split("=", 1)[1]
        raise AssertionError(f"no URL in {self.dir}/env")

    def sql(self, query: str, *params: Any) -> List[tuple]:
        """As the superuser over the unix socket, on a connection of its own (autocommit)."""
        import psycopg
        with psycopg.connect(host=str(self.dir), port=self.port, user="postgres", dbname="phoneauth",
                             autocommit=True, connect_timeout=10) as conn:
            cur = conn.execute(query, params or None)
            return cur.fetchall() if cur.description else []

    def log(self, since: int = 0) -> str:
        """The server's log from byte `since` (a log_size() taken earlier) on."""
        try:
            with open(self.dir / "server.log", "rb") as log:
                log.seek(since)
                return log.read().decode(errors="replace")
        except OSError:
            return ""

    def log_size(self) -> int:
        try:
            return (self.dir / "server.log").stat().st_size
        except OSError:
            return 0


class Pair:
    """cluster.sh primary + standby (named "standby", synchronous) in a folder of /tmp (short: the
    unix socket's path must fit in 107 bytes)."""

    NAME = "standby"

    def __init__(self):
        self.root = Path(tempfile.mkdtemp(prefix="pa-failover-", dir="/tmp"))
        os.chmod(self.root, 0o755)  # postgres (as root, cluster.sh runs the servers as postgres) goes through
        self.primary = Server(self.root / "p")
        self.standby = Server(self.root / "s")
        self.standby_running = False

    def make(self) -> None:
        cluster("primary", self.primary.dir, self.NAME)
        cluster("standby", self.primary.dir, self.standby.dir, self.NAME)
        self.standby_running = True
        self.wait_in_sync()

    def stop_standby(self) -> None:
        """Stops the standby and waits until the primary no longer streams to it."""
        cluster("stop", self.standby.dir)
        self.standby_running = False
        deadline = time.monotonic() + 10
        while self.replication():  # the primary's walsender may take a moment to go
            assert time.monotonic() < deadline, f"the primary still streams to a standby: {self.replication()}"
            time.sleep(0.02)

    def start_standby(self) -> None:
        cluster("up", self.standby.dir)
        self.standby_running = True

    def replication(self) -> List[tuple]:
        return self.primary.sql("SELECT application_name, state, sync_state FROM pg_stat_replication")

    def wait_in_sync(self, timeout: float = 30) -> None:
        """Until the primary streams to the standby as its synchronous standby, the standby has
        replayed all the primary had written, and no COMMIT waits for it any more."""
        target = self.primary.sql("SELECT pg_current_wal_lsn()")[0][0]
        deadline = time.monotonic() + timeout
        while True:
            rows = self.primary.sql(
                "SELECT sync_state, state, replay_lsn >= %s::pg_lsn FROM pg_stat_replication "
                "WHERE application_name = %s", target, self.NAME)
            waiting = self.commits_waiting()
            if rows == [("sync", "streaming", True)] and not waiting:
                return
            assert time.monotonic() < deadline, \
                f"the standby is not in sync after {timeout} s: {rows}, {len(waiting)} COMMITs waiting"
            time.sleep(0.05)

    def commits_waiting(self) -> List[tuple]:
        """The primary's backends of the phoneauth database waiting for the synchronous standby."""
        return self.primary.sql(
            "SELECT pid, application_name, query FROM pg_stat_activity "
            "WHERE datname = 'phoneauth' AND wait_event = 'SyncRep'")

    def commits_waiting_within(self, timeout: float) -> List[tuple]:
        """commits_waiting() once it lists a COMMIT, or [] after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            waiting = self.commits_waiting()
            if waiting or time.monotonic() >= deadline:
                return waiting
            time.sleep(0.02)

    def url(self, *servers: Server, **parameters: Any) -> str:
        """The tests' URL with the given servers as its hosts (libpq's multi-host form)."""
        parts = urllib.parse.urlsplit(self.primary.url)
        hosts = ",".join(f"127.0.0.1:{s.port}" for s in servers)
        netloc = f"{parts.username}:{parts.password}@{hosts}"
        return urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=urllib.parse.urlencode(parameters)))

    def cleanup(self) -> None:
        """Stops both servers, however the test left them (frozen, killed, promoted), and removes
        their folder."""
        for server in (self.primary, self.standby):
            if not (server.dir / "data" / "postmaster.pid").exists():
                continue
            subprocess.run(["bash", str(CLUSTER_SH), "thaw", server.dir], capture_output=True, timeout=30)
            try:
                stopped = subprocess.run(["bash", str(CLUSTER_SH), "stop", server.dir], capture_output=True,
                                         timeout=90).returncode == 0
            except subprocess.TimeoutExpired:
                stopped = False
            if not stopped:
                subprocess.run(["bash", str(CLUSTER_SH), "kill", server.dir], capture_output=True, timeout=30)
        shutil.rmtree(self.root, ignore_errors=True)


def make_pair() -> Pair:
    pair = Pair()
    try:
        pair.make()
    except BaseException:
        pair.cleanup()
        raise
    return pair


@pytest.fixture(scope="module")
def pair():
    """A pair shared by the tests of part A, which stop and start its standby (never its primary)."""
    made = make_pair()
    yield made
    made.cleanup()


@pytest.fixture
def standby_up(pair):
    """The module's pair with its standby running and in sync, before the test and after it."""
    if not pair.standby_running:
        pair.start_standby()
    pair.wait_in_sync()
    yield pair
    if not pair.standby_running:
        pair.start_standby()


@pytest.fixture
def own_pair():
    """A pair for this test alone (it kills or freezes the primary)."""
    made = make_pair()
    yield made
    made.cleanup()


@pytest.fixture
def spawn(tmp_path):
    workers = Workers(tmp_path)
    yield workers.spawn
    workers.stop_all()


def engine_config(database: str, schema: str, **overrides: Any) -> Dict[str, Any]:
    """An engine on `schema` of `database` with short statement timeouts and retry windows far
    longer than a test; overrides are merged one level deep."""
    config: Dict[str, Any] = {
        "database": database,
        "masterKey": secrets.token_hex(32),
        "postgres": {"schema": schema, "poolSize": 4, "statementTimeoutMs": STATEMENT_MS},
        "resendAfterSeconds": RETRY_WINDOW,
        "signInRetrySeconds": RETRY_WINDOW,
        "refreshReuseIntervalSeconds": RETRY_WINDOW,
        "sms": {"provider": "callback", "retryBackoffMs": 50},
    }
    return merged(config, overrides)


def new_schema() -> str:
    return "f_" + uuid.uuid4().hex[:12]


# -- A. a COMMIT whose answer is lost ---------------------------------------------------------------

def call_while_standby_is_down(pair: Pair, worker, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
    """Stops the standby, makes the call and returns its error: the COMMIT must reach the primary
    (seen waiting there for the standby), and the call must fail, unacknowledged, with a retryable
    storageError. Starts the standby again and waits until the primary is in sync with it.
    (The primary's log is read from the call on: another test may have cancelled a wait before.)"""
    log_from = pair.primary.log_size()
    pair.stop_standby()
    worker.send({"op": "call", "method": method, "params": params})
    # The COMMIT waits on the primary for the standby. (Only until the engine's answer, if the
    # server stopped waiting by itself.)
    waiting = pair.commits_waiting_within(STATEMENT_MS / 1000 + 10)
    outcome = worker.receive()
    assert waiting, f"{method}: no COMMIT waited on the primary for the stopped standby; the call gave {outcome}"
    assert "ok" not in outcome, (
        f"{method} was acknowledged while the synchronous standby was down (so its change is not on the "
        f"standby, and a fail-over now would lose it), after {outcome['elapsed']:.2f} s; the primary's log "
        f"{'says' if SYNC_CANCELLED in pair.primary.log(log_from) else 'does not say'} '{SYNC_CANCELLED}'")
    error = outcome["error"]
    assert retryable(error), f"{method} failed with {error['repr']} (a retryable storageError expected)"
    assert "committed is unknown" in error["message"], error["message"]
    assert error["details"].get("commitUnknown") is True, error["details"]
    assert STATEMENT_MS / 1000 * 0.8 <= outcome["elapsed"] <= STATEMENT_MS / 1000 + 8, \
        f"{method} failed after {outcome['elapsed']:.2f} s (statementTimeoutMs {STATEMENT_MS})"
    # Still waiting: nobody stopped the COMMIT (no acknowledged-but-unreplicated change).
    assert pair.commits_waiting(), f"{method}: the COMMIT stopped waiting for the standby by itself"
    assert SYNC_CANCELLED not in pair.primary.log(log_from)

    pair.start_standby()
    pair.wait_in_sync()
    assert SYNC_CANCELLED not in pair.primary.log(log_from)
    return error


@pytest.mark.parametrize("retried_in", ["same engine", "another engine"])
@pytest.mark.parametrize("method", ["signInWithCredential", "verifyPhoneNumber", "refreshIdToken"])
def test_a_call_whose_commit_answer_is_lost_completes_when_made_again(standby_up, spawn, method, retried_in):
    # The call is made again by the engine that lost the answer, or by another one (another app
    # server behind the same load balancer).
    pair = standby_up
    schema = new_schema()
    config = engine_config(pair.primary.url, schema, testPhoneNumbers={TEST_NUMBER: TEST_CODE})
    first, other = spawn(2)
    open_all([first, other], config, sender=True)
    retrier = first if retried_in == "same engine" else other
    db = pair.primary

    if method == "signInWithCredential":
        verification_id = first.ok("verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})["verificationId"]
        params = {"credential": credential(verification_id, TEST_CODE)}
        call_while_standby_is_down(pair, first, method, params)
        # Committed: the user and the session the lost answer held.
        users = db.sql(f"SELECT uid FROM {schema}.users WHERE phone = %s", TEST_NUMBER)
        assert len(users) == 1, f"{len(users)} users after the lost sign-in (its COMMIT did not commit?)"
        uid = users[0][0]
        assert db.sql(f"SELECT count(*) FROM {schema}.sessions WHERE uid = %s", uid) == [(1,)]

        retry = retrier.call(method, params)
        assert "ok" in retry, f"the same credential, presented again, failed with {retry['error']['repr']}"
        signed = retry["ok"]
        assert signed["user"]["uid"] == uid
        assert signed["additionalUserInfo"]["isNewUser"] is True, "the committed sign-in made the user"
        assert db.sql(f"SELECT count(*) FROM {schema}.users") == [(1,)]
        # Its session is there and works.
        assert session_of(signed["refreshToken"])[0] == uid
        assert db.sql(f"SELECT revoked_at FROM {schema}.sessions WHERE uid = %s AND id = %s",
                      *session_of(signed["refreshToken"])) == [(None,)]
        assert other.ok("verifyIdToken", {"idToken": signed["idToken"], "checkRevoked": True})["claims"]["sub"] == uid
        assert other.ok("refreshIdToken", {"refreshToken": signed["refreshToken"]})["refreshToken"]

    elif method == "verifyPhoneNumber":
        params = {"phoneNumber": REAL_NUMBER}
        asked = time.time()
        call_while_standby_is_down(pair, first, method, params)
        rows = db.sql(f"SELECT id, delivery FROM {schema}.verifications WHERE phone = %s", REAL_NUMBER)
        assert len(rows) == 1, f"{len(rows)} verifications after the lost one (its COMMIT did not commit?)"
        verification_id, delivery = rows[0]

        retried = time.time()
        retry = retrier.call(method, params)
        assert "ok" in retry, f"verifyPhoneNumber made again failed with {retry['error']['repr']}"
        assert retry["ok"]["verificationId"] == verification_id, "the retry started another verification"
        # The SMS goes now, from either engine, not when the 30-second lease of the lost call
        # runs out.
        wait = 10
        deadline = time.monotonic() + wait
        while True:
            sent = [m for w in (first, other) for m in w.request({"op": "messages"})["messages"]]
            if sent or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert sent, (f"no SMS within {wait} s of the retry (the delivery was '{delivery}' after the lost "
                      f"call; now {db.sql(f'SELECT delivery, delivery_attempts FROM {schema}.verifications')})")
        print(f"verifyPhoneNumber retried in the {retried_in}: the SMS {sent[0]['receivedAt'] - retried:.2f} s "
              f"after the retry, {sent[0]['receivedAt'] - asked:.2f} s after the first call")
        # Before the lost call's lease (30 s) could have run out: the release sent it, not the lease.
        assert sent[0]["receivedAt"] - asked < 28, \
            f"the SMS came {sent[0]['receivedAt'] - asked:.1f} s after the first call: its lease ran out"
        # Sent once, for good: the outbox says so, and the code in it signs in.
        deadline = time.monotonic() + 10
        while db.sql(f"SELECT delivery FROM {schema}.verifications WHERE id = %s", verification_id) != [("sent",)]:
            assert time.monotonic() < deadline, "the delivered SMS is not marked sent"
            time.sleep(0.05)
        assert db.sql(f"SELECT delivery_attempts FROM {schema}.verifications WHERE id = %s", verification_id) == [(1,)]
        signed = other.ok(*sign_in_call(verification_id, code_in(sent[0]["body"])))
        assert signed["user"]["phoneNumber"] == REAL_NUMBER
        sent = [m for w in (first, other) for m in w.request({"op": "messages"})["messages"]]
        assert [m["verificationId"] for m in sent] == [verification_id], f"{len(sent)} SMS for one verification"

    else:  # refreshIdToken
        verification_id = first.ok("verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})["verificationId"]
        signed = first.ok(*sign_in_call(verification_id, TEST_CODE))
        uid, session_id = session_of(signed["refreshToken"])
        params = {"refreshToken": signed["refreshToken"]}
        call_while_standby_is_down(pair, first, method, params)
        # Committed: the session went to its next generation.
        assert db.sql(f"SELECT generation, revoked_at FROM {schema}.sessions WHERE uid = %s AND id = %s",
                      uid, session_id) == [(1, None)], "the lost rotation did not commit"

        retry = retrier.call(method, params)
        assert "ok" in retry, f"the same refresh token, presented again, failed with {retry['error']['repr']}"
        refreshed = retry["ok"]
        claims = other.ok("verifyIdToken", {"idToken": refreshed["idToken"], "checkRevoked": True})["claims"]
        assert claims["sub"] == uid
        following = other.call(method, {"refreshToken": refreshed["refreshToken"]})
        assert "ok" in following, f"the token the retry gave does not refresh: {following['error']['repr']}"
        assert db.sql(f"SELECT revoked_at FROM {schema}.sessions WHERE uid = %s AND id = %s",
                      uid, session_id) == [(None,)], "the session was ended"


# The calls that prove a code and open a session, made again after a lost COMMIT: within
# signInRetrySeconds the same proof gets what the committed call gave (its session, never a second
# session nor a second factor), as signInWithCredential's does; any other proof is still refused.

SECOND_NUMBER = "+16505551235"  # the number updatePhoneNumber moves to
FACTOR_NUMBER = "+16505551236"  # the number enrolled as an SMS second factor


class LostCall:
    """A call set up in one engine, to be made while the standby is down.

    uid           the user it acts on
    state         (SQL, args): what the call changes, read on the primary...
    before/after  ...before the call, and once it has committed (unchanged by the retry)
    second_factor what the session it opens says in sessions.second_factor
    others        (what, make the call): other proofs, each refused after the retry
    """

    def __init__(self, method: str, params: Dict[str, Any], uid: str, state: tuple, before: Any, after: Any,
                 second_factor: Any = None, others: Any = ()):
        self.method, self.params, self.uid = method, params, uid
        self.state, self.before, self.after = state, before, after
        self.second_factor, self.others = second_factor, list(others)


def phone_proof(worker, number: str) -> Dict[str, Any]:
    """A credential of a new verification of `number` (a test number: no SMS)."""
    return credential(worker.ok("verifyPhoneNumber", {"phoneNumber": number})["verificationId"], TEST_CODE)


def challenge_of(worker, number: str) -> Dict[str, Any]:
    """Signs in with `number`, which must answer secondFactorRequired; returns its details."""
    outcome = worker.call("signInWithCredential", {"credential": phone_proof(worker, number)})
    assert "error" in outcome and outcome["error"]["code"] == "secondFactorRequired", \
        f"the sign-in of a user with a second factor gave {outcome.get('error', {}).get('repr') or 'a session'}"
    return outcome["error"]["details"]


def enrol_phone_factor(worker, id_token: str) -> Dict[str, Any]:
    started = worker.ok("mfaEnrollStart", {"idToken": id_token, "phoneNumber": FACTOR_NUMBER})
    return worker.ok("mfaEnrollFinalize", {"idToken": id_token, "factorId": "phone",
                                           "credential": credential(started["verificationId"], TEST_CODE)})


def lost_call(call: str, worker, schema: str) -> LostCall:
    """Sets up `call` (a user signed in with TEST_NUMBER, unless the call needs another start)."""
    if call == "linkWithCredential":  # a user with no number yet, made by a custom token
        token = worker.ok("createCustomToken", {"uid": "host-" + uuid.uuid4().hex[:8]})["customToken"]
        user = worker.ok("signInWithCustomToken", {"customToken": token})
    else:
        user = worker.ok("signInWithCredential", {"credential": phone_proof(worker, TEST_NUMBER)})
    uid, id_token = user["user"]["uid"], user["idToken"]
    phone_of_user = (f"SELECT phone FROM {schema}.users WHERE uid = %s", uid)

    if call in ("linkWithCredential", "updatePhoneNumber", "reauthenticateWithCredential"):
        number = SECOND_NUMBER if call == "updatePhoneNumber" else TEST_NUMBER
        proof = phone_proof(worker, number)
        wrong_code = dict(proof, verificationCode=wrong(TEST_CODE))
        others = [("the same verification with a wrong code",
                   lambda: worker.call(call, {"idToken": id_token, "credential": wrong_code}))]
        if call == "linkWithCredential":
            others.append(("a second proof of the number",
                           lambda: worker.call(call, {"idToken": id_token,
                                                      "credential": phone_proof(worker, TEST_NUMBER)})))
        before = [(None,)] if call == "linkWithCredential" else [(TEST_NUMBER,)]
        return LostCall(call, {"idToken": id_token, "credential": proof}, uid, phone_of_user, before, [(number,)],
                        others=others)

    factors = (f"SELECT factor_id, phone FROM {schema}.factors WHERE uid = %s", uid)
    if call == "mfaEnrollFinalize":
        started = worker.ok("mfaEnrollStart", {"idToken": id_token, "phoneNumber": FACTOR_NUMBER})
        proof = credential(started["verificationId"], TEST_CODE)
        params = {"idToken": id_token, "factorId": "phone", "credential": proof}
        others = [
            ("the same verification with a wrong code",
             lambda: worker.call(call, dict(params, credential=dict(proof, verificationCode=wrong(TEST_CODE))))),
            ("a second enrolment of the number",
             lambda: worker.call("mfaEnrollStart", {"idToken": id_token, "phoneNumber": FACTOR_NUMBER})),
        ]
        return LostCall("mfaEnrollFinalize", params, uid, factors, [], [("phone", FACTOR_NUMBER)],
                        second_factor="phone", others=others)

    # mfaResolveSignIn: a factor enrolled, then a sign-in with the first factor that asks for it.
    if call == "mfaResolveSignIn with phone":
        enrol_phone_factor(worker, id_token)
    else:
        started = worker.ok("mfaTotpStart", {"idToken": id_token})
        totp = pyotp.TOTP(started["secretKey"])
        # The code of the previous step (in the ±1 step window): the sign-in's code, of this
        # step or a later one, is not a replay of it.
        worker.ok("mfaEnrollFinalize", {"idToken": id_token, "factorId": "totp", "sessionInfo": started["sessionInfo"],
                                        "verificationCode": totp.at(time.time() - 30)})
    challenge = challenge_of(worker, TEST_NUMBER)
    session, [hint] = challenge["session"], challenge["hints"]

    def resolve(assertion: Dict[str, Any]):
        return lambda: worker.call("mfaResolveSignIn", {"session": session, "assertion": assertion})

    if call == "mfaResolveSignIn with phone":
        sent = worker.ok("verifyPhoneNumber", {"multiFactorHint": hint["uid"], "multiFactorSession": session})
        proof = credential(sent["verificationId"], TEST_CODE)
        assertion = {"factorId": "phone", "credential": proof}
        others = [
            ("the same verification with a wrong code",
             resolve(dict(assertion, credential=dict(proof, verificationCode=wrong(TEST_CODE))))),
            ("another code sent for the same multi-factor session",
             lambda: worker.call("verifyPhoneNumber", {"multiFactorHint": hint["uid"], "multiFactorSession": session})),
        ]
    else:
        now = time.time()
        assertion = {"factorId": "totp", "enrollmentId": hint["uid"], "verificationCode": totp.at(now)}
        window = {totp.at(now + d) for d in (-60, -30, 0, 30, 60)}
        wrong_totp = next(c for c in ("000000", "111111", "222222", "333333") if c not in window)
        others = [("a wrong code", resolve(dict(assertion, verificationCode=wrong_totp))),
                  ("the next step's code", resolve(dict(assertion, verificationCode=totp.at(now + 30))))]
    # Committed: the challenge is spent; the user keeps its one factor.
    state = (f"SELECT (SELECT state FROM {schema}.mfa_sessions WHERE id = %s) <> 'active', "
             f"(SELECT count(*) FROM {schema}.factors WHERE uid = %s)", session, uid)
    return LostCall("mfaResolveSignIn", {"session": session, "assertion": assertion}, uid, state, [(False, 1)],
                    [(True, 1)], second_factor=call.split()[-1], others=others)


def sessions_of(db: Server, schema: str, uid: str) -> Dict[str, Any]:
    """The user's sessions: {id: second_factor}."""
    return dict(db.sql(f"SELECT id, second_factor FROM {schema}.sessions WHERE uid = %s", uid))


@pytest.mark.parametrize("retried_in", ["same engine", "another engine"])
@pytest.mark.parametrize("call", ["linkWithCredential", "updatePhoneNumber", "reauthenticateWithCredential",
                                  "mfaEnrollFinalize", "mfaResolveSignIn with phone",
                                  "mfaResolveSignIn with totp"])
def test_a_proof_whose_commit_answer_is_lost_gets_the_same_session_when_made_again(standby_up, spawn, call,
                                                                                    retried_in):
    pair = standby_up
    schema = new_schema()
    numbers = {n: TEST_CODE for n in (TEST_NUMBER, SECOND_NUMBER, FACTOR_NUMBER)}
    config = engine_config(pair.primary.url, schema, testPhoneNumbers=numbers, resendAfterSeconds=0)
    first, other = spawn(2)
    open_all([first, other], config)
    retrier = first if retried_in == "same engine" else other
    db = pair.primary

    lost = lost_call(call, first, schema)
    method, uid = lost.method, lost.uid
    assert db.sql(*lost.state) == lost.before
    earlier = sessions_of(db, schema, uid)
    call_while_standby_is_down(pair, first, method, lost.params)

    # Committed: what the call changes, and the one session it opened.
    assert db.sql(*lost.state) == lost.after, f"{call}: its change is not there (its COMMIT did not commit?)"
    opened = {i: f for i, f in sessions_of(db, schema, uid).items() if i not in earlier}
    assert len(opened) == 1, f"{call} opened {len(opened)} sessions (its COMMIT did not commit?)"
    [(session_id, second_factor)] = opened.items()
    assert second_factor == lost.second_factor

    retry = retrier.call(method, lost.params)
    assert "ok" in retry, f"{call}: the same proof, presented again, failed with {retry['error']['repr']}"
    signed = retry["ok"]
    assert signed["user"]["uid"] == uid
    assert session_of(signed["refreshToken"]) == (uid, session_id), \
        f"{call}: the retry's refresh token names session {session_of(signed['refreshToken'])[1]}, " \
        f"not {session_id}, the one the committed call opened"
    assert sessions_of(db, schema, uid).keys() - earlier.keys() == {session_id}, f"{call}: a second session"
    assert db.sql(*lost.state) == lost.after, f"{call}: the retry changed the user again"
    claims = other.ok("verifyIdToken", {"idToken": signed["idToken"], "checkRevoked": True})["claims"]
    assert claims["sub"] == uid
    assert claims["firebase"].get("sign_in_second_factor") == lost.second_factor

    # Only that proof: any other is refused, and opens nothing.
    for what, attempt in lost.others:
        outcome = attempt()
        assert "error" in outcome, f"{call}: {what} was accepted after the retry"
        assert outcome["error"]["code"] != "storageError", f"{call}: {what}: {outcome['error']['repr']}"
    assert sessions_of(db, schema, uid).keys() - earlier.keys() == {session_id}, \
        f"{call}: another proof opened a session"
    assert db.sql(*lost.state) == lost.after

    # The session works: its token refreshes (from the other engine), and it is not ended.
    refreshed = other.call("refreshIdToken", {"refreshToken": signed["refreshToken"]})
    assert "ok" in refreshed, f"{call}: the retry's refresh token does not refresh: {refreshed['error']['repr']}"
    assert db.sql(f"SELECT generation, revoked_at FROM {schema}.sessions WHERE uid = %s AND id = %s",
                  uid, session_id) == [(1, None)]


@pytest.mark.parametrize("retried_in", ["same engine", "another engine"])
def test_a_commit_whose_wait_for_the_standby_is_cancelled_is_not_taken_as_success(standby_up, spawn, retried_in):
    # Someone (an operator, a tool) cancels the backend whose COMMIT waits for the stopped
    # synchronous standby: the server commits locally and answers the COMMIT with a WARNING,
    # "canceling wait for synchronous replication", not an error. The change is on the primary
    # alone: a fail-over now would lose it, so the call must not be acknowledged; it fails as a
    # COMMIT whose answer is lost does, and the same call made again gets what it committed.
    pair = standby_up
    schema = new_schema()
    # The engine waits for the COMMIT's answer far longer than the test takes to cancel it, on a
    # busy machine too: the answer it gets is the server's, not its own timeout.
    patience_ms = 20000
    config = engine_config(pair.primary.url, schema, testPhoneNumbers={TEST_NUMBER: TEST_CODE},
                           postgres={"statementTimeoutMs": patience_ms})
    first, other = spawn(2)
    open_all([first, other], config)
    retrier = first if retried_in == "same engine" else other
    db = pair.primary
    params = {"credential": phone_proof(first, TEST_NUMBER)}

    log_from = db.log_size()
    pair.stop_standby()
    first.send({"op": "call", "method": "signInWithCredential", "params": params})
    waiting = pair.commits_waiting_within(10)
    assert len(waiting) == 1, f"{len(waiting)} COMMITs wait for the stopped standby: {waiting}"
    assert db.sql("SELECT pg_cancel_backend(%s)", waiting[0][0]) == [(True,)]
    outcome = first.receive()
    assert SYNC_CANCELLED in db.log(log_from), "the server did not cancel the wait"
    assert outcome["elapsed"] < patience_ms / 1000 * 0.8, "the call ended by the engine's timeout, not the cancel"
    # Committed on the primary alone.
    users = db.sql(f"SELECT uid FROM {schema}.users WHERE phone = %s", TEST_NUMBER)
    assert len(users) == 1, f"{len(users)} users after the cancelled wait"
    uid = users[0][0]
    [session_id] = sessions_of(db, schema, uid)
    assert "ok" not in outcome, (
        f"the sign-in was acknowledged after {outcome['elapsed']:.2f} s, when the server answered its COMMIT "
        f"with '{SYNC_CANCELLED}': its session is on the primary alone")
    error = outcome["error"]
    assert retryable(error), f"the sign-in failed with {error['repr']} (a retryable storageError expected)"
    assert error["details"].get("commitUnknown") is True, error["details"]

    pair.start_standby()
    pair.wait_in_sync()
    retry = retrier.call("signInWithCredential", params)
    assert "ok" in retry, f"the same credential, presented again, failed with {retry['error']['repr']}"
    signed = retry["ok"]
    assert session_of(signed["refreshToken"]) == (uid, session_id)
    assert signed["additionalUserInfo"]["isNewUser"] is True, "the committed sign-in made the user"
    assert list(sessions_of(db, schema, uid)) == [session_id]
    assert db.sql(f"SELECT count(*) FROM {schema}.users") == [(1,)]
    assert "ok" in other.call("refreshIdToken", {"refreshToken": signed["refreshToken"]})


# -- B. fail-over under load -----------------------------------------------------------------------

@pytest.mark.parametrize("how", ["kill", "freeze"])
def test_failover_under_load_loses_nothing_acknowledged(own_pair, spawn, how):
    # The primary dies (SIGKILL: its connections close at once, its port refuses), or hangs
    # (SIGSTOP: its connections and its port stay open and silent, so the engines wait for the
    # statement timeout, then for connect_timeout on every new connection).
    pair = own_pair
    schema = new_schema()
    numbers = ["+1650555%04d" % n for n in range(1230, 1236)]
    url = pair.url(pair.primary, pair.standby, target_session_attrs="read-write", connect_timeout=2)
    config = engine_config(url, schema, resendAfterSeconds=0, testPhoneNumbers={n: TEST_CODE for n in numbers})
    workers = spawn(2)
    open_all(workers, config)
    per_worker = {w.name: numbers[i::2] for i, w in enumerate(workers)}
    hard_limit = time.time() + 70  # no loop (nor its retries) runs past this
    for worker in workers:
        assert worker.request({"op": "retry_start", "numbers": per_worker[worker.name], "code": TEST_CODE,
                               "until": hard_limit})["started"] == 3

    def sign_ins_since(since: float) -> Dict[str, int]:
        return {w.name: w.request({"op": "retry_progress", "since": since})["signIns"] for w in workers}

    # Load: every worker signing in, for about 2 s.
    began = time.time()
    while min(sign_ins_since(began).values()) == 0:
        assert time.time() < began + 20, f"the loops do not sign in: {sign_ins_since(began)}"
        time.sleep(0.1)
    time.sleep(2)

    kill_began = time.time()
    cluster(how, pair.primary.dir)
    killed_at = time.time()  # every process of the primary is dead, or stopped
    cluster("promote", pair.standby.dir)
    promoted_at = time.time()
    # Until every worker has signed in again, and 2 s more.
    recovered: Dict[str, float] = {}
    while len(recovered) < len(workers) or time.time() < max(recovered.values()) + 2:
        for name, count in sign_ins_since(promoted_at).items():
            if count and name not in recovered:
                recovered[name] = time.time()
        if time.time() > promoted_at + 30:
            break
        time.sleep(0.1)
    runs = {w.name: w.request({"op": "retry_stop"}, timeout=hard_limit - time.time() + 30) for w in workers}
    assert len(recovered) == len(workers), \
        f"no sign-in in {sorted(set(runs) - set(recovered))} within 30 s of the promotion"

    # What the workers saw.
    summary: Dict[str, Any] = {"how": how, "kill_s": round(killed_at - kill_began, 3),
                               "killToPromoted_s": round(promoted_at - killed_at, 3), "workers": {}}
    acknowledged: List[Dict[str, Any]] = []
    problems: List[str] = []
    for name, run in runs.items():
        calls = run["calls"]
        if run["opens"] != 1:
            problems.append(f"{name} opened {run['opens']} engines")
        errors = [c for c in calls if "error" in c]
        for call in errors:
            if not retryable(call["error"]):
                problems.append(f"{call['method']} in {name} ({call['chain']}, attempt {call['attempt']}) failed "
                                f"with {call['error']['repr']}")
        chains: Dict[str, List[Dict[str, Any]]] = {}
        for call in calls:
            chains.setdefault(call["chain"], []).append(call)
        retried = {chain: attempts for chain, attempts in chains.items() if len(attempts) > 1}
        for chain, attempts in retried.items():
            last = max(attempts, key=lambda c: c["attempt"])
            if "ok" not in last:
                problems.append(f"{chain} in {name}, retried {len(attempts) - 1} times, ended with "
                                f"{last['error']['repr']}")
        after_kill = [c for c in calls if "ok" in c and c["t0"] >= killed_at]
        first = min((c["t0"] + c["elapsed"] for c in after_kill), default=None)
        summary["workers"][name] = {
            "calls": len(calls), "errors": len(errors), "signIns": len(run["sessions"]),
            "signInsAfterKill": sum(1 for s in run["sessions"] if s["t0"] >= killed_at),
            "retriedCalls": len(retried), "mostAttempts": max((len(a) for a in chains.values()), default=0),
            "unknownCommits": sum(1 for c in errors if "committed is unknown" in c["error"]["message"]),
            "longestCall_s": round(max(c["elapsed"] for c in calls), 3),
            "killToFirstSuccess_s": None if first is None else round(first - killed_at, 3),
            "promotedToFirstSuccess_s": None if first is None else round(first - promoted_at, 3),
            "errorMessages": sorted({c["error"]["message"][:160] for c in errors})[:4],
        }
        acknowledged.extend(run["sessions"])

    # What the new primary holds: every acknowledged sign-in's user and session.
    new_primary = pair.standby
    assert new_primary.sql("SELECT pg_is_in_recovery()") == [(False,)]
    wanted = {session_of(s["refreshToken"]) for s in acknowledged}
    uids = sorted({uid for uid, _ in wanted})
    found_users = {row[0] for row in new_primary.sql(f"SELECT uid FROM {schema}.users WHERE uid = ANY(%s)", uids)}
    found_sessions = set(new_primary.sql(f"SELECT uid, id FROM {schema}.sessions WHERE id = ANY(%s)",
                                         sorted(i for _, i in wanted)))
    lost_users = set(uids) - found_users
    lost_sessions = wanted - found_sessions
    by_number: Dict[str, set] = {}
    for s in acknowledged:
        by_number.setdefault(s["number"], set()).add(s["uid"])
    twice = new_primary.sql(f"SELECT phone, count(*) FROM {schema}.users GROUP BY phone HAVING count(*) > 1")
    summary.update(acknowledgedSignIns=len(acknowledged), lostUsers=len(lost_users), lostSessions=len(lost_sessions),
                   errors=sum(w["errors"] for w in summary["workers"].values()),
                   syncWaitCancelled=SYNC_CANCELLED in pair.primary.log())
    print("FAILOVER: " + json.dumps(summary, sort_keys=True))

    assert not lost_users and not lost_sessions, \
        f"{len(lost_users)} users and {len(lost_sessions)} sessions acknowledged but not on the new primary"
    assert not [n for n, u in by_number.items() if len(u) > 1] and not twice, \
        f"numbers with two users: {by_number}, {twice}"
    assert not summary["syncWaitCancelled"], f"the primary's log says '{SYNC_CANCELLED}'"
    assert not problems, f"{len(problems)} problems, e.g.:\n" + "\n".join(problems[:8])
    for name, figures in summary["workers"].items():
        assert figures["signInsAfterKill"], f"{name} signed nobody in after the kill"


# -- C. the URI's connect_timeout ------------------------------------------------------------------

class FrozenHost:
    """A loopback port that accepts every connection and reads all that comes, never answering:
    libpq gets its TCP connection, sends its first packet and waits for a reply."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self.received = 0
        self.held: List[socket.socket] = []
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            self.held.append(conn)
            threading.Thread(target=self._read, args=(conn,), daemon=True).start()

    def _read(self, conn: socket.socket) -> None:
        while True:
            try:
                data = conn.recv(4096)
            except OSError:
                return
            if not data:
                return
            self.received += len(data)

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        for conn in self.held:
            conn.close()


@pytest.fixture
def frozen_host():
    host = FrozenHost()
    yield host
    host.close()


@pytest.fixture
def shared_schema():
    """A schema of the shared test server (PHONEAUTH_TEST_POSTGRES_URL), dropped at the end."""
    url = os.environ.get("PHONEAUTH_TEST_POSTGRES_URL")
    if not url:
        pytest.fail("PHONEAUTH_TEST_DATABASE=postgres but PHONEAUTH_TEST_POSTGRES_URL is not set "
                    "(start a server with Tests/pg/cluster.sh start DIR and source DIR/env)", pytrace=False)
    name = new_schema()
    yield url, name
    import psycopg
    with psycopg.connect(url, autocommit=True, connect_timeout=30) as conn:
        conn.execute("SET lock_timeout = '5s'")
        conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")


def test_the_uri_connect_timeout_is_honoured_past_a_frozen_host(shared_schema, spawn, frozen_host):
    url, schema = shared_schema
    parts = urllib.parse.urlsplit(url)
    netloc = f"{parts.username}:{parts.password}@127.0.0.1:{frozen_host.port},{parts.hostname}:{parts.port}"
    query = "target_session_attrs=read-write&connect_timeout=1"
    multi = urllib.parse.urlunsplit(parts._replace(netloc=netloc, query=query))
    config = engine_config(multi, schema, testPhoneNumbers={TEST_NUMBER: TEST_CODE})
    assert "connectTimeoutSeconds" not in config["postgres"]  # its default, 5 s, is not what the URI says
    worker, = spawn(1)
    # The schema made first, straight to the server: the timed opening is connecting, not migrating.
    succeeded(worker.open(dict(config, database=url)), "making the schema")
    worker.request({"op": "close"})
    opened = worker.open(config)
    succeeded(opened, "opening the engine past a frozen host")
    started = worker.call("verifyPhoneNumber", {"phoneNumber": TEST_NUMBER})
    signed = worker.call(*sign_in_call(succeeded(started, "verifyPhoneNumber")["verificationId"], TEST_CODE))
    succeeded(signed, "signInWithCredential")
    print(f"connect_timeout=1 past a frozen host: opening took {opened['elapsed']:.2f} s, then "
          f"verifyPhoneNumber {started['elapsed']:.2f} s, signInWithCredential {signed['elapsed']:.2f} s; "
          f"the frozen host got {frozen_host.connections} connections, {frozen_host.received} bytes")
    # libpq really waited on the frozen host: it connected and sent its first packet there.
    assert frozen_host.connections >= 1 and frozen_host.received > 0
    assert opened["elapsed"] >= 0.9, f"opening took {opened['elapsed']:.2f} s: the first host did not hold it"
    assert opened["elapsed"] < 4, \
        f"opening took {opened['elapsed']:.2f} s: the URI's connect_timeout (1 s) was not the one used"
