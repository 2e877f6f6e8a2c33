package report

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"trampemu/check"
	"trampemu/scenarios"
)

// Chart is one chart written as SVG and PNG.
type Chart struct {
	Name  string   `json:"name"`
	Title string   `json:"title"`
	Files []string `json:"files"`
}

// ChartFormats are the file formats every chart is written in.
var ChartFormats = []string{"svg", "png"}

// WriteCharts draws, with gonum.org/v1/plot, per arch: the instructions
// and bytes stored per traced call of every entry and exit variant, the
// shadow-stack words per traced call by header encoding, probe count and
// data size, and the traced depth by data size; each into dir as SVG and
// PNG.
func WriteCharts(dir string, ss []check.Summary, rows []scenarios.MeasureRow) ([]Chart, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []Chart
	save := func(name, title string, p *plot.Plot, w, h vg.Length) error {
		c := Chart{Name: name, Title: title}
		for _, f := range ChartFormats {
			path := filepath.Join(dir, name+"."+f)
			if err := p.Save(w, h, path); err != nil {
				return fmt.Errorf("chart %s: %w", path, err)
			}
			c.Files = append(c.Files, path)
		}
		out = append(out, c)
		return nil
	}
	for _, arch := range archesOf(ss, rows) {
		var vs []check.Summary
		for _, s := range ss {
			if s.Arch == arch {
				vs = append(vs, s)
			}
		}
		if len(vs) > 0 {
			title := fmt.Sprintf("%s: cost per traced call of each trampoline variant", arch)
			p, err := costChart(title, vs)
			if err != nil {
				return out, err
			}
			if err := save("cost-"+arch, title, p, costW, costH); err != nil {
				return out, err
			}
		}
		var ms []scenarios.MeasureRow
		for _, r := range rows {
			if r.Arch == arch {
				ms = append(ms, r)
			}
		}
		if len(ms) == 0 {
			continue
		}
		for _, c := range []struct {
			name, title, y string
			val            func(scenarios.MeasureRow) int
		}{
			{"shadow-words-" + arch, arch + ": shadow-stack words per traced call", "words per traced call of add",
				func(r scenarios.MeasureRow) int { return r.WordsPerCall }},
			{"traced-depth-" + arch, arch + ": traced depth of the 131-level chain", "traced levels",
				func(r scenarios.MeasureRow) int { return r.MaxDepth }},
		} {
			p, err := measureChart(c.title, c.y, ms, c.val)
			if err != nil {
				return out, err
			}
			if err := save(c.name, c.title, p, 7*vg.Inch, 5*vg.Inch); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

func archesOf(ss []check.Summary, rows []scenarios.MeasureRow) []string {
	var as []string
	seen := map[string]bool{}
	add := func(a string) {
		if !seen[a] {
			seen[a] = true
			as = append(as, a)
		}
	}
	for _, s := range ss {
		add(s.Arch)
	}
	for _, r := range rows {
		add(r.Arch)
	}
	return as
}

// The size of the cost charts.
const (
	costW = 8 * vg.Inch
	costH = 4.5 * vg.Inch
)

// costChart: two bars per variant (entry variants first, then exit), the
// y axis high enough that the tallest bar ends below the legend.
func costChart(title string, vs []check.Summary) (*plot.Plot, error) {
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].Role < vs[j].Role })
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = "per traced call of add"
	var names []string
	var insns, stored plotter.Values
	for _, s := range vs {
		names = append(names, s.Role+": "+s.Variant)
		insns = append(insns, s.Metrics.Instructions)
		stored = append(stored, s.Metrics.StoreBytes)
	}
	w := vg.Points(9)
	for i, series := range []struct {
		label string
		v     plotter.Values
	}{{"instructions", insns}, {"bytes stored", stored}} {
		b, err := plotter.NewBarChart(series.v, w)
		if err != nil {
			return nil, err
		}
		b.LineStyle.Width = 0
		b.Color = plotutil.Color(i)
		b.Offset = w * vg.Length(2*i-1) / 2
		p.Add(b)
		p.Legend.Add(series.label, b)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 4
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.Add(plotter.NewGrid())
	tallest := 0.0
	for _, v := range append(append(plotter.Values{}, insns...), stored...) {
		tallest = math.Max(tallest, v)
	}
	legendHeadroom(p, costW, costH, tallest)
	return p, nil
}

// legendHeadroom raises the y axis of a w x h chart so that a value of
// tallest ends legendGap below the legend, which gonum draws inside the
// top of the data area.
func legendHeadroom(p *plot.Plot, w, h vg.Length, tallest float64) {
	da := p.DataCanvas(draw.Canvas{Rectangle: vg.Rectangle{Max: vg.Point{X: w, Y: h}}})
	height := da.Max.Y - da.Min.Y
	free := height - p.Legend.Rectangle(da).Size().Y - legendGap
	p.Y.Min = 0
	if tallest > 0 && free > 0 {
		p.Y.Max = tallest * float64(height) / float64(free)
	}
}

// legendGap is the space between the tallest bar and the legend.
const legendGap = 6 * vg.Millimeter

// measureChart: one line over data size per (header, probes); the plain
// fgraph user (no probes) as a single point.
func measureChart(title, ylabel string, rows []scenarios.MeasureRow, val func(scenarios.MeasureRow) int) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "entry data per probe (bytes)"
	p.Y.Label.Text = ylabel
	type key struct {
		header string
		probes int
	}
	lines := map[key]plotter.XYs{}
	var keys []key
	for _, r := range rows {
		k := key{r.Header, r.Probes}
		if _, ok := lines[k]; !ok {
			keys = append(keys, k)
		}
		lines[k] = append(lines[k], plotter.XY{X: float64(r.DataBytes), Y: float64(val(r))})
	}
	for i, k := range keys {
		xys := lines[k]
		label := fmt.Sprintf("%s header, %d probe(s)", k.header, k.probes)
		if k.probes == 0 {
			label = "plain fgraph user"
		}
		l, s, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		c := plotutil.Color(i)
		l.Color, s.Color = c, c
		l.Dashes = plotutil.Dashes(i / len(plotutil.DefaultColors))
		s.Shape = plotutil.Shape(i % 7)
		if len(xys) == 1 {
			l.Color = color.Transparent
		}
		p.Add(l, s)
		p.Legend.Add(label, l, s)
	}
	// Room above the data for the legend.
	maxY := 0.0
	for _, xys := range lines {
		for _, xy := range xys {
			maxY = math.Max(maxY, xy.Y)
		}
	}
	p.Y.Min, p.Y.Max = 0, math.Max(1, maxY)*1.9
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Points(40)
	p.Legend.Padding = vg.Points(1)
	p.Add(plotter.NewGrid())
	return p, nil
}
