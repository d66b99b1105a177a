package guidellm

import (
	"bufio"
	"bytes"
	"io"

	"go.yaml.in/yaml/v3"
)

// Count returns the number of benchmarks in the report in r, reading it
// once without decoding it: the run-directory reader must know whether a
// report is a sweep (one run per benchmark) before it reads the first
// benchmark's requests. It does not check the report: NextBenchmark does.
func Count(r io.Reader) (int, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	first, err := firstByte(br)
	if err != nil {
		return 0, err
	}
	if first != '{' {
		return countYAML(br)
	}
	var c counter
	buf := make([]byte, 256<<10)
	for {
		n, err := br.Read(buf)
		c.feed(buf[:n])
		if err == io.EOF {
			return c.count, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// counter counts the objects in the top-level "benchmarks" list of a JSON
// document fed to it in pieces, following only its strings and nesting.
type counter struct {
	depth    int
	inString bool
	escaped  bool
	// key holds the start of the string being read at depth 1 (a member
	// name of the report), last the previous one.
	capture   bool
	key, last []byte
	inList    bool // inside the benchmarks list
	count     int
}

func (c *counter) feed(b []byte) {
	for i := 0; i < len(b); i++ {
		if c.inString {
			if c.escaped {
				c.escaped = false
				continue
			}
			// Skip to the next quote or backslash.
			j := bytes.IndexAny(b[i:], `"\`)
			if j < 0 {
				if c.capture {
					c.key = append(c.key, b[i:]...)
				}
				return
			}
			if c.capture {
				c.key = append(c.key, b[i:i+j]...)
			}
			i += j
			if b[i] == '\\' {
				c.escaped = true
				continue
			}
			c.inString = false
			if c.capture {
				c.capture = false
				c.last = append(c.last[:0], c.key...)
			}
			continue
		}
		switch b[i] {
		case '"':
			c.inString = true
			if c.depth == 1 {
				c.capture, c.key = true, c.key[:0]
			}
		case '{', '[':
			c.depth++
			if c.depth == 2 && b[i] == '[' && string(c.last) == "benchmarks" {
				c.inList = true
			} else if c.depth == 3 && c.inList && b[i] == '{' {
				c.count++
			}
		case '}', ']':
			if c.depth == 2 {
				c.inList = false
			}
			c.depth--
		case ',':
			if c.depth == 1 {
				c.last = c.last[:0]
			}
		}
	}
}

// countYAML counts the benchmarks of the YAML form.
func countYAML(r io.Reader) (int, error) {
	var doc struct {
		Benchmarks []yaml.Node `yaml:"benchmarks"`
	}
	if err := yaml.NewDecoder(r).Decode(&doc); err != nil {
		return 0, err
	}
	return len(doc.Benchmarks), nil
}
