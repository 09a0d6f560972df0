import ArgumentParser
import Glibc
import Hummingbird
import HummingbirdCore
import Logging
#if TLS
import HummingbirdTLS
import NIOSSL
#endif
import PhoneAuthCore
import PhoneAuthKit

/// The command line; main.swift parses it and calls `serve`.
struct PhoneAuthd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phoneauthd",
        abstract: "PhoneAuth over HTTP: Firebase's Identity Toolkit dialect and PhoneAuth's own methods.",
        discussion: """
            The configuration file is the engine's JSON (docs/API.md) plus a "server" section \
            (docs/SERVER.md). PHONEAUTHD_CONFIG names the file when --config is not given; \
            PHONEAUTHD_HOST, PHONEAUTHD_PORT, PHONEAUTHD_API_KEYS and PHONEAUTHD_ADMIN_TOKENS \
            override the file. SIGTERM or SIGINT finishes the requests in flight (closing the connections \
            still open after server.shutdownTimeoutSeconds), then closes the engine.
            Exit status: 0 after a clean shutdown, 1 for a bad configuration or a store that cannot be opened.
            """
    )

    @Option(name: .long, help: "The configuration file (JSON).")
    var config: String?

    func serve() async throws {
        let auth: PhoneAuth, server: Server, serverConfig: ServerConfig
        do {
            (auth, server, serverConfig) = try Self.setUp(path: config ?? EngineConfig.environment("PHONEAUTHD_CONFIG"))
        } catch let failure as PhoneAuthError {
            StandardStream.error.write("phoneauthd: \(failure.code.name): \(failure.message)\n")
            throw ExitCode(1)
        } catch {
            let failure = PhoneAuthCore.PhoneAuthError.from(error, during: "startup")
            StandardStream.error.write("phoneauthd: \(failure.code.name): \(failure.message)\n")
            throw ExitCode(1)
        }
        var logger = Logger(label: "phoneauthd")
        logger.logLevel = .warning
        let timeouts = RequestTimeoutHandler.Timeouts(
            idle: .seconds(Int64(serverConfig.idleTimeoutSeconds)),
            header: .seconds(Int64(serverConfig.headerTimeoutSeconds)),
            body: .seconds(Int64(serverConfig.bodyTimeoutSeconds)),
            shutdown: .seconds(Int64(serverConfig.shutdownTimeoutSeconds)))
        let cap = ConnectionCap(limit: serverConfig.maxConnections, observability: server.observability)
        let builder: HTTPServerBuilder
        if let certificate = serverConfig.certificateFile, let key = serverConfig.privateKeyFile {
            do {
                builder = try Self.tls(certificateFile: certificate, privateKeyFile: key, timeouts: timeouts, cap: cap)
            } catch {
                StandardStream.error.write("phoneauthd: invalidConfiguration: server.tls: \(error)\n")
                auth.close()
                throw ExitCode(1)
            }
        } else {
            builder = HTTPServerBuilder { TimedHTTP1Channel(responder: $0, timeouts: timeouts, cap: cap) }
        }
        let scheme = serverConfig.certificateFile == nil ? "http" : "https"
        let app = Application(
            responder: server, server: builder,
            configuration: .init(
                address: .hostname(serverConfig.host, port: serverConfig.port), serverName: nil,
                // Hummingbird's cap: at the limit it stops accepting, and newcomers wait in the backlog
                // (ConnectionCap closes the few a burst brings in past it).
                availableConnectionsDelegate: MaximumAvailableConnections(serverConfig.maxConnections, logger: logger)),
            onServerRunning: { channel in
                // Tests and scripts read the port from this line when they asked for port 0.
                let port = channel.localAddress?.port ?? serverConfig.port
                if server.captchaPage != nil {
                    let root = serverConfig.publicUrl ?? "\(scheme)://\(Self.urlHost(serverConfig.host)):\(port)"
                    auth.engine.appVerification.setServedCaptchaPage(root + Server.captchaPath)
                }
                StandardStream.error.write(
                    "{\"event\":\"listening\",\"url\":\"\(scheme)://\(serverConfig.host):\(port)\"}\n")
            },
            logger: logger)
        // The service returns once the requests in flight are answered: no engine call is left.
        do {
            try await app.runService()
        } catch {
            auth.close()
            throw error
        }
        auth.close()
        StandardStream.error.write("{\"event\":\"stopped\"}\n")
    }

    /// A host as a URL names it: an IPv6 address in brackets.
    static func urlHost(_ host: String) -> String { host.contains(":") ? "[\(host)]" : host }

    /// HTTP/1.1 over TLS with the certificate chain and key of these PEM files. A build without the
    /// TLS trait (`make demo`'s) refuses: TLS is then a proxy's to terminate.
    static func tls(
        certificateFile: String, privateKeyFile: String, timeouts: RequestTimeoutHandler.Timeouts, cap: ConnectionCap
    ) throws -> HTTPServerBuilder {
        #if TLS
        do {
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(certificateFile).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: privateKeyFile, format: .pem)))
            // How long a close waits for the client's close_notify before closing the socket: NIOSSL's
            // 5 s would be added to every deadline (and to the SIGTERM one) by a client that never answers.
            tls.shutdownTimeout = .seconds(1)
            let configuration = tls
            return HTTPServerBuilder { responder in
                try TLSChannel(
                    TimedHTTP1Channel(responder: responder, timeouts: timeouts, cap: cap),
                    tlsConfiguration: configuration)
            }
        } catch {
            throw TLSUnavailable("the certificate or key cannot be read (\(type(of: error))).")
        }
        #else
        throw TLSUnavailable(
            "this phoneauthd was built without the TLS trait; build it with the default traits "
                + "(make server).")
        #endif
    }

    struct TLSUnavailable: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Reads the configuration, opens the engine (through PhoneAuthKit, as any Swift host) and
    /// wires the server; throws a PhoneAuthError of either module.
    static func setUp(path: String?) throws -> (PhoneAuth, Server, ServerConfig) {
        guard let path else {
            throw ServerConfig.bad("", "No configuration: pass --config FILE or set PHONEAUTHD_CONFIG.")
        }
        let json = try JSONCodec.parse(contentsOf: path, code: .invalidConfiguration)
        let (serverConfig, engineJSON) = try ServerConfig.read(json)
        // Read here too for what the server itself needs of it (project, code length, provider).
        let engineConfig = try EngineConfig.read(engineJSON)
        let emulator = serverConfig.emulatorCompat ? EmulatorSupport(codeLength: engineConfig.codeLength) : nil
        if engineConfig.smsProvider == .callback && emulator == nil {
            throw ServerConfig.bad(
                "sms",
                "must name a provider for phoneauthd (sms.providers, or sms.provider \"console\"); "
                    + "only emulatorCompat keeps codes instead of sending them."
            )
        }
        if let events = engineConfig.events, !events.hasWebhook {
            throw ServerConfig.bad(
                "events.url",
                "is required by phoneauthd: it installs no event handler, so events would wait in the store for ever.")
        }
        let captchaPage = CaptchaPage(config: engineConfig)
        if captchaPage != nil && serverConfig.publicUrl == nil && serverConfig.listensEverywhere {
            throw ServerConfig.bad(
                "server.publicUrl",
                "is required to serve the captcha page (captcha.provider has a siteKey) while listening on "
                    + "every address: the URL clients reach this server at.")
        }
        let auth = try PhoneAuth(json: JSONCodec.serialize(engineJSON), asyncThreads: serverConfig.threads)
        let observability = Observability(accessLog: serverConfig.accessLog)
        auth.setEventHandler { observability.record($0) }
        if let emulator, engineConfig.smsProvider == .callback { auth.setSMSSender { emulator.keep($0) } }
        let server = Server(
            config: serverConfig, projectId: engineConfig.projectId, auth: auth,
            toolkit: IdentityToolkit(
                auth: auth, projectId: engineConfig.projectId,
                temporaryProofTtlSeconds: engineConfig.temporaryProofTtlSeconds,
                authorizedDomains: serverConfig.authorizedDomains, emulator: emulator,
                captcha: engineConfig.captchaProvider),
            admin: IdentityToolkitAdmin(auth: auth),
            tenants: TenantAdmin(auth: auth, projectId: engineConfig.projectId),
            own: OwnMethods(auth: auth, emulator: emulator),
            emulator: emulator,
            observability: observability, captchaPage: captchaPage,
            console: serverConfig.console.map {
                Console(
                    settings: $0, adminTokens: serverConfig.adminTokens,
                    access: ConsoleAccess(publicUrl: serverConfig.publicUrl, tls: serverConfig.certificateFile != nil),
                    auth: auth,
                    providerHealth: { observability.providerHealth })
            })
        return (auth, server, serverConfig)
    }
}
