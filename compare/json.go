package compare

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the comparison as indented JSON: the Result with its
// tables, rows, cells and deltas (field names as in the struct tags;
// undefined numbers are null). Struct fields keep their declared order,
// so the bytes depend only on the result.
func (r *Result) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
