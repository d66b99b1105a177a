package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/outlast-dev/outlast/report/document"
)

// provenance fills the provenance of the Doc and the Summary.
func (b *builder) provenance() {
	schemas, versions := map[string]bool{}, map[string]bool{}
	h := sha256.New()
	for _, r := range b.runs {
		run := &r.run
		schemas[orDash(run.SchemaVersion)] = true
		versions[orDash(run.OutlastVersion)] = true
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\n", run.Run, run.ManifestSHA256, run.GatewaySHA256, run.EngineLogSHA256, run.MetricsSHA256)
	}
	p := SummaryProvenance{
		DatasetSchemaVersions: sortedKeys(schemas), OutlastVersions: sortedKeys(versions),
		ReportVersion: b.opt.Version, InputsSHA256: hex.EncodeToString(h.Sum(nil)),
	}
	date, ok := SourceDate()
	if ok {
		p.Date = date
	}
	b.sum.Provenance = p
	pv := &b.doc.Provenance
	if b.opt.Dataset != "" {
		*pv = append(*pv, document.KV{Key: "dataset", Value: b.opt.Dataset})
	}
	*pv = append(*pv,
		document.KV{Key: "runs", Value: fmt.Sprintf("%d in %s", len(b.runs), plural(b.experimentCount(), "experiment"))},
		document.KV{Key: "dataset schema", Value: strings.Join(p.DatasetSchemaVersions, ", ")},
		document.KV{Key: "ingested by outlast", Value: strings.Join(p.OutlastVersions, ", ")},
		document.KV{Key: "inputs sha256", Value: p.InputsSHA256[:16] + "…"},
	)
	if b.opt.Version != "" {
		*pv = append(*pv, document.KV{Key: "report by outlast", Value: b.opt.Version})
	}
	if ok {
		*pv = append(*pv, document.KV{Key: "date", Value: date + " (SOURCE_DATE_EPOCH)"})
	}
	*pv = append(*pv, document.KV{Key: "times", Value: "minutes since each run's start; dates UTC"})
}

// subtitle lists the experiments with their designs and sizes.
func (b *builder) subtitle() string {
	var parts []string
	for _, e := range b.exps {
		parts = append(parts, fmt.Sprintf("%s (%s, %s)", e.name, e.design, plural(len(e.runs), "run")))
	}
	return strings.Join(parts, " · ")
}

// experimentCount is the number of distinct experiment names (an
// experiment whose runs disagree on the design has several sections).
func (b *builder) experimentCount() int {
	names := map[string]bool{}
	for _, e := range b.exps {
		names[e.name] = true
	}
	return len(names)
}

// provenanceSection lists each run's versions and input hashes.
func (b *builder) provenanceSection() {
	t := &document.Table{
		ID:       "provenance",
		Caption:  "Inputs of every run: dataset schema and ingesting outlast version, engine log dialect and the sha256 (first 12 hex digits) of each input file.",
		Sortable: true,
		Columns: []document.Column{
			{Name: "Run"}, {Name: "Schema"}, {Name: "outlast"}, {Name: "Engine log"},
			{Name: "run.yaml"}, {Name: "gateway"}, {Name: "engine log"}, {Name: "metrics"}, {Name: "Rejected lines"},
		},
	}
	for _, r := range b.runs {
		run := &r.run
		t.Rows = append(t.Rows, []document.Cell{
			document.Text(run.Run), document.Text(orDash(run.SchemaVersion)), document.Text(orDash(run.OutlastVersion)), document.Text(orDash(run.EngineLogFormat)),
			document.Text(shortHash(run.ManifestSHA256)), document.Text(shortHash(run.GatewaySHA256)), document.Text(shortHash(run.EngineLogSHA256)), document.Text(shortHash(run.MetricsSHA256)),
			document.Int(run.RejectedLines),
		})
	}
	b.doc.Sections = append(b.doc.Sections, document.Section{
		ID: "provenance", Title: "Provenance",
		Intro:  []string{"The full hashes are in summary.json; provenance.inputs_sha256 digests them all."},
		Blocks: []document.Block{t},
	})
}

// shortHash is the first 12 hex digits of a hash, or a dash.
func shortHash(h string) string {
	if h == "" {
		return "–"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// SourceDate returns the date (UTC, "2006-01-02") given by the
// SOURCE_DATE_EPOCH environment variable, the reproducible-builds way to
// put a date into an output; ok is false when it is unset or invalid.
func SourceDate() (date string, ok bool) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return "", false
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil || sec < 0 {
		return "", false
	}
	return time.Unix(sec, 0).UTC().Format("2006-01-02"), true
}
