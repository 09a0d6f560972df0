"""What one call through the Python binding costs on top of the C ABI.

The call is `credential` (it touches no store, so the library's own work is small and steady),
timed three ways in one process, each as the median of 5 rounds of BENCH_CALLS (default 20000)
calls, the three ways in turn in each round:
  binding   engine.credential(verification_id, code): parameters in, a dict out;
  bare      the same C function through ctypes with the parameter JSON made once and the result
            only freed: the C ABI plus ctypes' own crossing, the least any Python caller pays;
  naive     what a developer writes with ctypes and the json module: json.dumps, the call,
            json.loads of the result.

Prints {"bindingOverhead": {"bindingUs", "bareUs", "naiveUs", "overheadUs", "naiveOverheadUs",
"calls"}}, overheadUs = binding - bare.
"""
import ctypes
import json
import os
import shutil
import statistics
import tempfile
import time

import phoneauth
from phoneauth import _ffi

TEST_NUMBER, TEST_CODE = "+16505550101", "123456"


def per_call_us(functions, calls):
    """Each function's median µs a call over 5 rounds; a round times every function in turn, so a
    change of the machine's load weighs on all of them alike."""
    runs = [[] for _ in functions]
    for _ in range(5):
        for function, times in zip(functions, runs):
            start = time.perf_counter()
            for _ in range(calls):
                function()
            times.append((time.perf_counter() - start) / calls * 1e6)
    return [statistics.median(times) for times in runs]


def main():
    calls = int(os.environ.get("BENCH_CALLS", "20000"))
    tmp = tempfile.mkdtemp(prefix="phoneauth-overhead-")
    try:
        with phoneauth.Engine({"database": os.path.join(tmp, "auth.db"),
                               "testPhoneNumbers": {TEST_NUMBER: TEST_CODE}}) as engine:
            vid = engine.verify_phone_number(TEST_NUMBER)["verificationId"]
            lib, handle, out = _ffi.lib, engine._handle, ctypes.c_void_p()
            params = json.dumps({"verificationId": vid, "verificationCode": TEST_CODE}).encode()

            def binding():
                engine.credential(vid, TEST_CODE)

            def bare():
                lib.phoneauth_credential(handle, params, ctypes.byref(out))
                lib.phoneauth_free(out.value)

            def naive():
                text = json.dumps({"verificationId": vid, "verificationCode": TEST_CODE}).encode()
                lib.phoneauth_credential(handle, text, ctypes.byref(out))
                result = json.loads(ctypes.string_at(out.value).decode())
                lib.phoneauth_free(out.value)
                return result

            b, c, n = per_call_us([binding, bare, naive], calls)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps({"bindingOverhead": {
        "bindingUs": round(b, 2), "bareUs": round(c, 2), "naiveUs": round(n, 2),
        "overheadUs": round(b - c, 2), "naiveOverheadUs": round(n - c, 2), "calls": calls}}))


if __name__ == "__main__":
    main()
