// Package export sends a run's figures where teams look while it goes:
// OpenTelemetry metrics over OTLP/HTTP (the official Go SDK), when
// OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)
// is set. An [Exporter] is an observer of the session (package observe):
//
//   - each measured request as the gen_ai semantic conventions' client
//     metrics — gen_ai.client.operation.duration,
//     gen_ai.client.operation.time_to_first_chunk,
//     gen_ai.client.operation.time_per_output_chunk (seconds) and
//     gen_ai.client.token.usage (by gen_ai.token.type) — with
//     gen_ai.operation.name, gen_ai.request.model, gen_ai.response.model,
//     server.address and error.type;
//   - each level's figures once it ended, as the gauge
//     llmsla.level.figure, one point per benchmark unit of the metric
//     table (llmsla.figure=ttft-p95-ms, …: a new figure is one row there);
//   - each objective of the level: llmsla.objective.value, .threshold,
//     .margin (how far from failing, in the figure's unit: positive when
//     met) and .met (1 or 0), by llmsla.objective=ttft_p95_ms.
//
// Every point carries llmsla.scenario, llmsla.endpoint and llmsla.level.
// The SDK's periodic reader sends on its own goroutine, every 5 s unless
// OTEL_METRIC_EXPORT_INTERVAL says otherwise; recording is an in-memory
// add, off the measured path: a collector that hangs delays no request
// (a test holds it to that), and Close waits for the last export at most
// CloseTimeout.
package export

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	otelmetric "go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/llmsla/llmsla/harness/metric"
	"github.com/llmsla/llmsla/harness/objective"
	"github.com/llmsla/llmsla/harness/observe"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// The environment variables that turn the export on, as the SDK reads
// them.
const (
	EnvEndpoint        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	EnvMetricsEndpoint = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"
	EnvInterval        = "OTEL_METRIC_EXPORT_INTERVAL"
)

// DefaultInterval is how often the figures go out when
// OTEL_METRIC_EXPORT_INTERVAL is unset (the SDK's own default, a minute,
// is longer than most levels).
const DefaultInterval = 5 * time.Second

// CloseTimeout bounds the last export at Close: a collector that hangs
// costs the end of a run this, once, and never a request.
const CloseTimeout = 5 * time.Second

// Judge is a level's verdict, for its objectives' points: the session
// knows the objectives and the servers' readings.
type Judge func(lv *observe.Level, samples []sample.Sample) objective.Verdict

// Exporter is the observer that exports a session's figures.
type Exporter struct {
	observe.Nop
	provider *sdkmetric.MeterProvider
	judge    Judge
	hosts    map[string]endpointAttrs

	duration, ttfc, tpoc otelmetric.Float64Histogram
	tokens               otelmetric.Int64Histogram
	figure               otelmetric.Float64Gauge
	value, threshold     otelmetric.Float64Gauge
	margin               otelmetric.Float64Gauge
	met                  otelmetric.Int64Gauge
}

// endpointAttrs are what every point of an endpoint's requests carries.
type endpointAttrs struct {
	model, host string
}

// FromEnv is the exporter the environment asks for, nil when it asks for
// none. A configuration the SDK refuses is an error, before any request.
func FromEnv(endpoints []stream.Endpoint, judge Judge) (*Exporter, error) {
	if os.Getenv(EnvEndpoint) == "" && os.Getenv(EnvMetricsEndpoint) == "" {
		return nil, nil
	}
	exp, err := otlpmetrichttp.New(context.Background())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvEndpoint, err)
	}
	return New(exp, endpoints, judge)
}

// New is an exporter of the session's figures through exp.
func New(exp sdkmetric.Exporter, endpoints []stream.Endpoint, judge Judge) (*Exporter, error) {
	interval := DefaultInterval
	if v := os.Getenv(EnvInterval); v != "" {
		ms, err := time.ParseDuration(v + "ms")
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%s: %q is not a count of milliseconds > 0", EnvInterval, v)
		}
		interval = ms
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attribute.String("service.name", "llmsla")))
	if err != nil {
		return nil, err
	}
	// The SDK says an export it could not make to its global handler,
	// which logs; Close says the last one instead.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	e := &Exporter{judge: judge, hosts: map[string]endpointAttrs{},
		provider: sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
			sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(interval), sdkmetric.WithTimeout(CloseTimeout))))}
	for _, ep := range endpoints {
		e.hosts[ep.Name] = endpointAttrs{model: ep.Model, host: host(ep)}
	}
	m := e.provider.Meter("github.com/llmsla/llmsla")
	seconds := otelmetric.WithExplicitBucketBoundaries(0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92)
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var err1 error
	e.duration, err1 = m.Float64Histogram("gen_ai.client.operation.duration", otelmetric.WithUnit("s"), otelmetric.WithDescription("GenAI operation duration."), seconds)
	add(err1)
	e.ttfc, err1 = m.Float64Histogram("gen_ai.client.operation.time_to_first_chunk", otelmetric.WithUnit("s"), otelmetric.WithDescription("Time to receive the first chunk."), seconds)
	add(err1)
	e.tpoc, err1 = m.Float64Histogram("gen_ai.client.operation.time_per_output_chunk", otelmetric.WithUnit("s"), otelmetric.WithDescription("Time per output chunk after the first."),
		otelmetric.WithExplicitBucketBoundaries(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2))
	add(err1)
	e.tokens, err1 = m.Int64Histogram("gen_ai.client.token.usage", otelmetric.WithUnit("{token}"), otelmetric.WithDescription("Number of input and output tokens used."),
		otelmetric.WithExplicitBucketBoundaries(1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576))
	add(err1)
	e.figure, err1 = m.Float64Gauge("llmsla.level.figure", otelmetric.WithDescription("A level's figure, in its benchmark unit (llmsla.figure)."))
	add(err1)
	e.value, err1 = m.Float64Gauge("llmsla.objective.value", otelmetric.WithDescription("The figure an objective bounds, as measured (NaN: not measured)."))
	add(err1)
	e.threshold, err1 = m.Float64Gauge("llmsla.objective.threshold", otelmetric.WithDescription("An objective's bound."))
	add(err1)
	e.margin, err1 = m.Float64Gauge("llmsla.objective.margin", otelmetric.WithDescription("How far an objective's figure is from failing, in its unit: positive when met."))
	add(err1)
	e.met, err1 = m.Int64Gauge("llmsla.objective.met", otelmetric.WithDescription("1 when the objective is met, 0 when not (or not measured)."))
	add(err1)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return e, nil
}

func host(ep stream.Endpoint) string {
	if ep.Simulated {
		return "llmsla-sim"
	}
	if u, err := url.Parse(ep.BaseURL); err == nil {
		return u.Hostname()
	}
	return ""
}

// levelAttrs are a level's attributes.
func levelAttrs(lv *observe.Level) []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("llmsla.scenario", lv.Scenario), attribute.String("llmsla.endpoint", lv.Endpoint),
		attribute.String("llmsla.level", string(lv.Label))}
}

// Sample records a measured request's client metrics.
func (e *Exporter) Sample(lv *observe.Level, s *sample.Sample) {
	if !s.Measured() {
		return
	}
	name := s.Endpoint
	if name == "" {
		name = lv.Endpoint
	}
	ep := e.hosts[name]
	attrs := append(levelAttrs(lv), attribute.String("gen_ai.operation.name", "chat"), attribute.String("gen_ai.request.model", ep.model),
		attribute.String("server.address", ep.host))
	if s.Model != "" {
		attrs = append(attrs, attribute.String("gen_ai.response.model", s.Model))
	}
	if !s.OK() {
		attrs = append(attrs, attribute.String("error.type", string(s.ErrKind)))
	}
	ctx := context.Background()
	set := otelmetric.WithAttributes(attrs...)
	e.duration.Record(ctx, s.Total.Seconds(), set)
	if !s.OK() {
		return
	}
	if s.TTFT > 0 {
		e.ttfc.Record(ctx, s.TTFT.Seconds(), set)
	}
	if s.ITL != nil && s.ITL.N > 0 {
		e.tpoc.Record(ctx, (s.ITL.Sum / time.Duration(s.ITL.N)).Seconds(), set)
	}
	if s.PromptTokens > 0 {
		e.tokens.Record(ctx, int64(s.PromptTokens), otelmetric.WithAttributes(append(attrs, attribute.String("gen_ai.token.type", "input"))...))
	}
	if s.OutputTokens > 0 {
		e.tokens.Record(ctx, int64(s.OutputTokens), otelmetric.WithAttributes(append(attrs, attribute.String("gen_ai.token.type", "output"))...))
	}
}

// LevelEnd records a measured level's figures and objectives.
func (e *Exporter) LevelEnd(_ context.Context, lv *observe.Level, samples []sample.Sample) {
	if lv.Probe || e.judge == nil {
		return
	}
	measured := 0
	for i := range samples {
		if samples[i].Measured() {
			measured++
		}
	}
	if measured == 0 {
		return
	}
	v := e.judge(lv, samples)
	ctx := context.Background()
	base := levelAttrs(lv)
	for _, u := range metric.Units() {
		if x, ok := u.Bench(v.Stats); ok {
			e.figure.Record(ctx, x, otelmetric.WithAttributes(append(base, attribute.String("llmsla.figure", u.Unit()))...))
		}
	}
	violated := map[string]bool{}
	for _, viol := range v.Violations {
		violated[viol.Threshold.Key()] = true
	}
	for _, th := range v.Objectives {
		got := value(th, v.Stats)
		attrs := otelmetric.WithAttributes(append(base, attribute.String("llmsla.objective", th.Key()))...)
		e.value.Record(ctx, got, attrs)
		e.threshold.Record(ctx, th.Value, attrs)
		m := got - th.Value
		if th.Lower {
			m = th.Value - got
		}
		e.margin.Record(ctx, m, attrs)
		met := int64(1)
		if violated[th.Key()] || math.IsNaN(got) {
			met = 0
		}
		e.met.Record(ctx, met, attrs)
	}
}

// value is the figure th bounds, in th's unit; NaN when not measured.
func value(th objective.Threshold, st *stats.Stats) float64 {
	got, _ := th.Of(st)
	return got
}

// Close sends what is left, waiting CloseTimeout at most.
func (e *Exporter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
	defer cancel()
	if err := e.provider.Shutdown(ctx); err != nil {
		return fmt.Errorf("OpenTelemetry export: %w (the run's figures are in its files)", err)
	}
	return nil
}
