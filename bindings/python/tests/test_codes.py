"""SMS codes: format, single use, expiry, wrong codes, attempts, and randomness."""

import base64
import collections
import os
import re
import threading
import time

import pytest

import phoneauth
from support import REAL_NUMBER, TEST_CODE, TEST_NUMBER, credential_for, sign_in_with_code, start


def wrong(code):
    """A code of the same length that differs from `code` in every digit."""
    return "".join(str((int(d) + 1) % 10) for d in code)


@pytest.mark.parametrize("length", [6, 8, 10])
def test_code_is_digits_of_the_configured_length(make_engine, sms, length):
    engine = make_engine(sender=sms, codeLength=length)
    started = engine.verify_phone_number(REAL_NUMBER)
    assert started["codeLength"] == length
    body = sms.wait_for(verification_id=started["verificationId"])["body"]
    runs = re.findall(r"[0-9]+", body)
    codes = [run for run in runs if len(run) == length]
    assert len(codes) == 1, body
    code = codes[0]
    assert body.count(code) == 1
    sign_in_with_code(engine, started["verificationId"], code)


def test_code_is_single_use(make_engine, sms):
    engine = make_engine(sender=sms, signInRetrySeconds=0)
    started, _message, code = start(engine, sms, REAL_NUMBER)
    sign_in_with_code(engine, started["verificationId"], code)
    with pytest.raises(phoneauth.SessionExpiredError) as info:
        sign_in_with_code(engine, started["verificationId"], code)
    assert info.value.details.get("reason") == "alreadyUsed"


def test_a_used_code_presented_again_soon_after_gets_the_same_session(engine, sms):
    """A retry whose first answer was lost: within signInRetrySeconds (default 30) the same
    credential gets the session it opened, the same user, still new; never a second one."""
    started, _message, code = start(engine, sms, REAL_NUMBER)
    first = sign_in_with_code(engine, started["verificationId"], code)
    again = sign_in_with_code(engine, started["verificationId"], code)
    assert again["refreshToken"] == first["refreshToken"]
    assert again["user"]["uid"] == first["user"]["uid"]
    assert again["additionalUserInfo"]["isNewUser"] is True
    # A wrong code against it says only that it is used.
    with pytest.raises(phoneauth.SessionExpiredError) as info:
        sign_in_with_code(engine, started["verificationId"], wrong(code))
    assert info.value.details.get("reason") == "alreadyUsed"


def race(engine_for_thread, cred, threads=4):
    barrier = threading.Barrier(threads)
    outcomes = []

    def attempt(i):
        engine = engine_for_thread(i)
        barrier.wait()
        try:
            outcomes.append(engine.sign_in_with_credential(credential=cred))
        except phoneauth.PhoneAuthError as exc:
            outcomes.append(exc)

    workers = [threading.Thread(target=attempt, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(30)
    return outcomes


def assert_one_session(outcomes, threads):
    """With retries on, every racer gets the one session the code opened."""
    assert len(outcomes) == threads
    assert all(isinstance(o, dict) for o in outcomes), [repr(o) for o in outcomes if not isinstance(o, dict)]
    assert len({o["refreshToken"] for o in outcomes}) == 1, "one code opened several sessions"


def assert_one_winner(outcomes, threads):
    assert len(outcomes) == threads
    wins = [o for o in outcomes if isinstance(o, dict)]
    losses = [o for o in outcomes if not isinstance(o, dict)]
    assert len(wins) == 1, f"{len(wins)} sign-ins succeeded with one code"
    for loss in losses:
        assert isinstance(loss, phoneauth.SessionExpiredError), repr(loss)
        assert loss.details.get("reason") == "alreadyUsed"


def test_threads_racing_with_one_code(engine, sms):
    for i in range(5):
        started, _message, code = start(engine, sms, f"+1650555{6000 + i}")
        cred = credential_for(engine, started["verificationId"], code)
        assert_one_session(race(lambda _: engine, cred), 4)


@pytest.mark.parametrize("retry_seconds", [0, 30])
def test_engines_racing_with_one_code(make_engine, sms, retry_seconds):
    engines = [make_engine(sender=sms if i == 0 else None, signInRetrySeconds=retry_seconds) for i in range(4)]
    for i in range(3):
        started, _message, code = start(engines[0], sms, f"+1650555{6100 + 10 * retry_seconds + i}")
        cred = credential_for(engines[0], started["verificationId"], code)
        outcomes = race(lambda t: engines[t], cred)
        (assert_one_session if retry_seconds else assert_one_winner)(outcomes, 4)


def test_code_expires(make_engine, sms):
    # A test number's code: no SMS that a busy machine could deliver after the second is out (the
    # engine does not send an expired code), so nothing has to happen within the second.
    engine = make_engine(sender=sms, codeTtlSeconds=1, testPhoneNumbers={TEST_NUMBER: TEST_CODE})
    started = engine.verify_phone_number(TEST_NUMBER)
    time.sleep(2.2)
    with pytest.raises(phoneauth.SessionExpiredError) as info:
        sign_in_with_code(engine, started["verificationId"], TEST_CODE)
    assert info.value.details.get("reason") == "expired"
    assert engine.get_verification_status(verification_id=started["verificationId"])["state"] == "expired"


def test_wrong_code(engine, sms):
    started, _message, code = start(engine, sms, REAL_NUMBER)
    with pytest.raises(phoneauth.InvalidVerificationCodeError) as info:
        sign_in_with_code(engine, started["verificationId"], wrong(code))
    assert info.value.details.get("attemptsLeft") == 4  # maxAttempts 5 by default
    assert code not in info.value.message and wrong(code) not in info.value.message
    # A wrong try under the limit does not end the verification.
    assert sign_in_with_code(engine, started["verificationId"], code)["user"]["phoneNumber"] == REAL_NUMBER


def test_too_many_wrong_codes_kill_the_verification(make_engine, sms):
    engine = make_engine(sender=sms, maxAttempts=3)
    started, _message, code = start(engine, sms, REAL_NUMBER)
    left = []
    for _ in range(2):
        with pytest.raises(phoneauth.InvalidVerificationCodeError) as info:
            sign_in_with_code(engine, started["verificationId"], wrong(code))
        left.append(info.value.details.get("attemptsLeft"))
    assert left == [2, 1]
    # The last allowed wrong code: still "wrong code" with no attempts left, or already dead.
    with pytest.raises((phoneauth.InvalidVerificationCodeError, phoneauth.SessionExpiredError)) as info:
        sign_in_with_code(engine, started["verificationId"], wrong(code))
    if isinstance(info.value, phoneauth.InvalidVerificationCodeError):
        assert info.value.details.get("attemptsLeft") == 0
    else:
        assert info.value.details.get("reason") == "tooManyAttempts"
    with pytest.raises(phoneauth.SessionExpiredError) as info:
        sign_in_with_code(engine, started["verificationId"], code)
    assert info.value.details.get("reason") == "tooManyAttempts"
    assert engine.get_verification_status(verification_id=started["verificationId"])["state"] == "dead"


@pytest.mark.parametrize("verification_id", [
    pytest.param(base64.urlsafe_b64encode(os.urandom(24)).decode().rstrip("="), id="well-formed-unknown"),
    "not a verification id!",
    "a",
    "x" * 2000,
    "%00%ff",
])
def test_unknown_or_malformed_verification_id(engine, verification_id):
    cred = {"providerId": "phone", "verificationId": verification_id, "verificationCode": "123456"}
    with pytest.raises(phoneauth.InvalidVerificationIDError):
        engine.sign_in_with_credential(credential=cred)
    with pytest.raises(phoneauth.InvalidVerificationIDError):
        engine.get_verification_status(verification_id=verification_id)


def test_altered_verification_id_is_unknown(engine, sms):
    started, _message, code = start(engine, sms, REAL_NUMBER)
    real = started["verificationId"]
    altered = real[:10] + ("A" if real[10] != "A" else "B") + real[11:]
    with pytest.raises(phoneauth.InvalidVerificationIDError):
        sign_in_with_code(engine, altered, code)


def test_missing_parts_of_a_credential(engine):
    with pytest.raises(phoneauth.MissingVerificationIDError):
        engine.credential(verification_code="123456")
    with pytest.raises(phoneauth.MissingVerificationIDError):
        engine.credential(verification_id="", verification_code="123456")
    with pytest.raises(phoneauth.MissingVerificationCodeError):
        engine.credential(verification_id="abc")
    with pytest.raises(phoneauth.MissingVerificationCodeError):
        engine.credential(verification_id="abc", verification_code="")
    with pytest.raises(phoneauth.MissingVerificationCodeError):
        engine.sign_in_with_credential(credential={"providerId": "phone", "verificationId": "abc"})


def test_codes_look_uniformly_random(engine, sms):
    n = 300
    started = [engine.verify_phone_number(f"+1650555{2000 + i}") for i in range(n)]
    codes = []
    for s in started:
        body = sms.wait_for(verification_id=s["verificationId"])["body"]
        codes.append(re.findall(r"(?<![0-9])[0-9]{6}(?![0-9])", body)[0])
    # 1800 digits, 180 of each expected (sd ~13): a skewed generator falls far outside 100..260.
    digits = collections.Counter("".join(codes))
    assert set(digits) == set("0123456789")
    assert all(100 <= digits[d] <= 260 for d in "0123456789"), digits
    # Every digit shows up in every position, leading zeros included (30 expected per cell).
    for position in range(6):
        assert {c[position] for c in codes} == set("0123456789"), f"position {position}"
    # Repeats: 300 draws out of 10^6 almost never repeat; a weak generator does.
    assert max(collections.Counter(codes).values()) <= 2
