// swift-tools-version:6.1
import PackageDescription

// A Hummingbird server that signs users in by SMS with PhoneAuthKit (Linux; Swift 6.1 or later for
// the traits below). In your own package, name
// PhoneAuth by its URL instead of the path:
//     .package(url: "https://github.com/phoneauth/phoneauth", from: "0.1.0")
let package = Package(
    name: "swift-hummingbird-example",
    dependencies: [
        .package(name: "phoneauth", path: "../.."),
        // Without Hummingbird's default traits (swift-configuration, full Foundation): a smaller build.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        .target(name: "SignInAPI", dependencies: [
            .product(name: "PhoneAuthKit", package: "phoneauth"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        .executableTarget(name: "App", dependencies: ["SignInAPI"]),
        .testTarget(name: "SignInAPITests", dependencies: ["SignInAPI"]),
    ]
)
