package jsondoc

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestPositions checks the line and column of every value of a
// pretty-printed document, read through a reader that hands over a few
// bytes at a time, against a count of the text itself.
func TestPositions(t *testing.T) {
	text := "[\n  {\"a\": 1,\n   \"b\": [true, null]},\n\n  \"x\",   17\n]\n"
	d := New(&trickle{r: strings.NewReader(text), n: 3}, "f.json")
	if _, err := d.ReadToken(); err != nil {
		t.Fatal(err)
	}
	for d.PeekKind() != ']' {
		_, start, err := d.ReadValue()
		if err != nil {
			t.Fatal(err)
		}
		pos, col := d.Pos(start)
		wantLine := strings.Count(text[:start], "\n") + 1
		wantCol := int(start) - strings.LastIndex(text[:start], "\n")
		if pos.Line != wantLine || col != wantCol || pos.File != "f.json" {
			t.Errorf("offset %d: %s:%d, want line %d column %d", start, pos, col, wantLine, wantCol)
		}
		d.Release(start)
	}
}

// trickle hands over at most n bytes per read.
type trickle struct {
	r io.Reader
	n int
}

func (t *trickle) Read(p []byte) (int, error) { return t.r.Read(p[:min(len(p), t.n)]) }

func TestErrorsArePositioned(t *testing.T) {
	for text, want := range map[string]string{
		"{\n  \"a\": 1,\n  \"a\": 2}": "f.json:3:3: invalid JSON: duplicate object member name (at JSON pointer /a)",
		"[1, 2,":                      "f.json:1:7: the file ends inside a JSON value: it was cut short",
		"[1, NaN]":                    "f.json:1:5: invalid JSON: invalid character 'N' at start of value (at JSON pointer /1)",
	} {
		d := New(strings.NewReader(text), "f.json")
		var err error
		for err == nil {
			_, err = d.ReadToken()
		}
		if err.Error() != want {
			t.Errorf("%q: %v\nwant %s", text, err, want)
		}
	}
}

func TestMembersAndValues(t *testing.T) {
	raw := []byte(`{"s": "a\"b", "n": -1.5e3, "i": 12, "f": 12.0, "big": 1793102401000000000, "o": {"x": [1, {"y": "]"}]}, "t": 1793102401.9955037, "b": true, "esc\u0061pe": null}`)
	o := Members(raw, 10, nil)
	var keys []string
	for _, m := range o {
		keys = append(keys, string(m.Key))
		if got := string(raw[m.Off-10 : m.Off-10+len(m.Val)]); got != string(m.Val) {
			t.Errorf("%s: offset %d points at %q", m.Key, m.Off, got)
		}
	}
	if got := strings.Join(keys, ","); got != "s,n,i,f,big,o,t,b,escape" {
		t.Errorf("keys %s", got)
	}
	get := func(k string) Member { m, _ := o.Get(k); return m }
	if s, err := get("s").String("s"); err != nil || s != `a"b` {
		t.Errorf("String %q %v", s, err)
	}
	if n, err := get("n").Number("n"); err != nil || n != -1500 {
		t.Errorf("Number %v %v", n, err)
	}
	for _, k := range []string{"i", "f"} {
		if n, err := get(k).Count(k); err != nil || n != 12 {
			t.Errorf("Count(%s) %v %v", k, n, err)
		}
	}
	if n, err := get("big").Count("big"); err != nil || n != 1793102401000000000 {
		t.Errorf("Count(big) %v %v", n, err)
	}
	if _, err := get("n").Count("n"); err == nil || err.Msg != "n: want a non-negative integer, got -1.5e3" {
		t.Errorf("Count(n) %v", err)
	}
	tm, err := get("t").Seconds("t")
	if err != nil || tm.Sec != 1793102401 || fmt.Sprintf("%.7f", tm.Frac) != "0.9955037" {
		t.Errorf("Seconds %+v %v", tm, err)
	}
	if b, err := get("b").Bool("b"); err != nil || !b {
		t.Errorf("Bool %v %v", b, err)
	}
	if !o.Present("o") || o.Present("escape") || o.Present("nope") {
		t.Error("Present")
	}
	if _, err := get("o").String("o"); err == nil || err.Msg != "o: want a string, got an object" {
		t.Errorf("String of an object: %v", err)
	}
	var n int
	Elements([]byte(`[1, [2, 3], "x"]`), 0, func(v []byte, off int) error { n++; return nil })
	if n != 3 {
		t.Errorf("%d elements", n)
	}
}

// FuzzMembers checks the walk over a valid object against encoding/json:
// the same member names in the same order, each value the same JSON.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a" : {"b":[1,2,{"c":"}"}]}, "d":"\\\""}`, `{"x":null,"y":true,"z":-0.5e-3}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !jsontext.Value(raw).IsValid() || jsontext.Value(raw).Kind() != '{' {
			return
		}
		dec := json.NewDecoder(strings.NewReader(string(raw)))
		dec.Token()
		ms := Members(raw, 0, nil)
		for i := 0; dec.More(); i++ {
			tok, _ := dec.Token()
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			if i >= len(ms) {
				t.Fatalf("member %d (%v) missed", i, tok)
			}
			var name string
			if err := json.Unmarshal(append(append([]byte{'"'}, ms[i].Key...), '"'), &name); err != nil {
				name = string(ms[i].Key)
			}
			if name != tok.(string) {
				t.Fatalf("member %d named %q, want %q", i, ms[i].Key, tok)
			}
			var a, b any
			json.Unmarshal(v, &a)
			json.Unmarshal(ms[i].Val, &b)
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Fatalf("member %q: %s, want %s", tok, ms[i].Val, v)
			}
		}
	})
}
