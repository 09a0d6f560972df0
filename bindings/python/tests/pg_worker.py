"""A child process holding one engine, driven by the test_postgres_*.py modules (pg_support.Worker)
over its stdin/stdout.

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
  retry_start   numbers, code, until (time.time()) -> {"started": n}: as signin_loop, in the
                background, but a call failing with a retryable storageError is made again, with
                the same params, until it completes or fails otherwise (or `until` passes); every
                attempt is recorded, with "chain" (the same for all attempts of one call) and
                "attempt" (0 for the first)
  retry_progress since (time.time()) -> {"calls": n, "signIns": sign-ins completed after `since`}
  retry_stop    -> once every thread has finished its sign-in (retries included):
                {"calls": [outcome + "method", "chain", "attempt"], "opens": engines opened in this
                process, "sessions": [{"uid", "refreshToken", "number", "isNewUser", "t0", "t1"}]}
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
opens = 0  # engines opened (successfully) in this process
retry_run = None  # the running retry loop: {"stop", "threads", "calls", "sessions"}


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


def retryable(result):
    error = result.get("error")
    return bool(error) and error["code"] == "storageError" and error["details"].get("retryable") is True


def until_complete(method, params, chain, until, calls):
    """Makes the call, and again with the same params after each retryable storageError."""
    attempt = 0
    while True:
        result = dict(outcome(lambda: engine.call(method, params)), method=method, chain=chain, attempt=attempt)
        calls.append(result)
        if not retryable(result) or time.time() >= until:
            return result
        attempt += 1
        time.sleep(0.02)


def retry_loop(number, code, until, stop, calls, sessions):
    n = 0
    while not stop.is_set() and time.time() < until:
        n += 1
        chain = "%s#%d" % (number, n)
        started = until_complete("verifyPhoneNumber", {"phoneNumber": number}, chain + ":verify", until, calls)
        if "ok" not in started:
            time.sleep(0.05)
            continue
        credential = {"providerId": "phone", "verificationId": started["ok"]["verificationId"],
                      "verificationCode": code}
        signed = until_complete("signInWithCredential", {"credential": credential}, chain + ":signIn", until, calls)
        if "ok" in signed:
            sessions.append({"uid": signed["ok"]["user"]["uid"], "refreshToken": signed["ok"]["refreshToken"],
                             "number": number, "isNewUser": signed["ok"]["additionalUserInfo"]["isNewUser"],
                             "t0": signed["t0"], "t1": signed["t0"] + signed["elapsed"]})
        else:
            time.sleep(0.05)


def handle(command):
    global engine, prepared, retry_run
    op = command["op"]
    if op == "open":
        def open_engine():
            global engine, opens
            engine = phoneauth.Engine(command["config"])
            opens += 1
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
    if op == "retry_start":
        retry_run = {"stop": threading.Event(), "threads": [], "calls": [], "sessions": []}
        for number in command["numbers"]:
            thread = threading.Thread(target=retry_loop, daemon=True,
                                      args=(number, command["code"], command["until"], retry_run["stop"],
                                            retry_run["calls"], retry_run["sessions"]))
            thread.start()
            retry_run["threads"].append(thread)
        return {"started": len(retry_run["threads"])}
    if op == "retry_progress":
        return {"calls": len(retry_run["calls"]),
                "signIns": sum(1 for s in list(retry_run["sessions"]) if s["t1"] > command["since"])}
    if op == "retry_stop":
        retry_run["stop"].set()
        for thread in retry_run["threads"]:
            thread.join()
        return {"calls": retry_run["calls"], "sessions": retry_run["sessions"], "opens": opens}
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
