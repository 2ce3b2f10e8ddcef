import CMalloc

/// Hands the pages of freed memory back to the system. glibc keeps freed memory for reuse,
/// so a burst of work (reading ten thousand memo files, writing the library cache) would
/// stay in the idle daemon's resident size for good; after such a burst this returns it.
/// Costs a few milliseconds, so it is called after bursts, never on a timer.
func returnFreedMemory() {
    _ = malloc_trim(0)
}
