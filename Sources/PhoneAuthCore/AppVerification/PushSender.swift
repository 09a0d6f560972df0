/// Delivers a silent push notification to the app, for app verification: the host's APNs (or
/// FCM) client. Returns whether the push service accepted it.
package protocol PushSender: AnyObject, Sendable {
    func send(appToken: String, tokenType: String, payload: JSONValue) -> Bool
}
