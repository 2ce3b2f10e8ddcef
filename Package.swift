// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "voicememo",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "voicememod", targets: ["voicememod"]),
        .executable(name: "voicememo", targets: ["voicememo"]),
    ],
    targets: [
        // One system-library target per C library, from Debian's -dev packages.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // No pkgConfig for libpulse: its only flags, -D_REENTRANT and -pthread, are ones SwiftPM
        // drops with a warning; the module map links the libraries, the headers are in /usr/include.
        .systemLibrary(name: "CPulse", providers: [.apt(["libpulse-dev"])]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        // libsonic: playback faster or slower with the pitch kept; no pkg-config file in Debian.
        .systemLibrary(name: "CSonic", providers: [.apt(["libsonic-dev"])]),
        // speexdsp's preprocessor: noise suppression and gain control on the microphone (issue 27).
        .systemLibrary(name: "CSpeexDSP", pkgConfig: "speexdsp", providers: [.apt(["libspeexdsp-dev"])]),
        // glibc's malloc.h, for handing freed memory back after a burst of work.
        .systemLibrary(name: "CMalloc"),

        // Rules: the recorder's state machine, validation, naming, metering math; no threads,
        // no files, no bus, no audio server.
        .target(name: "VoiceMemoCore"),
        // Runtime: carries out what the rules decide, with threads, files and timers, through
        // the ports the adapters implement.
        .target(name: "VoiceMemoRuntime", dependencies: ["VoiceMemoCore"]),
        // The public contract spelled once: bus name, paths, interfaces, errors, option types and
        // every member with its signature; it also words the core's values and errors in them.
        .target(name: "VoiceMemoContract", dependencies: ["Bus", "VoiceMemoCore"]),

        // Adapters: each owns exactly one C library.
        .target(name: "Bus", dependencies: ["CDBus"]),
        .target(name: "PulseAudio", dependencies: ["CPulse", "VoiceMemoCore"]),
        .target(name: "SoundFile", dependencies: ["CSndfile", "VoiceMemoCore", "AudioContainers"]),
        .target(name: "Sonic", dependencies: ["CSonic", "VoiceMemoCore"]),
        .target(name: "SpeexDSP", dependencies: ["CSpeexDSP", "VoiceMemoCore"]),
        // Byte-level surgery on finished memo files, in pure Swift: title tags rewritten in place
        // (libsndfile cannot edit Ogg, FLAC or MP3 tags) and files cut short by a crash repaired.
        .target(name: "AudioContainers"),

        // The daemon's services: the bus objects that serve the contract, MPRIS and the tray, and
        // the file work behind them (the library, trimming, crash repair, caches), each given its
        // collaborators, so that tests can build them; `voicememod` only wires them together.
        .target(
            name: "VoiceMemoService",
            dependencies: [
                "VoiceMemoCore", "VoiceMemoRuntime", "VoiceMemoContract", "Bus", "PulseAudio", "SoundFile",
                "Sonic", "SpeexDSP", "AudioContainers", "CMalloc",
            ]),
        .executableTarget(
            name: "voicememod",
            dependencies: [
                "VoiceMemoService", "VoiceMemoCore", "VoiceMemoRuntime", "VoiceMemoContract", "Bus", "PulseAudio",
            ]),
        .executableTarget(
            name: "voicememo", dependencies: ["VoiceMemoCore", "VoiceMemoContract", "Bus"]),

        // What the tests share: a seeded random generator, so a failing random input replays.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "VoiceMemoCoreTests", dependencies: ["VoiceMemoCore", "TestSupport"]),
        .testTarget(name: "VoiceMemoContractTests", dependencies: ["VoiceMemoContract", "VoiceMemoCore", "Bus"]),
        .testTarget(
            name: "VoiceMemoRuntimeTests", dependencies: ["VoiceMemoCore", "VoiceMemoRuntime", "IntegrationSupport"]),
        .testTarget(
            name: "VoiceMemoServiceTests",
            dependencies: ["VoiceMemoService", "VoiceMemoContract", "VoiceMemoRuntime", "VoiceMemoCore", "Bus"]),
        .testTarget(
            name: "AudioContainersTests",
            dependencies: ["AudioContainers", "SoundFile", "VoiceMemoCore", "TestSupport", "IntegrationSupport"]),
        // The private session fixture (bus, audio server, stimulus, daemon) shared by the
        // integration tests and the benchmark; Foundation only, no XCTest.
        .target(
            name: "IntegrationSupport", dependencies: ["Bus", "SoundFile", "VoiceMemoContract", "VoiceMemoCore"],
            path: "Tests/IntegrationSupport"),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "Bus", "SoundFile", "AudioContainers", "VoiceMemoCore", "VoiceMemoRuntime", "VoiceMemoContract",
                "IntegrationSupport", "TestSupport", "voicememod", "voicememo",
            ]),
        // `make bench`: voicememod against parecord on the fixture; `make test` runs a smoke-sized pass.
        .testTarget(
            name: "Benchmarks",
            dependencies: [
                "Bus", "SoundFile", "VoiceMemoCore", "VoiceMemoContract", "IntegrationSupport", "TestSupport",
                "voicememod", "voicememo",
            ],
            // The C reference recorder is compiled by the benchmark itself, not by SwiftPM; the
            // GLib client is run by Debian's python3-gi.
            exclude: ["simple-recorder.c", "glib-call.py"]),
    ]
)
