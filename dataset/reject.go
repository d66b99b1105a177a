package dataset

import (
	"encoding/base64"
	"encoding/json"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/textpos"
)

// Reject is one input line rejected in lenient mode, kept verbatim with the
// reason it was rejected.
type Reject struct {
	Pos    textpos.Pos
	Reason string
	Line   []byte
}

// JSON encodes r as one JSONL object {"pos","reason","line"}. A line that
// is not valid UTF-8 goes into "line_base64" instead, so its bytes survive
// exactly.
func (r Reject) JSON() []byte {
	rec := struct {
		Pos        string `json:"pos"`
		Reason     string `json:"reason"`
		Line       string `json:"line,omitempty"`
		LineBase64 string `json:"line_base64,omitempty"`
	}{Pos: r.Pos.String(), Reason: r.Reason}
	if utf8.Valid(r.Line) {
		rec.Line = string(r.Line)
	} else {
		rec.LineBase64 = base64.StdEncoding.EncodeToString(r.Line)
	}
	b, _ := json.Marshal(rec)
	return b
}
