package lineio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// NextChunk reads whole lines, about size bytes of them, into buf (grown as
// needed) and returns them with the line number of the first. The chunk
// ends with a newline unless it holds the input's last line and that line
// has none (then Truncated reports true). It returns io.EOF when the input
// is exhausted. A reader is read either by Next or by NextChunk, not both:
// chunks let a caller parse lines on several goroutines while keeping
// their order and positions.
func (r *Reader) NextChunk(buf []byte, size int) (chunk []byte, first int, err error) {
	if r.err != nil || r.closed() {
		return nil, 0, r.err
	}
	if cap(buf) < size {
		buf = make([]byte, size, size+size/4)
	}
	buf = buf[:size]
	n, rerr := io.ReadFull(r.br, buf)
	buf = buf[:n]
	switch {
	case rerr == io.EOF || rerr == io.ErrUnexpectedEOF:
		r.err = io.EOF
	case rerr != nil:
		r.err = fmt.Errorf("%s:%d: %w", r.name, r.line+1, rerr)
		return nil, 0, r.err
	default:
		// Complete the last line.
		for len(buf) > 0 && buf[len(buf)-1] != '\n' {
			part, err := r.br.ReadSlice('\n')
			buf = append(buf, part...)
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err == io.EOF {
				r.err = io.EOF
				break
			}
			if err != nil {
				r.err = fmt.Errorf("%s:%d: %w", r.name, r.line+1, err)
				return nil, 0, r.err
			}
		}
	}
	if len(buf) == 0 {
		return nil, 0, io.EOF
	}
	first = r.line + 1
	r.line += bytes.Count(buf, []byte{'\n'})
	if buf[len(buf)-1] != '\n' {
		r.line++
		r.truncated = true
	}
	return buf, first, nil
}
