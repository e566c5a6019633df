package render

import (
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

// RenderWithin is Render bounded by budget (0: no bound). kustomize takes
// no context, so a render past its budget cannot be stopped: it goes on in
// the background, its result dropped, and RenderWithin returns the budget's
// problem at once. A process that exits after the answer (the CLI) takes
// the render with it.
func RenderWithin(req Request, budget time.Duration, where string) (*Result, error) {
	if budget <= 0 {
		return Render(req)
	}
	type result struct {
		res *Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := Render(req)
		done <- result{res, err}
	}()
	timer := time.NewTimer(budget)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.res, r.err
	case <-timer.C:
		return nil, problem.Problems{BudgetProblem(budget, where)}
	}
}
