"""`phoneauth`, the operator's command, run as a user runs it: a process with a configuration file.

The binding prepares the state in the same database (and is closed while the command runs), then
checks what the command did. The command is out/bin/phoneauth, or $PHONEAUTH_CLI.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Dict, List, Optional

import pytest

import phoneauth
from support import (FIXED_NUMBERS, REAL_NUMBER, SmsCapture, credential_for, engine_config,
                     enrol_fixed, fixed_credential, start)

CLI = os.environ.get("PHONEAUTH_CLI", "out/bin/phoneauth")
FIREBASE_EXPORT = Path(__file__).resolve().parent / "data" / "firebase-export.json"

ALICE, BOB, CAROL, DAN, ERIN = "+16505551230", "+16505551231", "+16505551232", "+16505551233", "+16505551234"
FACTOR = "+16505551239"  # a second factor's number
SETTINGS = {"testPhoneNumbers": FIXED_NUMBERS,
            "quotas": {"maxConsecutiveFailures": 3, "smsPerNumberPerHour": 0}}


# -- helpers ---------------------------------------------------------------------------------------

def run(args: List[str], config: Optional[Path] = None, env: Optional[Dict[str, str]] = None,
        ) -> subprocess.CompletedProcess:
    """Runs `phoneauth ARGS [--config CONFIG]`; nothing of the caller's PHONEAUTH_CONFIG leaks in."""
    full_env = {k: v for k, v in os.environ.items()
                if k not in ("PHONEAUTH_CONFIG", "PHONEAUTH_DATABASE", "PHONEAUTH_DATABASE_URL")}
    full_env.update(env or {})
    command = [CLI, *args] + (["--config", str(config)] if config is not None else [])
    return subprocess.run(command, capture_output=True, text=True, timeout=60, env=full_env)


def ok(args: List[str], config: Optional[Path] = None, **kwargs) -> str:
    """Runs the command, which must exit 0; returns its stdout."""
    done = run(args, config, **kwargs)
    assert done.returncode == 0, f"{args} exited {done.returncode}: {done.stderr}"
    return done.stdout


def ok_json(args: List[str], config: Path) -> dict:
    return json.loads(ok([*args, "--json"], config))


def write_config(path: Path, database: str) -> Path:
    path.write_text(json.dumps(engine_config(database, **SETTINGS)))
    return path


def open_engine(config: Path) -> phoneauth.Engine:
    """An engine of the binding on the configuration the command reads."""
    return phoneauth.Engine(json.loads(config.read_text()))


def rows(text: str) -> List[List[str]]:
    """A table printed by the command, as cells (columns are two or more spaces apart)."""
    return [re.split(r" {2,}", line.strip()) for line in text.splitlines() if line.strip()]


def fields(text: str) -> Dict[str, str]:
    """`users get`'s FIELD/VALUE table as a dict (the header row checked and dropped)."""
    table = rows(text)
    assert table[0] == ["FIELD", "VALUE"], text
    return {row[0]: row[1] for row in table[1:] if row[0] != "second factor"}


def table_pages(args: List[str], config: Path) -> List[List[str]]:
    """The first column of each page a listing command prints, following its "next page:" line."""
    pages, token = [], None
    for _ in range(10):
        lines = ok(args + (["--page-token", token] if token else []), config).strip().splitlines()
        nexts = [line for line in lines if line.startswith("next page: ")]
        pages.append([row[0] for row in rows("\n".join(line for line in lines if line not in nexts))[1:]])
        if not nexts:
            return pages
        assert nexts == [lines[-1]]
        match = re.fullmatch(r"next page: --page-token (\S+)", nexts[0])
        assert match, nexts[0]
        token = match.group(1)
    raise AssertionError("more than 10 pages")


def national(number: str) -> str:
    """The digits after "+1": a number must not appear in output even without its "+"."""
    return number[2:]


def assert_masked(text: str, *numbers: str) -> None:
    for number in numbers:
        assert national(number) not in text, f"{number} printed whole:\n{text}"


def jwt_payload(token: str) -> dict:
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


@pytest.fixture
def config(tmp_path, db_path) -> Path:
    return write_config(tmp_path / "phoneauth.json", db_path)


@pytest.fixture
def people(config) -> Dict[str, str]:
    """alice and carol made by the admin API, bob signed in (a live session)."""
    engine = open_engine(config)
    try:
        engine.create_user(uid="alice", phone_number=ALICE, display_name="Alice")
        bob = engine.sign_in_with_credential(credential=fixed_credential(engine, BOB))
        engine.create_user(uid="carol", phone_number=CAROL, display_name="Carol")
    finally:
        engine.close()
    return {"bob": bob["user"]["uid"], "bob_refresh": bob["refreshToken"]}


# -- users get / find ------------------------------------------------------------------------------

def test_users_get_prints_the_user_with_its_number_masked(config, people):
    out = ok(["users", "get", "alice"], config)
    shown = fields(out)
    assert shown["uid"] == "alice"
    assert shown["phone number"] == "+*******1230"
    assert shown["display name"] == "Alice"
    assert shown["disabled"] == "no"
    assert shown["last sign-in"] == "-"
    assert shown["custom claims"] == "-"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", shown["created"])
    assert_masked(out, ALICE)


def test_users_get_json(config, people):
    done = run(["users", "get", people["bob"], "--json"], config)
    assert done.returncode == 0, done.stderr
    user = json.loads(done.stdout)["user"]
    assert user["uid"] == people["bob"]
    assert user["phoneNumber"] == "+*******1231"
    assert [p["phoneNumber"] for p in user["providerData"]] == ["+*******1231"]
    assert user["disabled"] is False and user["metadata"]["lastSignInTime"]
    assert_masked(done.stdout, BOB)


def test_show_numbers_prints_numbers_whole(config, people):
    assert fields(ok(["users", "get", "alice", "--show-numbers"], config))["phone number"] == ALICE
    user = ok_json(["users", "get", "alice", "--show-numbers"], config)["user"]
    assert user["phoneNumber"] == ALICE and user["providerData"][0]["phoneNumber"] == ALICE
    listed = ok(["users", "list", "--show-numbers"], config)
    assert all(number in listed for number in (ALICE, BOB, CAROL))
    assert ok(["unlock", DAN, "--show-numbers"], config).strip() == f"{DAN} was not locked."


def test_users_find_by_number(config, people):
    out = ok(["users", "find", CAROL], config)
    assert fields(out)["uid"] == "carol" and fields(out)["phone number"] == "+*******1232"
    assert_masked(out, CAROL)
    # The number as people write it finds the same user.
    assert fields(ok(["users", "find", "+1 650-555-1232"], config))["uid"] == "carol"
    found = ok_json(["users", "find", CAROL], config)["user"]
    assert found["uid"] == "carol" and found["phoneNumber"] == "+*******1232"


def test_users_find_unknown_number_exits_2(config, people):
    done = run(["users", "find", DAN], config)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("phoneauth: userNotFound: ")
    assert_masked(done.stderr, DAN)


def test_users_get_unknown_uid_exits_2(config, people):
    done = run(["users", "get", "nobody"], config)
    assert done.returncode == 2
    assert done.stdout == ""
    assert re.fullmatch(r"phoneauth: userNotFound: \S.*\n", done.stderr)
    assert run(["users", "get", "nobody", "--json"], config).returncode == 2


def test_second_factor_is_shown_masked(config, people):
    engine = open_engine(config)
    try:
        signed_in = engine.sign_in_with_credential(credential=fixed_credential(engine, DAN))
        enrol_fixed(engine, signed_in["idToken"], FACTOR, display_name="desk")
    finally:
        engine.close()
    uid = signed_in["user"]["uid"]
    out = ok(["users", "get", uid], config)
    factor_rows = [row for row in rows(out) if row[0] == "second factor"]
    assert len(factor_rows) == 1
    assert factor_rows[0][1].startswith("phone +*******1239 ")
    assert_masked(out, DAN, FACTOR)
    [factor] = ok_json(["users", "get", uid], config)["user"]["multiFactor"]["enrolledFactors"]
    assert factor["phoneNumber"] == "+*******1239" and factor["displayName"] == "desk"
    listed = {row[0]: row for row in rows(ok(["users", "list"], config))[1:]}
    assert listed[uid][-1] == "1" and listed["alice"][-1] == "0"  # the FACTORS column


# -- users list ------------------------------------------------------------------------------------

def test_users_list_table(config, people):
    out = ok(["users", "list"], config)
    table = rows(out)
    assert table[0] == ["UID", "PHONE NUMBER", "NAME", "DISABLED", "CREATED", "LAST SIGN-IN", "FACTORS"]
    by_uid = {row[0]: row for row in table[1:]}
    assert [row[0] for row in table[1:]] == sorted(["alice", "carol", people["bob"]])  # uid order
    assert by_uid["alice"][1:4] == ["+*******1230", "Alice", "no"]
    assert by_uid["alice"][5] == "-"
    assert by_uid[people["bob"]][1:4] == ["+*******1231", "-", "no"]
    assert by_uid[people["bob"]][5] != "-"
    assert "next page" not in out
    assert_masked(out, ALICE, BOB, CAROL)


def test_users_list_json(config, people):
    done = run(["users", "list", "--json"], config)
    assert done.returncode == 0, done.stderr
    page = json.loads(done.stdout)
    assert [u["uid"] for u in page["users"]] == sorted(["alice", "carol", people["bob"]])
    assert {u["uid"]: u["phoneNumber"] for u in page["users"]}["carol"] == "+*******1232"
    assert "pageToken" not in page
    assert_masked(done.stdout, ALICE, BOB, CAROL)


def test_users_list_pages_with_limit_and_page_token(config, people):
    engine = open_engine(config)
    try:
        engine.create_user(uid="dan", phone_number=DAN, display_name="Dan")
        engine.create_user(uid="erin", phone_number=ERIN, display_name="Erin")
    finally:
        engine.close()
    everyone = sorted(["alice", "carol", "dan", "erin", people["bob"]])

    pages = table_pages(["users", "list", "--limit", "2"], config)
    assert [len(page) for page in pages] == [2, 2, 1]
    assert sum(pages, []) == everyone

    json_pages, token = [], None
    for _ in range(5):
        page = ok_json(["users", "list", "--limit", "2"] + (["--page-token", token] if token else []), config)
        json_pages.append([u["uid"] for u in page["users"]])
        token = page.get("pageToken")
        if not token:
            break
    assert json_pages == pages


def test_users_list_limit_out_of_range_is_refused(config, people):
    done = run(["users", "list", "--limit", "0"], config)
    assert done.returncode == 1
    assert done.stderr.startswith("phoneauth: invalidArgument: ")


# -- users disable / enable / delete ---------------------------------------------------------------

def test_disable_ends_sessions_and_enable_lets_the_user_sign_in_again(config, people):
    bob = people["bob"]
    assert ok(["users", "disable", bob], config).strip() == f"{bob} is disabled."
    engine = open_engine(config)
    try:
        with pytest.raises(phoneauth.UserDisabledError):
            engine.refresh_id_token(people["bob_refresh"])
        with pytest.raises(phoneauth.UserDisabledError):
            engine.sign_in_with_credential(credential=fixed_credential(engine, BOB))
        assert engine.get_user(bob)["user"]["disabled"] is True
    finally:
        engine.close()
    assert fields(ok(["users", "get", bob], config))["disabled"] == "yes"

    assert ok(["users", "enable", bob], config).strip() == f"{bob} is enabled."
    engine = open_engine(config)
    try:
        again = engine.sign_in_with_credential(credential=fixed_credential(engine, BOB))
        assert again["user"]["uid"] == bob and again["user"]["disabled"] is False
        assert engine.refresh_id_token(again["refreshToken"])["idToken"]
    finally:
        engine.close()


def test_disable_and_enable_json(config, people):
    user = ok_json(["users", "disable", "alice"], config)["user"]
    assert user["uid"] == "alice" and user["disabled"] is True and user["phoneNumber"] == "+*******1230"
    user = ok_json(["users", "enable", "alice"], config)["user"]
    assert user["disabled"] is False
    assert run(["users", "disable", "nobody"], config).returncode == 2
    assert run(["users", "enable", "nobody"], config).returncode == 2


def test_users_delete_removes_the_user(config, people):
    assert ok(["users", "delete", "carol"], config).strip() == "carol is deleted."
    assert run(["users", "get", "carol"], config).returncode == 2
    engine = open_engine(config)
    try:
        with pytest.raises(phoneauth.UserNotFoundError):
            engine.get_user("carol")
        assert engine.get_user("alice")["user"]["uid"] == "alice"
    finally:
        engine.close()
    again = run(["users", "delete", "carol"], config)
    assert again.returncode == 2 and again.stderr.startswith("phoneauth: userNotFound: ")
    assert ok_json(["users", "delete", "alice"], config) == {"deleted": "alice"}
    assert [u["uid"] for u in ok_json(["users", "list"], config)["users"]] == [people["bob"]]


# -- users claims ----------------------------------------------------------------------------------

def test_claims_are_set_shown_carried_by_new_id_tokens_and_cleared(config, people):
    bob = people["bob"]
    assert ok(["users", "claims", "alice"], config).strip() == "alice has no custom claims."
    assert json.loads(ok(["users", "claims", bob, '{"role":"admin"}'], config)) == {"role": "admin"}
    assert json.loads(ok(["users", "claims", bob], config)) == {"role": "admin"}
    assert ok_json(["users", "claims", bob], config) == {"uid": bob, "claims": {"role": "admin"}}
    assert json.loads(fields(ok(["users", "get", bob], config))["custom claims"]) == {"role": "admin"}

    engine = open_engine(config)
    try:
        refreshed = engine.refresh_id_token(people["bob_refresh"])
        assert jwt_payload(refreshed["idToken"])["role"] == "admin"
        refresh = refreshed.get("refreshToken", people["bob_refresh"])
    finally:
        engine.close()

    assert ok(["users", "claims", bob, "{}"], config).strip() == f"{bob} has no custom claims."
    assert ok_json(["users", "claims", bob], config) == {"uid": bob, "claims": None}
    engine = open_engine(config)
    try:
        assert "role" not in jwt_payload(engine.refresh_id_token(refresh)["idToken"])
    finally:
        engine.close()


def test_claims_refused_are_not_set(config, people):
    done = run(["users", "claims", "alice", "{not json"], config)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("phoneauth: ") and "JSON" in done.stderr
    done = run(["users", "claims", "alice", '{"sub":"x"}'], config)
    assert done.returncode == 1
    assert done.stderr.startswith("phoneauth: invalidArgument: ") and "sub" in done.stderr
    assert ok_json(["users", "claims", "alice"], config)["claims"] is None
    assert run(["users", "claims", "nobody", '{"a":1}'], config).returncode == 2


# -- unlock ----------------------------------------------------------------------------------------

def lock_out(engine: phoneauth.Engine, sms: SmsCapture, number: str) -> None:
    """Wrong codes for `number` until it is locked (maxConsecutiveFailures is 3 in SETTINGS)."""
    started, _message, code = start(engine, sms, number)
    wrong = "".join(str((int(d) + 1) % 10) for d in code)
    for _ in range(10):
        try:
            engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], wrong))
        except phoneauth.InvalidVerificationCodeError:
            continue
        except phoneauth.TooManyRequestsError as error:
            assert error.details.get("reason") == "numberLocked"
            return
    raise AssertionError(f"{number} was not locked")


def test_unlock_ends_a_lockout(config):
    sms = SmsCapture()
    engine = open_engine(config)
    try:
        engine.set_sms_sender(sms)
        lock_out(engine, sms, REAL_NUMBER)
        with pytest.raises(phoneauth.TooManyRequestsError):
            engine.verify_phone_number(REAL_NUMBER)
    finally:
        engine.close()

    done = run(["unlock", REAL_NUMBER], config)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "+*******3434 is unlocked."
    assert_masked(done.stdout, REAL_NUMBER)
    assert ok(["unlock", REAL_NUMBER], config).strip() == "+*******3434 was not locked."

    engine = open_engine(config)
    try:
        engine.set_sms_sender(sms)
        started, _message, code = start(engine, sms, REAL_NUMBER)
        signed_in = engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], code))
        assert signed_in["user"]["phoneNumber"] == REAL_NUMBER
    finally:
        engine.close()


def test_unlock_json(config):
    sms = SmsCapture()
    engine = open_engine(config)
    try:
        engine.set_sms_sender(sms)
        lock_out(engine, sms, REAL_NUMBER)
    finally:
        engine.close()
    assert ok_json(["unlock", REAL_NUMBER], config) == {"unlocked": True}
    assert ok_json(["unlock", REAL_NUMBER], config) == {"unlocked": False}


def test_unlock_masks_the_number_and_refuses_non_numbers(config):
    out = ok(["unlock", "+1 650-555-1233"], config)
    assert out.strip() == "+*******1233 was not locked."
    assert_masked(out, DAN)
    done = run(["unlock", "not-a-number"], config)
    assert done.returncode == 1
    assert done.stderr.startswith("phoneauth: invalidPhoneNumber: ")


# -- export / import -------------------------------------------------------------------------------

def test_export_then_import_into_a_fresh_database_gives_the_same_export(tmp_path, config, people):
    engine = open_engine(config)
    try:
        engine.set_custom_user_claims("alice", {"role": "admin", "level": 3})
        signed_in = engine.sign_in_with_credential(credential=fixed_credential(engine, DAN))
        enrol_fixed(engine, signed_in["idToken"], FACTOR, display_name="desk")
        engine.update_user("carol", disabled=True)
    finally:
        engine.close()

    first = tmp_path / "first.json"
    out = ok(["export", str(first)], config)
    assert out.strip() == f"4 users written to {first}."
    assert_masked(out, ALICE, BOB, CAROL, DAN, FACTOR)
    exported = json.loads(first.read_text())
    assert len(exported["users"]) == 4
    assert ALICE in first.read_text()  # the file is data: whole numbers

    fresh = write_config(tmp_path / "fresh.json", str(tmp_path / "fresh.db"))
    out = ok(["import", str(first)], fresh)
    assert out.strip() == f"4 of 4 users imported from {first}."
    assert_masked(out, ALICE, BOB, CAROL, DAN, FACTOR)

    second = tmp_path / "second.json"
    ok(["export", str(second)], fresh)
    assert json.loads(second.read_text()) == exported
    assert ok_json(["users", "claims", "alice"], fresh)["claims"] == {"role": "admin", "level": 3}
    assert ok_json(["users", "get", "carol"], fresh)["user"]["disabled"] is True


def test_export_and_import_json(tmp_path, config, people):
    file = tmp_path / "users.json"
    assert ok_json(["export", str(file)], config) == {"exported": 3}
    fresh = write_config(tmp_path / "fresh.json", str(tmp_path / "fresh.db"))
    assert ok_json(["import", str(file)], fresh) == {"imported": 3, "errors": []}
    assert ok_json(["status"], fresh)["users"] == 3


def test_import_of_a_firebase_export_lists_the_users_not_imported(tmp_path):
    fresh = write_config(tmp_path / "fresh.json", str(tmp_path / "fresh.db"))
    done = run(["import", str(FIREBASE_EXPORT)], fresh)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == f"2 of 6 users imported from {FIREBASE_EXPORT}."
    listed = [re.fullmatch(r"  user (\d+): (.+)", line) for line in lines[1:]]
    assert all(listed), lines
    assert [int(m.group(1)) for m in listed] == [2, 3, 4, 5]
    assert all(len(m.group(2)) > 10 for m in listed)
    assert_masked(done.stdout, "+16505550101", "+16505550102", "+16505550103", "+16505550199")

    users = ok_json(["users", "list", "--show-numbers"], fresh)["users"]
    assert {u["phoneNumber"] for u in users} == {"+16505550101", "+16505550102"}
    assert ok_json(["users", "claims", "Ey4Hg2mBkVXc5pbZ1t3u9QeWwAq2"], fresh)["claims"] == {"admin": True, "level": 3}
    assert ok_json(["users", "get", "b5nGvCe2GdQ3pXhVZ8v0RyHnB7k1"], fresh)["user"]["disabled"] is True


def test_import_json_and_importing_twice_changes_nothing(tmp_path):
    fresh = write_config(tmp_path / "fresh.json", str(tmp_path / "fresh.db"))
    done = run(["import", str(FIREBASE_EXPORT), "--json"], fresh)
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["imported"] == 2
    assert [error["index"] for error in result["errors"]] == [2, 3, 4, 5]
    assert all(isinstance(error["message"], str) and error["message"] for error in result["errors"])
    before = tmp_path / "before.json"
    ok(["export", str(before)], fresh)

    again = run(["import", str(FIREBASE_EXPORT), "--json"], fresh)
    assert again.returncode == 1
    assert [error["index"] for error in json.loads(again.stdout)["errors"]] == [2, 3, 4, 5]
    after = tmp_path / "after.json"
    ok(["export", str(after)], fresh)
    assert json.loads(after.read_text()) == json.loads(before.read_text())
    assert ok_json(["status"], fresh)["users"] == 2


def test_import_of_a_missing_file_is_refused(tmp_path, config):
    missing = tmp_path / "missing.json"
    done = run(["import", str(missing)], config)
    assert done.returncode == 1
    assert done.stderr.startswith("phoneauth: ") and str(missing) in done.stderr


# -- status ----------------------------------------------------------------------------------------

def test_status_table(config, people):
    out = ok(["status"], config)
    head, _blank, keys_text = out.partition("\n\n")
    facts = {row[0]: row[1] for row in rows(head)}
    assert facts["users"] == "3"
    assert facts["live sessions"] == "1"  # bob's
    assert re.fullmatch(r"[1-9]\d*", facts["schema version"])
    assert facts["SMS queued"] == "0"
    assert re.fullmatch(r"\d+ sent, \d+ failed", facts["SMS last hour"])

    keys = rows(keys_text)
    assert keys[0] == ["KID", "ALGORITHM", "CREATED", "AGE (DAYS)", "ACTIVE", "RETIRES"]
    active = [row for row in keys[1:] if row[4] == "yes"]
    assert len(active) == 1
    engine = open_engine(config)
    try:
        assert active[0][0] in {key["kid"] for key in engine.get_jwks()["keys"]}
    finally:
        engine.close()


def test_status_json(config, people):
    status = ok_json(["status"], config)
    assert {"schemaVersion", "users", "liveSessions", "sms", "signingKeys"} <= set(status)
    assert status["users"] == 3 and status["liveSessions"] == 1
    assert isinstance(status["schemaVersion"], int) and status["schemaVersion"] >= 1
    assert [key["active"] for key in status["signingKeys"]].count(True) == 1
    schema = {row[0]: row[1] for row in rows(ok(["status"], config).partition("\n\n")[0])}["schema version"]
    assert int(schema) == status["schemaVersion"]


# -- configuration ---------------------------------------------------------------------------------

def test_a_missing_config_file_exits_3(tmp_path, people):
    missing = tmp_path / "nowhere.json"
    done = run(["users", "get", "alice"], missing)
    assert done.returncode == 3
    assert done.stdout == ""
    assert done.stderr.startswith("phoneauth: ") and str(missing) in done.stderr


def test_a_bad_config_exits_3(tmp_path, db_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    done = run(["status"], broken)
    assert done.returncode == 3 and done.stderr.startswith("phoneauth: ")
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({**engine_config(db_path), "noSuchKey": 1}))
    done = run(["status"], unknown)
    assert done.returncode == 3
    assert done.stderr.startswith("phoneauth: invalidConfiguration: ") and "noSuchKey" in done.stderr


def test_config_from_the_environment(tmp_path, config, people):
    out = ok(["users", "get", "alice"], env={"PHONEAUTH_CONFIG": str(config)})
    assert fields(out)["uid"] == "alice"
    missing = run(["status"], env={"PHONEAUTH_CONFIG": str(tmp_path / "nowhere.json")})
    assert missing.returncode == 3
    # --config wins over the environment.
    out = ok(["users", "get", "alice"], config, env={"PHONEAUTH_CONFIG": str(tmp_path / "nowhere.json")})
    assert fields(out)["uid"] == "alice"


# -- help and usage errors -------------------------------------------------------------------------

HELP = [
    (["users"], "Looks up, lists and changes users."),
    (["users", "get"], "Shows the user with this uid."),
    (["users", "find"], "Shows the user who signs in with this phone number."),
    (["users", "list"], "Lists users in uid order"),
    (["users", "disable"], "Disables a user"),
    (["users", "enable"], "Enables a disabled user again."),
    (["users", "delete"], "Deletes a user"),
    (["users", "claims"], "Shows a user's custom claims, or sets them."),
    (["unlock"], "Ends a phone number's lockout"),
    (["export"], "Writes every user to FILE"),
    (["import"], "Imports the users of FILE"),
    (["status"], "Shows the schema version"),
    (["tenants"], "Lists, shows, creates, changes and deletes tenants."),
    (["tenants", "list"], "Lists tenants in ID order, a page at a time."),
    (["tenants", "get"], "Shows the tenant with this ID and its settings."),
    (["tenants", "create"], "Creates a tenant and shows it."),
    (["tenants", "update"], "Changes a tenant's display name or settings and shows it."),
    (["tenants", "delete"], "Deletes a tenant that has no users left."),
    (["users", "create"], "Creates a user"),
]


@pytest.mark.parametrize("command,purpose", HELP, ids=[" ".join(c) for c, _ in HELP])
def test_help(command, purpose):
    done = run([*command, "--help"])
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert purpose in text
    assert f"USAGE: phoneauth {' '.join(command)}" in text
    if command not in (["users"], ["tenants"]):  # command groups: their subcommands have the options
        assert all(option in text for option in ("--config", "--json", "--show-numbers"))


def test_top_level_help():
    done = run(["--help"])
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "Administers PhoneAuth" in text
    for name in ("users", "unlock", "export", "import", "status", "copy"):
        assert re.search(rf"^  {name} ", done.stdout, re.M), name
    assert "64 a usage error" in text
    # The overview is prose: no runs of blanks inside a line, none at the end of one.
    overview = done.stdout.partition("USAGE:")[0]
    assert not re.search(r"\S {3,}\S|[ \t]+$", overview, re.M), overview


USAGE_ERRORS = [
    ["bogus"],
    ["users", "bogus"],
    ["users"],
    ["users", "get"],
    ["users", "find"],
    ["users", "disable"],
    ["users", "claims"],
    ["users", "get", "alice", "extra"],
    ["users", "list", "--limit", "many"],
    ["unlock"],
    ["export"],
    ["import"],
]


@pytest.mark.parametrize("command", USAGE_ERRORS, ids=[" ".join(c) for c in USAGE_ERRORS])
def test_usage_errors_exit_64(config, command):
    done = run(command, config)
    assert done.returncode == 64, (done.stdout, done.stderr)
    assert done.stdout == ""
    assert "Error:" in done.stderr and "Usage:" in done.stderr




# -- keys ------------------------------------------------------------------------------------------

def test_keys_rotate_list_retire(config, people):
    before = ok_json(["keys", "list"], config)["keys"]
    assert len(before) == 1 and before[0]["active"] is True
    rotated = ok_json(["keys", "rotate"], config)["keys"]
    assert len(rotated) == 2
    old, new = rotated[0], rotated[1]
    assert old["kid"] == before[0]["kid"] and old["active"] is False and "retiresAt" in old
    assert new["active"] is True and "retiresAt" not in new
    table = rows(ok(["keys", "list"], config))
    assert table[0] == ["KID", "ALGORITHM", "CREATED", "AGE (DAYS)", "ACTIVE", "RETIRES"]
    assert {row[0] for row in table[1:]} == {old["kid"], new["kid"]}
    retired = ok_json(["keys", "retire", old["kid"]], config)["keys"]
    assert [k["kid"] for k in retired] == [new["kid"]]
    done = run(["keys", "retire", old["kid"]], config)
    assert done.returncode == 1 and "invalidArgument" in done.stderr
    assert run(["keys", "rotate", "--algorithm", "HS256"], config).returncode == 1


def test_keys_retire_takes_a_kid_that_begins_with_a_dash(config):
    # A kid is base64url: one in 64 begins with "-", and must not be read as an option.
    done = run(["keys", "retire", "-Ba0NWFIqPs40bab", "--json"], config)
    assert done.returncode == 1 and "No signing key" in done.stderr, done.stderr
