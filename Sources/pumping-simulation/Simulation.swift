import Glibc
import PhoneAuthCore

/// One simulated deployment: an engine on a SQLite file, a clock the simulation moves, real users
/// arriving at random (most of whom enter their code) and, in the attack phase, an attacker.
/// Every request goes through the engine's JSON methods, as the C ABI's phoneauth_call does.
final class Simulation {
    /// What one phase counted.
    struct Tally {
        var realUsers = 0
        var realRefused = 0
        var realInAttacked = 0
        var realRefusedInAttacked = 0
        var attackRequests = 0
        var attackSent = 0
        var attackSentAfterFirst100 = 0
        var refusedBy: [String: Int] = [:]
        /// Codes the simulation waited for in vain (see CodeInbox).
        var codesMissed = 0
    }

    private enum Event {
        case realUser
        case enterCode(verificationId: String, code: String, phone: String, address: String, real: Bool)
        case attack(Int)
    }

    let dir: String
    let clock: ManualClock
    private var engine: Engine
    private let inbox = CodeInbox()
    private var random: SeededRandom
    private let realUsersPerHour: Double
    /// Numbers that signed in, some of which come back.
    private(set) var signedIn: [String]
    /// Each country's carrier networks (/24s) its real users come from.
    private let networks: [String: [String]]
    private var queue: [(at: Int64, order: Int, event: Event)] = []
    private var order = 0
    var tally = Tally()
    private var attackedCountries: Set<String> = []

    init(
        dir: String, clock: ManualClock, seed: UInt64, realUsersPerHour: Double, mode: PumpingPolicy.Mode,
        signedIn: [String] = []
    ) throws {
        self.dir = dir
        self.signedIn = signedIn
        self.clock = clock
        random = SeededRandom(seed: seed)
        self.realUsersPerHour = realUsersPerHour
        var config = EngineConfig(database: dir + "/auth.db")
        config.masterKey = Array(repeating: 7, count: 32)
        config.pumping.mode = mode
        engine = try Engine(config: config, clock: clock)
        engine.setSMSSender(inbox)
        var seeded = SeededRandom(seed: 42)
        networks = Dictionary(
            uniqueKeysWithValues: Country.all.enumerated().map { index, country in
                (country.region, (0..<30).map { _ in "100.\(64 + index).\(Int.random(in: 0...255, using: &seeded))" })
            })
    }

    func close() {
        tally.codesMissed = inbox.missed
        engine.close()
    }

    /// Real users only, for `hours`: the history the defense learns from.
    func warmUp(hours: Double) {
        run(until: clock.now().milliseconds + Int64(hours * 3_600_000), attack: nil)
    }

    /// The attack, with real users going on, until an hour after its last request; the tally
    /// counts from its start.
    func attack(_ shape: AttackShape) -> Tally {
        tally = Tally()
        attackedCountries = shape.countries
        let start = clock.now().milliseconds
        for i in 0..<shape.requests {
            schedule(.attack(i), at: start + Int64(i) * shape.seconds * 1000 / Int64(shape.requests))
        }
        run(until: start + shape.seconds * 1000 + 3_600_000, attack: shape)
        return tally
    }

    private func schedule(_ event: Event, at time: Int64) {
        order += 1
        let entry = (time, order, event)
        let index = queue.firstIndex { ($0.at, $0.order) > (time, order) } ?? queue.count
        queue.insert(entry, at: index)
    }

    private func run(until end: Int64, attack shape: AttackShape?) {
        schedule(.realUser, at: clock.now().milliseconds + nextArrival())
        while let next = queue.first, next.at <= end {
            queue.removeFirst()
            clock.advance(milliseconds: next.at - clock.now().milliseconds)
            switch next.event {
            case .realUser:
                realUser()
                schedule(.realUser, at: next.at + nextArrival())
            case let .enterCode(id, code, phone, address, real):
                enterCode(id, code: code, phone: phone, address: address, real: real)
            case let .attack(i):
                if let shape { attackRequest(i, shape) }
            }
        }
        queue.removeAll { if case .realUser = $0.event { return true } else { return false } }
        clock.advance(milliseconds: end - clock.now().milliseconds)
    }

    private func nextArrival() -> Int64 {
        Int64(-log(1 - Double.random(in: 0..<1, using: &random)) * 3_600_000 / realUsersPerHour)
    }

    private func realUser() {
        let returning = !signedIn.isEmpty && random.chance(0.3)
        let phone: String
        let country: Country
        if returning {
            phone = signedIn[Int.random(in: 0..<signedIn.count, using: &random)]
            country = Country.all.first { (try? PhoneNumber.parse(phone))?.region == $0.region } ?? Country.all[0]
        } else {
            country = Country.pick(&random)
            phone = country.number(&random)
        }
        // Most come from their carrier's networks; some from one never seen before.
        let network =
            random.chance(0.2) ? random.network() : networks[country.region]![Int.random(in: 0..<30, using: &random)]
        let address = network + random.host()
        let inAttacked = attackedCountries.contains(country.region)
        tally.realUsers += 1
        if inAttacked { tally.realInAttacked += 1 }
        switch verify(phone, from: address) {
        case let .started(id):
            // One in ten never enters the code; the others do within a minute and a half. The SMS
            // comes before the clock moves on (as it does within seconds), so the worker's lease
            // on it has not run out by then.
            if random.chance(0.9), let code = inbox.code(for: id) {
                schedule(
                    .enterCode(verificationId: id, code: code, phone: phone, address: address, real: true),
                    at: clock.now().milliseconds + Int64.random(in: 20_000...90_000, using: &random))
            }
        case let .refused(reason):
            tally.realRefused += 1
            if inAttacked { tally.realRefusedInAttacked += 1 }
            tally.refusedBy[reason, default: 0] += 1
        }
    }

    private func attackRequest(_ i: Int, _ shape: AttackShape) {
        tally.attackRequests += 1
        let phone = shape.number(i, &random)
        let address = shape.address(i, &random)
        guard case let .started(id) = verify(phone, from: address) else { return }
        tally.attackSent += 1
        if i >= 100 { tally.attackSentAfterFirst100 += 1 }
        if shape.ownedShare > 0, random.chance(shape.ownedShare), let code = inbox.code(for: id) {
            schedule(
                .enterCode(verificationId: id, code: code, phone: phone, address: address, real: false),
                at: clock.now().milliseconds + 30_000)
        }
    }

    private enum Outcome {
        case started(String)
        case refused(String)
    }

    private func verify(_ phone: String, from address: String) -> Outcome {
        let (status, result) = engine.call(
            "verifyPhoneNumber", params: .object([("phoneNumber", .string(phone)), ("clientIp", .string(address))]))
        guard status == 0, let id = result["verificationId"]?.stringValue else {
            let error = result["error"]
            let reason = error?["details"]?["reason"]?.stringValue ?? error?["code"]?.stringValue ?? "unknown"
            // A pumping refusal by the kind of scope that tripped: suspectedPumping.prefix, …
            return .refused(reason + (error?["details"]?["scopeKind"]?.stringValue.map { "." + $0 } ?? ""))
        }
        return .started(id)
    }

    private func enterCode(_ id: String, code: String, phone: String, address: String, real: Bool) {
        let credential: JSONValue = .object([("verificationId", .string(id)), ("verificationCode", .string(code))])
        let (status, _) = engine.call(
            "signInWithCredential", params: .object([("credential", credential), ("clientIp", .string(address))]))
        if status == 0, real { signedIn.append(phone) }
    }
}
