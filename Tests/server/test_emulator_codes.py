"""Development mode lists a code before the call that made it answers: test suites written for
Firebase's emulator read it at once. The engine hands the SMS over on its delivery thread, so
these reads raced it when the cores were busy; they run here with both cores loaded.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import PROJECT, SECOND_NUMBER, TEST_CODE, TEST_NUMBER, start_server

NO_LIMITS = {"quotas": {"smsPerNumberPerHour": 0, "smsPerIpPerHour": 0, "smsPerProjectPerDay": 0}}
SENDS = 40


@pytest.fixture
def busy_cores():
    """Two processes that spin for as long as the test runs: the delivery thread gets no idle core."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    yield
    for spinner in spinners:
        spinner.kill()
        spinner.wait()


@pytest.fixture
def emulator_without_limits(tmp_path):
    server = start_server(tmp_path, engine=NO_LIMITS, server={"emulatorCompat": True})
    yield server
    server.stop()


def codes_of(server, session_info):
    status, body, _ = server.get(f"/emulator/v1/projects/{PROJECT}/verificationCodes?sessionInfo={session_info}")
    assert status == 200, body
    return body["verificationCodes"]


def test_each_code_is_listed_when_its_send_answers(emulator_without_limits, busy_cores):
    server = emulator_without_limits
    for i in range(SENDS):
        number = f"+1650555{3000 + i:04d}"
        status, sent, _ = server.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/sendVerificationCode?key=k",
                                      {"phoneNumber": number})
        assert status == 200, sent
        listed = codes_of(server, sent["sessionInfo"])
        assert [entry["phoneNumber"] for entry in listed] == [number], (i, listed)
    status, everything, _ = server.get(f"/emulator/v1/projects/{PROJECT}/verificationCodes")
    assert status == 200 and len(everything["verificationCodes"]) == SENDS, everything


def test_codes_of_the_own_route_and_second_factors_are_listed_at_once(emulator_without_limits, busy_cores):
    server = emulator_without_limits
    for i in range(SENDS // 4):
        status, started, _ = server.post("/phoneauth/v1/verifyPhoneNumber", {"phoneNumber": f"+1650555{3100 + i:04d}"})
        assert status == 200, started
        assert len(codes_of(server, started["verificationId"])) == 1, (i, started)
    # A second factor's code (mfaEnrollment:start) on a real (non-test) number.
    status, signed, _ = server.post("/identitytoolkit.googleapis.com/v1/accounts:signInWithPhoneNumber?key=k",
                                    {"sessionInfo": sent_session(server, TEST_NUMBER), "code": TEST_CODE})
    assert status == 200, signed
    for i in range(SENDS // 4):
        status, started, _ = server.post("/identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start?key=k",
                                         {"idToken": signed["idToken"],
                                          "phoneEnrollmentInfo": {"phoneNumber": f"+1650555{3200 + i:04d}"}})
        assert status == 200, started
        assert len(codes_of(server, started["phoneSessionInfo"]["sessionInfo"])) == 1, (i, started)


def test_a_test_number_answers_without_waiting_for_a_code(emulator_without_limits):
    """A fictional number owes no SMS: its send answers, and nothing is listed for it."""
    session = sent_session(emulator_without_limits, SECOND_NUMBER)
    assert codes_of(emulator_without_limits, session) == []


def test_a_session_is_found_however_its_query_is_written(emulator_without_limits):
    """The lookup reads the query as a form does: escapes decoded, and a malformed one is no filter."""
    server = emulator_without_limits
    session = sent_session(server, "+16505553301")
    other = sent_session(server, "+16505553302")
    escaped = "".join(f"%{ord(c):02X}" for c in session)
    for query in (f"sessionInfo={session}", f"sessionInfo={escaped}", f"x=1&sessionInfo={session}&y="):
        status, body, _ = server.get(f"/emulator/v1/projects/{PROJECT}/verificationCodes?{query}")
        assert status == 200 and [c["sessionInfo"] for c in body["verificationCodes"]] == [session], (query, body)
    status, body, _ = server.get(f"/emulator/v1/projects/{PROJECT}/verificationCodes?sessionInfo")
    assert status == 200 and [c["sessionInfo"] for c in body["verificationCodes"]] == [session, other], body


def sent_session(server, number):
    status, sent, _ = server.post("/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key=k",
                                  {"phoneNumber": number})
    assert status == 200, sent
    return sent["sessionInfo"]
