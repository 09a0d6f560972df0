"""Tenants: user pools of their own in one engine. Management (createTenant ... listTenants), the
walls between pools (every cross-tenant use refused as an unknown one is), what each tenant sets
for itself (test numbers, region policy, second factors, app name) and what stays global (the SMS
limits). Runs on SQLite and, in make test's PostgreSQL pass, on PostgreSQL."""

import base64
import json
import threading

import pytest

import phoneauth
from support import FIXED_NUMBERS, REAL_NUMBER, TEST_CODE, credential_for, start, wait_until

NUMBER = "+16505551230"  # a default-pool test number (FIXED_NUMBERS) and, below, each tenant's own
OTHER_CODE = "654321"


@pytest.fixture
def engine(make_engine, sms):
    return make_engine(sender=sms, testPhoneNumbers=FIXED_NUMBERS)


def tenant(engine, name, **settings):
    return engine.create_tenant(name, **settings)["tenant"]["tenantId"]


def fixed_sign_in(engine, number, code, tenant_id=None, **extra):
    ids = {} if tenant_id is None else {"tenant_id": tenant_id}
    started = engine.verify_phone_number(number, **ids)
    return engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], code),
                                          **ids, **extra)


def refusal(action):
    """The error an action raises, as (code, message): what a caller can tell apart."""
    with pytest.raises(phoneauth.PhoneAuthError) as info:
        action()
    return info.value.code, info.value.message


def claims_of(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


# -- management --------------------------------------------------------------------------------

def test_create_get_update_list_and_delete(engine):
    created = engine.call("createTenant", {"displayName": "Acme-Shop", "testPhoneNumbers": {NUMBER: OTHER_CODE},
                                           "secondFactors": ["totp"], "smsAppName": "Acme"})["tenant"]
    assert created["tenantId"].startswith("acme-shop-") and len(created["tenantId"]) == len("acme-shop-") + 5
    assert created["testPhoneNumbers"] == {NUMBER: OTHER_CODE}
    assert created["secondFactors"] == ["totp"] and created["smsAppName"] == "Acme"
    assert created["smsRegionPolicy"] is None
    tid = created["tenantId"]
    assert engine.get_tenant(tid)["tenant"] == created

    policy = {"allowlistOnly": {"allowedRegions": ["GB", "US"]}}
    updated = engine.update_tenant(tid, display_name="Acme-Two", sms_region_policy=policy, sms_app_name=None)["tenant"]
    assert updated["displayName"] == "Acme-Two" and updated["smsRegionPolicy"] == policy
    assert updated["smsAppName"] is None, "null clears a setting"
    assert updated["testPhoneNumbers"] == {NUMBER: OTHER_CODE}, "an absent key keeps its value"
    assert engine.call("getTenant", {"tenantId": tid})["tenant"] == updated

    given = engine.call("createTenant", {"tenantId": "given-id", "displayName": "Given"})["tenant"]
    assert given["tenantId"] == "given-id"
    code, _ = refusal(lambda: engine.call("createTenant", {"tenantId": "given-id", "displayName": "Again"}))
    assert code == "invalidArgument"

    tenant(engine, "Third")
    seen, token = [], None
    while True:
        page = engine.list_tenants(2, **({"page_token": token} if token else {}))
        assert len(page["tenants"]) <= 2
        seen += [t["tenantId"] for t in page["tenants"]]
        token = page.get("pageToken")
        if not token:
            break
    assert sorted(seen) == seen and len(seen) == 3 and tid in seen and "given-id" in seen

    engine.delete_tenant("given-id")
    with pytest.raises(phoneauth.TenantNotFoundError):
        engine.call("getTenant", {"tenantId": "given-id"})
    with pytest.raises(phoneauth.TenantNotFoundError):
        engine.call("deleteTenant", {"tenantId": "given-id"})


@pytest.mark.parametrize("params, field", [
    ({"displayName": "ab"}, "displayName"),
    ({"displayName": "1starts-with-digit"}, "displayName"),
    ({"displayName": "has space"}, "displayName"),
    ({}, "displayName"),
    ({"displayName": "Fine", "tenantId": "bad/id"}, "tenantId"),
    ({"displayName": "Fine", "testPhoneNumbers": {"+16505551230": "12"}}, "testPhoneNumbers"),
    ({"displayName": "Fine", "smsRegionPolicy": {"allowlistOnly": {"allowedRegions": ["XX"]}}},
     "smsRegionPolicy.allowlistOnly.allowedRegions"),
    ({"displayName": "Fine", "secondFactors": ["email"]}, "secondFactors"),
    ({"displayName": "Fine", "smsAppName": ""}, "smsAppName"),
])
def test_bad_tenant_input_is_named(engine, params, field):
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.call("createTenant", params)
    assert info.value.details.get("field") == field
    assert engine.call("listTenants", {})["tenants"] == [], "nothing was written"


def test_a_tenant_with_users_is_not_deleted(engine):
    tid = tenant(engine, "Keeper", testPhoneNumbers={NUMBER: OTHER_CODE})
    user = fixed_sign_in(engine, NUMBER, OTHER_CODE, tid)["user"]
    with pytest.raises(phoneauth.TenantNotEmptyError):
        engine.call("deleteTenant", {"tenantId": tid})
    assert engine.get_user(user["uid"], tenant_id=tid)["user"]["uid"] == user["uid"], "nothing was removed"
    engine.delete_user(user["uid"], tenant_id=tid)
    engine.call("deleteTenant", {"tenantId": tid})
    with pytest.raises(phoneauth.TenantNotFoundError):
        engine.verify_phone_number(NUMBER, tenant_id=tid)


def test_an_unknown_tenant_is_named_as_such(engine):
    for action in (lambda: engine.verify_phone_number(NUMBER, tenant_id="nope"),
                   lambda: engine.get_user("someone", tenant_id="nope"),
                   lambda: engine.call("listUsers", {"tenantId": "nope"}),
                   lambda: engine.create_custom_token(uid="u1", tenant_id="nope")):
        assert refusal(action)[0] == "tenantNotFound"


# -- the walls ---------------------------------------------------------------------------------

def test_one_number_is_a_user_in_each_tenant(engine):
    a = tenant(engine, "Alpha", testPhoneNumbers={NUMBER: OTHER_CODE})
    b = tenant(engine, "Bravo", testPhoneNumbers={NUMBER: OTHER_CODE})
    in_a = fixed_sign_in(engine, NUMBER, OTHER_CODE, a)
    in_b = fixed_sign_in(engine, NUMBER, OTHER_CODE, b)
    in_default = fixed_sign_in(engine, NUMBER, TEST_CODE)
    uids = {in_a["user"]["uid"], in_b["user"]["uid"], in_default["user"]["uid"]}
    assert len(uids) == 3 and in_a["additionalUserInfo"]["isNewUser"] and in_b["additionalUserInfo"]["isNewUser"]
    assert in_a["user"]["tenantId"] == a and in_b["user"]["tenantId"] == b
    assert in_default["user"]["tenantId"] is None
    assert claims_of(in_a["idToken"])["firebase"]["tenant"] == a
    assert "tenant" not in claims_of(in_default["idToken"])["firebase"]
    again = fixed_sign_in(engine, NUMBER, OTHER_CODE, a)
    assert again["user"]["uid"] == in_a["user"]["uid"] and not again["additionalUserInfo"]["isNewUser"]
    assert engine.get_user_by_phone_number(NUMBER, tenant_id=b)["user"]["uid"] == in_b["user"]["uid"]
    assert [u["uid"] for u in engine.list_users(tenant_id=a)["users"]] == [in_a["user"]["uid"]]
    assert in_a["user"]["uid"] not in [u["uid"] for u in engine.list_users()["users"]]


def test_a_verification_of_another_tenant_is_unknown(engine, sms):
    a = tenant(engine, "Alpha")
    b = tenant(engine, "Bravo")
    started, _message, code = start(engine, sms, REAL_NUMBER, tenant_id=a)
    cred = credential_for(engine, started["verificationId"], code)
    unknown = credential_for(engine, started["verificationId"][:-4] + "AAAA", code)
    expected = refusal(lambda: engine.sign_in_with_credential(credential=unknown, tenant_id=b))
    assert expected[0] == "invalidVerificationID"
    assert refusal(lambda: engine.sign_in_with_credential(credential=cred, tenant_id=b)) == expected
    assert refusal(lambda: engine.sign_in_with_credential(credential=cred)) == expected
    assert refusal(lambda: engine.get_verification_status(started["verificationId"], tenant_id=b)) == \
        refusal(lambda: engine.get_verification_status(unknown["verificationId"], tenant_id=b))
    # The code was not spent by those tries: its own tenant signs in with it.
    assert engine.sign_in_with_credential(credential=cred, tenant_id=a)["user"]["tenantId"] == a


def test_tokens_of_another_tenant_are_refused(engine):
    a = tenant(engine, "Alpha", testPhoneNumbers={NUMBER: OTHER_CODE})
    b = tenant(engine, "Bravo")
    session = fixed_sign_in(engine, NUMBER, OTHER_CODE, a)
    # ID tokens: any pool's without tenantId, only its own with one.
    assert engine.verify_id_token(session["idToken"])["claims"]["firebase"]["tenant"] == a
    assert engine.verify_id_token(session["idToken"], tenant_id=a)["claims"]["sub"] == session["user"]["uid"]
    for other in (b, ""):
        code, _ = refusal(lambda: engine.verify_id_token(session["idToken"], tenant_id=other))
        assert code == "invalidIdToken"
    assert refusal(lambda: engine.call("unlink", {"idToken": session["idToken"], "providerId": "phone",
                                                  "tenantId": b}))[0] == "invalidIdToken"
    assert refusal(lambda: engine.mfa_enroll_start(session["idToken"], "+16505551231",
                                                   tenant_id=b))[0] == "invalidIdToken"
    # Refresh tokens: another tenant's is as unknown as a forged one, and is left as it was.
    forged = session["refreshToken"][:-6] + ("AAAAAA" if not session["refreshToken"].endswith("AAAAAA") else "BBBBBB")
    expected = refusal(lambda: engine.refresh_id_token(forged, tenant_id=b))
    assert refusal(lambda: engine.refresh_id_token(session["refreshToken"], tenant_id=b)) == expected
    engine.sign_out(refresh_token=session["refreshToken"], tenant_id=b)  # ignored, as for any stranger's token
    refreshed = engine.refresh_id_token(session["refreshToken"], tenant_id=a)
    assert claims_of(refreshed["idToken"])["firebase"]["tenant"] == a
    assert engine.refresh_id_token(refreshed["refreshToken"])["idToken"], "no tenantId: the token's own"


def test_a_uid_of_another_tenant_is_unknown(engine):
    a = tenant(engine, "Alpha", testPhoneNumbers={NUMBER: OTHER_CODE})
    b = tenant(engine, "Bravo")
    uid = fixed_sign_in(engine, NUMBER, OTHER_CODE, a)["user"]["uid"]
    for where in ({"tenantId": b}, {}):
        for method, extra in (("getUser", {}), ("deleteUser", {}), ("updateUser", {"displayName": "x"}),
                              ("setCustomUserClaims", {"claims": {"role": "x"}}), ("revokeRefreshTokens", {})):
            expected = refusal(lambda: engine.call(method, {"uid": "nobody-at-all", **extra, **where}))
            assert expected[0] == "userNotFound"
            assert refusal(lambda: engine.call(method, {"uid": uid, **extra, **where})) == expected, method
    user = engine.get_user(uid, tenant_id=a)["user"]
    assert user["displayName"] is None and user["customClaims"] is None, "nothing was changed"


def test_a_second_factor_challenge_of_another_tenant_is_unknown(engine):
    a = tenant(engine, "Alpha", testPhoneNumbers={NUMBER: OTHER_CODE, "+16505551231": OTHER_CODE})
    b = tenant(engine, "Bravo")
    first = fixed_sign_in(engine, NUMBER, OTHER_CODE, a)
    started = engine.mfa_enroll_start(first["idToken"], "+16505551231", tenant_id=a)
    enrolled = engine.mfa_enroll_finalize(
        first["idToken"], credential=credential_for(engine, started["verificationId"], OTHER_CODE), tenant_id=a)
    hint = enrolled["user"]["multiFactor"]["enrolledFactors"][0]["uid"]
    with pytest.raises(phoneauth.SecondFactorRequiredError) as info:
        fixed_sign_in(engine, NUMBER, OTHER_CODE, a)
    session = info.value.details["session"]
    unknown = session[:-4] + ("AAAA" if not session.endswith("AAAA") else "BBBB")
    for where in ({"tenantId": b}, {}):
        send = lambda s: engine.call("verifyPhoneNumber", {"multiFactorHint": hint, "multiFactorSession": s, **where})
        assert refusal(lambda: send(session)) == refusal(lambda: send(unknown))
        assert refusal(lambda: send(session))[0] == "invalidMultiFactorSession"
    challenge = engine.call("verifyPhoneNumber", {"multiFactorHint": hint, "multiFactorSession": session,
                                                  "tenantId": a})
    assertion = {"factorId": "phone",
                 "credential": credential_for(engine, challenge["verificationId"], OTHER_CODE)}
    resolve = lambda s, where: engine.call("mfaResolveSignIn", {"session": s, "assertion": assertion, **where})
    assert refusal(lambda: resolve(session, {"tenantId": b})) == refusal(lambda: resolve(unknown, {"tenantId": b}))
    done = resolve(session, {"tenantId": a})
    assert done["user"]["uid"] == first["user"]["uid"]
    assert claims_of(done["idToken"])["firebase"]["tenant"] == a


def test_a_temporary_proof_works_in_its_tenant_only(engine):
    a = tenant(engine, "Alpha", testPhoneNumbers={NUMBER: OTHER_CODE})
    b = tenant(engine, "Bravo")
    owner = fixed_sign_in(engine, NUMBER, OTHER_CODE, a)["user"]
    host = engine.sign_in_with_custom_token(
        custom_token=engine.create_custom_token(uid="host-1", tenant_id=a)["customToken"], tenant_id=a)
    started = engine.verify_phone_number(NUMBER, tenant_id=a)
    with pytest.raises(phoneauth.CredentialAlreadyInUseError) as info:
        engine.link_with_credential(host["idToken"], credential_for(engine, started["verificationId"], OTHER_CODE))
    proof = info.value.details["temporaryProof"]
    unknown = proof.split(".")[0][:-4] + "AAAA." + proof.split(".")[1]
    for where in ({"tenant_id": b}, {}):
        expected = refusal(lambda: engine.sign_in_with_credential(credential={"temporaryProof": unknown}, **where))
        assert expected[0] == "invalidCredential"
        assert refusal(lambda: engine.sign_in_with_credential(credential={"temporaryProof": proof}, **where)) == expected
    signed = engine.sign_in_with_credential(credential={"temporaryProof": proof}, tenant_id=a)
    assert signed["user"]["uid"] == owner["uid"] and signed["user"]["tenantId"] == a


def test_a_disabled_users_challenge_is_unknown_in_another_tenant(engine):
    a = tenant(engine, "Alpha", testPhoneNumbers={NUMBER: OTHER_CODE, "+16505551231": OTHER_CODE})
    b = tenant(engine, "Bravo")
    first = fixed_sign_in(engine, NUMBER, OTHER_CODE, a)
    started = engine.mfa_enroll_start(first["idToken"], "+16505551231")
    engine.mfa_enroll_finalize(first["idToken"], credential=credential_for(engine, started["verificationId"], OTHER_CODE))
    with pytest.raises(phoneauth.SecondFactorRequiredError) as info:
        fixed_sign_in(engine, NUMBER, OTHER_CODE, a)
    session = info.value.details["session"]
    engine.update_user(first["user"]["uid"], disabled=True, tenant_id=a)  # which ends its challenges
    send = lambda where: engine.call("mfaResolveSignIn", {"session": session, "assertion": {
        "factorId": "totp", "enrollmentId": "x", "verificationCode": "123456"}, **where})
    assert refusal(lambda: send({"tenantId": a}))[0] == "userDisabled"
    assert refusal(lambda: send({"tenantId": b}))[0] == "invalidMultiFactorSession"
    assert refusal(lambda: send({}))[0] == "invalidMultiFactorSession"


def test_a_token_named_with_a_tenant_that_does_not_exist_is_refused_as_another_tenants(engine):
    a = tenant(engine, "Alpha", testPhoneNumbers={NUMBER: OTHER_CODE})
    session = fixed_sign_in(engine, NUMBER, OTHER_CODE, a)
    assert refusal(lambda: engine.verify_id_token(session["idToken"], tenant_id="no-such-tenant"))[0] == \
        "invalidIdToken"
    assert refusal(lambda: engine.refresh_id_token(session["refreshToken"], tenant_id="no-such-tenant"))[0] == \
        "invalidUserToken"


def test_a_deleted_tenants_codes_end_with_it(engine):
    a = engine.create_tenant("Alpha", tenant_id="reused-id", testPhoneNumbers={NUMBER: OTHER_CODE})["tenant"]
    started = engine.verify_phone_number(NUMBER, tenant_id="reused-id")
    engine.delete_tenant(a["tenantId"])
    engine.create_tenant("Again", tenant_id="reused-id", testPhoneNumbers={NUMBER: OTHER_CODE})
    with pytest.raises(phoneauth.SessionExpiredError):
        engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], OTHER_CODE),
                                       tenant_id="reused-id")
    assert engine.list_users(tenant_id="reused-id")["users"] == []


def test_custom_tokens_name_their_tenant(engine):
    a = tenant(engine, "Alpha")
    token = engine.create_custom_token(uid="shared-uid", tenant_id=a)["customToken"]
    assert claims_of(token)["tenant_id"] == a
    with pytest.raises(phoneauth.TenantIdMismatchError):
        engine.sign_in_with_custom_token(custom_token=token)
    signed = engine.sign_in_with_custom_token(custom_token=token, tenant_id=a)
    assert signed["user"]["tenantId"] == a and claims_of(signed["idToken"])["firebase"]["tenant"] == a
    # A uid is one user: the default pool's token for it is refused, and makes no second user.
    plain = engine.create_custom_token(uid="shared-uid")["customToken"]
    assert "tenant_id" not in claims_of(plain)
    with pytest.raises(phoneauth.UidAlreadyExistsError):
        engine.sign_in_with_custom_token(custom_token=plain)
    assert engine.list_users()["users"] == []


# -- what a tenant sets for itself ---------------------------------------------------------------

def test_test_numbers_belong_to_their_tenant(engine, sms):
    a = tenant(engine, "Alpha", testPhoneNumbers={REAL_NUMBER: OTHER_CODE})
    b = tenant(engine, "Bravo")
    assert fixed_sign_in(engine, REAL_NUMBER, OTHER_CODE, a)["user"]["tenantId"] == a
    assert sms.messages == [], "a test number gets no SMS in its tenant"
    for where in ({"tenant_id": b}, {}):
        # Elsewhere it is a real number: its code comes by SMS, and the fixed one is just wrong.
        started, _message, code = start(engine, sms, REAL_NUMBER, **where)
        wrong = OTHER_CODE if code != OTHER_CODE else "000000"
        with pytest.raises(phoneauth.InvalidVerificationCodeError):
            engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], wrong),
                                           **where)


def test_a_tenant_region_policy_narrows_the_engines(engine, sms):
    gb_only = tenant(engine, "Britain", smsRegionPolicy={"allowlistOnly": {"allowedRegions": ["GB"]}})
    with pytest.raises(phoneauth.OperationNotAllowedError) as info:
        engine.verify_phone_number(REAL_NUMBER, tenant_id=gb_only)
    assert info.value.details["reason"] == "regionNotAllowed" and info.value.details["region"] == "US"
    start(engine, sms, REAL_NUMBER)  # the default pool is not concerned
    engine.call("updateTenant", {"tenantId": gb_only, "smsRegionPolicy": None})
    start(engine, sms, REAL_NUMBER, tenant_id=gb_only)


def test_a_tenant_chooses_its_second_factors(engine):
    numbers = {NUMBER: OTHER_CODE, "+16505551231": OTHER_CODE}
    none = tenant(engine, "NoFactors", testPhoneNumbers=numbers, secondFactors=[])
    totp = tenant(engine, "TotpOnly", testPhoneNumbers=numbers, secondFactors=["totp"])
    for tid in (none, totp):
        token = fixed_sign_in(engine, NUMBER, OTHER_CODE, tid)["idToken"]
        with pytest.raises(phoneauth.OperationNotAllowedError) as info:
            engine.mfa_enroll_start(token, "+16505551231")
        assert info.value.details["reason"] == "factorNotAllowed"
    totp_token = fixed_sign_in(engine, NUMBER, OTHER_CODE, totp)["idToken"]
    assert engine.call("mfaTotpStart", {"idToken": totp_token})["secretKey"]
    none_token = fixed_sign_in(engine, NUMBER, OTHER_CODE, none)["idToken"]
    with pytest.raises(phoneauth.OperationNotAllowedError):
        engine.call("mfaTotpStart", {"idToken": none_token})


def test_a_tenant_names_its_app_in_the_sms(engine, sms):
    acme = tenant(engine, "Acme", smsAppName="AcmeShop")
    _, message, _ = start(engine, sms, REAL_NUMBER, tenant_id=acme)
    assert "AcmeShop" in message["body"]
    _, plain, _ = start(engine, sms, "+16505553435")
    assert "AcmeShop" not in plain["body"]


# -- what stays global -------------------------------------------------------------------------

def test_sms_to_one_number_counts_once_across_tenants(make_engine, sms):
    engine = make_engine(sender=sms, quotas={"smsPerNumberPerHour": 2})
    a = tenant(engine, "Alpha")
    b = tenant(engine, "Bravo")
    start(engine, sms, REAL_NUMBER)
    start(engine, sms, REAL_NUMBER, tenant_id=a)
    with pytest.raises(phoneauth.TooManyRequestsError):
        engine.verify_phone_number(REAL_NUMBER, tenant_id=b)
    start(engine, sms, "+16505553435", tenant_id=b)  # another number is not concerned


# -- export and import -------------------------------------------------------------------------

def test_export_and_import_work_per_tenant(engine):
    a = tenant(engine, "Alpha", testPhoneNumbers={NUMBER: OTHER_CODE})
    b = tenant(engine, "Bravo")
    uid = fixed_sign_in(engine, NUMBER, OTHER_CODE, a)["user"]["uid"]
    [exported] = engine.call("exportUsers", {"tenantId": a})["users"]
    assert exported["localId"] == uid and exported["tenantId"] == a
    assert engine.call("exportUsers", {"tenantId": b})["users"] == []
    assert engine.call("exportUsers", {})["users"] == []
    wrong = engine.call("importUsers", {"users": [exported], "tenantId": b})
    assert wrong["imported"] == 0 and "mismatching tenant ID" in wrong["errors"][0]["message"]
    moved = dict(exported, localId="moved-user")
    del moved["tenantId"]
    assert engine.call("importUsers", {"users": [moved], "tenantId": b})["imported"] == 1
    assert engine.get_user_by_phone_number(NUMBER, tenant_id=b)["user"]["uid"] == "moved-user"
    taken = dict(moved, localId=uid)
    result = engine.call("importUsers", {"users": [taken], "tenantId": b})
    assert result["imported"] == 0 and "another tenant" in result["errors"][0]["message"]
    assert engine.get_user(uid, tenant_id=a)["user"]["tenantId"] == a


# -- the store ---------------------------------------------------------------------------------

def test_two_engines_create_users_in_one_tenant(make_engine, db_path):
    first = make_engine(testPhoneNumbers=FIXED_NUMBERS)
    second = make_engine(testPhoneNumbers=FIXED_NUMBERS)
    tid = tenant(first, "Shared", testPhoneNumbers=FIXED_NUMBERS)
    numbers = sorted(FIXED_NUMBERS)
    barrier = threading.Barrier(2)
    made, failures = [], []

    def work(engine, mine):
        barrier.wait()
        for number in mine:
            try:
                made.append(engine.create_user(phone_number=number, tenant_id=tid)["user"]["uid"])
            except Exception as error:  # noqa: BLE001 - reported below
                failures.append(error)

    threads = [threading.Thread(target=work, args=(first, numbers[0::2])),
               threading.Thread(target=work, args=(second, numbers[1::2]))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    listed = second.list_users(tenant_id=tid)["users"]
    assert sorted(u["uid"] for u in listed) == sorted(made) and len(made) == len(numbers)
    # One number, one user per tenant, whichever engine asks.
    with pytest.raises(phoneauth.PhoneNumberAlreadyExistsError):
        second.create_user(phone_number=numbers[0], tenant_id=tid)


def test_a_tenant_deleted_through_another_engine_gets_nothing_written(make_engine):
    first = make_engine(testPhoneNumbers=FIXED_NUMBERS)
    second = make_engine(testPhoneNumbers=FIXED_NUMBERS)
    tid = tenant(first, "Gone", testPhoneNumbers={NUMBER: OTHER_CODE})
    token = first.create_custom_token(uid="late-user", tenant_id=tid)["customToken"]
    first.verify_phone_number(NUMBER, tenant_id=tid)  # the first engine now has the tenant cached
    second.delete_tenant(tid)
    # Within the cache's 5 seconds the first engine still knows the tenant; the store does not.
    with pytest.raises(phoneauth.TenantNotFoundError):
        first.verify_phone_number("+16505551231", tenant_id=tid)
    with pytest.raises(phoneauth.TenantNotFoundError):
        first.sign_in_with_custom_token(custom_token=token, tenant_id=tid)
    with pytest.raises(phoneauth.TenantNotFoundError):
        first.create_user(uid="late-admin-user", tenant_id=tid)
    assert first.list_users(tenant_id="")["users"] == []
    with pytest.raises(phoneauth.TenantNotFoundError):
        second.list_users(tenant_id=tid)
