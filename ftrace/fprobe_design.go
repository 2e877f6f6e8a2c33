package ftrace

import (
	"fmt"
	"strings"
)

// FprobeDesign is which implementation of fprobe a kernel has.
type FprobeDesign int

// fprobe designs by kernel era.
const (
	// DesignNone: no fprobe (before v5.18, or an arch/era where
	// CONFIG_FPROBE cannot be selected).
	DesignNone FprobeDesign = iota
	// DesignRethook: one ftrace_ops per fprobe and a rethook per fprobe
	// (kernel/trace/fprobe.c v5.18-v6.13): RethookFprobes.
	DesignRethook
	// DesignFgraph: one shared fgraph_ops and the shadow stack
	// (kernel/trace/fprobe.c v6.14+, "fprobe: Rewrite fprobe on
	// function-graph tracer"): Fprobes.
	DesignFgraph
)

// FprobeDesigns are the designs with an fprobe, in era order.
var FprobeDesigns = []FprobeDesign{DesignRethook, DesignFgraph}

// String returns "none", "rethook" or "fgraph".
func (d FprobeDesign) String() string {
	switch d {
	case DesignNone:
		return "none"
	case DesignRethook:
		return "rethook"
	case DesignFgraph:
		return "fgraph"
	}
	return fmt.Sprintf("design%d", int(d))
}

// ParseFprobeDesign reads "rethook" or "fgraph" (the --fprobe values).
func ParseFprobeDesign(s string) (FprobeDesign, error) {
	for _, d := range FprobeDesigns {
		if strings.EqualFold(s, d.String()) {
			return d, nil
		}
	}
	return DesignNone, fmt.Errorf("--fprobe %q: want rethook (v5.18-v6.13) or fgraph (v6.14+)", s)
}

// FprobeManager is what both designs offer an fprobe user: register,
// unregister, enable and disable (include/linux/fprobe.h).
type FprobeManager interface {
	Register(fp *Fprobe, filter string) error
	RegisterSyms(fp *Fprobe, names []string) error
	RegisterIPs(fp *Fprobe, ips []uint64) error
	Unregister(fp *Fprobe) error
	Enable(fp *Fprobe)
	Disable(fp *Fprobe)
}

var (
	_ FprobeManager = (*Fprobes)(nil)
	_ FprobeManager = (*RethookFprobes)(nil)
)
