package sample_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/llmsla/llmsla/harness/sample"
)

// TestKindIsError: a kind is an error and its own sentinel: a request's
// error, wrapped or not, matches its kind and no other, and every timeout
// matches ErrTimeout.
func TestKindIsError(t *testing.T) {
	err := fmt.Errorf("endpoint prod: %w", &sample.RequestError{Kind: sample.KindTimeoutIdle, Message: "stalled"})
	for _, k := range sample.Kinds {
		if got := errors.Is(err, k); got != (k == sample.KindTimeoutIdle) {
			t.Errorf("errors.Is(%v, %s) = %v", err, k, got)
		}
	}
	if !errors.Is(err, sample.ErrTimeout) || !errors.Is(err, sample.ErrTimeoutIdle) {
		t.Errorf("a timeout_idle error is not a timeout")
	}
	if errors.Is(&sample.RequestError{Kind: sample.KindAuth}, sample.ErrTimeout) {
		t.Error("auth matched ErrTimeout")
	}
	if sample.KindRateLimited.Error() != "rate_limited" {
		t.Errorf("kind's error text %q", sample.KindRateLimited.Error())
	}
}
