package textpos

import (
	"errors"
	"fmt"
	"testing"
)

func TestParseErrorFormat(t *testing.T) {
	e := Errorf(Pos{File: "gateway.jsonl", Line: 17}, []byte("raw"), "cached_tokens %d exceeds prompt_tokens %d", 9000, 6144)
	if got, want := e.Error(), "gateway.jsonl:17: cached_tokens 9000 exceeds prompt_tokens 6144"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e.Column = 5
	if got, want := e.Error(), "gateway.jsonl:17:5: cached_tokens 9000 exceeds prompt_tokens 6144"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var pe *ParseError
	if !errors.As(fmt.Errorf("wrapped: %w", e), &pe) || string(pe.Raw) != "raw" {
		t.Error("ParseError does not survive wrapping with its raw line")
	}
}

// TestReasonAt checks the column a Reason gives its ParseError (none
// without an offset), that the line is copied, and that the kind is
// matched through the ParseError and nothing else is.
func TestReasonAt(t *testing.T) {
	raw := []byte("abc")
	pos := Pos{File: "f", Line: 2}
	e := (&Reason{Off: -1, Msg: "missing x"}).At(pos, raw)
	raw[0] = 'X'
	if e.Column != 0 || string(e.Raw) != "abc" || e.Error() != "f:2: missing x" {
		t.Errorf("%+v: %v", e, e)
	}
	other := errors.New("other")
	e = Reasonf(2, other, "bad %s", "c").At(pos, raw)
	if e.Column != 3 || e.Error() != "f:2:3: bad c" || !errors.Is(e, other) || errors.Is(e, ErrSyntax) {
		t.Errorf("%+v: %v", e, e)
	}
	var r *Reason
	if !errors.As(fmt.Errorf("wrapped: %w", e), &r) || r.Off != 2 {
		t.Errorf("errors.As found %v", r)
	}
}
