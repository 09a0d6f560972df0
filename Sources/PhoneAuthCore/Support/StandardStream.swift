import Glibc

/// The process's standard output or error, written with write(2): one call per text, so the lines
/// of concurrent threads do not interleave, and no C `FILE` global (which Swift 6 cannot see is
/// safe to share) is touched.
package enum StandardStream: Sendable {
    case output, error

    package func write(_ text: String) {
        let descriptor = self == .output ? STDOUT_FILENO : STDERR_FILENO
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }  // a closed stream: nothing more can be told
            bytes = bytes.dropFirst(written)
        }
    }
}
