import Glibc
import PhoneAuthCore

// The SMS pumping simulation (`make bench`'s "pumping" section): real users for a warm-up, then
// each attack shape on a copy of that state, with the default configuration; one JSON document
// on standard output. BENCH_PUMPING_SCALE (default 1) scales the attacks and the warm-up (the
// smoke run uses a small one); BENCH_PUMPING_SEED picks the traffic.

func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

let scale = environment("BENCH_PUMPING_SCALE").flatMap(Double.init) ?? 1
let seed = environment("BENCH_PUMPING_SEED").flatMap(UInt64.init) ?? 2026
let realUsersPerHour = 300.0
let warmUpHours = max(2, 48 * scale)

func temporaryDirectory() -> String {
    var template = Array("/tmp/phoneauth-pumping-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
}

/// Copies the warmed-up database (closed, so whole in its main file) for one attack.
func copyDatabase(from source: String, to target: String) {
    guard let input = fopen(source + "/auth.db", "rb"), let output = fopen(target + "/auth.db", "wb") else {
        fatalError("cannot copy \(source)/auth.db")
    }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while case let n = fread(&buffer, 1, buffer.count, input), n > 0 { fwrite(buffer, 1, n, output) }
    fclose(input)
    fclose(output)
}

/// Removes a run's folder (the simulation's own, under /tmp).
func remove(_ dir: String) { _ = system("rm -rf '\(dir)'") }

func percent(_ part: Int, _ whole: Int) -> JSONValue {
    .double(whole == 0 ? 0 : (Double(part) * 10_000 / Double(whole)).rounded() / 100)
}

func report(_ shape: AttackShape, _ t: Simulation.Tally) -> JSONValue {
    let after100 = max(0, t.attackRequests - 100)
    let refusedAfter100 = after100 - t.attackSentAfterFirst100
    let met =
        Double(refusedAfter100) >= 0.95 * Double(after100) && Double(t.realRefused) <= 0.005 * Double(t.realUsers)
        && Double(t.realRefusedInAttacked) <= 0.05 * Double(t.realInAttacked)
    return .object([
        ("shape", .string(shape.name)), ("attackRequests", .int(Int64(t.attackRequests))),
        ("attackSent", .int(Int64(t.attackSent))), ("attackSentAfterFirst100", .int(Int64(t.attackSentAfterFirst100))),
        ("attackRefusedAfterFirst100Percent", percent(refusedAfter100, after100)),
        ("realUsers", .int(Int64(t.realUsers))), ("realRefused", .int(Int64(t.realRefused))),
        ("realRefusedPercent", percent(t.realRefused, t.realUsers)),
        ("realUsersInAttackedCountries", .int(Int64(t.realInAttacked))),
        ("realRefusedInAttackedCountries", .int(Int64(t.realRefusedInAttacked))),
        ("realRefusedInAttackedCountriesPercent", percent(t.realRefusedInAttacked, t.realInAttacked)),
        ("codesMissed", .int(Int64(t.codesMissed))),
        ("realRefusedBy", .object(t.refusedBy.sorted { $0.key < $1.key }.map { ($0.key, .int(Int64($0.value))) })),
        ("goalMet", .bool(met)),
    ])
}

do {
    let warm = temporaryDirectory()
    let clock = ManualClock()
    let warmUp = try Simulation(
        dir: warm, clock: clock, seed: seed, realUsersPerHour: realUsersPerHour, mode: .enforce)
    warmUp.warmUp(hours: warmUpHours)
    let warmTally = warmUp.tally
    let signedIn = warmUp.signedIn
    warmUp.close()
    defer { remove(warm) }
    let attackStart = clock.now()

    var results: [JSONValue] = []
    var unprotected: JSONValue = .null
    let shapes = AttackShape.shapes(scale: scale)
    for (index, shape) in shapes.enumerated() {
        for mode in index == 3 ? [PumpingPolicy.Mode.enforce, .off] : [.enforce] {
            let dir = temporaryDirectory()
            copyDatabase(from: warm, to: dir)
            let shapeClock = ManualClock(attackStart)
            let simulation = try Simulation(
                dir: dir, clock: shapeClock, seed: seed &+ UInt64(index) &+ 1, realUsersPerHour: realUsersPerHour,
                mode: mode, signedIn: signedIn)
            let tally = simulation.attack(shape)
            simulation.close()
            remove(dir)
            if mode == .off { unprotected = report(shape, tally) } else { results.append(report(shape, tally)) }
            StandardStream.error.write(
                "pumping: \(shape.name)\(mode == .off ? " (off)" : ""): \(tally.attackSent) of \(tally.attackRequests) "
                    + "attack SMS sent, \(tally.realRefused) of \(tally.realUsers) real users refused\n")
        }
    }
    let document: JSONValue = .object([
        (
            "pumping",
            .object([
                ("configuration", .string("default")), ("seed", .int(Int64(seed))), ("scale", .double(scale)),
                ("warmUpHours", .double(warmUpHours)), ("realUsersPerHour", .double(realUsersPerHour)),
                ("warmUpRealUsers", .int(Int64(warmTally.realUsers))),
                ("warmUpRealRefused", .int(Int64(warmTally.realRefused))),
                ("warmUpCodesMissed", .int(Int64(warmTally.codesMissed))),
                ("shapes", .array(results)), ("addressRotationWithDefenseOff", unprotected),
            ])
        )
    ])
    StandardStream.output.write(JSONCodec.serialize(document) + "\n")
} catch {
    StandardStream.error.write("pumping: \(error)\n")
    exit(1)
}
