package main

import (
	"io"

	"github.com/schollz/progressbar/v3"
)

// progress is `trampemu report`'s progress bar on stderr
// (github.com/schollz/progressbar/v3), shown only when stderr is a
// terminal; otherwise every method does nothing.
// total is the number of steps announced, done the number counted
// (shown or not): a report's count is exact when they end equal.
type progress struct {
	bar         *progressbar.ProgressBar
	total, done int
}

func newProgress(total int, show bool, w io.Writer) *progress {
	if !show || total <= 0 {
		return &progress{total: total}
	}
	// The bar stays on its line when full (N/N), ended by a newline.
	return &progress{total: total, bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("report"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionOnCompletion(func() { _, _ = io.WriteString(w, "\n") }),
	)}
}

// step counts one unit of work done, naming it; its last frame shows the
// name with the new count (the report's last one N/N).
func (p *progress) step(what string) {
	p.done++
	if p.bar == nil {
		return
	}
	p.bar.Describe("report: " + what)
	_ = p.bar.Add(1)
}

// finish ends the bar where it is (once; later calls do nothing): it
// never fills up steps that did not run.
func (p *progress) finish() {
	if p.bar != nil {
		if !p.bar.IsFinished() {
			_ = p.bar.Exit()
		}
		p.bar = nil
	}
}
