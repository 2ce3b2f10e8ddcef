// libc's `stderr` is a C global that Swift imports as a mutable `var`. libc sets it before
// `main` and nothing in this process assigns it, so reading it from any thread races with
// nothing; `@preconcurrency` says so for this one file, and the rest reads `standardError`.
@preconcurrency import Glibc

/// libc's `stderr` (the journal, under systemd): unbuffered, so each line is written at once.
var standardError: UnsafeMutablePointer<FILE> { stderr }
