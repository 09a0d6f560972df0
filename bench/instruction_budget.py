"""make check-instructions: the calling thread's instructions per sign-in flow, held to the
baseline in instructions-baseline.json.

signin_bench (BENCH_ONLY=flows: verify, SMS to the callback, credential, sign in a new user) runs
under callgrind for BUDGET_FLOWS and then more flows; the difference in signin_flow's inclusive
cost, divided by the difference in flows, is the cost of one flow on the thread that makes the
calls (callgrind_bench.py's callerPerFlow, which the engine's own threads and the machine's load
do not move: repeated runs agree within 0.2 %). More than TOLERANCE above the baseline fails; more
than TOLERANCE below fails too, so that a saving is written down and the next change cannot spend
it unnoticed. A change that must cost more raises "callerPerFlow" in the baseline in the same
commit and says why and by how much in its message.

Usage: instruction_budget.py            check against the baseline
       instruction_budget.py --print    measure and print only
"""
import json
import os
import sys
import tempfile

import callgrind_bench

HERE = os.path.dirname(os.path.abspath(__file__))
BASELINE = os.path.join(HERE, "instructions-baseline.json")
BUDGET_FLOWS = (40, 120)
TOLERANCE = 0.03


def measure():
    low, high = BUDGET_FLOWS
    with tempfile.TemporaryDirectory(prefix="phoneauth-budget-") as directory:
        return callgrind_bench.per_unit("flows", low, high, directory, callgrind_bench.flow_units(low, high))[2]["flow"]


def main():
    measured = round(measure())
    if sys.argv[1:] == ["--print"]:
        print(json.dumps({"callerPerFlow": measured, "runs": list(BUDGET_FLOWS)}))
        return 0
    with open(BASELINE) as f:
        baseline = json.load(f)["callerPerFlow"]
    change = measured / baseline - 1
    verdict = f"{measured:,} instructions per sign-in flow on the calling thread, baseline {baseline:,} ({change:+.1%})"
    if change > TOLERANCE:
        print(f"check-instructions: {verdict}: over the budget ({TOLERANCE:.0%}). Make the change cheaper, or raise "
              f"callerPerFlow in {os.path.relpath(BASELINE)} in the same commit and say why in its message.",
              file=sys.stderr)
        return 1
    if change < -TOLERANCE:
        print(f"check-instructions: {verdict}: cheaper than the baseline by more than {TOLERANCE:.0%}. Lower "
              f"callerPerFlow in {os.path.relpath(BASELINE)} to {measured} in this commit.", file=sys.stderr)
        return 1
    print(f"check-instructions: {verdict}, within {TOLERANCE:.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
