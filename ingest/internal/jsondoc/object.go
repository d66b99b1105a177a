package jsondoc

import (
	"bytes"
	"encoding/json"
)

// Member is one member of a JSON object held in memory: its name, its
// value's bytes, and the offset of the value in the record the object came
// from (a line of a JSON-lines file, or a value read whole from a Doc),
// which errors about the value point at.
type Member struct {
	Key []byte
	Val []byte
	Off int
}

// Object is the members of a JSON object, in their order.
type Object []Member

// Get returns the member named key.
func (o Object) Get(key string) (Member, bool) {
	for _, m := range o {
		if string(m.Key) == key {
			return m, true
		}
	}
	return Member{}, false
}

// Present reports whether o has a member named key whose value is not null.
func (o Object) Present(key string) bool {
	m, ok := o.Get(key)
	return ok && !IsNull(m.Val)
}

// Members appends the members of the object raw to dst. raw must be valid
// JSON starting with '{' (the decoder that read it checked it), so the walk
// only finds boundaries and never fails; base is raw's offset in its record.
func Members(raw []byte, base int, dst Object) Object {
	i := skipSpace(raw, 1)
	if i >= len(raw) || raw[i] == '}' {
		return dst
	}
	for i < len(raw) {
		ke := skipString(raw, i)
		key := raw[i+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var s string
			if json.Unmarshal(raw[i:ke], &s) == nil {
				key = []byte(s)
			}
		}
		i = skipSpace(raw, ke)
		i = skipSpace(raw, i+1) // the colon
		ve := skipValue(raw, i)
		dst = append(dst, Member{Key: key, Val: raw[i:ve], Off: base + i})
		i = skipSpace(raw, ve)
		if i >= len(raw) || raw[i] == '}' {
			break
		}
		i = skipSpace(raw, i+1) // the comma
	}
	return dst
}

// Elements calls f with each element of the array raw (valid JSON starting
// with '['), its offset in the record (base is raw's), stopping at the
// first error f returns.
func Elements(raw []byte, base int, f func(val []byte, off int) error) error {
	i := skipSpace(raw, 1)
	if i >= len(raw) || raw[i] == ']' {
		return nil
	}
	for i < len(raw) {
		ve := skipValue(raw, i)
		if err := f(raw[i:ve], base+i); err != nil {
			return err
		}
		i = skipSpace(raw, ve)
		if i >= len(raw) || raw[i] == ']' {
			break
		}
		i = skipSpace(raw, i+1)
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the offset after the string that starts at b[i].
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		j++
		if n%2 == 0 {
			return j
		}
	}
}

// skipValue returns the offset after the value that starts at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); {
			switch b[j] {
			case '"':
				j = skipString(b, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return len(b)
	}
	j := i
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\n', '\r', '\t':
			return j
		}
		j++
	}
	return j
}
