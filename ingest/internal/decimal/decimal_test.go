package decimal

import (
	"fmt"
	"math"
	"math/big"
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

// shifted returns s, a decimal with or without an exponent, with its
// exponent lowered by shift: "2543.3006" and 3 give "2543.3006e-3".
func shifted(s string, shift int) string {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return s + "?"
		}
		return s[:i] + "e" + strconv.Itoa(e-shift)
	}
	return s + "e" + strconv.Itoa(-shift)
}

// TestScaled checks a unit conversion against strconv.ParseFloat of the
// same digits with the exponent shifted: "2543.3006" ms is 2.5433006 s,
// not 2543.3006 / 1e3 = 2.5433006000000002 (two roundings).
func TestScaled(t *testing.T) {
	if v, ok := Scaled([]byte("2543.3006"), 3); !ok || v != 2.5433006 || strconv.FormatFloat(v, 'g', -1, 64) != "2.5433006" {
		t.Errorf("Scaled(2543.3006, 3) = %v, %v; want 2.5433006", v, ok)
	}
	if ms, _ := Parse([]byte("2543.3006")); ms/1e3 == 2.5433006 {
		t.Fatal("the example no longer shows the double rounding")
	}
	rng := rand.New(rand.NewPCG(28, 3))
	shapes := []func() string{
		func() string { return fmt.Sprintf("%d.%04d", rng.IntN(100000), rng.IntN(10000)) },
		func() string { return fmt.Sprintf("%d", rng.IntN(1<<40)) },
		func() string {
			return strconv.FormatFloat(rng.Float64()*math.Pow(10, float64(rng.IntN(6))), 'f', -1, 64)
		},
		func() string { return strconv.FormatFloat(rng.ExpFloat64()*1e3, 'g', -1, 64) },
		func() string { return fmt.Sprintf("%d.%d", rng.Uint64()>>rng.IntN(64), rng.Uint64()) }, // beyond 2^53 and 19 digits
		func() string { return strconv.FormatFloat(-rng.Float64(), 'e', rng.IntN(20), 64) },
	}
	bad := 0
	for i := range 100_000 {
		s, shift := shapes[i%len(shapes)](), []int{0, 3, 6, 9}[i/len(shapes)%4]
		got, ok := Scaled([]byte(s), shift)
		want, err := strconv.ParseFloat(shifted(s, shift), 64)
		if !ok || err != nil || math.Float64bits(got) != math.Float64bits(want) {
			if bad++; bad <= 10 {
				t.Errorf("Scaled(%q, %d) = %v, %v; ParseFloat(%q) = %v, %v", s, shift, got, ok, shifted(s, shift), want, err)
			}
		}
	}
	for _, s := range []string{"", ".", "1e", "0x10", "NaN", "1e400"} {
		if v, ok := Scaled([]byte(s), 3); ok {
			t.Errorf("Scaled(%q) = %v, want refused", s, v)
		}
	}
}

// exactSum is ns·10⁻⁹ + s·10^-shift rounded once, by math/big.
func exactSum(ns int64, s string, shift int) (float64, bool) {
	r, ok := new(big.Rat).SetString(shifted(s, shift))
	if !ok {
		return 0, false
	}
	r.Add(r, new(big.Rat).SetFrac(big.NewInt(ns), big.NewInt(1e9)))
	f, _ := r.Float64()
	return f, true
}

// TestSum checks times made of nanoseconds and a decimal in some unit
// (AIPerf's request start in ns plus its time to first token in ms, a
// Unix time less a run's t=0) against the exact sum rounded once.
func TestSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 4))
	shapes := []func() string{
		func() string { return fmt.Sprintf("%d.%04d", rng.IntN(100000), rng.IntN(10000)) },                // 2543.3006 ms
		func() string { return strconv.FormatFloat(rng.ExpFloat64()*300, 'f', -1, 64) },                   // 322.5128650665283 ms
		func() string { return fmt.Sprintf("%d.%06d", 1_700_000_000+rng.IntN(1e8), rng.IntN(1_000_000)) }, // Unix s
		func() string { return strconv.FormatFloat(1.7e9+rng.Float64()*1e8, 'f', -1, 64) },
		func() string { return fmt.Sprintf("%d", rng.IntN(1e12)) },
		func() string { return strconv.FormatFloat(rng.NormFloat64(), 'e', rng.IntN(20), 64) },
		func() string { return fmt.Sprintf("%d.%d", rng.Uint64()>>rng.IntN(64), rng.Uint64()) },
	}
	bad := 0
	for i := range 100_000 {
		s, shift := shapes[i%len(shapes)](), []int{0, 3, 6, 9}[i/len(shapes)%4]
		ns := rng.Int64N(1e13) - 5e12
		if i%3 == 0 {
			ns = -1_700_000_000*1e9 - rng.Int64N(1e17) // a run's t=0 taken away
		}
		got, ok := Sum(ns, []byte(s), shift)
		want, wok := exactSum(ns, s, shift)
		if !ok || !wok || math.Float64bits(got) != math.Float64bits(want) {
			if bad++; bad <= 10 {
				t.Errorf("Sum(%d, %q, %d) = %v, %v; want %v", ns, s, shift, got, ok, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 100000 differ", bad)
	}
	if v, _ := Sum(79157603, []byte("2543.3006"), 3); strconv.FormatFloat(v, 'f', -1, 64) != "2.622458203" {
		t.Errorf("Sum(79157603 ns, 2543.3006 ms) = %v, want 2.622458203", v)
	}
}

// FuzzSum checks Sum against the exact sum rounded once.
func FuzzSum(f *testing.F) {
	for _, s := range []string{"0", "2543.3006", "322.5128650665283", "1793102448.291", "-1.5e-3", "1e30", "1e-30", "123456789012345678901234567890.5"} {
		f.Add(int64(1793102400_000_000_000), s, 3)
		f.Add(int64(-5), s, 0)
	}
	f.Fuzz(func(t *testing.T, ns int64, s string, shift int) {
		if shift < 0 || shift > 30 {
			return
		}
		got, ok := Sum(ns, []byte(s), shift)
		if !ok {
			if _, err := strconv.ParseFloat(s, 64); err == nil && isDecimal([]byte(s)) && !math.IsInf(mustParse(s), 0) {
				t.Fatalf("Sum(%d, %q, %d) refused a decimal", ns, s, shift)
			}
			return
		}
		want, ok := exactSum(ns, s, shift)
		if ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("Sum(%d, %q, %d) = %v, want %v", ns, s, shift, got, want)
		}
	})
}

func mustParse(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}
