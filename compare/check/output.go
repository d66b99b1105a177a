package check

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Formats a Report is written in.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
)

// Write writes the report in format (FormatText, FormatJSON or
// FormatMarkdown).
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case FormatText, "":
		return r.WriteText(w)
	case FormatJSON:
		return r.WriteJSON(w)
	case FormatMarkdown:
		return r.WriteMarkdown(w)
	}
	return fmt.Errorf("check: unknown format %q (want text, json or markdown)", format)
}

// overall is the report's verdict word, which the exit status says.
func (r *Report) overall() string {
	if r.Failed() > 0 {
		return "FAIL"
	}
	return "PASS"
}

// counts is the last line of the text output.
func (r *Report) counts() string {
	return fmt.Sprintf("%s: %d of %d rules passed, %d failed", r.overall(), len(r.Verdicts)-r.Failed(), len(r.Verdicts), r.Failed())
}

// line is a detail as the text output prints it.
func (d Detail) line() string {
	s := d.Text
	if d.Dataset != "" {
		s = d.Dataset + ": " + s
	}
	return s
}

// WriteText prints each rule as "PASS name" or "FAIL name" with its
// details indented under it ("ok" or "FAIL" first), and a last line with
// the counts and the overall verdict, which is what the exit status says.
func (r *Report) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, v := range r.Verdicts {
		word := "PASS"
		if !v.Pass {
			word = "FAIL"
		}
		fmt.Fprintf(bw, "%s  %s\n", word, v.Rule)
		for _, d := range v.Details {
			mark := "ok  "
			if !d.OK {
				mark = "FAIL"
			}
			fmt.Fprintf(bw, "      %s %s\n", mark, d.line())
		}
	}
	fmt.Fprintln(bw, r.counts())
	return bw.Flush()
}

// reportJSON is the JSON form of a Report.
type reportJSON struct {
	Pass     bool      `json:"pass"`
	Passed   int       `json:"passed"`
	Failed   int       `json:"failed"`
	Verdicts []Verdict `json:"verdicts"`
}

// WriteJSON writes the report as one JSON object: pass (what the exit
// status says), the numbers of rules passed and failed, and every verdict
// with its details and their numbers (missing numbers null).
func (r *Report) WriteJSON(w io.Writer) error {
	vs := r.Verdicts
	if vs == nil {
		vs = []Verdict{}
	}
	for i := range vs {
		if vs[i].Details == nil {
			vs[i].Details = []Detail{}
		}
	}
	b, err := json.MarshalIndent(reportJSON{Pass: r.Failed() == 0, Passed: len(vs) - r.Failed(), Failed: r.Failed(), Verdicts: vs}, "", "  ")
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteMarkdown writes the report for a CI job's summary page (GitHub's
// $GITHUB_STEP_SUMMARY, GitLab's report pages): a heading with the
// overall verdict, a table of the rules, then each rule's details as a
// list, failures marked.
func (r *Report) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "### outlast check: %s\n\n", r.counts())
	fmt.Fprintln(bw, "| Rule | Verdict |")
	fmt.Fprintln(bw, "|---|---|")
	for _, v := range r.Verdicts {
		fmt.Fprintf(bw, "| %s | %s |\n", mdCell(v.Rule), verdictWord(v.Pass))
	}
	for _, v := range r.Verdicts {
		fmt.Fprintf(bw, "\n#### %s: %s\n\n", verdictWord(v.Pass), mdText(v.Rule))
		for _, d := range v.Details {
			mark := "ok"
			if !d.OK {
				mark = "**FAIL**"
			}
			fmt.Fprintf(bw, "- %s %s\n", mark, mdText(d.line()))
		}
	}
	return bw.Flush()
}

func verdictWord(pass bool) string {
	if pass {
		return "PASS"
	}
	return "**FAIL**"
}

// mdText escapes the characters Markdown would read as markup in a line
// of text.
func mdText(s string) string {
	return mdEscaper.Replace(s)
}

// mdCell escapes text for a table cell, where '|' ends the cell.
func mdCell(s string) string {
	return strings.ReplaceAll(mdText(s), "|", `\|`)
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "#", `\#`)
