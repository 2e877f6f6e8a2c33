package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
)

// progress is `trampemu report`'s progress bar on stderr
// (github.com/schollz/progressbar/v3), shown only when stderr is a
// terminal; otherwise every method does nothing.
type progress struct{ bar *progressbar.ProgressBar }

func stderrIsTerminal() bool {
	fi, err := os.Stderr.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func newProgress(total int, show bool, w io.Writer) *progress {
	if !show || total <= 0 {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("report"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(30),
	)}
}

// step counts one unit of work done, naming it.
func (p *progress) step(what string) {
	if p.bar == nil {
		return
	}
	p.bar.Describe("report: " + what)
	_ = p.bar.Add(1)
}

// finish clears the bar (once; later calls do nothing).
func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
		p.bar = nil
	}
}
