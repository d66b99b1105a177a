package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"

	"github.com/outlast-dev/outlast/internal/atomicfile"
)

// JSON returns v as EncodeJSON writes it.
func JSON(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := EncodeJSON(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// EncodeJSON writes v to w as deterministic JSON, through encoding/json:
// indented by two spaces, a struct's keys in the order of its fields and a
// map's sorted, so that the same value gives the same bytes; strings
// without HTML escapes; numbers as encoding/json writes them; a final
// newline. A non-finite float64 is an error naming where it is, and
// nothing is written; use jsonnum.Float for values that may be missing
// (null), which also rounds them.
func EncodeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		if p := nonFinitePath(reflect.ValueOf(v), "$", 0); p != "" {
			return fmt.Errorf("report: non-finite number at %s (use jsonnum.Float for null): %w", p, err)
		}
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// WriteJSON writes v to path as JSON formats it, atomically.
func WriteJSON(path string, v any) error {
	return atomicfile.Write(path, func(w io.Writer) error { return EncodeJSON(w, v) })
}

// nonFinitePath finds the first non-finite float reachable from v, in
// field, index and sorted-key order, for a useful error message.
func nonFinitePath(v reflect.Value, path string, depth int) string {
	if depth > 64 || !v.IsValid() {
		return ""
	}
	if v.CanInterface() {
		if _, ok := v.Interface().(json.Marshaler); ok && v.Kind() != reflect.Pointer {
			return "" // custom marshalers decide for themselves
		}
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return path
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return nonFinitePath(v.Elem(), path, depth+1)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if !t.Field(i).IsExported() {
				continue
			}
			if p := nonFinitePath(v.Field(i), path+"."+t.Field(i).Name, depth+1); p != "" {
				return p
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if p := nonFinitePath(v.Index(i), path+"["+strconv.Itoa(i)+"]", depth+1); p != "" {
				return p
			}
		}
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		for _, k := range keys {
			if p := nonFinitePath(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k), depth+1); p != "" {
				return p
			}
		}
	}
	return ""
}
