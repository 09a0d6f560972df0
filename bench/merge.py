"""Merges the drivers' JSON outputs into one document and adds the comparisons between them.

Usage: merge.py NAME=FILE ... > latest.json

Each input is named by what it holds, so the arguments' order and number can change with the
Makefile without the inputs being mixed up:
  c=c.json                 signin_bench.c: "c" and "floor" (required)
  python=python.json       signin_bench.py: "python" (required)
  handrolled=handrolled.json  handrolled.py: "handrolled" (required)
  postgres=, delivery=, http=, instructions=, overhead=, hooks=, pumping=
                           pg_bench.c, delivery_bench.py, http_bench.py, callgrind_bench.py,
                           binding_overhead.py ("bindingOverhead"), hooks_bench.py ("hooks",
                           "signInHooks"), pumping-simulation ("pumping"): optional; a section not given, or whose file cannot be
                           read, says {"skipped": "..."} and the rest is merged.
A name merge.py does not know is not an error either: its file's sections are copied as they are
(with a warning on stderr), so a driver added to the Makefile never costs a run its results.
"""
import json
import os
import platform
import sys
import time

# Input name -> the sections its file holds (the driver's top-level keys), in the document's order.
REQUIRED = {"c": ("c", "floor"), "python": ("python",), "handrolled": ("handrolled",)}
OPTIONAL = {"postgres": ("postgres",), "delivery": ("delivery",), "http": ("http",),
            "instructions": ("instructions",), "overhead": ("bindingOverhead",),
            "hooks": ("hooks", "signInHooks"), "pumping": ("pumping",)}


def load(path):
    with open(path) as f:
        return json.load(f)


def parse_args(args):
    inputs = {}
    for arg in args:
        name, sep, path = arg.partition("=")
        if not sep or not name or not path:
            sys.exit(f"merge.py: expected NAME=FILE, got {arg!r}\n\n{__doc__}")
        if name in inputs:
            sys.exit(f"merge.py: {name} given twice")
        inputs[name] = path
    missing = [name for name in REQUIRED if name not in inputs]
    if missing:
        sys.exit(f"merge.py: missing {', '.join(n + '=FILE' for n in missing)}\n\n{__doc__}")
    return inputs


def sections(inputs):
    """The document's sections, from every input: the required ones must load, an optional one
    that is missing or unreadable becomes {"skipped": why}, an unknown one is copied."""
    found = {}
    for name, keys in REQUIRED.items():
        doc = load(inputs[name])
        for key in keys:
            found[key] = doc[key]
    for name, keys in OPTIONAL.items():
        path = inputs.get(name)
        doc, why = None, "not run"
        if path:
            try:
                doc = load(path)
            except (OSError, ValueError) as e:
                why = f"unreadable {os.path.basename(path)}: {e}"
                print(f"merge.py: {why}", file=sys.stderr)
        for key in keys:
            if doc is not None and isinstance(doc.get(key), dict):
                found[key] = doc[key]
            else:
                found[key] = {"skipped": why if doc is None else f"no {key!r} in {os.path.basename(path)}"}
    for name, path in inputs.items():
        if name in REQUIRED or name in OPTIONAL:
            continue
        print(f"merge.py: {name}={path} is not an input merge.py knows: its sections are copied as they are",
              file=sys.stderr)
        try:
            doc = load(path)
        except (OSError, ValueError) as e:
            print(f"merge.py: unreadable {path}: {e}", file=sys.stderr)
            continue
        for key, value in (doc.items() if isinstance(doc, dict) else ()):
            if key not in found or "skipped" in found[key]:
                found[key] = value
    return found


def main(args):
    found = sections(parse_args(args))
    c, floor, py, hand = found["c"], found["floor"], found["python"], found["handrolled"]
    pg, delivery, http = found["postgres"], found["delivery"], found["http"]
    instructions, overhead = found["instructions"], found["bindingOverhead"]
    doc = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version()},
    }
    doc.update(found)
    floor_us = floor["floorPerFlowUs"]
    for section in (py.get("threads1"), py.get("threads2"), hand):
        if section and floor_us:
            section["ratioToFloor"] = round(section["costPerFlowUs"] / floor_us, 2)
            if "cpuUsPerFlow" in section:
                section["cpuRatioToFloor"] = round(section["cpuUsPerFlow"] / floor_us, 2)
    hand_fps = hand["flowsPerSecond"]
    summary = {
        "cFlowsPerSecond1Thread": c["threads1"]["flowsPerSecond"],
        "cFlowsPerSecond2Threads": c["threads2"]["flowsPerSecond"],
        "pythonFlowsPerSecond1Thread": py["threads1"]["flowsPerSecond"],
        "pythonFlowsPerSecond2Threads": py["threads2"]["flowsPerSecond"],
        "handrolledFlowsPerSecond": hand_fps,
        "floorPerFlowUs": floor_us,
    }
    best_py = max(summary["pythonFlowsPerSecond1Thread"], summary["pythonFlowsPerSecond2Threads"])
    summary["pythonBestOverHandrolled"] = round(best_py / hand_fps, 2) if hand_fps else None
    # PostgreSQL: per configuration (e.g. "p2t2": 2 processes x 2 threads), the engine's flows/s
    # and its ratio to the floor (the same SQL replayed directly with libpq).
    pg_configs = {name: section for name, section in pg.items()
                  if isinstance(section, dict) and "ratioToFloor" in section}
    if pg_configs:
        summary["postgres"] = {
            name: {key: section[key] for key in ("flowsPerSecond", "floorFlowsPerSecond", "ratioToFloor",
                                                 "roundTripsPerFlow", "retriesPer1000Flows", "poolSize")}
            for name, section in pg_configs.items()}
    else:
        summary["postgres"] = {"skipped": pg.get("skipped", "no results")}
    c1 = summary["cFlowsPerSecond1Thread"]
    summary["targets"] = {
        "c2ThreadsAtLeast8000": summary["cFlowsPerSecond2Threads"] >= 8000,
        "pythonAboveHandrolled": best_py > hand_fps,
        "pythonAtLeast1.5xHandrolled": best_py >= 1.5 * hand_fps,
        "c2ThreadsAtLeast1.8x1Thread": summary["cFlowsPerSecond2Threads"] >= 1.8 * c1,
    }
    summary["c2ThreadsOver1Thread"] = round(summary["cFlowsPerSecond2Threads"] / c1, 2) if c1 else None
    # How busy the one SQLite connection was, and the most a flow's time holding it allows.
    store = {name: c.get(name, {}).get("store") for name in ("threads1", "threads2")}
    if all(store.values()) and store["threads1"].get("busyUsPerFlow"):
        summary["cStore"] = dict(store, maxFlowsPerSecond=round(1e6 / store["threads1"]["busyUsPerFlow"]))
    if pg_configs:
        summary["targets"]["postgresAtLeastHalfOfFloor"] = all(
            section["ratioToFloor"] >= 0.5 for section in pg_configs.values())
    # Delivery: SMS/s per sms.concurrency ("default" when the key was omitted, as the target is about).
    runs = delivery.get("runs", [])
    if runs:
        summary["delivery"] = {
            (str(r["concurrency"]) if r.get("concurrencyConfigured", True) else "default"):
                {key: r[key] for key in ("smsPerSecond", "secondsToLastDelivery", "failures", "duplicates",
                                         "maxInFlight")}
            for r in runs}
        default = summary["delivery"].get("default")
        if default:
            summary["targets"]["deliveryDefaultAtLeast100SmsPerSecond"] = default["smsPerSecond"] >= 100
    else:
        summary["delivery"] = {"skipped": delivery.get("skipped", "no results")}
    # HTTP: flows/s through phoneauthd over loopback, as a share of the in-process C figure of
    # the same thread count measured in this run (the target: at least 60 %).
    if "threads1" in http:
        summary["http"] = {}
        for threads in ("threads1", "threads2"):
            fps, in_process = http[threads]["flowsPerSecond"], c[threads]["flowsPerSecond"]
            summary["http"][threads] = {"flowsPerSecond": fps, "inProcessFlowsPerSecond": in_process,
                                        "ratioToInProcess": round(fps / in_process, 2) if in_process else None}
        summary["targets"]["httpAtLeast60PercentOfInProcess"] = all(
            v["ratioToInProcess"] is not None and v["ratioToInProcess"] >= 0.6 for v in summary["http"].values())
    else:
        summary["http"] = {"skipped": http.get("skipped", "no results")}
    if "perFlow" in instructions:
        summary["instructionsPerFlow"] = instructions["perFlow"]
        summary["instructionsRatioToFloor"] = instructions["ratioToFloor"]
        # Without what the floor leaves out on purpose (JSON, the number's validation, the driver's parse).
        summary["instructionsRatioToFloorOfTheRest"] = instructions["ratioToFloorOfTheRest"]
        summary["targets"]["instructionsAtMost2xFloor"] = instructions["ratioToFloor"] <= 2.0
    if "overheadUs" in overhead:
        summary["bindingOverheadUs"] = overhead["overheadUs"]
        summary["targets"]["bindingOverheadAtMost4Us"] = overhead["overheadUs"] <= 4.0
    # Blocking hooks: what each adds to the call's median, in process and over HTTP.
    hooks = {name: {key: found[section][key] for key in ("inProcessAddedUs", "httpAddedUs")}
             for name, section in (("beforeSendSms", "hooks"), ("beforeSignIn", "signInHooks"))
             if "httpAddedUs" in found[section]}
    summary["hooksAddedUs"] = hooks or {"skipped": found["hooks"].get("skipped", "no results")}
    # SMS pumping: per attack shape, the share of its SMS refused after its first 100 requests and
    # the real users refused (the goal: 95 %, at most 0.5 % overall and 5 % in the attacked countries).
    pumping = found["pumping"]
    if "shapes" in pumping:
        keys = ("attackRefusedAfterFirst100Percent", "realRefusedPercent", "realRefusedInAttackedCountriesPercent",
                "goalMet")
        summary["pumping"] = {shape["shape"]: {key: shape[key] for key in keys} for shape in pumping["shapes"]}
    else:
        summary["pumping"] = {"skipped": pumping.get("skipped", "no results")}
    doc["summary"] = summary
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        sys.exit(__doc__)
    main(sys.argv[1:])
