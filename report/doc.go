// Package report renders check results and summaries: plain tables for the
// terminal, JSON for tools, Markdown that can be pasted into a patch
// discussion. It formats; it runs nothing.
package report
