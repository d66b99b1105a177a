package textpos_test

import (
	"errors"
	"fmt"

	"github.com/outlast-dev/outlast/textpos"
)

// A reader reports a bad line with its position; a caller recovers the
// position and the verbatim line with errors.As, as with encoding/csv.
func ExampleParseError() {
	line := []byte(`{"ev":"turn","session":"s1","turn":0,"ts":12.5,"prompt_tokens":6144,"cached_tokens":9000}`)
	var err error = textpos.At(textpos.Pos{File: "gateway.jsonl", Line: 17}, 68, line,
		"cached_tokens 9000 > prompt_tokens 6144")

	fmt.Println(err)
	var pe *textpos.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Pos.Line, pe.Column, len(pe.Raw) == len(line))
	}
	// Output:
	// gateway.jsonl:17:68: cached_tokens 9000 > prompt_tokens 6144
	// 17 68 true
}

// A reader finds a fault while it parses a line's bytes, as a Reason at a
// byte offset of a kind; placed on the line, it is a ParseError whose kind
// errors.Is matches, as csv.ErrQuote is matched through csv's ParseError.
func ExampleReason() {
	line := []byte(`{"ev":"turn","session":"s1"`)
	r := textpos.Reasonf(len(line), textpos.ErrSyntax, "not JSON: the object is not closed")
	var err error = r.At(textpos.Pos{File: "gateway.jsonl", Line: 9}, line)

	fmt.Println(err)
	fmt.Println(errors.Is(err, textpos.ErrSyntax))
	// Output:
	// gateway.jsonl:9:28: not JSON: the object is not closed
	// true
}
