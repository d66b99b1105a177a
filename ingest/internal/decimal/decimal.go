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
func Simple(b []byte) (v float64, ok bool) {
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
	v = float64(mant) / exactPow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

// exactPow10 holds the powers of ten Simple divides by.
var exactPow10 = [16]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}
