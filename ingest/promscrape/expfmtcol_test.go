package promscrape

import (
	"bytes"
	"errors"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// FuzzExpfmtColumn checks that the column of any expfmt error is on its
// line (at most one past its end, for a fault at the newline).
func FuzzExpfmtColumn(f *testing.F) {
	for _, s := range []string{
		"m{a=\"\\x\"} 1\n", "m{a=\"1} 1\n", "# TYPE m gaugy\n", "m 1 2 3\n", "{\"m\", \"n\"} 1\n",
		"m{a=\"1\",a=\"2\"} 1\n", "# HELP m \\q\n", "m{\"a\\\"b\"=\"1\",\"a\\\"b\"=\"1\"} 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if len(text) == 0 || text[len(text)-1] != '\n' {
			text = append(text, '\n')
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		_, err := p.TextToMetricFamilies(bytes.NewReader(text))
		var pe expfmt.ParseError
		if !errors.As(err, &pe) {
			return
		}
		start, ok := lineStart(text, pe.Line-1)
		if !ok || start >= len(text) {
			return
		}
		line := text[start : start+bytes.IndexByte(text[start:], '\n')]
		col := expfmtColumn(line, expfmtStop(text)-start, pe.Msg)
		if col < 0 || col > len(line)+1 {
			t.Fatalf("%q: column %d of a line of %d bytes", line, col, len(line))
		}
	})
}
