// Package trampolines holds the trampoline variants as data: the .S files
// (x86_64/, s390x/, arm64/), the workloads with real traced call sites (workloads/),
// the runtime the harness links with them (runtime/), and the registry
// table below. It contains no logic beyond the table.
package trampolines
