"""A hand-rolled phone sign-in in plain Python, the yardstick for the binding's figure.

Written from scratch for this benchmark, the way a careful developer would do it without the
engine: sqlite3 in WAL mode with synchronous=NORMAL, a 6-digit code from `secrets` stored only as
an HMAC-SHA256 keyed by a server secret and compared in constant time, a durable outbox row written
in the same transaction as the verification, users with a phone identity, a refresh token stored as
its SHA-256, and an ES256 ID token signed with PyJWT (Firebase-style claims).

One flow, all on the calling thread:
  verify   BEGIN IMMEDIATE; look for a live verification of the number (resend window); INSERT
           verification; INSERT outbox; COMMIT
  deliver  SELECT due outbox rows; hand each message to a no-op sender (which keeps the code for
           the test); UPDATE the row sent and drop its body
  sign in  BEGIN IMMEDIATE; SELECT the verification; check expiry, attempts and the code's HMAC;
           UPDATE it consumed; SELECT the user by phone; INSERT user + identity; INSERT refresh
           token hash; COMMIT; sign the ID token

Prints {"handrolled": {...}} with flows/s (1 thread) and latency percentiles. Flows:
$BENCH_FLOWS_PY, else $BENCH_FLOWS, else 5000.
"""
import hashlib
import hmac
import json
import os
import re
import secrets
import shutil
import sqlite3
import sys
import tempfile
import time

import jwt
from cryptography.hazmat.primitives.asymmetric import ec

from benchutil import flow_count, percentiles, phone_number

CODE_TTL = 300
RESEND_AFTER = 60
MAX_ATTEMPTS = 5
ID_TOKEN_TTL = 3600
REFRESH_TTL = 30 * 86400
PROJECT_ID = "phoneauth"
ISSUER = "https://phoneauth.local/" + PROJECT_ID
E164 = re.compile(r"^\+[1-9]\d{7,14}$")

SCHEMA = """
CREATE TABLE IF NOT EXISTS verifications(
  id TEXT PRIMARY KEY, phone TEXT NOT NULL, code_hmac BLOB NOT NULL, created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, state INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS verifications_phone ON verifications(phone, created_at);
CREATE TABLE IF NOT EXISTS outbox(
  id INTEGER PRIMARY KEY, verification_id TEXT NOT NULL, to_number TEXT NOT NULL, body TEXT,
  language TEXT NOT NULL, state INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox(state, next_attempt_at);
CREATE TABLE IF NOT EXISTS users(
  uid TEXT PRIMARY KEY, phone TEXT UNIQUE, created_at INTEGER NOT NULL,
  last_sign_in_at INTEGER NOT NULL, disabled INTEGER NOT NULL DEFAULT 0,
  tokens_valid_after INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS identities(
  provider TEXT NOT NULL, provider_uid TEXT NOT NULL, uid TEXT NOT NULL REFERENCES users(uid),
  PRIMARY KEY(provider, provider_uid));
CREATE TABLE IF NOT EXISTS refresh_tokens(
  hash BLOB PRIMARY KEY, uid TEXT NOT NULL REFERENCES users(uid), created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
"""

ACTIVE, USED, REPLACED = 0, 1, 2
PENDING, SENT = 0, 1


class AuthError(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


class HandRolledAuth:
    def __init__(self, path, sms_sender):
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)
        self.code_key = secrets.token_bytes(32)
        self.signing_key = ec.generate_private_key(ec.SECP256R1())
        self.kid = secrets.token_hex(8)
        self.sms_sender = sms_sender

    def close(self):
        self.db.close()

    def verify_phone_number(self, phone):
        if not E164.match(phone):
            raise AuthError("invalidPhoneNumber")
        now = int(time.time())
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute(
                "SELECT id, created_at FROM verifications WHERE phone=? AND state=?"
                " ORDER BY created_at DESC LIMIT 1", (phone, ACTIVE)).fetchone()
            if row and now - row[1] < RESEND_AFTER:
                db.execute("COMMIT")
                return row[0]
            if row:
                db.execute("UPDATE verifications SET state=? WHERE id=?", (REPLACED, row[0]))
            vid = secrets.token_urlsafe(24)
            code = f"{secrets.randbelow(10 ** 6):06d}"
            code_hmac = hmac.new(self.code_key, f"{vid}:{code}".encode(), hashlib.sha256).digest()
            db.execute(
                "INSERT INTO verifications(id, phone, code_hmac, created_at, expires_at)"
                " VALUES(?, ?, ?, ?, ?)", (vid, phone, code_hmac, now, now + CODE_TTL))
            db.execute(
                "INSERT INTO outbox(verification_id, to_number, body, language, next_attempt_at)"
                " VALUES(?, ?, ?, 'en', ?)", (vid, phone, f"{code} is your verification code.", now))
            db.execute("COMMIT")
            return vid
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def deliver_due(self):
        now = int(time.time())
        rows = self.db.execute(
            "SELECT id, verification_id, to_number, body, language FROM outbox"
            " WHERE state=? AND next_attempt_at<=? ORDER BY id LIMIT 16", (PENDING, now)).fetchall()
        for oid, vid, to, body, lang in rows:
            self.sms_sender({"to": to, "body": body, "languageCode": lang, "verificationId": vid})
            self.db.execute("UPDATE outbox SET state=?, body=NULL, attempts=attempts+1 WHERE id=?",
                            (SENT, oid))
        return len(rows)

    def sign_in_with_credential(self, vid, code):
        now = int(time.time())
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute("SELECT phone, code_hmac, expires_at, attempts, state FROM verifications"
                             " WHERE id=?", (vid,)).fetchone()
            if row is None:
                raise AuthError("invalidVerificationID")
            phone, code_hmac, expires_at, attempts, state = row
            if state != ACTIVE or expires_at <= now or attempts >= MAX_ATTEMPTS:
                raise AuthError("sessionExpired")
            expected = hmac.new(self.code_key, f"{vid}:{code}".encode(), hashlib.sha256).digest()
            if not hmac.compare_digest(expected, code_hmac):
                db.execute("UPDATE verifications SET attempts=attempts+1 WHERE id=?", (vid,))
                db.execute("COMMIT")
                raise AuthError("invalidVerificationCode")
            db.execute("UPDATE verifications SET state=? WHERE id=? AND state=?", (USED, vid, ACTIVE))
            user = db.execute("SELECT uid, disabled FROM users WHERE phone=?", (phone,)).fetchone()
            if user is None:
                uid = secrets.token_urlsafe(21)
                is_new = True
                db.execute("INSERT INTO users(uid, phone, created_at, last_sign_in_at, tokens_valid_after)"
                           " VALUES(?, ?, ?, ?, ?)", (uid, phone, now, now, now))
                db.execute("INSERT INTO identities(provider, provider_uid, uid) VALUES('phone', ?, ?)",
                           (phone, uid))
            else:
                uid, disabled = user
                if disabled:
                    raise AuthError("userDisabled")
                is_new = False
                db.execute("UPDATE users SET last_sign_in_at=? WHERE uid=?", (now, uid))
            refresh = secrets.token_urlsafe(32)
            db.execute("INSERT INTO refresh_tokens(hash, uid, created_at, expires_at) VALUES(?, ?, ?, ?)",
                       (hashlib.sha256(refresh.encode()).digest(), uid, now, now + REFRESH_TTL))
            db.execute("COMMIT")
        except AuthError as e:
            if db.in_transaction and e.code != "invalidVerificationCode":
                db.execute("ROLLBACK")
            raise
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        claims = {
            "iss": ISSUER, "aud": PROJECT_ID, "sub": uid, "user_id": uid, "iat": now,
            "exp": now + ID_TOKEN_TTL, "auth_time": now, "phone_number": phone,
            "firebase": {"identities": {"phone": [phone]}, "sign_in_provider": "phone"},
        }
        id_token = jwt.encode(claims, self.signing_key, algorithm="ES256", headers={"kid": self.kid})
        return {"uid": uid, "idToken": id_token, "refreshToken": refresh, "expiresIn": ID_TOKEN_TTL,
                "isNewUser": is_new}


def main():
    flows = flow_count()
    inbox = {}

    def sender(message):  # the "SMS provider": keeps the code for the flow to read
        inbox[message["verificationId"]] = message["body"].split(" ", 1)[0]

    tmp = tempfile.mkdtemp(prefix="phoneauth-handrolled-")
    try:
        auth = HandRolledAuth(os.path.join(tmp, "auth.sqlite"), sender)
        warmup = min(200, flows // 20)
        errors = {}
        lat = {"verify": [], "deliver": [], "signIn": [], "flow": []}
        ok = 0
        clock = time.perf_counter_ns
        start = None
        for i in range(warmup + flows):
            if i == warmup:
                for v in lat.values():
                    v.clear()
                ok = 0
                errors.clear()
                start = clock()
            try:
                t0 = clock()
                vid = auth.verify_phone_number(phone_number(i))
                t1 = clock()
                auth.deliver_due()
                code = inbox.pop(vid)
                t2 = clock()
                result = auth.sign_in_with_credential(vid, code)
                t3 = clock()
                if not result["isNewUser"]:
                    raise AuthError("notNewUser")
            except (AuthError, KeyError) as e:
                key = getattr(e, "code", type(e).__name__)
                errors[key] = errors.get(key, 0) + 1
                continue
            lat["verify"].append(t1 - t0)
            lat["deliver"].append(t2 - t1)
            lat["signIn"].append(t3 - t2)
            lat["flow"].append(t3 - t0)
            ok += 1
        elapsed = (clock() - start) / 1e9
        auth.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    fps = ok / elapsed if elapsed else 0.0
    out = {"handrolled": {
        "threads": 1, "flows": ok, "failed": sum(errors.values()), "warmupFlows": warmup,
        "seconds": round(elapsed, 2), "flowsPerSecond": round(fps, 2),
        "costPerFlowUs": round(1e6 / fps, 2) if fps else 0.0,
        "latencyUs": {k: percentiles(v) for k, v in lat.items()},
        "errors": errors,
        "versions": {"python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version,
                     "pyjwt": jwt.__version__},
    }}
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    print(f"handrolled: {fps:.0f} flows/s, {sum(errors.values())} failed", file=sys.stderr)


if __name__ == "__main__":
    main()
