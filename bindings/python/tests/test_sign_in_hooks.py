"""beforeCreate and beforeSignIn, in process: they run after the credential is checked (and spent)
and before anything else is written; a refusal leaves no user and the code spent; what their
updateMask names is stored, session claims go into that session's ID tokens only; two concurrent
first sign-ins of one number make one user, never two."""

from __future__ import annotations

import threading

import pytest

import phoneauth
from support import FIXED_NUMBERS, Events, custom_sign_in, enrol_fixed, fixed_credential, resolve_fixed, resolver_of, wait_until
from test_hooks import Recorder
from test_tokens import decode

A, B, C, D = "+16505551230", "+16505551231", "+16505551232", "+16505551233"


@pytest.fixture
def engine(make_engine, sms):
    return make_engine(sender=sms, testPhoneNumbers=FIXED_NUMBERS)


def sign_in(engine, number):
    return engine.sign_in_with_credential(credential=fixed_credential(engine, number))


def users(engine):
    return engine.list_users(max_results=100)["users"]


def user(engine, uid):
    return engine.get_user(uid)["user"]


def test_before_create_refuses_numbers_outside_an_allow_list(engine):
    def invited_only(event):
        if event["user_record"]["phone_number"] != A:
            return {"error": {"status": "PERMISSION_DENIED", "message": "Sign-up is by invitation."}}
        return {}

    hook = Recorder(invited_only)
    engine.set_hook("beforeCreate", hook)
    cred = fixed_credential(engine, B)
    with pytest.raises(phoneauth.BlockingFunctionError) as info:
        engine.sign_in_with_credential(credential=cred)
    assert info.value.message == "Sign-up is by invitation."
    assert info.value.details == {"hook": "beforeCreate", "reason": "refused", "status": "PERMISSION_DENIED"}
    assert users(engine) == []
    with pytest.raises(phoneauth.UserNotFoundError):
        engine.get_user_by_phone_number(B)
    # The code was right and is spent, as in Firebase: the same credential again is refused.
    with pytest.raises(phoneauth.SessionExpiredError) as again:
        engine.sign_in_with_credential(credential=cred)
    assert again.value.details["reason"] == "alreadyUsed"

    [event] = hook.events
    assert event["event_type"] == "beforeCreate" and event["sign_in_method"] == "phone"
    record = event["user_record"]
    assert event["sub"] == record["uid"] and len(record["uid"]) == 28
    assert record["phone_number"] == B and record["disabled"] is False
    assert record["provider_data"] == [{"uid": B, "provider_id": "phone", "phone_number": B}]

    signed = sign_in(engine, A)
    assert signed["additionalUserInfo"]["isNewUser"] is True
    assert [u["uid"] for u in users(engine)] == [signed["user"]["uid"]]
    assert hook.events[-1]["user_record"]["uid"] == signed["user"]["uid"]  # the uid the hook saw is the user's


def test_before_create_runs_for_new_users_only_and_before_sign_in_after_it(engine):
    order = []
    engine.set_hook("beforeCreate", Recorder(lambda e: order.append(("create", e["sub"])) or {}))
    engine.set_hook("beforeSignIn", Recorder(lambda e: order.append(("signIn", e["sub"])) or {}))
    uid = sign_in(engine, A)["user"]["uid"]
    assert order == [("create", uid), ("signIn", uid)]
    sign_in(engine, A)
    assert order[2:] == [("signIn", uid)]
    custom_sign_in(engine, "custom-user")  # custom-token sign-ins are not judged by hooks
    assert len(order) == 3


def test_before_sign_in_adds_session_claims_and_stores_custom_claims(engine):
    answer = {"userRecord": {"updateMask": "customClaims,sessionClaims",
                             "customClaims": {"role": "admin", "plan": "gold"},
                             "sessionClaims": {"plan": "trial", "device": "kiosk"},
                             "displayName": "not in the mask"}}
    engine.set_hook("beforeSignIn", Recorder(answer))
    signed = sign_in(engine, A)
    claims = decode(engine, signed["idToken"])
    assert claims["role"] == "admin" and claims["device"] == "kiosk"
    assert claims["plan"] == "trial"  # a session claim wins over the custom claim of its name
    stored = user(engine, signed["user"]["uid"])
    assert stored["customClaims"] == {"role": "admin", "plan": "gold"}  # stored; the session's are not
    assert stored["displayName"] is None  # not named in updateMask: ignored
    refreshed = engine.refresh_id_token(signed["refreshToken"])
    assert decode(engine, refreshed["idToken"])["device"] == "kiosk"  # the session keeps them

    engine.set_hook("beforeSignIn", None)
    later = decode(engine, sign_in(engine, A)["idToken"])
    assert later["plan"] == "gold" and "device" not in later  # another session: only the stored claims


def test_before_create_sets_fields_and_a_disabled_user_cannot_sign_in(engine):
    engine.set_hook("beforeCreate", Recorder({"userRecord": {
        "updateMask": "displayName,disabled", "displayName": "Pending review", "disabled": True}}))
    with pytest.raises(phoneauth.UserDisabledError):
        sign_in(engine, A)
    [user] = users(engine)
    assert user["displayName"] == "Pending review" and user["disabled"] is True


def test_before_sign_in_sees_what_before_create_set(engine):
    engine.set_hook("beforeCreate", Recorder({"userRecord": {
        "updateMask": "displayName,customClaims", "displayName": "Ada", "customClaims": {"tier": 1}}}))
    seen = Recorder()
    engine.set_hook("beforeSignIn", seen)
    signed = sign_in(engine, A)
    record = seen.events[0]["user_record"]
    assert record["display_name"] == "Ada" and record["custom_claims"] == {"tier": 1}
    assert signed["user"]["displayName"] == "Ada" and decode(engine, signed["idToken"])["tier"] == 1


@pytest.mark.parametrize("answer,why", [
    ({"userRecord": {"updateMask": "photoURL", "photoURL": "https://x.example/p.png"}}, "photoURL"),
    ({"userRecord": {"updateMask": "sessionClaims", "sessionClaims": {"a": 1}}}, "beforeCreate cannot change"),
    ({"userRecord": {"updateMask": "customClaims", "customClaims": {"iss": "me"}}}, "reserved"),
    ({"userRecord": {"updateMask": "customClaims", "customClaims": {"big": "x" * 1001}}}, "1000 bytes"),
    ({"userRecord": {"updateMask": "disabled", "disabled": "yes"}}, "wrong type"),
    ({"userRecord": {"displayName": "no mask"}}, "updateMask"),
    (RuntimeError("boom"), "failed or did not answer"),
    ("not an object", "failed or did not answer"),
])
def test_a_hook_that_fails_follows_on_error(make_engine, sms, answer, why):
    for on_error in ("deny", "allow"):
        engine = make_engine(sender=sms, testPhoneNumbers=FIXED_NUMBERS, hooks={"beforeCreate": {"onError": on_error}})
        engine.set_hook("beforeCreate", Recorder(answer))
        if on_error == "deny":
            with pytest.raises(phoneauth.BlockingFunctionError) as info:
                sign_in(engine, A)
            assert info.value.details == {"hook": "beforeCreate", "reason": "hookFailed"}
            assert why in str(info.value)
            assert users(engine) == []
        else:
            signed = sign_in(engine, A)  # as if it had answered {}: nothing of its answer applies
            assert signed["user"].get("displayName") is None and not signed["user"].get("disabled")
            assert user(engine, signed["user"]["uid"])["customClaims"] is None


def test_the_same_credential_soon_after_resumes_without_asking_the_hooks_again(engine):
    hook = Recorder({"userRecord": {"updateMask": "sessionClaims", "sessionClaims": {"s": 1}}})
    engine.set_hook("beforeSignIn", hook)
    cred = fixed_credential(engine, A)
    first = engine.sign_in_with_credential(credential=cred)
    again = engine.sign_in_with_credential(credential=cred)  # a retry whose first answer was lost
    assert again["refreshToken"] == first["refreshToken"] and decode(engine, again["idToken"])["s"] == 1
    assert len(hook.events) == 1


def test_before_sign_in_runs_after_the_second_factor(engine):
    host = sign_in(engine, A)
    enrol_fixed(engine, host["idToken"], B)
    hook = Recorder({"userRecord": {"updateMask": "sessionClaims", "sessionClaims": {"mfa": True}}})
    engine.set_hook("beforeSignIn", hook)
    resolver = resolver_of(engine, lambda: sign_in(engine, A))
    assert hook.events == []  # the first factor alone signs no one in
    result = resolve_fixed(engine, resolver, resolver.hints[0])
    [event] = hook.events
    assert event["sign_in_second_factor"] == "phone" and event["sub"] == host["user"]["uid"]
    assert decode(engine, result["idToken"])["mfa"] is True

    hook.answer = {"error": {"message": "Not from this device."}}
    resolver = resolver_of(engine, lambda: sign_in(engine, A))
    with pytest.raises(phoneauth.BlockingFunctionError, match="Not from this device."):
        resolve_fixed(engine, resolver, resolver.hints[0])


def test_before_sign_in_judges_a_number_linked_or_changed(engine):
    host = custom_sign_in(engine, "host")
    hook = Recorder({"error": {"message": "No number changes today."}})
    engine.set_hook("beforeSignIn", hook)
    with pytest.raises(phoneauth.BlockingFunctionError, match="No number changes today."):
        engine.link_with_credential(host["idToken"], fixed_credential(engine, A))
    assert user(engine, "host")["phoneNumber"] is None  # refused: nothing linked
    assert hook.events[0]["user_record"]["phone_number"] == A  # it saw the user as the link would leave it

    hook.answer = {"userRecord": {"updateMask": "displayName", "displayName": "Linked"}}
    linked = engine.link_with_credential(host["idToken"], fixed_credential(engine, A))
    assert linked["user"]["phoneNumber"] == A and linked["user"]["displayName"] == "Linked"

    hook.answer = {"error": {"message": "No number changes today."}}
    with pytest.raises(phoneauth.BlockingFunctionError):
        engine.update_phone_number(linked["idToken"], fixed_credential(engine, C))
    assert user(engine, "host")["phoneNumber"] == A
    hook.answer = {}
    changed = engine.update_phone_number(linked["idToken"], fixed_credential(engine, C))
    assert changed["user"]["phoneNumber"] == C and user(engine, "host")["phoneNumber"] == C


def test_two_concurrent_first_sign_ins_of_one_number_make_one_user(engine):
    # The user, tired of waiting for a slow hook, asks for a new code and signs in with it
    # while the first sign-in's beforeCreate still runs: both hooks run at once, with no
    # transaction open; the first to finish writes the user, the other signs in to it.
    both_inside = threading.Barrier(2, timeout=30)
    creates = Recorder(lambda event: (both_inside.wait(), {})[1])
    signs = Recorder()
    engine.set_hook("beforeCreate", creates)
    engine.set_hook("beforeSignIn", signs)
    results, errors = [], []

    def run(cred):
        try:
            results.append(engine.sign_in_with_credential(credential=cred))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    first = threading.Thread(target=run, args=(fixed_credential(engine, A),))
    first.start()
    wait_until(lambda: creates.events, what="the first beforeCreate")
    second = threading.Thread(target=run, args=(fixed_credential(engine, A),))
    second.start()
    for t in (first, second):
        t.join(60)
    assert errors == []
    assert len(creates.events) == 2 and creates.events[0]["sub"] != creates.events[1]["sub"]
    [only] = users(engine)
    assert {r["user"]["uid"] for r in results} == {only["uid"]}
    assert sorted(r["additionalUserInfo"]["isNewUser"] for r in results) == [False, True]
    # The loser's beforeSignIn judged again, now the user it actually signs in to.
    assert [e["sub"] for e in signs.events].count(only["uid"]) == 2 and len(signs.events) == 3


def test_a_user_created_while_the_hooks_ran_is_the_one_signed_in(engine):
    created = []

    def admin_creates_the_number_meanwhile(event):
        if not created:
            created.append(engine.create_user(uid="made-by-admin", phone_number=A))
        return {}

    engine.set_hook("beforeCreate", Recorder(admin_creates_the_number_meanwhile))
    signs = Recorder()
    engine.set_hook("beforeSignIn", signs)
    signed = sign_in(engine, A)
    assert signed["user"]["uid"] == "made-by-admin" and signed["additionalUserInfo"]["isNewUser"] is False
    assert [u["uid"] for u in users(engine)] == ["made-by-admin"]
    assert signs.events[-1]["sub"] == "made-by-admin"


def test_hooks_are_set_and_removed_by_name(engine):
    for name in ("beforeCreate", "beforeSignIn"):
        engine.set_hook(name, Recorder({"error": {"message": f"{name} says no"}}))
        with pytest.raises(phoneauth.BlockingFunctionError, match=f"{name} says no"):
            sign_in(engine, D)
        engine.set_hook(name, None)
    assert sign_in(engine, D)["user"]["phoneNumber"] == D



def test_a_temporary_proof_signs_in_no_one_but_its_owner_even_when_the_number_moves_meanwhile(engine):
    owner = sign_in(engine, A)["user"]["uid"]
    host = custom_sign_in(engine, "host")
    with pytest.raises(phoneauth.CredentialAlreadyInUseError) as info:
        engine.link_with_credential(host["idToken"], fixed_credential(engine, A))
    proof = info.value.details["temporaryProof"]

    def number_moves(event):  # while the hook runs, the owner gives the number up and "other" takes it
        engine.update_user(owner, phone_number=None)
        engine.create_user(uid="other", phone_number=A)
        return {}

    engine.set_hook("beforeSignIn", Recorder(number_moves))
    with pytest.raises(phoneauth.InvalidCredentialError) as refused:  # as without hooks
        engine.sign_in_with_credential(credential={"temporaryProof": proof})
    assert refused.value.details.get("reason") == "ownerChanged", refused.value
    assert user(engine, "other")["metadata"].get("lastSignInTime") is None  # not signed in to the number's new user


def test_a_user_disabled_while_the_hooks_ran_stays_disabled(engine):
    uid = sign_in(engine, A)["user"]["uid"]

    def admin_disables_meanwhile(event):
        engine.update_user(uid, disabled=True)
        return {"userRecord": {"updateMask": "disabled,customClaims", "disabled": False, "customClaims": {"x": 1}}}

    engine.set_hook("beforeSignIn", Recorder(admin_disables_meanwhile))
    with pytest.raises(phoneauth.UserDisabledError):
        sign_in(engine, A)
    stored = user(engine, uid)
    assert stored["disabled"] is True and stored["customClaims"] is None  # nothing of the verdict was written


def test_a_hook_that_disables_an_existing_user_changes_only_that(engine):
    uid = sign_in(engine, A)["user"]["uid"]
    engine.set_hook("beforeSignIn", Recorder({"userRecord": {
        "updateMask": "disabled,displayName", "disabled": True, "displayName": "Banned"}}))
    with pytest.raises(phoneauth.UserDisabledError):
        sign_in(engine, A)
    stored = user(engine, uid)
    assert stored["disabled"] is True and stored["displayName"] is None


def test_a_number_taken_while_the_hooks_ran_gives_the_link_a_temporary_proof(engine):
    host = custom_sign_in(engine, "host")

    def someone_takes_it_meanwhile(event):
        engine.create_user(uid="taker", phone_number=A)
        return {}

    engine.set_hook("beforeSignIn", Recorder(someone_takes_it_meanwhile))
    with pytest.raises(phoneauth.CredentialAlreadyInUseError) as info:
        engine.link_with_credential(host["idToken"], fixed_credential(engine, A))
    assert info.value.details["phoneNumber"] == A
    engine.set_hook("beforeSignIn", None)
    signed = engine.sign_in_with_credential(credential={"temporaryProof": info.value.details["temporaryProof"]})
    assert signed["user"]["uid"] == "taker" and user(engine, "host")["phoneNumber"] is None


def test_a_second_factor_enrolled_while_the_hooks_ran_is_asked_for_first(engine):
    signed = sign_in(engine, A)
    calls = []

    def enrol_meanwhile(event):
        if not calls:
            enrol_fixed(engine, signed["idToken"], B)
        calls.append(event)
        return {"userRecord": {"updateMask": "displayName", "displayName": "judged"}}

    engine.set_hook("beforeSignIn", Recorder(enrol_meanwhile))
    cred = fixed_credential(engine, A)
    resolver = resolver_of(engine, lambda: engine.sign_in_with_credential(credential=cred))
    assert user(engine, signed["user"]["uid"])["displayName"] is None  # the verdict waits for the factor
    again = resolver_of(engine, lambda: engine.sign_in_with_credential(credential=cred))  # a retry: that challenge
    assert again.session == resolver.session
    resolve_fixed(engine, resolver, resolver.hints[0])
    assert len(calls) == 2 and calls[1]["sign_in_second_factor"] == "phone"
    assert user(engine, signed["user"]["uid"])["displayName"] == "judged"


def test_reauthentication_is_judged_by_before_sign_in(engine):
    signed = sign_in(engine, A)
    hook = Recorder({"error": {"message": "Not now."}})
    engine.set_hook("beforeSignIn", hook)
    with pytest.raises(phoneauth.BlockingFunctionError, match="Not now."):
        engine.reauthenticate_with_credential(signed["idToken"], fixed_credential(engine, A))
    hook.answer = {"userRecord": {"updateMask": "sessionClaims", "sessionClaims": {"again": True}}}
    again = engine.reauthenticate_with_credential(signed["idToken"], fixed_credential(engine, A))
    assert decode(engine, again["idToken"])["again"] is True


def test_a_continued_session_keeps_its_claims_unless_the_hook_names_them(engine):
    host = custom_sign_in(engine, "host")
    engine.set_hook("beforeSignIn", Recorder({"userRecord": {"updateMask": "sessionClaims",
                                                             "sessionClaims": {"kiosk": True}}}))
    linked = engine.link_with_credential(host["idToken"], fixed_credential(engine, A))
    assert decode(engine, linked["idToken"])["kiosk"] is True
    engine.set_hook("beforeSignIn", Recorder({}))  # names nothing: the session's claims stay
    changed = engine.update_phone_number(linked["idToken"], fixed_credential(engine, B))
    assert decode(engine, changed["idToken"])["kiosk"] is True
    engine.set_hook("beforeSignIn", Recorder({"userRecord": {"updateMask": "sessionClaims", "sessionClaims": None}}))
    cleared = engine.update_phone_number(changed["idToken"], fixed_credential(engine, C))
    assert "kiosk" not in decode(engine, cleared["idToken"])


def test_only_before_create_leaves_an_existing_users_sign_in_one_transaction(engine):
    # The delivery thread's own transactions (the look at the store that setting the sender asked
    # for) must be over before counting: two SMS, each told once recorded, come after that look.
    events = Events()
    engine.set_log_sink(events)
    for count, number in enumerate(("+16505557001", "+16505557002"), start=1):
        engine.verify_phone_number(number)
        events.wait_for("codeSent", count=count)
    sign_in(engine, A)
    engine.set_hook("beforeCreate", Recorder())
    cred = fixed_credential(engine, A)
    before = engine.get_storage_statistics()["transactions"]
    engine.sign_in_with_credential(credential=cred)
    assert engine.get_storage_statistics()["transactions"] - before == 1
    engine.set_hook("beforeSignIn", Recorder())
    cred = fixed_credential(engine, A)
    before = engine.get_storage_statistics()["transactions"]
    engine.sign_in_with_credential(credential=cred)
    assert engine.get_storage_statistics()["transactions"] - before == 2  # judged: two, none open meanwhile


def test_a_reauthentication_with_second_factors_is_judged_after_the_factor_only(engine):
    signed = sign_in(engine, A)
    enrolled = enrol_fixed(engine, signed["idToken"], B)
    hook = Recorder()
    engine.set_hook("beforeSignIn", hook)
    resolver = resolver_of(engine, lambda: engine.reauthenticate_with_credential(
        enrolled["idToken"], fixed_credential(engine, A)))
    assert hook.events == []
    resolve_fixed(engine, resolver, resolver.hints[0])
    [event] = hook.events
    assert event["sign_in_second_factor"] == "phone"


def test_what_was_proved_must_still_be_the_users_when_the_session_opens(engine):
    signed = sign_in(engine, A)

    def number_unlinked_meanwhile(event):
        engine.update_user(signed["user"]["uid"], phone_number=None)
        return {}

    engine.set_hook("beforeSignIn", Recorder(number_unlinked_meanwhile))
    with pytest.raises(phoneauth.UserMismatchError):
        engine.reauthenticate_with_credential(signed["idToken"], fixed_credential(engine, A))

    engine.set_hook("beforeSignIn", None)
    other = sign_in(engine, C)
    enrolled = enrol_fixed(engine, other["idToken"], D)
    factor = enrolled["user"]["multiFactor"]["enrolledFactors"][0]["uid"]

    def factor_removed_meanwhile(event):
        engine.mfa_unenroll(enrolled["idToken"], factor)
        return {}

    resolver = resolver_of(engine, lambda: sign_in(engine, C))
    engine.set_hook("beforeSignIn", Recorder(factor_removed_meanwhile))
    with pytest.raises(phoneauth.MultiFactorInfoNotFoundError):
        resolve_fixed(engine, resolver, resolver.hints[0])


def test_a_new_number_enrolled_as_a_second_factor_meanwhile_makes_no_user(engine):
    owner = sign_in(engine, A)

    def enrolled_meanwhile(event):
        enrol_fixed(engine, owner["idToken"], B)
        return {}

    engine.set_hook("beforeCreate", Recorder(enrolled_meanwhile))
    with pytest.raises(phoneauth.UnsupportedFirstFactorError):
        sign_in(engine, B)
    assert [u["uid"] for u in users(engine)] == [owner["user"]["uid"]]


def test_a_hooks_disable_holds_even_when_the_number_was_taken_meanwhile(engine):
    host = custom_sign_in(engine, "host")

    def taken_and_banned(event):
        engine.create_user(uid="taker", phone_number=A)
        return {"userRecord": {"updateMask": "disabled", "disabled": True}}

    engine.set_hook("beforeSignIn", Recorder(taken_and_banned))
    with pytest.raises(phoneauth.UserDisabledError):
        engine.link_with_credential(host["idToken"], fixed_credential(engine, A))
    assert user(engine, "host")["disabled"] is True


def test_kept_session_claims_count_toward_the_claims_limit(engine):
    host = custom_sign_in(engine, "host")
    engine.set_hook("beforeSignIn", Recorder({"userRecord": {"updateMask": "sessionClaims",
                                                             "sessionClaims": {"s": "x" * 600}}}))
    linked = engine.link_with_credential(host["idToken"], fixed_credential(engine, A))
    engine.set_hook("beforeSignIn", Recorder({"userRecord": {"updateMask": "customClaims",
                                                             "customClaims": {"c": "y" * 500}}}))
    with pytest.raises(phoneauth.BlockingFunctionError) as info:
        engine.update_phone_number(linked["idToken"], fixed_credential(engine, B))
    assert "1000 bytes" in info.value.message and info.value.details["reason"] == "hookFailed"
