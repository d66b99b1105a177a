package enginelog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/outlast-dev/outlast/textpos"
)

// TestFields walks fields parts: pieces after a passed-over key belong to
// its value, elsewhere a piece without ": " is an error at its offset.
func TestFields(t *testing.T) {
	for _, tc := range []struct {
		body string
		skip string // the key the caller passes over
		want string
	}{
		{"a: 1, b: 2", "", "a=1@3 b=2@9"},
		{"a: 1, list: x, y, z, b: 2", "list", "a=1@3 list=x@12 b=2@24"},
		{"a: 1, x, b: 2", "", `a=1@3 error@6: field "x" is not "key: value"`},
		{"a: 1, ", "", `a=1@3 error@6: field "" is not "key: value"`},
		{"list: 1, ", "list", "list=1@6"},
		{"a: 1: 2", "", "a=1: 2@3"},
		{"", "", `error@0: field "" is not "key: value"`},
	} {
		var got []string
		fields := NewFields([]byte(tc.body))
		for fields.Next() {
			got = append(got, fmt.Sprintf("%s=%s@%d", fields.Key(), fields.Val(), fields.Off()))
			if string(fields.Key()) == tc.skip {
				fields.Skip()
			}
		}
		if err := fields.Err(); err != nil {
			got = append(got, fmt.Sprintf("error@%d: %v", err.(*textpos.Reason).Off, err))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%q: %s, want %s", tc.body, g, tc.want)
		}
	}
}

func TestValueErr(t *testing.T) {
	fields := NewFields([]byte("a: 1, Running: 1x reqs"))
	fields.Next()
	fields.Next()
	err := fields.ValueErr(1, fmt.Errorf("bad unit"))
	fe, ok := err.(*textpos.Reason)
	if !ok || fe.Off != 16 || err.Error() != "Running: bad unit" {
		t.Errorf("ValueErr = %#v (%v)", err, err)
	}
}
