//go:build !(linux && amd64)

package native

import "errors"

// errUnsupported is returned on hosts that cannot run x86-64 code.
var errUnsupported = errors.New("native timing needs a Linux x86-64 host")

// Supported reports whether this host can run the native timing.
func Supported() error { return errUnsupported }

func runHere(Job) (Result, error) { return Result{}, errUnsupported }
