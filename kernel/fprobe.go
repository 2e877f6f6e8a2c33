package kernel

import (
	"fmt"

	"trampemu/ftrace"
)

// FprobeEra is a span of kernel versions of one arch with one fprobe
// design.
type FprobeEra struct {
	Arch     string
	From, To Version // To inclusive; zero To: open
	Design   ftrace.FprobeDesign
	// Rethook is the form of the rethook-era fprobe (DesignRethook).
	Rethook ftrace.RethookEra
	// Doc cites what starts the era.
	Doc string
}

// FprobeEras lists every arch's fprobe eras (x86_64.go, s390x.go,
// arm64.go), oldest first per arch.
var FprobeEras []FprobeEra

// FprobeEraFor returns the era of v on arch: its design, and for the
// rethook design the form of that version (pool, order of the entry).
// Versions before the first era have DesignNone.
func FprobeEraFor(arch string, v Version) FprobeEra {
	for _, e := range FprobeEras {
		if e.Arch == arch && !v.Less(e.From) && (e.To == (Version{}) || !e.To.Less(v)) {
			if e.Design == ftrace.DesignRethook {
				e.Rethook = RethookFormFor(v)
			}
			return e
		}
	}
	return FprobeEra{Arch: arch, Design: ftrace.DesignNone, Doc: fmt.Sprintf("no fprobe on %s %s", arch, v)}
}

// RethookFormFor is the form of kernel/trace/fprobe.c of v: v5.18-v6.3
// handler before rethook_try_get, freelist; v6.4-v6.6 try_get first,
// entry data, nr_maxactive, freelist; v6.7-v6.13 the same on objpool
// (4bbd93455659, "kprobes: kretprobe scalability improvement with objpool").
func RethookFormFor(v Version) ftrace.RethookEra {
	switch {
	case v.Less(Version{6, 4}):
		return ftrace.RethookV518
	case v.Less(Version{6, 7}):
		return ftrace.RethookV64
	}
	return ftrace.RethookV613
}
