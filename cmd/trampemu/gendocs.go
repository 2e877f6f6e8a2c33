package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// docsDate is the date the man pages carry (cobra's doc package would
// take today's, and every `make docs` would change them): the date of
// Version; bump both together.
var docsDate = time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)

// Where genDocs writes under its folder: the Markdown pages of every
// command and their man pages.
const (
	cliDocs = "cli"
	manDocs = "man"
)

// genDocsCommand is the hidden `trampemu gendocs DIR` behind `make docs`:
// it writes DIR/cli/*.md and DIR/man/*.1 from the command tree.
func genDocsCommand() *cobra.Command {
	return &cobra.Command{
		Use:    "gendocs DIR",
		Short:  "write the Markdown and man pages of every command into DIR/cli and DIR/man (make docs)",
		Hidden: true,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("give the docs folder (make docs gives docs)")
			}
			if err := genDocs(newRoot(io.Discard, io.Discard), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "wrote %s and %s\n", filepath.Join(args[0], cliDocs), filepath.Join(args[0], manDocs))
			return nil
		},
	}
}

// genDocs writes the pages of root's tree into dir/cli and dir/man,
// removing the pages of commands that are gone.
func genDocs(root *cobra.Command, dir string) error {
	cli, man := filepath.Join(dir, cliDocs), filepath.Join(dir, manDocs)
	for _, d := range []string{cli, man} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		old, _ := filepath.Glob(filepath.Join(d, root.Name()+"*"))
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	if err := doc.GenMarkdownTree(root, cli); err != nil {
		return err
	}
	hdr := &doc.GenManHeader{Title: strings.ToUpper(root.Name()), Section: "1", Date: &docsDate, Source: root.Name() + " " + Version, Manual: root.Name() + " manual"}
	return doc.GenManTree(root, hdr, man)
}
