"""Instructions per sign-in flow, counted by callgrind: deterministic, so a change is judged by a
number the machine's noise cannot move.

signin_bench runs under `valgrind --tool=callgrind` twice in each mode, with BENCH_ONLY=flows
(complete flows on one thread: verify, SMS to the callback, credential, sign in a new user) and
BENCH_ONLY=floor (the floor's primitives: one ES256 signature, one HMAC, the SQLite transactions);
the difference between the runs of one mode, divided by the difference in repetitions, is the
cost of one flow (start-up and the engine's opening cancel out). Each is broken down by
component, from the functions' objects and names: SQLite, jansson, BoringSSL, libphonenumber
(with ICU), the Swift runtime and standard library, the engine (PhoneAuth's own code), libc, other.

Prints {"instructions": {"perFlow", "floorPerFlow", "ratioToFloor", "signatureInFlow",
"signatureInFloor", "ratioToFloorWithEngineSignature", "flowByComponent", "floorByComponent",
"runs", "callerPerFlow", "callerPerFlowInTenant", "tenantToDefaultPool", "leftOutOfFloor",
"ratioToFloorOfTheRest"}}: the signatures are the ES256 signing inside each (the engine's
BoringSSL, the floor's OpenSSL), and that ratio is to the floor with the engine's signature in
place of OpenSSL's. leftOutOfFloor is what a flow spends, each with its allocations, on what the
floor leaves out on purpose: JSON ("json": the C ABI's parameters and results through jansson,
the engine's own JSONWriter), the number's validation ("numberValidation": libphonenumber) and
the driver's own parse of what it is handed ("driverJson"); ratioToFloorOfTheRest is the rest of
the flow over the floor. callerPerFlow, callerPerFlowInTenant and tenantToDefaultPool compare
the flow in the default pool and in a tenant (BENCH_TENANT=1) on the calling thread alone
(signin_flow's inclusive cost): the engine's own threads (the SMS delivery, the timed pollers) do work that
depends on how long a run takes, so on the machine's load, which would blur a difference of a few
per cent. callerPerFlow is the figure `make check-instructions` holds to its baseline
(instruction_budget.py). Counts: BENCH_CALLGRIND_FLOWS (default "100,300").
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "out", "signin_bench")

# BoringSSL's own functions inside libphoneauth.so (swift-crypto links it in) that carry no
# CCryptoBoringSSL prefix: its assembly and static C (the P-256 field arithmetic of a signature...).
BORINGSSL_INTERNAL = re.compile(r"nistz256|^(ecdsa|sha256|sha512|bn|aead_aes|aes|gcm|ec|hmac|x25519|ed25519)_")
# The Swift runtime's C++ inside the .so: its metadata caches, reference counts, casts.
SWIFT_RUNTIME_INTERNAL = re.compile(r"swift::|^(void |unsigned int )?tuple_|^tryCast|^getCache")

# (component, test on "object function"), first match wins.
COMPONENTS = [
    ("SQLite", lambda obj, fn: "libsqlite3" in obj or fn.startswith("sqlite3")),
    ("jansson", lambda obj, fn: "libjansson" in obj or fn.startswith("json_") or fn.startswith("jsonp_")),
    ("BoringSSL", lambda obj, fn: "CCryptoBoringSSL" in fn or "libcrypto" in obj or "libssl" in obj
        or ("libphoneauth" in obj and BORINGSSL_INTERNAL.search(fn) is not None)),
    # libstdc++ serves only libphonenumber's C++ here.
    ("libphonenumber", lambda obj, fn: "libphonenumber" in obj or "libicu" in obj or "i18n::phonenumbers" in fn
        or fn.startswith("pa_phone") or "icu_" in fn or "libstdc++" in obj),
    ("engine", lambda obj, fn: "PhoneAuthCore" in fn or "9PhoneAuth" in fn or "phoneauth_" in fn or "ccurl" in fn
        or fn.startswith("$s13PhoneAuthCore") or fn.startswith("$s9PhoneAuth")),
    ("Swift runtime", lambda obj, fn: fn.startswith("swift") or fn.startswith("$s") or fn.startswith("_swift")
        or "libswift" in obj or "Foundation" in fn or SWIFT_RUNTIME_INTERNAL.search(fn) is not None),
    ("libc (malloc, memcpy, locks)", lambda obj, fn: "libc.so" in obj or "libc-" in obj or "ld-linux" in obj or "libm" in obj
        or "libgcc" in obj),
]


def component(obj, fn):
    for name, test in COMPONENTS:
        if test(obj, fn):
            return name
    return "other"


# Functions whose inclusive cost is reported on its own, by key: a function matches when its name
# contains one of the texts. A call from one to another of the same key is counted once, in the
# callee's own cost, and so is a recursive call (its name, with "'", never matches).
INCLUSIVE = {
    # The ES256 signature inside a flow (the engine's, through swift-crypto's BoringSSL) and
    # inside the floor (OpenSSL's EVP).
    "signature": ("10SigningKeyV4sign", "floor_es256"),
    # The driver's function that runs one flow: its inclusive cost is what the calling thread
    # spends in flows (callgrind counts a call's cost on the thread that makes it), whatever the
    # engine's own threads do meanwhile, which depends on the time a run takes, so on the
    # machine's load.
    "flow": ("signin_flow",),
    # What the floor leaves out on purpose, each with what it allocates: the JSON the engine parses
    # and writes (the C ABI's through jansson, its own through JSONWriter), the number's parse and
    # validation (libphonenumber), and the driver's own parse of what the ABI hands it.
    "json": ("9JSONCodecO18serializeToCString", "9JSONCodecO5parse5bytes", "10JSONWriterV"),
    "numberValidation": ("pa_phone_parse",),
    "driverJson": ("json_loads",),
}


def inclusive_keys(fn):
    return [key for key, names in INCLUSIVE.items() if "'" not in fn and any(name in fn for name in names)]


def counts(out_file):
    """Self instructions per component, from callgrind's output file (the Ir column), plus the
    inclusive instructions of each INCLUSIVE key's functions under that key."""
    result = {}
    objects, functions = {}, {}
    obj = fn = ""
    measured, callee = [], []
    with open(out_file, errors="replace") as f:
        for line in f:
            if line.startswith("ob="):
                obj = name_of(line[3:].strip(), objects)
            elif line.startswith("fn="):
                fn = name_of(line[3:].strip(), functions)
                measured = inclusive_keys(fn)
            elif line.startswith(("cob=", "cfi=", "cfn=", "fl=", "fi=", "fe=")):
                if line.startswith("cfn="):
                    callee = inclusive_keys(name_of(line[4:].strip(), functions))
                elif line.startswith("cob="):
                    name_of(line[4:].strip(), objects)
                continue
            elif line.startswith("calls="):
                cost = next(f, "").split()  # the call's inclusive cost line: not self cost
                if len(cost) >= 2 and cost[1].isdigit():
                    for key in measured:
                        if key not in callee:
                            result[key] = result.get(key, 0) + int(cost[1])
            elif line[:1].isdigit() or line[:1] in "+-*":
                parts = line.split()
                if len(parts) >= 2 and parts[1].isdigit():
                    key = component(obj, fn)
                    result[key] = result.get(key, 0) + int(parts[1])
                    for key in measured:
                        result[key] = result.get(key, 0) + int(parts[1])
    return result


def name_of(text, table):
    """Callgrind compresses names: "(id) name" defines, "(id)" refers back."""
    m = re.match(r"\((\d+)\)(?: (.*))?", text)
    if not m:
        return text
    if m.group(2) is not None:
        table[m.group(1)] = m.group(2)
    return table.get(m.group(1), "")


def stripped_library(directory):
    """valgrind 3.19 gives up on the DWARF 5 debug info of a Swift-built .so: a copy without debug
    sections (the same code and symbols), found first through LD_LIBRARY_PATH."""
    source = os.environ.get("PHONEAUTH_LIBRARY") or os.path.join(HERE, "..", "out", "lib", "libphoneauth.so.1")
    libdir = os.path.join(directory, "lib")
    os.makedirs(libdir, exist_ok=True)
    subprocess.run(["objcopy", "--strip-debug", source, os.path.join(libdir, "libphoneauth.so.1")], check=True)
    return libdir


def run(mode, n, directory, tenant=False):
    """Counts of one run of the driver under callgrind."""
    out = os.path.join(directory, f"callgrind.{mode}.{n}{'.tenant' if tenant else ''}")
    env = dict(os.environ, BENCH_ONLY=mode, BENCH_FLOWS_C=str(n), LD_LIBRARY_PATH=stripped_library(directory),
               BENCH_TENANT="1" if tenant else "0")
    # The driver's progress lines are shown only if it fails.
    done = subprocess.run(["valgrind", "--tool=callgrind", "--quiet", f"--callgrind-out-file={out}", DRIVER],
                          env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        raise RuntimeError(f"signin_bench under callgrind ({mode}, {n}) exited with {done.returncode}")
    return counts(out)


def per_unit(mode, low, high, directory, units, tenant=False):
    """(instructions per unit, the same by component, each INCLUSIVE key's per unit), from the
    difference between a run of `low` and of `high`."""
    a, b = run(mode, low, directory, tenant), run(mode, high, directory, tenant)
    diff = {k: b.get(k, 0) - a.get(k, 0) for k in set(a) | set(b)}
    inclusive = {key: diff.pop(key, 0) / units for key in INCLUSIVE}
    per = {k: round(v / units) for k, v in diff.items() if abs(v) >= units}
    return sum(diff.values()) / units, dict(sorted(per.items(), key=lambda kv: -kv[1])), inclusive


def flow_units(low, high):
    """The flows between a run of `low` and of `high`, counting signin_bench's untimed warm-up."""
    warm = lambda n: min(n // 20, 200)
    return (high + warm(high)) - (low + warm(low))


def main():
    low, high = (int(x) for x in os.environ.get("BENCH_CALLGRIND_FLOWS", "100,300").split(","))
    units = flow_units(low, high)
    with tempfile.TemporaryDirectory(prefix="phoneauth-callgrind-") as directory:
        print(f"callgrind_bench: {low} and {high} flows, then the floor (a few minutes)", file=sys.stderr)
        flow, flow_parts, flow_inclusive = per_unit("flows", low, high, directory, units)
        # The same flows in a tenant (its ID in each call, its settings from the engine's cache),
        # compared on the calling thread.
        _, _, tenant_inclusive = per_unit("flows", low, high, directory, units, tenant=True)
        # Each floor loop also runs reps / 10 untimed warm-up repetitions.
        floor, floor_parts, floor_inclusive = per_unit(
            "floor", low, high, directory, (high + high // 10) - (low + low // 10))
    flow_signature, floor_signature = flow_inclusive["signature"], floor_inclusive["signature"]
    caller_flow, tenant_flow = flow_inclusive["flow"], tenant_inclusive["flow"]
    # The floor signs with OpenSSL, the engine with BoringSSL: the same floor with the engine's
    # own signature in place of OpenSSL's says what the rest of the floor ratio is made of.
    floor_engine_signature = floor - floor_signature + flow_signature
    # What the floor leaves out on purpose, and the ratio of the rest of the flow to the floor.
    left_out = {key: round(flow_inclusive[key]) for key in ("json", "numberValidation", "driverJson")}
    print(json.dumps({"instructions": {
        "perFlow": round(flow), "floorPerFlow": round(floor), "ratioToFloor": round(flow / floor, 2),
        "signatureInFlow": round(flow_signature), "signatureInFloor": round(floor_signature),
        "ratioToFloorWithEngineSignature": round(flow / floor_engine_signature, 2),
        "flowByComponent": flow_parts, "floorByComponent": floor_parts, "runs": [low, high],
        "callerPerFlow": round(caller_flow), "callerPerFlowInTenant": round(tenant_flow),
        "tenantToDefaultPool": round(tenant_flow / caller_flow, 4),
        "leftOutOfFloor": left_out,
        "ratioToFloorOfTheRest": round((flow - sum(left_out.values())) / floor, 2),
    }}))


if __name__ == "__main__":
    main()
