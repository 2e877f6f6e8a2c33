package sandbox

import (
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

var (
	dirsMu   sync.Mutex
	dirs     = map[string]bool{} // temporary folders to remove on a signal
	stopping bool                // a signal came: no new program starts
	handler  sync.Once
)

// TempDir creates a private (0700) temporary folder named prefix* and
// returns it with the function that removes it. Until that function runs,
// SIGINT, SIGTERM and SIGHUP remove it (and every other such folder, after
// killing the programs Run started) before the process exits with 128 +
// the signal's number.
func TempDir(prefix string) (string, func(), error) {
	installHandler()
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	// MkdirTemp creates 0700 less the umask; make sure of it.
	if err := os.Chmod(dir, 0o700); err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	dirsMu.Lock()
	dirs[dir] = true
	dirsMu.Unlock()
	var once sync.Once
	return dir, func() {
		once.Do(func() {
			dirsMu.Lock()
			delete(dirs, dir)
			dirsMu.Unlock()
			os.RemoveAll(dir)
		})
	}, nil
}

// Registered returns the number of temporary folders not removed yet
// (tests check that every exit path removes its own).
func Registered() int {
	dirsMu.Lock()
	defer dirsMu.Unlock()
	return len(dirs)
}

func installHandler() {
	handler.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		go func() {
			sig := <-ch
			cleanup()
			n := 1
			if s, ok := sig.(syscall.Signal); ok {
				n = int(s)
			}
			fmt.Fprintf(os.Stderr, "trampemu: %v: temporary folders removed\n", sig)
			os.Exit(128 + n)
		}()
	})
}

// cleanup kills the running programs' groups and removes the folders.
func cleanup() {
	groupsMu.Lock()
	stopping = true
	for pid := range groups {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	groupsMu.Unlock()
	dirsMu.Lock()
	defer dirsMu.Unlock()
	for d := range dirs {
		os.RemoveAll(d)
	}
}
