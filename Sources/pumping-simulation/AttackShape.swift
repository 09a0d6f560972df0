/// How an attacker asks for codes: which numbers, from which addresses, how fast, and whether
/// it enters some codes itself (on numbers it owns) to look like real users.
struct AttackShape {
    let name: String
    let requests: Int
    /// Over how many simulated seconds the requests are spread evenly.
    let seconds: Int64
    /// The n-th request's number.
    let number: (Int, inout SeededRandom) -> String
    /// The n-th request's client address.
    let address: (Int, inout SeededRandom) -> String
    /// The share of its requests to numbers it owns, whose codes it enters.
    var ownedShare = 0.0

    /// The countries its numbers are in (whose real users the goal's 5 % is about).
    let countries: Set<String>

    /// Three mobile ranges of Uzbekistan, Kyrgyzstan and Azerbaijan, as the measurement.
    static let ranges = ["+99890123", "+99670012", "+99450123"]

    /// Sequential numbers in the three ranges, a request to each range in turn.
    static func sequential(_ n: Int) -> String {
        let range = ranges[n % ranges.count]
        let index = String(n / ranges.count % 10_000)
        return range + String(repeating: "0", count: 4 - index.count) + index
    }

    /// A random address outside the real users' networks: every request from a new /24.
    static func anywhere(_ n: Int, _ random: inout SeededRandom) -> String { random.network() + random.host() }

    static func shapes(scale: Double) -> [AttackShape] {
        let n = { (count: Int) in max(200, Int(Double(count) * scale)) }
        let attacked: Set<String> = ["UZ", "KG", "AZ"]
        return [
            // From five networks of a hosting provider, a new address in them each time.
            AttackShape(
                name: "sequential", requests: n(3000), seconds: 3600, number: { i, _ in sequential(i) },
                address: { i, random in "185.220.\(100 + i % 5)" + random.host() },
                countries: attacked),
            AttackShape(
                name: "randomAcrossOneCountry", requests: n(3000), seconds: 3600,
                number: { _, random in Country.named("UZ").number(&random) }, address: anywhere, countries: ["UZ"]),
            // 20 an hour for two days, across the three countries: under every hourly threshold.
            AttackShape(
                name: "slow", requests: n(960), seconds: max(2 * 3600, Int64(48 * 3600 * scale)),
                number: { i, random in Country.named(["UZ", "KG", "AZ"][i % 3]).number(&random) },
                address: anywhere, countries: attacked),
            AttackShape(
                name: "addressRotation", requests: n(3000), seconds: 3600, number: { i, _ in sequential(i) },
                address: anywhere, countries: attacked),
            AttackShape(
                name: "fakedConversion", requests: n(3000), seconds: 3600, number: { i, _ in sequential(i) },
                address: anywhere, ownedShare: 0.1, countries: attacked),
        ]
    }
}
