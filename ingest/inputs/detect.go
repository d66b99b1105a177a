package inputs

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/outlast-dev/outlast/ingest/internal/lineio"
)

// Detect returns the request-log format of the file at path (possibly .gz
// or .zst). Its first bytes decide when a row's Sniff knows them. Else its
// name does: a file named as a load generator's export (a row's Files) is
// that tool's, so that a record of a shape outlast does not know is
// refused in the tool's terms, not as a bad line of outlast's own gateway
// log. Any other file is outlast's own gateway log, unless it is one of a
// tool's summaries, which hold no request: that is an error saying what
// the file is and what to give instead.
func Detect(path string) (string, error) {
	name := filepath.Base(path)
	lr, err := lineio.OpenHead(path, name)
	if err != nil {
		return "", err
	}
	defer lr.Close()
	head := make([]byte, 4096)
	n, err := io.ReadFull(lr, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	f := detect(name, head[:n])
	if f.Sniff == nil {
		if what := Summary(name, head[:n]); what != "" {
			return "", fmt.Errorf("%s: not a gateway log: %s", name, what)
		}
	}
	return f.Name, nil
}

// detect returns the format of the file named name whose first bytes are
// head.
func detect(name string, head []byte) *Request {
	trimmed := bytes.TrimLeft(head, " \t\r\n")
	for i, f := range Requests {
		if f.Sniff != nil && f.Sniff(trimmed) {
			return &Requests[i]
		}
	}
	name = TrimCompression(name)
	for i, f := range Requests {
		if slices.Contains(f.Files, name) {
			return &Requests[i]
		}
	}
	return &Requests[0]
}

// Summary says what the file named name, whose first bytes are head (nil
// when unread), is when it is one of the load generators' summaries, which
// hold no request; "" otherwise.
func Summary(name string, head []byte) string {
	name = TrimCompression(name)
	for _, f := range Requests {
		if f.Summary == nil {
			continue
		}
		if what := f.Summary(name, head); what != "" {
			return what
		}
	}
	return ""
}

// SummaryIn returns the name of a file in dir that is a load generator's
// summary by its name, and what it is; "" when there is none.
func SummaryIn(dir string) (string, string) {
	entries, _ := os.ReadDir(dir) // unreadable: no summary to name
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if what := Summary(e.Name(), nil); what != "" {
			return e.Name(), what
		}
	}
	return "", ""
}

func firstLine(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return b
}
