//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package dataset

import (
	"errors"
	"os"
	"syscall"
)

// lockOwner locks a stage's owner file exclusively, for the life of the
// open file. flock rather than POSIX record locks: a flock belongs to the
// open file, so another stage of this process probing the file (and
// closing its probe) does not release it.
func lockOwner(f *os.File) error {
	return flock(f, syscall.LOCK_EX)
}

// tryLockOwner locks f if no one holds it, without waiting, and reports
// whether it did: true means the stage's owner is gone.
func tryLockOwner(f *os.File) (bool, error) {
	err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			if err != nil {
				return &os.PathError{Op: "flock", Path: f.Name(), Err: err}
			}
			return nil
		}
	}
}
