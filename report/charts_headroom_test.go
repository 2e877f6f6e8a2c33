package report

import (
	"testing"

	"trampemu/check"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TestCostChartLegendHeadroom: on the cost chart's canvas the tallest bar
// ends below the legend's bottom edge (with the legend's own canvas taken
// as the data area, which it never extends below), for a chart whose
// tallest bars are on the right, under the legend.
func TestCostChartLegendHeadroom(t *testing.T) {
	var vs []check.Summary
	for i, n := range []string{"a", "b", "c", "d", "e", "f"} {
		s := check.Summary{Arch: "arm64", Variant: "variant-" + n, Role: "entry"}
		s.Metrics.Instructions, s.Metrics.StoreBytes = float64(10+30*i), float64(8+50*i)
		vs = append(vs, s)
	}
	p, err := costChart("headroom", vs)
	if err != nil {
		t.Fatal(err)
	}
	c := draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: costW, Y: costH}}}
	da := p.DataCanvas(c)
	_, y := p.Transforms(&da)
	legendBottom := da.Max.Y - p.Legend.Rectangle(da).Size().Y
	if top := y(8 + 50*5); top >= legendBottom {
		t.Errorf("the tallest bar ends at y=%v, the legend's bottom is at %v: the bar runs under the legend", top, legendBottom)
	}
}
