package main

import (
	"encoding/json"
	"fmt"
	"os"

	"trampemu/report"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "readme:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) >= 2 && args[0] == "--snapshot" {
		q, err := readSnapshot(args[1])
		if err != nil {
			return err
		}
		return rewrite(q, args[2:])
	}
	if len(args) >= 3 && args[0] == "--emulation" {
		// the emulator ratios of a newer report, the rest of the snapshot
		// as it is (a report on another machine would change the native
		// numbers the prose around them reads)
		q, err := readSnapshot(args[2])
		if err != nil {
			return err
		}
		data, err := os.ReadFile(args[1])
		if err != nil {
			return fmt.Errorf("%v: run make report first", err)
		}
		if err := report.QuoteEmulation(q, data, args[1]); err != nil {
			return err
		}
		if err := writeSnapshot(q, args[2]); err != nil {
			return err
		}
		return rewrite(q, args[3:])
	}
	if len(args) < 3 {
		return fmt.Errorf("usage: readme REPORT.json SNAPSHOT.json FILE.md... | readme --snapshot SNAPSHOT.json FILE.md... | readme --emulation REPORT.json SNAPSHOT.json FILE.md... (make readme: out/report.json docs/numbers.json README.md docs/*.md)")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return fmt.Errorf("%v: run make report first", err)
	}
	q, err := report.QuoteReport(data, args[0])
	if err != nil {
		return err
	}
	// every other machine's last run stays in the snapshot (the
	// native-machines block shows each conclusion on each machine)
	if _, err := os.Stat(args[1]); err == nil {
		prev, err := readSnapshot(args[1])
		if err != nil {
			return err
		}
		q.KeepMachines(prev)
	} else {
		q.KeepMachines(nil)
	}
	if err := writeSnapshot(q, args[1]); err != nil {
		return err
	}
	return rewrite(q, args[2:])
}

func readSnapshot(path string) (*report.Quoted, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%v: make readme writes it", err)
	}
	var q report.Quoted
	if err := json.Unmarshal(data, &q); err != nil {
		return nil, fmt.Errorf("%s: %v: make readme writes it again", path, err)
	}
	return &q, nil
}

func writeSnapshot(q *report.Quoted, path string) error {
	js, err := json.MarshalIndent(q, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(js, '\n'), 0o644)
}

func rewrite(q *report.Quoted, files []string) error {
	for _, f := range files {
		doc, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		out, err := report.RewriteQuotes(doc, q)
		if err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
		if err := os.WriteFile(f, out, 0o644); err != nil {
			return err
		}
	}
	return nil
}
