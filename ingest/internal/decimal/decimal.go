// Package decimal parses the plain decimal numbers that most values of
// metrics text and engine logs are ("0.15", "414.42", "-3"), exactly as
// strconv.ParseFloat does but without its general machinery, which was a
// quarter of a Prometheus scrape's parse.
package decimal

// Simple parses b of the shape [+-]digits[.digits] (either part of the
// digits may be empty, not both) with at most 15 digits, as
// strconv.ParseFloat would; ok is false for any other b, which the caller
// then gives to ParseFloat. The digits make an integer below 2^53 and the
// point a power of ten up to 1e15, both exact in a float64, so their
// quotient is the correctly rounded value: strconv's own exact path.
func Simple(b []byte) (v float64, ok bool) { return scaled(b, 0) }

// Percent parses b as Simple does and returns it divided by 100, correctly
// rounded: "91.6" gives 0.916, where Simple's 91.6 divided by 100 gives
// 0.9159999999999999 (two roundings). ok is false where Simple's is.
func Percent(b []byte) (v float64, ok bool) { return scaled(b, 2) }

// scaled parses b as Simple does and divides it by 10^shift, one exact
// division of an integer below 2^53 by a power of ten below 1e23, both
// exact in a float64.
func scaled(b []byte, shift int) (v float64, ok bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	var mant uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	v = float64(mant) / exactPow10[frac+shift]
	if neg {
		v = -v
	}
	return v, true
}

// exactPow10 holds the powers of ten scaled divides by, all exact in a
// float64 (5^17 < 2^53).
var exactPow10 = [18]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17}
