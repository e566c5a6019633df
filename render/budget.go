package render

import (
	"context"
	"fmt"
	"time"

	"github.com/codeloc/codeloc/internal/problem"
)

// The render budget: how long one render may take. Argo CD's controller
// waits 60 s for the repo-server (controller.repo.server.timeout.seconds)
// and the stock cmp-server kills a plugin after ARGOCD_EXEC_TIMEOUT (90 s):
// past the budget codeloc answers with one line naming it, well before
// either gives up with a less useful message.
const (
	DefaultRenderSeconds = 45
	FlagRenderSeconds    = "max-render-seconds"
	EnvRenderSeconds     = "CODELOC_MAX_RENDER_SECONDS"
)

// BudgetProblem is the problem of a render that took longer than budget;
// where names the code-location's folder as the user knows it.
func BudgetProblem(budget time.Duration, where string) problem.Problem {
	return problem.Problem{Code: CodeRenderBudget, File: where,
		Message: fmt.Sprintf("the render took longer than its budget of %s", budget),
		Hint: "kustomize is still building: a root that large or that nested does not fit one code-location; split it, " +
			"or raise the budget with --" + FlagRenderSeconds + " or " + EnvRenderSeconds + " (keep it under Argo CD's timeouts)"}
}

// RenderWithin is Render bounded by budget (0: no bound): Within around
// Render. A process that exits after the answer (the CLI) takes a render
// past its budget with it.
func RenderWithin(req Request, budget time.Duration, where string) (*Result, error) {
	return Within(context.Background(), budget, where, func() (*Result, error) { return Render(req) })
}

// Within runs f, a render of the code-location where names (its folder
// as the user knows it), bounded by budget (0: no bound) and by ctx
// (context.Background(): no bound): the one budget runner of the CLI and
// the sidecar. kustomize takes no context, so a render past its budget
// cannot be stopped: it goes on in the background, its result dropped, and
// Within returns at once the budget's problem (as problem.Problems), or,
// when ctx ends first, the error "render cancelled: <ctx's error>". f runs
// in the caller's goroutine when neither bound is set.
func Within[T any](ctx context.Context, budget time.Duration, where string, f func() (T, error)) (T, error) {
	cancelled := ctx.Done()
	if budget <= 0 && cancelled == nil {
		return f()
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := f()
		done <- result{v, err}
	}()
	var expired <-chan time.Time
	if budget > 0 {
		timer := time.NewTimer(budget)
		defer timer.Stop()
		expired = timer.C
	}
	var zero T
	select {
	case r := <-done:
		return r.v, r.err
	case <-cancelled:
		return zero, fmt.Errorf("render cancelled: %w", ctx.Err())
	case <-expired:
		return zero, problem.Problems{BudgetProblem(budget, where)}
	}
}
