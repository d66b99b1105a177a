package outlastlog

import "github.com/outlast-dev/outlast/ingest/internal/jsondoc"

// This file converts raw JSON numbers, with the fast paths that do not
// allocate for the forms gateways write (jsondoc's, which the load
// generators' readers share).

// parseInt parses a raw JSON integer (no fraction or exponent). ok is false
// when raw is not such an integer or does not fit in an int64.
func parseInt(raw []byte) (int64, bool) { return jsondoc.ParseInt(raw) }

// parseFloat parses a raw JSON number, without allocating for plain
// decimals of at most 15 fraction digits.
func parseFloat(raw []byte) (float64, bool) { return jsondoc.ParseFloat(raw) }

// splitDecimal splits a plain non-negative decimal "123.456" into its
// integer part and its fraction, so that Unix timestamps become run seconds
// without losing the fraction's digits to the 1.7e9 magnitude.
func splitDecimal(raw []byte) (int64, float64, bool) { return jsondoc.SplitDecimal(raw) }
