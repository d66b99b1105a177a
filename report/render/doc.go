// Package render writes a report document (package report/document) as one
// self-contained offline HTML page (WriteHTML), as CSV and Markdown tables
// (WriteTables) and writes values as deterministic JSON (WriteJSON). Every
// output is a pure function of its input: there is no wall clock, no
// map-order output and chart IDs are derived from figure IDs, so rendering
// the same Doc twice gives identical bytes.
//
// Every figure is built with go-echarts v2 (charts.NewLine, NewScatter and
// NewBar with opts types), but only its option object is used: the page
// embeds each option as JSON data read with JSON.parse (assets/runtime.js)
// and drawn by the inlined Apache ECharts, instead of go-echarts' generated
// <script>, so the page keeps its own template and a Content-Security-Policy
// that forbids any request. go-echarts' gaps are handled here:
//   - its own serializer drops encoder errors, so one NaN empties a chart:
//     non-finite values become "-" (ECharts' missing value) before
//     AddSeries, and the option goes through json.Marshal, whose error is
//     returned;
//   - an unset ChartID is random: it is always set to document.ChartID(figure);
//   - it has no fields for useUTC, textStyle, tooltip confine, toolbox
//     itemSize, axis nameTextStyle or series silent, z and progressive,
//     and emits null for some unset fields: optionVisitor (option.go) adds
//     the former and drops the latter;
//   - it writes each point as {"value":[x,y]}: optionVisitor writes
//     [x,y], which ECharts reads the same way, in about two thirds of
//     the bytes.
//
// encoding/json sorts map keys and go-echarts' structs have a fixed field
// order, and every number is rounded (values.go), so the option bytes
// depend only on the figure, not on the last bits a CPU computed. Series
// longer than MaxChartPoints are downsampled (Downsample) before drawing.
package render
