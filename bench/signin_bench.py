"""Complete phone sign-ins through the Python binding (`import phoneauth`), 1 and 2 threads.

The same flow as signin_bench.c: verify_phone_number for a new number -> wait until the engine's
delivery thread calls our SMS sender (which reads the code from the message body and posts it to a
mailbox keyed by verificationId) -> credential -> sign_in_with_credential (the user is new). Each
thread configuration runs on a fresh engine over a fresh SQLite file in a temporary directory,
after a short untimed warm-up; caller threads run flows back to back until N flows are done
(N = $BENCH_FLOWS_PY, else $BENCH_FLOWS, else 5000).

Prints {"python": {"threads1": {...}, "threads2": {...}}}: flows/s, process CPU time per flow, and
p50/p90/p99/max latency in µs of each call, of the SMS delivery (verify's start until the sender
ran) and of the whole flow, plus failures by error code. Progress goes to stderr.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time

import phoneauth

from benchutil import flow_count, percentiles, phone_number

SMS_TIMEOUT = 10.0
MAX_SMS_TIMEOUTS = 3
CODE = re.compile(r"\d{6,10}")
LATENCIES = ("verifyPhoneNumber", "smsWait", "credential", "signInWithCredential", "smsDelivery",
             "flow")


class Mailbox:
    """Codes posted by the engine's delivery thread, taken by the flow that waits for them."""

    def __init__(self):
        self.cond = threading.Condition()
        self.mail = {}
        self.delivered = 0
        self.unparsable = 0

    def sender(self, message):  # runs on the engine's delivery thread
        t = time.perf_counter_ns()
        vid = message.get("verificationId")
        m = CODE.search(message.get("body") or "")
        with self.cond:
            self.delivered += 1
            if not vid or not m:
                self.unparsable += 1
                return None
            self.mail[vid] = (m.group(0), t)
            self.cond.notify_all()
        return None

    def take(self, vid):
        deadline = time.monotonic() + SMS_TIMEOUT
        with self.cond:
            while vid not in self.mail:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return self.mail.pop(vid)


def error_key(step, exc):
    code = getattr(exc, "code", None) or type(exc).__name__
    status = getattr(exc, "status", None)
    return f"{step}:{code}({status})" if status is not None else f"{step}:{code}"


class Run:
    def __init__(self, engine, box, start_index, end_index):
        self.engine = engine
        self.box = box
        self.lock = threading.Lock()
        self.next = start_index
        self.end = end_index
        self.errors = {}
        self.samples = {}
        self.not_new_user = 0
        self.sms_timeouts = 0
        self.stopped = False

    def take_index(self):
        with self.lock:
            i = self.next
            self.next += 1
            return i if i < self.end else None

    def fail(self, step, exc):
        key = error_key(step, exc)
        with self.lock:
            self.errors[key] = self.errors.get(key, 0) + 1
            self.samples.setdefault(key, str(exc)[:300])

    def worker(self, lat):
        engine, box, clock = self.engine, self.box, time.perf_counter_ns
        while True:
            i = self.take_index()
            if i is None:
                return
            phone = phone_number(i)
            t0 = clock()
            try:
                vid = engine.verify_phone_number(phone_number=phone)["verificationId"]
            except Exception as e:  # noqa: BLE001 - counted and reported
                self.fail("verifyPhoneNumber", e)
                continue
            t1 = clock()
            got = box.take(vid)
            if got is None:
                self.fail("smsWait", TimeoutError("no SMS within %gs" % SMS_TIMEOUT))
                with self.lock:
                    self.sms_timeouts += 1
                    if self.sms_timeouts >= MAX_SMS_TIMEOUTS:
                        self.stopped = True
                        self.next = self.end
                continue
            code, delivered = got
            t2 = clock()
            try:
                cred = engine.credential(verification_id=vid, verification_code=code)["credential"]
            except Exception as e:  # noqa: BLE001
                self.fail("credential", e)
                continue
            t3 = clock()
            try:
                result = engine.sign_in_with_credential(credential=cred)
            except Exception as e:  # noqa: BLE001
                self.fail("signInWithCredential", e)
                continue
            t4 = clock()
            if not (result.get("additionalUserInfo") or {}).get("isNewUser"):
                with self.lock:
                    self.not_new_user += 1
            lat["verifyPhoneNumber"].append(t1 - t0)
            lat["smsWait"].append(t2 - t1)
            lat["credential"].append(t3 - t2)
            lat["signInWithCredential"].append(t4 - t3)
            lat["smsDelivery"].append(max(0, delivered - t0))
            lat["flow"].append(t4 - t0)


def run_flows(threads, flows):
    tmp = tempfile.mkdtemp(prefix="phoneauth-pybench-")
    box = Mailbox()
    try:
        # More flows than the default daily project quota: raise it (its counting still runs).
        engine = phoneauth.Engine({"database": os.path.join(tmp, "phoneauth.sqlite"),
                                   "quotas": {"smsPerProjectPerDay": 100_000_000}})
        with engine:
            engine.set_sms_sender(box.sender)
            warmup = min(200, flows // 20)
            if warmup:
                Run(engine, box, 0, warmup).worker({k: [] for k in LATENCIES})
            delivered_before = box.delivered
            run = Run(engine, box, warmup, warmup + flows)
            lats = [{k: [] for k in LATENCIES} for _ in range(threads)]
            workers = [threading.Thread(target=run.worker, args=(lats[t],)) for t in range(threads)]
            print(f"signin_bench.py: {threads} thread(s), {flows} flows...", file=sys.stderr)
            cpu0 = time.process_time()
            start = time.perf_counter_ns()
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            elapsed = (time.perf_counter_ns() - start) / 1e9
            cpu = time.process_time() - cpu0
            with box.cond:
                delivered = box.delivered - delivered_before
                unparsable = box.unparsable
                never_taken = len(box.mail)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    ok = sum(len(l["flow"]) for l in lats)
    fps = ok / elapsed if elapsed else 0.0
    result = {
        "threads": threads, "flows": ok, "failed": sum(run.errors.values()), "warmupFlows": warmup,
        "seconds": round(elapsed, 2), "flowsPerSecond": round(fps, 2),
        "costPerFlowUs": round(1e6 / fps, 2) if fps else 0.0,
        "cpuUsPerFlow": round(cpu * 1e6 / ok, 2) if ok else 0.0,
        "latencyUs": {k: percentiles([x for l in lats for x in l[k]]) for k in LATENCIES},
        "errors": run.errors,
        "sms": {"delivered": delivered, "unparsable": unparsable, "neverTaken": never_taken},
        "notNewUser": run.not_new_user,
    }
    if run.samples:
        result["errorSamples"] = run.samples
    if run.stopped:
        result["stoppedNoSms"] = True
    print(f"signin_bench.py: {threads} thread(s): {fps:.0f} flows/s, {result['failed']} failed",
          file=sys.stderr)
    return result


def main():
    flows = flow_count()
    out = {"python": {
        "binding": getattr(phoneauth, "__version__", None),
        "threads1": run_flows(1, flows),
        "threads2": run_flows(2, flows),
    }}
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
