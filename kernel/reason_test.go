package kernel

import (
	"strings"
	"testing"

	"trampemu/regs"
)

// TestDetectReasonNeverEmpty: a file with nothing that tells the eras
// apart (a return_to_handler that only loops) fits every model; the reason
// still says why, on every arch.
func TestDetectReasonNeverEmpty(t *testing.T) {
	for _, a := range regs.Arches {
		ch, err := Detect(a.Name, []byte("SYM_CODE_START(return_to_handler)\n1:\tnop\nSYM_CODE_END(return_to_handler)\n"))
		if err != nil {
			t.Fatalf("%s: %v", a.Name, err)
		}
		why := strings.TrimPrefix(ch.Reason, "detected from the file:")
		if strings.HasPrefix(why, "  ") || strings.HasPrefix(strings.TrimSpace(why), "(") || strings.TrimSpace(why) == "" {
			t.Errorf("%s: reason %q gives no why", a.Name, ch.Reason)
		}
	}
}
