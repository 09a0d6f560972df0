"""The binding itself: library loading, declared prototypes, the error hierarchy, the handle's
lifetime, the SMS callback bridge and use from several threads."""

import ctypes
import gc
import re
import threading
import time

import pytest

import phoneauth
from phoneauth import _ffi
from support import REAL_NUMBER, engine_config, run_python, start, wait_until


def header_functions(header_text):
    text = re.sub(r"/\*.*?\*/", "", header_text, flags=re.S)
    names = set(re.findall(r"\b(phoneauth_\w+)\s*\(", text))
    return names - set(re.findall(r"\(\s*\*\s*(phoneauth_\w+)\s*\)", text))


def test_every_header_function_has_a_prototype(header_text):
    names = header_functions(header_text)
    assert len(names) >= 12
    for name in sorted(names):
        function = getattr(_ffi.lib, name)
        assert function.argtypes is not None, f"{name} has no argtypes"
        assert isinstance(function.argtypes, list), name


def test_allocated_strings_come_back_as_void_pointers(header_text):
    # Every char ** out-parameter is typed POINTER(c_void_p), so the string can be freed.
    text = re.sub(r"/\*.*?\*/", "", header_text, flags=re.S)
    for name, params in re.findall(r"\b(phoneauth_\w+)\s*\(([^)]*)\)", text):
        if "char **" in params:
            assert getattr(_ffi.lib, name).argtypes[-1] is ctypes.POINTER(ctypes.c_void_p), name
    for name in ("phoneauth_call", "phoneauth_verify_phone_number", "phoneauth_credential",
                 "phoneauth_sign_in_with_credential", "phoneauth_sign_out"):
        assert getattr(_ffi.lib, name).restype is ctypes.c_int, name
    assert _ffi.lib.phoneauth_open.restype is ctypes.c_void_p


def test_error_classes_cover_the_documented_codes(api_doc_text):
    errors_section = api_doc_text.split("## Errors", 1)[1].split("\n## ", 1)[0]
    documented = re.findall(r"^\| `(\w+)` \| (\d+) \|", errors_section, flags=re.M)
    assert len(documented) >= 24
    for code, status in documented:
        name = code[0].upper() + code[1:]
        name = name if name.endswith("Error") else name + "Error"
        cls = getattr(phoneauth, name)
        assert issubclass(cls, phoneauth.PhoneAuthError)
        assert (cls.code, cls.status) == (code, int(status))
    assert phoneauth.InvalidVerificationCodeError.status == 17044
    assert phoneauth.StorageError.code == "storageError"


def test_every_status_of_the_header_has_its_class(header_text):
    statuses = [int(n) for n in re.findall(r"#define PHONEAUTH_ERR_\w+\s+(\d+)", header_text)]
    assert len(statuses) >= 39
    for status in statuses:
        exc = phoneauth.error_from_object(None, status)  # no error object: found by status
        assert type(exc) is not phoneauth.PhoneAuthError, status
        assert exc.status == status
        assert phoneauth.strerror(status).startswith(exc.code), (status, exc.code)
        assert phoneauth.ERROR_CODES[exc.code] == status


def test_unknown_error_code_maps_to_the_base_class():
    exc = phoneauth.error_from_object(
        {"error": {"code": "somethingNew", "status": 19000, "message": "m", "details": {"a": 1}}}, 19000)
    assert type(exc) is phoneauth.PhoneAuthError
    assert (exc.code, exc.status, exc.message, exc.details) == ("somethingNew", 19000, "m", {"a": 1})


def test_errors_carry_code_status_message_details(engine):
    with pytest.raises(phoneauth.UnknownMethodError) as info:
        engine.call("noSuchMethod")
    exc = info.value
    assert exc.code == "unknownMethod"
    assert exc.status == 18002
    assert isinstance(exc.message, str) and exc.message
    assert isinstance(exc.details, dict)
    assert str(exc).startswith("unknownMethod")


def test_close_is_idempotent_and_ends_use(make_engine):
    engine = make_engine()
    assert not engine.closed
    engine.close()
    engine.close()
    assert engine.closed
    with pytest.raises(ValueError):
        engine.get_jwks()
    with pytest.raises(ValueError):
        engine.set_sms_sender(lambda message: None)


def test_context_manager_closes(make_engine, db_path):
    with phoneauth.Engine({"database": db_path}) as engine:
        assert engine.get_jwks()["keys"]
    assert engine.closed


def test_open_failure_raises_and_leaves_nothing_behind(tmp_path):
    with pytest.raises(phoneauth.InvalidConfigurationError):
        phoneauth.Engine({"database": str(tmp_path / "a.db"), "noSuchKey": 1})
    gc.collect()  # __del__ of the half-made object must not crash
    with pytest.raises(TypeError):
        phoneauth.Engine("not a dict")


def test_garbage_collected_engine_is_closed(make_engine, db_path, sms):
    calls = []
    engine = phoneauth.Engine(engine_config(db_path, sms={"maxAttempts": 10}))
    engine.set_sms_sender(lambda message: calls.append(message) or False)  # always fails
    started = engine.verify_phone_number(REAL_NUMBER)
    wait_until(lambda: calls, what="a first delivery attempt")
    del engine
    gc.collect()
    seen = len(calls)
    time.sleep(0.5)
    assert len(calls) == seen, "the collected engine's delivery thread is still running"
    # The message stayed in the outbox; the next engine on the database delivers it.
    make_engine(sender=sms)
    sms.wait_for(verification_id=started["verificationId"])


def test_sender_runs_on_a_native_thread(make_engine, sms):
    threads = []
    engine = make_engine(sender=lambda message: (threads.append(threading.get_ident()), sms(message)))
    start(engine, sms, REAL_NUMBER)
    assert threads and threading.get_ident() not in threads


def test_replaced_sender_is_not_called(make_engine, sms):
    old = []
    engine = make_engine(sender=old.append)
    engine.set_sms_sender(sms)
    start(engine, sms, REAL_NUMBER)
    assert old == []


def test_closing_from_its_own_sender_is_refused(make_engine, sms):
    outcome = []

    def sender(message):
        try:
            engine.close()
            outcome.append("closed")
        except RuntimeError:
            outcome.append("refused")
        sms(message)

    engine = make_engine(sender=sender)
    start(engine, sms, REAL_NUMBER)
    assert outcome == ["refused"]
    assert not engine.closed


def test_camel_case_conversion_of_keyword_arguments(engine):
    with pytest.raises(phoneauth.InvalidArgumentError) as info:
        engine.verify_phone_number(REAL_NUMBER, some_unknown_thing=1)
    assert "someUnknownThing" in info.value.message + str(info.value.details)


def test_many_threads_share_one_engine(make_engine):
    engine = make_engine()
    ids, errors = [], []

    def work(t):
        try:
            for i in range(10):
                ids.append(engine.verify_phone_number(f"+1650555{4000 + t * 10 + i}")["verificationId"])
                engine.get_jwks()
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    assert len(set(ids)) == 80


def test_delivery_thread_keeps_its_python_state_between_messages(make_engine):
    # A foreign thread calling back through ctypes gets a fresh Python thread state each time
    # unless the binding keeps it: thread-local data would be gone at the next message, and
    # making and freeing the state cost each SMS tens of microseconds.
    local, seen = threading.local(), []

    def sender(message):
        seen.append((threading.get_native_id(), getattr(local, "count", 0)))
        local.count = getattr(local, "count", 0) + 1

    engine = make_engine(sender=sender)
    for i in range(3):
        engine.verify_phone_number(f"+1650555{6100 + i}")
        wait_until(lambda: len(seen) == i + 1, what=f"message {i + 1}")
    assert len({ident for ident, _ in seen}) == 1  # one delivery thread
    assert [count for _, count in seen] == [0, 1, 2]


def test_parameters_that_are_not_json_raise_before_the_call(engine):
    with pytest.raises(TypeError, match="set is not JSON serializable"):
        engine.verify_phone_number({1, 2})
    looped = {}
    looped["self"] = looped
    with pytest.raises(ValueError, match="Circular reference"):
        engine.call("getUser", looped)
    with pytest.raises(TypeError, match="bytes is not JSON serializable"):
        engine.credential(b"id", "123456")
    # Text outside ASCII arrives intact (the encoder escapes it, the library reads it back).
    name = 'Zoë "名前" \\ 🙂'
    uid = engine.create_user(display_name=name)["user"]["uid"]
    assert engine.get_user(uid)["user"]["displayName"] == name


def test_typed_calls_send_the_text_the_encoder_writes(engine, monkeypatch):
    # verify_phone_number and credential write plain str arguments' JSON themselves: the same
    # text as the general encoder, whatever the characters.
    from phoneauth.engine import _encode
    sent = []
    monkeypatch.setattr(engine, "_invoke", lambda function, data: sent.append(data) or {})
    odd = 'a"b\\c/\n\x01é名🙂\ud800'
    engine.verify_phone_number(odd)
    engine.credential(odd, "12 34")
    engine.credential(verification_code=odd, verification_id="id")
    assert sent == [_encode({"phoneNumber": odd}), _encode({"verificationId": odd, "verificationCode": "12 34"}),
                    _encode({"verificationId": "id", "verificationCode": odd})]
    assert all(data.isascii() for data in sent)


def test_close_waits_for_calls_in_flight_and_refuses_later_ones(make_engine):
    engine = make_engine()
    stop, errors, done = threading.Event(), [], []

    def work():
        while not stop.is_set():
            try:
                engine.get_jwks()
                done.append(1)
            except ValueError as exc:  # closed: the only failure allowed
                assert "closed engine" in str(exc)
                return
            except Exception as exc:  # reported below
                errors.append(exc)
                return

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    wait_until(lambda: len(done) > 50, what="calls running")
    closers = [threading.Thread(target=engine.close) for _ in range(3)]  # at once: one frees it
    for t in closers:
        t.start()
    for t in closers + threads:
        t.join(30)
    stop.set()
    assert errors == [] and engine.closed
    with pytest.raises(ValueError):
        engine.get_jwks()


def test_exit_with_open_engine_and_pending_deliveries(db_path):
    # The atexit hook closes the engine while its delivery thread may be inside the Python sender.
    done = run_python(f"""
        import time, phoneauth
        engine = phoneauth.Engine({{"database": {db_path!r}, "resendAfterSeconds": 0,
                                    "sms": {{"retryBackoffMs": 10}}, "pumping": {{"mode": "off"}}}})
        engine.set_sms_sender(lambda message: time.sleep(0.05) or False)
        for i in range(20):
            engine.verify_phone_number("+1650555%04d" % (5000 + i))
        time.sleep(0.2)
        print("bye")
    """, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "bye"


def test_wrong_library_path_fails_clearly(tmp_path):
    done = run_python("import phoneauth", env={"PHONEAUTH_LIBRARY": str(tmp_path / "nope.so")})
    assert done.returncode != 0
    assert "ImportError" in done.stderr or "LibraryLoadError" in done.stderr
    assert "PHONEAUTH_LIBRARY" in done.stderr


def test_library_that_is_not_phoneauth_is_refused():
    done = run_python("import phoneauth", env={"PHONEAUTH_LIBRARY": "libm.so.6"})
    assert done.returncode != 0
    assert "not libphoneauth" in done.stderr
