package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
)

// This file lays out the compact JSON of json.Marshal as JSON promises:
// indented by two spaces, object keys sorted, strings escaped without the
// HTML escapes, everything else as it came. It is what decoding into
// generic values (numbers as json.Number) and encoding them again gives,
// byte for byte (TestSortedIndentSameAsGeneric, FuzzSortedIndent), done in
// one pass over the bytes, writing as it goes: for a 10,000-run report
// the generic values took the live heap from 69 MB to 151 MB.

// errBadJSON is returned for input json.Marshal does not write.
var errBadJSON = errors.New("report: malformed JSON from json.Marshal")

// writeSortedIndent writes the compact JSON value raw to w, laid out.
func writeSortedIndent(w io.Writer, raw []byte) error {
	s := &sortedIndent{raw: raw, w: w}
	if err := s.value(0, 0); err != nil {
		return err
	}
	if s.end != len(raw) {
		return errBadJSON
	}
	s.out = append(s.out, '\n')
	return s.flush(true)
}

// sortedIndent is the state of writeSortedIndent.
type sortedIndent struct {
	raw []byte
	end int          // where the value last read ends in raw
	out []byte       // pending output, written to w as it fills
	w   io.Writer    // where the output goes
	err error        // w's first error
	str bytes.Buffer // scratch for re-escaped strings
}

// flushAt is the size of output written at once.
const flushAt = 64 << 10

// flush writes the pending output once there is enough of it, or all of
// it if last.
func (s *sortedIndent) flush(last bool) error {
	if s.err == nil && (last || len(s.out) >= flushAt) {
		_, s.err = s.w.Write(s.out)
		s.out = s.out[:0]
	}
	return s.err
}

func (s *sortedIndent) newline(depth int) {
	s.out = append(s.out, '\n')
	for range depth {
		s.out = append(s.out, ' ', ' ')
	}
}

// value lays out the value that starts at raw[i], at the given depth, and
// sets s.end to where it ends.
func (s *sortedIndent) value(i, depth int) error {
	if i >= len(s.raw) {
		return errBadJSON
	}
	switch c := s.raw[i]; {
	case c == '{':
		return s.object(i, depth)
	case c == '[':
		return s.array(i, depth)
	case c == '"':
		end, err := stringEnd(s.raw, i)
		if err != nil {
			return err
		}
		s.appendString(s.raw[i:end])
		s.end = end
	default: // a number, true, false or null: as it came
		end, err := skipValue(s.raw, i)
		if err != nil || end == i {
			return errBadJSON
		}
		s.out = append(s.out, s.raw[i:end]...)
		s.end = end
	}
	return nil
}

// member is one member of an object: its key decoded, and where its
// quoted key and value are in raw.
type member struct {
	key        string
	keyAt      [2]int
	valueStart int
}

func (s *sortedIndent) object(i, depth int) error {
	i++ // '{'
	var members []member
	for i < len(s.raw) && s.raw[i] != '}' {
		if len(members) > 0 {
			if s.raw[i] != ',' {
				return errBadJSON
			}
			i++
		}
		kEnd, err := stringEnd(s.raw, i)
		if err != nil || kEnd >= len(s.raw) || s.raw[kEnd] != ':' {
			return errBadJSON
		}
		var key string
		if err := json.Unmarshal(s.raw[i:kEnd], &key); err != nil {
			return errBadJSON
		}
		vEnd, err := skipValue(s.raw, kEnd+1)
		if err != nil {
			return err
		}
		members = append(members, member{key, [2]int{i, kEnd}, kEnd + 1})
		i = vEnd
	}
	if i >= len(s.raw) {
		return errBadJSON
	}
	end := i + 1
	if len(members) == 0 {
		s.out = append(s.out, '{', '}')
		s.end = end
		return nil
	}
	// As encoding/json sorts a map's keys; equal keys keep their order.
	slices.SortStableFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	s.out = append(s.out, '{')
	for k, m := range members {
		if k > 0 {
			s.out = append(s.out, ',')
		}
		s.newline(depth + 1)
		s.appendString(s.raw[m.keyAt[0]:m.keyAt[1]])
		s.out = append(s.out, ':', ' ')
		if err := s.value(m.valueStart, depth+1); err != nil {
			return err
		}
		if err := s.flush(false); err != nil {
			return err
		}
	}
	s.newline(depth)
	s.out = append(s.out, '}')
	s.end = end
	return nil
}

func (s *sortedIndent) array(i, depth int) error {
	i++ // '['
	if i < len(s.raw) && s.raw[i] == ']' {
		s.out = append(s.out, '[', ']')
		s.end = i + 1
		return nil
	}
	s.out = append(s.out, '[')
	for n := 0; ; n++ {
		if n > 0 {
			s.out = append(s.out, ',')
		}
		s.newline(depth + 1)
		if err := s.value(i, depth+1); err != nil {
			return err
		}
		if err := s.flush(false); err != nil {
			return err
		}
		i = s.end
		if i >= len(s.raw) {
			return errBadJSON
		}
		if s.raw[i] == ']' {
			break
		}
		if s.raw[i] != ',' {
			return errBadJSON
		}
		i++
	}
	s.newline(depth)
	s.out = append(s.out, ']')
	s.end = i + 1
	return nil
}

// appendString appends the quoted string q as encoding/json writes it
// without HTML escapes. json.Marshal's strings are valid UTF-8 with every
// character that needs it escaped, so one without a backslash is the same
// either way; one with is decoded and encoded again.
func (s *sortedIndent) appendString(q []byte) {
	if bytes.IndexByte(q, '\\') < 0 {
		s.out = append(s.out, q...)
		return
	}
	var v string
	if err := json.Unmarshal(q, &v); err != nil {
		s.out = append(s.out, q...) // stringEnd accepted it; cannot happen
		return
	}
	s.str.Reset()
	enc := json.NewEncoder(&s.str)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // a string always encodes
	s.out = append(s.out, bytes.TrimSuffix(s.str.Bytes(), []byte{'\n'})...)
}

// stringEnd returns the end of the quoted string that starts at b[i].
func stringEnd(b []byte, i int) (int, error) {
	if i >= len(b) || b[i] != '"' {
		return 0, errBadJSON
	}
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1, nil
		}
	}
	return 0, errBadJSON
}

// skipValue returns the end of the compact value that starts at b[i].
func skipValue(b []byte, i int) (int, error) {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			end, err := stringEnd(b, i)
			if err != nil {
				return 0, err
			}
			i = end
			if depth == 0 {
				return i, nil
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i, nil // the end of a number or literal
			}
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		case ',', ':':
			if depth == 0 {
				return i, nil
			}
		}
		i++
	}
	if depth != 0 {
		return 0, errBadJSON
	}
	return i, nil
}
