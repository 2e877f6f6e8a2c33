//go:build !(linux && amd64)

package native

import (
	"errors"
	"io"
)

// errUnsupported is returned on hosts that cannot run x86-64 code.
var errUnsupported = errors.New("native timing needs a Linux x86-64 host")

// Supported reports whether this host can run the native timing.
func Supported() error { return errUnsupported }

func serveHere(childTask, io.Reader, io.Writer) error { return errUnsupported }

func countHere(childTask, io.Reader, io.Writer) error { return errUnsupported }

func hostCPU() (int, error) { return 0, errUnsupported }
