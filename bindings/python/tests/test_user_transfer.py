"""exportUsers / importUsers in Firebase's auth:export format: a file written from Firebase's
documentation, and a round trip into a fresh store that compares every field."""

import json
from pathlib import Path

import pytest

import phoneauth
from support import FIXED_NUMBERS, fixed_credential
from test_tokens import decode

EXPORT = json.loads((Path(__file__).parent / "data" / "firebase-export.json").read_text())


def test_a_firebase_export_imports_its_phone_users_and_reports_the_others(engine):
    result = engine.import_users(EXPORT["users"])
    assert result["imported"] == 2
    errors = {e["index"]: e["message"] for e in result["errors"]}
    assert sorted(errors) == [2, 3, 4, 5]
    assert "'email'" in errors[2] and "google.com" in errors[3] and "TOTP" in errors[5]
    assert "+1 555" not in errors[4]  # messages never repeat a number
    ada = engine.get_user(uid="Ey4Hg2mBkVXc5pbZ1t3u9QeWwAq2")["user"]
    assert ada["phoneNumber"] == "+16505550101" and ada["displayName"] == "Ada" and ada["disabled"] is False
    assert ada["customClaims"] == {"admin": True, "level": 3}
    assert ada["metadata"] == {"creationTime": "2017-02-04T00:18:04.000Z", "lastSignInTime": "2017-02-04T00:18:04.000Z"}
    [factor] = ada["multiFactor"]["enrolledFactors"]
    assert factor["uid"] == "enroll-1" and factor["phoneNumber"] == "+16505550199" and factor["displayName"] == "work phone"
    assert factor["enrollmentTime"] == "2021-01-01T12:00:00.000Z"
    second = engine.get_user_by_phone_number(phone_number="+16505550102")["user"]
    assert second["uid"] == "b5nGvCe2GdQ3pXhVZ8v0RyHnB7k1" and second["disabled"] is True
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user(uid="with-email")


def test_importing_again_changes_nothing_and_replaces_a_uid(engine):
    engine.import_users(EXPORT["users"][:2])
    before = engine.export_users()["users"]
    assert engine.import_users(EXPORT["users"][:2]) == {"imported": 2, "errors": []}
    assert engine.export_users()["users"] == before
    changed = dict(EXPORT["users"][0], displayName="Ada L.", mfaInfo=[])
    assert engine.import_users([changed])["imported"] == 1
    ada = engine.get_user(uid=changed["localId"])["user"]
    assert ada["displayName"] == "Ada L." and ada["multiFactor"]["enrolledFactors"] == []


def test_conflicting_numbers_are_refused_by_index_and_nothing_of_them_is_written(engine):
    engine.import_users(EXPORT["users"][:1])
    taken = {"localId": "other", "phoneNumber": "+16505550101"}
    factor_is_first = {"localId": "other2", "phoneNumber": "+16505550150",
                       "mfaInfo": [{"mfaEnrollmentId": "x", "phoneInfo": "+16505550101"}]}
    first_is_factor = {"localId": "other3", "phoneNumber": "+16505550199"}
    fine = {"localId": "fine", "phoneNumber": "+16505550151"}
    result = engine.import_users([taken, factor_is_first, first_is_factor, fine])
    assert result["imported"] == 1 and [e["index"] for e in result["errors"]] == [0, 1, 2]
    for uid in ("other", "other2", "other3"):
        with pytest.raises(phoneauth.UserNotFoundError):
            engine.get_user(uid=uid)


def test_bad_calls(engine):
    with pytest.raises(phoneauth.InvalidArgumentError):
        engine.import_users({"localId": "x"})
    with pytest.raises(phoneauth.InvalidArgumentError):
        engine.import_users([{"localId": str(i)} for i in range(1001)])
    result = engine.import_users([5, {"localId": ""}, {"localId": "x", "createdAt": "yesterday"}, {"localId": "y", "bogus": 1},
                                  {"localId": "z", "customAttributes": "{\"exp\": 1}"}])
    assert result["imported"] == 0 and [e["index"] for e in result["errors"]] == [0, 1, 2, 3, 4]


def test_round_trip_into_a_fresh_store_keeps_every_field(make_engine, tmp_path):
    source = make_engine(testPhoneNumbers=FIXED_NUMBERS)
    source.import_users(EXPORT["users"][:2])
    signed = source.sign_in_with_credential(credential=fixed_credential(source, "+16505551230"))
    source.update_user(signed["user"]["uid"], display_name="Signed In")
    source.set_custom_user_claims(signed["user"]["uid"], {"tier": "gold"})
    for i in range(5):
        source.create_user(uid=f"made-{i}", phone_number=f"+1650555016{i}", disabled=i % 2 == 0)
    exported, token = [], None
    while True:
        page = source.export_users(max_results=3, **({"page_token": token} if token else {}))
        exported += page["users"]
        token = page.get("pageToken")
        if not token:
            break
    assert len(exported) == 8
    target = make_engine(database=str(tmp_path / "fresh.db"))
    assert target.import_users(exported) == {"imported": 8, "errors": []}
    assert target.export_users()["users"] == exported
    for user in exported:
        a, b = source.get_user(uid=user["localId"])["user"], target.get_user(uid=user["localId"])["user"]
        del a["tokensValidAfterTime"], b["tokensValidAfterTime"]  # sessions do not move
        assert a == b
