package main

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/outlast-dev/outlast/internal/jsonnum"
	"github.com/outlast-dev/outlast/schema"
	"github.com/outlast-dev/outlast/stats"
)

func init() {
	commands["runs"] = command{summary: "list the runs of a dataset, one line each", run: runRuns}
}

const runsHelp = `Usage: outlast runs [--format text|csv|json] DATASET

Runs prints one line per run of the dataset: run, experiment, arm, engine
and version, KV pool size C (tokens; "?" when neither the manifest, the
engine log nor the metrics gave it), arrival rate λ (sessions/s; "–" when
unknown), trigger (kind start–end in seconds, then its extra rate, e.g.
"burst 900–1200s +0.0525/s", and its other keys as key=value), control
(kind@start and its parameters, e.g. "budgeter@1200s high=0.95 low=0.75"),
sessions, turns, and the token-weighted prefix-cache hit ratio
Σcached/Σprompt over the turns that completed (status ok; failed turns
carry no cache figure worth the name; "–" when the engine reported no
cached tokens). The text fits 120 columns: when it would be wider, what
every run shares is said once above the table ("every run: engine vllm
0.28.0, C 400K"), the arm column is left out if every run's name ends
with its arm (s501-burst), and the longest triggers and controls, then
experiments and engines, then run names, are shortened with "…".

--format csv and json print the same columns whole, for a program to
read: run, experiment, arm, engine, engine_version, kv_pool_tokens,
arrival_rate, trigger, control (their parameters as the manifest's JSON),
sessions, turns, hit_ratio; an unknown figure is an empty field in CSV and
null in JSON. Nothing is printed unless every run
was read.

Examples:
  outlast runs ds
  outlast runs ds | grep burst
  outlast runs --format csv ds > runs.csv
  outlast runs --format json ds | jq -r '.[] | select(.arm == "burst") | .run'
`

// runRow is one line of runs, as the csv and json formats print it.
type runRow struct {
	Run           string        `json:"run"`
	Experiment    string        `json:"experiment"`
	Arm           string        `json:"arm"`
	Engine        string        `json:"engine"`
	EngineVersion string        `json:"engine_version"`
	KVPoolTokens  *int64        `json:"kv_pool_tokens"`
	ArrivalRate   *float64      `json:"arrival_rate"`
	Trigger       string        `json:"trigger"`
	Control       string        `json:"control"`
	Sessions      int           `json:"sessions"`
	Turns         int           `json:"turns"`
	HitRatio      jsonnum.Float `json:"hit_ratio"`

	// triggerText and controlText are the trigger and control as the
	// text table writes them (triggerText, paramsText).
	triggerText, controlText string
}

func runRuns(stdout, stderr io.Writer, args []string) error {
	fs := newFlags("runs", runsHelp)
	format := fs.String("format", "text", "output `FORMAT`: text, csv or json")
	if err := fs.parse(stdout, args); err != nil {
		return err
	}
	switch *format {
	case "text", "csv", "json":
	default:
		return usageErrorf("runs: --format %q: want text, csv or json", *format)
	}
	if fs.NArg() != 1 {
		return usageErrorf("runs needs one DATASET")
	}
	// One run in memory at a time; only its row is kept.
	var rows []runRow
	err := fs.readProgress(stderr).each(fs.Arg(0), func(d *schema.RunData) error {
		r := d.Run
		hit := stats.NewTurnSeries(d.Turns).HitRatio(stats.Window{Start: math.Inf(-1), End: math.Inf(1)})
		if !stats.CacheKnown(&r) {
			hit = math.NaN() // the engine reported no cached tokens
		}
		rows = append(rows, runRow{
			Run: r.Run, Experiment: r.Experiment, Arm: r.Arm, Engine: r.EngineName, EngineVersion: r.EngineVersion,
			KVPoolTokens: r.KVPoolTokens, ArrivalRate: r.ArrivalRate, Trigger: r.TriggerString(), Control: r.ControlString(),
			Sessions: len(d.Sessions), Turns: len(d.Turns), HitRatio: jsonnum.Float(hit),
			triggerText: triggerText(&r), controlText: paramsText(r.ControlString()),
		})
		return nil
	})
	if err != nil {
		return inputError(err)
	}
	switch *format {
	case "json":
		return writeRunsJSON(stdout, rows)
	case "csv":
		return writeRunsCSV(stdout, rows)
	}
	return writeRunsText(stdout, rows)
}

// runsWidth is the width the text table fits in: a terminal's, with room.
const runsWidth = 120

// runsColumn is a column of the text table and how it gives way when the
// table is wider than runsWidth.
type runsColumn struct {
	head string
	// common: a value every run shares may be said once, above the table.
	common bool
	// tier orders the shortening (lower first; 0 never), down to least
	// characters; mid cuts a cell in its middle (names differ at their
	// ends: s501-burst, s502-burst), else at its end.
	tier, least int
	mid         bool
}

var runsColumns = []runsColumn{
	{head: "RUN", tier: 3, least: 16, mid: true},
	{head: "EXPERIMENT", common: true, tier: 2, least: 10, mid: true},
	{head: "ARM", common: true},
	{head: "ENGINE", common: true, tier: 2, least: 13}, // sglang 0.5.15
	{head: "C", common: true},
	{head: "λ", common: true},
	{head: "TRIGGER", common: true, tier: 1, least: 22}, // burst 900–1200s +0.05…
	{head: "CONTROL", common: true, tier: 1, least: 13}, // budgeter@1200…
	{head: "SESSIONS"},
	{head: "TURNS"},
	{head: "HIT"},
}

// writeRunsText writes the rows as an aligned table, the trigger's and
// control's parameters as key=value. A table wider than runsWidth first
// says once, above it, the values every run shares, the widest first,
// until it fits ("every run: engine vllm 0.28.0, C 400K"), leaves out the arms when every run's name ends
// with its arm, then shortens the longest trigger and control cells, then
// experiment and engine, then run names, with "…" (csv and json have them
// whole).
func writeRunsText(w io.Writer, rows []runRow) error {
	cells := make([][]string, len(rows))
	for k, r := range rows {
		engine := r.Engine
		if r.EngineVersion != "" {
			engine += " " + r.EngineVersion
		}
		cells[k] = []string{r.Run, r.Experiment, r.Arm, engine, poolString(r.KVPoolTokens),
			optFloat(r.ArrivalRate), r.triggerText, r.controlText,
			strconv.Itoa(r.Sessions), strconv.Itoa(r.Turns), ratio(float64(r.HitRatio))}
	}
	cols := make([]int, len(runsColumns)) // the columns shown, by index
	for i := range cols {
		cols[i] = i
	}
	bw := bufio.NewWriter(w)
	if tableWidth(cells, cols) > runsWidth && len(rows) > 1 {
		// The widest columns whose value every run shares go above the
		// table, until it fits.
		var common []int
		for i, c := range runsColumns {
			if c.common && allSame(cells, i) {
				common = append(common, i)
			}
		}
		widths := columnWidths(cells, cols)
		slices.SortStableFunc(common, func(a, b int) int { return widths[b] - widths[a] })
		said := map[int]bool{}
		for _, i := range common {
			if tableWidth(cells, cols) <= runsWidth {
				break
			}
			said[i] = true
			cols = slices.DeleteFunc(cols, func(j int) bool { return j == i })
		}
		var parts []string
		for i, c := range runsColumns {
			if said[i] {
				name := c.head
				if utf8.RuneCountInString(name) > 1 {
					name = strings.ToLower(name) // C and λ as the table writes them
				}
				parts = append(parts, name+" "+cells[0][i])
			}
		}
		writeWrapped(bw, "every run: ", parts)
		if tableWidth(cells, cols) > runsWidth && armInNames(rows) {
			cols = slices.DeleteFunc(cols, func(i int) bool { return runsColumns[i].head == "ARM" })
		}
	}
	widths := fitColumns(cells, cols)
	line := func(get func(i int) string) {
		for k, i := range cols {
			c := get(i)
			if k == len(cols)-1 {
				bw.WriteString(c)
				break
			}
			bw.WriteString(c)
			bw.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)+2))
		}
		bw.WriteByte('\n')
	}
	line(func(i int) string { return runsColumns[i].head })
	for _, row := range cells {
		line(func(i int) string { return shorten(row[i], widths[i], runsColumns[i].mid) })
	}
	return bw.Flush()
}

// writeWrapped writes parts after prefix, ", " apart, in lines of at most
// runsWidth characters, the lines after the first indented as far as
// prefix; a part too long for a line is shortened with "…".
func writeWrapped(w *bufio.Writer, prefix string, parts []string) {
	if len(parts) == 0 {
		return
	}
	indent := utf8.RuneCountInString(prefix)
	line, n := prefix, indent
	for k, p := range parts {
		p = shorten(p, runsWidth-indent-1, false)
		if k < len(parts)-1 {
			p += ","
		}
		if pn := utf8.RuneCountInString(p); n > indent && n+1+pn > runsWidth {
			w.WriteString(line + "\n")
			line, n = strings.Repeat(" ", indent)+p, indent+pn
		} else if n > indent {
			line, n = line+" "+p, n+1+pn
		} else {
			line, n = line+p, n+pn
		}
	}
	w.WriteString(line + "\n")
}

// tableWidth is the width of the columns cols of cells, and their heads,
// two spaces apart.
func tableWidth(cells [][]string, cols []int) int {
	total := 2 * (len(cols) - 1)
	for _, w := range columnWidths(cells, cols) {
		total += w
	}
	return total
}

// columnWidths returns the width of each column of cols, by column index.
func columnWidths(cells [][]string, cols []int) map[int]int {
	widths := map[int]int{}
	for _, i := range cols {
		widths[i] = utf8.RuneCountInString(runsColumns[i].head)
		for _, row := range cells {
			widths[i] = max(widths[i], utf8.RuneCountInString(row[i]))
		}
	}
	return widths
}

// fitColumns returns the widths of columns cols such that the table fits
// runsWidth: a step at a time, the widest column of the lowest tier that
// can still give way loses a character, down to its least width; if that
// is not enough, down to its head's width (or 6).
func fitColumns(cells [][]string, cols []int) map[int]int {
	widths := columnWidths(cells, cols)
	total := tableWidth(cells, cols)
	for _, least := range []func(runsColumn) int{
		func(c runsColumn) int { return max(c.least, utf8.RuneCountInString(c.head)) },
		func(c runsColumn) int { return max(6, utf8.RuneCountInString(c.head)) },
	} {
		for ; total > runsWidth; total-- {
			pick := -1
			for _, i := range cols {
				c := runsColumns[i]
				if c.tier == 0 || widths[i] <= least(c) {
					continue
				}
				if pick < 0 || c.tier < runsColumns[pick].tier || c.tier == runsColumns[pick].tier && widths[i] > widths[pick] {
					pick = i
				}
			}
			if pick < 0 {
				break
			}
			widths[pick]--
		}
	}
	return widths
}

// armInNames reports whether every run's name ends with its arm
// (s501-burst, arm burst), as the simulator's and most campaigns' do: the
// ARM column then says nothing the RUN column does not.
func armInNames(rows []runRow) bool {
	for _, r := range rows {
		if r.Arm == "" || r.Run != r.Arm && !strings.HasSuffix(r.Run, "-"+r.Arm) && !strings.HasSuffix(r.Run, "_"+r.Arm) {
			return false
		}
	}
	return true
}

// allSame reports whether every row has the same cell in column i.
func allSame(cells [][]string, i int) bool {
	for _, row := range cells[1:] {
		if row[i] != cells[0][i] {
			return false
		}
	}
	return true
}

// shorten cuts s to n characters with "…", in its middle or at its end.
func shorten(s string, n int, mid bool) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if !mid {
		return string(r[:n-1]) + "…"
	}
	head := (n - 1) - (n-1)/2
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// triggerText is r's trigger as the text table writes it: its kind, its
// window (start–end, or @start for a change at one time), the rate after
// it, its extra rate, and its other keys as key=value:
// "rate-change @1200s →0.006/s +0.06/s burst_end_s=900 burst_start_s=600".
func triggerText(r *schema.Run) string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	parts := []string{cmp.Or(r.TriggerKind, schema.TriggerNone)}
	switch start, end := r.TriggerStartS, r.TriggerEndS; {
	case start != nil && end != nil && *start == *end:
		parts = append(parts, "@"+g(*start)+"s")
	case start != nil || end != nil:
		parts = append(parts, optFloat(start)+"–"+optFloat(end)+"s")
	}
	if r.TriggerRateAfter != nil {
		parts = append(parts, "→"+g(*r.TriggerRateAfter)+"/s")
	}
	if r.TriggerExtraRate != nil {
		parts = append(parts, "+"+g(*r.TriggerExtraRate)+"/s")
	}
	if r.TriggerExtra != "" && r.TriggerExtra != "{}" {
		parts = append(parts, strings.TrimSpace(paramsText("x " + r.TriggerExtra)[1:]))
	}
	return strings.Join(parts, " ")
}

// paramsText turns the JSON object of parameters that a trigger or control
// string ends with ("budgeter@200s {"high":0.95,"low":0.75}") into text,
// "budgeter@200s high=0.95 low=0.75", keys in the order written (sorted
// at ingest). A string without one is returned as it is.
func paramsText(s string) string {
	i := strings.Index(s, " {")
	if i < 0 || !strings.HasSuffix(s, "}") {
		return s
	}
	dec := json.NewDecoder(strings.NewReader(s[i+1:]))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return s
	}
	var parts []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return s
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return s
		}
		val := string(v)
		var str string
		if json.Unmarshal(v, &str) == nil {
			val = str
		}
		parts = append(parts, fmt.Sprintf("%v=%s", k, val))
	}
	return strings.TrimSpace(s[:i] + " " + strings.Join(parts, " "))
}

// writeRunsJSON writes the rows as one JSON array.
func writeRunsJSON(w io.Writer, rows []runRow) error {
	if rows == nil {
		rows = []runRow{}
	}
	b, err := json.MarshalIndent(rows, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeRunsCSV writes the rows as CSV, an unknown figure as an empty field.
func writeRunsCSV(w io.Writer, rows []runRow) error {
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	cw.Write([]string{"run", "experiment", "arm", "engine", "engine_version", "kv_pool_tokens", "arrival_rate",
		"trigger", "control", "sessions", "turns", "hit_ratio"})
	for _, r := range rows {
		pool, rate, hit := "", "", ""
		if r.KVPoolTokens != nil {
			pool = strconv.FormatInt(*r.KVPoolTokens, 10)
		}
		if r.ArrivalRate != nil {
			rate = strconv.FormatFloat(jsonnum.Round(*r.ArrivalRate), 'g', -1, 64)
		}
		if h := float64(r.HitRatio); !math.IsNaN(h) && !math.IsInf(h, 0) {
			hit = strconv.FormatFloat(jsonnum.Round(h), 'g', -1, 64)
		}
		cw.Write([]string{r.Run, r.Experiment, r.Arm, r.Engine, r.EngineVersion, pool, rate,
			r.Trigger, r.Control, strconv.Itoa(r.Sessions), strconv.Itoa(r.Turns), hit})
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

func poolString(p *int64) string {
	if p == nil {
		return "?"
	}
	if *p%1000 == 0 {
		return strconv.FormatInt(*p/1000, 10) + "K"
	}
	return strconv.FormatInt(*p, 10)
}

func optFloat(v *float64) string {
	if v == nil {
		return "–"
	}
	return strconv.FormatFloat(*v, 'g', 4, 64)
}

func ratio(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}
