package enginelog

import (
	"math/bits"
	"strings"
)

// This file recognises the wrappers: what the tools that collected a log
// put in front of each of the engine's lines. Both readers get every
// wrapper recognised here; this is the one place to add a new one (its
// matcher goes in matchers.go).

// Wrapper is a kind of wrapper.
type Wrapper uint8

// The wrappers, in the order WrapperSet.String names them. The names are
// those of the real-lines corpus (fixtures/real-lines/README.md).
const (
	// LogExport is a cloud console's export, "<epoch ms>\t<RFC 3339>\t".
	LogExport Wrapper = iota
	// CRI is a Kubernetes node's container log file (the CRI logging
	// format of kubelet), "<RFC 3339> stdout|stderr F|P ".
	CRI
	// Journald is journalctl's (or syslog's) "Mon DD HH:MM:SS host
	// ident[pid]: ", the month in the reader's locale, the host left out
	// with --no-hostname, also with the stamps of journalctl -o short-iso,
	// short-full and short-unix (matchJournald).
	Journald
	// Container is the RFC 3339 stamp of `docker logs -t` and `kubectl
	// logs --timestamps`, "2025-10-15T00:00:48.753199366Z ".
	Container
	// KubectlPrefix is `kubectl logs --prefix`'s "[pod/NAME/CONTAINER] ".
	KubectlPrefix
	// Pipe is a log viewer's "YYYY-MM-DD HH:MM:SS.mmm | ".
	Pipe
	// Compose is docker compose's "service-1  | " (v1: "name_1  | ").
	Compose
	// Slurm is `srun --label`'s task number, "0: ".
	Slurm
	// Launcher is a launcher's or supervisor's own "[YYYY-MM-DD HH:MM:SS]
	// " stamp, with or without a level word after it, or a CI agent's:
	// Buildkite's "[<RFC 3339>] " (matchLauncher) and, in a job's raw log,
	// its "ESC _bk;t=<ms> BEL" (buildkite.go).
	Launcher
	// Ray is Ray's "(Actor pid=N[, ip=A])" in front of an actor's output,
	// told from the engine's own process prefixes by name (OwnProcess).
	Ray
	// DockerJSON is a line of Docker's json-file log, the engine's line
	// inside a JSON object (dockerjson.go).
	DockerJSON
	// JournaldJSON is an entry of `journalctl -o json`, the engine's line
	// its MESSAGE (journaldjson.go).
	JournaldJSON
	// Tracing is the head of a line of Rust's tracing-subscriber,
	// "<RFC 3339> LEVEL target: ", in place of the engine's header: Dynamo
	// logs its engines' Python records so (matchTracing).
	Tracing
	// PyLogging is the header of Python's logging-cookbook format,
	// "YYYY-MM-DD HH:MM:SS,mmm - logger - LEVEL - ", of an application
	// that logs the engine's output as records of its own (matchPyLogging).
	PyLogging
	numWrappers
)

var wrapperNames = [numWrappers]string{
	"logexport-tsv", "cri", "journald", "container-rfc3339", "kubectl-prefix", "timestamp-pipe", "docker-compose", "slurm-label", "launcher", "ray", "docker-json", "journald-json", "tracing", "pylogging",
}

// String returns the wrapper's name.
func (w Wrapper) String() string { return wrapperNames[w] }

// WrapperSet is a set of wrappers.
type WrapperSet uint16

// Has reports whether w is in s.
func (s WrapperSet) Has(w Wrapper) bool { return s&(1<<w) != 0 }

func (s *WrapperSet) add(w Wrapper) { *s |= 1 << w }

// String returns the names of the wrappers in s joined by "+", in the
// order of the constants; "" for none.
func (s WrapperSet) String() string {
	var names []string
	for w := range numWrappers {
		if s.Has(w) {
			names = append(names, w.String())
		}
	}
	return strings.Join(names, "+")
}

// stampSpan is where a wrapper's stamp stands, relative to where the
// wrapper begins, and whether it carries its zone (an instant, not a
// wall-clock time).
type stampSpan struct {
	at, end int
	zoned   bool
}

// matcher returns the length of its wrapper at the start of b, with the
// blanks after it, and the wrapper's stamp; 0 when b does not begin with
// it.
type matcher func(b []byte) (int, stampSpan)

// matchers are the wrappers tried at each step of unwrapping, each with
// the bytes it can begin with.
var matchers = [...]struct {
	kind  Wrapper
	m     matcher
	first string
}{
	{LogExport, matchLogExport, digitBytes},
	{Journald, matchJournald, digitBytes + letterBytes + utf8LeadBytes + " "}, // the month in any locale (journalMonth)
	{Tracing, matchTracing, digitBytes},                                       // before Container: the same stamp
	{Container, matchContainer, digitBytes},                                   // also CRI
	{KubectlPrefix, matchKubectlPrefix, "["},
	{Pipe, matchPipe, digitBytes},
	{PyLogging, matchPyLogging, digitBytes},
	{Compose, matchCompose, digitBytes + letterBytes},
	{Slurm, matchSlurm, digitBytes + " "},
	{Launcher, matchLauncher, "["},
}

const (
	digitBytes    = "0123456789"
	letterBytes   = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	utf8LeadBytes = "\xc2\xc3\xc4\xc5\xc6\xc7\xc8\xc9\xca\xcb\xcc\xcd\xce\xcf\xd0\xd1\xd2\xd3\xd4\xd5\xd6\xd7\xd8\xd9\xda\xdb\xdc\xdd\xde\xdf\xe0\xe1\xe2\xe3\xe4\xe5\xe6\xe7\xe8\xe9\xea\xeb\xec\xed\xee\xef\xf0\xf1\xf2\xf3\xf4"
)

// launcherBit is the Launcher matcher's bit in candidates.
var launcherBit = func() uint16 {
	for k, m := range matchers {
		if m.kind == Launcher {
			return 1 << k
		}
	}
	return 0
}()

// candidates are, for each byte, the matchers (as bits of their index)
// that a wrapper beginning with it may be: most lines begin with a byte
// that begins none ("(APIServer pid=1)"), and are not looked at again.
var candidates = func() (c [256]uint16) {
	for k, m := range matchers {
		for i := range len(m.first) {
			c[m.first[i]] |= 1 << k
		}
	}
	return c
}()

// unwrap takes the wrappers off the front of l.Text, in any order and
// nesting, each kind at most once, and returns the offset after them.
func unwrap(l *Line) int {
	b, i := l.Text, 0
	for i < len(b) {
		cand := candidates[b[i]]
		if b[i] == '[' && i+1 < len(b) {
			// "[2026-..." can be a launcher's stamp, "[pod/..." kubectl's;
			// SGLang's own "[2026-07-20 10:15:03 TP0] " and "[2026-07-20
			// 10:15:03] Decode" are neither, told without a call.
			if b[i+1] < '0' || b[i+1] > '9' {
				cand &^= launcherBit
			} else if !launcherLikely(b[i:]) {
				break
			} else {
				cand &= launcherBit
			}
		}
		n := 0
		for ; cand != 0 && n == 0; cand &= cand - 1 {
			k := bits.TrailingZeros16(cand)
			if l.wrappers.Has(matchers[k].kind) {
				continue
			}
			var st stampSpan
			if n, st = matchers[k].m(b[i:]); n == 0 {
				continue
			}
			kind := matchers[k].kind
			if kind == Container && isCRI(b[i+st.end:i+n]) {
				kind = CRI
			}
			l.wrappers.add(kind)
			if st.end > 0 && l.stampEnd == 0 {
				l.stampAt, l.stampEnd, l.stampZoned = int32(i+st.at), int32(i+st.end), st.zoned
			}
		}
		if n == 0 {
			break
		}
		i += n
	}
	return i
}
