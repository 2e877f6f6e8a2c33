package harness

import (
	"reflect"
	"testing"
)

// A recycled invocation must come back as a fresh one: every field cleared
// (slices emptied) but Before, the Above windows and RunFacts, which each
// enter event overwrites. Fails when a field is added to Invocation and not to
// newInvocation.
func TestNewInvocationClearsEveryField(t *testing.T) {
	kept := map[string]bool{"Before": true, "AboveBefore": true, "AboveAfter": true, "RunFacts": true}
	inv := &Invocation{}
	fill(t, reflect.ValueOf(inv).Elem())
	h := &Harness{free: []*Invocation{inv}}
	got := h.newInvocation()
	if got != inv {
		t.Fatal("the recycled invocation was not reused")
	}
	g := reflect.ValueOf(got).Elem()
	for i := 0; i < g.NumField(); i++ {
		name := g.Type().Field(i).Name
		if kept[name] {
			continue
		}
		cleared(t, name, g.Field(i))
	}
}

// fill sets every field of struct v (nested structs too) to a non-zero value.
func fill(t *testing.T, v reflect.Value) {
	t.Helper()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem() // unexported too
		switch f.Kind() {
		case reflect.Struct:
			fill(t, f)
			continue
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Uint64:
			f.SetUint(7)
		case reflect.String:
			f.SetString("x")
		case reflect.Array:
			f.Index(0).SetUint(7)
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		default:
			t.Fatalf("field %s: kind %s not covered by this test", v.Type().Field(i).Name, f.Kind())
		}
	}
}

// cleared checks that f is cleared: slices empty, structs field by field,
// everything else zero.
func cleared(t *testing.T, name string, f reflect.Value) {
	t.Helper()
	switch f.Kind() {
	case reflect.Slice:
		if f.Len() != 0 {
			t.Errorf("%s has %d elements, want 0", name, f.Len())
		}
	case reflect.Struct:
		for i := 0; i < f.NumField(); i++ {
			cleared(t, name+"."+f.Type().Field(i).Name, f.Field(i))
		}
	default:
		if !f.IsZero() {
			t.Errorf("%s not cleared", name)
		}
	}
}
