package readertest

import (
	"github.com/outlast-dev/outlast/ingest/internal/enginelog"
	"github.com/outlast-dev/outlast/ingest/internal/lineio"
)

// Opener adapts an engine's NewReader, which returns its own reader type,
// to Engine.Open.
func Opener[R Reader](open func(*lineio.Reader, enginelog.Options) R) func(*lineio.Reader, enginelog.Options) Reader {
	return func(lr *lineio.Reader, opt enginelog.Options) Reader { return open(lr, opt) }
}
