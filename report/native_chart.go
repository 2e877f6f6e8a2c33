package report

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"trampemu/native"
)

// NativeChartName is the base name of the native chart's files in the
// output folder (.svg and .png).
const NativeChartName = "native_ns"

// modeColors are the bar colours of the native modes (off, function
// tracer, graph user).
var modeColors = map[native.Mode]color.Color{
	native.Off:      color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff},
	native.Function: color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	native.Graph:    color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
}

// NativeChart draws the native ns per call of each x86-64 pairing and mode
// as grouped bars with their 95% intervals as error bars, and writes it
// into dir as NativeChartName.svg and .png; it returns the paths.
func NativeChart(rows []native.Row, dir string) ([]string, error) {
	var names []string
	index := map[string]int{}
	for _, r := range rows {
		n := r.Entry + "+" + r.Exit
		if _, ok := index[n]; !ok {
			index[n] = len(names)
			label := r.Entry + "\n" + r.Exit
			if r.Experiment {
				label += " (exp.)"
			}
			names = append(names, label)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("native chart: no rows")
	}
	p := plot.New()
	p.Title.Text = "x86-64 on the host CPU: ns per call of add(1, 2), median and 95% interval"
	p.Y.Label.Text = "ns per call"
	p.Y.Min = 0
	const groupWidth = 0.8
	step := groupWidth / float64(len(native.Modes))
	for m, mode := range native.Modes {
		vals := make(plotter.Values, len(names))
		pts := make(plotter.XYs, len(names))
		errs := make(plotter.YErrors, len(names))
		for _, r := range rows {
			if r.Mode != mode {
				continue
			}
			i := index[r.Entry+"+"+r.Exit]
			x := float64(i) - groupWidth/2 + step*(float64(m)+0.5)
			vals[i], pts[i] = r.MedianNs, plotter.XY{X: x, Y: r.MedianNs}
			lo, hi := r.CI95[0], r.CI95[1]
			if math.IsInf(lo, 0) || math.IsInf(hi, 0) { // too few samples for an interval
				lo, hi = r.MedianNs, r.MedianNs
			}
			errs[i].Low, errs[i].High = r.MedianNs-lo, hi-r.MedianNs
		}
		bars, err := plotter.NewBarChart(vals, vg.Points(9))
		if err != nil {
			return nil, err
		}
		bars.XMin = -groupWidth/2 + step*(float64(m)+0.5)
		bars.Color = modeColors[mode]
		bars.LineStyle.Width = 0
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{pts, errs})
		if err != nil {
			return nil, err
		}
		eb.CapWidth = vg.Points(4)
		p.Add(bars, eb)
		p.Legend.Add(string(mode), bars)
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 2.5
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.X.Tick.Label.Font.Size = vg.Points(7)
	var out []string
	for _, ext := range []string{".svg", ".png"} {
		path := filepath.Join(dir, NativeChartName+ext)
		if err := p.Save(vg.Length(len(names))*vg.Points(60)+3*vg.Inch, 6*vg.Inch, path); err != nil {
			return nil, fmt.Errorf("native chart: %w", err)
		}
		out = append(out, path)
	}
	return out, nil
}
