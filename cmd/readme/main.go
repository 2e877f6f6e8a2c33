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
	if len(args) < 3 {
		return fmt.Errorf("usage: readme REPORT.json SNAPSHOT.json FILE.md... (make readme: out/report.json docs/numbers.json README.md docs/*.md)")
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return fmt.Errorf("%v: run make report first", err)
	}
	q, err := report.QuoteReport(data, args[0])
	if err != nil {
		return err
	}
	js, err := json.MarshalIndent(q, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(args[1], append(js, '\n'), 0o644); err != nil {
		return err
	}
	for _, f := range args[2:] {
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
