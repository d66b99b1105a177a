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
