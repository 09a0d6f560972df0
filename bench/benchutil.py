"""Helpers shared by the Python benchmark drivers."""
import math
import os


def phone_number(i):
    """The i-th of 1,000,000 distinct valid US numbers, +1 650 2xx xxxx (as the C driver)."""
    return f"+1650{200 + (i // 10000) % 100:03d}{i % 10000:04d}"


def percentiles(values_ns):
    """count, p50, p90, p99 and max (nearest rank) in µs of durations in ns."""
    v = sorted(values_ns)
    n = len(v)

    def pct(p):
        if not n:
            return 0.0
        rank = min(n, max(1, math.ceil(p * n - 1e-9)))
        return round(v[rank - 1] / 1000, 2)

    return {"count": n, "p50": pct(.50), "p90": pct(.90), "p99": pct(.99),
            "max": round(v[-1] / 1000, 2) if n else 0.0}


def flow_count():
    """Flows per configuration: $BENCH_FLOWS_PY, else $BENCH_FLOWS, else 5000."""
    for name in ("BENCH_FLOWS_PY", "BENCH_FLOWS"):
        v = os.environ.get(name)
        if v:
            n = int(v)
            if n > 0:
                return min(n, 900000)
    return 5000
