"""beforeCreate and beforeSignIn over HTTP, as Firebase calls blocking functions: against loopback
functions that verify each signed event with the engine's JWKS. What updateMask names is stored,
session claims go into the ID token only; a 403 refuses and leaves no user; a function slower than
timeoutMs follows onError; two concurrent first sign-ins of one number held in a slow beforeCreate
make one user."""

from __future__ import annotations

import threading

import pytest

import phoneauth
from sms_servers import Answer
from support import FIXED_NUMBERS, fixed_credential
from test_hooks import ISSUER, PROJECT, Function
from test_tokens import decode

A, B = "+16505551230", "+16505551231"


class Functions(dict):
    """The functions of one test by hook name; open() opens an engine whose hooks they are."""

    def __init__(self, make_engine, sms):
        super().__init__()
        self.make_engine, self.sms = make_engine, sms

    def open(self, hooks):
        """An engine with FIXED_NUMBERS whose hooks {name: settings} are functions[name]."""
        holder = {}
        for name in hooks:
            self[name] = Function(lambda: holder["engine"], name)
        holder["engine"] = self.make_engine(
            sender=self.sms, testPhoneNumbers=FIXED_NUMBERS, projectId=PROJECT, issuer=ISSUER,
            hooks={name: {"url": self[name].url, **settings} for name, settings in hooks.items()})
        return holder["engine"]


@pytest.fixture
def functions(make_engine, sms):
    made = Functions(make_engine, sms)
    yield made
    for function in made.values():
        function.server.close()
    assert [f.problems for f in made.values()] == [[]] * len(made)  # every request verified


def sign_in(engine, number, **kwargs):
    return engine.sign_in_with_credential(credential=fixed_credential(engine, number), **kwargs)


def users(engine):
    return engine.list_users(max_results=100)["users"]


def test_before_create_gets_a_jwt_the_engines_keys_verify(functions):
    engine = functions.open({"beforeCreate": {}})
    signed = sign_in(engine, A, client_ip="198.51.100.7")
    [payload] = functions["beforeCreate"].payloads
    assert payload["aud"] == functions["beforeCreate"].url and payload["iss"] == ISSUER
    assert payload["exp"] == payload["iat"] + 300
    assert payload["event_type"] == "beforeCreate" and payload["sign_in_method"] == "phone"
    assert payload["ip_address"] == "198.51.100.7" and payload["event_id"]
    assert payload["user_record"]["phone_number"] == A
    assert payload["sub"] == payload["user_record"]["uid"] == signed["user"]["uid"]
    assert signed["additionalUserInfo"]["isNewUser"] is True


def test_update_mask_is_honoured_over_http(functions):
    engine = functions.open({"beforeCreate": {}, "beforeSignIn": {}})
    functions["beforeCreate"].answer = Answer(200, {"userRecord": {
        "updateMask": "displayName,customClaims", "displayName": "Ada", "customClaims": {"tier": "gold"},
        "disabled": True}})  # not named in updateMask: ignored
    functions["beforeSignIn"].answer = Answer(200, {"userRecord": {
        "updateMask": "sessionClaims", "sessionClaims": {"device": "kiosk"}}})
    signed = sign_in(engine, A)
    [created], [signing] = functions["beforeCreate"].payloads, functions["beforeSignIn"].payloads
    assert signing["event_type"] == "beforeSignIn" and signing["sub"] == created["sub"] == signed["user"]["uid"]
    assert signing["user_record"]["display_name"] == "Ada"  # it sees what beforeCreate set
    claims = decode(engine, signed["idToken"], audience=PROJECT, issuer=ISSUER)
    assert claims["tier"] == "gold" and claims["device"] == "kiosk"
    stored = engine.get_user(signed["user"]["uid"])["user"]
    assert stored["displayName"] == "Ada" and stored["disabled"] is False
    assert stored["customClaims"] == {"tier": "gold"}  # the session claim is not stored


def test_a_403_refuses_with_the_functions_message_and_creates_no_user(functions):
    engine = functions.open({"beforeCreate": {}})
    functions["beforeCreate"].answer = Answer(403, {"error": {"status": "PERMISSION_DENIED",
                                                           "message": "Sign-up is by invitation."}})
    with pytest.raises(phoneauth.BlockingFunctionError) as info:
        sign_in(engine, B)
    assert info.value.message == "Sign-up is by invitation."
    assert info.value.details == {"hook": "beforeCreate", "reason": "refused", "status": "PERMISSION_DENIED"}
    assert len(functions["beforeCreate"].payloads) == 1
    assert users(engine) == []
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user_by_phone_number(B)


@pytest.mark.parametrize("on_error", ["deny", "allow"])
def test_a_function_slower_than_its_deadline_follows_on_error(functions, on_error):
    engine = functions.open({"beforeCreate": {"timeoutMs": 200, "onError": on_error}})
    release = threading.Event()
    functions["beforeCreate"].answer = Answer(200, {"userRecord": {"updateMask": "displayName", "displayName": "Too late"}},
                                           hold=release)  # answers only once the test lets it
    try:
        if on_error == "deny":
            with pytest.raises(phoneauth.BlockingFunctionError) as info:
                sign_in(engine, A)
            assert info.value.details == {"hook": "beforeCreate", "reason": "hookFailed"}
            assert users(engine) == []
        else:
            signed = sign_in(engine, A)  # as if it had answered {}
            assert signed["additionalUserInfo"]["isNewUser"] is True
            assert engine.get_user(signed["user"]["uid"])["user"]["displayName"] is None
        assert functions["beforeCreate"].server.count() == 1  # it was asked, and given up on
    finally:
        release.set()


def test_two_concurrent_first_sign_ins_held_in_a_slow_before_create_make_one_user(functions):
    engine = functions.open({"beforeCreate": {}})
    function = functions["beforeCreate"]
    release = threading.Event()
    function.answer = Answer(200, {}, hold=release)
    results, errors = [], []

    def run(cred):
        try:
            results.append(engine.sign_in_with_credential(credential=cred))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(fixed_credential(engine, A),))]
    try:
        threads[0].start()
        function.server.wait_for_requests(1)  # the first sign-in's beforeCreate is held
        # Tired of waiting, the user asks for a new code and signs in with it.
        threads.append(threading.Thread(target=run, args=(fixed_credential(engine, A),)))
        threads[1].start()
        function.server.wait_for_requests(2)
    finally:
        release.set()
        for thread in threads:
            thread.join(60)
    assert errors == []
    assert len(function.payloads) == 2 and function.payloads[0]["sub"] != function.payloads[1]["sub"]
    [only] = users(engine)
    assert [r["user"]["uid"] for r in results] == [only["uid"]] * 2
    assert sorted(r["additionalUserInfo"]["isNewUser"] for r in results) == [False, True]
