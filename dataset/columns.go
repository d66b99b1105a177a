package dataset

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// A table is read column by column: each column chunk's pages are decoded
// into typed slices and stored straight into the rows' fields. parquet-go's
// generic reader goes row by row through its value type instead, and
// allocates for every non-null value of a nullable column; here a page's
// values of a nullable column share one allocation, and a page's strings
// one string they are cut from (dictionary-encoded strings are made once
// per dictionary). The fields are found once per row type, by their parquet
// tags, and set through their offsets in the row.

// fieldKind is the Go type of a row's field, as the reader stores it.
type fieldKind int

const (
	kindString fieldKind = iota
	kindFloat64
	kindInt64
	kindInt32
	kindBool
	kindTime // timestamp(microsecond), stored as int64
)

// field is one column's place in a row.
type field struct {
	name     string
	offset   uintptr
	kind     fieldKind
	optional bool // a pointer field: a nullable column
}

// rowPlan is where each column of a row type goes.
type rowPlan struct {
	size   uintptr
	fields map[string]field
}

var plans sync.Map // reflect.Type → *rowPlan

// planOf returns the plan of row type T: every field with a parquet tag
// other than "-".
func planOf[T any]() (*rowPlan, error) {
	rt := reflect.TypeFor[T]()
	if p, ok := plans.Load(rt); ok {
		return p.(*rowPlan), nil
	}
	p := &rowPlan{size: rt.Size(), fields: map[string]field{}}
	for i := range rt.NumField() {
		sf := rt.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("parquet"), ",")
		if name == "-" || name == "" {
			continue
		}
		f := field{name: name, offset: sf.Offset}
		t := sf.Type
		if t.Kind() == reflect.Pointer {
			f.optional, t = true, t.Elem()
		}
		switch {
		case t == reflect.TypeFor[time.Time]() && !f.optional:
			f.kind = kindTime
		case t.Kind() == reflect.String:
			f.kind = kindString
		case t.Kind() == reflect.Float64:
			f.kind = kindFloat64
		case t.Kind() == reflect.Int64:
			f.kind = kindInt64
		case t.Kind() == reflect.Int32:
			f.kind = kindInt32
		case t.Kind() == reflect.Bool:
			f.kind = kindBool
		default:
			return nil, fmt.Errorf("dataset: %s.%s: type %s not read", rt.Name(), sf.Name, sf.Type)
		}
		p.fields[name] = f
	}
	plans.Store(rt, p)
	return p, nil
}

// parquetKind is the physical type a field's column must have.
func (k fieldKind) parquetKind() parquet.Kind {
	switch k {
	case kindString:
		return parquet.ByteArray
	case kindFloat64:
		return parquet.Double
	case kindInt64, kindTime:
		return parquet.Int64
	case kindInt32:
		return parquet.Int32
	}
	return parquet.Boolean
}

// readColumns reads every row of pf into a new slice, but the columns in
// skip, whose fields keep their zero values. A field of T without
// its column keeps its zero value (null, for a nullable column), as
// parquet-go's own reader does: a file written before the column was added
// to its table. A column of another type or nullability is an error;
// columns without a field are skipped.
func readColumns[T any](pf *parquet.File, skip map[string]bool) ([]T, error) {
	plan, err := planOf[T]()
	if err != nil {
		return nil, err
	}
	leaves := map[string]*parquet.Column{}
	for _, c := range pf.Root().Columns() {
		if c.Leaf() {
			leaves[c.Name()] = c
		}
	}
	type column struct {
		index int
		field field
	}
	var cols []column
	for _, f := range plan.fields {
		leaf, ok := leaves[f.name]
		if !ok || skip[f.name] {
			continue
		}
		k, def := leaf.Type().Kind(), leaf.MaxDefinitionLevel()
		if k != f.kind.parquetKind() || leaf.MaxRepetitionLevel() != 0 || def > 1 || (def == 1) != f.optional {
			return nil, fmt.Errorf("column %s is %v, optional %v; want %v, optional %v", f.name, k, def > 0, f.kind.parquetKind(), f.optional)
		}
		cols = append(cols, column{leaf.Index(), f})
	}
	rows := make([]T, pf.NumRows())
	if len(rows) == 0 {
		return rows, nil
	}
	base := unsafe.Pointer(&rows[0])
	var first int64 // the row group's first row
	for _, rg := range pf.RowGroups() {
		chunks := rg.ColumnChunks()
		for _, c := range cols {
			d := columnDecoder{base: base, size: plan.size, f: c.field, row: first, end: first + rg.NumRows()}
			if err := d.chunk(chunks[c.index]); err != nil {
				return nil, fmt.Errorf("column %s: %w", c.field.name, err)
			}
		}
		first += rg.NumRows()
	}
	if first != int64(len(rows)) {
		return nil, fmt.Errorf("row groups hold %d rows, the footer says %d", first, len(rows))
	}
	return rows, nil
}

// columnDecoder stores one column chunk's values into rows [row, end).
type columnDecoder struct {
	base     unsafe.Pointer // the first row
	size     uintptr        // of a row
	f        field
	row, end int64
	dict     []string // a string column's dictionary, made once per chunk
	dictOf   parquet.Dictionary
}

// at returns the address of the field in row i (i < end, checked by the
// callers).
func (d *columnDecoder) at(i int64) unsafe.Pointer {
	return unsafe.Add(d.base, uintptr(i)*d.size+d.f.offset)
}

func (d *columnDecoder) chunk(cc parquet.ColumnChunk) error {
	start := d.row
	pages := cc.Pages()
	defer pages.Close()
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		err = d.page(p)
		// Every value was copied out: the page's buffers can be reused.
		parquet.Release(p)
		if err != nil {
			return err
		}
	}
	if d.row != d.end {
		return fmt.Errorf("%d values in a row group of %d rows", d.row-start, d.end-start)
	}
	return nil
}

// page stores one page's values.
func (d *columnDecoder) page(p parquet.Page) error {
	n := p.NumRows()
	if p.NumValues() != n || d.row+n > d.end {
		return fmt.Errorf("page of %d values for %d rows, past the row group's %d", p.NumValues(), n, d.end)
	}
	// present lists, for a nullable column, whether each row has a value;
	// the page's values are those of the rows that have one.
	var present []byte
	if d.f.optional {
		present = p.DefinitionLevels()
		if int64(len(present)) != n {
			return fmt.Errorf("%d definition levels for %d values", len(present), n)
		}
	}
	values := int(n - p.NumNulls())
	if d.f.kind == kindBool {
		return d.bools(p, n, present, values)
	}
	if d.f.kind == kindString {
		if present == nil {
			// Straight into the rows.
			row := d.row
			d.row += n
			return d.strings(p, values, func(k int) *string { return (*string)(d.at(row + int64(k))) })
		}
		strs := make([]string, values)
		if err := d.strings(p, values, func(k int) *string { return &strs[k] }); err != nil {
			return err
		}
		store(d, n, present, strs)
		return nil
	}
	data := p.Data()
	var err error
	switch d.f.kind {
	case kindFloat64:
		err = storeChecked(d, n, present, data.Double(), values)
	case kindInt64:
		err = storeChecked(d, n, present, data.Int64(), values)
	case kindInt32:
		err = storeChecked(d, n, present, data.Int32(), values)
	case kindTime:
		micros := data.Int64()
		if len(micros) != values {
			return fmt.Errorf("%d values, want %d", len(micros), values)
		}
		for i, v := range micros {
			*(*time.Time)(d.at(d.row + int64(i))) = time.UnixMicro(v).UTC()
		}
		d.row += n
	}
	return err
}

// storeChecked stores a page's values after checking their count.
func storeChecked[V any](d *columnDecoder, n int64, present []byte, vals []V, want int) error {
	if len(vals) != want {
		return fmt.Errorf("%d values, want %d", len(vals), want)
	}
	// The page's buffers may be reused by the next page read: copy the
	// values that pointers will point to.
	if present != nil {
		vals = append([]V(nil), vals...)
	}
	store(d, n, present, vals)
	return nil
}

// store stores n rows' values: vals in order, or, with present, pointers
// to vals for the rows that have a value and nil for the others.
func store[V any](d *columnDecoder, n int64, present []byte, vals []V) {
	if present == nil {
		for i := range vals {
			*(*V)(d.at(d.row + int64(i))) = vals[i]
		}
		d.row += n
		return
	}
	k := 0
	for i, def := range present {
		p := (**V)(d.at(d.row + int64(i)))
		if def == 0 {
			*p = nil
			continue
		}
		*p = &vals[k]
		k++
	}
	d.row += n
}

// strings stores a string page's values at dst(0), dst(1), ...: cut from
// one string holding the page's bytes, or looked up in the chunk's
// dictionary.
func (d *columnDecoder) strings(p parquet.Page, values int, dst func(k int) *string) error {
	data := p.Data()
	if dict := p.Dictionary(); dict != nil {
		if dict != d.dictOf {
			dp := dict.Page().Data()
			b, offsets := dp.ByteArray()
			all := string(b)
			d.dict, d.dictOf = make([]string, dict.Len()), dict
			if len(offsets) != len(d.dict)+1 {
				return fmt.Errorf("dictionary of %d values with %d offsets", len(d.dict), len(offsets))
			}
			for i := range d.dict {
				d.dict[i] = all[offsets[i]:offsets[i+1]]
			}
		}
		idx := data.Int32()
		if len(idx) != values {
			return fmt.Errorf("%d values, want %d", len(idx), values)
		}
		for k, j := range idx {
			if j < 0 || int(j) >= len(d.dict) {
				return fmt.Errorf("dictionary index %d of %d", j, len(d.dict))
			}
			*dst(k) = d.dict[j]
		}
		return nil
	}
	b, offsets := data.ByteArray()
	if len(offsets) != values+1 {
		return fmt.Errorf("%d values, want %d", len(offsets)-1, values)
	}
	all := string(b)
	for k := range values {
		*dst(k) = all[offsets[k]:offsets[k+1]]
	}
	return nil
}

// bools stores a boolean page's values, packed eight to a byte, the first
// in the lowest bit (Parquet's plain encoding, which parquet-go keeps).
func (d *columnDecoder) bools(p parquet.Page, n int64, present []byte, values int) error {
	data := p.Data()
	bits := data.Boolean()
	if len(bits)*8 < values {
		return fmt.Errorf("%d bytes of booleans for %d values", len(bits), values)
	}
	vals := make([]bool, values)
	for k := range vals {
		vals[k] = bits[k>>3]>>(k&7)&1 != 0
	}
	store(d, n, present, vals)
	return nil
}
