"""Checks the shape of a merged benchmark document (merge.py's output): what `make bench-smoke`
runs after a short run of every driver, so that a driver, merge.py and the Makefile cannot drift
apart unnoticed between two full runs of `make bench`.

Usage: check.py LATEST.json

Every section must be there and measured (no "skipped": the smoke runs every driver), with its
keys, numbers where numbers belong (finite, and above zero where a run that did anything has a
rate), booleans for the targets, and no failed flows, SMS or requests (but for PostgreSQL's, where
a flow that still conflicts after its retries fails by design). The figures themselves are not
judged: a smoke run is too short for that. Keys not listed here are allowed, so a driver may
report more without this file changing. Exit status 0 when all holds, else 1 with every problem
found, one a line.
"""
import json
import math
import re
import sys


class Number:
    """A finite JSON number (not a boolean); `positive`: above zero; `zero`: exactly zero (a count
    of failures)."""

    def __init__(self, positive=False, zero=False, integer=False):
        self.positive, self.zero, self.integer = positive, zero, integer
        self.count = integer  # an integer here is a count: never below zero

    def check(self, value, path, problems):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            problems.append(f"{path}: {value!r} is not a number")
        elif self.integer and not isinstance(value, int):
            problems.append(f"{path}: {value!r} is not an integer")
        elif self.count and value < 0:
            problems.append(f"{path}: {value!r}, expected a count (0 or more)")
        elif self.zero and value != 0:
            problems.append(f"{path}: {value!r}, expected 0")
        elif self.positive and value <= 0:
            problems.append(f"{path}: {value!r}, expected a number above 0")


class Type:
    def __init__(self, *types):
        self.types = types

    def check(self, value, path, problems):
        if not isinstance(value, self.types):
            names = " or ".join("null" if t is type(None) else t.__name__ for t in self.types)
            problems.append(f"{path}: {value!r} is not {names}")


class Each:
    """A JSON object whose every value (at least `at_least` of them) has one shape."""

    def __init__(self, shape, at_least=0):
        self.shape, self.at_least = shape, at_least

    def check(self, value, path, problems):
        if not isinstance(value, dict):
            problems.append(f"{path}: not an object")
            return
        if len(value) < self.at_least:
            problems.append(f"{path}: {len(value)} entries, expected at least {self.at_least}")
        for key, item in value.items():
            check(self.shape, item, f"{path}.{key}", problems)


class List:
    def __init__(self, shape, at_least=1):
        self.shape, self.at_least = shape, at_least

    def check(self, value, path, problems):
        if not isinstance(value, list) or len(value) < self.at_least:
            problems.append(f"{path}: expected a list of at least {self.at_least}")
            return
        for i, item in enumerate(value):
            check(self.shape, item, f"{path}[{i}]", problems)


class Matching:
    """An object with its listed keys, and at least one key matching `pattern` of shape `shape`."""

    def __init__(self, keys, pattern, shape):
        self.keys, self.pattern, self.shape = keys, re.compile(pattern), shape

    def check(self, value, path, problems):
        check(self.keys, value, path, problems)
        if not isinstance(value, dict):
            return
        found = [key for key in value if self.pattern.fullmatch(key)]
        if not found:
            problems.append(f"{path}: no key matching {self.pattern.pattern}")
        for key in found:
            check(self.shape, value[key], f"{path}.{key}", problems)


def check(shape, value, path, problems):
    """A dict shape: an object with those keys, each checked against its own shape."""
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            problems.append(f"{path}: {type(value).__name__}, expected an object")
            return
        if "skipped" in value:
            problems.append(f"{path}: skipped ({value['skipped']})")
            return
        for key, sub in shape.items():
            if key not in value:
                problems.append(f"{path}.{key}: missing")
            else:
                check(sub, value[key], f"{path}.{key}", problems)
    else:
        shape.check(value, path, problems)


NUM, POS, ZERO, INT = Number(), Number(positive=True), Number(zero=True), Number(integer=True)
COUNT = Number(positive=True, integer=True)
STR, BOOL, OBJ = Type(str), Type(bool), Type(dict)
PCT = {"count": COUNT, "p50": NUM, "p90": NUM, "p99": NUM, "max": POS}


def latencies(*names):
    return {name: PCT for name in names}


IN_PROCESS_RUN = {
    "threads": COUNT, "flows": COUNT, "failed": ZERO, "warmupFlows": INT, "seconds": POS,
    "flowsPerSecond": POS, "costPerFlowUs": POS, "ratioToFloor": POS, "cpuUsPerFlow": POS,
    "cpuRatioToFloor": POS, "errors": OBJ, "notNewUser": ZERO,
    "latencyUs": latencies("verifyPhoneNumber", "smsWait", "credential", "signInWithCredential",
                           "smsDelivery", "flow"),
    "sms": {"delivered": COUNT, "unparsable": ZERO, "neverTaken": ZERO},
}
# The C driver also says how busy the engine's SQLite connection was.
C_RUN = dict(IN_PROCESS_RUN, store={"busyShare": POS, "busyUsPerFlow": POS, "waitsPerFlow": NUM})
# PostgreSQL: a flow whose transaction still conflicts after its retries fails, on either side;
# a measured outcome of contention (more of it on a loaded machine), so counted, not refused.
PG_SIDE = {"flows": COUNT, "failed": INT, "seconds": POS, "flowsPerSecond": POS, "roundTripsPerFlow": POS,
           "transactionsPerFlow": POS, "retriesPer1000Flows": NUM, "clientCpuUsPerFlow": POS, "errors": OBJ}
PG_CONFIGURATION = {
    "processes": COUNT, "threads": COUNT, "poolSize": COUNT, "flowsPerSecond": POS, "roundTripsPerFlow": POS,
    "retriesPer1000Flows": NUM, "floorFlowsPerSecond": POS, "ratioToFloor": POS, "floorRoundTripsPerFlow": POS,
    "floorRetriesPer1000Flows": NUM, "atLeastHalfOfFloor": BOOL,
    "engine": dict(PG_SIDE, notNewUser=ZERO, latencyUs=latencies("flow", "verify", "smsWait", "signIn")),
    "floor": dict(PG_SIDE, connectionsPerProcess=COUNT, retriesPer1000FlowsBy=Each(NUM, 1),
                  latencyUs=latencies("flow", "verify", "signIn")),
}
DELIVERY_RUN = {
    "concurrency": COUNT, "concurrencyConfigured": BOOL, "smsPerSecond": POS, "secondsToLastDelivery": POS,
    "verifySeconds": POS, "delivered": COUNT, "failures": ZERO, "givenUp": ZERO, "maxInFlight": COUNT,
    "serverRequests": COUNT, "duplicates": INT, "duplicatesWithAnotherCode": INT, "numbersWithoutSms": ZERO,
    "sentOnRetry": INT, "receiptsApplied": COUNT, "lastReceiptAfterLastSendSeconds": NUM, "events": Each(INT, 1),
}
HTTP_RUN = {"threads": COUNT, "flows": COUNT, "ok": COUNT, "failed": ZERO, "seconds": POS, "flowsPerSecond": POS,
            "cpuUsPerFlow": POS, "errors": OBJ,
            "latencyUs": latencies("sendVerificationCode", "codeWait", "verifyPhoneNumber", "flow")}
PUMPING_SHAPE = {
    "shape": STR, "attackRequests": COUNT, "attackSent": INT, "attackSentAfterFirst100": INT,
    "attackRefusedAfterFirst100Percent": NUM, "realUsers": COUNT, "realRefused": INT, "realRefusedPercent": NUM,
    "realUsersInAttackedCountries": INT, "realRefusedInAttackedCountries": INT,
    "realRefusedInAttackedCountriesPercent": NUM, "codesMissed": INT, "realRefusedBy": OBJ, "goalMet": BOOL}
HOOKS = {"calls": COUNT, "none": PCT, "inProcess": PCT, "http": PCT, "inProcessAddedUs": NUM, "httpAddedUs": NUM}
HOOKS_ADDED = {"inProcessAddedUs": NUM, "httpAddedUs": NUM}

DOCUMENT = {
    "when": STR,
    "machine": {"cpus": COUNT, "platform": STR, "python": STR},
    "c": {"library": STR, "threads1": C_RUN, "threads2": C_RUN},
    "floor": {"es256SignUs": POS, "hmacSha256Us": POS, "sqliteTx": {"verifyTxUs": POS, "deliveredTxUs": POS,
                                                                     "signInTxUs": POS},
              "sqliteTxTotalUs": POS, "floorPerFlowUs": POS, "sqlite": STR, "openssl": STR},
    "python": {"binding": Type(str, type(None)), "threads1": IN_PROCESS_RUN, "threads2": IN_PROCESS_RUN},
    "handrolled": {"threads": COUNT, "flows": COUNT, "failed": ZERO, "warmupFlows": INT, "seconds": POS,
                   "flowsPerSecond": POS, "costPerFlowUs": POS, "ratioToFloor": POS, "errors": OBJ,
                   "latencyUs": latencies("verify", "deliver", "signIn", "flow"),
                   "versions": {"python": STR, "sqlite": STR, "pyjwt": STR}},
    "postgres": Matching({"library": STR, "server": STR, "flowsPerConfiguration": COUNT}, r"p\d+t\d+",
                         PG_CONFIGURATION),
    "delivery": {"latencyMs": INT, "messages": COUNT, "runs": List(DELIVERY_RUN)},
    "http": {"threads1": HTTP_RUN, "threads2": HTTP_RUN},
    "instructions": {"perFlow": POS, "floorPerFlow": POS, "ratioToFloor": POS, "signatureInFlow": POS,
                     "signatureInFloor": POS, "ratioToFloorWithEngineSignature": POS,
                     "flowByComponent": Each(NUM, 1), "floorByComponent": Each(NUM, 1), "runs": List(COUNT, 2),
                     "callerPerFlow": POS, "callerPerFlowInTenant": POS, "tenantToDefaultPool": POS,
                     "leftOutOfFloor": {"json": POS, "numberValidation": POS, "driverJson": POS},
                     "ratioToFloorOfTheRest": POS},
    "bindingOverhead": {"bindingUs": POS, "bareUs": POS, "naiveUs": POS, "overheadUs": NUM,
                        "naiveOverheadUs": NUM, "calls": COUNT},
    "hooks": HOOKS,
    "signInHooks": HOOKS,
    "pumping": {"configuration": STR, "seed": INT, "scale": POS, "warmUpHours": POS, "realUsersPerHour": POS,
                "warmUpRealUsers": COUNT, "warmUpRealRefused": INT, "shapes": List(PUMPING_SHAPE, 5),
                "addressRotationWithDefenseOff": PUMPING_SHAPE},
    "summary": {
        "cFlowsPerSecond1Thread": POS, "cFlowsPerSecond2Threads": POS, "pythonFlowsPerSecond1Thread": POS,
        "pythonFlowsPerSecond2Threads": POS, "handrolledFlowsPerSecond": POS, "floorPerFlowUs": POS,
        "pythonBestOverHandrolled": POS, "c2ThreadsOver1Thread": POS,
        "postgres": Each({"flowsPerSecond": POS, "floorFlowsPerSecond": POS, "ratioToFloor": POS,
                          "roundTripsPerFlow": POS, "retriesPer1000Flows": NUM, "poolSize": COUNT}, 1),
        "delivery": Each({"smsPerSecond": POS, "secondsToLastDelivery": POS, "failures": ZERO, "duplicates": INT,
                          "maxInFlight": COUNT}, 1),
        "http": {threads: {"flowsPerSecond": POS, "inProcessFlowsPerSecond": POS, "ratioToInProcess": POS}
                 for threads in ("threads1", "threads2")},
        "instructionsPerFlow": POS, "instructionsRatioToFloor": POS, "instructionsRatioToFloorOfTheRest": POS,
        "bindingOverheadUs": NUM,
        "hooksAddedUs": {"beforeSendSms": HOOKS_ADDED, "beforeSignIn": HOOKS_ADDED},
        "pumping": Each({"attackRefusedAfterFirst100Percent": NUM, "realRefusedPercent": NUM,
                         "realRefusedInAttackedCountriesPercent": NUM, "goalMet": BOOL}, 5),
        "targets": {name: BOOL for name in (
            "c2ThreadsAtLeast8000", "pythonAboveHandrolled", "pythonAtLeast1.5xHandrolled",
            "c2ThreadsAtLeast1.8x1Thread", "postgresAtLeastHalfOfFloor", "deliveryDefaultAtLeast100SmsPerSecond",
            "httpAtLeast60PercentOfInProcess", "instructionsAtMost2xFloor", "bindingOverheadAtMost4Us")},
    },
}


def problems_of(doc):
    problems = []
    check(DOCUMENT, doc, "latest", problems)
    # The default delivery runs: sms.concurrency 1 and the engine's default.
    runs = doc.get("summary", {}).get("delivery", {})
    if isinstance(runs, dict) and "skipped" not in runs:
        problems += [f"latest.summary.delivery.{key}: missing" for key in ("1", "default") if key not in runs]
    # Every message asked for was sent: a refused verify (a limit, the pumping defense) measures nothing.
    delivery = doc.get("delivery", {})
    if isinstance(delivery, dict) and isinstance(delivery.get("runs"), list):
        for i, run in enumerate(delivery["runs"]):
            if isinstance(run, dict) and run.get("delivered") != delivery.get("messages"):
                problems.append(f"latest.delivery.runs[{i}]: {run.get('delivered')} of {delivery.get('messages')}"
                                f" messages delivered (verify errors: {run.get('verifyErrors', {})})")
    return problems


def main(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"check.py: {path}: {e}")
    problems = problems_of(doc)
    if problems:
        print(f"check.py: {path}: {len(problems)} problem(s):", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        sys.exit(1)
    print(f"check.py: {path}: every section present, measured and well formed")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
