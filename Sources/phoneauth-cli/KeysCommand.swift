import ArgumentParser
import PhoneAuthCore
import PhoneAuthKit

/// `phoneauth keys list|rotate|retire`: the ID-token signing keys.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Lists, rotates and retires the keys that sign ID tokens.",
        subcommands: [List.self, Rotate.self, Retire.self])

    static func show(_ keys: [SigningKeyInfo], _ options: EngineOptions) {
        if options.json {
            return options.printJSON(.object([("keys", .array(keys.compactMap { try? JSONCodec.parse($0.json) }))]))
        }
        var table = Table("KID", "ALGORITHM", "CREATED", "AGE (DAYS)", "ACTIVE", "RETIRES")
        for k in keys {
            table.add(k.kid, k.algorithm, k.createdAt, String(k.ageDays), k.active ? "yes" : "no", k.retiresAt ?? "-")
        }
        print(table.text)
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lists the keys that verify tokens now; the active one signs new tokens.")
        @OptionGroup var options: EngineOptions
        func run() throws { try options.withEngine { engine in KeysCommand.show(engine.signingKeys(), options) } }
    }

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Makes a new key that signs every later token.",
            discussion:
                "The previous keys keep verifying (and stay in the JWKS) until the tokens they signed have expired.")
        @OptionGroup var options: EngineOptions
        @Option(help: "ES256, RS256 or EdDSA (default: the configured signingAlgorithm).") var algorithm: String?
        func run() throws {
            try options.withEngine { engine in
                KeysCommand.show(
                    try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in
                        try engine.rotateSigningKey(algorithm: algorithm)
                    },
                    options)
            }
        }
    }

    struct Retire: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Retires a key at once (a leaked key): the tokens it signed stop verifying.",
            discussion:
                "Users signed in with those tokens must refresh them (their refresh tokens still work). "
                + "Other engines on the same database stop trusting the key within 10 seconds."
        )
        @OptionGroup var options: EngineOptions
        // A kid is base64url and may begin with "-" (`-Ba0NWFIqPs40bab`): what follows the options
        // is taken as it is, not as an unknown option.
        @Argument(parsing: .allUnrecognized, help: "The key's kid (see keys list).") var kid: [String]
        func validate() throws {
            guard kid.count == 1 else { throw ValidationError("Give exactly one kid (see keys list).") }
        }
        func run() throws {
            try options.withEngine { engine in
                KeysCommand.show(
                    try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in
                        try engine.retireSigningKey(kid: kid[0])
                    }, options)
            }
        }
    }
}
