package render_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codeloc/codeloc/internal/problem"
	"github.com/codeloc/codeloc/render"
)

// TestWithin checks the one budget runner: unbounded it runs f in place;
// past the budget it answers with the budget's problem; when ctx ends
// first, with the cancellation.
func TestWithin(t *testing.T) {
	v, err := render.Within(context.Background(), 0, "x", func() (int, error) { return 7, nil })
	if v != 7 || err != nil {
		t.Errorf("unbounded: %d, %v", v, err)
	}
	release := make(chan struct{})
	defer close(release)
	slow := func() (int, error) { <-release; return 1, nil }
	_, err = render.Within(context.Background(), 20*time.Millisecond, "citation", slow)
	var ps problem.Problems
	if !errors.As(err, &ps) || len(ps) != 1 || ps[0] != render.BudgetProblem(20*time.Millisecond, "citation") {
		t.Errorf("past the budget: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err = render.Within(ctx, time.Minute, "citation", slow); err == nil || !errors.Is(err, context.Canceled) || err.Error() != "render cancelled: context canceled" {
		t.Errorf("cancelled: %v", err)
	}
}
