package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// commonHelp documents the flags every command takes. It is printed at the
// end of every command's --help; README.md says the same once. -o/--out,
// which seven commands take, is listed in their Flags, so that no help lists
// a flag its command refuses.
const commonHelp = `Common flags (every command):
  -h, --help        print this help, with examples, and exit 0
  -q, --quiet       print no summaries, notes or progress; the data a command
                    writes to standard output and every warning and error
                    are still printed
  --progress WHEN   progress bar on standard error: auto (when standard error
                    is a terminal; the default), always (also when it is not:
                    one plain line per step), never

Exit status: 0 ok, 1 a finding (a failed check), 2 bad input or usage.
`

// progressModes are the values of --progress.
var progressModes = []string{"auto", "always", "never"}

// cmdFlags is a command's flag set with the common flags defined on it:
// one parser, one help layout and one meaning of -q and --progress for
// every command.
type cmdFlags struct {
	*flag.FlagSet
	help     string // usage, description and examples; the flags follow
	quiet    bool
	progress string
	// aliases maps a short flag name to its long name ("o" → "out"); the
	// help lists both on one line.
	aliases map[string]string
	common  map[string]bool // flags listed under commonHelp, not the command's own
}

// newFlags returns the flag set of the command called name, whose --help
// prints help, then the command's own flags, then commonHelp.
func newFlags(name, help string) *cmdFlags {
	f := &cmdFlags{
		FlagSet: flag.NewFlagSet(name, flag.ContinueOnError),
		help:    help,
		aliases: map[string]string{},
		common:  map[string]bool{},
	}
	f.BoolVar(&f.quiet, "quiet", false, "")
	f.BoolVar(&f.quiet, "q", false, "")
	f.StringVar(&f.progress, "progress", "auto", "")
	for _, n := range []string{"quiet", "q", "progress"} {
		f.common[n] = true
	}
	f.Usage = f.printHelp
	return f
}

// out defines -o/--out, the path a command writes to.
func (f *cmdFlags) out(usage string) *string {
	p := new(string)
	f.StringVar(p, "out", "", usage)
	f.StringVar(p, "o", "", usage)
	f.aliases["o"] = "out"
	return p
}

// parse parses args: flags may follow positional arguments ("ingest DIR
// --out ds"). --help prints the help to stdout and returns errHelp (exit
// status 0); any other flag error is a usage error (exit status 2).
func (f *cmdFlags) parse(stdout io.Writer, args []string) error {
	f.SetOutput(io.Discard)
	var pos []string
	for {
		err := f.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			f.SetOutput(stdout)
			f.Usage()
			return errHelp
		}
		if err != nil {
			return usageErrorf("%s: %s", f.Name(), f.flagError(err))
		}
		if f.NArg() == 0 {
			break
		}
		pos = append(pos, f.Arg(0))
		args = f.Args()[1:]
	}
	if err := f.Parse(append([]string{"--"}, pos...)); err != nil {
		return usageErrorf("%s: %v", f.Name(), err)
	}
	if !slices.Contains(progressModes, f.progress) {
		return usageErrorf("%s: --progress %q: want %s", f.Name(), f.progress, strings.Join(progressModes, ", "))
	}
	if f.quiet && f.progress == "always" {
		return usageErrorf("%s: -q and --progress always contradict each other", f.Name())
	}
	return nil
}

// bar returns the progress display of n steps on w, as --progress and -q
// ask.
func (f *cmdFlags) bar(w io.Writer, label string, n int) *progress {
	mode := f.progress
	if f.quiet {
		mode = "never"
	}
	return newProgress(w, label, n, mode)
}

// printHelp writes the command's help, its own flags and commonHelp.
func (f *cmdFlags) printHelp() {
	w := f.Output()
	fmt.Fprint(w, strings.TrimRight(f.help, "\n")+"\n")
	long := map[string]string{} // long name → short alias
	for s, l := range f.aliases {
		long[l] = s
	}
	var own []*flag.Flag
	f.VisitAll(func(fl *flag.Flag) {
		if !f.common[fl.Name] && f.aliases[fl.Name] == "" {
			own = append(own, fl)
		}
	})
	sort.Slice(own, func(i, j int) bool { return own[i].Name < own[j].Name })
	if len(own) > 0 {
		fmt.Fprint(w, "\nFlags:\n")
	}
	for _, fl := range own {
		typ, usage := flag.UnquoteUsage(fl)
		name := "--" + fl.Name
		if s := long[fl.Name]; s != "" {
			name = "-" + s + ", " + name
		}
		if typ != "" {
			name += " " + typ
		}
		fmt.Fprintf(w, "  %s\n", name)
		usage = strings.ReplaceAll(usage, "\n", "\n        ")
		// A flag whose text states its default (the design's, all) is
		// not given a second, contradicting one (--flush's -1).
		if d := fl.DefValue; d != "" && d != "false" && d != "0" && d != "[]" && !strings.Contains(usage, "default") {
			if typ == "string" {
				d = fmt.Sprintf("%q", d)
			}
			usage += " (default " + d + ")"
		}
		fmt.Fprintf(w, "        %s\n", usage)
	}
	fmt.Fprint(w, "\n"+commonHelp)
}

// The messages of package flag, which spell every flag "-name".
var (
	undefinedRE = regexp.MustCompile(`^flag provided but not defined: -(.*)$`)
	noValueRE   = regexp.MustCompile(`^flag needs an argument: -(.*)$`)
	badValueRE  = regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-([^:]*): `)
)

// flagError rewrites an error of package flag in the spelling the help
// uses (--name, -o) and says what a numeric flag wants.
func (f *cmdFlags) flagError(err error) string {
	msg := err.Error()
	if m := undefinedRE.FindStringSubmatch(msg); m != nil {
		return "unknown flag " + dashed(m[1])
	}
	if m := noValueRE.FindStringSubmatch(msg); m != nil {
		return dashed(m[1]) + " needs a value"
	}
	if m := badValueRE.FindStringSubmatch(msg); m != nil {
		want := "a valid value"
		if fl := f.Lookup(m[2]); fl != nil {
			if g, ok := fl.Value.(flag.Getter); ok {
				switch g.Get().(type) {
				case float64:
					want = "a number"
				case int, int64:
					want = "a whole number"
				case uint, uint64:
					want = "a whole number ≥ 0"
				case bool:
					want = "true or false"
				}
			}
		}
		return dashed(m[2]) + " " + m[1] + ": want " + want
	}
	return msg
}

// dashed spells a flag's name as the help does: -o, --out.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
