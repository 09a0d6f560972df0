import Glibc

/// The 32-byte key that encrypts the secrets kept in the database. Taken from the configuration,
/// else the environment variable PHONEAUTH_MASTER_KEY, else a key file beside the database that is
/// generated on first use with mode 0600.
package enum MasterKey {
    package static let environmentVariable = "PHONEAUTH_MASTER_KEY"

    /// Accepts 64 hex digits or base64 of 32 bytes.
    package static func decode(_ text: String, source: String) throws(PhoneAuthError) -> [UInt8] {
        let trimmed = String(text.filter { !$0.isWhitespace })
        if trimmed.utf8.count == 64, let bytes = hex(trimmed) { return bytes }
        if let bytes = Base64.decode(trimmed), bytes.count == 32 { return bytes }
        throw PhoneAuthError(
            .invalidConfiguration,
            "The master key from the \(source) must be 32 bytes, written as 64 hex digits or in base64.",
            details: [("key", .string("masterKey"))])
    }

    /// The key given in the configuration or the environment; nil when it comes from the key file
    /// beside a SQLite database (`keyFile(configured:database:)`). Touches nothing on disk.
    package static func given(configured: [UInt8]?, database: Database) throws(PhoneAuthError) -> [UInt8]? {
        if let configured { return configured }
        if let env = getenv(environmentVariable), env.pointee != 0 {
            return try decode(String(cString: env), source: "environment variable \(environmentVariable)")
        }
        guard case .postgres = database else { return nil }
        // Engines on several machines must seal and open the same keys: a key file generated
        // on one machine would lock the others out.
        throw PhoneAuthError(
            .invalidConfiguration,
            "With a PostgreSQL database the master key must be given, in the configuration key 'masterKey' "
                + "or the environment variable \(environmentVariable): every engine sharing the database needs "
                + "the same one, so none can be generated beside it.",
            details: [("key", .string("masterKey"))])
    }

    /// The key of the key file `path`, which is generated (mode 0600) when it does not exist.
    package static func fromKeyFile(_ path: String) throws(PhoneAuthError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            defer { close(fd) }
            return try read(keyFile: path, fd)
        }
        guard errno == ENOENT else {
            throw keyFileError(path, "cannot be opened (\(String(cString: strerror(errno))))")
        }
        return try generate(path)
    }

    /// The key file the master key comes from, when it does (SQLite, no configured or
    /// environment key); a rekey writes `<it>.new` before it commits and renames it after.
    package static func keyFile(configured: [UInt8]?, database: Database) -> String? {
        guard configured == nil, getenv(environmentVariable).map({ $0.pointee == 0 }) ?? true,
            case let .sqlite(path, _) = database
        else { return nil }
        return path + ".key"
    }

    /// Writes `key` to `path` whole, mode 0600, synced: to a private temporary file first, renamed
    /// into place, so a process killed meanwhile leaves no key file rather than an empty one
    /// (which would keep the store from opening).
    package static func writeKeyFile(_ path: String, key: [UInt8]) throws(PhoneAuthError) {
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw keyFileError(path, "cannot be created (\(String(cString: strerror(errno))))") }
        defer { unlink(temporary) }
        let text = Array((Base64.encode(key) + "\n").utf8)
        let written = write(fd, text, text.count)
        let synced = fsync(fd)
        close(fd)
        guard written == text.count, synced == 0, rename(temporary, path) == 0, syncFolder(of: path) else {
            throw keyFileError(path, "cannot be written")
        }
    }

    /// Makes a new name in `path`'s folder (a rename, a link) survive a power loss: the store may
    /// be sealed with the key it names the moment after. False if the folder cannot be synced.
    package static func syncFolder(of path: String) -> Bool {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return fsync(fd) == 0
    }

    /// Reads the pending key file of an interrupted rekey; nil when there is none, or only an
    /// empty one (an earlier version, killed while writing it, left it before the rekey began).
    static func readKeyFile(_ path: String) throws(PhoneAuthError) -> [UInt8]? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        guard info.st_size > 0 else {
            unlink(path)
            return nil
        }
        return try fromKeyFile(path)
    }

    private static func read(keyFile path: String, _ fd: Int32) throws(PhoneAuthError) -> [UInt8] {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw keyFileError(path, "cannot be read") }
        guard info.st_mode & 0o077 == 0 else {
            throw keyFileError(
                path, "is readable by other users (mode \(String(info.st_mode & 0o777, radix: 8))); run chmod 600 on it"
            )
        }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = Glibc.read(fd, &buffer, buffer.count)
        guard n > 0 else { throw keyFileError(path, "is empty") }
        return try decode(String(decoding: buffer.prefix(n), as: UTF8.self), source: "key file \(path)")
    }

    /// Written whole to a private temporary file, then linked into place: another process
    /// opening the database at the same moment sees either no key file or a complete one.
    private static func generate(_ path: String) throws(PhoneAuthError) -> [UInt8] {
        let temporary = path + ".tmp-\(getpid())"
        let created = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard created >= 0 else { throw keyFileError(path, "cannot be created (\(String(cString: strerror(errno))))") }
        defer { unlink(temporary) }
        let key = SecureBytes.random(count: 32)
        let text = Array((Base64.encode(key) + "\n").utf8)
        let written = write(created, text, text.count)
        let synced = fsync(created)
        close(created)
        guard written == text.count, synced == 0 else { throw keyFileError(path, "cannot be written") }
        if link(temporary, path) != 0 {
            if errno == EEXIST { return try fromKeyFile(path) }  // another process won the race
            throw keyFileError(path, "cannot be created (\(String(cString: strerror(errno))))")
        }
        guard syncFolder(of: path) else { throw keyFileError(path, "cannot be written") }
        return key
    }

    private static func keyFileError(_ path: String, _ problem: String) -> PhoneAuthError {
        PhoneAuthError(.storageError, "The master key file \(path) \(problem).", details: [("path", .string(path))])
    }

    private static func hex(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var high: UInt8?
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case 48...57: v = c - 48
            case 97...102: v = c - 87
            case 65...70: v = c - 55
            default: return nil
            }
            if let h = high { bytes.append(h << 4 | v); high = nil } else { high = v }
        }
        return bytes
    }
}
