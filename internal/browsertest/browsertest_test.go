package browsertest

import (
	"errors"
	"strings"
	"testing"
)

// recorder captures failures and skips instead of ending the test.
type recorder struct {
	testing.TB
	fatal, skipped string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Fatalf(f string, a ...any) { r.fatal = f }
func (r *recorder) Skip(a ...any)             { r.skipped = "skip" }

func TestRequire(t *testing.T) {
	t.Setenv("OUTLAST_CHROMIUM", "")
	t.Setenv("PATH", t.TempDir()) // no chromium anywhere
	for _, tc := range []struct {
		ci                string
		wantFatal, wantSk bool
	}{
		{"true", true, false},
		{"", false, true},
		{"false", false, true},
	} {
		t.Setenv("CI", tc.ci)
		r := &recorder{TB: t}
		if bin := Require(r); bin != "" {
			t.Errorf("CI=%q: Require = %q without chromium", tc.ci, bin)
		}
		if (r.fatal != "") != tc.wantFatal || (r.skipped != "") != tc.wantSk {
			t.Errorf("CI=%q: fatal %q skipped %q; want fatal %v skip %v", tc.ci, r.fatal, r.skipped, tc.wantFatal, tc.wantSk)
		}
	}
	t.Setenv("OUTLAST_CHROMIUM", "/opt/my/chromium")
	if bin := Require(&recorder{TB: t}); bin != "/opt/my/chromium" && !testing.Short() {
		t.Errorf("Require = %q, want $OUTLAST_CHROMIUM", bin)
	}
}

func TestParseDumpedDOM(t *testing.T) {
	dom := `<html><head><script>var s = "<body class=x>";</script></head>` +
		`<body data-check-done="1" data-charts-total="3" data-charts-init="3" data-charts-drawn="2" data-requests="1" data-errors="[&quot;boom&quot;]"><p>x</p></body></html>`
	r, err := parseDumpedDOM([]byte(dom))
	if err != nil {
		t.Fatal(err)
	}
	if r.Charts != 3 || r.Initialised != 3 || r.Drawn != 2 || r.Requests != 1 || len(r.Errors) != 1 || r.Errors[0] != "boom" {
		t.Errorf("result %+v", r)
	}
	err = r.Err()
	for _, want := range []string{"2 of 3 charts drew", "1 resource requests", "page error: boom"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Err() = %v, want it to say %q", err, want)
		}
	}
	if (Result{Charts: 2, Initialised: 2, Drawn: 2}).Err() != nil {
		t.Error("a clean page is judged broken")
	}
	for _, bad := range []string{
		`<body data-charts-total="1">`, // self-check never finished
		`<body data-check-done="1" data-charts-total="x" data-errors="[]">`,
		`no body at all`,
	} {
		if _, err := parseDumpedDOM([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestFindChromiumOverride(t *testing.T) {
	t.Setenv("OUTLAST_CHROMIUM", "")
	t.Setenv("PATH", t.TempDir())
	if _, err := FindChromium(); !errors.Is(err, ErrNoChromium) {
		t.Errorf("err = %v, want ErrNoChromium", err)
	}
}
