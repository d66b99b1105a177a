package decimal

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestSimple checks the shapes Simple takes and those it leaves to
// strconv.ParseFloat.
func TestSimple(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true},
		{"414.42", 414.42, true},
		{"-3", -3, true},
		{"+1", 1, true},
		{"1.", 1, true},
		{".5", 0.5, true},
		{"0.15", 0.15, true},
		{"123456789012345", 123456789012345, true},
		{"9007199254740991", 9007199254740991, true},   // 2^53 - 1
		{"1793102448.291123", 1793102448.291123, true}, // 16 digits below 2^53
		{"0.0000000000000000000001", 1e-22, true},      // 22 after the point
		{"0.00000000000000000000001", 0, false},        // 23
		{"9007199254740992", 0, false},                 // 2^53
		{"12345678901234567", 0, false},                // 17 digits
		{"0000000000000000000000000001.5", 1.5, true},  // leading zeros count for nothing
		{"1e5", 0, false},
		{"1.2.3", 0, false},
		{".", 0, false},
		{"-", 0, false},
		{"", 0, false},
		{"NaN", 0, false},
		{" 1", 0, false},
	} {
		got, ok := Simple([]byte(tc.in))
		if ok != tc.ok || got != tc.want {
			t.Errorf("Simple(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if v, _ := Simple([]byte("-0.0")); !math.Signbit(v) {
		t.Errorf("Simple(\"-0.0\") = %v, want -0", v)
	}
}

// TestParse checks the forms Parse refuses, though strconv.ParseFloat
// takes some of them.
func TestParse(t *testing.T) {
	for _, in := range []string{"", "-", "+", ".", "e5", "1e", "1e+", "0x1p3", "1_000", "inf", "+Inf", "NaN", "1e400", "-1e400", " 1", "1 ", "1.2.3", "--1", "1e5.0"} {
		if v, ok := Parse([]byte(in)); ok {
			t.Errorf("Parse(%q) = %v, want refused", in, v)
		}
	}
	for in, want := range map[string]float64{"1e5": 1e5, "-2.5E-3": -2.5e-3, "1.e2": 100, ".5e1": 5, "+7": 7, "1e-400": 0, "17976931348623157e292": math.MaxFloat64} {
		if v, ok := Parse([]byte(in)); !ok || v != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, v, ok, want)
		}
	}
}

// same reports whether Parse agrees with strconv.ParseFloat on s: where
// one takes a finite value, the other takes the same bits; where
// ParseFloat takes a plain decimal (no hexadecimal, underscores,
// infinities or NaN), Parse takes it too.
func same(s string) error {
	got, ok := Parse([]byte(s))
	want, err := strconv.ParseFloat(s, 64)
	switch {
	case ok && err != nil:
		return fmt.Errorf("%q: Parse took %v, ParseFloat refused: %v", s, got, err)
	case ok && math.Float64bits(got) != math.Float64bits(want):
		return fmt.Errorf("%q: Parse %v (%#x), ParseFloat %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
	case !ok && err == nil && !math.IsInf(want, 0) && !math.IsNaN(want) && !strings.ContainsAny(s, "xX_iInN"):
		return fmt.Errorf("%q: Parse refused, ParseFloat took %v", s, want)
	}
	return nil
}

// TestParseSameAsStrconv compares Parse with strconv.ParseFloat on
// 200,000 numbers of each shape the inputs hold: times and latencies with
// 3 to 9 decimals, Unix times, Python's shortest repr of random floats
// (up to 17 significant digits), exponents, negatives. The sum of the
// whole part and the fraction, each rounded (the parser of JSON values
// before this one), is off in the last bit on some of them.
func TestParseSameAsStrconv(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 3))
	shapes := []func() string{
		func() string { return fmt.Sprintf("%d.%06d", rng.IntN(100000), rng.IntN(1000000)) },
		func() string { return fmt.Sprintf("%d.%03d", rng.IntN(1<<30), rng.IntN(1000)) },
		func() string {
			return fmt.Sprintf("%d.%09d", 1_700_000_000+rng.IntN(100_000_000), rng.IntN(1_000_000_000))
		},
		func() string {
			return strconv.FormatFloat(rng.Float64()*math.Pow(10, float64(rng.IntN(12))), 'f', -1, 64)
		},
		func() string { return strconv.FormatFloat(rng.NormFloat64()*1e6, 'g', -1, 64) },
		func() string { return strconv.FormatFloat(math.Float64frombits(rng.Uint64()), 'e', rng.IntN(20), 64) },
	}
	bad := 0
	for i := range 200_000 {
		if err := same(shapes[i%len(shapes)]()); err != nil {
			if bad++; bad <= 10 {
				t.Error(err)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 200000 differ", bad)
	}
}

// FuzzParse checks Parse against strconv.ParseFloat (same).
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "0.0", "-0.0", "+1", "1.", ".5", "123456789012345", "9007199254740993", "99999999.9999999",
		"932.42524485156473", "12739961713409.785", "120825375.5369505197", "1793102448.291", "734514.4219684772",
		"1e5", "2.5E-3", "1e-400", "1e400", "0x1p3", "1_0", ".", "-", "", "NaN", "+Inf", "1e", "1e+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if err := same(s); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzSimple checks Simple against strconv.ParseFloat, bit for bit: where
// it takes a value, ParseFloat takes it too and agrees.
func FuzzSimple(f *testing.F) {
	for _, s := range []string{"0", "0.0", "-0.0", "+1", "1.", ".5", "123456789012345", "1234567890123456",
		"0.000000000000001", "3.14159", "9007199254740993", "99999999.9999999",
		// 17 or more digits, where the quotient would round twice:
		"932.42524485156473", "12739961713409.785", "120825375.5369505197", "1e5", "0x1p3", "1_0", ".", "-", "", "NaN", "+Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := Simple([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%q: Simple took %v, ParseFloat refused: %v", s, got, err)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: Simple %v (%#x), ParseFloat %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	})
}

// FuzzPercent checks Percent against strconv.ParseFloat of the same digits
// with the exponent "e-2", bit for bit: the fraction correctly rounded, not
// the percentage divided by 100.
func FuzzPercent(f *testing.F) {
	for _, s := range []string{"91.6", "1.4", "16.7", "2.2", "5.8", "78.1", "0", "-0.0", "100", "100.0", "0.01",
		"999999999999.999", "123456789012345", "1234567890123456", "1e5", ".", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := Percent([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s+"e-2", 64)
		if err != nil {
			t.Fatalf("%q: Percent took %v, ParseFloat refused: %v", s, got, err)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: Percent %v (%#x), ParseFloat %v (%#x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	})
}

// FuzzSplit checks that Split's parts add up to strconv.ParseFloat's value
// within the one rounding of their sum, and that its fraction is the
// correctly rounded value of the digits after the point.
func FuzzSplit(f *testing.F) {
	for _, s := range []string{"0", "1793102448.291", "12.5", "1.", ".5", "-1.5", "1e5", "123456789012345678.1", "1.1234567890123456"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		whole, frac, ok := Split([]byte(s))
		if !ok {
			return
		}
		w, fs, _ := strings.Cut(s, ".")
		if fs == "" {
			fs = "0"
		}
		wantFrac, err := strconv.ParseFloat("0."+fs, 64)
		if err != nil || frac != wantFrac || strconv.FormatInt(whole, 10) != strings.TrimLeft(w, "0") && whole != 0 {
			t.Fatalf("%q: %d + %v, want %s + %v (%v)", s, whole, frac, w, wantFrac, err)
		}
	})
}

// TestInt checks the integers Int takes.
func TestInt(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "-0": 0, "42": 42, "-9223372036854775808": math.MinInt64, "9223372036854775807": math.MaxInt64} {
		if v, ok := Int([]byte(in)); !ok || v != want {
			t.Errorf("Int(%q) = %v, %v; want %v", in, v, ok, want)
		}
	}
	for _, in := range []string{"", "-", "9223372036854775808", "-9223372036854775809", "1.0", "1e3", "+1", "12345678901234567890"} {
		if v, ok := Int([]byte(in)); ok {
			t.Errorf("Int(%q) = %v, want refused", in, v)
		}
	}
}

// BenchmarkParse measures Parse on the values of a gateway log and a
// metrics scrape, against strconv.ParseFloat on the same bytes.
func BenchmarkParse(b *testing.B) {
	values := [][]byte{[]byte("0.035"), []byte("414.42"), []byte("1793102448.291"), []byte("6144"), []byte("734514.4219684772"), []byte("2.5e-3")}
	b.Run("decimal", func(b *testing.B) {
		for b.Loop() {
			for _, v := range values {
				Parse(v)
			}
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for b.Loop() {
			for _, v := range values {
				strconv.ParseFloat(string(v), 64)
			}
		}
	})
}
