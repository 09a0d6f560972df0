"""null as a parameter (None through the binding, which sends it as JSON null): a wrong type, refused
naming the field, but for the few parameters where null clears something (docs/API.md, first
paragraph). Every door passes the catalogue's check: phoneauthd's answers are
Tests/server/test_openapi_conformance.py's."""

import pytest

import phoneauth

NUMBER = "+16505551234"


def refused(call, field):
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        call()
    assert info.value.details.get("field") == field, info.value.details
    assert "null" in str(info.value)


def test_null_is_refused_where_it_means_nothing(engine):
    refused(lambda: engine.list_users(page_token=None), "pageToken")
    refused(lambda: engine.export_users(page_token=None), "pageToken")
    refused(lambda: engine.list_tenants(page_token=None), "pageToken")
    refused(lambda: engine.list_users(max_results=None), "maxResults")
    refused(lambda: engine.rotate_signing_key(algorithm=None), "algorithm")
    refused(lambda: engine.create_custom_token(uid="u1", claims=None), "claims")
    refused(lambda: engine.create_user(uid="u1", display_name=None), "displayName")
    refused(lambda: engine.verify_phone_number(NUMBER, channel=None), "channel")
    refused(lambda: engine.verify_phone_number(NUMBER, tenant_id=None), "tenantId")
    refused(lambda: engine.verify_id_token(id_token="x", check_revoked=None), "checkRevoked")
    # Inside the objects the catalogue reads: a credential, an assertion, an app's proof.
    refused(lambda: engine.sign_in_with_credential(
        credential={"verificationId": "v", "verificationCode": "123456", "providerId": None}), "credential.providerId")
    refused(lambda: engine.mfa_resolve_sign_in(
        session="s", assertion={"factorId": "totp", "enrollmentId": "e", "verificationCode": None}),
        "assertion.verificationCode")
    with pytest.raises(phoneauth.InvalidAppCredentialError) as info:
        engine.verify_phone_number(NUMBER, app_verification={"captchaToken": None})
    assert info.value.details.get("field") == "appVerification.captchaToken"
    # Nothing was created by the refused calls.
    assert engine.list_users()["users"] == []


def test_null_clears_where_it_is_documented_to(engine):
    user = engine.create_user(uid="u1", display_name="Ann", phone_number=NUMBER)["user"]
    assert user["displayName"] == "Ann"
    cleared = engine.update_user(uid="u1", display_name=None, phone_number=None)["user"]
    assert cleared["displayName"] is None and cleared["phoneNumber"] is None
    engine.set_custom_user_claims(uid="u1", claims={"role": "editor"})
    engine.set_custom_user_claims(uid="u1", claims=None)
    assert engine.get_user(uid="u1")["user"]["customClaims"] is None
    tenant = engine.create_tenant(display_name="Acme", sms_app_name=None, secondFactors=None,
                                  smsRegionPolicy=None, testPhoneNumbers=None)["tenant"]
    assert tenant["smsAppName"] is None and tenant["testPhoneNumbers"] == {}
    updated = engine.update_tenant(tenant["tenantId"], sms_app_name="Acme")["tenant"]
    assert updated["smsAppName"] == "Acme"
    assert engine.update_tenant(tenant["tenantId"], sms_app_name=None)["tenant"]["smsAppName"] is None
