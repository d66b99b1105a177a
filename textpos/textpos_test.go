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
