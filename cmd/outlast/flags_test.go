package main

import (
	"bytes"
	"io"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestCommonFlags checks that every command takes the common flags with one
// meaning: --help and -h teach (usage, examples, the command's flags and
// the common flags) with exit status 0; -q, --quiet and --progress parse
// (the command then fails only for its own missing arguments); a bad
// --progress is a usage error.
func TestCommonFlags(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 7 {
		t.Fatalf("%d commands registered, want at least 7", len(names))
	}
	for _, name := range names {
		for _, h := range []string{"--help", "-h", "-help"} {
			var stdout bytes.Buffer
			code := exitCode(run(&stdout, io.Discard, []string{name, h}), io.Discard)
			out := stdout.String()
			if code != 0 {
				t.Errorf("outlast %s %s: exit %d, want 0", name, h, code)
			}
			for _, want := range []string{"Usage: outlast " + name, "\nExamples:\n", commonHelp} {
				if !strings.Contains(out, want) {
					t.Errorf("outlast %s %s: no %q in\n%s", name, h, want, out)
				}
			}
			_, examples, _ := strings.Cut(out, "\nExamples:\n")
			examples, _, _ = strings.Cut(examples, "\n\n")
			if !strings.Contains(examples, "  outlast "+name+" ") {
				t.Errorf("outlast %s %s: no example of the command itself:\n%s", name, h, examples)
			}
		}
		for _, flags := range [][]string{{"-q"}, {"--quiet"}, {"--progress", "never"}, {"--progress=always"}, {"-q", "--progress", "auto"}} {
			var stderr bytes.Buffer
			// "help" is no dataset and no run directory: each command then
			// fails on its input or its own required flags, not on ours.
			exitCode(run(io.Discard, &stderr, append(append([]string{name}, flags...), "help")), &stderr)
			if s := stderr.String(); strings.Contains(s, "unknown flag") || strings.Contains(s, "--progress") {
				t.Errorf("outlast %s %s: common flag refused: %s", name, strings.Join(flags, " "), s)
			}
		}
		var stderr bytes.Buffer
		if code := exitCode(run(io.Discard, &stderr, []string{name, "--progress", "sometimes"}), &stderr); code != 2 || !strings.Contains(stderr.String(), "want auto, always, never") {
			t.Errorf("outlast %s --progress sometimes: exit %d, stderr %q; want a usage error", name, code, stderr.String())
		}
	}
}

// TestHelpFlagsListed checks that a command's --help lists each of its own
// flags once, with a short alias on the same line as its long name.
func TestHelpFlagsListed(t *testing.T) {
	var stdout bytes.Buffer
	if err := run(&stdout, io.Discard, []string{"export", "--help"}); exitCode(err, io.Discard) != 0 {
		t.Fatal(err)
	}
	_, own, _ := strings.Cut(stdout.String(), "\nFlags:\n")
	own, _, _ = strings.Cut(own, "\nCommon flags")
	for _, want := range []string{"  --format FORMAT\n", "  -o, --out FILE\n", "  --table TABLE\n"} {
		if strings.Count(own, want) != 1 {
			t.Errorf("export --help lists %q %d times, want once:\n%s", want, strings.Count(own, want), own)
		}
	}
	if strings.Contains(own, "quiet") || strings.Contains(own, "  -o FILE") {
		t.Errorf("export --help lists a common flag or an alias among its own flags:\n%s", own)
	}
}

// TestHelpListsOnlyTakenFlags checks that every flag a command's --help
// lists, its own or a common one, is one the command takes (runs once
// listed -o/--out, which it refuses), and that each is shown with what its
// value is, not Go's "value", and no default the flag's text contradicts.
func TestHelpListsOnlyTakenFlags(t *testing.T) {
	listed := regexp.MustCompile(`(?m)^  (?:-[a-z], )?--([a-z-]+)(?: (\S+))?`)
	for _, name := range commandNames() {
		var stdout bytes.Buffer
		if err := run(&stdout, io.Discard, []string{name, "--help"}); exitCode(err, io.Discard) != 0 {
			t.Fatal(err)
		}
		help := stdout.String()
		if strings.Contains(help, "(default -1)") {
			t.Errorf("outlast %s --help shows a sentinel default -1:\n%s", name, help)
		}
		for _, m := range listed.FindAllStringSubmatch(help, -1) {
			if m[2] == "value" {
				t.Errorf("outlast %s --help: --%s takes a %q", name, m[1], m[2])
			}
			var stderr bytes.Buffer
			exitCode(run(io.Discard, &stderr, []string{name, "--" + m[1]}), &stderr)
			if strings.Contains(stderr.String(), "unknown flag") {
				t.Errorf("outlast %s --help lists --%s, which it refuses: %s", name, m[1], stderr.String())
			}
		}
	}
}
