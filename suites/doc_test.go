// Package suites holds llmsla's scenarios as Go tests and benchmarks. Each
// scenario is a few lines: what to ask (a fixture) and how to judge it; the
// endpoints, sample counts, concurrency levels and SLA thresholds come from
// sla.yaml (or the built-in simulator when none is configured).
//
//	go test ./suites/...                       # SLA verdicts as pass/fail
//	go test -run '^$' -bench . ./suites/...    # figures in benchfmt
package suites
