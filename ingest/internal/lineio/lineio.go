// Package lineio reads line-oriented input files (plain, .gz or .zst) with
// positions (textpos.Pos), hashing the bytes as stored.
package lineio

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/outlast-dev/outlast/textpos"
)

// Reader yields the lines of one input, decompressing .gz and .zst by name,
// hashing the bytes as stored, and tracking line numbers.
type Reader struct {
	name      string
	raw       io.Reader // the bytes as stored, hashed as they are read
	closer    io.Closer
	dec       io.Closer
	br        *bufio.Reader
	hashed    hashingReader // raw, hashing; nil for a head reader
	buf       []byte        // the current line
	own       []byte        // holds a line that did not fit the buffered reader
	line      int
	err       error
	truncated bool
	cut       *cutReader // the decompressed stream, nil for a plain file
}

// Open opens path for line reading. name is used in positions (usually the
// path relative to the run directory).
func Open(path, name string) (*Reader, error) { return openFile(path, name, false) }

// OpenHead opens path to look at how it begins (to tell its format), not
// to read it through: its bytes are not hashed (SHA256 fails), and it is
// buffered 16 KB at a time rather than 256 KB. A campaign sniffs two
// files a run before reading them, and hashing and reading the first
// 256 KB of each again cost a tenth of its reading.
func OpenHead(path, name string) (*Reader, error) { return openFile(path, name, true) }

func openFile(path, name string, head bool) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	r, err := newReader(f, name, f, head, size)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// NewReader reads lines from r. A name ending in .gz or .zst is decompressed.
func NewReader(r io.Reader, name string) (*Reader, error) { return newReader(r, name, nil, false, -1) }

// newReader reads lines from r, of size bytes (-1: unknown).
func newReader(r io.Reader, name string, closer io.Closer, head bool, size int64) (*Reader, error) {
	lr := &Reader{name: name, raw: r, closer: closer}
	if !head {
		lr.hashed = newHashingReader(r, size)
		lr.raw = lr.hashed
	}
	raw := lr.raw
	var src io.Reader = raw
	switch {
	case strings.HasSuffix(name, ".gz"):
		zr, err := gzip.NewReader(raw)
		if err != nil {
			return nil, err
		}
		lr.cut = &cutReader{r: zr}
		lr.dec, src = zr, lr.cut
	case strings.HasSuffix(name, ".zst"):
		zr, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		lr.cut = &cutReader{r: zr}
		lr.dec, src = zr.IOReadCloser(), lr.cut
	}
	if head {
		lr.br = bufio.NewReaderSize(src, headBuffer)
	} else {
		lr.br = readers.Get().(*bufio.Reader)
		lr.br.Reset(src)
	}
	skipBOM(lr.br)
	return lr, nil
}

// utf8BOM is the byte order mark some editors and Windows tools write at
// the start of a UTF-8 file.
const utf8BOM = "\xef\xbb\xbf"

// skipBOM skips a UTF-8 byte order mark at the start of br: it is no part
// of the first line (the columns of that line count after it), and a
// researcher's file saved by such a tool must read as the same file
// without it. It is still hashed: the hash is of the bytes as stored.
func skipBOM(br *bufio.Reader) {
	if b, err := br.Peek(len(utf8BOM)); err == nil && string(b) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
}

// cutReader reads a decompressed stream, taking its end before its end
// marker (gzip's trailer, zstd's last block), io.ErrUnexpectedEOF, for the
// end of the input and remembering it: a compressing writer killed
// mid-run (a gzip pipe of a run that was stopped) leaves such a file, and
// what it holds is read, as a plain file cut mid-write is.
type cutReader struct {
	r   io.Reader
	cut bool
}

func (c *cutReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err == io.ErrUnexpectedEOF {
		c.cut, err = true, io.EOF
	}
	return n, err
}

// StreamCut reports whether the input is compressed and its stream ended
// before its end marker (a gzip file without its trailer, say): the file
// was cut, and its last line, when it has no line ending, was too (see
// Truncated). Valid once the input has been read to its end.
func (r *Reader) StreamCut() bool { return r.cut != nil && r.cut.cut }

// ErrStreamCut is the reason of CutErr.
var ErrStreamCut = errors.New("the compressed stream ends before its end marker: the file was cut mid-write")

// CutErr returns nil unless StreamCut; then ErrStreamCut, placed where the
// file stops: "NAME:LINE: …" at the line after the last whole one read
// (the cut one, when the cut fell inside a line), or "NAME: …" for an
// input read as one document (Read). A strict reader refuses the file
// with it; what was read is only part of it.
func (r *Reader) CutErr() error {
	if !r.StreamCut() {
		return nil
	}
	if r.line == 0 {
		return fmt.Errorf("%s: %w", r.name, ErrStreamCut)
	}
	line := r.line + 1
	if r.truncated {
		line = r.line
	}
	return fmt.Errorf("%s:%d: %w", r.name, line, ErrStreamCut)
}

// headBuffer is the buffer of a reader that only looks at an input's head.
const headBuffer = 16 << 10

// readers holds the 256 KB buffered readers of closed inputs: a campaign
// opens three inputs a run, and a fresh buffer for each was a tenth of
// the ingest's allocation (and its clearing a twentieth of its time).
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 256<<10) }}

// Next advances to the next line, reporting whether there is one.
func (r *Reader) Next() bool {
	if r.err != nil || r.closed() {
		return false
	}
	chunk, err := r.br.ReadSlice('\n')
	if err == nil {
		// A whole line in the buffer, as nearly all are: no copy. It stays
		// valid until the next read, which is all Bytes promises.
		r.buf = chunk
		return r.countLine()
	}
	// A line longer than the buffer, or the last one: gather it.
	r.own = append(r.own[:0], chunk...)
	for err == bufio.ErrBufferFull {
		chunk, err = r.br.ReadSlice('\n')
		r.own = append(r.own, chunk...)
	}
	r.buf = r.own
	switch {
	case err == nil:
		return r.countLine()
	case err == io.EOF:
		r.err = io.EOF
		if len(r.buf) == 0 {
			return false
		}
		r.truncated = true
		return r.countLine()
	default:
		r.err = fmt.Errorf("%s:%d: %w", r.name, r.line+1, err)
		return false
	}
}

// countLine counts the line in r.buf and trims its line ending.
func (r *Reader) countLine() bool {
	r.line++
	r.trim()
	return true
}

func (r *Reader) trim() {
	b := r.buf
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	r.buf = b
}

// Read reads the input's bytes, decompressed, for a format that is one
// document rather than lines (a JSON or YAML report). It is not to be
// mixed with Next.
func (r *Reader) Read(p []byte) (int, error) {
	if r.closed() {
		return 0, r.err
	}
	return r.br.Read(p)
}

// closed reports whether Close has given the buffer back, and if so makes
// os.ErrClosed the reader's error.
func (r *Reader) closed() bool {
	if r.br != nil {
		return false
	}
	if r.err == nil {
		r.err = fmt.Errorf("%s: %w", r.name, os.ErrClosed)
	}
	return true
}

// Bytes returns the current line without its line ending. It is valid until
// the next call to Next.
func (r *Reader) Bytes() []byte { return r.buf }

// Pos returns the position of the current line.
func (r *Reader) Pos() textpos.Pos { return textpos.Pos{File: r.name, Line: r.line} }

// Name returns the input's name as used in positions.
func (r *Reader) Name() string { return r.name }

// Err returns the first read error other than io.EOF.
func (r *Reader) Err() error {
	if errors.Is(r.err, io.EOF) {
		return nil
	}
	return r.err
}

// Truncated reports whether the last line read had no line ending: the
// writer was stopped mid-line. Valid once Next has returned false.
func (r *Reader) Truncated() bool { return r.truncated }

// SHA256 returns the hex sha256 of the input's bytes as stored. It drains
// the rest of the input first, so call it after reading.
func (r *Reader) SHA256() (string, error) {
	if r.hashed == nil {
		return "", fmt.Errorf("%s: opened to look at its head only: not hashed", r.name)
	}
	if _, err := io.Copy(io.Discard, r.raw); err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", r.hashed.sum()), nil
}

// Close releases the input.
func (r *Reader) Close() error {
	if r.dec != nil {
		r.dec.Close()
	}
	if r.hashed != nil {
		r.hashed.stop()
	}
	if r.br != nil && r.hashed != nil { // a head reader's small buffer is not pooled
		r.br.Reset(nil)
		readers.Put(r.br)
	}
	r.br, r.buf = nil, nil
	if r.closer != nil {
		return r.closer.Close()
	}
	return nil
}
