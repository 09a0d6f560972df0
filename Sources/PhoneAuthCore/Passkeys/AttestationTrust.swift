import CFido2

/// The attestation roots a host chose to trust (`passkeys.attestationRoots`): a registration's
/// packed attestation must carry a certificate chain (x5c: the attestation certificate, then any
/// intermediates) that OpenSSL's X509_verify_cert builds up to one of them, valid at the time
/// given. Without roots every attestation is taken as libfido2 verified it (its signature), and
/// its certificate is not judged.
struct AttestationTrust: Sendable, Hashable {
    /// The roots, DER.
    let roots: [[UInt8]]

    /// A configured root that is not a certificate: its place in the list.
    struct NotACertificate: Error {
        let index: Int
    }

    /// The roots from the configuration's strings: PEM ("-----BEGIN CERTIFICATE-----") or the
    /// DER in standard base64.
    static func read(_ texts: [String]) throws(NotACertificate) -> AttestationTrust {
        var roots: [[UInt8]] = []
        for (index, text) in texts.enumerated() {
            let body = text.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
            guard let der = Base64.decode(body), let parsed = certificate(der) else {
                throw NotACertificate(index: index)
            }
            X509_free(parsed)
            roots.append(der)
        }
        return AttestationTrust(roots: roots)
    }

    /// Whether `chain` (leaf first, DER) leads to one of the roots at `time` (seconds since 1970).
    func trusts(_ chain: [[UInt8]], at time: Int64) -> Bool {
        guard let leafDER = chain.first, let leaf = Self.certificate(leafDER), let store = X509_STORE_new(),
            let context = X509_STORE_CTX_new(), let untrusted = OPENSSL_sk_new_null()
        else { return false }
        var owned = chain.dropFirst().compactMap(Self.certificate) + [leaf]
        defer {
            owned.forEach { X509_free($0) }
            OPENSSL_sk_free(untrusted)
            X509_STORE_CTX_free(context)
            X509_STORE_free(store)
        }
        guard owned.count == chain.count else { return false }
        for root in roots {
            guard let certificate = Self.certificate(root) else { return false }
            owned.append(certificate)
            guard X509_STORE_add_cert(store, certificate) == 1 else { return false }
        }
        for intermediate in owned.prefix(chain.count - 1) {
            guard OPENSSL_sk_push(untrusted, UnsafeRawPointer(intermediate)) > 0 else { return false }
        }
        guard X509_STORE_CTX_init(context, store, leaf, untrusted) == 1 else { return false }
        X509_STORE_CTX_set_time(context, 0, time_t(time))
        return X509_verify_cert(context) == 1
    }

    /// OpenSSL's certificate of `der` (to be freed), or nil if it is not one whole certificate.
    private static func certificate(_ der: [UInt8]) -> OpaquePointer? {
        der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let parsed = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            // Trailing bytes after the certificate: not a certificate.
            guard cursor == buffer.baseAddress.map({ $0 + buffer.count }) else {
                X509_free(parsed)
                return nil
            }
            return parsed
        }
    }
}
