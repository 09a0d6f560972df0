// The entry point: parse the command line, then serve until SIGTERM or SIGINT.
do {
    try await PhoneAuthd.parse().serve()
} catch {
    PhoneAuthd.exit(withError: error)
}
