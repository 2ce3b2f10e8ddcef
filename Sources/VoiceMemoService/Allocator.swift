import CMalloc

// What the daemon asks of glibc's allocator, so that its resident size follows what it
// holds: ten thousand memos should cost their catalog, not the allocator's leftovers.

/// Sets the allocator up for a long-lived daemon; call before any thread is started.
///
/// glibc gives threads that allocate at once arenas of their own (up to eight per core),
/// each keeping its own freed pages. The daemon is one serial queue, a capture thread and
/// the library's start-up read: two arenas serve it, and with the default it held 3 MiB
/// more after reading 10,000 memos.
///
/// Blocks of 128 KiB and more come from mmap, so they go back to the system when freed.
/// By default glibc raises that threshold to the largest block freed so far: after the
/// first listing of 10,000 memos (a 3.5 MB reply) the next ones stayed on the heap, 3 MiB
/// of resident memory that never came back.
package func configureAllocator() {
    _ = mallopt(M_ARENA_MAX, 2)
    _ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
}

/// Hands the pages of freed memory back to the system. glibc keeps freed memory for reuse,
/// so a burst of work (reading ten thousand memo files, writing the library cache) would
/// stay in the idle daemon's resident size for good; after such a burst this returns it.
/// Costs a few milliseconds, so it is called after bursts, never on a timer.
func returnFreedMemory() {
    _ = malloc_trim(0)
}
