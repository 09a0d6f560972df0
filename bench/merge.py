"""Merges the drivers' JSON outputs into one document and adds the comparisons between them.

Usage: merge.py c.json python.json handrolled.json [postgres.json [delivery.json [http.json [instructions.json [overhead.json [hooks.json]]]]]] > latest.json
"""
import json
import os
import platform
import sys
import time


def load(path):
    with open(path) as f:
        return json.load(f)


def main(c_path, py_path, hand_path, pg_path=None, delivery_path=None, http_path=None, instructions_path=None,
         overhead_path=None, hooks_path=None):
    c = load(c_path)
    py = load(py_path)
    hand = load(hand_path)
    pg = load(pg_path)["postgres"] if pg_path else {"skipped": "not run"}
    delivery = load(delivery_path)["delivery"] if delivery_path else {"skipped": "not run"}
    http = load(http_path)["http"] if http_path else {"skipped": "not run"}
    instructions = load(instructions_path)["instructions"] if instructions_path else {"skipped": "not run"}
    overhead = load(overhead_path)["bindingOverhead"] if overhead_path else {"skipped": "not run"}
    hooks = load(hooks_path)["hooks"] if hooks_path else {"skipped": "not run"}
    doc = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version()},
        "c": c["c"],
        "floor": c["floor"],
        "python": py["python"],
        "handrolled": hand["handrolled"],
        "postgres": pg,
        "delivery": delivery,
        "http": http,
        "instructions": instructions,
        "bindingOverhead": overhead,
        "hooks": hooks,
    }
    floor_us = c["floor"]["floorPerFlowUs"]
    for section in (doc["python"].get("threads1"), doc["python"].get("threads2"), doc["handrolled"]):
        if section and floor_us:
            section["ratioToFloor"] = round(section["costPerFlowUs"] / floor_us, 2)
            if "cpuUsPerFlow" in section:
                section["cpuRatioToFloor"] = round(section["cpuUsPerFlow"] / floor_us, 2)
    hand_fps = hand["handrolled"]["flowsPerSecond"]
    summary = {
        "cFlowsPerSecond1Thread": c["c"]["threads1"]["flowsPerSecond"],
        "cFlowsPerSecond2Threads": c["c"]["threads2"]["flowsPerSecond"],
        "pythonFlowsPerSecond1Thread": py["python"]["threads1"]["flowsPerSecond"],
        "pythonFlowsPerSecond2Threads": py["python"]["threads2"]["flowsPerSecond"],
        "handrolledFlowsPerSecond": hand_fps,
        "floorPerFlowUs": c["floor"]["floorPerFlowUs"],
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
    summary["targets"] = {
        "c2ThreadsAtLeast8000": summary["cFlowsPerSecond2Threads"] >= 8000,
        "pythonAboveHandrolled": best_py > hand_fps,
        "pythonAtLeast1.5xHandrolled": best_py >= 1.5 * hand_fps,
        "c2ThreadsAtLeast1.8x1Thread": summary["cFlowsPerSecond2Threads"] >= 1.8 * summary["cFlowsPerSecond1Thread"],
    }
    summary["c2ThreadsOver1Thread"] = round(summary["cFlowsPerSecond2Threads"] / summary["cFlowsPerSecond1Thread"], 2)
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
            fps, in_process = http[threads]["flowsPerSecond"], c["c"][threads]["flowsPerSecond"]
            summary["http"][threads] = {"flowsPerSecond": fps, "inProcessFlowsPerSecond": in_process,
                                        "ratioToInProcess": round(fps / in_process, 2) if in_process else None}
        summary["targets"]["httpAtLeast60PercentOfInProcess"] = all(
            v["ratioToInProcess"] is not None and v["ratioToInProcess"] >= 0.6 for v in summary["http"].values())
    else:
        summary["http"] = {"skipped": http.get("skipped", "no results")}
    if "perFlow" in instructions:
        summary["instructionsPerFlow"] = instructions["perFlow"]
        summary["instructionsRatioToFloor"] = instructions["ratioToFloor"]
        summary["targets"]["instructionsAtMost2xFloor"] = instructions["ratioToFloor"] <= 2.0
    if "overheadUs" in overhead:
        summary["bindingOverheadUs"] = overhead["overheadUs"]
        summary["targets"]["bindingOverheadAtMost4Us"] = overhead["overheadUs"] <= 4.0
    doc["summary"] = summary
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    if len(sys.argv) not in range(4, 10):
        sys.exit(__doc__)
    main(*sys.argv[1:])
