import PhoneAuthCore

/// A country the simulated users live in: its share of the real users, how its mobile numbers
/// are made (a prefix, then random digits), and the carrier networks its users come from.
struct Country {
    let region: String
    /// Of every 1000 real users.
    let perMille: Int
    /// Mobile number starts (E.164) and how many digits follow each.
    let mobile: [(start: String, digits: Int)]

    static let all: [Country] = [
        Country(
            region: "US", perMille: 330,
            mobile: [("+1415", 7), ("+1212", 7), ("+1312", 7), ("+1512", 7), ("+1646", 7), ("+1702", 7)]),
        Country(region: "GB", perMille: 150, mobile: [("+447", 9)]),
        Country(region: "DE", perMille: 150, mobile: [("+49151", 8), ("+49160", 7), ("+49170", 7), ("+49176", 8)]),
        Country(region: "IN", perMille: 190, mobile: [("+919", 9), ("+918", 9), ("+917", 9), ("+916", 9)]),
        Country(region: "BR", perMille: 120, mobile: [("+55119", 8), ("+55219", 8), ("+55319", 8)]),
        Country(region: "UZ", perMille: 20, mobile: [("+99890", 7), ("+99891", 7), ("+99893", 7), ("+99897", 7)]),
        Country(region: "KG", perMille: 20, mobile: [("+996700", 6), ("+996555", 6), ("+996770", 6)]),
        Country(region: "AZ", perMille: 20, mobile: [("+99450", 7), ("+99451", 7), ("+99455", 7), ("+99470", 7)]),
    ]

    static func named(_ region: String) -> Country { all.first { $0.region == region }! }

    /// A random valid mobile number of the country (libphonenumber decides what is valid).
    func number(_ random: inout SeededRandom) -> String {
        while true {
            let (start, digits) = mobile[Int.random(in: 0..<mobile.count, using: &random)]
            let candidate = start + random.digits(digits)
            if let phone = try? PhoneNumber.parse(candidate), phone.region == region { return phone.e164 }
        }
    }

    /// A random country, by the real users' shares.
    static func pick(_ random: inout SeededRandom) -> Country {
        var n = Int.random(in: 0..<1000, using: &random)
        for country in all {
            if n < country.perMille { return country }
            n -= country.perMille
        }
        return all[0]
    }
}
