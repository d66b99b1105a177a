package promtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Server is a prometheus server over a data directory, scraping nothing:
// it serves the blocks backfilled into its directory.
type Server struct {
	URL     string
	dataDir string
	cmd     *exec.Cmd
	log     bytes.Buffer
}

// Start starts prometheus over dataDir on a free local port and waits until
// it is ready; t's cleanup stops it.
func Start(t testing.TB, dataDir string) *Server {
	t.Helper()
	s := &Server{dataDir: dataDir}
	s.start(t)
	t.Cleanup(s.Stop)
	return s
}

// Restart stops the server and starts it again over its directory, so
// that it reads blocks moved there.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	s.start(t)
}

func (s *Server) start(t testing.TB) {
	t.Helper()
	bin := Tool(t, "prometheus")
	cfg := filepath.Join(t.TempDir(), "prometheus.yml")
	if err := os.WriteFile(cfg, []byte("global:\n  evaluation_interval: 1m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	s.URL = "http://" + addr
	s.log.Reset()
	// Backfilled runs may lie years before the server's clock: retention
	// is measured from the newest block, but a long one keeps any
	// future test's data too.
	s.cmd = exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+s.dataDir,
		"--web.listen-address="+addr, "--storage.tsdb.retention.time=100y", "--log.level=warn")
	s.cmd.Stdout, s.cmd.Stderr = &s.log, &s.log
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.URL + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			s.Stop()
			t.Fatalf("prometheus at %s not ready after 60 s:\n%s", addr, s.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop stops the server (its own process only) and waits for it.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Series is one series of a query's answer: its labels and its points
// (Unix seconds and value).
type Series struct {
	Labels map[string]string
	Points []Point
}

// Point is one sample.
type Point struct {
	T float64
	V float64
}

// QueryRange evaluates expr over [start, end] every step (Unix seconds)
// through /api/v1/query_range.
func (s *Server) QueryRange(expr string, start, end, step int64) ([]Series, error) {
	v := url.Values{"query": {expr}, "start": {strconv.FormatInt(start, 10)}, "end": {strconv.FormatInt(end, 10)}, "step": {strconv.FormatInt(step, 10)}}
	var data struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Values [][2]any          `json:"values"`
		} `json:"result"`
	}
	if err := s.get("/api/v1/query_range", v, &data); err != nil {
		return nil, err
	}
	var out []Series
	for _, r := range data.Result {
		ser := Series{Labels: r.Metric}
		for _, p := range r.Values {
			pt, err := point(p)
			if err != nil {
				return nil, err
			}
			ser.Points = append(ser.Points, pt)
		}
		out = append(out, ser)
	}
	return out, nil
}

// Query evaluates expr at time at (Unix seconds) through /api/v1/query.
func (s *Server) Query(expr string, at int64) ([]Series, error) {
	v := url.Values{"query": {expr}, "time": {strconv.FormatInt(at, 10)}}
	var data struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		} `json:"result"`
	}
	if err := s.get("/api/v1/query", v, &data); err != nil {
		return nil, err
	}
	if data.ResultType != "vector" {
		return nil, fmt.Errorf("query %s: result type %s, want vector", expr, data.ResultType)
	}
	var out []Series
	for _, r := range data.Result {
		pt, err := point(r.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, Series{Labels: r.Metric, Points: []Point{pt}})
	}
	return out, nil
}

func (s *Server) get(path string, v url.Values, data any) error {
	resp, err := http.PostForm(s.URL+path, v)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var env struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return fmt.Errorf("%s: %v: %.200s", path, err, body)
	}
	if env.Status != "success" {
		return fmt.Errorf("%s %q: %s", path, v.Get("query"), env.Error)
	}
	return json.Unmarshal(env.Data, data)
}

// point reads a [time, "value"] pair of the HTTP API.
func point(p [2]any) (Point, error) {
	t, ok := p[0].(float64)
	s, ok2 := p[1].(string)
	if !ok || !ok2 {
		return Point{}, fmt.Errorf("malformed sample %v", p)
	}
	v, err := strconv.ParseFloat(s, 64)
	return Point{T: t, V: v}, err
}
