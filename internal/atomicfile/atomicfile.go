// Package atomicfile writes output files so that a reader never sees a
// partial one: the bytes go to a temporary file in the same directory,
// which is synced and renamed into place. Every command's outputs (report
// pages, tables, JSON, exports, comparisons) are written through it.
//
// The file's mode follows the umask, as with os.Create: the temporary file
// is created with mode 0666 and the kernel applies the umask, rather than
// os.CreateTemp's fixed 0600.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"
)

// seq makes temporary names unique within the process; the pid and the
// time make them unique between processes.
var seq atomic.Uint64

// WriteFile writes data to path atomically.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write writes path atomically with the output of write, buffered. When
// write fails, nothing is left behind and path is unchanged.
//
// A path that is a symbolic link has its target replaced, and the link
// stays. A path that names something other than a regular file (a
// terminal, /dev/stdout, the pipe of a shell's >(…)) cannot be replaced
// without destroying it, so it is written in place, as os.Create would.
func Write(path string, write func(io.Writer) error) (err error) {
	dest := path
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return writeInPlace(path, write)
		}
		if target, err := filepath.EvalSymlinks(path); err == nil {
			dest = target
		}
	}
	dir, base := filepath.Split(dest)
	if dir == "" {
		dir = "."
	}
	var f *os.File
	for range 100 {
		tmp := filepath.Join(dir, "."+base+".tmp-"+strconv.Itoa(os.Getpid())+"-"+
			strconv.FormatUint(seq.Add(1), 10)+"-"+strconv.FormatInt(time.Now().UnixNano()%1e6, 10))
		f, err = os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, dest)
}

// writeInPlace writes the output of write to the existing file at path,
// which is no regular file and so cannot be renamed over.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
