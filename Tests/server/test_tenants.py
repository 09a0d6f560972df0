"""Tenants over Firebase's dialect: Identity Platform's v2 tenant resource as firebase-admin Node sends
it, the tenant user routes under /v1/projects/{p}/tenants/{t}/, and the client routes with `tenantId`
in the body (the JS and iOS SDKs' auth.tenantId)."""

from __future__ import annotations

import base64
import json
import re

import pytest

from conftest import ADMIN_TOKEN, PROJECT, TEST_CODE, TEST_NUMBER

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
# As firebase-admin and the SDKs address an emulator: Google's host as the first segment.
V1 = "/identitytoolkit.googleapis.com/v1"
TENANTS = f"/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/tenants"
# A fictional number each test tenant has as a test number (a test number of no other pool).
NUMBER, CODE = "+16505550100", "111111"


@pytest.fixture
def server(signing_emulator):
    return signing_emulator


def create_tenant(server, name="Acme", **fields):
    body = {"displayName": name, "testPhoneNumbers": {NUMBER: CODE}, **fields}
    status, tenant, _ = server.post(TENANTS, body, headers=ADMIN)
    assert status == 200, tenant
    match = re.search(r"/tenants/(.*)$", tenant["name"])  # how Node reads the ID
    assert match and tenant["name"] == f"projects/{PROJECT}/tenants/{match.group(1)}"
    return match.group(1), tenant


def error(answer):
    status, body, _ = answer
    assert status >= 400, body
    return status, body["error"]["message"].split(" : ")[0]


def claims(id_token):
    payload = id_token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def send(server, tenant, number=NUMBER):
    body = {"phoneNumber": number, **({"tenantId": tenant} if tenant else {})}
    status, sent, _ = server.post(f"{V1}/accounts:sendVerificationCode?key=k", body)
    assert status == 200, sent
    return sent["sessionInfo"]


def sign_in(server, tenant, number=NUMBER, code=CODE):
    session = send(server, tenant, number)
    body = {"sessionInfo": session, "code": code, **({"tenantId": tenant} if tenant else {})}
    status, signed_in, _ = server.post(f"{V1}/accounts:signInWithPhoneNumber?key=k", body)
    assert status == 200, signed_in
    return signed_in


# MARK: The tenant resource


def test_create_get_update_delete_as_node_sends_them(server):
    tenant_id, created = create_tenant(
        server, "Acme-Corp",
        mfaConfig={"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]},
        smsRegionConfig={"allowByDefault": {"disallowedRegions": ["GB"]}})
    assert tenant_id.startswith("acme-corp-")
    assert created["displayName"] == "Acme-Corp" and created["testPhoneNumbers"] == {NUMBER: CODE}
    assert (created["allowPasswordSignup"], created["enableEmailLinkSignin"], created["enableAnonymousUser"]) == (
        False, False, False)
    assert created["mfaConfig"] == {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}
    assert created["smsRegionConfig"] == {"allowByDefault": {"disallowedRegions": ["GB"]}}

    status, got, _ = server.get(f"{TENANTS}/{tenant_id}", headers=ADMIN)
    assert status == 200 and got == created

    # Node's generateUpdateMask: the leaves of the request, in its key order.
    status, updated, _ = server.request(
        "PATCH", f"{TENANTS}/{tenant_id}?updateMask=displayName,testPhoneNumbers",
        {"displayName": "Acme-Two", "testPhoneNumbers": {"+16505550101": "222222"}}, headers=ADMIN)
    assert status == 200, updated
    assert updated["name"] == created["name"] and updated["displayName"] == "Acme-Two"
    assert updated["testPhoneNumbers"] == {"+16505550101": "222222"}
    assert updated["mfaConfig"] == created["mfaConfig"] and updated["smsRegionConfig"] == created["smsRegionConfig"]

    # Half of the phone factor's switch; TOTP through providerConfigs.
    status, updated, _ = server.request(
        "PATCH", f"{TENANTS}/{tenant_id}?updateMask=mfaConfig.state", {"mfaConfig": {"state": "DISABLED"}},
        headers=ADMIN)
    assert status == 200 and updated["mfaConfig"] == {"state": "DISABLED"}, updated
    status, updated, _ = server.request(
        "PATCH", f"{TENANTS}/{tenant_id}?updateMask=mfaConfig.providerConfigs",
        {"mfaConfig": {"providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 3}}]}},
        headers=ADMIN)
    assert status == 200, updated
    assert updated["mfaConfig"] == {"state": "DISABLED",
                                    "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {}}]}

    # No mask: every settable field takes the body's value or its default.
    status, replaced, _ = server.request("PATCH", f"{TENANTS}/{tenant_id}", {"displayName": "Acme-Three"},
                                         headers=ADMIN)
    assert status == 200, replaced
    assert replaced["displayName"] == "Acme-Three" and replaced["mfaConfig"] == {"state": "DISABLED"}
    assert "testPhoneNumbers" not in replaced and "smsRegionConfig" not in replaced

    status, body, _ = server.request("DELETE", f"{TENANTS}/{tenant_id}", headers=ADMIN)
    assert (status, body) == (200, {})
    assert error(server.get(f"{TENANTS}/{tenant_id}", headers=ADMIN))[1] == "TENANT_NOT_FOUND"
    assert error(server.request("DELETE", f"{TENANTS}/{tenant_id}", headers=ADMIN))[1] == "TENANT_NOT_FOUND"


def test_list_pages_with_page_token(server):
    ids = sorted(create_tenant(server, f"Team{i}")[0] for i in range(3))
    status, first, _ = server.get(f"{TENANTS}?pageSize=2", headers=ADMIN)
    assert status == 200, first
    assert len(first["tenants"]) == 2 and first["nextPageToken"]
    status, second, _ = server.get(f"{TENANTS}?pageSize=2&pageToken={first['nextPageToken']}", headers=ADMIN)
    assert status == 200, second
    assert len(second["tenants"]) == 1 and "nextPageToken" not in second
    names = [t["name"] for t in first["tenants"] + second["tenants"]]
    assert names == [f"projects/{PROJECT}/tenants/{i}" for i in ids]
    status, everything, _ = server.get(TENANTS, headers=ADMIN)
    assert status == 200 and len(everything["tenants"]) == 3 and "nextPageToken" not in everything


def test_what_phoneauth_cannot_honour_is_refused(server):
    for field in ("allowPasswordSignup", "enableEmailLinkSignin", "enableAnonymousUser"):
        status, body, _ = server.post(TENANTS, {"displayName": "Nope", field: True}, headers=ADMIN)
        assert status == 400 and body["error"]["status"] == "INVALID_ARGUMENT", body
        assert "phone only" in body["error"]["message"]
    # false is what PhoneAuth does, and is taken.
    tenant_id, _ = create_tenant(server, "Fine", allowPasswordSignup=False, enableEmailLinkSignin=False)
    for extra in ({"recaptchaConfig": {"emailPasswordEnforcementState": "AUDIT"}},
                  {"recaptchaConfig": {"phoneEnforcementState": "SOMETIMES"}},
                  {"passwordPolicyConfig": {"enforcementState": "ENFORCE"}},
                  {"mfaConfig": {"state": "MANDATORY", "enabledProviders": ["PHONE_SMS"]}}):
        status, body, _ = server.post(TENANTS, {"displayName": "Nope", **extra}, headers=ADMIN)
        assert status == 400 and body["error"]["status"] == "INVALID_ARGUMENT", (extra, body)
        status, body, _ = server.request("PATCH", f"{TENANTS}/{tenant_id}?updateMask={next(iter(extra))}", extra,
                                         headers=ADMIN)
        assert status == 400, (extra, body)
    assert error(server.post(TENANTS, {"displayName": "x"}, headers=ADMIN))[0] == 400
    assert error(server.post(TENANTS, {"displayName": "Nope"}))[0] == 403  # no admin token
    assert error(server.get(TENANTS))[0] == 403
    status, _, headers = server.request("PUT", f"{TENANTS}/{tenant_id}", {}, headers=ADMIN)
    assert status == 405 and headers["Allow"] == "GET, PATCH, DELETE"


def test_delete_is_refused_while_users_remain(server):
    tenant_id, _ = create_tenant(server)
    users = f"/v1/projects/{PROJECT}/tenants/{tenant_id}"
    status, created, _ = server.post(f"{users}/accounts", {"localId": "t-user", "phoneNumber": NUMBER}, headers=ADMIN)
    assert status == 200, created
    assert error(server.request("DELETE", f"{TENANTS}/{tenant_id}", headers=ADMIN)) == (400, "TENANT_NOT_EMPTY")
    status, _, _ = server.post(f"{users}/accounts:delete", {"localId": "t-user"}, headers=ADMIN)
    assert status == 200
    status, body, _ = server.request("DELETE", f"{TENANTS}/{tenant_id}", headers=ADMIN)
    assert (status, body) == (200, {})


# MARK: The tenant's users (admin)


def test_tenant_user_routes_work_in_the_tenant(server):
    tenant_id, _ = create_tenant(server)
    base = f"/v1/projects/{PROJECT}/tenants/{tenant_id}"
    status, created, _ = server.post(f"{base}/accounts", {"localId": "u1", "phoneNumber": NUMBER}, headers=ADMIN)
    assert status == 200, created
    # The same number is free in the default pool; the uid is taken everywhere.
    status, body, _ = server.post(f"/v1/projects/{PROJECT}/accounts", {"phoneNumber": NUMBER}, headers=ADMIN)
    assert status == 200, body
    assert error(server.post(f"/v1/projects/{PROJECT}/accounts", {"localId": "u1"}, headers=ADMIN))[1] == \
        "DUPLICATE_LOCAL_ID"
    status, found, _ = server.post(f"{base}/accounts:lookup", {"phoneNumber": [NUMBER]}, headers=ADMIN)
    assert status == 200 and [u["localId"] for u in found["users"]] == ["u1"], found
    assert found["users"][0]["tenantId"] == tenant_id
    status, found, _ = server.post(f"/v1/projects/{PROJECT}/accounts:lookup", {"localId": ["u1"]}, headers=ADMIN)
    assert status == 200 and "users" not in found, found
    status, page, _ = server.get(f"{base}/accounts:batchGet?maxResults=10", headers=ADMIN)
    assert status == 200 and [u["localId"] for u in page["users"]] == ["u1"], page
    status, _, _ = server.post(f"{base}/accounts:update", {"localId": "u1", "displayName": "Tenant User"},
                               headers=ADMIN)
    assert status == 200
    status, found, _ = server.post(f"{base}/accounts:lookup", {"localId": ["u1"]}, headers=ADMIN)
    assert found["users"][0]["displayName"] == "Tenant User"
    status, body, _ = server.post(f"{base}/accounts:batchDelete", {"localIds": ["u1"], "force": True}, headers=ADMIN)
    assert (status, body) == (200, {})
    status, found, _ = server.post(f"{base}/accounts:lookup", {"localId": ["u1"]}, headers=ADMIN)
    assert "users" not in found
    unknown = f"/v1/projects/{PROJECT}/tenants/no-such-tenant"
    assert error(server.post(f"{unknown}/accounts:lookup", {"localId": ["u1"]}, headers=ADMIN))[1] == \
        "TENANT_NOT_FOUND"
    assert error(server.post(f"{base}/accounts:lookup", {"localId": ["u1"]}))[0] == 403


def test_an_admin_request_may_name_its_tenant_in_the_body(server):
    tenant_id, _ = create_tenant(server)
    other, _ = create_tenant(server, "Other")
    base = f"/v1/projects/{PROJECT}/tenants/{tenant_id}"
    status, created, _ = server.post(f"{base}/accounts", {"localId": "u1", "phoneNumber": NUMBER}, headers=ADMIN)
    assert status == 200, created
    project = f"/v1/projects/{PROJECT}/accounts:lookup"
    status, found, _ = server.post(project, {"localId": ["u1"], "tenantId": tenant_id}, headers=ADMIN)
    assert status == 200 and [u["localId"] for u in found["users"]] == ["u1"], found
    assert error(server.post(f"{base}/accounts:lookup", {"localId": ["u1"], "tenantId": other}, headers=ADMIN))[1] == \
        "TENANT_ID_MISMATCH"


def test_batch_create_refuses_a_record_of_another_tenant(server):
    tenant_id, _ = create_tenant(server)
    base = f"/v1/projects/{PROJECT}/tenants/{tenant_id}"
    users = [{"localId": "imp1", "phoneNumber": "+16505550111"},
             {"localId": "imp2", "phoneNumber": "+16505550112", "tenantId": "other-tenant"},
             {"localId": "imp3", "phoneNumber": "+16505550113", "tenantId": tenant_id},
             {"localId": "imp4", "email": "a@example.com"}]
    status, body, _ = server.post(f"{base}/accounts:batchCreate", {"users": users}, headers=ADMIN)
    assert status == 200, body
    assert [e["index"] for e in body["error"]] == [1, 3]
    assert "mismatching tenant ID" in body["error"][0]["message"]
    status, page, _ = server.get(f"{base}/accounts:batchGet", headers=ADMIN)
    assert sorted(u["localId"] for u in page["users"]) == ["imp1", "imp3"]
    assert all(u["tenantId"] == tenant_id for u in page["users"])


# MARK: Client routes with tenantId


def test_one_number_signs_in_to_two_tenants_as_two_users(server):
    first, _ = create_tenant(server, "First")
    second, _ = create_tenant(server, "Second")
    a, b = sign_in(server, first), sign_in(server, second)
    assert a["localId"] != b["localId"]
    assert claims(a["idToken"])["firebase"]["tenant"] == first
    assert claims(b["idToken"])["firebase"]["tenant"] == second
    # lookup, as the JS SDK sends it (no tenantId): the user's tenant, which the SDK checks.
    status, found, _ = server.post(f"{V1}/accounts:lookup?key=k", {"idToken": a["idToken"]})
    assert status == 200, found
    assert found["users"][0]["localId"] == a["localId"] and found["users"][0]["tenantId"] == first
    status, found, _ = server.post(f"{V1}/accounts:lookup?key=k", {"idToken": b["idToken"], "tenantId": second})
    assert status == 200 and found["users"][0]["tenantId"] == second, found
    assert error(server.post(f"{V1}/accounts:lookup?key=k", {"idToken": a["idToken"], "tenantId": second})) == \
        (400, "TENANT_ID_MISMATCH")
    # A default-pool user has no tenantId.
    plain = sign_in(server, None, TEST_NUMBER, TEST_CODE)
    status, found, _ = server.post(f"{V1}/accounts:lookup?key=k", {"idToken": plain["idToken"]})
    assert status == 200 and "tenantId" not in found["users"][0]
    # A refresh stays in the token's tenant (securetoken has no tenantId).
    status, refreshed, _ = server.post("/securetoken.googleapis.com/v1/token?key=k",
                                       {"grant_type": "refresh_token", "refresh_token": a["refreshToken"]})
    assert status == 200 and claims(refreshed["id_token"])["firebase"]["tenant"] == first, refreshed
    # update and delete act in the token's tenant.
    status, updated, _ = server.post(f"{V1}/accounts:update?key=k", {"idToken": a["idToken"], "displayName": "Ann"})
    assert status == 200 and updated["displayName"] == "Ann", updated
    status, _, _ = server.post(f"{V1}/accounts:delete?key=k", {"idToken": b["idToken"]})
    assert status == 200
    status, page, _ = server.get(f"/v1/projects/{PROJECT}/tenants/{second}/accounts:batchGet", headers=ADMIN)
    assert status == 200 and not page.get("users"), page
    status, found, _ = server.post(f"/v1/projects/{PROJECT}/tenants/{first}/accounts:lookup",
                                   {"localId": [a["localId"]]}, headers=ADMIN)
    assert found["users"][0]["displayName"] == "Ann"


def test_a_verification_of_another_tenant_is_an_unknown_one(server):
    first, _ = create_tenant(server, "First")
    second, _ = create_tenant(server, "Second")
    session = send(server, first)
    crossed = server.post(f"{V1}/accounts:signInWithPhoneNumber?key=k",
                          {"sessionInfo": session, "code": CODE, "tenantId": second})
    unknown = server.post(f"{V1}/accounts:signInWithPhoneNumber?key=k",
                          {"sessionInfo": session[:12] + "A" * (len(session) - 12), "code": CODE,
                           "tenantId": second})
    assert error(crossed) == error(unknown)
    assert crossed[1] == unknown[1]
    # Nor in the default pool; the verification still works in its own tenant.
    default = server.post(f"{V1}/accounts:signInWithPhoneNumber?key=k", {"sessionInfo": session, "code": CODE})
    assert error(default) == error(unknown)
    status, body, _ = server.post(f"{V1}/accounts:signInWithPhoneNumber?key=k",
                                  {"sessionInfo": session, "code": CODE, "tenantId": first})
    assert status == 200, body


def test_an_unknown_tenant_is_an_invalid_tenant_id(server):
    for body in ({"phoneNumber": NUMBER, "tenantId": "no-such-tenant"},
                 {"phoneNumber": NUMBER, "tenantId": "not a tenant!"}):
        assert error(server.post(f"{V1}/accounts:sendVerificationCode?key=k", body)) == (400, "INVALID_TENANT_ID")
    # A tenant's test number is no test number elsewhere: the default pool sends it a code.
    tenant_id, _ = create_tenant(server)
    session = send(server, None)
    status, body, _ = server.post(f"{V1}/accounts:signInWithPhoneNumber?key=k", {"sessionInfo": session, "code": CODE})
    assert status == 400, body


def test_custom_token_sign_in_with_tenant_id(server):
    tenant_id, _ = create_tenant(server)
    status, made, _ = server.post("/phoneauth/v1/createCustomToken", {"uid": "custom1", "tenantId": tenant_id},
                                  headers=ADMIN)
    assert status == 200, made
    token = made["customToken"] if "customToken" in made else made["token"]
    assert error(server.post(f"{V1}/accounts:signInWithCustomToken?key=k", {"token": token})) == \
        (400, "TENANT_ID_MISMATCH")
    status, body, _ = server.post(f"{V1}/accounts:signInWithCustomToken?key=k",
                                  {"token": token, "tenantId": tenant_id, "returnSecureToken": True})
    assert status == 200, body
    assert body["localId"] == "custom1" and claims(body["idToken"])["firebase"]["tenant"] == tenant_id


def test_second_factors_in_a_tenant(server):
    tenant_id, _ = create_tenant(server, testPhoneNumbers={NUMBER: CODE, "+16505550102": "333333"})
    signed_in = sign_in(server, tenant_id)
    start = {"idToken": signed_in["idToken"], "tenantId": tenant_id,
             "phoneEnrollmentInfo": {"phoneNumber": "+16505550102"}}
    # Identity Platform's default: second factors off until mfaConfig enables them.
    assert error(server.post("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start?key=k", start)) == \
        (400, "OPERATION_NOT_ALLOWED")
    status, _, _ = server.request("PATCH", f"{TENANTS}/{tenant_id}?updateMask=mfaConfig.state,mfaConfig.enabledProviders",
                                  {"mfaConfig": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]}}, headers=ADMIN)
    assert status == 200
    other, _ = create_tenant(server, "Other")
    assert error(server.post("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start?key=k",
                             {**start, "tenantId": other})) == (400, "TENANT_ID_MISMATCH")
    status, started, _ = server.post("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start?key=k", start)
    assert status == 200, started
    status, enrolled, _ = server.post(
        "/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:finalize?key=k",
        {"idToken": signed_in["idToken"], "tenantId": tenant_id,
         "phoneVerificationInfo": {"sessionInfo": started["phoneSessionInfo"]["sessionInfo"], "code": "333333"}})
    assert status == 200, enrolled
    # The next sign-in asks for the factor, in the tenant.
    session = send(server, tenant_id)
    status, pending, _ = server.post(f"{V1}/accounts:signInWithPhoneNumber?key=k",
                                     {"sessionInfo": session, "code": CODE, "tenantId": tenant_id})
    assert status == 200 and pending["mfaPendingCredential"], pending
    hint = pending["mfaInfo"][0]["mfaEnrollmentId"]
    status, challenge, _ = server.post("/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start?key=k",
                                       {"mfaPendingCredential": pending["mfaPendingCredential"],
                                        "mfaEnrollmentId": hint, "tenantId": tenant_id})
    assert status == 200, challenge
    status, done, _ = server.post(
        "/identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize?key=k",
        {"mfaPendingCredential": pending["mfaPendingCredential"], "tenantId": tenant_id,
         "phoneVerificationInfo": {"sessionInfo": challenge["phoneResponseInfo"]["sessionInfo"], "code": "333333"}})
    assert status == 200 and claims(done["idToken"])["firebase"]["tenant"] == tenant_id, done
    status, withdrawn, _ = server.post("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:withdraw?key=k",
                                       {"idToken": done["idToken"], "tenantId": tenant_id, "mfaEnrollmentId": hint})
    assert status == 200, withdrawn


def test_a_tenants_recaptcha_config_sets_its_toll_fraud_rules(server):
    rules = {"phoneEnforcementState": "AUDIT", "useSmsTollFraudProtection": True,
             "tollFraudManagedRules": [{"startScore": 0.5, "action": "BLOCK"}]}
    tenant_id, made = create_tenant(server, "Shop", recaptchaConfig=rules)
    assert made["recaptchaConfig"] == rules, made
    # What a Tenant does not have (the pumping mode, allow lists) is set by the engine's own method.
    status, body, _ = server.post("/phoneauth/v1/updateTenant", {
        "tenantId": tenant_id, "pumping": {"mode": "record", "allowPrefixes": ["+44"],
                                           "tollFraud": rules}}, headers=ADMIN)
    assert status == 200, body
    # A mask that names one field changes that field alone.
    status, body, _ = server.request("PATCH", f"{TENANTS}/{tenant_id}?updateMask=recaptchaConfig.phoneEnforcementState",
                                     {"recaptchaConfig": {"phoneEnforcementState": "ENFORCE"}}, headers=ADMIN)
    assert status == 200 and body["recaptchaConfig"] == dict(rules, phoneEnforcementState="ENFORCE"), body
    status, body, _ = server.get(f"{TENANTS}/{tenant_id}", headers=ADMIN)
    assert body["recaptchaConfig"]["phoneEnforcementState"] == "ENFORCE", body
    status, own, _ = server.post("/phoneauth/v1/getTenant", {"tenantId": tenant_id}, headers=ADMIN)
    assert (own["tenant"]["pumping"]["mode"], own["tenant"]["pumping"]["allowPrefixes"]) == ("record", ["+44"]), own
    # Without it (and without a mask), the tenant has the engine's rules again.
    status, body, _ = server.request("PATCH", f"{TENANTS}/{tenant_id}", {"displayName": "Shop"}, headers=ADMIN)
    assert status == 200 and "recaptchaConfig" not in body, body
