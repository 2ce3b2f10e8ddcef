// libc's `stdout` and `stderr` are C globals that Swift imports as mutable `var`s. libc sets
// them before `main` and nothing in this program assigns them, so reading them from any
// thread races with nothing; `@preconcurrency` says so for this one file, and the rest of
// the program reads them through these properties.
@preconcurrency import Glibc

/// libc's `stdout`, the stream `print` writes through.
var standardOutput: UnsafeMutablePointer<FILE> { stdout }

/// libc's `stderr`.
var standardError: UnsafeMutablePointer<FILE> { stderr }
