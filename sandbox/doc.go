// Package sandbox runs the toolchain programs trampemu drives on untrusted
// input (cpp, as, ld, objcopy, GNU patch, git apply) with bounded
// resources, and owns the tool's temporary folders. Each program runs
// under prlimit (util-linux) with an address-space limit, a file-size
// limit and a CPU limit, in a process group of its own that a wall-clock
// timer kills, with a capped stdout/stderr, a private TMPDIR and an
// environment stripped of the variables that make cpp or git read or
// write elsewhere. Temporary folders are created 0700 and removed on
// every exit path, SIGINT, SIGTERM and SIGHUP included.
package sandbox
