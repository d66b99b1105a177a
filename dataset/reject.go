package dataset

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/textpos"
)

// rejectJSON encodes a line rejected in lenient mode as one JSONL object
// {"pos","reason","line"}: its position (file:line, and :column where the
// error has one, as the strict error would print it), the reason, and the
// line verbatim (without its line ending). A line that is not valid UTF-8
// goes into "line_base64" instead, so its bytes survive exactly.
func rejectJSON(e *textpos.ParseError) []byte {
	pos := e.Pos.String()
	if e.Column > 0 {
		pos += ":" + strconv.Itoa(e.Column)
	}
	rec := struct {
		Pos        string `json:"pos"`
		Reason     string `json:"reason"`
		Line       string `json:"line,omitempty"`
		LineBase64 string `json:"line_base64,omitempty"`
	}{Pos: pos}
	if e.Err != nil {
		rec.Reason = e.Err.Error()
	}
	if utf8.Valid(e.Raw) {
		rec.Line = string(e.Raw)
	} else {
		rec.LineBase64 = base64.StdEncoding.EncodeToString(e.Raw)
	}
	b, _ := json.Marshal(rec)
	return b
}
