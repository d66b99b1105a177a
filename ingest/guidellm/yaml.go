package guidellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/outlast-dev/outlast/ingest/internal/jsondoc"
	"github.com/outlast-dev/outlast/internal/yamlpos"
	"github.com/outlast-dev/outlast/textpos"
)

// fromYAML converts the YAML form of a report (GuideLLM's yaml.dump of the
// same dictionary as the JSON) into JSON and returns a Doc reading it,
// whose positions are the YAML's. yaml.dump sorts keys, which puts each
// benchmark's requests before the scheduler metrics the reader needs
// first, and the benchmarks before the args: the conversion writes
// "benchmarks" and "requests" after their siblings.
func fromYAML(data []byte, name string) (*jsondoc.Doc, error) {
	f := yamlpos.File{Name: name}
	root, err := f.Decode(data, "GuideLLM report")
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, textpos.Errorf(textpos.Pos{File: name, Line: 1}, nil, "the file is empty")
	}
	c := &yamlToJSON{budget: 8*len(data) + 1<<20, f: f}
	if err := c.value(root, 0); err != nil {
		return nil, err
	}
	return jsondoc.NewMapped(c.out.Bytes(), name, c.posOf), nil
}

// yamlToJSON writes YAML nodes as JSON, noting the YAML position of each
// value it writes.
type yamlToJSON struct {
	f      yamlpos.File
	out    bytes.Buffer
	offs   []int64 // the JSON offset of each value written...
	pos    [][2]int32
	budget int // bytes left: aliases must not expand without bound
}

// posOf returns the YAML line and column of the value at or before the
// JSON offset off.
func (c *yamlToJSON) posOf(off int64) (int, int) {
	i, found := slices.BinarySearch(c.offs, off)
	if !found {
		i--
	}
	if i < 0 {
		return 1, 1
	}
	return int(c.pos[i][0]), int(c.pos[i][1])
}

func (c *yamlToJSON) mark(n *yaml.Node) {
	c.offs = append(c.offs, int64(c.out.Len()))
	c.pos = append(c.pos, [2]int32{int32(n.Line), int32(n.Column)})
}

// last lists the keys written after their siblings.
var last = []string{"benchmarks", "requests"}

func (c *yamlToJSON) value(n *yaml.Node, depth int) error {
	n = yamlpos.Resolve(n)
	if depth > 64 {
		return c.f.Errorf(n, "nested too deeply")
	}
	if c.out.Len() > c.budget {
		return c.f.Errorf(n, "the YAML expands to more than %d bytes of JSON (aliases?)", c.budget)
	}
	c.mark(n)
	switch n.Kind {
	case yaml.MappingNode:
		c.out.WriteByte('{')
		order := make([]int, 0, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			order = append(order, i)
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return boolCmp(slices.Contains(last, n.Content[a].Value), slices.Contains(last, n.Content[b].Value))
		})
		for k, i := range order {
			if k > 0 {
				c.out.WriteByte(',')
			}
			key := yamlpos.Resolve(n.Content[i])
			if key.Kind != yaml.ScalarNode {
				return c.f.Errorf(key, "a mapping key that is not a plain value")
			}
			c.mark(key)
			writeString(&c.out, key.Value)
			c.out.WriteByte(':')
			if err := c.value(n.Content[i+1], depth+1); err != nil {
				return err
			}
		}
		c.out.WriteByte('}')
	case yaml.SequenceNode:
		c.out.WriteByte('[')
		for i, e := range n.Content {
			if i > 0 {
				c.out.WriteByte(',')
			}
			if err := c.value(e, depth+1); err != nil {
				return err
			}
		}
		c.out.WriteByte(']')
	case yaml.ScalarNode:
		c.scalar(n)
	default:
		return c.f.Errorf(n, "unsupported YAML value %s", yamlpos.Describe(n))
	}
	return nil
}

func (c *yamlToJSON) scalar(n *yaml.Node) {
	switch n.ShortTag() {
	case "!!null":
		c.out.WriteString("null")
		return
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			c.out.WriteString(strconv.FormatBool(b))
			return
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			c.out.WriteString(strconv.FormatInt(i, 10))
			return
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			// The shortest text that gives the same float64: the digits
			// Python wrote.
			c.out.WriteString(strconv.FormatFloat(f, 'f', -1, 64))
			return
		}
		// .nan and .inf are not JSON numbers: a string makes any reader of
		// the value say what it found.
		writeString(&c.out, fmt.Sprintf("%s (not a finite number)", n.Value))
		return
	}
	writeString(&c.out, n.Value)
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
