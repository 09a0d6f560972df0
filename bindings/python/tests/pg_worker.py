"""A child process holding one engine, driven by test_postgres_machines.py over its stdin/stdout.

It reads one JSON command per line on stdin and answers each with one line on stdout, "@@" then
JSON (the prefix tells answers apart from anything else written to stdout). Started, it imports
the binding and answers {"ready": true}; the engine is opened by the "open" command, so a parent
can start several workers and then have them open at (nearly) the same moment.

Commands ({"op": ...}):
  open          config, sender (true: install a capturing SMS sender; "stuck": one that never
                returns, so the engine holds every message until it dies) -> outcome of opening
  call          method, params -> outcome of engine.call(method, params)
  prepare       threads: [[[method, params], ...], ...] -> one thread per list, each waiting for "go"
  go            -> {"results": [[outcome, ...], ...]} once every prepared thread has run its calls
  signin_loop   numbers, code, until (time.time()), stop (a path; optional) -> one thread per number
                signing in again and again (verifyPhoneNumber, then signInWithCredential) until
                `until`, or until the file `stop` exists:
                {"calls": [outcome + "method"], "sessions": [{"uid", "refreshToken", "t0"}]}
  messages      -> {"messages": [...]}: what the capturing sender got, each with "receivedAt"
                (time.time() when the sender was called)
  wait_messages verificationIds, timeout -> {"messages": [...]} once each id has a message, or on timeout
  close         -> closes the engine
  exit          -> exits
An outcome is {"ok": result} or {"error": {"code", "status", "message", "details", "str",
"repr"}}, with "t0" (time.time() at the start) and "elapsed" (seconds).
"""

import json
import os
import sys
import threading
import time

import phoneauth

engine = None
captured = []
captured_cond = threading.Condition()
prepared = []  # (thread, box) of the last "prepare"
go_event = threading.Event()


def answer(obj):
    sys.stdout.write("@@" + json.dumps(obj) + "\n")
    sys.stdout.flush()


def outcome(function):
    t0 = time.time()
    start = time.monotonic()
    try:
        result = {"ok": function()}
    except phoneauth.PhoneAuthError as error:
        result = {"error": {"code": error.code, "status": error.status, "message": error.message,
                            "details": error.details, "str": str(error), "repr": repr(error)}}
    except Exception as error:  # anything else is reported as such, never mistaken for a code
        result = {"error": {"code": "python:" + type(error).__name__, "status": None, "message": str(error),
                            "details": {}, "str": str(error), "repr": repr(error)}}
    result["t0"] = t0
    result["elapsed"] = time.monotonic() - start
    return result


def sender(message):
    with captured_cond:
        captured.append(dict(message, receivedAt=time.time()))
        captured_cond.notify_all()


def stuck_sender(message):
    threading.Event().wait()  # never set: this call holds the delivery thread for good


def run_calls(calls, box):
    go_event.wait()
    for method, params in calls:
        box.append(dict(outcome(lambda: engine.call(method, params)), method=method))


def signin_loop(number, code, until, stop, calls, sessions):
    while time.time() < until and not (stop and os.path.exists(stop)):
        started = outcome(lambda: engine.call("verifyPhoneNumber", {"phoneNumber": number}))
        calls.append(dict(started, method="verifyPhoneNumber"))
        if "ok" not in started:
            time.sleep(0.05)
            continue
        credential = {"providerId": "phone", "verificationId": started["ok"]["verificationId"],
                      "verificationCode": code}
        signed = outcome(lambda: engine.call("signInWithCredential", {"credential": credential}))
        calls.append(dict(signed, method="signInWithCredential"))
        if "ok" in signed:
            sessions.append({"uid": signed["ok"]["user"]["uid"], "refreshToken": signed["ok"]["refreshToken"],
                             "t0": signed["t0"]})
        else:
            time.sleep(0.05)


def handle(command):
    global engine, prepared
    op = command["op"]
    if op == "open":
        def open_engine():
            global engine
            engine = phoneauth.Engine(command["config"])
            if command.get("sender") == "stuck":
                engine.set_sms_sender(stuck_sender)
            elif command.get("sender"):
                engine.set_sms_sender(sender)
            return {}
        return outcome(open_engine)
    if op == "call":
        return outcome(lambda: engine.call(command["method"], command.get("params") or {}))
    if op == "prepare":
        go_event.clear()
        prepared = []
        for calls in command["threads"]:
            box = []
            thread = threading.Thread(target=run_calls, args=(calls, box), daemon=True)
            thread.start()
            prepared.append((thread, box))
        return {"prepared": len(prepared)}
    if op == "go":
        go_event.set()
        for thread, _box in prepared:
            thread.join()
        return {"results": [box for _thread, box in prepared]}
    if op == "signin_loop":
        calls, sessions, threads = [], [], []
        for number in command["numbers"]:
            thread = threading.Thread(target=signin_loop, daemon=True,
                                      args=(number, command["code"], command["until"], command.get("stop"), calls, sessions))
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()
        return {"calls": calls, "sessions": sessions}
    if op == "messages":
        with captured_cond:
            return {"messages": list(captured)}
    if op == "wait_messages":
        wanted = set(command["verificationIds"])
        deadline = time.monotonic() + command["timeout"]
        with captured_cond:
            while not wanted <= {m.get("verificationId") for m in captured}:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                captured_cond.wait(left)
            return {"messages": list(captured)}
    if op == "close":
        if engine is not None:
            engine.close()
        return {"closed": True}
    raise ValueError("unknown op " + op)


def main():
    answer({"ready": True})
    for line in sys.stdin:
        if not line.strip():
            continue
        command = json.loads(line)
        if command["op"] == "exit":
            break
        answer(handle(command))
    if engine is not None:
        engine.close()


if __name__ == "__main__":
    main()
