package decimal

import (
	"math"
	"math/big"
	"math/bits"
	"strconv"
)

// Scaled returns the float64 nearest to b·10^−shift, b a decimal as Parse
// takes it and shift ≥ 0: a value in a unit of 10^−shift (ms: 3, µs: 6,
// ns: 9) converted exactly, as strconv.ParseFloat reads the same digits
// with the exponent lowered by shift. "2543.3006" ms is 2.5433006 s, where
// parsing and then dividing by 1e3 rounds twice (2.5433006000000002). ok
// is false where Parse's is.
func Scaled(b []byte, shift int) (float64, bool) { return Sum(0, b, shift) }

// Sum returns the float64 nearest to ns·10⁻⁹ + b·10^−shift, rounded once:
// a time made of a count of nanoseconds and a decimal b (as Parse takes
// it) in a unit of 10^−shift seconds, shift ≥ 0 — AIPerf's request start
// in ns plus its time to first token in ms, a Unix time in seconds less a
// run's t=0 in ns. Adding the two values each rounded would round three
// times. ok is false where Parse's is.
func Sum(ns int64, b []byte, shift int) (float64, bool) {
	neg, mant, exp, ok := parts(b)
	if !ok || shift < 0 {
		return general(ns, b, shift)
	}
	// b·10^−shift = ±mant·10^e; the sum is n·10^−k, n an integer.
	e := exp - shift
	var n int128
	k := 9
	switch {
	case mant == 0:
		n = fromInt64(ns)
	case e >= -9:
		if e+9 >= len(pow10u) {
			return general(ns, b, shift)
		}
		m, ovf := mulU(mant, pow10u[e+9])
		if ovf {
			return general(ns, b, shift)
		}
		n = fromInt64(ns).add(m.neg(neg))
	default:
		k = -e
		if k-9 >= len(pow10u) {
			return general(ns, b, shift)
		}
		n = fromInt64(ns).mulSmall(pow10u[k-9]).add(int128{lo: mant}.neg(neg))
	}
	if n.fits53() && k < len(exactPow10) {
		return float64(n.int64()) / exactPow10[k], true
	}
	v, err := strconv.ParseFloat(n.String()+"e-"+strconv.Itoa(k), 64)
	return v, err == nil && !math.IsInf(v, 0)
}

// general is Sum by math/big, for the forms parts leaves: more than 19
// significant digits, an exponent beyond ±400.
func general(ns int64, b []byte, shift int) (float64, bool) {
	if !isDecimal(b) || shift < 0 {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(string(b))
	if !ok {
		r = new(big.Rat)
		// An exponent math/big will not expand (beyond a million): the
		// value is 0 or infinite at any float64 precision.
		v, err := strconv.ParseFloat(string(b), 64)
		if err != nil || v != 0 {
			return 0, false
		}
		r.SetInt64(0)
	}
	if shift > 0 {
		r.Quo(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil)))
	}
	r.Add(r, new(big.Rat).SetFrac(big.NewInt(ns), big.NewInt(1e9)))
	v, _ := r.Float64()
	return v, !math.IsInf(v, 0)
}

// parts splits b, [+-]digits[.digits][(e|E)[+-]digits], into ±mant·10^exp;
// ok is false for another form, more than 19 significant digits, or an
// exponent beyond ±400.
func parts(b []byte) (neg bool, mant uint64, exp int, ok bool) {
	i := 0
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg, i = b[i] == '-', 1
	}
	digits, sig, dot := 0, 0, false
	for ; i < len(b); i++ {
		c := b[i]
		if c == '.' && !dot {
			dot = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		digits++
		if mant == 0 && c == '0' {
			if dot {
				exp--
			}
			continue
		}
		if sig++; sig > 19 {
			return false, 0, 0, false
		}
		mant = mant*10 + uint64(c-'0')
		if dot {
			exp--
		}
	}
	if digits == 0 {
		return false, 0, 0, false
	}
	if i < len(b) {
		if b[i] != 'e' && b[i] != 'E' {
			return false, 0, 0, false
		}
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg, i = b[i] == '-', i+1
		}
		if i == len(b) {
			return false, 0, 0, false
		}
		x := 0
		for ; i < len(b); i++ {
			if b[i] < '0' || b[i] > '9' || x > 400 {
				return false, 0, 0, false
			}
			x = x*10 + int(b[i]-'0')
		}
		if eneg {
			x = -x
		}
		exp += x
	}
	return neg, mant, exp, true
}

// pow10u holds the powers of ten below 2^64.
var pow10u = [20]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19}

// int128 is a two's complement 128-bit integer, enough for a count of
// nanoseconds scaled by up to 10^19 plus 19 digits.
type int128 struct{ hi, lo uint64 }

func fromInt64(v int64) int128 { return int128{hi: uint64(v >> 63), lo: uint64(v)} }

func (a int128) add(b int128) int128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return int128{hi, lo}
}

// neg returns −a when n, else a.
func (a int128) neg(n bool) int128 {
	if !n {
		return a
	}
	return int128{^a.hi, ^a.lo}.add(int128{lo: 1})
}

func (a int128) negative() bool { return int64(a.hi) < 0 }

// mulSmall returns a·m; |a| < 2^63 and m < 2^64 cannot overflow.
func (a int128) mulSmall(m uint64) int128 {
	neg := a.negative()
	u := a.neg(neg)
	hi, lo := bits.Mul64(u.lo, m)
	return int128{hi, lo}.neg(neg)
}

// mulU returns a·m as an int128, ovf when it needs more than 126 bits.
func mulU(a, m uint64) (int128, bool) {
	hi, lo := bits.Mul64(a, m)
	return int128{hi, lo}, hi>>62 != 0
}

// fits53 reports whether |a| ≤ 2^53, exact in a float64.
func (a int128) fits53() bool {
	u := a.neg(a.negative())
	return u.hi == 0 && u.lo <= 1<<53
}

func (a int128) int64() int64 { return int64(a.lo) }

// String returns a in decimal.
func (a int128) String() string {
	neg := a.negative()
	u := a.neg(neg)
	var buf [41]byte
	i := len(buf)
	for u.hi != 0 {
		// Divide by 10^19 and write the remainder's 19 digits.
		q1, r1 := bits.Div64(0, u.hi, pow10u[19])
		q0, r := bits.Div64(r1, u.lo, pow10u[19])
		u = int128{q1, q0}
		for range 19 {
			i--
			buf[i] = byte('0' + r%10)
			r /= 10
		}
	}
	for v := u.lo; ; {
		i--
		buf[i] = byte('0' + v%10)
		if v /= 10; v == 0 {
			break
		}
	}
	if neg {
		i--
		buf[i] = '-'
	}
	return string(buf[i:])
}
