"""TOTP second factors: the secret, enrolment and sign-in with codes computed by pyotp (RFC 6238),
the ±1 step window, replay, and wrong codes."""

import base64
import time
import urllib.parse

import pyotp
import pytest

import phoneauth
from phoneauth import TotpMultiFactorGenerator
from support import FIXED_NUMBERS, custom_sign_in, fixed_credential, resolver_of
from test_tokens import decode

A = "+16505551230"


@pytest.fixture
def engine(make_engine, sms):
    """The usual engine, plus FIXED_NUMBERS."""
    return make_engine(sender=sms, testPhoneNumbers=FIXED_NUMBERS)


def in_one_step(body):
    """Makes body(engine, now) a test run with a fresh engine until a run fails or passes within
    one 30-s step. Its codes are computed for the step it began in, and the engine's clock cannot
    be stopped from here: a run that fails after the step changed under it cannot be judged, and
    runs again (at once, so in a fresh step), instead of hoping a busy machine keeps within the step."""

    def test(make_engine, sms, tmp_path):
        for run in range(3):
            engine = make_engine(database=str(tmp_path / f"run{run}.db"), sender=sms, testPhoneNumbers=FIXED_NUMBERS)
            now = time.time()
            try:
                return body(engine, now)
            except (Exception, pytest.fail.Exception):
                if time.time() // 30 == now // 30:
                    raise
        pytest.fail("three runs in a row straddled a step: the machine is too slow for this test")

    test.__name__, test.__doc__ = body.__name__, body.__doc__
    return test


def enrol_totp(engine, id_token, code_time=None, display_name="app"):
    """Enrols a TOTP factor with the code of code_time (default now); returns (result, TOTP)."""
    started = engine.mfa_totp_start(id_token)
    totp = pyotp.TOTP(started["secretKey"])
    code = totp.at(code_time if code_time is not None else time.time())
    result = engine.mfa_enroll_finalize(id_token, factor_id="totp", session_info=started["sessionInfo"],
                                        verification_code=code, display_name=display_name)
    return result, totp


def wrong_code(totp, now):
    """A code that no step of the window around now has."""
    window = {totp.at(now + d) for d in (-30, 0, 30)}
    return next(c for c in ("000000", "111111", "222222", "333333") if c not in window)


def sign_in_a(engine):
    return engine.sign_in_with_credential(credential=fixed_credential(engine, A))


def test_totp_start_gives_a_160_bit_secret_and_its_uri(engine):
    first = sign_in_a(engine)
    started = engine.mfa_totp_start(first["idToken"])
    assert set(started) == {"sessionInfo", "secretKey", "otpauthUri", "hashingAlgorithm", "codeLength",
                            "period", "enrollmentCompletionDeadline"}
    assert (started["hashingAlgorithm"], started["codeLength"], started["period"]) == ("SHA1", 6, 30)
    assert len(base64.b32decode(started["secretKey"])) == 20
    uri = pyotp.parse_uri(started["otpauthUri"])
    assert uri.secret == started["secretKey"]
    assert (uri.name, uri.issuer, uri.digits, uri.interval) == (A, "phoneauth", 6, 30)  # the defaults
    assert engine.mfa_totp_start(first["idToken"])["secretKey"] != started["secretKey"]
    named = engine.mfa_totp_start(first["idToken"], account_name="ann@example.com", issuer="Acme Inc")
    uri = pyotp.parse_uri(named["otpauthUri"])
    assert (uri.name, uri.issuer) == ("ann@example.com", "Acme Inc")
    assert urllib.parse.urlparse(named["otpauthUri"]).scheme == "otpauth"
    # A user without a phone number is named by uid.
    host = custom_sign_in(engine, "host-1")
    assert pyotp.parse_uri(engine.mfa_totp_start(host["idToken"])["otpauthUri"]).name == "host-1"


@in_one_step
def test_totp_enrol_and_sign_in(engine, now):
    first = sign_in_a(engine)
    enrolled, totp = enrol_totp(engine, first["idToken"], code_time=now - 30)  # previous step: accepted
    [factor] = enrolled["user"]["multiFactor"]["enrolledFactors"]
    assert set(factor) == {"uid", "factorId", "displayName", "enrollmentTime"}  # no phoneNumber
    assert (factor["factorId"], factor["displayName"]) == ("totp", "app")
    claims = decode(engine, enrolled["idToken"])
    assert claims["firebase"]["sign_in_second_factor"] == "totp"
    assert claims["firebase"]["second_factor_identifier"] == factor["uid"]

    resolver = resolver_of(engine, lambda: sign_in_a(engine))
    assert resolver.hints == [{"uid": factor["uid"], "factorId": "totp", "displayName": "app",
                               "enrollmentTime": factor["enrollmentTime"]}]
    result = resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(factor["uid"], totp.at(now)))
    assert result["user"]["uid"] == first["user"]["uid"]
    assert result["additionalUserInfo"] == {"isNewUser": False, "providerId": "phone"}
    claims = decode(engine, result["idToken"])
    assert claims["firebase"]["sign_in_second_factor"] == "totp"
    assert claims["firebase"]["second_factor_identifier"] == factor["uid"]
    with pytest.raises(phoneauth.InvalidMultiFactorSessionError):  # single use
        resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(factor["uid"], totp.at(now + 30)))


@in_one_step
def test_totp_window_and_replay(engine, now):
    first = sign_in_a(engine)
    enrolled, totp = enrol_totp(engine, first["idToken"], code_time=now)
    uid = enrolled["user"]["multiFactor"]["enrolledFactors"][0]["uid"]

    def attempt(resolver, at):
        return resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(uid, totp.at(at)))

    # The code accepted at enrolment is not accepted again, even in a new session.
    resolver = resolver_of(engine, lambda: sign_in_a(engine))
    with pytest.raises(phoneauth.InvalidVerificationCodeError) as info:
        attempt(resolver, now)
    assert info.value.details["attemptsLeft"] == 4
    # Two steps ahead is outside the window; one step ahead is inside.
    with pytest.raises(phoneauth.InvalidVerificationCodeError) as info:
        attempt(resolver, now + 60)
    assert info.value.details["attemptsLeft"] == 3
    assert attempt(resolver, now + 30)["user"]["uid"] == first["user"]["uid"]
    # ...and that code, once used, is refused in the next session.
    with pytest.raises(phoneauth.InvalidVerificationCodeError):
        attempt(resolver_of(engine, lambda: sign_in_a(engine)), now + 30)


@in_one_step
def test_code_two_steps_old_is_refused_at_enrolment(engine, now):
    first = sign_in_a(engine)
    started = engine.mfa_totp_start(first["idToken"])
    totp = pyotp.TOTP(started["secretKey"])
    for at in (now - 60, now + 60):
        with pytest.raises(phoneauth.InvalidVerificationCodeError):
            engine.mfa_enroll_finalize(first["idToken"], factor_id="totp", session_info=started["sessionInfo"],
                                       verification_code=totp.at(at))
    engine.mfa_enroll_finalize(first["idToken"], factor_id="totp", session_info=started["sessionInfo"],
                               verification_code=totp.at(now + 30))


@in_one_step
def test_five_wrong_codes_kill_the_enrolment_session(engine, now):
    first = sign_in_a(engine)
    started = engine.mfa_totp_start(first["idToken"])
    totp = pyotp.TOTP(started["secretKey"])

    def finalize(code):
        return engine.mfa_enroll_finalize(first["idToken"], factor_id="totp",
                                          session_info=started["sessionInfo"], verification_code=code)

    left = []
    for _ in range(5):
        with pytest.raises(phoneauth.InvalidVerificationCodeError) as info:
            finalize(wrong_code(totp, now))
        left.append(info.value.details["attemptsLeft"])
    assert left == [4, 3, 2, 1, 0]
    with pytest.raises(phoneauth.InvalidMultiFactorSessionError):
        finalize(totp.at(now))
    assert engine.get_user(uid=first["user"]["uid"])["user"]["multiFactor"] == {"enrolledFactors": []}


@in_one_step
def test_five_wrong_codes_kill_the_sign_in_session(engine, now):
    first = sign_in_a(engine)
    enrolled, totp = enrol_totp(engine, first["idToken"], code_time=now - 30)
    uid = enrolled["user"]["multiFactor"]["enrolledFactors"][0]["uid"]
    wrong = wrong_code(totp, now)
    resolver = resolver_of(engine, lambda: sign_in_a(engine))
    left = []
    for _ in range(5):
        with pytest.raises(phoneauth.InvalidVerificationCodeError) as info:
            resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(uid, wrong))
        left.append(info.value.details["attemptsLeft"])
    assert left == [4, 3, 2, 1, 0]
    with pytest.raises(phoneauth.InvalidMultiFactorSessionError):
        resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(uid, totp.at(now)))
    # A new challenge does not buy new guesses: five wrong codes in a row lock the factor itself.
    resolver = resolver_of(engine, lambda: sign_in_a(engine))
    with pytest.raises(phoneauth.TooManyRequestsError) as info:
        resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(uid, totp.at(now)))
    assert info.value.details["reason"] == "factorLocked"
    assert 1 <= info.value.details["retryAfterSeconds"] <= 300


@in_one_step
def test_enrolment_session_is_single_use_and_the_users_own(engine, now):
    alice = sign_in_a(engine)
    bob = custom_sign_in(engine, "bob")
    started = engine.mfa_totp_start(alice["idToken"])
    totp = pyotp.TOTP(started["secretKey"])
    with pytest.raises(phoneauth.InvalidMultiFactorSessionError):
        engine.mfa_enroll_finalize(bob["idToken"], factor_id="totp", session_info=started["sessionInfo"],
                                   verification_code=totp.at(now))
    with pytest.raises(phoneauth.InvalidMultiFactorSessionError):
        engine.mfa_enroll_finalize(alice["idToken"], factor_id="totp", session_info="no-such-session",
                                   verification_code=totp.at(now))
    with pytest.raises(phoneauth.MissingVerificationCodeError):
        engine.mfa_enroll_finalize(alice["idToken"], factor_id="totp", session_info=started["sessionInfo"])
    engine.mfa_enroll_finalize(alice["idToken"], factor_id="totp", session_info=started["sessionInfo"],
                               verification_code=totp.at(now))
    with pytest.raises(phoneauth.InvalidMultiFactorSessionError):
        engine.mfa_enroll_finalize(alice["idToken"], factor_id="totp", session_info=started["sessionInfo"],
                                   verification_code=totp.at(now + 30))
    assert engine.get_user(uid="bob")["user"]["multiFactor"] == {"enrolledFactors": []}


def test_a_totp_hint_gets_no_sms(engine, sms):
    first = sign_in_a(engine)
    enrolled, _totp = enrol_totp(engine, first["idToken"])
    resolver = resolver_of(engine, lambda: sign_in_a(engine))
    with pytest.raises(phoneauth.MultiFactorInfoNotFoundError):
        resolver.verify_phone_number(enrolled["user"]["multiFactor"]["enrolledFactors"][0])
    assert sms.messages == []


@in_one_step
def test_unenrolled_totp_factor_is_gone(engine, now):
    first = sign_in_a(engine)
    enrolled, totp = enrol_totp(engine, first["idToken"], code_time=now - 30)
    uid = enrolled["user"]["multiFactor"]["enrolledFactors"][0]["uid"]
    resolver = resolver_of(engine, lambda: sign_in_a(engine))  # a session from before the removal
    engine.mfa_unenroll(enrolled["idToken"], uid)
    with pytest.raises(phoneauth.MultiFactorInfoNotFoundError):
        resolver.resolve_sign_in(TotpMultiFactorGenerator.assertion_for_sign_in(uid, totp.at(now)))
    assert "sign_in_second_factor" not in decode(engine, sign_in_a(engine)["idToken"])["firebase"]
