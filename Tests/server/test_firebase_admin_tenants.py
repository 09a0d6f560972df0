"""The unmodified PyPI firebase-admin's tenant clients (tenant_mgt.auth_for_tenant), in emulator mode
(FIREBASE_AUTH_EMULATOR_HOST), against phoneauthd. firebase-admin Python manages tenants only against
Google (it ignores the emulator host there), so the tenants are made over REST as Node makes them."""

from __future__ import annotations


import pytest
from firebase_admin import auth, tenant_mgt

from conftest import ADMIN_TOKEN, PROJECT

ADMIN = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
TENANTS = f"/identitytoolkit.googleapis.com/v2/projects/{PROJECT}/tenants"
V1 = "/identitytoolkit.googleapis.com/v1"
NUMBER, CODE = "+16505550100", "111111"


@pytest.fixture
def server(signing_emulator):
    return signing_emulator


@pytest.fixture
def app(firebase_app):
    return firebase_app


def make_tenant(server, name):
    status, tenant, _ = server.post(TENANTS, {"displayName": name, "testPhoneNumbers": {NUMBER: CODE}}, headers=ADMIN)
    assert status == 200, tenant
    return tenant["name"].rsplit("/", 1)[1]


def sign_in(server, tenant_id):
    status, sent, _ = server.post(f"{V1}/accounts:sendVerificationCode?key=k",
                                  {"phoneNumber": NUMBER, "tenantId": tenant_id})
    assert status == 200, sent
    status, body, _ = server.post(f"{V1}/accounts:signInWithPhoneNumber?key=k",
                                  {"sessionInfo": sent["sessionInfo"], "code": CODE, "tenantId": tenant_id})
    assert status == 200, body
    return body


def test_tenant_user_management(server, app):
    tenant_id = make_tenant(server, "Acme")
    client = tenant_mgt.auth_for_tenant(tenant_id, app=app)
    assert client.tenant_id == tenant_id
    created = client.create_user(uid="alice", phone_number=NUMBER, display_name="Alice")
    assert (created.uid, created.phone_number, created.tenant_id) == ("alice", NUMBER, tenant_id)
    found = client.get_user_by_phone_number(NUMBER)
    assert (found.uid, found.tenant_id) == ("alice", tenant_id)
    # The project's client does not see the tenant's user; the number is free there.
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_phone_number(NUMBER, app=app)
    assert auth.create_user(phone_number=NUMBER, app=app).tenant_id is None
    client.create_user(uid="bob", phone_number="+16505550101")
    assert sorted(user.uid for user in client.list_users(max_results=1).iterate_all()) == ["alice", "bob"]
    assert all(user.tenant_id == tenant_id for user in client.list_users().users)
    client.set_custom_user_claims("alice", {"role": "admin"})
    assert client.get_user("alice").custom_claims == {"role": "admin"}
    client.update_user("bob", display_name="Bob", disabled=True)
    assert (client.get_user("bob").display_name, client.get_user("bob").disabled) == ("Bob", True)
    client.delete_user("bob")
    with pytest.raises(auth.UserNotFoundError):
        client.get_user("bob")
    result = client.import_users([auth.ImportUserRecord("carol", phone_number="+16505550102")])
    assert (result.success_count, result.failure_count) == (1, 0)
    assert client.get_user("carol").tenant_id == tenant_id


def test_an_unknown_tenant_is_tenant_not_found(server, app):
    with pytest.raises(tenant_mgt.TenantNotFoundError):
        tenant_mgt.auth_for_tenant("no-such-tenant", app=app).get_user("alice")


def test_verify_id_token_of_a_tenant(server, app):
    first, second = make_tenant(server, "First"), make_tenant(server, "Second")
    signed_in = sign_in(server, first)
    claims = tenant_mgt.auth_for_tenant(first, app=app).verify_id_token(signed_in["idToken"], check_revoked=True)
    assert claims["uid"] == signed_in["localId"] and claims["firebase"]["tenant"] == first
    with pytest.raises(tenant_mgt.TenantIdMismatchError):
        tenant_mgt.auth_for_tenant(second, app=app).verify_id_token(signed_in["idToken"])
    # The project's client takes a tenant's token, as Firebase's does.
    assert auth.verify_id_token(signed_in["idToken"], app=app)["firebase"]["tenant"] == first
    user = tenant_mgt.auth_for_tenant(first, app=app).get_user(signed_in["localId"])
    assert (user.phone_number, user.tenant_id) == (NUMBER, first)


def test_custom_token_of_a_tenant(server, app):
    tenant_id, other = make_tenant(server, "Acme"), make_tenant(server, "Other")
    client = tenant_mgt.auth_for_tenant(tenant_id, app=app)
    token = client.create_custom_token("dave", {"level": 2}).decode()
    for refused in ({}, {"tenantId": other}):
        status, body, _ = server.post(f"{V1}/accounts:signInWithCustomToken?key=k", {"token": token, **refused})
        assert status == 400 and body["error"]["message"].startswith("TENANT_ID_MISMATCH"), body
    status, body, _ = server.post(f"{V1}/accounts:signInWithCustomToken?key=k",
                                  {"token": token, "tenantId": tenant_id, "returnSecureToken": True})
    assert status == 200, body
    claims = client.verify_id_token(body["idToken"])
    assert claims["uid"] == "dave" and claims["level"] == 2 and claims["firebase"]["tenant"] == tenant_id
    assert client.get_user("dave").tenant_id == tenant_id
    client.delete_user("dave")
    with pytest.raises(auth.UserNotFoundError):
        client.get_user("dave")
