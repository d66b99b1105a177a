package samplefield

import (
	"reflect"
	"testing"

	"github.com/outlast-dev/outlast/schema"
)

// TestOf checks that the fields are distinct and that together they are
// every optional field of a sample.
func TestOf(t *testing.T) {
	var s schema.EngineSample
	seen := map[any]bool{}
	for f := NoFloat + 1; f < NumFloats; f++ {
		p := f.Of(&s)
		if p == nil || seen[p] {
			t.Errorf("Float %d: field %p nil or taken", f, p)
		}
		seen[p] = true
	}
	for c := NoCount + 1; c < NumCounts; c++ {
		p := c.Of(&s)
		if p == nil || seen[p] {
			t.Errorf("Count %d: field %p nil or taken", c, p)
		}
		seen[p] = true
	}
	if NoFloat.Of(&s) != nil || NoCount.Of(&s) != nil {
		t.Error("the zero fields are not nil")
	}
	v := reflect.ValueOf(&s).Elem()
	optional := 0
	for i := range v.NumField() {
		if v.Field(i).Kind() == reflect.Pointer {
			optional++
			if !seen[v.Field(i).Addr().Interface()] {
				t.Errorf("%s has no name here", v.Type().Field(i).Name)
			}
		}
	}
	if optional != len(seen) {
		t.Errorf("%d optional fields, %d named", optional, len(seen))
	}
}
