"""`phoneauth tenants …` and `--tenant` of the user commands, export and import: the operator's
command, run as a user runs it on a temporary SQLite database (as test_cli.py).

The command is out/bin/phoneauth, or $PHONEAUTH_CLI.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, List

import pytest

from support import engine_config
from test_cli import assert_masked, fields, ok, ok_json, rows, run, table_pages

ALICE, BOB = "+16505551230", "+16505551231"
TEST_NUMBER, OTHER_TEST_NUMBER = "+16505550100", "+16505550101"
CLEARED = {"testPhoneNumbers": {}, "smsRegionPolicy": None, "secondFactors": None, "smsAppName": None,
           "pumping": None, "passkeys": None}


@pytest.fixture
def config(tmp_path, db_path) -> Path:
    path = tmp_path / "phoneauth.json"
    path.write_text(json.dumps(engine_config(db_path)))
    return path


def fresh_config(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(engine_config(str(tmp_path / f"{name}.db"))))
    return path


def tenant_fields(text: str) -> Dict[str, str]:
    """`tenants get`'s FIELD/VALUE table as a dict; test numbers gathered under "test number"."""
    table = rows(text)
    assert table[0] == ["FIELD", "VALUE"], text
    shown: Dict[str, str] = {}
    for row in table[1:]:
        if row[0] == "test number":
            shown["test number"] = (shown.get("test number", "") + " | " + row[1]).strip(" |")
        else:
            shown[row[0]] = row[1]
    return shown


def refused(args: List[str], config: Path, status: int, stderr: str) -> None:
    """The command exits `status` with nothing on stdout and stderr starting with `stderr`."""
    done = run(args, config)
    assert done.returncode == status, (args, done.returncode, done.stdout, done.stderr)
    assert done.stdout == "", done.stdout
    assert done.stderr.startswith(stderr), done.stderr


def usage_error(args: List[str], config: Path, message: str) -> None:
    done = run(args, config)
    assert done.returncode == 64, (args, done.stdout, done.stderr)
    assert done.stdout == ""
    assert f"Error: {message}" in done.stderr and "Usage:" in done.stderr, done.stderr


# -- tenants create / get --------------------------------------------------------------------------

def test_create_makes_an_id_from_the_display_name(config):
    out = ok(["tenants", "create", "--display-name", "Acme-Corp"], config)
    shown = tenant_fields(out)
    assert re.fullmatch(r"acme-corp-[a-z0-9]{5}", shown["tenant ID"]), shown
    assert shown["display name"] == "Acme-Corp"
    # Nothing set: the engine's settings.
    assert (shown["test numbers"], shown["SMS regions"], shown["second factors"], shown["SMS app name"],
            shown["SMS pumping"]) == ("-", "-", "all", "-", "-")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", shown["created"])
    assert shown["updated"] == shown["created"]

    tenant = ok_json(["tenants", "get", shown["tenant ID"]], config)["tenant"]
    assert tenant == {"tenantId": shown["tenant ID"], "displayName": "Acme-Corp", **CLEARED,
                      "createdAt": shown["created"], "updatedAt": shown["updated"]}
    assert tenant_fields(ok(["tenants", "get", shown["tenant ID"]], config)) == shown

    # Each one made gets an ID of its own.
    again = ok_json(["tenants", "create", "--display-name", "Acme-Corp"], config)["tenant"]
    assert again["tenantId"] != shown["tenant ID"] and again["tenantId"].startswith("acme-corp-")


def test_create_with_a_given_id_and_settings(config):
    tenant = ok_json(["tenants", "create", "--display-name", "Acme", "--id", "acme",
                      "--test-number", f"{TEST_NUMBER}=123456", "--test-number", f"{OTHER_TEST_NUMBER}=654321",
                      "--allow-regions", "us,CA", "--second-factors", "phone", "--app-name", "Acme Shop"],
                     config)["tenant"]
    assert tenant["tenantId"] == "acme" and tenant["displayName"] == "Acme"
    assert tenant["testPhoneNumbers"] == {TEST_NUMBER: "123456", OTHER_TEST_NUMBER: "654321"}
    assert tenant["smsRegionPolicy"] == {"allowlistOnly": {"allowedRegions": ["CA", "US"]}}
    assert tenant["secondFactors"] == ["phone"]
    assert tenant["smsAppName"] == "Acme Shop"

    shown = tenant_fields(ok(["tenants", "get", "acme"], config))
    assert shown["tenant ID"] == "acme"
    # Test numbers are settings: printed whole, with their codes.
    assert shown["test number"] == f"{TEST_NUMBER} 123456 | {OTHER_TEST_NUMBER} 654321"
    assert shown["SMS regions"] == "allow CA,US"
    assert shown["second factors"] == "phone"
    assert shown["SMS app name"] == "Acme Shop"

    denying = ok_json(["tenants", "create", "--display-name", "Beta", "--id", "beta", "--deny-regions", "CN,RU",
                       "--second-factors", "none"], config)["tenant"]
    assert denying["smsRegionPolicy"] == {"allowByDefault": {"disallowedRegions": ["CN", "RU"]}}
    assert denying["secondFactors"] == []
    shown = tenant_fields(ok(["tenants", "get", "beta"], config))
    assert (shown["SMS regions"], shown["second factors"]) == ("deny CN,RU", "none")

    refused(["tenants", "create", "--display-name", "Other", "--id", "acme"], config, 1,
            "phoneauth: invalidArgument: A tenant with this ID exists already.")
    assert ok_json(["tenants", "get", "acme"], config)["tenant"]["displayName"] == "Acme"


# -- tenants update --------------------------------------------------------------------------------

def test_update_sets_and_clears_each_setting(config):
    created = ok_json(["tenants", "create", "--display-name", "Acme", "--id", "acme"], config)["tenant"]

    tenant = ok_json(["tenants", "update", "acme", "--display-name", "Acme-Two",
                      "--test-number", f"{TEST_NUMBER}=111111", "--deny-regions", "CN",
                      "--second-factors", "phone,totp", "--app-name", "Acme"], config)["tenant"]
    assert tenant["displayName"] == "Acme-Two"
    assert tenant["testPhoneNumbers"] == {TEST_NUMBER: "111111"}
    assert tenant["smsRegionPolicy"] == {"allowByDefault": {"disallowedRegions": ["CN"]}}
    assert tenant["secondFactors"] == ["phone", "totp"]
    assert tenant["smsAppName"] == "Acme"
    assert tenant["createdAt"] == created["createdAt"]

    # What is not given is kept; --test-number replaces the numbers; one region policy replaces the other.
    tenant = ok_json(["tenants", "update", "acme", "--test-number", f"{OTHER_TEST_NUMBER}=222222",
                      "--allow-regions", "US", "--second-factors", "totp"], config)["tenant"]
    assert tenant["displayName"] == "Acme-Two" and tenant["smsAppName"] == "Acme"
    assert tenant["testPhoneNumbers"] == {OTHER_TEST_NUMBER: "222222"}
    assert tenant["smsRegionPolicy"] == {"allowlistOnly": {"allowedRegions": ["US"]}}
    assert tenant["secondFactors"] == ["totp"]

    # The table form shows the tenant as changed.
    shown = tenant_fields(ok(["tenants", "update", "acme", "--second-factors", "none"], config))
    assert (shown["display name"], shown["test number"], shown["SMS regions"], shown["second factors"],
            shown["SMS app name"]) == ("Acme-Two", f"{OTHER_TEST_NUMBER} 222222", "allow US", "none", "Acme")

    # Each cleared: back to the engine's.
    tenant = ok_json(["tenants", "update", "acme", "--no-test-numbers", "--no-region-policy",
                      "--second-factors", "all", "--no-app-name"], config)["tenant"]
    assert {k: tenant[k] for k in CLEARED} == CLEARED
    assert tenant["displayName"] == "Acme-Two"
    assert ok_json(["tenants", "get", "acme"], config)["tenant"] == tenant
    shown = tenant_fields(ok(["tenants", "get", "acme"], config))
    assert (shown["test numbers"], shown["SMS regions"], shown["second factors"], shown["SMS app name"],
            shown["SMS pumping"]) == ("-", "-", "all", "-", "-")


def test_update_refuses_contradictions_and_nothing_to_change(config):
    ok(["tenants", "create", "--display-name", "Acme", "--id", "acme", "--app-name", "Acme"], config)
    usage_error(["tenants", "update", "acme"], config, "Nothing to change: give --display-name or a setting.")
    usage_error(["tenants", "update", "acme", "--app-name", "X", "--no-app-name"], config,
                "Give --app-name or --no-app-name, not both.")
    usage_error(["tenants", "update", "acme", "--test-number", f"{TEST_NUMBER}=123456", "--no-test-numbers"],
                config, "Give --test-number or --no-test-numbers, not both.")
    usage_error(["tenants", "update", "acme", "--allow-regions", "US", "--no-region-policy"], config,
                "Give --allow-regions, --deny-regions or --no-region-policy, not two of them.")
    assert ok_json(["tenants", "get", "acme"], config)["tenant"]["smsAppName"] == "Acme"


# -- tenants list ----------------------------------------------------------------------------------

def test_list_pages_in_id_order(config):
    ids = ["t-e", "t-a", "t-d", "t-b", "t-c"]
    for index, tenant_id in enumerate(ids):
        ok(["tenants", "create", "--display-name", f"Tenant{index}", "--id", tenant_id], config)
    ok(["tenants", "update", "t-c", "--test-number", f"{TEST_NUMBER}=123456", "--test-number",
        f"{OTHER_TEST_NUMBER}=123456", "--deny-regions", "CN", "--second-factors", "phone", "--app-name", "Cee"],
       config)

    table = rows(ok(["tenants", "list"], config))
    assert table[0] == ["ID", "DISPLAY NAME", "TEST NUMBERS", "SMS REGIONS", "SECOND FACTORS", "SMS APP NAME",
                        "CREATED"]
    by_id = {row[0]: row for row in table[1:]}
    assert [row[0] for row in table[1:]] == sorted(ids)
    assert by_id["t-c"][1:6] == ["Tenant4", "2", "deny CN", "phone", "Cee"]
    assert by_id["t-a"][1:6] == ["Tenant1", "0", "-", "all", "-"]

    pages = table_pages(["tenants", "list", "--max-results", "2"], config)
    assert pages == [["t-a", "t-b"], ["t-c", "t-d"], ["t-e"]]

    json_pages, token = [], None
    for _ in range(5):
        page = ok_json(["tenants", "list", "--limit", "2"] + (["--page-token", token] if token else []), config)
        json_pages.append([t["tenantId"] for t in page["tenants"]])
        token = page.get("pageToken")
        if not token:
            break
    assert json_pages == pages
    assert ok_json(["tenants", "list"], config)["tenants"][2]["smsAppName"] == "Cee"

    refused(["tenants", "list", "--max-results", "0"], config, 1, "phoneauth: invalidArgument: ")


def test_list_without_tenants(config):
    assert rows(ok(["tenants", "list"], config)) == [
        ["ID", "DISPLAY NAME", "TEST NUMBERS", "SMS REGIONS", "SECOND FACTORS", "SMS APP NAME", "CREATED"]]
    assert ok_json(["tenants", "list"], config) == {"tenants": []}


# -- tenants delete --------------------------------------------------------------------------------

def test_delete_is_refused_while_the_tenant_has_a_user(config):
    ok(["tenants", "create", "--display-name", "Acme", "--id", "acme"], config)
    ok(["users", "create", "--tenant", "acme", "--uid", "alice", "--phone-number", ALICE], config)

    refused(["tenants", "delete", "acme"], config, 1, "phoneauth: tenantNotEmpty: The tenant still has users")
    assert ok_json(["tenants", "get", "acme"], config)["tenant"]["tenantId"] == "acme"

    assert ok(["users", "delete", "--tenant", "acme", "alice"], config).strip() == "alice is deleted."
    assert ok(["tenants", "delete", "acme"], config).strip() == "acme is deleted."
    refused(["tenants", "get", "acme"], config, 2, "phoneauth: tenantNotFound: ")
    refused(["tenants", "delete", "acme"], config, 2, "phoneauth: tenantNotFound: ")

    ok(["tenants", "create", "--display-name", "Beta", "--id", "beta"], config)
    assert ok_json(["tenants", "delete", "beta"], config) == {"deleted": "beta"}
    assert ok_json(["tenants", "list"], config) == {"tenants": []}


# -- users --tenant --------------------------------------------------------------------------------

def test_users_of_a_tenant_are_not_in_the_default_pool(config):
    ok(["tenants", "create", "--display-name", "Acme", "--id", "acme"], config)
    out = ok(["users", "create", "--tenant", "acme", "--uid", "alice", "--phone-number", ALICE,
              "--display-name", "Alice"], config)
    shown = fields(out)
    assert (shown["uid"], shown["tenant"], shown["phone number"], shown["display name"]) == (
        "alice", "acme", "+*******1230", "Alice")
    assert_masked(out, ALICE)

    user = ok_json(["users", "get", "alice", "--tenant", "acme"], config)["user"]
    assert user["uid"] == "alice" and user["tenantId"] == "acme" and user["phoneNumber"] == "+*******1230"
    assert fields(ok(["users", "get", "--tenant", "acme", "alice"], config))["tenant"] == "acme"

    # The default pool has no such user, nor anyone with the number.
    refused(["users", "get", "alice"], config, 2, "phoneauth: userNotFound: ")
    refused(["users", "find", ALICE], config, 2, "phoneauth: userNotFound: ")
    assert ok_json(["users", "list"], config) == {"users": []}

    # The same number is another user in the default pool (no tenant row there).
    mine = ok_json(["users", "create", "--phone-number", ALICE, "--disabled"], config)["user"]
    assert mine["uid"] != "alice" and mine["tenantId"] is None and mine["disabled"] is True
    assert "tenant" not in fields(ok(["users", "get", mine["uid"]], config))
    assert ok_json(["users", "find", ALICE], config)["user"]["uid"] == mine["uid"]
    assert ok_json(["users", "find", ALICE, "--tenant", "acme"], config)["user"]["uid"] == "alice"
    assert [u["uid"] for u in ok_json(["users", "list", "--tenant", "acme"], config)["users"]] == ["alice"]
    assert [row[0] for row in rows(ok(["users", "list", "--tenant", "acme"], config))[1:]] == ["alice"]
    refused(["users", "get", mine["uid"], "--tenant", "acme"], config, 2, "phoneauth: userNotFound: ")

    # uids are unique across tenants.
    refused(["users", "create", "--uid", "alice", "--phone-number", BOB], config, 1, "phoneauth: uidAlreadyExists: ")


def test_every_user_command_takes_the_tenant(config):
    ok(["tenants", "create", "--display-name", "Acme", "--id", "acme"], config)
    ok(["users", "create", "--tenant", "acme", "--uid", "alice", "--phone-number", ALICE], config)

    for command in (["users", "disable", "alice"], ["users", "enable", "alice"], ["users", "delete", "alice"],
                    ["users", "claims", "alice"], ["users", "claims", "alice", '{"role":"admin"}']):
        refused(command, config, 2, "phoneauth: userNotFound: ")

    assert ok(["users", "disable", "alice", "--tenant", "acme"], config).strip() == "alice is disabled."
    assert ok_json(["users", "get", "alice", "--tenant", "acme"], config)["user"]["disabled"] is True
    assert ok_json(["users", "enable", "alice", "--tenant", "acme"], config)["user"]["disabled"] is False
    assert json.loads(ok(["users", "claims", "alice", '{"role":"admin"}', "--tenant", "acme"], config)) == {
        "role": "admin"}
    assert ok_json(["users", "claims", "alice", "--tenant", "acme"], config) == {
        "uid": "alice", "claims": {"role": "admin"}}
    assert ok_json(["users", "delete", "alice", "--tenant", "acme"], config) == {"deleted": "alice"}
    refused(["users", "get", "alice", "--tenant", "acme"], config, 2, "phoneauth: userNotFound: ")


def test_an_unknown_tenant_is_named(tmp_path, config):
    for command in (["users", "get", "alice"], ["users", "find", ALICE], ["users", "list"],
                    ["users", "create", "--phone-number", ALICE], ["users", "disable", "alice"],
                    ["users", "delete", "alice"], ["users", "claims", "alice"],
                    ["export", str(tmp_path / "out.json")]):
        refused([*command, "--tenant", "nope"], config, 2, "phoneauth: tenantNotFound: There is no tenant nope")
    assert not (tmp_path / "out.json").exists()
    for command in (["tenants", "get", "nope"], ["tenants", "delete", "nope"],
                    ["tenants", "update", "nope", "--display-name", "Nope"]):
        refused(command, config, 2, "phoneauth: tenantNotFound: There is no tenant nope")
    # Nothing was made in the default pool meanwhile.
    assert ok_json(["users", "list"], config) == {"users": []}

    file = tmp_path / "users.json"
    file.write_text(json.dumps({"users": [{"localId": "alice", "phoneNumber": ALICE}]}))
    refused(["import", str(file), "--tenant", "nope"], config, 2, "phoneauth: tenantNotFound: ")
    refused(["users", "get", "alice", "--tenant", "not a tenant!"], config, 1, "phoneauth: invalidArgument: ")


# -- export / import --tenant ----------------------------------------------------------------------

def test_export_and_import_of_two_tenants(tmp_path, config):
    for tenant_id in ("acme", "beta"):
        ok(["tenants", "create", "--display-name", tenant_id.capitalize(), "--id", tenant_id], config)
    ok(["users", "create", "--tenant", "acme", "--uid", "alice", "--phone-number", ALICE, "--display-name", "Alice"],
       config)
    ok(["users", "claims", "alice", '{"role":"admin"}', "--tenant", "acme"], config)
    ok(["users", "create", "--tenant", "beta", "--uid", "bob", "--phone-number", ALICE], config)  # same number
    ok(["users", "create", "--tenant", "beta", "--uid", "bea", "--phone-number", BOB, "--disabled"], config)
    ok(["users", "create", "--uid", "dee", "--phone-number", BOB], config)  # the default pool's

    acme, beta, default = tmp_path / "acme.json", tmp_path / "beta.json", tmp_path / "default.json"
    out = ok(["export", str(acme), "--tenant", "acme"], config)
    assert out.strip() == f"1 users written to {acme}."
    assert ok_json(["export", str(beta), "--tenant", "beta"], config) == {"exported": 2}
    assert ok_json(["export", str(default)], config) == {"exported": 1}
    exported_acme, exported_beta = json.loads(acme.read_text()), json.loads(beta.read_text())
    assert [(u["localId"], u["tenantId"]) for u in exported_acme["users"]] == [("alice", "acme")]
    assert [(u["localId"], u["tenantId"]) for u in exported_beta["users"]] == [("bea", "beta"), ("bob", "beta")]
    assert [u["localId"] for u in json.loads(default.read_text())["users"]] == ["dee"]
    assert "tenantId" not in json.loads(default.read_text())["users"][0]

    # Into the same tenants of another database: the same users, each in its tenant.
    other = fresh_config(tmp_path, "other")
    for tenant_id in ("acme", "beta"):
        ok(["tenants", "create", "--display-name", tenant_id.capitalize(), "--id", tenant_id], other)
    assert ok(["import", str(acme), "--tenant", "acme"], other).strip() == f"1 of 1 users imported from {acme}."
    assert ok_json(["import", str(beta), "--tenant", "beta"], other) == {"imported": 2, "errors": []}
    again_acme, again_beta = tmp_path / "again-acme.json", tmp_path / "again-beta.json"
    ok(["export", str(again_acme), "--tenant", "acme"], other)
    ok(["export", str(again_beta), "--tenant", "beta"], other)
    assert json.loads(again_acme.read_text()) == exported_acme
    assert json.loads(again_beta.read_text()) == exported_beta
    assert ok_json(["users", "claims", "alice", "--tenant", "acme"], other)["claims"] == {"role": "admin"}
    assert ok_json(["users", "get", "bea", "--tenant", "beta"], other)["user"]["disabled"] is True
    assert ok_json(["users", "list"], other) == {"users": []}  # none went into the default pool
    refused(["users", "get", "alice", "--tenant", "beta"], other, 2, "phoneauth: userNotFound: ")


def test_import_refuses_users_of_another_tenant(tmp_path, config):
    for tenant_id in ("acme", "beta"):
        ok(["tenants", "create", "--display-name", tenant_id.capitalize(), "--id", tenant_id], config)
    ok(["users", "create", "--tenant", "acme", "--uid", "alice", "--phone-number", ALICE], config)
    ok(["users", "create", "--tenant", "acme", "--uid", "amy", "--phone-number", BOB], config)
    acme = tmp_path / "acme.json"
    ok(["export", str(acme), "--tenant", "acme"], config)

    other = fresh_config(tmp_path, "other")
    ok(["tenants", "create", "--display-name", "Beta", "--id", "beta"], other)
    mismatch = "The user has a mismatching tenant ID: its tenantId is not the tenant it is imported into."
    done = run(["import", str(acme), "--tenant", "beta"], other)
    assert done.returncode == 1, done.stderr
    assert done.stdout.strip().splitlines() == [
        f"0 of 2 users imported from {acme}.", f"  user 0: {mismatch}", f"  user 1: {mismatch}"]
    assert_masked(done.stdout, ALICE, BOB)
    # Nor into the default pool.
    done = run(["import", str(acme), "--json"], other)
    assert done.returncode == 1
    assert json.loads(done.stdout) == {"imported": 0, "errors": [{"index": 0, "message": mismatch},
                                                                  {"index": 1, "message": mismatch}]}
    assert ok_json(["users", "list", "--tenant", "beta"], other) == {"users": []}
    assert ok_json(["users", "list"], other) == {"users": []}

    # A user of the default pool's file goes into a tenant (it names none) unless its uid is taken elsewhere.
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({"users": [{"localId": "cid", "phoneNumber": ALICE}]}))
    assert ok_json(["import", str(plain), "--tenant", "beta"], other) == {"imported": 1, "errors": []}
    assert ok_json(["users", "get", "cid", "--tenant", "beta"], other)["user"]["tenantId"] == "beta"
    done = run(["import", str(plain)], other)
    assert done.returncode == 1
    assert done.stdout.strip().splitlines()[1:] == ["  user 0: A user of another tenant has this uid."]


# -- bad input -------------------------------------------------------------------------------------

def test_bad_tenant_input_is_refused_with_a_precise_message(config):
    for name in ("1acme", "abc", "a" * 21, "Acme Corp", "acme_corp"):
        refused(["tenants", "create", "--display-name", name], config, 1,
                "phoneauth: invalidArgument: The field 'displayName' must be 4 to 20 letters, digits and hyphens, "
                "starting with a letter.")
    refused(["tenants", "create", "--display-name", "Acme", "--id", "acme_corp"], config, 1,
            "phoneauth: invalidArgument: ")
    refused(["tenants", "create", "--display-name", "Acme", "--test-number", "+1650=123456"], config, 1,
            "phoneauth: invalidArgument: ")
    refused(["tenants", "create", "--display-name", "Acme", "--test-number", f"{TEST_NUMBER}=12ab56"], config, 1,
            "phoneauth: invalidArgument: ")
    refused(["tenants", "create", "--display-name", "Acme", "--deny-regions", "QQ"], config, 1,
            "phoneauth: invalidArgument: The field 'smsRegionPolicy.allowByDefault.disallowedRegions' ")
    refused(["tenants", "create", "--display-name", "Acme", "--allow-regions", ""], config, 1,
            "phoneauth: invalidArgument: The field 'smsRegionPolicy.allowlistOnly.allowedRegions' ")
    assert ok_json(["tenants", "list"], config) == {"tenants": []}  # nothing was made

    ok(["tenants", "create", "--display-name", "Acme", "--id", "acme"], config)
    refused(["tenants", "update", "acme", "--display-name", "x"], config, 1,
            "phoneauth: invalidArgument: The field 'displayName' must be 4 to 20 letters")
    assert ok_json(["tenants", "get", "acme"], config)["tenant"]["displayName"] == "Acme"


USAGE_ERRORS = [
    (["tenants", "create"], "Missing expected argument '--display-name <display-name>'"),
    (["tenants", "get"], "Missing expected argument '<tenant-id>'"),
    (["tenants", "update"], "Missing expected argument '<tenant-id>'"),
    (["tenants", "delete"], "Missing expected argument '<tenant-id>'"),
    (["tenants", "create", "--display-name", "Acme", "--test-number", "+16505550100"],
     "--test-number takes +E164=CODE, e.g. +16505551234=123456, not '+16505550100'."),
    (["tenants", "create", "--display-name", "Acme", "--test-number", "+16505550100=1",
      "--test-number", "+16505550100=2"], "--test-number gives +16505550100 twice."),
    (["tenants", "create", "--display-name", "Acme", "--allow-regions", "US", "--deny-regions", "CN"],
     "Give --allow-regions or --deny-regions, not both."),
    (["tenants", "create", "--display-name", "Acme", "--second-factors", "sms"],
     "--second-factors takes phone, totp, phone,totp, none or all, not 'sms'."),
    (["tenants", "update", "acme", "--second-factors", "none,phone"],
     "--second-factors takes phone, totp, phone,totp, none or all, not 'none,phone'."),
    (["tenants", "list", "--max-results", "many"], "The value 'many' is invalid for '--max-results <limit>'"),
    (["users", "get", "alice", "--tenant"], "Missing value for '--tenant <tenant>'"),
]


@pytest.mark.parametrize("command,message", USAGE_ERRORS, ids=[" ".join(c) for c, _ in USAGE_ERRORS])
def test_usage_errors_exit_64(config, command, message):
    usage_error(command, config, message)


# -- help ------------------------------------------------------------------------------------------

def test_help_names_the_options():
    text = " ".join(run(["tenants", "create", "--help"]).stdout.split())
    for option in ("--display-name", "--id", "--test-number <+E164=CODE>", "--allow-regions", "--deny-regions",
                   "--second-factors <phone,totp|none|all>", "--app-name"):
        assert option in text, option
    text = " ".join(run(["tenants", "update", "--help"]).stdout.split())
    for option in ("--no-test-numbers", "--no-region-policy", "--no-app-name", "--second-factors all"):
        assert option in text, option
    text = " ".join(run(["tenants", "list", "--help"]).stdout.split())
    assert "--max-results" in text and "--page-token" in text


@pytest.mark.parametrize("command", [["users", "get"], ["users", "find"], ["users", "list"], ["users", "create"],
                                     ["users", "disable"], ["users", "enable"], ["users", "delete"],
                                     ["users", "claims"], ["export"], ["import"]],
                         ids=lambda c: " ".join(c))
def test_the_user_commands_take_a_tenant(command):
    done = run([*command, "--help"])
    assert done.returncode == 0, done.stderr
    assert "--tenant <tenant>" in done.stdout


def test_tenants_bogus_is_a_usage_error_of_tenants(config):
    done = run(["tenants", "bogus"], config)
    assert done.returncode == 64 and done.stdout == ""
    assert "Usage: phoneauth tenants <subcommand>" in done.stderr, done.stderr


def test_unlock_says_lockouts_are_global_and_the_top_level_lists_tenants(config):
    unlock = " ".join(run(["unlock", "--help"]).stdout.split())
    assert "Lockouts are global" in unlock and "--tenant <" not in unlock
    usage_error(["unlock", ALICE, "--tenant", "acme"], config, "Unknown option '--tenant'")
    done = run(["--help"])
    assert re.search(r"^  tenants ", done.stdout, re.M), done.stdout
    assert "2 no such user or tenant" in " ".join(done.stdout.split())


def test_get_shows_the_tenants_pumping_settings(config, db_path):
    import phoneauth
    engine = phoneauth.Engine(engine_config(db_path))
    try:
        engine.create_tenant("Acme", tenant_id="acme",
                             pumping={"mode": "record", "allowPrefixes": ["+44"], "allowNetworks": ["198.51.100.0/24"]})
        engine.create_tenant("Shop", tenant_id="shop", pumping={"tollFraud": {
            "phoneEnforcementState": "AUDIT", "useSmsTollFraudProtection": True,
            "tollFraudManagedRules": [{"startScore": 0.8, "action": "BLOCK"}]}})
    finally:
        engine.close()
    shown = tenant_fields(ok(["tenants", "get", "acme"], config))
    assert shown["SMS pumping"] == "record; allows +44 198.51.100.0/24", shown
    shown = tenant_fields(ok(["tenants", "get", "shop"], config))
    assert shown["SMS pumping"] == "engine's mode; toll fraud AUDIT from 0.8", shown
