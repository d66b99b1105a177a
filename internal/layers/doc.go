// Package layers holds no code: its test checks that outlast's packages
// import each other only in the one direction the design allows,
//
//	run directories → ingest → dataset → stats → report, compare, export, replay, alerts → cmd
//	                                                 sim → replay
//
// with schema and textpos at the bottom and internal helpers beside them.
// Only cmd opens the dataset: it hands every library package its runs.
// The simulator uses schema alone.
package layers
