import Glibc
import NIOCore
import NIOPosix
import PhoneAuthCore
import PhoneAuthKit

/// Development mode (`server.emulatorCompat`, loopback only): what Firebase's Auth Emulator does
/// that test suites rely on. Codes are not sent but kept ten minutes for
/// `GET /emulator/v1/projects/{p}/verificationCodes`, and firebase-admin's unsigned custom tokens
/// sign in. None of this exists when the flag is off: the server then has no instance of it.
/// The engine hands an SMS to `keep` on its delivery thread, which may run after the call that
/// made the code answered; the calls that send codes wait for it (`awaitCode`), so a test suite
/// that reads the code at once, as suites written for Firebase's emulator do, finds it.
final class EmulatorSupport: @unchecked Sendable {  // the kept codes are only touched under `lock`
    struct Sent {
        let code: String
        let phoneNumber: String
        let sessionInfo: String
        let at: Timestamp
    }

    private let lock = Lock()
    /// By verification ID, and the order they came in (for dropping the old ones from the front).
    private var bySession: [String: Sent] = [:]
    private var order: [String] = []
    private var head = 0
    /// Calls waiting for the code of a verification (`awaitCode`), woken by `keep` or their timeout.
    private var waiters: [String: [Waiter]] = [:]
    private var nextToken: UInt64 = 0
    private let codeLength: Int
    static let keepSeconds: Int64 = 600
    static let audience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    init(codeLength: Int) { self.codeLength = codeLength }

    /// Keeps the message's code instead of sending it (the engine's sender, on every channel).
    /// A message without one is left for a retry.
    func keep(_ message: SMSMessage) -> Bool {
        let code = message.code
        guard code.count == codeLength, code.allSatisfy(\.isNumber) else { return false }
        let now = SystemClock().now()
        lock.withLock {
            dropOld(now: now)
            if bySession[message.verificationID] == nil { order.append(message.verificationID) }
            bySession[message.verificationID] = Sent(
                code: code, phoneNumber: message.to, sessionInfo: message.verificationID, at: now)
            return waiters.removeValue(forKey: message.verificationID) ?? []
        }.forEach {
            $0.timeout?.cancel()
            $0.continuation.resume()
        }
        return true
    }

    private struct Waiter {
        let token: UInt64
        let continuation: CheckedContinuation<Void, Never>
        var timeout: Scheduled<Void>?
    }

    /// Returns once the code of `verificationID` is kept, or once the engine owes it no SMS (a
    /// test number, a delivery that ended otherwise); at most about 10 s, for a message the engine
    /// keeps failing to hand over. `keep` wakes it at once; holds no thread while it waits.
    /// `auth` is the view of the verification's tenant; for a code a signed-in user asked for
    /// (`idToken`, an enrolment), a view with no tenant is narrowed to the token's.
    /// `messageOwed`: the call said a message goes out (its verification has a channel). Most are
    /// kept within a few milliseconds, so the engine is asked about the delivery only for one
    /// still not kept after `firstWait`: that question is most of this wait's work.
    func awaitCode(of verificationID: String, auth: PhoneAuth, idToken: String? = nil, messageOwed: Bool = false) async
    {
        if isKept(verificationID) { return }
        if messageOwed {
            await waitForKeep(of: verificationID, upTo: Self.firstWait)
            if isKept(verificationID) { return }
        }
        var auth = auth
        if auth.tenantID == nil, let idToken, let tenant = (try? await auth.verifyIDToken(idToken))?.tenantID,
            let view = try? auth.tenant(tenant)
        {
            auth = view
        }
        let params = JSONCodec.serialize(.object([("verificationId", .string(verificationID))]))
        for _ in 0..<Self.awaitRounds {
            if isKept(verificationID) { return }
            let (status, json) = await auth.call("getVerificationStatus", paramsJSON: params)
            guard status == 0, (try? JSONCodec.parse(json))?["delivery"]?.stringValue == "pending" else { return }
            await waitForKeep(of: verificationID, upTo: .milliseconds(100))
        }
    }

    private func isKept(_ verificationID: String) -> Bool { lock.withLock { bySession[verificationID] != nil } }

    /// How long a code owed a message is waited for before the engine is asked about its delivery.
    static let firstWait = TimeAmount.milliseconds(50)

    /// Suspends until `keep` has the code of `verificationID`, or `limit` has passed. The timeout is
    /// an event loop's timer, which `keep` cancels: a code kept in time costs no wake-up of a
    /// thread that would only find it gone.
    private func waitForKeep(of verificationID: String, upTo limit: TimeAmount) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let token: UInt64? = lock.withLock {
                guard bySession[verificationID] == nil else { return nil }
                nextToken += 1
                waiters[verificationID, default: []].append(Waiter(token: nextToken, continuation: continuation))
                return nextToken
            }
            guard let token else { return continuation.resume() }
            let timeout = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: limit) {
                if let waiter = self.takeWaiter(verificationID, token) { waiter.continuation.resume() }
            }
            let armed = lock.withLock { () -> Bool in
                guard let index = waiterIndex(verificationID, token) else { return false }
                waiters[verificationID]![index].timeout = timeout
                return true
            }
            // `keep` came first: the waiter is resumed, and its timer is not needed.
            if !armed { timeout.cancel() }
        }
    }

    /// Where the waiter of `token` is among `verificationID`'s (the lock held); nil once taken out.
    private func waiterIndex(_ verificationID: String, _ token: UInt64) -> Int? {
        waiters[verificationID]?.firstIndex(where: { $0.token == token })
    }

    /// The waiter of `token`, taken out: each is resumed once, by `keep` or by its timeout.
    private func takeWaiter(_ verificationID: String, _ token: UInt64) -> Waiter? {
        lock.withLock {
            guard let index = waiterIndex(verificationID, token) else { return nil }
            let waiter = waiters[verificationID]!.remove(at: index)
            if waiters[verificationID]?.isEmpty == true { waiters[verificationID] = nil }
            return waiter
        }
    }

    private static let awaitRounds = 100

    private func dropOld(now: Timestamp) {
        while head < order.count, let first = bySession[order[head]],
            now.milliseconds - first.at.milliseconds > Self.keepSeconds * 1000
        {
            bySession[order[head]] = nil
            head += 1
        }
        if head > 1024 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
    }

    /// The codes of the last ten minutes, oldest first; only `sessionInfo`'s when given (a
    /// PhoneAuth addition: test tooling and the HTTP bench look one up without listing them all).
    func verificationCodes(sessionInfo: String?) -> JSONValue {
        let now = SystemClock().now()
        let recent: [Sent] = lock.withLock {
            dropOld(now: now)
            if let sessionInfo { return bySession[sessionInfo].map { [$0] } ?? [] }
            return order[head...].compactMap { bySession[$0] }
        }
        return .object([
            (
                "verificationCodes",
                .array(
                    recent.map {
                        .object([
                            ("code", .string($0.code)), ("phoneNumber", .string($0.phoneNumber)),
                            ("sessionInfo", .string($0.sessionInfo)),
                        ])
                    })
            )
        ])
    }

    /// firebase-admin's emulator-mode custom token (`alg: none`, no signature) as a token the engine
    /// signed for the same uid, claims and tenant; nil when the token is not one of those.
    func resign(unsignedCustomToken token: String, auth: PhoneAuth) async throws -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].isEmpty,
            let headerBytes = Base64URL.decode(parts[0]),
            let header = try? JSONCodec.parse(String(decoding: headerBytes, as: UTF8.self)),
            header["alg"]?.stringValue == "none"
        else { return nil }
        guard let payloadBytes = Base64URL.decode(parts[1]),
            let payload = try? JSONCodec.parse(String(decoding: payloadBytes, as: UTF8.self)),
            payload["aud"]?.stringValue == Self.audience, let uid = payload["uid"]?.stringValue
        else {
            throw ToolkitError(
                400, "INVALID_CUSTOM_TOKEN", "The unsigned custom token is not one firebase-admin makes.")
        }
        let claims = payload["claims"].map { JSONCodec.serialize($0) }
        // firebase-admin's tenant clients put the tenant in `tenant_id`; "" is the default pool.
        let signer = try auth.tenant(payload["tenant_id"]?.stringValue ?? "")
        return try await signer.createCustomToken(uid: uid, claimsJSON: claims)
    }
}
