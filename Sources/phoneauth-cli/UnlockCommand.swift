import ArgumentParser
import PhoneAuthCore
import PhoneAuthKit

/// `phoneauth unlock +1…`: ends a number's lockout (an attacker keeping a victim locked out).
struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock", abstract: "Ends a phone number's lockout and its run of wrong codes.",
        discussion: "Lockouts are global: a number is locked out in every tenant at once, so unlock takes no --tenant.")
    @OptionGroup var options: EngineOptions
    @Argument(help: "The phone number, e.g. +16505551234.") var phoneNumber: String

    func run() throws {
        try options.withEngine { engine in
            let unlocked = try options.typed { () throws(PhoneAuthKit.PhoneAuthError) in
                try engine.unlockPhoneNumber(phoneNumber)
            }
            if options.json { return options.printJSON(.object([("unlocked", .bool(unlocked))])) }
            let shown =
                options.showNumbers
                ? phoneNumber : PhoneNumber.mask((try? PhoneNumber.parse(phoneNumber).e164) ?? phoneNumber)
            print(unlocked ? "\(shown) is unlocked." : "\(shown) was not locked.")
        }
    }
}
