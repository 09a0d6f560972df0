/// A challenge or TOTP enrolment that was met: who met it, the session that opened, and the
/// factor (and TOTP step) that met it, kept for a retry of the call (SQLStore.metSession).
struct MetSession {
    var uid: String
    var opened: String
    var step: Int64?
    var enrollmentId: String
    /// Wrong codes presented for it since.
    var attempts: Int

    /// What it opened, as a used code keeps it, for resumeEarlier.
    func earlier(_ call: EarlierUse.Call) -> EarlierUse { EarlierUse(call: call, uid: uid, opened: opened) }
}
