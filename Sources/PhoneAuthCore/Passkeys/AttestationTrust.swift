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

    /// Whether `chain` (leaf first, DER) leads to one of the roots at `time` (seconds since 1970),
    /// its leaf being an attestation certificate (Web Authentication, section 8.2.1): no CA, and
    /// if it names the authenticator model (the AAGUID extension), the one `aaguid` says.
    func trusts(_ chain: [[UInt8]], aaguid: [UInt8], at time: Int64) -> Bool {
        var owned: [OpaquePointer] = []
        defer { owned.forEach { X509_free($0) } }
        for der in chain {
            guard let certificate = Self.certificate(der) else { return false }
            owned.append(certificate)
        }
        guard let leaf = owned.first, X509_get_extension_flags(leaf) & UInt32(EXFLAG_CA) == 0,
            Self.certifiedModel(of: leaf).map({ $0 == aaguid }) ?? true
        else { return false }
        guard let store = X509_STORE_new() else { return false }
        defer { X509_STORE_free(store) }
        for root in roots {
            guard let certificate = Self.certificate(root) else { return false }
            owned.append(certificate)
            guard X509_STORE_add_cert(store, certificate) == 1 else { return false }
        }
        guard let untrusted = OPENSSL_sk_new_null() else { return false }
        defer { OPENSSL_sk_free(untrusted) }
        for intermediate in owned[1..<chain.count] {
            guard OPENSSL_sk_push(untrusted, UnsafeRawPointer(intermediate)) > 0 else { return false }
        }
        guard let context = X509_STORE_CTX_new() else { return false }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf, untrusted) == 1 else { return false }
        X509_STORE_CTX_set_time(context, 0, time_t(time))
        return X509_verify_cert(context) == 1
    }

    /// The AAGUID the certificate's extension 1.3.6.1.4.1.45724.1.1.4 certifies (an OCTET STRING
    /// of 16 bytes inside the extension's value); nil without the extension, [] when malformed.
    private static func certifiedModel(of certificate: OpaquePointer) -> [UInt8]? {
        guard let oid = OBJ_txt2obj("1.3.6.1.4.1.45724.1.1.4", 1) else { return [] }
        defer { ASN1_OBJECT_free(oid) }
        let index = X509_get_ext_by_OBJ(certificate, oid, -1)
        guard index >= 0 else { return nil }
        guard let value = X509_EXTENSION_get_data(X509_get_ext(certificate, index)),
            let bytes = ASN1_STRING_get0_data(value), ASN1_STRING_length(value) == 18
        else { return [] }
        let inner = Array(UnsafeBufferPointer(start: bytes, count: 18))
        return inner.starts(with: [0x04, 0x10]) ? Array(inner.dropFirst(2)) : []
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
