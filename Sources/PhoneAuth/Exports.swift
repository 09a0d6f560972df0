import Glibc
import PhoneAuthCore

// The C ABI. Every function here is declared in include/phoneauth.h; nothing else is exported.
// No path from these functions may trap: errors become error objects.

// Static text lives in the binary's read-only data: nothing to allocate, nothing to free.
private let versionText: StaticString = "0.1.0"
private let abiVersion: Int32 = 1

private func cString(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("phoneauth_version")
public func phoneauth_version() -> UnsafePointer<CChar> { cString(versionText) }

@_cdecl("phoneauth_abi_version")
public func phoneauth_abi_version() -> Int32 { abiVersion }

@_cdecl("phoneauth_strerror")
public func phoneauth_strerror(_ status: Int32) -> UnsafePointer<CChar> {
    if status == 0 { return cString("ok: success") }
    return strerrorTexts[status].map { UnsafePointer($0) } ?? cString("unknown status")
}

/// "name: what it means" for every code of the catalogue, made once and never freed: the
/// pointers phoneauth_strerror returns stay valid for the life of the process. Nothing writes
/// through them, so sharing them between threads is safe, which their type cannot say.
nonisolated(unsafe) private let strerrorTexts: [Int32: UnsafeMutablePointer<CChar>] = Dictionary(
    uniqueKeysWithValues: PhoneAuthError.Code.allCases.map { ($0.status, strdup("\($0.name): \($0.entry.summary)")!) })

@_cdecl("phoneauth_free")
public func phoneauth_free(_ pointer: UnsafeMutableRawPointer?) { free(pointer) }

@_cdecl("phoneauth_open")
public func phoneauth_open(
    _ configJSON: UnsafePointer<CChar>?, _ errorJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> OpaquePointer? {
    errorJSON?.pointee = nil
    do {
        guard let configJSON else {
            throw PhoneAuthError(
                .invalidConfiguration, "The configuration is NULL; pass a JSON object with at least \"database\".")
        }
        let json: JSONValue
        do { json = try ABI.parse(configJSON, what: "configuration") } catch let error as PhoneAuthError {
            throw PhoneAuthError(.invalidConfiguration, error.message, details: error.details)
        }
        let engine = try Engine(config: try EngineConfig.read(json))
        return OpaquePointer(Unmanaged.passRetained(EngineHandle(engine: engine)).toOpaque())
    } catch {
        ABI.write(PhoneAuthError.from(error, during: "phoneauth_open").jsonValue, to: errorJSON)
        return nil
    }
}

@_cdecl("phoneauth_close")
public func phoneauth_close(_ engine: OpaquePointer?) {
    guard let engine else { return }
    let handle = Unmanaged<EngineHandle>.fromOpaque(UnsafeRawPointer(engine))
    handle.takeUnretainedValue().engine.close()
    handle.release()
}

@_cdecl("phoneauth_call")
public func phoneauth_call(
    _ engine: OpaquePointer?, _ method: UnsafePointer<CChar>?, _ params: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    let failure: PhoneAuthError
    if let handle = EngineHandle.from(engine) {
        guard let method, method.pointee != 0 else {
            failure = PhoneAuthError(
                .invalidArgument, "The method name is NULL or empty.", details: [("field", .string("method"))])
            ABI.write(failure.jsonValue, to: out)
            return failure.code.status
        }
        let name = String(decoding: UnsafeRawBufferPointer(start: method, count: strnlen(method, 256)), as: UTF8.self)
        let (status, result) = handle.call(name, params: params)
        ABI.write(result, to: out)
        return status
    }
    failure = PhoneAuthError(
        .invalidArgument, "The engine is NULL; open one with phoneauth_open.", details: [("field", .string("engine"))])
    ABI.write(failure.jsonValue, to: out)
    return failure.code.status
}

@_cdecl("phoneauth_verify_phone_number")
public func phoneauth_verify_phone_number(
    _ engine: OpaquePointer?, _ params: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    "verifyPhoneNumber".withCString { phoneauth_call(engine, $0, params, out) }
}

@_cdecl("phoneauth_credential")
public func phoneauth_credential(
    _ engine: OpaquePointer?, _ params: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    "credential".withCString { phoneauth_call(engine, $0, params, out) }
}

@_cdecl("phoneauth_sign_in_with_credential")
public func phoneauth_sign_in_with_credential(
    _ engine: OpaquePointer?, _ params: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    "signInWithCredential".withCString { phoneauth_call(engine, $0, params, out) }
}

@_cdecl("phoneauth_sign_out")
public func phoneauth_sign_out(
    _ engine: OpaquePointer?, _ params: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    "signOut".withCString { phoneauth_call(engine, $0, params, out) }
}

@_cdecl("phoneauth_mfa_resolve_sign_in")
public func phoneauth_mfa_resolve_sign_in(
    _ engine: OpaquePointer?, _ params: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    "mfaResolveSignIn".withCString { phoneauth_call(engine, $0, params, out) }
}

@_cdecl("phoneauth_start_passkey_enrollment")
public func phoneauth_start_passkey_enrollment(
    _ engine: OpaquePointer?, _ params: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    "startPasskeyEnrollment".withCString { phoneauth_call(engine, $0, params, out) }
}

@_cdecl("phoneauth_finish_passkey_enrollment")
public func phoneauth_finish_passkey_enrollment(
    _ engine: OpaquePointer?, _ params: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    "finishPasskeyEnrollment".withCString { phoneauth_call(engine, $0, params, out) }
}

@_cdecl("phoneauth_start_passkey_sign_in")
public func phoneauth_start_passkey_sign_in(
    _ engine: OpaquePointer?, _ params: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    "startPasskeySignIn".withCString { phoneauth_call(engine, $0, params, out) }
}

@_cdecl("phoneauth_finish_passkey_sign_in")
public func phoneauth_finish_passkey_sign_in(
    _ engine: OpaquePointer?, _ params: UnsafePointer<CChar>?,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    "finishPasskeySignIn".withCString { phoneauth_call(engine, $0, params, out) }
}

@_cdecl("phoneauth_set_sms_sender")
public func phoneauth_set_sms_sender(
    _ engine: OpaquePointer?, _ sender: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32)?,
    _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let handle = EngineHandle.from(engine) else { return PhoneAuthError.Code.invalidArgument.status }
    handle.engine.setSMSSender(sender.map { CallbackSender(function: $0, context: context) })
    return 0
}

@_cdecl("phoneauth_set_log_sink")
public func phoneauth_set_log_sink(
    _ engine: OpaquePointer?, _ sink: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void)?,
    _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let handle = EngineHandle.from(engine) else { return PhoneAuthError.Code.invalidArgument.status }
    handle.engine.setEventSink(sink.map { CallbackEventSink(function: $0, context: context) })
    return 0
}

@_cdecl("phoneauth_set_push_sender")
public func phoneauth_set_push_sender(
    _ engine: OpaquePointer?, _ sender: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32)?,
    _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let handle = EngineHandle.from(engine) else { return PhoneAuthError.Code.invalidArgument.status }
    handle.engine.appVerification.setPushSender(sender.map { CallbackPushSender(function: $0, context: context) })
    return 0
}

@_cdecl("phoneauth_set_hook")
public func phoneauth_set_hook(
    _ engine: OpaquePointer?, _ name: UnsafePointer<CChar>?,
    _ hook: (
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> Int32
    )?, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let handle = EngineHandle.from(engine), let name, let hookName = HookName(rawValue: String(cString: name))
    else { return PhoneAuthError.Code.invalidArgument.status }
    handle.engine.hooks.set(hookName, hook.map { CallbackHook(function: $0, context: context) })
    return 0
}

@_cdecl("phoneauth_set_event_handler")
public func phoneauth_set_event_handler(
    _ engine: OpaquePointer?, _ handler: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32)?,
    _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let handle = EngineHandle.from(engine) else { return PhoneAuthError.Code.invalidArgument.status }
    do {
        try handle.engine.outbox.setHandler(handler.map { CallbackEventHandler(function: $0, context: context) })
    } catch {
        return error.code.status
    }
    return 0
}

@_cdecl("phoneauth_set_captcha_verifier")
public func phoneauth_set_captcha_verifier(
    _ engine: OpaquePointer?,
    _ verifier: (
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int) -> Int32
    )?, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let handle = EngineHandle.from(engine) else { return PhoneAuthError.Code.invalidArgument.status }
    handle.engine.appVerification.setCaptchaVerifier(
        verifier.map { CallbackCaptchaVerifier(function: $0, context: context) })
    return 0
}
