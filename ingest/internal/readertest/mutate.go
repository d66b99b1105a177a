package readertest

import "math/rand/v2"

// Mutate returns a copy of b with one to three random edits (a byte
// deleted, one of alphabet inserted or put in place of a byte), never
// empty: the mutations through which a fast path is compared with the
// general way it stands in for.
func Mutate(rng *rand.Rand, b, alphabet []byte) []byte {
	b = append([]byte(nil), b...)
	for range 1 + rng.IntN(3) {
		if len(b) == 0 {
			b = append(b, alphabet[rng.IntN(len(alphabet))])
			continue
		}
		i := rng.IntN(len(b))
		switch rng.IntN(3) {
		case 0:
			b = append(b[:i], b[i+1:]...)
		case 1:
			b = append(b[:i], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[i:]...)...)
		default:
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
	}
	if len(b) == 0 {
		b = append(b, alphabet[rng.IntN(len(alphabet))])
	}
	return b
}
