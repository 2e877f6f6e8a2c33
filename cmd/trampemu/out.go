package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// writableDir makes dir (and its parents) and proves a file can be
// created in it, before any long work: an unwritable --out fails at once.
func writableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("--out %s: %v", dir, unwrapPath(err))
	}
	f, err := os.CreateTemp(dir, ".trampemu-probe-*")
	if err != nil {
		return usagef("--out %s is not writable: %v", dir, unwrapPath(err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// outFile is one file of --out and what writes it.
type outFile struct {
	name  string
	write func(io.Writer) error
}

// writeFiles writes every file into dir all or nothing: each goes to a
// temporary file first, and only when all are written are they renamed
// into place; on any error the temporary files are removed and no file of
// the set is left half written.
func writeFiles(dir string, files []outFile) (err error) {
	var tmps []string
	defer func() {
		if err != nil {
			for _, t := range tmps {
				os.Remove(t)
			}
		}
	}()
	for _, f := range files {
		fh, err := os.CreateTemp(dir, "."+f.name+".tmp-*")
		if err != nil {
			return usagef("--out %s is not writable: %v", dir, unwrapPath(err))
		}
		tmps = append(tmps, fh.Name())
		werr := fh.Chmod(0o644)
		if werr == nil {
			werr = f.write(fh)
		}
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
	}
	for i, f := range files {
		if err := os.Rename(tmps[i], filepath.Join(dir, f.name)); err != nil {
			return err
		}
	}
	return nil
}
