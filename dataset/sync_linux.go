//go:build linux

package dataset

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// syncEachFile is false on Linux: instead of an fsync per staged file,
// Commit flushes the stage with one syncfs(2) before it renames anything.
// Each fsync on ext4 waits for a journal commit of its own; a campaign of
// a thousand runs stages five thousand files, and their fsyncs cost a
// quarter of the ingest's wall time (docs/performance.md). The guarantee
// is the same: every staged byte is on disk before any file enters the
// dataset.
const syncEachFile = false

// syncStage flushes the file system that holds the stage to disk, through
// the stage's owner file. That file was opened when the stage was made,
// and syncfs reports the write-back errors of the file system since the
// descriptor it is given was opened: so an error writing a staged file
// back before Commit (which an fsync of that file would have reported) is
// reported here too, as would be one of another file on the same file
// system, which fails the commit on the safe side.
func syncStage(owner *os.File) error {
	sc, err := owner.SyscallConn()
	if err != nil {
		return fmt.Errorf("dataset: sync stage: %w", err)
	}
	var serr error
	if err := sc.Control(func(fd uintptr) { serr = unix.Syncfs(int(fd)) }); err != nil {
		return fmt.Errorf("dataset: sync stage: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("dataset: sync stage %s: %w", filepath.Dir(owner.Name()), serr)
	}
	return nil
}

// startWriteback starts writing f's dirty pages to disk without waiting
// for them, so that the one syncfs of Commit finds them written or on
// their way rather than starting them all at the end, after every run is
// read, when nothing else is left to overlap with. An error here is left
// to syncfs to report.
func startWriteback(f *os.File) {
	if sc, err := f.SyscallConn(); err == nil {
		sc.Control(func(fd uintptr) { unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE) })
	}
}
