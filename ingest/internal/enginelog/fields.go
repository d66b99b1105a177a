package enginelog

// FieldError is a bad "key: value" field of a log line, at byte offset Off
// of the line's fields part, so the reader can turn it into a column.
type FieldError struct {
	Off int
	Err error
}

// Error returns the reason.
func (e *FieldError) Error() string { return e.Err.Error() }

// Unwrap returns the reason.
func (e *FieldError) Unwrap() error { return e.Err }
