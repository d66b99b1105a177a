package gateway

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
