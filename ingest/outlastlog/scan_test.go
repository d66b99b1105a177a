package outlastlog

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestSpecial8 compares the word test with a byte loop: every byte value
// at every position among plain bytes, then random words mixing plain,
// special and high bytes (where borrows between bytes could mislead it).
func TestSpecial8(t *testing.T) {
	naive := func(b []byte) bool {
		for _, c := range b {
			if c == '"' || c == '\\' || c < 0x20 {
				return true
			}
		}
		return false
	}
	check := func(b []byte) {
		if got, want := special8(binary.LittleEndian.Uint64(b)), naive(b); got != want {
			t.Fatalf("% x: got %v, want %v", b, got, want)
		}
	}
	for c := range 256 {
		for pos := range 8 {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			check(b)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	pool := []byte{0, 0x1f, 0x20, 0x21, '"', '\\', 'a', 0x7f, 0x80, 0xa2, 0xdc, 0xff}
	b := make([]byte, 8)
	for range 200000 {
		for i := range b {
			b[i] = pool[rng.IntN(len(pool))]
		}
		check(b)
	}
}

// TestPlainEnd checks plainEnd against plainEndBytes on strings of every
// length up to 40 made of the bytes that matter (the quote, the
// backslash, the control characters and their neighbours, UTF-8), from
// every start.
func TestPlainEnd(t *testing.T) {
	alphabet := []byte{'"', '\\', 0x00, 0x01, 0x1f, 0x20, 0x21, 0x22 ^ 0x80, 0x5c ^ 0x80, 0x7f, 0x80, 0xa2, 0xdc, 0xff, 'a', '0', ':'}
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 41 {
		for range 300 {
			b := make([]byte, n)
			for k := range b {
				if r.IntN(4) == 0 {
					b[k] = alphabet[r.IntN(len(alphabet))]
				} else {
					b[k] = byte('a' + r.IntN(26))
				}
			}
			for i := range n + 1 {
				if got, want := plainEnd(b, i), plainEndBytes(b, i); got != want {
					t.Fatalf("plainEnd(%q, %d) = %d, want %d", b, i, got, want)
				}
			}
		}
	}
}

func FuzzPlainEnd(f *testing.F) {
	f.Add([]byte(`"session":"s-0000001","turn":3`), 0)
	f.Add([]byte("abc\x1fdef\"ghijklmnop\\"), 2)
	f.Fuzz(func(t *testing.T, b []byte, i int) {
		if i < 0 || i > len(b) {
			return
		}
		if got, want := plainEnd(b, i), plainEndBytes(b, i); got != want {
			t.Fatalf("plainEnd(%q, %d) = %d, want %d", b, i, got, want)
		}
	})
}
