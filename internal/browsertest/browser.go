// Package browsertest opens report pages in headless Chromium for tests:
// CheckInBrowser loads a page and reads the self-check its runtime script
// (report/render/assets/runtime.js) writes into <body> (charts found,
// initialised and drawn, resource requests, console and page errors), and
// Screenshot saves what a reader would see. Require finds Chromium for a
// test, skipping it locally when Chromium is absent and failing it under
// CI=true, where Chromium is required. Only tests import this package: it
// runs a browser with os/exec, which no production package should.
package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ErrNoChromium is returned when no Chromium binary can be found.
var ErrNoChromium = errors.New("browsertest: no chromium or chromium-browser on PATH (set OUTLAST_CHROMIUM to override)")

// Result is what a report page recorded about itself after
// loading in headless Chromium (see report/render/assets/runtime.js).
type Result struct {
	Charts      int      // chart options found in the page
	Initialised int      // charts echarts.init/setOption accepted
	Drawn       int      // charts whose canvas has at least one painted pixel
	Requests    int      // performance resource entries: must be 0
	Errors      []string // console.error, window errors, CSP violations
	// ReadyMs is the page's own clock (performance.now) when every chart
	// had been drawn: how long the page took to open, from navigation.
	ReadyMs int
}

// Err returns nil if every chart was initialised and drew, nothing was
// requested and no error was recorded, and otherwise an error listing
// what went wrong.
func (r Result) Err() error {
	var p []string
	if r.Initialised != r.Charts {
		p = append(p, fmt.Sprintf("%d of %d charts initialised", r.Initialised, r.Charts))
	}
	if r.Drawn != r.Charts {
		p = append(p, fmt.Sprintf("%d of %d charts drew", r.Drawn, r.Charts))
	}
	if r.Requests != 0 {
		p = append(p, fmt.Sprintf("%d resource requests", r.Requests))
	}
	for _, e := range r.Errors {
		p = append(p, "page error: "+e)
	}
	if len(p) == 0 {
		return nil
	}
	return errors.New("browser check: " + strings.Join(p, "; "))
}

// FindChromium returns the Chromium binary: $OUTLAST_CHROMIUM if set,
// else chromium or chromium-browser on PATH, else ErrNoChromium.
func FindChromium() (string, error) {
	if p := os.Getenv("OUTLAST_CHROMIUM"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNoChromium
}

// browserTimeout bounds one Chromium run; a 10 MB report loads in seconds.
const browserTimeout = 3 * time.Minute

// CheckInBrowser loads the HTML file at htmlPath in headless Chromium with
// --dump-dom and returns the self-check the page wrote into the data
// attributes of <body>. The error is non-nil only if the check could not
// run (no Chromium, crash, page never finished); call Result.Err to
// judge the page.
func CheckInBrowser(htmlPath string) (Result, error) {
	out, err := DumpDOM(htmlPath)
	if err != nil {
		return Result{}, err
	}
	return parseDumpedDOM(out)
}

// DumpDOM loads the HTML file at htmlPath in headless Chromium, lets its
// scripts run and returns the document as they left it (--dump-dom), for
// tests that drive a page with a script of their own.
func DumpDOM(htmlPath string) ([]byte, error) {
	return runChromium(htmlPath, true, "--dump-dom")
}

// Screenshot saves a PNG of the top width×height pixels of the HTML file
// at htmlPath, as rendered by headless Chromium.
func Screenshot(htmlPath, pngPath string, width, height int) error {
	abs, err := filepath.Abs(pngPath)
	if err != nil {
		return fmt.Errorf("browsertest: %w", err)
	}
	os.Remove(abs) // so that a stale file cannot pass for a new one
	// No virtual time budget here: with one, Chromium 156 left about half
	// of the screenshots of a 3 MB page hanging until the timeout on a
	// loaded machine (4 of 7 runs at load 10-16, none of 4 without it).
	// The page draws its charts synchronously on load, with animation off.
	if _, err := runChromium(htmlPath, false, "--screenshot="+abs,
		fmt.Sprintf("--window-size=%d,%d", width, height), "--hide-scrollbars"); err != nil {
		return err
	}
	if fi, err := os.Stat(abs); err != nil || fi.Size() == 0 {
		return fmt.Errorf("browsertest: chromium wrote no screenshot to %s", abs)
	}
	return nil
}

// runChromium runs headless Chromium on the file at htmlPath; budget lets
// the page's timers run on virtual time for up to 15 s before the DOM is
// dumped.
func runChromium(htmlPath string, budget bool, extra ...string) ([]byte, error) {
	bin, err := FindChromium()
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(htmlPath)
	if err != nil {
		return nil, fmt.Errorf("browsertest: %w", err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("browsertest: %w", err)
	}
	profile, err := os.MkdirTemp("", "outlast-chromium-")
	if err != nil {
		return nil, fmt.Errorf("browsertest: %w", err)
	}
	defer os.RemoveAll(profile)
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--mute-audio",
		"--user-data-dir=" + profile,
	}
	if budget {
		args = append(args, "--virtual-time-budget=15000")
	}
	args = append(args, extra...)
	args = append(args, (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String())
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	// UTC and a private HOME keep the run independent of this machine.
	cmd.Env = append(os.Environ(), "TZ=UTC", "HOME="+profile)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("browsertest: %s: %w; stderr: %s", filepath.Base(bin), err, tail(stderr.String(), 2000))
	}
	return stdout.Bytes(), nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

var (
	bodyTagRe = regexp.MustCompile(`<body\b([^>]*)>`)
	attrRe    = regexp.MustCompile(`([a-zA-Z-]+)="([^"]*)"`)
)

// parseDumpedDOM reads the data-* attributes set by the page's runtime
// script.
func parseDumpedDOM(dom []byte) (Result, error) {
	// The embedded ECharts source contains "<body" in strings; the real
	// tag is the last one, since nothing after it may contain '<'.
	all := bodyTagRe.FindAllSubmatch(dom, -1)
	if len(all) == 0 {
		return Result{}, errors.New("browser check: no <body> in dumped DOM")
	}
	m := all[len(all)-1]
	attrs := map[string]string{}
	for _, a := range attrRe.FindAllSubmatch(m[1], -1) {
		attrs[string(a[1])] = html.UnescapeString(string(a[2]))
	}
	if attrs["data-check-done"] != "1" {
		return Result{}, errors.New("browser check: the page did not finish its self-check (script error or too slow)")
	}
	var r Result
	var err error
	num := func(k string) int {
		n, e := strconv.Atoi(attrs[k])
		if e != nil && err == nil {
			err = fmt.Errorf("browser check: bad %s=%q", k, attrs[k])
		}
		return n
	}
	r.Charts = num("data-charts-total")
	r.Initialised = num("data-charts-init")
	r.Drawn = num("data-charts-drawn")
	r.Requests = num("data-requests")
	if attrs["data-ready-ms"] != "" {
		r.ReadyMs = num("data-ready-ms")
	}
	if e := json.Unmarshal([]byte(attrs["data-errors"]), &r.Errors); e != nil && err == nil {
		err = fmt.Errorf("browser check: bad data-errors: %w", e)
	}
	return r, err
}
