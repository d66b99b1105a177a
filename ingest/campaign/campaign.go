// Package campaign ingests a campaign, many run directories, on every core:
// several directories are read at once through rundir.StreamAll, each run
// into its own Sink (a directory of several runs, such as a sweep, reads
// them one after another), and the results are handed back in the order
// the directories were given, whatever order they finish in.
//
// A run's files depend only on its own directory, so the dataset is the
// same bytes as when the runs are read one after another. What the caller
// sees is the same too: the results in order, and on an error the results
// of the runs before it and then the error of the first failing run in
// order, as if the runs had been read in turn.
//
// Memory is bounded whatever the number of runs: at most Workers runs are
// read at once, and fewer when they are large (their inputs together within
// MaxBytes, a run larger than that alone: a large run holds its reorder
// windows full and reads on every core by itself), and a run is started
// only a few places ahead of the first run whose result is not yet handed
// back, so the results waiting for an earlier run are few.
package campaign

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/outlast-dev/outlast/ingest/rundir"
)

// Options controls a campaign's ingest.
type Options struct {
	Run rundir.Options
	// Workers is how many runs are read at once; 0 means one per core
	// (GOMAXPROCS) and one more, to keep the cores busy while a run waits
	// for the disk.
	Workers int
	// MaxBytes bounds the input bytes (Size) of the runs read at once,
	// but for the first; 0 means DefaultMaxBytes.
	MaxBytes int64
	// Progress, if set, is called on the caller's goroutine after Done,
	// with each directory in order: how many are done, the one just done,
	// their bytes and the bytes of all the directories (Size).
	Progress func(done int, dir string, bytes, total int64)
}

// DefaultMaxBytes is the default bound on the input bytes of the runs
// read at once: campaigns of runs of a few MB are read Workers at a time,
// and a run of a large gateway log alone.
const DefaultMaxBytes = 64 << 20

// Done is called on the caller's goroutine with the results of each
// directory's runs, in the order of the directories; i is the directory's
// index in them. An error from Done stops the ingest like an error
// reading the directory.
type Done func(i int, res []*rundir.Result) error

// Ingest reads the run directories dirs into the Sinks begin opens, several
// at once, and calls done with each directory's results in the order of
// dirs. On the first error in that order (reading a directory, or from
// done) no more directories are started, those already started are waited
// for, and the error is returned after done has been called for every
// directory before it. Two runs with the same name are an error of the
// later directory, as when they are read in turn.
func Ingest(dirs []string, opt Options, begin rundir.BeginFunc, done Done) error {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0) + 1
	}
	workers = min(workers, len(dirs))
	// ahead bounds how far past the first unreported run a run may start,
	// so that the results kept for reporting in order stay few.
	ahead := 2 * workers
	c := newCampaign(dirs, begin)

	maxBytes := opt.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	sizes := make([]int64, len(dirs))
	var total int64
	for i, d := range dirs {
		sizes[i] = Size(d)
		total += sizes[i]
	}

	type outcome struct {
		i   int
		res []*rundir.Result
		err error
	}
	jobs := make(chan int)
	results := make(chan outcome)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				res, err := rundir.StreamAll(dirs[i], opt.Run, c.beginFunc(i))
				c.ended(i)
				results <- outcome{i, res, err}
			}
		})
	}

	pending := make(map[int]outcome) // finished, not yet reported
	next, report := 0, 0             // the next run to start, to report
	failed := len(dirs)              // index of the first error, len(dirs) if none
	var firstErr error
	var bytes, inFlightBytes int64
	inFlight := 0
	for report < failed {
		// Start runs while there is room, none has failed before them and
		// they are not too far ahead of the reporting.
		for next < failed && next < report+ahead &&
			(inFlight == 0 || inFlight < workers && inFlightBytes+sizes[next] <= maxBytes) {
			jobs <- next
			inFlightBytes += sizes[next]
			next++
			inFlight++
		}
		if inFlight == 0 {
			break
		}
		o := <-results
		inFlight--
		inFlightBytes -= sizes[o.i]
		if o.err != nil && o.i < failed {
			failed, firstErr = o.i, o.err
		}
		pending[o.i] = o
		for report < failed {
			r, ok := pending[report]
			if !ok {
				break
			}
			delete(pending, report)
			if err := done(report, r.res); err != nil {
				failed, firstErr = report, err
				break
			}
			bytes += sizes[report]
			report++
			if opt.Progress != nil {
				opt.Progress(report, dirs[report-1], bytes, total)
			}
		}
	}
	close(jobs)
	// Runs started after the failing one are still being read: wait for
	// them (their results no longer matter) so that none outlives Ingest.
	go func() {
		for range results {
		}
	}()
	wg.Wait()
	close(results)
	return firstErr
}

// Size returns the bytes of the files directly in dir: a run directory's
// inputs, for progress.
func Size(dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

// campaign gives each run its name in the order of the directories: a
// directory opens the Sink of its first run only once every directory
// before it has opened its own first (or failed before), so that a name
// given twice is the later directory's error, as when they are read in
// turn. Runs name themselves right after reading their manifest, so the
// wait is short. The later runs of a directory of several claim their
// names as they come: one of them given twice is the error of whichever
// directory claims it second.
type campaign struct {
	dirs  []string
	begin rundir.BeginFunc
	mu    sync.Mutex
	names map[string]int // run name → index of the directory that took it
	named []chan struct{}
	once  []sync.Once
}

func newCampaign(dirs []string, begin rundir.BeginFunc) *campaign {
	n := len(dirs)
	c := &campaign{dirs: dirs, begin: begin, names: map[string]int{}, named: make([]chan struct{}, n), once: make([]sync.Once, n)}
	for i := range c.named {
		c.named[i] = make(chan struct{})
	}
	return c
}

// beginFunc returns the BeginFunc of directory i.
func (c *campaign) beginFunc(i int) rundir.BeginFunc {
	return func(name string) (rundir.Sink, error) {
		holder, first := i, false
		c.after(i, func() { holder, first = c.claim(name, i), true })
		if !first {
			holder = c.claim(name, i)
		}
		if holder != i {
			return nil, fmt.Errorf("%s: run %q is also %s", c.dirs[i], name, c.dirs[holder])
		}
		// A run read again (after a hash collision) begins again under the
		// same name.
		return c.begin(name)
	}
}

// claim gives name to directory i unless another has it, and returns the
// directory that has it.
func (c *campaign) claim(name string, i int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if holder, taken := c.names[name]; taken {
		return holder
	}
	c.names[name] = i
	return i
}

// ended marks directory i as done naming its first run, if it never did
// (an error before its manifest was read), so that the directories after
// it go on.
func (c *campaign) ended(i int) { c.after(i, func() {}) }

// after runs f once for directory i, after every earlier directory has
// named its first run or ended, then lets the later ones go on.
func (c *campaign) after(i int, f func()) {
	c.once[i].Do(func() {
		if i > 0 {
			<-c.named[i-1]
		}
		f()
		close(c.named[i])
	})
}
