package unwind

import "testing"

// FuzzParseORC: any bytes either decode into a sorted table whose Find
// never panics, or give an error; never a panic.
func FuzzParseORC(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0}, []byte{8, 0, 0, 0, 5, 0}, uint8(61))
	f.Add([]byte{0xfc, 0xff, 0xff, 0xff, 0, 0, 0, 0}, []byte{8, 0, 0xf0, 0xff, 0x15, 0x02, 0, 0, 0, 0, 0, 0x01}, uint8(64))
	f.Fuzz(func(t *testing.T, ip, orc []byte, fmtSel uint8) {
		format := Format(61)
		if fmtSel%2 == 1 {
			format = 64
		}
		tab, err := ParseORC(ip, 0xffffffff82000000, orc, format)
		if err != nil {
			return
		}
		for i := 1; i < len(tab.Entries); i++ {
			if tab.Entries[i-1].IP > tab.Entries[i].IP {
				t.Fatalf("not sorted at %d", i)
			}
		}
		for _, e := range tab.Entries {
			got, ok := tab.Find(e.IP)
			if !ok || got.IP != e.IP {
				t.Fatalf("Find(%#x) = %v, %v", e.IP, got, ok)
			}
			_ = e.String()
		}
	})
}
