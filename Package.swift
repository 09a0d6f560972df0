// swift-tools-version:6.1
import PackageDescription

// PhoneAuthKit is the Swift API, for Swift apps that add this package by URL: no target in its
// build closure carries unsafe flags (SwiftPM refuses those in a versioned dependency). The
// exported C library links the Swift runtime statically so it loads where no toolchain is
// installed, and exports only phoneauth_* symbols (see Sources/PhoneAuth/exports.map).
let package = Package(
    name: "PhoneAuth",
    products: [
        .library(name: "PhoneAuthKit", targets: ["PhoneAuthKit"]),
        .library(name: "phoneauth", type: .dynamic, targets: ["PhoneAuth"]),
        // Installed as `phoneauth` (a product cannot share the library's name).
        .executable(name: "phoneauth-cli", targets: ["phoneauth-cli"]),
        .executable(name: "phoneauthd", targets: ["phoneauthd"]),
        // make bench's SMS pumping simulation (bench/Makefile): not installed.
        .executable(name: "pumping-simulation", targets: ["pumping-simulation"]),
    ],
    traits: [
        .trait(name: "TLS", description: "phoneauthd serves HTTPS itself (server.tls), through SwiftNIO SSL."),
        .default(enabledTraits: ["TLS"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Without its default traits: swift-configuration (phoneauthd reads its own JSON) and
        // Hummingbird's code for full Foundation are not built.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ],
    targets: [
        .systemLibrary(name: "CJansson", path: "Sources/CJansson", pkgConfig: "jansson"),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3"),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq"),
        .systemLibrary(name: "CFido2", path: "Sources/CFido2", pkgConfig: "libfido2"),
        .target(
            name: "CPhoneNumbers",
            path: "Sources/CPhoneNumbers",
            linkerSettings: [.linkedLibrary("phonenumber"), .linkedLibrary("stdc++")]
        ),
        .target(name: "CRandom", path: "Sources/CRandom"),
        .target(name: "CCurl", path: "Sources/CCurl", linkerSettings: [.linkedLibrary("curl")]),
        .target(
            name: "PhoneAuthCore",
            dependencies: [
                "CSQLite", "CLibPQ", "CPhoneNumbers", "CJansson", "CRandom", "CCurl", "CFido2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            path: "Sources/PhoneAuthCore"
        ),
        .target(name: "PhoneAuthKit", dependencies: ["PhoneAuthCore"], path: "Sources/PhoneAuthKit"),
        .target(
            name: "PhoneAuth",
            dependencies: ["PhoneAuthCore", "CJansson"],
            path: "Sources/PhoneAuth",
            exclude: ["exports.map"],
            swiftSettings: [.unsafeFlags(["-static-stdlib"])],
            linkerSettings: [.unsafeFlags([
                "-static-stdlib",
                "-Xlinker", "--version-script=Sources/PhoneAuth/exports.map",
                "-Xlinker", "-soname=libphoneauth.so.1",
            ])]
        ),
        .executableTarget(
            name: "phoneauth-cli",
            dependencies: ["PhoneAuthKit", "PhoneAuthCore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Sources/phoneauth-cli",
            // Self-contained in release (as installed); the debug link of the static runtime
            // misses FoundationEssentials' dependencies, and debug builds only run here.
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
        ),
        .executableTarget(
            name: "pumping-simulation", dependencies: ["PhoneAuthCore"], path: "Sources/pumping-simulation"
        ),
        .executableTarget(
            name: "phoneauthd",
            dependencies: [
                "PhoneAuthKit", "PhoneAuthCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird", condition: .when(traits: ["TLS"])),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["TLS"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/phoneauthd",
            swiftSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]
        ),
        .testTarget(name: "PhoneAuthCoreTests", dependencies: ["PhoneAuthCore"], path: "Tests/PhoneAuthCoreTests"),
        .testTarget(name: "PhoneAuthKitTests", dependencies: ["PhoneAuthKit", "PhoneAuthCore"], path: "Tests/PhoneAuthKitTests"),
    ],
    swiftLanguageModes: [.v6]
)
