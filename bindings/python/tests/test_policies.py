"""Where codes may be sent: the region policy (smsRegionPolicy) and the number-type policy
(phoneNumberTypes). Every number used is checked against libphonenumber's Python port first, so
a test cannot pass on a number that is not what it claims to be."""

import json
import time

import phonenumbers
import pytest

import phoneauth
from support import TEST_CODE, credential_for, start

# Valid numbers of five regions, and of the types the policy is about (checked below).
BY_REGION = {
    "US": "+16502530000",
    "GB": "+442070313000",
    "DE": "+4930303986300",
    "FR": "+33142685300",
    "JP": "+81363849000",
}
PREMIUM_GB = "+449098790000"
PREMIUM_US = "+19002000000"
SHARED_COST_DE = "+491806996633"
SHARED_COST_FR = "+33810123456"
VOIP_GB = "+445601234567"
VOIP_FR = "+33972123456"

TYPE_NAMES = {value: name for name, value in vars(phonenumbers.PhoneNumberType).items()
              if isinstance(value, int)}


def region_of(number):
    parsed = phonenumbers.parse(number)
    assert phonenumbers.is_valid_number(parsed), number
    return phonenumbers.region_code_for_number(parsed)


def type_of(number):
    parsed = phonenumbers.parse(number)
    assert phonenumbers.is_valid_number(parsed), number
    return TYPE_NAMES[phonenumbers.number_type(parsed)]


def test_the_numbers_are_what_they_claim():
    for region, number in BY_REGION.items():
        assert region_of(number) == region
    assert (region_of(PREMIUM_GB), type_of(PREMIUM_GB)) == ("GB", "PREMIUM_RATE")
    assert (region_of(PREMIUM_US), type_of(PREMIUM_US)) == ("US", "PREMIUM_RATE")
    assert (region_of(SHARED_COST_DE), type_of(SHARED_COST_DE)) == ("DE", "SHARED_COST")
    assert (region_of(SHARED_COST_FR), type_of(SHARED_COST_FR)) == ("FR", "SHARED_COST")
    assert (region_of(VOIP_GB), type_of(VOIP_GB)) == ("GB", "VOIP")
    assert (region_of(VOIP_FR), type_of(VOIP_FR)) == ("FR", "VOIP")
    for number in BY_REGION.values():  # none of the default denied types
        assert type_of(number) in ("FIXED_LINE", "FIXED_LINE_OR_MOBILE", "MOBILE"), number


def sent(engine, sms, number):
    """The code reaches the number."""
    region_of(number)
    _started, message, _code = start(engine, sms, number)
    assert message["to"] == number


def region_refused(engine, sms, number):
    region = region_of(number)
    with pytest.raises(phoneauth.OperationNotAllowedError) as info:
        engine.verify_phone_number(number)
    assert info.value.details == {"reason": "regionNotAllowed", "region": region}
    assert number[3:] not in info.value.message
    return info.value


def type_refused(engine, number, type_name):
    assert type_of(number) == type_name
    with pytest.raises(phoneauth.InvalidPhoneNumberError) as info:
        engine.verify_phone_number(number)
    assert info.value.details == {"reason": "typeNotAllowed", "type": type_name}
    assert number[3:] not in info.value.message
    return info.value


def assert_no_sms(sms, *numbers):
    time.sleep(0.5)  # a message would have been delivered by now
    assert [m["to"] for m in sms.messages if m["to"] in numbers] == []


# -- regions ---------------------------------------------------------------------------------------

def test_every_region_is_allowed_by_default(engine, sms):
    for number in BY_REGION.values():
        sent(engine, sms, number)


def test_allow_by_default_refuses_the_listed_regions(make_engine, sms):
    engine = make_engine(sender=sms, smsRegionPolicy={"allowByDefault": {"disallowedRegions": ["DE", "FR"]}})
    region_refused(engine, sms, BY_REGION["DE"])
    region_refused(engine, sms, BY_REGION["FR"])
    for region in ("US", "GB", "JP"):
        sent(engine, sms, BY_REGION[region])
    assert_no_sms(sms, BY_REGION["DE"], BY_REGION["FR"])


def test_allowlist_only_allows_the_listed_regions(make_engine, sms):
    engine = make_engine(sender=sms, smsRegionPolicy={"allowlistOnly": {"allowedRegions": ["US", "JP"]}})
    for region in ("GB", "DE", "FR"):
        region_refused(engine, sms, BY_REGION[region])
    sent(engine, sms, BY_REGION["US"])
    sent(engine, sms, BY_REGION["JP"])
    assert_no_sms(sms, BY_REGION["GB"], BY_REGION["DE"], BY_REGION["FR"])


def test_region_policy_applies_to_second_factor_enrolment(make_engine, sms):
    engine = make_engine(sender=sms, smsRegionPolicy={"allowlistOnly": {"allowedRegions": ["US"]}})
    host = engine.sign_in_with_custom_token(custom_token=engine.create_custom_token(uid="host-1")["customToken"])
    with pytest.raises(phoneauth.OperationNotAllowedError) as info:
        engine.mfa_enroll_start(host["idToken"], BY_REGION["GB"])
    assert info.value.details == {"reason": "regionNotAllowed", "region": "GB"}
    assert_no_sms(sms, BY_REGION["GB"])


@pytest.mark.parametrize("overrides, key", [
    ({"smsRegionPolicy": {"allowByDefault": {"disallowedRegions": ["DE", "XX", "ZZ"]}}},
     "smsRegionPolicy.allowByDefault.disallowedRegions"),
    ({"smsRegionPolicy": {"allowlistOnly": {"allowedRegions": ["XX", "US", "ZZ"]}}},
     "smsRegionPolicy.allowlistOnly.allowedRegions"),
    ({"quotas": {"smsPerRegionPerDay": {"US": 5, "XX": 1, "ZZ": 1}}}, "quotas.smsPerRegionPerDay"),
], ids=["disallowedRegions", "allowedRegions", "smsPerRegionPerDay"])
def test_unknown_region_codes_are_named(make_engine, overrides, key):
    with pytest.raises(phoneauth.InvalidConfigurationError) as info:
        make_engine(**overrides)
    assert info.value.details["key"] == key
    assert sorted(info.value.details["regions"]) == ["XX", "ZZ"]
    assert "XX" in info.value.message and "ZZ" in info.value.message


def test_a_region_policy_has_exactly_one_kind(make_engine):
    with pytest.raises(phoneauth.InvalidConfigurationError):
        make_engine(smsRegionPolicy={"allowByDefault": {"disallowedRegions": ["DE"]},
                                     "allowlistOnly": {"allowedRegions": ["US"]}})


# -- number types ----------------------------------------------------------------------------------

def test_premium_rate_and_shared_cost_are_refused_by_default(engine, sms):
    type_refused(engine, PREMIUM_GB, "PREMIUM_RATE")
    type_refused(engine, PREMIUM_US, "PREMIUM_RATE")
    type_refused(engine, SHARED_COST_DE, "SHARED_COST")
    type_refused(engine, SHARED_COST_FR, "SHARED_COST")
    sent(engine, sms, VOIP_GB)  # VOIP is not denied by default
    assert_no_sms(sms, PREMIUM_GB, PREMIUM_US, SHARED_COST_DE, SHARED_COST_FR)


def test_a_deny_list_replaces_the_default(make_engine, sms):
    engine = make_engine(sender=sms, phoneNumberTypes={"deny": ["VOIP"]})
    type_refused(engine, VOIP_GB, "VOIP")
    type_refused(engine, VOIP_FR, "VOIP")
    sent(engine, sms, PREMIUM_GB)
    sent(engine, sms, SHARED_COST_DE)
    assert_no_sms(sms, VOIP_GB, VOIP_FR)


def test_an_empty_deny_list_allows_every_type(make_engine, sms):
    engine = make_engine(sender=sms, phoneNumberTypes={"deny": []})
    for number in (PREMIUM_US, SHARED_COST_FR, VOIP_FR):
        sent(engine, sms, number)


@pytest.mark.parametrize("deny", [["PREMIUM"], ["VOIP", "premium_rate"], ["SATELLITE"], "VOIP", [5]])
def test_bad_type_names_are_refused(make_engine, deny):
    with pytest.raises(phoneauth.InvalidConfigurationError) as info:
        make_engine(phoneNumberTypes={"deny": deny})
    assert "phoneNumberTypes" in info.value.message + json.dumps(info.value.details)


def test_every_libphonenumber_type_name_is_accepted(make_engine):
    names = sorted(set(TYPE_NAMES.values()))
    assert "PREMIUM_RATE" in names and len(names) == 12
    make_engine(phoneNumberTypes={"deny": names})


# -- test numbers ----------------------------------------------------------------------------------

def test_test_numbers_are_subject_to_both_policies(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers={
        BY_REGION["US"]: TEST_CODE, BY_REGION["DE"]: TEST_CODE, PREMIUM_GB: TEST_CODE, VOIP_FR: TEST_CODE},
        smsRegionPolicy={"allowByDefault": {"disallowedRegions": ["DE"]}},
        phoneNumberTypes={"deny": ["PREMIUM_RATE", "VOIP"]})
    region_refused(engine, sms, BY_REGION["DE"])
    type_refused(engine, PREMIUM_GB, "PREMIUM_RATE")
    type_refused(engine, VOIP_FR, "VOIP")
    started = engine.verify_phone_number(BY_REGION["US"])
    result = engine.sign_in_with_credential(credential=credential_for(engine, started["verificationId"], TEST_CODE))
    assert result["user"]["phoneNumber"] == BY_REGION["US"]
    assert sms.messages == []
