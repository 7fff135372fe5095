package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmsla/llmsla/harness/load"
	"github.com/llmsla/llmsla/harness/sample"
	"github.com/llmsla/llmsla/harness/sim"
	"github.com/llmsla/llmsla/harness/stats"
	"github.com/llmsla/llmsla/harness/stream"
)

// fast timeouts, so that the timeout faults end in a fraction of a second.
var testTimeouts = stream.Timeouts{Headers: 300 * time.Millisecond, Idle: 300 * time.Millisecond, Total: 1500 * time.Millisecond}

// TestErrorKinds injects each fault into the simulator and checks the sample
// carries the kind, the run counts it, and nothing is left behind.
func TestErrorKinds(t *testing.T) {
	totalOnly := stream.Timeouts{Headers: testTimeouts.Headers, Total: 500 * time.Millisecond}
	cases := map[string]struct {
		fault    string
		kind     sample.ErrorKind
		sentinel error
		check    func(t *testing.T, s sample.Sample)
	}{
		"timeout_headers":  {sim.FaultTimeoutHeaders, sample.KindTimeoutHeaders, sample.ErrTimeoutHeaders, nil},
		"timeout_idle":     {sim.FaultTimeoutIdle, sample.KindTimeoutIdle, sample.ErrTimeoutIdle, nil},
		"timeout_total":    {sim.FaultTimeoutTotal, sample.KindTimeoutTotal, sample.ErrTimeoutTotal, nil},
		"connection_reset": {sim.FaultConnectionReset, sample.KindConnReset, sample.ErrConnReset, nil},
		"rate_limited": {sim.FaultRateLimited, sample.KindRateLimited, sample.ErrRateLimited, func(t *testing.T, s sample.Sample) {
			assert.Equal(t, 429, s.Status)
			assert.Equal(t, "2", s.RetryAfter, "Retry-After kept")
			assert.Equal(t, "0", s.RateLimit["x-ratelimit-remaining-requests"], "x-ratelimit-* kept")
		}},
		"server_error_html": {sim.FaultServerError, sample.KindServerError, sample.ErrServerError, func(t *testing.T, s sample.Sample) {
			assert.Equal(t, 503, s.Status)
			assert.NotContains(t, s.Err, "<", "HTML tags dropped from the message")
		}},
		"server_error_json":      {sim.FaultServerErrorJSON, sample.KindServerError, sample.ErrServerError, nil},
		"client_error":           {sim.FaultClientError, sample.KindClientError, sample.ErrClientError, nil},
		"auth":                   {sim.FaultAuth, sample.KindAuth, sample.ErrAuth, nil},
		"protocol_content_type":  {sim.FaultProtocolContentType, sample.KindProtocol, sample.ErrProtocol, nil},
		"protocol_bad_chunk":     {sim.FaultProtocolBadChunk, sample.KindProtocol, sample.ErrProtocol, nil},
		"protocol_long_line":     {sim.FaultProtocolLongLine, sample.KindProtocol, sample.ErrProtocol, nil},
		"midstream_error":        {sim.FaultMidstreamError, sample.KindMidstream, sample.ErrMidstream, nil},
		"midstream_error_spaced": {sim.FaultMidstreamErrorSpaced, sample.KindMidstream, sample.ErrMidstream, nil},
		"midstream_error_vllm":   {sim.FaultMidstreamErrorVLLM, sample.KindMidstream, sample.ErrMidstream, nil},
		"truncated":              {sim.FaultTruncated, sample.KindTruncated, sample.ErrTruncated, nil},
		"truncated_abort":        {sim.FaultTruncatedAbort, sample.KindTruncated, sample.ErrTruncated, nil},
		// Hostile stream shapes. A line cut in the middle is the
		// network's doing, never a protocol error of the server's.
		"midstream_error_event": {fault: sim.FaultMidstreamErrorEvent, kind: sample.KindMidstream, sentinel: sample.ErrMidstream,
			check: func(t *testing.T, s sample.Sample) { assert.Contains(t, s.Err, "overloaded") }},
		"gzip_unasked": {fault: sim.FaultGzipUnasked, kind: sample.KindProtocol, sentinel: sample.ErrProtocol,
			check: func(t *testing.T, s sample.Sample) { assert.Contains(t, s.Err, "Content-Encoding: gzip") }},
		"truncated_midline": {fault: sim.FaultTruncatedMidline, kind: sample.KindTruncated, sentinel: sample.ErrTruncated,
			check: func(t *testing.T, s sample.Sample) { assert.Contains(t, s.Err, "inside a line") }},
		"reset_midline":              {fault: sim.FaultResetMidline, kind: sample.KindConnReset, sentinel: sample.ErrConnReset},
		"abort_midline":              {fault: sim.FaultAbortMidline, kind: sample.KindTruncated, sentinel: sample.ErrTruncated},
		"stall_midline idle timeout": {fault: sim.FaultStallMidline, kind: sample.KindTimeoutIdle, sentinel: sample.ErrTimeoutIdle},
		// A 200 that ends well with nothing in it.
		"empty_answer": {fault: sim.FaultEmptyAnswer, kind: sample.KindEmptyAnswer, sentinel: sample.ErrEmptyAnswer,
			check: func(t *testing.T, s sample.Sample) {
				assert.Contains(t, s.Err, "no answer token before finish_reason stop")
				assert.Equal(t, 200, s.Status)
			}},
		"stall_midline total timeout": {fault: sim.FaultStallMidline, kind: sample.KindTimeoutTotal, sentinel: sample.ErrTimeoutTotal},
	}
	timeouts := map[string]stream.Timeouts{"stall_midline total timeout": totalOnly} // else testTimeouts
	before := runtime.NumGoroutine()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := sim.Default()
			cfg.Faults = map[string]float64{tc.fault: 1}
			srv, url := sim.Start(t, cfg)
			to, ok := timeouts[name]
			if !ok {
				to = testTimeouts
			}
			c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: url, Model: "m", Timeouts: to})
			defer c.CloseIdle()
			samples := load.NewRunner().Run(context.Background(), c, hello(), load.Closed(2), 4)
			require.Len(t, samples, 4)
			for _, s := range samples {
				assert.Equal(t, tc.kind, s.ErrKind, "sample error: %s", s.Err)
				if isStreamFault(tc.fault) {
					assert.Equal(t, 3, s.Chunks, "the tokens before the fault are read, and no half line is one")
				}
				assert.Equal(t, string(tc.kind), s.Finish)
				assert.False(t, s.OK())
				if tc.check != nil {
					tc.check(t, s)
				}
			}
			st := stats.Summarize(samples, nil)
			assert.Equal(t, 4, st.Failed)
			assert.Equal(t, 4, st.Errors[tc.kind], "counted by kind")
			assert.Equal(t, 1.0, st.ErrorRate())
			c.CloseIdle()
			assert.True(t, srv.WaitIdle(5*time.Second), "the simulator still has %d requests in flight", srv.InFlight())
			// The sentinel matches through errors.Is on the measured
			// sample, and on the sample read back from its JSON line.
			assert.ErrorIs(t, samples[0].Error(), tc.sentinel)
			b, err := json.Marshal(samples[0])
			require.NoError(t, err)
			var back sample.Sample
			require.NoError(t, json.Unmarshal(b, &back))
			assert.ErrorIs(t, back.Error(), tc.sentinel)
		})
	}
	assertNoGoroutineLeak(t, before)
}

func TestConnectionRefused(t *testing.T) {
	c := stream.NewClient(stream.Endpoint{Name: "closed", BaseURL: "http://" + sim.ClosedAddr(t) + "/v1", Model: "m", Timeouts: testTimeouts})
	s := c.Do(context.Background(), hello().Prompt(0).Request)
	assert.Equal(t, sample.KindConnRefused, s.ErrKind, s.Err)
}

func TestCancelled(t *testing.T) {
	cfg := sim.Default()
	cfg.TTFT = 2 * time.Second
	_, url := sim.Start(t, cfg)
	c := stream.NewClient(stream.Endpoint{Name: "sim", BaseURL: url, Model: "m"})
	defer c.CloseIdle()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	s := c.Do(ctx, hello().Prompt(0).Request)
	assert.Equal(t, sample.KindCancelled, s.ErrKind, s.Err)
}

// TestTimeoutsAreErrTimeout: the three timeout kinds all match sample.ErrTimeout,
// and no other kind does.
func TestTimeoutsAreErrTimeout(t *testing.T) {
	for _, k := range sample.Kinds {
		isTimeout := k == sample.KindTimeoutHeaders || k == sample.KindTimeoutIdle || k == sample.KindTimeoutTotal
		assert.Equal(t, isTimeout, errors.Is(&sample.RequestError{Kind: k}, sample.ErrTimeout), string(k))
	}
}

// isStreamFault: the fault lets three tokens through first.
func isStreamFault(fault string) bool {
	switch fault {
	case sim.FaultTimeoutIdle, sim.FaultProtocolBadChunk, sim.FaultMidstreamError, sim.FaultMidstreamErrorSpaced,
		sim.FaultMidstreamErrorVLLM, sim.FaultMidstreamErrorEvent, sim.FaultTruncated, sim.FaultTruncatedAbort,
		sim.FaultTruncatedMidline, sim.FaultResetMidline, sim.FaultStallMidline, sim.FaultAbortMidline:
		return true
	}
	return false
}

func assertNoGoroutineLeak(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}
