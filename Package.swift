// swift-tools-version:6.0
// Lectern: the firmware of a meeting-room projector appliance.
//
// Dependency direction (never the other way):
//   LecternModel                        pure values and the decisions made on them: geometry,
//                                       colour, frames, scenes, the config's model, wall layouts,
//                                       ink, policies (connection gates, an HTTP connection's
//                                       life, a share's flow). No system calls, threads, clock
//                                       or locks; no Glibc; Foundation only for text (trimming,
//                                       "%.2f") in the three files that import it, which the
//                                       compiler checks (MemberImportVisibility)
//   LecternSystem                       the few things the model leaves to the OS: a file
//                                       written atomically (fsync, rename), the monotonic clock,
//                                       libc symbols (dlsym), threads' names (pthread_setname_np),
//                                       the page cache threads share (a Mutex), two thread
//                                       primitives (ChangeBell, Handoff). Imports Glibc
//   LecternProtocol                     the wire: messages, codecs, passcode proofs (swift-crypto);
//                                       values only, Foundation for JSON and text, no I/O
//   LecternRoom                         the room's state machine: a core that takes events with
//                                       their time (monotonic and wall) and a random generator,
//                                       and returns effects; the floor's rules live here; no I/O
//   LecternRender, LecternDisplay, LecternVideo, LecternSound, LecternConvert
//                                       thin adapters over the C libraries (poppler/cairo/pango,
//                                       DRM, FFmpeg, ALSA, libzip); with LecternPhotos (libvips),
//                                       the only modules that import a C library's module (but
//                                       for the tests' TLS client: BoringSSL, in TestSupport).
//                                       LecternDisplay: every `Output`: KMS, virtual, selection;
//                                       LecternConvert: office documents to PDF in a sandbox
//   LecternPipeline                     the frame pipeline (scene → frame) and the render
//                                       workers, shared by the daemon and `lectern render`
//   LecternStage                        the wall: a pure StageCore and the one display loop
//                                       that owns the output
//   LecternPhotos, LecternShare         bounded children of lecternd: photos made into a deck
//                                       (libvips), a live share's decoder process
//   LecternService                      wires model + adapters into the daemon
//   LecternClient                       the protocol's client side
//   lecternd, lectern, lectern-bench    executables
//   LecternTestKit                      small pure helpers for the unit tests (a seeded
//                                       generator, an assertion on error codes); XCTest only
//   LecternTestSupport                  fixtures and harnesses for the tests and the bench
//                                       (a real service, TLS, browsers)
//
// Glibc is imported (system calls) by LecternSystem, LecternPipeline, LecternVideo,
// LecternPhotos, LecternShare, LecternService, LecternTestSupport and lectern-bench; never
// by LecternModel, LecternProtocol or LecternRoom.
// Every module, the tests' too, builds in the Swift 6 language mode (the package's default).
import PackageDescription

let package = Package(
    name: "Lectern",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "lecternd", targets: ["lecternd"]),
        .executable(name: "lectern", targets: ["lectern"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.3.0"),
    ],
    targets: [
        // MARK: pure Swift
        .target(name: "LecternModel", swiftSettings: [.swiftLanguageMode(.v6), .enableUpcomingFeature("MemberImportVisibility")]),
        // The few things that touch the OS for the modules above them (files, clock, symbols, locks).
        .target(name: "LecternSystem", dependencies: ["LecternModel"], swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(
            name: "LecternProtocol",
            dependencies: [
                "LecternModel",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),

        // The room as a state machine: events in, effects out (no I/O, threads or clock).
        .target(
            name: "LecternRoom",
            dependencies: [
                "LecternModel", "LecternProtocol",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),

        // MARK: C libraries, through pkg-config
        .systemLibrary(
            name: "CPoppler", pkgConfig: "poppler-glib",
            providers: [.apt(["libpoppler-glib-dev"])]),
        .systemLibrary(
            name: "CPangoCairo", pkgConfig: "pangocairo",
            providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        .systemLibrary(
            name: "CDRM", pkgConfig: "libdrm",
            providers: [.apt(["libdrm-dev"])]),
        .systemLibrary(
            name: "CFFmpeg", pkgConfig: "libavformat",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libswresample-dev", "libavutil-dev"])]),

        .systemLibrary(
            name: "CALSA", pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]),

        .systemLibrary(
            name: "CQREncode", pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]),

        // librsvg: SVG logos and backgrounds on the idle screen (docs/config.md, display.logo).
        .systemLibrary(
            name: "CRSVG", pkgConfig: "librsvg-2.0",
            providers: [.apt(["librsvg2-dev"])]),

        // libjpeg-turbo: JPEG previews of photographic frames for the web remote.
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"])]),

        // libvips: photos and images made into decks (JPEG with its EXIF orientation, PNG,
        // WebP, GIF, HEIC/HEIF through libheif), in a bounded child (LecternPhotos).
        .systemLibrary(
            name: "CVips", pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]),
        // libzip: the parts of zipped documents (OOXML, ODF, Keynote) before they are converted.
        .systemLibrary(
            name: "CZip", pkgConfig: "libzip",
            providers: [.apt(["libzip-dev"])]),

        // MARK: adapters (the only modules that import the C modules)
        .target(
            name: "LecternRender", dependencies: ["LecternModel", "CPoppler", "CPangoCairo", "CQREncode", "CJPEG", "CRSVG"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "LecternDisplay", dependencies: ["LecternModel", "LecternSystem", "CDRM"], swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "LecternVideo", dependencies: ["LecternModel", "LecternSystem", "CFFmpeg"], swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(name: "LecternSound", dependencies: ["LecternModel", "LecternSystem", "LecternVideo", "CALSA"], swiftSettings: [.swiftLanguageMode(.v6)]),

        // Converted files (issue 29, docs/protocol.md §30): the converters (office documents
        // through LibreOffice in a bubblewrap sandbox, …) behind one `DeckConverter` protocol.
        .target(name: "LecternConvert", dependencies: ["LecternModel", "LecternSystem", "CZip"], swiftSettings: [.swiftLanguageMode(.v6)]),

        // MARK: the frame pipeline, the service and the client
        .target(name: "LecternPipeline", dependencies: ["LecternModel", "LecternSystem", "LecternRender"], swiftSettings: [.swiftLanguageMode(.v6)]),
        // Photos and images made into a deck in a bounded child (issue 29): libvips decodes,
        // cairo's PDF surface writes the pages.
        .target(
            name: "LecternPhotos",
            dependencies: ["LecternModel", "LecternSystem", "LecternProtocol", "LecternRender", "LecternPipeline", "LecternConvert", "CVips", "CPangoCairo"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // The stage (issue 26): a pure core and the one display loop that owns the output.
        .target(
            name: "LecternStage", dependencies: ["LecternModel", "LecternSystem", "LecternRender", "LecternPipeline"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // Live sharing's decoder process (issue 28): a crash or a stall costs only that share.
        .target(
            name: "LecternShare", dependencies: ["LecternModel", "LecternSystem", "LecternVideo", "LecternPipeline"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(
            name: "LecternService",
            dependencies: [
                "LecternModel", "LecternSystem", "LecternProtocol", "LecternRoom", "LecternRender", "LecternPipeline", "LecternStage", "LecternDisplay", "LecternVideo",
                "LecternSound", "LecternConvert", "LecternPhotos", "LecternShare",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ], resources: [.copy("Web")],
            // Test hooks (PresentStallHook) are compiled into debug builds, which the tests run,
            // and into the image tests' release build (board/image/test-image passes
            // -DLECTERN_TEST_HOOKS); never into what ships (make deb, make image).
            swiftSettings: [.define("LECTERN_TEST_HOOKS", .when(configuration: .debug)), .swiftLanguageMode(.v6)]),
        .target(
            name: "LecternClient",
            dependencies: [
                "LecternModel", "LecternSystem", "LecternProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "lecternd",
            dependencies: [
                "LecternService", "LecternDisplay", "LecternPipeline", "LecternPhotos", "LecternShare",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(
            name: "lectern",
            dependencies: [
                "LecternClient", "LecternPipeline", "LecternRender", "LecternProtocol", "LecternVideo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),

        .executableTarget(
            name: "lectern-bench",
            dependencies: [
                "LecternService", "LecternPipeline", "LecternDisplay", "LecternRender", "LecternClient", "LecternProtocol", "LecternRoom", "LecternVideo", "LecternSound",
                "LecternPhotos", "LecternTestSupport", "LecternShare",
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),

        // MARK: tests
        // Small pure helpers for the unit tests (a seeded generator, an assertion on error
        // codes): XCTest and the pure modules only, so LecternRoomTests stays light.
        .target(name: "LecternTestKit", dependencies: ["LecternProtocol"], swiftSettings: [.swiftLanguageMode(.v6)]),
        .target(
            name: "LecternTestSupport",
            dependencies: [
                "LecternModel", "LecternSystem", "LecternProtocol", "LecternRender", "LecternPipeline", "LecternService", "LecternClient",
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "LecternModelTests", dependencies: ["LecternModel"], swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "LecternSystemTests", dependencies: ["LecternSystem", "LecternModel"], swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(
            name: "LecternPhotoTests", dependencies: ["LecternPhotos", "LecternConvert", "LecternModel", "LecternRender", "LecternPipeline", "LecternTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "LecternProtocolTests", dependencies: ["LecternProtocol", "LecternModel", "LecternRoom", "LecternTestKit", "LecternTestSupport"]),
        .testTarget(
            name: "LecternStageTests", dependencies: ["LecternStage", "LecternModel", "LecternSystem", "LecternDisplay", "LecternPipeline", "LecternRender", "LecternTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "LecternRoomTests", dependencies: ["LecternRoom", "LecternProtocol", "LecternModel", "LecternTestKit"]),
        // The converters against real LibreOffice in its real sandbox (issue 29).
        .testTarget(
            name: "LecternConvertTests", dependencies: ["LecternConvert", "LecternModel", "LecternPipeline", "LecternRender", "LecternTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "LecternRenderTests", dependencies: ["LecternRender", "LecternPipeline", "LecternTestSupport"]),
        .testTarget(name: "LecternVideoTests", dependencies: ["LecternVideo", "LecternSound", "LecternShare", "LecternTestSupport"]),
        .testTarget(name: "LecternApplianceTests", dependencies: ["LecternService", "LecternRender", "LecternClient", "LecternProtocol", "LecternVideo", "LecternTestSupport"]),
        .testTarget(name: "LecternBoardTests", dependencies: ["LecternService", "LecternPipeline", "LecternClient", "LecternRender", "LecternTestSupport"]),
        .testTarget(
            name: "LecternImageTests",
            dependencies: ["LecternPipeline", "LecternClient", "LecternProtocol", "LecternRender", "LecternModel", "LecternSystem", "LecternTestSupport"]),
        .testTarget(name: "LecternWebTests", dependencies: ["LecternService", "LecternPipeline", "LecternClient", "LecternRender", "LecternTestSupport"]),
        // Issue 12, "A hostile room": one file per attack, against a real service over real sockets.
        .testTarget(
            name: "LecternHostileTests",
            dependencies: ["LecternService", "LecternPipeline", "LecternClient", "LecternRender", "LecternProtocol", "LecternModel", "LecternSystem", "LecternTestSupport"]),
        // The contract, checked from outside: raw bytes written from docs/protocol.md (§19),
        // never through LecternProtocol or LecternClient; the service runs in-process.
        .testTarget(
            name: "LecternConformanceTests",
            dependencies: [
                "LecternModel", "LecternTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .testTarget(
            name: "LecternServiceTests",
            dependencies: [
                "LecternService", "LecternPipeline", "LecternDisplay", "LecternClient", "LecternRender", "LecternTestSupport",
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
