package benchgen

import (
	"io"
	"os"
	"path/filepath"
)

// writeRunDir writes dir/file with write, then dir/run.yaml with the
// manifest made from what write reports.
func writeRunDir(dir, file string, opt Options, write func(io.Writer, Options) (Stats, error), manifest func(Stats) string) (Stats, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Stats{}, err
	}
	f, err := os.Create(filepath.Join(dir, file))
	if err != nil {
		return Stats{}, err
	}
	defer f.Close()
	st, err := write(f, opt)
	if err != nil {
		return st, err
	}
	if err := f.Close(); err != nil {
		return st, err
	}
	return st, os.WriteFile(filepath.Join(dir, "run.yaml"), []byte(manifest(st)), 0o644)
}

// countingWriter counts the bytes written and keeps the first error.
type countingWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

func (c *countingWriter) WriteString(s string) { c.Write([]byte(s)) }
