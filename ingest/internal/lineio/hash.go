package lineio

import (
	"crypto/sha256"
	"hash"
	"io"
	"sync"
)

// hashingReader is an input read through a hash of its bytes as stored.
type hashingReader interface {
	io.Reader
	// sum returns the hash of the bytes read; no reads come after it.
	sum() []byte
	// stop releases what the hashing holds.
	stop()
}

// newHashingReader returns r hashed, on a goroutine of its own when its
// size is known and at least asyncHashMin (asyncHasher), else as it is
// read (teeHasher).
func newHashingReader(r io.Reader, size int64) hashingReader {
	if size >= asyncHashMin {
		return newAsyncHasher(r)
	}
	h := sha256.New()
	return &teeHasher{Reader: io.TeeReader(r, h), h: h}
}

// teeHasher hashes the bytes as they are read.
type teeHasher struct {
	io.Reader
	h hash.Hash
}

func (t *teeHasher) sum() []byte { return t.h.Sum(nil) }
func (t *teeHasher) stop()       {}

// asyncHashMin is the size from which a file is hashed on a goroutine of
// its own (asyncHasher). Below it, hashing where the bytes are read costs
// less than handing them over: a campaign's files are a few hundred
// kilobytes to a few megabytes, and its runs already keep every core busy.
var asyncHashMin int64 = 16 << 20

// asyncHasher hashes the bytes read through it on a goroutine of its own,
// from copies, so that reading a large file (a gateway log of hundreds of
// megabytes, whose parsing waits on its reader) does not wait on sha256,
// a tenth of the work.
type asyncHasher struct {
	r       io.Reader
	h       hash.Hash
	todo    chan *[]byte
	done    chan struct{}
	stopped bool
}

// hashBuffers holds the copies handed to the hashing goroutines.
var hashBuffers = sync.Pool{New: func() any { return new([]byte) }}

func newAsyncHasher(r io.Reader) *asyncHasher {
	a := &asyncHasher{r: r, h: sha256.New(), todo: make(chan *[]byte, 4), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		for b := range a.todo {
			a.h.Write(*b)
			*b = (*b)[:0]
			hashBuffers.Put(b)
		}
	}()
	return a
}

// Read reads from the input and hands a copy of what it read to the
// hashing goroutine, waiting only when four copies are not hashed yet.
func (a *asyncHasher) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if n > 0 {
		b := hashBuffers.Get().(*[]byte)
		*b = append((*b)[:0], p[:n]...)
		a.todo <- b
	}
	return n, err
}

// sum waits for every byte read to be hashed and returns the hash. The
// hasher takes no more reads after it.
func (a *asyncHasher) sum() []byte {
	a.stop()
	return a.h.Sum(nil)
}

// stop ends the hashing goroutine, once every copy is hashed.
func (a *asyncHasher) stop() {
	if !a.stopped {
		a.stopped = true
		close(a.todo)
	}
	<-a.done
}
