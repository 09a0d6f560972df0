#!/usr/bin/env python3
"""PhoneAuthKit's public surface, checked from the built module (make check-swift-api).

- Every public symbol of PhoneAuthKit has a documentation comment.
- The public symbols are exactly those in PhoneAuthKit.api (a change to the surface is a change to
  that file, made on purpose: `check_api.py --update`).
- PhoneAuthCore has no public symbol: what the package offers Swift apps is PhoneAuthKit only.
- The DocC catalogue builds with the symbols, warnings (broken links) as errors.
- No target in PhoneAuthKit's build closure has unsafe flags: SwiftPM refuses them in a package
  that another one adds by URL and version.
- The hosts in this package (phoneauthd, the phoneauth command) drive the engine through
  PhoneAuthKit: their sources name none of the core's engine or store types (only `copy`, which
  works on the stores below the engine, may).

Needs a debug build (`swift build`): the symbols are read from .build/debug/Modules.
"""
import json
import platform
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
API_FILE = Path(__file__).with_name("PhoneAuthKit.api")
C_TARGETS_WITH_INCLUDE = ["CCurl", "CPhoneNumbers", "CRandom"]


def extract(module, out):
    """The module's public symbol graph, from the built .swiftmodule (no rebuild)."""
    args = ["swift-symbolgraph-extract", "-module-name", module, "-I", str(ROOT / ".build/debug/Modules"),
            "-target", f"{platform.machine()}-unknown-linux-gnu", "-output-dir", str(out), "-minimum-access-level", "public",
            "-skip-inherited-docs",
            "-Xcc", "-I/usr/include/postgresql"]
    for target in ["CSQLite", "CJansson", "CLibPQ", "CFido2"]:
        args += ["-I", str(ROOT / "Sources" / target)]
    for target in C_TARGETS_WITH_INCLUDE:
        args += ["-I", str(ROOT / "Sources" / target / "include"),
                 "-Xcc", f"-fmodule-map-file={ROOT}/.build/debug/{target}.build/module.modulemap"]
    subprocess.run(args, check=True)
    # The module's own graph, and one per other module it extends (PhoneAuthKit@Swift...).
    symbols = []
    for path in sorted(out.glob(f"{module}.symbols.json")) + sorted(out.glob(f"{module}@*.symbols.json")):
        symbols += json.loads(path.read_text())["symbols"]
    return {"symbols": symbols}


def declared(graph):
    """(line for the .api file, has a doc comment) of each symbol declared in the source."""
    for symbol in graph["symbols"]:
        if "location" not in symbol:  # synthesized (Hashable's ==, hash(into:)...)
            continue
        name = ".".join(symbol["pathComponents"])
        kind = symbol["kind"]["identifier"].removeprefix("swift.")
        text = "".join(f["spelling"] for f in symbol["declarationFragments"])
        doc = "".join(line["text"] for line in symbol.get("docComment", {}).get("lines", [])).strip()
        yield f"{kind} {name}: {' '.join(text.split())}", bool(doc)


def unsafe_targets(product):
    """Targets of this package that `product` builds and that carry unsafe flags."""
    manifest = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True,
                                         capture_output=True, text=True).stdout)
    targets = {t["name"]: t for t in manifest["targets"]}
    todo = list(next(p for p in manifest["products"] if p["name"] == product)["targets"])
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in targets:
            continue
        seen.add(name)
        for dependency in targets[name]["dependencies"]:
            if "byName" in dependency or "target" in dependency:
                todo.append((dependency.get("byName") or dependency.get("target"))[0])
    return sorted(name for name in seen if any("unsafeFlags" in setting["kind"] for setting in targets[name]["settings"]))


# The core's engine facade and store types; the hosts may use its JSON and configuration readers.
INTERNAL_TYPES = re.compile(r"\b(Engine|UserRecord|SQLStore|Store|SessionInfo|EventSink|SMSSender|PushSender)\b")
HOSTS = {"phoneauthd": set(), "phoneauth-cli": {"CopyCommand.swift"}}


def internals_in_hosts():
    """Lines of the hosts' sources that name an engine-internal type, as file:line: text."""
    found = []
    for host, allowed in HOSTS.items():
        for path in sorted((ROOT / "Sources" / host).glob("*.swift")):
            if path.name in allowed:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                code = line.split("//")[0]
                if INTERNAL_TYPES.search(code):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def main():
    failures = []
    internals = internals_in_hosts()
    if internals:
        failures.append("the hosts reach into PhoneAuthCore's engine instead of PhoneAuthKit:\n  " + "\n  ".join(internals))
    unsafe = unsafe_targets("PhoneAuthKit")
    if unsafe:
        failures.append(f"PhoneAuthKit's build closure has targets with unsafe flags: {', '.join(unsafe)}")
    with tempfile.TemporaryDirectory() as scratch:
        graphs = Path(scratch) / "graphs"
        graphs.mkdir()
        kit = extract("PhoneAuthKit", graphs)
        (Path(scratch) / "core").mkdir()
        core = extract("PhoneAuthCore", Path(scratch) / "core")
        leaked = [".".join(s["pathComponents"]) for s in core["symbols"]]
        if leaked:
            failures.append(f"PhoneAuthCore has public symbols (make them package): {', '.join(sorted(leaked)[:20])}")
        symbols = sorted(set(declared(kit)))
        undocumented = [line for line, documented in symbols if not documented]
        if undocumented:
            failures.append("public symbols without a documentation comment:\n  " + "\n  ".join(undocumented))
        surface = "".join(line + "\n" for line, _ in symbols)
        if "--update" in sys.argv:
            API_FILE.write_text(surface)
        elif surface != API_FILE.read_text():
            diff = subprocess.run(["diff", "-u", str(API_FILE), "-"], input=surface, text=True, capture_output=True).stdout
            failures.append(f"the public surface differs from {API_FILE.name} (run check_api.py --update if meant):\n{diff}")
        docc = subprocess.run(["docc", "convert", str(ROOT / "Sources/PhoneAuthKit/PhoneAuthKit.docc"),
                               "--additional-symbol-graph-dir", str(graphs), "--output-path", str(Path(scratch) / "doc"),
                               "--fallback-display-name", "PhoneAuthKit", "--fallback-bundle-identifier", "PhoneAuthKit",
                               "--warnings-as-errors"], capture_output=True, text=True)
        if docc.returncode != 0:
            failures.append("docc convert failed:\n" + docc.stdout[-4000:] + docc.stderr[-4000:])
    if failures:
        print("\n\n".join(failures), file=sys.stderr)
        return 1
    print(f"PhoneAuthKit: {len(symbols)} public symbols, all documented; PhoneAuthCore: none public; DocC builds; "
          "the hosts use PhoneAuthKit.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
