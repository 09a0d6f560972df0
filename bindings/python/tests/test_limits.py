"""SMS send limits (quotas): per number, per client IP, per project, per region and the regional
burst breaker; each trips at its threshold and not before, sends nothing when it does, and holds
across engines in several processes. Also clientIp checking, and test numbers passing the limits."""

import json
import time

import pytest

import phoneauth
from support import (FIXED_NUMBERS, REAL_NUMBER, TEST_CODE, TEST_NUMBER, code_in, credential_for,
                     custom_sign_in, engine_config, fixed_credential, resolver_of, run_python, start)

IP, OTHER_IP = "192.0.2.1", "2001:db8::7"
GB_NUMBER = "+447400123456"
ALICE = "+16505551230"  # one of FIXED_NUMBERS


def numbers(first, count):
    """`count` distinct real (SMS-sent) US numbers."""
    return [f"+1650555{first + i:04d}" for i in range(count)]


def send(engine, sms, number, **kwargs):
    """verifyPhoneNumber that must succeed, and its SMS."""
    return start(engine, sms, number, **kwargs)


def refused(error_class, call, limit, scope):
    """Runs call(), which must be refused by the send limit `limit`; returns the error."""
    with pytest.raises(error_class) as info:
        call()
    details = info.value.details
    assert details["reason"] == "rateLimit"
    assert details["limit"] == limit
    assert details["scope"] == scope
    assert isinstance(details["retryAfterSeconds"], int) and details["retryAfterSeconds"] >= 1
    return info.value


def assert_no_sms(sms, number):
    time.sleep(0.5)  # a message would have been delivered by now
    assert sms.matching(to=number) == []


def test_per_number_limit(engine, sms):
    for _ in range(5):  # smsPerNumberPerHour is 5 by default
        send(engine, sms, REAL_NUMBER)
    before = len(sms.messages)
    error = refused(phoneauth.TooManyRequestsError, lambda: engine.verify_phone_number(REAL_NUMBER),
                    "smsPerNumberPerHour", "+*******3434")
    assert error.details["retryAfterSeconds"] <= 3600
    assert "6505553434" not in error.message
    # Written otherwise, it is the same number.
    refused(phoneauth.TooManyRequestsError, lambda: engine.verify_phone_number("+1 650-555-3434"),
            "smsPerNumberPerHour", "+*******3434")
    time.sleep(0.5)
    assert len(sms.messages) == before
    send(engine, sms, "+16505553435")  # another number is not limited


def test_per_number_limit_counts_every_purpose(engine, sms):
    host = custom_sign_in(engine, "host-1")
    for _ in range(3):
        send(engine, sms, REAL_NUMBER)
    for _ in range(2):
        started = engine.mfa_enroll_start(host["idToken"], REAL_NUMBER)
        sms.wait_for(verification_id=started["verificationId"])
    refused(phoneauth.TooManyRequestsError, lambda: engine.mfa_enroll_start(host["idToken"], REAL_NUMBER),
            "smsPerNumberPerHour", "+*******3434")
    refused(phoneauth.TooManyRequestsError, lambda: engine.verify_phone_number(REAL_NUMBER),
            "smsPerNumberPerHour", "+*******3434")
    time.sleep(0.5)
    assert len(sms.matching(to=REAL_NUMBER)) == 5


def test_per_ip_limit(make_engine, sms):
    engine = make_engine(sender=sms, quotas={"smsPerIpPerHour": 3})
    host = custom_sign_in(engine, "host-1")
    first, second, third, fourth = numbers(4000, 4)
    send(engine, sms, first, client_ip=IP)
    send(engine, sms, second, client_ip=IP)
    enrolled = engine.mfa_enroll_start(host["idToken"], third, client_ip=IP)  # counts too
    sms.wait_for(verification_id=enrolled["verificationId"])
    refused(phoneauth.TooManyRequestsError, lambda: engine.verify_phone_number(fourth, client_ip=IP),
            "smsPerIpPerHour", IP)
    refused(phoneauth.TooManyRequestsError,
            lambda: engine.mfa_enroll_start(host["idToken"], fourth, client_ip=IP), "smsPerIpPerHour", IP)
    assert_no_sms(sms, fourth)
    send(engine, sms, fourth, client_ip=OTHER_IP)  # another IP, and no IP, are not limited
    send(engine, sms, "+16505554100")


def test_per_ip_limit_counts_second_factor_challenges(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers=FIXED_NUMBERS, quotas={"smsPerIpPerHour": 1})
    alice = engine.sign_in_with_credential(credential=fixed_credential(engine, ALICE))
    started = engine.mfa_enroll_start(alice["idToken"], REAL_NUMBER)  # no clientIp: not counted
    code = code_in(sms.wait_for(verification_id=started["verificationId"])["body"])
    engine.mfa_enroll_finalize(alice["idToken"],
                               credential=credential_for(engine, started["verificationId"], code))
    resolver = resolver_of(engine, lambda: engine.sign_in_with_credential(
        credential=fixed_credential(engine, ALICE)))
    challenge = resolver.verify_phone_number(resolver.hints[0], client_ip=IP)
    sms.wait_for(verification_id=challenge["verificationId"])
    refused(phoneauth.TooManyRequestsError, lambda: engine.verify_phone_number(GB_NUMBER, client_ip=IP),
            "smsPerIpPerHour", IP)
    assert_no_sms(sms, GB_NUMBER)


def test_per_project_limit(make_engine, sms):
    engine = make_engine(sender=sms, quotas={"smsPerProjectPerDay": 3})
    first, second, third, fourth = numbers(4000, 4)
    send(engine, sms, first)
    send(engine, sms, second, client_ip=IP)
    send(engine, sms, GB_NUMBER)
    refused(phoneauth.QuotaExceededError, lambda: engine.verify_phone_number(third), "smsPerProjectPerDay",
            "project")
    refused(phoneauth.QuotaExceededError, lambda: engine.verify_phone_number(fourth, client_ip=OTHER_IP),
            "smsPerProjectPerDay", "project")
    assert_no_sms(sms, third)
    assert sms.matching(to=fourth) == []


def test_per_region_limit(make_engine, sms):
    engine = make_engine(sender=sms, quotas={"smsPerRegionPerDay": {"US": 2}})
    first, second, third = numbers(4000, 3)
    send(engine, sms, first)
    send(engine, sms, second)
    refused(phoneauth.QuotaExceededError, lambda: engine.verify_phone_number(third), "smsPerRegionPerDay", "US")
    assert_no_sms(sms, third)
    for _ in range(3):  # other regions have no limit
        send(engine, sms, GB_NUMBER)


def test_region_burst_breaker(make_engine, sms):
    engine = make_engine(sender=sms, quotas={"regionBurstPerHour": 2})
    first, second, third = numbers(4000, 3)
    send(engine, sms, first)
    send(engine, sms, second)
    refused(phoneauth.QuotaExceededError, lambda: engine.verify_phone_number(third), "regionBurstPerHour", "US")
    assert_no_sms(sms, third)
    # Each region has its own count.
    send(engine, sms, GB_NUMBER)
    send(engine, sms, "+447400123457")
    refused(phoneauth.QuotaExceededError, lambda: engine.verify_phone_number("+447400123458"),
            "regionBurstPerHour", "GB")


def test_zero_is_no_limit(make_engine, sms):
    engine = make_engine(sender=sms, quotas={"smsPerNumberPerHour": 0, "smsPerIpPerHour": 0,
                                             "smsPerProjectPerDay": 0})
    for _ in range(8):
        send(engine, sms, REAL_NUMBER, client_ip=IP)


def test_a_reused_verification_counts_nothing(make_engine, sms):
    engine = make_engine(sender=sms, resendAfterSeconds=60,
                         quotas={"smsPerNumberPerHour": 2, "smsPerProjectPerDay": 2})
    ids = {engine.verify_phone_number(REAL_NUMBER)["verificationId"] for _ in range(6)}
    assert len(ids) == 1
    sms.wait_for(to=REAL_NUMBER)
    send(engine, sms, "+16505553435")  # the project's second SMS: still under its limit
    time.sleep(0.5)
    assert len(sms.messages) == 2


# Run in a child process: an engine on the configuration in argv[1] sends codes to the numbers in
# argv[2:] (with the clientIp of the configuration's "_ip", if any), waits for each SMS, prints
# the outcomes as a JSON list: "sent" or the error code and details.
SEND_IN_CHILD = """
import json, sys, threading
import phoneauth
config, numbers = json.loads(sys.argv[1]), sys.argv[2:]
ip = config.pop("_ip", None)
sent = []
cond = threading.Condition()
def sender(message):
    with cond:
        sent.append(message["verificationId"])
        cond.notify_all()
outcomes = []
with phoneauth.Engine(config) as engine:
    engine.set_sms_sender(sender)
    for number in numbers:
        try:
            vid = engine.verify_phone_number(number, **({"client_ip": ip} if ip else {}))["verificationId"]
        except phoneauth.PhoneAuthError as exc:
            outcomes.append([exc.code, exc.details])
            continue
        with cond:
            if not cond.wait_for(lambda: vid in sent, 15):
                sys.exit("no SMS within 15 s")
        outcomes.append("sent")
print(json.dumps(outcomes))
"""


def send_in_child(config, *to):
    done = run_python(SEND_IN_CHILD, json.dumps(config), *to)
    assert done.returncode == 0, f"child failed ({done.returncode}): {done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_per_number_limit_holds_across_processes(make_engine, sms, db_path):
    engine = make_engine(sender=sms)
    for _ in range(3):
        send(engine, sms, REAL_NUMBER)
    # The child uses the same database and so the same master key file (<database>.key).
    assert send_in_child(engine_config(db_path), REAL_NUMBER, REAL_NUMBER) == ["sent", "sent"]
    refused(phoneauth.TooManyRequestsError, lambda: engine.verify_phone_number(REAL_NUMBER),
            "smsPerNumberPerHour", "+*******3434")
    # And the other way round: a new process is refused too.
    [(code, details)] = send_in_child(engine_config(db_path), REAL_NUMBER)
    assert code == "tooManyRequests" and details["limit"] == "smsPerNumberPerHour"
    time.sleep(0.5)
    assert len(sms.matching(to=REAL_NUMBER)) == 3


def test_ip_and_project_limits_hold_across_processes(make_engine, sms, db_path):
    quotas = {"smsPerIpPerHour": 3, "smsPerProjectPerDay": 5}
    engine = make_engine(sender=sms, quotas=quotas)
    a1, a2, b1, b2, b3, c1, c2 = numbers(4000, 7)
    send(engine, sms, a1, client_ip=IP)
    send(engine, sms, a2, client_ip=IP)
    child_config = dict(engine_config(db_path, quotas=quotas), _ip=IP)
    outcomes = send_in_child(child_config, b1, b2)
    assert outcomes[0] == "sent"
    assert outcomes[1][0] == "tooManyRequests" and outcomes[1][1]["limit"] == "smsPerIpPerHour"
    refused(phoneauth.TooManyRequestsError, lambda: engine.verify_phone_number(b3, client_ip=IP),
            "smsPerIpPerHour", IP)
    # The project has sent 3 of its 5.
    assert send_in_child(engine_config(db_path, quotas=quotas), b2) == ["sent"]
    send(engine, sms, b3)
    refused(phoneauth.QuotaExceededError, lambda: engine.verify_phone_number(c1), "smsPerProjectPerDay", "project")
    [(code, details)] = send_in_child(engine_config(db_path, quotas=quotas), c2)
    assert code == "quotaExceeded" and details["limit"] == "smsPerProjectPerDay"


def test_test_numbers_pass_the_send_limits(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers={TEST_NUMBER: TEST_CODE},
                         quotas={"smsPerNumberPerHour": 2, "smsPerIpPerHour": 2, "smsPerProjectPerDay": 2,
                                 "smsPerRegionPerDay": {"US": 2}, "regionBurstPerHour": 2})
    for _ in range(8):
        started = engine.verify_phone_number(TEST_NUMBER, client_ip=IP)
    assert engine.sign_in_with_credential(
        credential=credential_for(engine, started["verificationId"], TEST_CODE))["user"]["phoneNumber"] == TEST_NUMBER
    # Nor do they use up the real numbers' quotas.
    send(engine, sms, REAL_NUMBER, client_ip=IP)
    send(engine, sms, REAL_NUMBER, client_ip=IP)
    refused(phoneauth.TooManyRequestsError, lambda: engine.verify_phone_number(REAL_NUMBER, client_ip=IP),
            "smsPerNumberPerHour", "+*******3434")
    assert sms.matching(to=TEST_NUMBER) == []


# -- clientIp --------------------------------------------------------------------------------------

@pytest.mark.parametrize("ip", ["not-an-ip", "", "1.2.3.256", "1.2.3", "::g", " 192.0.2.1", 5, True])
def test_client_ip_must_be_an_address(engine, ip):
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.verify_phone_number(REAL_NUMBER, client_ip=ip)
    assert info.value.details.get("field") == "clientIp"


@pytest.mark.parametrize("ip", ["192.0.2.1", "2001:db8::7", "::1", "::ffff:192.0.2.1"])
def test_client_ip_takes_ipv4_and_ipv6(engine, sms, ip):
    send(engine, sms, REAL_NUMBER, client_ip=ip)


def test_every_method_taking_client_ip_checks_it(make_engine, sms):
    engine = make_engine(sender=sms, testPhoneNumbers=FIXED_NUMBERS)
    a, b, c, d = sorted(FIXED_NUMBERS)[:4]

    def both(call):
        """call(ip) is refused for a malformed IP, then works with a good one."""
        with pytest.raises(phoneauth.InvalidArgumentError) as info:
            call("not-an-ip")
        assert info.value.details.get("field") == "clientIp"
        return call(IP)

    cred = fixed_credential(engine, a)
    alice = both(lambda ip: engine.sign_in_with_credential(credential=cred, client_ip=ip))
    host = custom_sign_in(engine, "host-1")
    cred = fixed_credential(engine, b)
    linked = both(lambda ip: engine.link_with_credential(host["idToken"], cred, client_ip=ip))
    cred = fixed_credential(engine, c)
    both(lambda ip: engine.update_phone_number(linked["idToken"], cred, client_ip=ip))
    cred = fixed_credential(engine, a)
    alice = both(lambda ip: engine.reauthenticate_with_credential(alice["idToken"], cred, client_ip=ip))
    started = both(lambda ip: engine.mfa_enroll_start(alice["idToken"], d, client_ip=ip))
    cred = credential_for(engine, started["verificationId"], TEST_CODE)
    both(lambda ip: engine.mfa_enroll_finalize(alice["idToken"], credential=cred, client_ip=ip))
    resolver = resolver_of(engine, lambda: engine.sign_in_with_credential(credential=fixed_credential(engine, a)))
    challenge = both(lambda ip: resolver.verify_phone_number(resolver.hints[0], client_ip=ip))
    assertion = phoneauth.PhoneMultiFactorGenerator.assertion(
        credential_for(engine, challenge["verificationId"], TEST_CODE))
    result = both(lambda ip: resolver.resolve_sign_in(assertion, client_ip=ip))
    assert result["user"]["uid"] == alice["user"]["uid"]
