package agent

import (
	"context"
	"errors"
	"testing"

	"github.com/screenagent/backend/shared/accounts"
)

// TestAnotherMembersTask: a member of the same tenant naming a user's task gets TASK_NOT_FOUND,
// exactly as for a task that does not exist, and the LLM is not called.
func TestAnotherMembersTask(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.llm.SetDefault(reply("Clicking.", "click(2)"))
	r := f.step(t, Request{})
	calls := f.llm.Calls()
	carol := accounts.Identity{UserID: "u-carol", TenantID: alice.TenantID}
	_, err := f.engine.Interact(context.Background(), Request{Identity: carol, TaskID: r.TaskID, URL: "https://shop.example/", Query: "q", DOM: shopDOM})
	if !errors.Is(err, ErrTaskNotFound) || f.llm.Calls() != calls {
		t.Errorf("Interact() by another member error = %v after %d LLM calls, want ErrTaskNotFound and none", err, f.llm.Calls()-calls)
	}
}
