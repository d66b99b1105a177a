package warm

import (
	_ "github.com/apache/arrow-go/v18/arrow/ipc"
	_ "github.com/go-echarts/go-echarts/v2/charts"
	_ "github.com/go-echarts/go-echarts/v2/components"
	_ "github.com/parquet-go/parquet-go"
	_ "github.com/parquet-go/parquet-go/compress/zstd"
	_ "github.com/prometheus/common/expfmt"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/term"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/gonum/stat"
	_ "gonum.org/v1/gonum/stat/distuv"
)
