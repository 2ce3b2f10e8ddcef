import Glibc

/// What replacing a file in place needs from the file system, spelled once for the tag
/// editor and the daemon's trimming: the real file behind a link, and a rename made durable.
package enum DurableRename {
    /// `path` with symbolic links resolved, or unchanged if that fails (then it is used as
    /// given): the file a link points to is replaced, and the link stays.
    package static func resolvingLinks(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Syncs the directory holding `path`, so that a rename into it survives a crash; a
    /// failure here leaves a complete file either way, so it is not reported.
    package static func syncDirectory(of path: String) {
        let descriptor = open(directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// The directory holding `path`: `/` for a file at the root, `.` for a bare name.
    package static func directory(of path: String) -> String {
        let slash = path.lastIndex(of: "/")
        return slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    }
}
